"""A lesson run and saved in JupyterLab reopens with its widgets, and opening one changes
nothing on disk: notebooks 03 and 11 as a class uses them, in headless Chromium.

A teacher runs the lesson the evening before and opens it in class. The test serves
copies of notebooks 03 and 11 with JupyterLab (this environment's, with the settings
`make lab` installs), opens each and saves it once the widget manager has restored it:
the file must not change (its kernelspec is the one the installed kernel writes, its
widget state as JupyterLab writes it). Then it runs all cells from the Run menu and
saves. The saved widget state must hold every model the outputs show. Then the lab is
stopped and started again (the same trust database, as on the next day) and each
notebook reopened: every widget is drawn from the saved state, and none says "Error
displaying widget". Screenshots go to ``artifacts/``.
"""
import json
import shutil
import time
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
RESTORE_S = 60        # the widget manager has restored the saved state

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
        try:
            page.wait_for_function(
                '''selector => [...document.querySelectorAll(selector)].some(
                     p => /\\[(\\*|\\d+)\\]/.test(p.textContent))''',
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


def _save(page):
    page.locator('.jp-Notebook').first.click()
    page.keyboard.press('Control+s')
    page.wait_for_function('selector => !document.querySelector(selector)', arg=DIRTY_TAB,
                           timeout=SAVE_S * 1000)


def _save_once_restored(page, path, committed):
    """Save until the file is the committed one, for up to RESTORE_S: the widget manager
    restores the saved widget state from the kernel and the notebook after the page shows
    the kernel idle, and a save before it has finished writes the models it has so far
    (jupyterlab-manager's restoreWidgets; a student pressing Ctrl+S within seconds of
    opening would do the same). A file that never matches fails the test."""
    deadline = time.monotonic() + RESTORE_S
    while True:
        _save(page)
        if path.read_bytes() == committed.read_bytes() or time.monotonic() > deadline:
            break
        time.sleep(2)
    assert path.read_bytes() == committed.read_bytes(), \
        '%s changed on disk when opened and saved in JupyterLab' % path.name


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
                # Opening it and starting its kernel changed nothing: what JupyterLab
                # autosaves is what git has.
                _save_once_restored(page, root / name, ROOT / 'notebooks' / name)
                _run_all(page)
                _save(page)
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
