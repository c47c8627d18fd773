"""A lesson saved in JupyterLab reopens with its widgets, whether it was saved as opened
or after Run All: notebooks 03 and 11 as a class uses them, in headless Chromium.

A student opens a lesson and saves it (or autosave does) before running it; a teacher
runs it the evening before and opens it in class. The test serves copies of notebooks
03 and 11 with JupyterLab (this environment's, with the settings and the server hook
`make lab` installs), opens each, waits until its kernel is running and saves: the file
is the committed one, byte for byte (JupyterLab's widget manager sends the state of
live widgets only, none yet: the hook keeps the saved state). Then it runs all cells
from the Run menu and saves: the saved widget state holds every model the outputs show.
Then the lab is stopped and started again (the same trust database, as on the next day)
and each notebook reopened: every widget is drawn from the saved state, and none says
"Error displaying widget". Screenshots go to ``artifacts/``.
"""
import json
import shutil
import time
import urllib.request
from pathlib import Path

import pytest

from lab_server import serve_lab

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / 'artifacts'
NOTEBOOKS = ('03_momentum.ipynb', '11_optimizer_playground.ipynb')
WIDGET_VIEW = 'application/vnd.jupyter.widget-view+json'
WIDGET_STATE = 'application/vnd.jupyter.widget-state+json'

PAGE_LOAD_S = 120        # the lab's scripts loaded, the notebook rendered, its kernel idle
RUN_ALL_S = 300          # every cell of one lesson run, on a loaded 2-core machine
SAVE_S = 30
KERNEL_SETTLE_S = 2    # the same idle kernel this long: the session is set up

CODE_PROMPTS = '.jp-CodeCell .jp-InputArea-prompt'
DIRTY_TAB = '.lm-DockPanel-tabBar .lm-TabBar-tab.jp-mod-dirty'
KERNEL_IDLE = '.jp-Notebook-ExecutionIndicator[data-status="idle"]'


def _widget_views(path):
    """The model ids of the widget views in a notebook's outputs, and its saved state."""
    notebook = json.loads(path.read_text(encoding='utf-8'))
    views = [output['data'][WIDGET_VIEW]['model_id']
             for cell in notebook['cells'] if cell['cell_type'] == 'code'
             for output in cell['outputs'] if WIDGET_VIEW in output.get('data', {})]
    state = notebook['metadata'].get('widgets', {}).get(WIDGET_STATE, {}).get('state', {})
    return views, state


def _open(page, base, token, name):
    # ?reset: a workspace with this notebook alone (not the tabs opened before)
    page.goto('%s/lab/tree/%s?reset&token=%s' % (base, name, token),
              timeout=PAGE_LOAD_S * 1000, wait_until='domcontentloaded')
    page.wait_for_selector('.jp-Notebook .jp-Cell', timeout=PAGE_LOAD_S * 1000)
    page.wait_for_selector(KERNEL_IDLE, timeout=PAGE_LOAD_S * 1000)
    _wait_for_kernel(page, base, token, name)


def _wait_for_kernel(page, base, token, name):
    """Until the server holds one session for ``name`` whose kernel is idle, the same
    kernel for KERNEL_SETTLE_S (the page's indicator can say idle before the session's
    kernel started, and a Run All sent then is cancelled when the kernel is replaced).
    It waits with the page's clock: the fixture's router passes the page's requests (the
    session's creation among them) only while Playwright is called."""
    deadline = time.monotonic() + PAGE_LOAD_S
    seen, since = None, time.monotonic()
    while time.monotonic() < deadline:
        with urllib.request.urlopen('%s/api/sessions?token=%s' % (base, token),
                                    timeout=10) as answer:
            sessions = [s for s in json.load(answer) if s['path'].endswith(name)]
        kernel = sessions[0]['kernel'] if len(sessions) == 1 else None
        current = kernel['id'] if kernel and kernel['execution_state'] == 'idle' else None
        if current != seen:
            seen, since = current, time.monotonic()
        elif current is not None and time.monotonic() - since >= KERNEL_SETTLE_S:
            return
        page.wait_for_timeout(250)
    pytest.fail('no idle kernel settled for %s within %d s; the sessions: %s'
                % (name, PAGE_LOAD_S, sessions))


