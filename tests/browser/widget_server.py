"""A widget notebook served by voila, and the page that shows it (for the browser tests).

``serve_notebook(code, tmp_path)`` writes a one-cell notebook (in a temp dir, so nbval
does not collect it), serves it with voila on 127.0.0.1 at a free port in its own process
group, yields ``(url, log path)`` and stops the group (TERM, then KILL) at the end.
:class:`WidgetPage` drives the page as a student would: it waits for the widget,
focuses a slider and presses a key, compares the image's PNG bytes, keeps a screenshot.
"""
import base64
import contextlib
import hashlib
import importlib.util
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from browser_helpers import free_port, jupyter_env, listening, missing, stop_group

ARTIFACTS = Path(__file__).resolve().parents[2] / 'artifacts'
SERVER_START_S = 60      # voila listening
PAGE_LOAD_S = 90         # kernel started, gluonedu imported, the cell executed, widgets shown
UPDATE_S = 30            # one slider move: a short run and a PNG


@contextlib.contextmanager
def serve_notebook(code, tmp_path):
    """Serve a notebook whose one cell is ``code``; yield ``(url, log path)``; stop it."""
    if importlib.util.find_spec('voila') is None:
        missing('voila')
    nbformat = pytest.importorskip('nbformat')
    notebook = tmp_path / 'widget.ipynb'
    nb = nbformat.v4.new_notebook()
    nb.metadata['kernelspec'] = {'name': 'python3', 'display_name': 'Python 3',
                                 'language': 'python'}
    nb.cells = [nbformat.v4.new_code_cell(code)]
    nbformat.write(nb, str(notebook))
    port = free_port()
    log = tmp_path / 'voila.log'
    with open(log, 'wb') as out:
        proc = subprocess.Popen(
            [sys.executable, '-m', 'voila', str(notebook), '--no-browser',
             '--port=%d' % port, '--Voila.ip=127.0.0.1', '--Voila.port_retries=0',
             '--show_tracebacks=True'],
            cwd=tmp_path, env=jupyter_env(tmp_path, os.path.dirname(sys.executable)),
            stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True)
    try:
        deadline = time.monotonic() + SERVER_START_S
        while not listening(port):
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail('voila did not listen on 127.0.0.1:%d within %d s (exit code %s):\n%s'
                            % (port, SERVER_START_S, proc.poll(),
                               log.read_text(errors='replace')))
            time.sleep(0.2)
        yield 'http://127.0.0.1:%d/' % port, log
    finally:
        stop_group(proc)
    with pytest.raises(ProcessLookupError):
        os.killpg(proc.pid, 0)             # nothing of the server is left


class WidgetPage:
    """The served widget in the browser: ``page`` (Playwright's), ``url``, ``log``."""

    def __init__(self, page, url, log):
        self.page, self.url, self.log = page, url, log

    def open(self, summary, image):
        """Load the page; wait until the widget shows its summary text and its image."""
        page = self.page
        page.goto(self.url, timeout=PAGE_LOAD_S * 1000, wait_until='domcontentloaded')
        try:
            page.wait_for_selector(summary, timeout=PAGE_LOAD_S * 1000)
            page.wait_for_selector(image + '[src^="blob:"]', timeout=UPDATE_S * 1000)
        except Exception:
            pytest.fail('the widget did not render within %d s; page text:\n%s\n'
                        'voila log:\n%s' % (PAGE_LOAD_S, page.inner_text('body')[:3000],
                                            self.log.read_text(errors='replace')[-3000:]))

    def png_digest(self, image):
        """SHA-256 of the bytes behind a widget's image (a blob: URL the widget made)."""
        data = self.page.evaluate(
            """async (selector) => {
                const src = document.querySelector(selector).src;
                const bytes = new Uint8Array(await (await fetch(src)).arrayBuffer());
                let text = '';
                for (const b of bytes) text += String.fromCharCode(b);
                return btoa(text);
            }""", image)
        raw = base64.b64decode(data)
        assert raw.startswith(b'\x89PNG\r\n\x1a\n'), 'the image is not a PNG'
        return hashlib.sha256(raw).hexdigest()

    def wait_for_change(self, selector, prop, old):
        """Wait until the element's ``prop`` (``innerText``, ``src``) differs from ``old``."""
        self.page.wait_for_function(
            "([selector, prop, old]) => document.querySelector(selector)[prop] !== old",
            arg=[selector, prop, old], timeout=UPDATE_S * 1000)

    def nudge(self, handle, summary, image, key='ArrowRight'):
        """Focus a slider's handle and press ``key`` once, as a student would.

        Waits for the summary text and then the image to be replaced; returns
        ``(summary before, summary after, whether the image's PNG bytes changed)``.
        """
        page = self.page
        before = page.inner_text(summary)
        digest_before = self.png_digest(image)
        src_before = page.get_attribute(image, 'src')
        target = page.locator(handle)
        assert target.count() == 1, 'no single slider handle %r' % handle
        target.focus()
        page.keyboard.press(key)
        self.wait_for_change(summary, 'innerText', before)
        after = page.inner_text(summary)
        # A new value gives the <img> a new blob: URL; then compare the bytes themselves.
        self.wait_for_change(image, 'src', src_before)
        return before, after, self.png_digest(image) != digest_before

    def screenshot(self, name):
        """The whole page, to ``artifacts/<name>`` (kept for a person to look at)."""
        ARTIFACTS.mkdir(exist_ok=True)
        shot = ARTIFACTS / name
        self.page.screenshot(path=str(shot), full_page=True)
        return shot

    def only_local_requests(self):
        """Every request went through the router (which aborts all but 127.0.0.1's)."""
        return bool(self.page.allowed) and self.page.allowed[0].startswith(self.url)
