"""The OptimizerPlayground in a real browser: voila serves it, headless Chromium moves a slider.

What runs: a one-cell notebook (written to a temp dir, so nbval does not collect it)
is served by voila on 127.0.0.1 at a free port; Debian's Chromium at /usr/bin/chromium,
driven by Playwright (no browser download: ``executable_path``), opens it with every
request to a host other than 127.0.0.1 aborted. The test focuses the learning-rate
slider's handle and presses the right-arrow key once: the log slider's exponent moves by
its step (0.1), so the kernel receives ``10 ** -0.9`` and the playground (rounding log
sliders to 3 significant digits) runs Adam with ``learning_rate=0.126``.

It asserts that the summary text shown in the page is exactly what the same playground
computes in this process before and after ``set(learning_rate=0.126)``; that the slider's
readout moved; and that the trajectory image's PNG bytes changed. The page's screenshot
goes to ``artifacts/playground_browser.png`` (kept, pass or fail). The voila server runs
in its own process group, stopped (TERM, then KILL) at the end.

Chromium is installed by ``make test`` (apt-get, as root) when missing. Without it the
test fails under CI (``CI`` set) and skips elsewhere, naming what to install.
"""
import base64
import hashlib
import importlib.util
import math
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from browser_helpers import free_port, jupyter_env, listening, missing, stop_group

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / 'artifacts'

# The notebook's one cell; the test runs the same lines to know what the page must show.
PLAYGROUND_CODE = (
    "from gluonedu.widgets import OptimizerPlayground\n"
    "playground = OptimizerPlayground('quadratic', 'adam', steps=60, learning_rate=0.1)\n"
    "playground"
)
SUMMARY = '.gluonedu-playground-summary pre'
IMAGE = 'img.gluonedu-playground-image'
LR_HANDLE = '.gluonedu-hp-learning_rate .noUi-handle'
LR_READOUT = '.gluonedu-hp-learning_rate .widget-readout'

SERVER_START_S = 60      # voila listening
PAGE_LOAD_S = 90         # kernel started, gluonedu imported, the cell executed, widgets shown
UPDATE_S = 30            # one slider move: a 60-step run and a PNG


def _write_notebook(path):
    nbformat = pytest.importorskip('nbformat')
    nb = nbformat.v4.new_notebook()
    nb.metadata['kernelspec'] = {'name': 'python3', 'display_name': 'Python 3',
                                 'language': 'python'}
    nb.cells = [nbformat.v4.new_code_cell(PLAYGROUND_CODE)]
    nbformat.write(nb, str(path))


@pytest.fixture
def voila_url(tmp_path):
    """Serve the playground notebook with voila on 127.0.0.1; yield its URL; stop it."""
    if importlib.util.find_spec('voila') is None:
        missing('voila')
    notebook = tmp_path / 'playground.ipynb'
    _write_notebook(notebook)
    port = free_port()
    env = jupyter_env(tmp_path, os.path.dirname(sys.executable))
    log = tmp_path / 'voila.log'
    with open(log, 'wb') as out:
        proc = subprocess.Popen(
            [sys.executable, '-m', 'voila', str(notebook), '--no-browser',
             '--port=%d' % port, '--Voila.ip=127.0.0.1', '--Voila.port_retries=0',
             '--show_tracebacks=True'],
            cwd=tmp_path, env=env, stdin=subprocess.DEVNULL, stdout=out,
            stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + SERVER_START_S
        while not listening(port):
            if proc.poll() is not None:
                pytest.fail('voila exited with %s:\n%s' % (proc.returncode,
                                                          log.read_text(errors='replace')))
            if time.monotonic() > deadline:
                pytest.fail('voila did not listen on 127.0.0.1:%d within %d s:\n%s'
                            % (port, SERVER_START_S, log.read_text(errors='replace')))
            time.sleep(0.2)
        yield 'http://127.0.0.1:%d/' % port, log
    finally:
        stop_group(proc)
    with pytest.raises(ProcessLookupError):
        os.killpg(proc.pid, 0)             # nothing of the server is left


def _png_digest(page):
    """SHA-256 of the bytes behind the playground image (a blob: URL the widget made)."""
    data = page.evaluate(
        """async (selector) => {
            const src = document.querySelector(selector).src;
            const bytes = new Uint8Array(await (await fetch(src)).arrayBuffer());
            let text = '';
            for (const b of bytes) text += String.fromCharCode(b);
            return btoa(text);
        }""", IMAGE)
    raw = base64.b64decode(data)
    assert raw.startswith(b'\x89PNG\r\n\x1a\n'), 'the image is not a PNG'
    return hashlib.sha256(raw).hexdigest()


def test_moving_the_learning_rate_slider_reruns_the_optimizer(browser_page, voila_url):
    from gluonedu.widgets._common import round_significant
    url, log = voila_url
    page = browser_page

    # What the page must show: the same playground, computed here.
    scope = {}
    exec(PLAYGROUND_CODE.rsplit('\n', 1)[0], scope)
    expected = scope['playground']
    expected_before = expected.summary()
    moved_lr = round_significant(10 ** (math.log10(0.1) + 0.1))     # one arrow-key step
    assert moved_lr == 0.126
    expected_after = expected.set(learning_rate=moved_lr).summary()
    assert expected_after != expected_before

    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / 'playground_browser.png'
    try:
        page.goto(url, timeout=PAGE_LOAD_S * 1000, wait_until='domcontentloaded')
        try:
            page.wait_for_selector(SUMMARY, timeout=PAGE_LOAD_S * 1000)
            page.wait_for_selector(IMAGE + '[src^="blob:"]', timeout=UPDATE_S * 1000)
        except Exception:
            pytest.fail('the playground did not render within %d s; page text:\n%s\n'
                        'voila log:\n%s' % (PAGE_LOAD_S, page.inner_text('body')[:3000],
                                            log.read_text(errors='replace')[-3000:]))
        before = page.inner_text(SUMMARY)
        assert before == expected_before
        assert page.inner_text(LR_READOUT) == '0.100'
        image_before = _png_digest(page)
        src_before = page.get_attribute(IMAGE, 'src')

        handle = page.locator(LR_HANDLE)
        assert handle.count() == 1
        handle.focus()
        page.keyboard.press('ArrowRight')
        page.wait_for_function(
            "([selector, old]) => document.querySelector(selector).innerText !== old",
            arg=[SUMMARY, before], timeout=UPDATE_S * 1000)
        after = page.inner_text(SUMMARY)
        assert after == expected_after
        assert after.endswith('settings: learning_rate=0.126')
        assert page.inner_text(LR_READOUT) == '0.126'
        # A new value gives the <img> a new blob: URL; then compare the bytes themselves.
        page.wait_for_function(
            "([selector, old]) => document.querySelector(selector).src !== old",
            arg=[IMAGE, src_before], timeout=UPDATE_S * 1000)
        assert _png_digest(page) != image_before, 'the trajectory image did not change'
    finally:
        page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 0
    # Every request went through the router (which aborts all but 127.0.0.1's).
    assert page.allowed and page.allowed[0].startswith(url)
