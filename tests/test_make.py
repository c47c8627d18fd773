"""The Makefile's promises, read from ``make -n`` (which prints recipes, runs none).

Every ``make`` here gets its VENV, DEV_VENV and REF_VENV under a temp dir that does not
exist, so nothing it could run would touch a real environment.
"""
import importlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / 'scripts'))
from curriculum import curriculum_notebooks  # noqa: E402

pytestmark = pytest.mark.skipif(shutil.which('make') is None, reason='make is not installed')


def _dry_run(target, tmp_path):
    env = {k: v for k, v in os.environ.items()
           if k not in {'MAKEFLAGS', 'MFLAGS', 'MAKELEVEL', 'MAKEOVERRIDES'}}
    out = subprocess.run(['make', '-n', '--no-print-directory', target,
                          'VENV=%s' % (tmp_path / 'lab'), 'DEV_VENV=%s' % (tmp_path / 'dev'),
                          'REF_VENV=%s' % (tmp_path / 'ref'), 'HUB_VENV=%s' % (tmp_path / 'hub')],
                         cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    return out.stdout


def _extras(recipes, venv):
    """The extras of each ``pip install -e '.[...]'`` into ``venv`` in the recipes."""
    return [set(m.split(',')) for m in re.findall(
        re.escape(str(venv)) + r"/bin/python -m pip install -e '\.\[([^\]]*)\]'", recipes)]


def test_lab_installs_what_the_notebooks_need_and_test_adds_the_rest(tmp_path):
    assert _extras(_dry_run('lab', tmp_path), tmp_path / 'lab') == [
        {'notebook', 'fast', 'tensorboard'}]
    assert _extras(_dry_run('test', tmp_path), tmp_path / 'dev') == [
        {'notebook', 'fast', 'tensorboard', 'test', 'dist', 'docs'}]
    # A class's kernels (`make hub`) have what the lab has, and Ray: the hub runs one
    # Ray cluster the class's distributed notebook joins.
    assert _extras(_dry_run('hub-venv', tmp_path), tmp_path / 'hub') == [
        {'notebook', 'fast', 'tensorboard', 'dist'}]


@pytest.mark.parametrize('target', ['test', 'docs', 'assignments', 'grade', 'formgrader',
                                    'execute', 'parity'])
def test_the_developers_tools_never_touch_the_labs_environment(tmp_path, target):
    """Sphinx, nbgrader, Playwright and Ray go to the developers' environment: after
    `make docs` or `make assignments` a student's JupyterLab is as `make lab` left it."""
    recipes = _dry_run(target, tmp_path)
    assert str(tmp_path / 'dev') in recipes
    assert str(tmp_path / 'lab') not in recipes


def test_every_environment_with_a_lab_saves_widget_state_with_the_notebook(tmp_path):
    """The lab's, the developers' and the class's (`make hub`) environments carry the
    widget manager's saveState and the server's hook that keeps restored widgets."""
    server_config = 'etc/jupyter/jupyter_server_config.json'
    for target, venv in (('lab', 'lab'), ('test', 'dev'), ('hub-venv', 'hub')):
        recipes = _dry_run(target, tmp_path)
        settings = tmp_path / venv / 'share' / 'jupyter' / 'lab' / 'settings'
        assert 'cp etc/jupyterlab/overrides.json %s/' % settings in recipes
        assert 'cp %s %s/' % (server_config, tmp_path / venv / 'etc' / 'jupyter') in recipes
    overrides = json.loads((ROOT / 'etc' / 'jupyterlab' / 'overrides.json').read_text())
    assert overrides['@jupyter-widgets/jupyterlab-manager:plugin'] == {'saveState': True}
    hook = json.loads((ROOT / server_config).read_text())['ContentsManager']['pre_save_hook']
    module, name = hook.rsplit('.', 1)
    assert callable(getattr(importlib.import_module(module), name))


def test_no_recipe_echoes_an_error_text_when_it_succeeds():
    """make echoes each recipe line before running it; a line that would print "error:"
    on failure must be silent (@), or a successful build shows the word."""
    lines = (ROOT / 'Makefile').read_text(encoding='utf-8').splitlines()
    loud = []
    for i, line in enumerate(lines):
        if not line.startswith('\t') or (i and lines[i - 1].endswith('\\')):
            continue                              # not the first line of a recipe command
        command = [line]
        while command[-1].endswith('\\'):
            command.append(lines[i + len(command)])
        if 'error:' in '\n'.join(command) and not line.startswith('\t@'):
            loud.append(line.strip())
    assert not loud


@pytest.mark.parametrize('scratch_name', ['Untitled%s.ipynb', '03_momentum-Copy%s.ipynb'])
def test_a_scratch_notebook_is_the_teachers_own(tmp_path, scratch_name):
    """An Untitled notebook in notebooks/ that fails is neither on make test's command
    line nor collected, and the collection of everything else passes."""
    # a teacher's new notebook, or JupyterLab's Duplicate of a lesson
    scratch = ROOT / 'notebooks' / (scratch_name % uuid.uuid4().int)
    nbformat = pytest.importorskip('nbformat')
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("raise RuntimeError('a half-written lesson')")]
    nbformat.write(nb, str(scratch))
    try:
        # make test runs pytest twice: the tests and the curriculum under the BLAS pins,
        # then the curriculum again without them.
        commands = [line for line in _dry_run('test', tmp_path).splitlines()
                    if ' -m pytest ' in line]
        assert len(commands) == 2
        for command in commands:
            args = shlex.split(command.split(' || ')[0])
            args = args[args.index('pytest') + 1:]
            notebooks = sorted(a for a in args if a.endswith('.ipynb'))
            assert notebooks == [str(p.relative_to(ROOT)) for p in curriculum_notebooks()]
            assert len(notebooks) >= 17
            assert scratch.name not in command
            collected = subprocess.run([sys.executable, '-m', 'pytest', '--collect-only', '-q',
                                        '-p', 'no:cacheprovider'] + args,
                                       cwd=ROOT, capture_output=True, text=True)
            assert collected.returncode == 0, collected.stdout[-3000:] + collected.stderr[-3000:]
            assert scratch.name not in collected.stdout
            assert 'notebooks/11_optimizer_playground.ipynb::Cell 0' in collected.stdout
        assert 'OPENBLAS_CORETYPE' in commands[1] and 'OPENBLAS_NUM_THREADS=2' in commands[1]
    finally:
        scratch.unlink()


def test_api_coverage_runs_the_report_script_against_the_reference_venv(tmp_path):
    recipes = _dry_run('api-coverage', tmp_path)
    # the reference venv is built first; the script then lists MXNet's names in it
    assert recipes.index('mxnet==1.9.1') < recipes.index('scripts/api_coverage.py')