def _wait_for_widgets(page, count):
    """Until ``count`` widgets are drawn (from the saved state, in a trusted notebook)."""
    page.wait_for_function(
        '([selector, n]) => document.querySelectorAll(selector).length >= n',
        arg=['.jp-OutputArea-output .jupyter-widgets.widget-container, '
             '.jp-OutputArea-output > .jupyter-widgets', count],
        timeout=PAGE_LOAD_S * 1000)


def _run_all(page):
    for _ in range(3):                    # a click on a menu still opening can be lost
        page.locator('.lm-MenuBar-itemLabel', has_text='Run').first.click()
        page.locator('.lm-Menu-itemLabel', has_text='Run All Cells').first.click()
        try:   # queued cells show [*] (the saved counts were there before)
            page.wait_for_function(
                '''selector => [...document.querySelectorAll(selector)].some(
                     p => /\\[\\*\\]/.test(p.textContent))''',
                arg=CODE_PROMPTS, timeout=10_000)
            break
        except Exception:
            continue
    page.wait_for_function(
        '''selector => {
             const prompts = [...document.querySelectorAll(selector)];
             return prompts.length > 0 && prompts.every(p => /\\[\\d+\\]/.test(p.textContent));
           }''', arg=CODE_PROMPTS, timeout=RUN_ALL_S * 1000)
    page.wait_for_selector(KERNEL_IDLE, timeout=RUN_ALL_S * 1000)


def _save(page, path):
    """Save with Ctrl+S (JupyterLab saves a notebook that is not modified, too) and wait
    until the file on disk is rewritten and the tab is clean."""
    before = path.stat().st_mtime_ns
    page.locator('.jp-Notebook').first.click()
    page.keyboard.press('Control+s')
    page.wait_for_function('selector => !document.querySelector(selector)', arg=DIRTY_TAB,
                           timeout=SAVE_S * 1000)
    deadline = time.monotonic() + SAVE_S
    while path.stat().st_mtime_ns == before:
        if time.monotonic() > deadline:
            raise TimeoutError('%s was not written within %d s' % (path.name, SAVE_S))
        page.wait_for_timeout(100)


def _fail(page, log, what):
    prompts = page.eval_on_selector_all(CODE_PROMPTS, 'nodes => nodes.map(n => n.textContent)')
    pytest.fail('%s; the cells\' prompts: %s\nlab log:\n%s' % (
        what, ' '.join(prompts), log.read_text(errors='replace')[-3000:]))


def test_a_lesson_run_and_saved_reopens_with_its_widgets(browser_page, tmp_path):
    page = browser_page
    root = tmp_path / 'clone'
    root.mkdir()
    for name in NOTEBOOKS:
        shutil.copy(ROOT / 'notebooks' / name, root / name)
    ARTIFACTS.mkdir(exist_ok=True)

    with serve_lab(tmp_path, root) as (base, token, log):
        for name in NOTEBOOKS:
            try:
                _open(page, base, token, name)
                _save(page, root / name)
                # Saved as opened: as committed (git stays clean), widget state and all.
                assert (root / name).read_bytes() == (ROOT / 'notebooks' / name).read_bytes(), \
                    '%s saved as opened differs from the committed file' % name
                _run_all(page)
                _save(page, root / name)
            except AssertionError:
                raise
            except Exception as error:  # a Playwright timeout: show what the page showed
                page.screenshot(path=str(ARTIFACTS / ('saved_widgets_run_%s.png' % name[:2])))
                _fail(page, log, 'running and saving %s failed (%s)' % (name, error))
            views, state = _widget_views(root / name)
            assert views, '%s shows no widget after Run All' % name
            assert (root / name).read_bytes() != (ROOT / 'notebooks' / name).read_bytes()
            # The saved state holds the models of this run's outputs.
            assert set(views) <= set(state), name

    with serve_lab(tmp_path, root) as (base, token, log):      # the next day
        for name in NOTEBOOKS:
            views, _ = _widget_views(root / name)
            try:
                _open(page, base, token, name)
                _wait_for_widgets(page, len(views))
            except Exception as error:
                _fail(page, log, 'the widgets of %s were not drawn (%s)' % (name, error))
            finally:
                page.screenshot(path=str(ARTIFACTS / ('saved_widgets_reopened_%s.png' % name[:2])))
            assert 'Error displaying widget' not in page.inner_text('.jp-Notebook')
            assert 'model not found' not in page.inner_text('.jp-Notebook')
    assert not page.blocked, page.blocked
