"""The curriculum's files as Jupyter writes them, so that opening a lesson and saving it
leaves git clean: the kernelspec is the installed kernel's, the widget state is written
as JupyterLab writes it, and a save through jupyter-server's contents API (what
JupyterLab's save and autosave call) gives back the very bytes committed.
tests/browser/test_saved_widgets_browser.py does the same in JupyterLab itself."""
import shutil
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / 'scripts'))
from curriculum import curriculum_notebooks  # noqa: E402
from widget_state import as_javascript_saves  # noqa: E402

NOTEBOOKS = curriculum_notebooks()


@pytest.mark.parametrize('path', NOTEBOOKS, ids=lambda p: p.stem)
def test_the_kernelspec_is_the_one_the_installed_kernel_writes(path):
    kernelspec = pytest.importorskip('jupyter_client.kernelspec')
    spec = kernelspec.KernelSpecManager().get_kernel_spec('python3')
    metadata = nbformat.read(str(path), as_version=4).metadata
    assert metadata.kernelspec == {'name': 'python3', 'display_name': spec.display_name,
                                   'language': spec.language}


@pytest.mark.parametrize('path', NOTEBOOKS, ids=lambda p: p.stem)
def test_the_widget_state_is_written_as_jupyterlab_writes_it(path):
    metadata = nbformat.read(str(path), as_version=4).metadata
    if 'widgets' in metadata:
        assert metadata.widgets == as_javascript_saves(metadata.widgets)


def test_whole_floats_become_integers_and_nothing_else_changes():
    state = {'min': 0.0, 'max': 0.99, 'step': 1e-05, 'value': 25.0, 'n': 3, 'on': True,
             'ids': ['a', None], 'nested': [{'base': 10.0}]}
    saved = as_javascript_saves(state)
    assert saved == state
    assert [type(saved[k]) for k in ('min', 'max', 'step', 'value', 'n', 'on')] == [
        int, float, float, int, int, bool]
    assert type(saved['nested'][0]['base']) is int


def test_a_save_through_the_contents_api_gives_back_the_committed_bytes(tmp_path):
    contents = pytest.importorskip('jupyter_server.services.contents.filemanager')
    for path in NOTEBOOKS:
        shutil.copy(path, tmp_path / path.name)
    manager = contents.FileContentsManager(root_dir=str(tmp_path))
    for path in NOTEBOOKS:
        model = manager.get(path.name, content=True)
        manager.save({'type': 'notebook', 'format': 'json', 'content': model['content']},
                     path.name)
        assert (tmp_path / path.name).read_bytes() == path.read_bytes(), path.name
