"""Student versions of the curriculum notebooks, and their autograding, with nbgrader.

    python scripts/assignments.py [--course-dir DIR] [NOTEBOOK ...]

(``make assignments`` runs it for every curriculum notebook.) The committed notebooks
``notebooks/NN_*.ipynb`` are the instructor versions: exercises with their solutions and
hidden tests, executed. Each becomes an nbgrader assignment of its own, named after the
notebook's file stem, in an nbgrader course directory (default ``build/assignments``)::

    nbgrader_config.py                  gluonedu's nbgrader settings (nbgrader_settings.py),
                                        for nbgrader's own commands run in this directory
    source/<name>/<name>.ipynb          the instructor version (a copy)
    release/<name>/<name>.ipynb         the student version: solutions, hidden tests,
                                        outputs and widget state removed
    gradebook.db                        the assignments, their cells and points

A teacher hands out ``release/``, collects the students' notebooks into
``submitted/<student>/<name>/<name>.ipynb`` and runs ``make grade NB=<name>``
(docs/exercises.md says more, and how to write exercises). tests/test_assignments.py
runs the same functions: it generates every student version, autogrades the instructor
and the untouched student versions, and runs ``make grade`` on submissions.
"""
import argparse
import os
import shutil
import sys
import warnings
from pathlib import Path

from curriculum import curriculum_notebooks, is_curriculum

SCRIPTS = Path(__file__).resolve().parent
REPO = SCRIPTS.parent
DEFAULT_COURSE_DIR = REPO / 'build' / 'assignments'

#: The course directory's nbgrader_config.py: gluonedu's settings, for nbgrader run there.
CONFIG_FILE = """\
# Written by scripts/assignments.py. nbgrader reads this file when it runs in this
# directory (make grade, make formgrader): gluonedu's settings, from {scripts}.
import sys
if {scripts!r} not in sys.path:
    sys.path.insert(0, {scripts!r})
import nbgrader_settings  # noqa: E402
nbgrader_settings.configure(get_config())  # noqa: F821
nbgrader_settings.ignore_nbgrader_warnings()
"""


def _api(course_dir):
    """An nbgrader API object on ``course_dir`` (imported here: nbgrader is slow to load)."""
    # nbgrader runs `alembic` (its database migrations) as a command: from this venv.
    bin_dir = os.path.dirname(sys.executable)
    if bin_dir not in os.environ.get('PATH', '').split(os.pathsep):
        os.environ['PATH'] = bin_dir + os.pathsep + os.environ.get('PATH', '')
    from nbgrader.apps import NbGraderAPI
    from traitlets.config import Config
    import nbgrader_settings
    config = nbgrader_settings.configure(Config())
    config.CourseDirectory.root = str(course_dir)
    return NbGraderAPI(config=config)


def _check(result, what):
    if not result['success']:
        raise RuntimeError('nbgrader %s failed:\n%s\n%s'
                           % (what, result.get('error', ''), result.get('log', '')))


def _write_config(course_dir):
    (Path(course_dir) / 'nbgrader_config.py').write_text(CONFIG_FILE.format(scripts=str(SCRIPTS)))


def generate(notebooks, course_dir=DEFAULT_COURSE_DIR):
    """Copy ``notebooks`` into ``course_dir``'s source/ and generate their student versions.

    Returns ``{name: path of the student version}``. Earlier output for these notebooks
    is replaced.
    """
    course_dir = Path(course_dir)
    course_dir.mkdir(parents=True, exist_ok=True)
    _write_config(course_dir)
    names = []
    for notebook in notebooks:
        name = Path(notebook).stem
        source = course_dir / 'source' / name
        shutil.rmtree(source, ignore_errors=True)
        source.mkdir(parents=True)
        shutil.copy(notebook, source / (name + '.ipynb'))
        names.append(name)
    api = _api(course_dir)
    for name in names:
        _check(api.generate_assignment(name, force=True), 'generate_assignment %s' % name)
    return {name: course_dir / 'release' / name / (name + '.ipynb') for name in names}


def autograde(name, submissions, course_dir=DEFAULT_COURSE_DIR):
    """Autograde the notebooks ``{student: notebook path}`` as ``name``'s submissions.

    Each is copied to ``submitted/<student>/<name>/`` and autograded (executed, graded).
    Returns ``{student: (path of the autograded notebook, {grade_id: (score, max_score)})}``.
    """
    from nbgrader.api import Gradebook
    import nbgrader_settings
    course_dir = Path(course_dir)
    api = _api(course_dir)
    results = {}
    for student, notebook in submissions.items():
        folder = course_dir / 'submitted' / student / name
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        shutil.copy(notebook, folder / (name + '.ipynb'))
        with warnings.catch_warnings():
            nbgrader_settings.ignore_nbgrader_warnings()
            _check(api.autograde(name, student, force=True),
                   'autograde %s for %s' % (name, student))
            with Gradebook(api.coursedir.db_url) as gradebook:
                submission = gradebook.find_submission_notebook(name, name, student)
                scores = {grade.name: (grade.score, grade.max_score)
                          for grade in submission.grades}
        results[student] = (course_dir / 'autograded' / student / name / (name + '.ipynb'),
                            scores)
    return results


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('notebooks', nargs='*', type=Path,
                        help='instructor notebooks (default: the curriculum, every '
                             'notebooks/NN_name.ipynb)')
    parser.add_argument('--course-dir', type=Path, default=DEFAULT_COURSE_DIR,
                        help='the nbgrader course directory (default: %(default)s)')
    args = parser.parse_args(argv)
    strays = [str(path) for path in args.notebooks if not is_curriculum(path)]
    if strays:
        parser.error('not a curriculum notebook (notebooks/NN_name.ipynb, name of a-z, 0-9 '
                     'and _ only; a copy such as 03_momentum-Copy1.ipynb is not one): %s'
                     % ', '.join(strays))
    released = generate(args.notebooks or curriculum_notebooks(), args.course_dir)
    for name, path in released.items():
        print('%-40s %s' % (name, path))
    print('student versions of %d notebooks in %s' % (len(released),
                                                      args.course_dir / 'release'))


if __name__ == '__main__':
    main()
