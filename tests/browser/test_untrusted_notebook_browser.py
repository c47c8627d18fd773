"""Notebook 11 as a fresh clone opens it: untrusted, in JupyterLab, in headless Chromium.

A notebook that this Jupyter has never seen run or trusted is untrusted: JupyterLab
renders only safe outputs, so a widget's view is not drawn. gluonedu's widgets put a
static PNG (and their summary as text) beside the view in the same output; the test
opens a copy of notebook 11 in a JupyterLab whose state lives in a temp dir (so nothing
is trusted), served on 127.0.0.1, and checks that each widget output shows as an image
whose bytes are the PNG saved in the notebook, and that no widget view was rendered.
The page's screenshot goes to ``artifacts/untrusted_notebook_browser.png``.
"""
import base64
import json
import shutil
from pathlib import Path

import pytest

from lab_server import serve_lab

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / 'artifacts'
NOTEBOOK = ROOT / 'notebooks' / '11_optimizer_playground.ipynb'
WIDGET_VIEW = 'application/vnd.jupyter.widget-view+json'

PAGE_LOAD_S = 120        # the lab's scripts loaded, the notebook opened and rendered


def _widget_pictures(path):
    """The PNGs (bytes) saved beside each widget view in the notebook, in order."""
    notebook = json.loads(path.read_text(encoding='utf-8'))
    return [base64.b64decode(output['data']['image/png'])
            for cell in notebook['cells'] if cell['cell_type'] == 'code'
            for output in cell['outputs']
            if WIDGET_VIEW in output.get('data', {}) and 'image/png' in output['data']]


@pytest.fixture
def lab_url(tmp_path):
    """A copy of notebook 11 served by JupyterLab on 127.0.0.1; yields (notebook URL, log)."""
    root = tmp_path / 'clone'
    root.mkdir()
    shutil.copy(NOTEBOOK, root / NOTEBOOK.name)
    with serve_lab(tmp_path, root) as (base, token, log):
        yield '%s/lab/tree/%s?token=%s' % (base, NOTEBOOK.name, token), log


def test_an_untrusted_copy_of_notebook_11_shows_each_widgets_picture(browser_page, lab_url):
    url, log = lab_url
    page = browser_page
    saved = _widget_pictures(NOTEBOOK)
    assert len(saved) == 3                  # the playground, the dashboard, the explorer
    images = '.jp-OutputArea-output img[src^="data:image/png"]'
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / 'untrusted_notebook_browser.png'
    try:
        page.goto(url, timeout=PAGE_LOAD_S * 1000, wait_until='domcontentloaded')
        try:
            page.wait_for_selector('.jp-Notebook .jp-Cell', timeout=PAGE_LOAD_S * 1000)
            page.wait_for_function(
                '([selector, n]) => document.querySelectorAll(selector).length >= n',
                arg=[images, len(saved)], timeout=PAGE_LOAD_S * 1000)
        except Exception:
            pytest.fail('the notebook did not render its pictures within %d s; page text:\n'
                        '%s\nlab log:\n%s' % (PAGE_LOAD_S, page.inner_text('body')[:3000],
                                              log.read_text(errors='replace')[-3000:]))
        shown = [base64.b64decode(src.split(',', 1)[1]) for src in page.eval_on_selector_all(
            images, 'nodes => nodes.map(n => n.getAttribute("src"))')]
        # Every widget's saved picture is on the page (beside the figure() outputs).
        assert all(picture in shown for picture in saved)
        # Untrusted: no widget view was drawn, not even an error in its place.
        assert page.locator('.jupyter-widgets').count() == 0
        assert 'Error displaying widget' not in page.inner_text('.jp-Notebook')
        page.locator(images).first.scroll_into_view_if_needed()
    finally:
        page.screenshot(path=str(shot))
    assert page.allowed and page.allowed[0].startswith(url.split('/lab/')[0])
