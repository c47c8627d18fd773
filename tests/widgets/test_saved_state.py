"""The server's pre-save hook keeps the saved state of the widgets a notebook still
shows (gluonedu.widgets.saved_state), as `make lab` installs it."""
import asyncio
import copy
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gluonedu.widgets import saved_state
from gluonedu.widgets.saved_state import WIDGET_STATE, WIDGET_VIEW

ROOT = Path(__file__).resolve().parents[2]
LESSONS = ('03_momentum.ipynb', '11_optimizer_playground.ipynb')
HOOK = json.loads((ROOT / 'etc' / 'jupyter' / 'jupyter_server_config.json')
                  .read_text())['ContentsManager']['pre_save_hook']


def _model(name, **state):
    return {'model_name': name, 'model_module': '@jupyter-widgets/controls',
            'model_module_version': '2.0.0', 'state': state}


def _view(model_id):
    return {'output_type': 'display_data', 'metadata': {},
            'data': {'text/plain': 'a widget',
                     WIDGET_VIEW: {'version_major': 2, 'version_minor': 0,
                                   'model_id': model_id}}}


def _notebook(shown, state):
    """A notebook whose one code cell shows the widgets ``shown``, with ``state``."""
    cells = [{'cell_type': 'markdown', 'id': 'text', 'metadata': {}, 'source': 'text'},
             {'cell_type': 'code', 'id': 'show', 'metadata': {}, 'source': 'w',
              'execution_count': 1,
              'outputs': [_view(model_id) for model_id in shown]}]
    metadata = {'widgets': {WIDGET_STATE: {'version_major': 2, 'version_minor': 0,
                                           'state': state}}}
    return {'cells': cells, 'metadata': metadata, 'nbformat': 4, 'nbformat_minor': 5}


SAVED = {'layout1': _model('LayoutModel', width='50%'),
         'slider': _model('FloatSliderModel', value=0.5, layout='IPY_MODEL_layout1',
                          style='IPY_MODEL_style1'),
         'style1': _model('SliderStyleModel', handle_color=None),
         'box': _model('VBoxModel', children=['IPY_MODEL_slider', 'IPY_MODEL_label']),
         'label': _model('LabelModel', value='lr', layout='IPY_MODEL_layout1'),
         'old': _model('IntSliderModel', value=3)}


def test_the_saved_models_come_back_when_the_outputs_show_one_the_kernel_lacks():
    saved = _notebook(['box'], SAVED)
    opened = _notebook(['box'], {})          # JupyterLab's save: no model is live
    assert saved_state.merge_restored(opened, saved) == 6
    assert saved_state.widget_state(opened) == SAVED
    assert list(saved_state.widget_state(opened)) == list(SAVED)


def test_live_models_keep_their_new_state_and_come_first():
    saved = _notebook(['box'], SAVED)
    live = {'slider': _model('FloatSliderModel', value=0.9, layout='IPY_MODEL_layout1',
                             style='IPY_MODEL_style1')}
    opened = _notebook(['box', 'slider'], copy.deepcopy(live))
    assert saved_state.merge_restored(opened, saved) == 5
    state = saved_state.widget_state(opened)
    assert state == dict(SAVED, **live)
    assert list(state) == ['slider'] + [key for key in SAVED if key != 'slider']


def test_nothing_changes_when_every_shown_model_is_saved_or_unknown():
    saved = _notebook(['box'], SAVED)
    for opened in (_notebook(['slider'], {'slider': SAVED['slider']}),
                   _notebook(['not-in-the-file'], {}), _notebook([], {})):
        before = copy.deepcopy(opened)
        assert saved_state.merge_restored(opened, saved) == 0
        assert opened == before


def test_a_notebook_saved_without_widget_metadata_gets_the_saved_header():
    saved = _notebook(['label'], SAVED)
    opened = _notebook(['label'], {})
    del opened['metadata']['widgets']
    assert saved_state.merge_restored(opened, saved) == 6
    assert opened['metadata']['widgets'][WIDGET_STATE] == {
        'version_major': 2, 'version_minor': 0, 'state': SAVED}


