"""What the real-browser widget tests share: voila serving a notebook, headless Chromium.

What runs: a one-cell notebook (the test module's ``NOTEBOOK_CODE``, written to a temp
dir, so nbval does not collect it) is served by voila on 127.0.0.1 at a free port;
Debian's Chromium at /usr/bin/chromium, driven by Playwright (no browser download:
``executable_path``), opens it with every request to a host other than 127.0.0.1
aborted. The voila server runs in its own process group, stopped (TERM, then KILL) at
the end. The ``widget_page`` fixture hands a test a :class:`WidgetPage`: it loads the
page and waits for the widget, hashes the widget's image, waits for a change, and keeps
a screenshot in ``artifacts/``.

Chromium is installed by ``make test`` (apt-get, as root) when missing. Without it the
tests fail under CI (``CI`` set) and skip elsewhere, naming what to install.
"""
import base64
import hashlib
import importlib.util
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlparse

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / 'artifacts'
CHROMIUM = '/usr/bin/chromium'
CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic',
                 '--no-first-run', '--disable-background-networking',
                 '--disable-component-update', '--disable-sync']

SERVER_START_S = 60      # voila listening
PAGE_LOAD_S = 90         # kernel started, gluonedu imported, the cell executed, widgets shown
UPDATE_S = 30            # one slider move: a short run and a PNG


def _missing(what):
    """Fail under CI (the set-up should have provided it), skip elsewhere; say why."""
    message = ("the browser test needs %s. `make test` installs Chromium with apt-get when "
               "run as root; otherwise: sudo apt-get install chromium, and "
               "pip install -e '.[test]' for voila and playwright." % what)
    if os.environ.get('CI'):
        pytest.fail(message)
    pytest.skip(message)


def _free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def _listening(port):
    try:
        with socket.create_connection(('127.0.0.1', port), timeout=1):
            return True
    except OSError:
        return False


def _stop_group(proc):
    """TERM the server's process group (voila and its kernel), KILL what is left."""
    for sig, wait in ((signal.SIGTERM, 15), (signal.SIGKILL, 10)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        try:
            proc.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            continue
    try:                                   # a kernel may outlive voila by a moment
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _write_notebook(path, code):
    nbformat = pytest.importorskip('nbformat')
    nb = nbformat.v4.new_notebook()
    nb.metadata['kernelspec'] = {'name': 'python3', 'display_name': 'Python 3',
                                 'language': 'python'}
    nb.cells = [nbformat.v4.new_code_cell(code)]
    nbformat.write(nb, str(path))


@pytest.fixture
def voila_url(tmp_path, request):
    """Serve a one-cell notebook with voila on 127.0.0.1; yield (URL, log path); stop it.

    The cell is the test module's ``NOTEBOOK_CODE``.
    """
    if importlib.util.find_spec('voila') is None:
        _missing('voila')
    notebook = tmp_path / 'widget.ipynb'
    _write_notebook(notebook, request.module.NOTEBOOK_CODE)
    port = _free_port()
    env = dict(os.environ)
    # Jupyter state in the temp dir; the venv's python first on PATH (the kernel is
    # started from the 'python3' kernelspec, which names plain `python`).
    for name in ('JUPYTER_CONFIG_DIR', 'JUPYTER_DATA_DIR', 'JUPYTER_RUNTIME_DIR', 'IPYTHONDIR'):
        env[name] = str(tmp_path / name.lower())
    env['MPLCONFIGDIR'] = str(tmp_path / 'matplotlib')
    env['PATH'] = os.path.dirname(sys.executable) + os.pathsep + env.get('PATH', '')
    env.pop('MPLBACKEND', None)            # the kernel picks its inline backend itself
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
        while not _listening(port):
            if proc.poll() is not None:
                pytest.fail('voila exited with %s:\n%s' % (proc.returncode,
                                                          log.read_text(errors='replace')))
            if time.monotonic() > deadline:
                pytest.fail('voila did not listen on 127.0.0.1:%d within %d s:\n%s'
                            % (port, SERVER_START_S, log.read_text(errors='replace')))
            time.sleep(0.2)
        yield 'http://127.0.0.1:%d/' % port, log
    finally:
        _stop_group(proc)
    with pytest.raises(ProcessLookupError):
        os.killpg(proc.pid, 0)             # nothing of the server is left


@pytest.fixture
def browser_page(tmp_path):
    """A page of headless Chromium (/usr/bin/chromium) that can reach 127.0.0.1 only."""
    if not os.path.exists(CHROMIUM):
        _missing('Chromium at %s (Debian package `chromium`)' % CHROMIUM)
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing('Playwright for Python')
    allowed, blocked = [], []

    def local_only(route):
        if urlparse(route.request.url).hostname == '127.0.0.1':
            allowed.append(route.request.url)
            route.continue_()
        else:
            blocked.append(route.request.url)
            route.abort()

    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(tmp_path / 'chromium-profile'), executable_path=CHROMIUM, headless=True,
            args=CHROMIUM_ARGS, viewport={'width': 1100, 'height': 720})
        try:
            context.route('**/*', local_only)
            page = context.new_page()
            page.set_default_timeout(UPDATE_S * 1000)
            page.allowed, page.blocked = allowed, blocked
            yield page
        finally:
            context.close()


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


@pytest.fixture
def widget_page(voila_url, browser_page):
    """The test module's NOTEBOOK_CODE served by voila and open in headless Chromium."""
    url, log = voila_url
    return WidgetPage(browser_page, url, log)