def _save_as_opened(manager, name):
    """Save what JupyterLab saves when a lesson is opened and saved before its cells run
    again: the file's cells and outputs, and an empty widget state."""
    notebook = json.loads((Path(manager.root_dir) / name).read_text(encoding='utf-8'))
    notebook['metadata']['widgets'][WIDGET_STATE]['state'] = {}
    result = manager.save({'type': 'notebook', 'format': 'json', 'content': notebook}, name)
    if asyncio.iscoroutine(result):
        asyncio.run(result)


@pytest.mark.parametrize('manager_class', ['FileContentsManager', 'AsyncFileContentsManager',
                                           'AsyncLargeFileManager'])
def test_a_lesson_opened_and_saved_keeps_its_committed_bytes(tmp_path, manager_class):
    """The jupyter-server contents managers, configured as `make lab` configures them
    (the asynchronous ones are JupyterLab's)."""
    contents = pytest.importorskip('jupyter_server.services.contents.largefilemanager')
    filemanager = pytest.importorskip('jupyter_server.services.contents.filemanager')
    cls = getattr(contents, manager_class, None) or getattr(filemanager, manager_class)
    for name in LESSONS:
        shutil.copy(ROOT / 'notebooks' / name, tmp_path / name)
    for name in LESSONS:
        _save_as_opened(cls(root_dir=str(tmp_path), pre_save_hook=HOOK), name)
        assert (tmp_path / name).read_bytes() == (ROOT / 'notebooks' / name).read_bytes()
        # Without the hook the same save loses every widget (what the hook is for).
        _save_as_opened(cls(root_dir=str(tmp_path)), name)
        views, state = _views_and_state(tmp_path / name)
        assert views and not state


def _views_and_state(path):
    notebook = json.loads(path.read_text(encoding='utf-8'))
    return saved_state.shown_models(notebook), saved_state.widget_state(notebook)


def test_a_new_notebook_or_a_file_that_is_not_json_is_saved_as_sent(tmp_path):
    filemanager = pytest.importorskip('jupyter_server.services.contents.filemanager')
    manager = filemanager.FileContentsManager(root_dir=str(tmp_path), pre_save_hook=HOOK)
    sent = _notebook(['box'], {})
    manager.save({'type': 'notebook', 'format': 'json', 'content': copy.deepcopy(sent)},
                 'new.ipynb')
    assert _views_and_state(tmp_path / 'new.ipynb') == (['box'], {})
    (tmp_path / 'broken.ipynb').write_text('{not json', encoding='utf-8')
    manager.save({'type': 'notebook', 'format': 'json', 'content': copy.deepcopy(sent)},
                 'broken.ipynb')
    assert _views_and_state(tmp_path / 'broken.ipynb') == (['box'], {})


def test_a_jupyter_server_of_this_environment_runs_the_hook(tmp_path):
    """The hook as `make` installs it (<venv>/etc/jupyter): what a lab started from this
    environment, as `make lab` starts it, uses for its saves."""
    pytest.importorskip('jupyter_server')
    script = ('from jupyter_server.serverapp import ServerApp\n'
              'app = ServerApp()\n'
              'app.initialize(argv=["--allow-root", "--port=0", "--no-browser"],'
              ' find_extensions=False)\n'
              'hook = app.contents_manager.pre_save_hook\n'
              'print(hook.__module__ + "." + hook.__name__)\n')
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(tmp_path / 'config'),
               JUPYTER_RUNTIME_DIR=str(tmp_path / 'runtime'),
               JUPYTER_DATA_DIR=str(tmp_path / 'data'))
    out = subprocess.run([sys.executable, '-c', script], env=env, cwd=str(tmp_path),
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == HOOK
