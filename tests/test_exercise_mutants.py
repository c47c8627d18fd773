"""Every autograded exercise fails the wrong answers a student could hand in.

For each curriculum notebook, ``tests/exercise_mutants/<notebook stem>.py`` holds wrong
submissions to its exercises (``MUTANTS = {k: {kind: code}}``), each written where the
student version says ``# YOUR CODE HERE``:

* ``hard-coded``  the expected values typed in (what a student copies from a neighbour's
  output or from the visible test's print);
* ``closed-form`` the textbook formula returned instead of running the experiment
  (``NO_CLOSED_FORM = {k: why}`` where the exercise has none);
* ``mistake``     a plausible conceptual error (``'mistake: <which>'``; several allowed).

A predict-then-run exercise (its solution is ``prediction = '<letter>'``) is tried with
every other letter its text offers, with no file entry needed.

One kernel per notebook runs the instructor version from the top; before each exercise's
answer cell it runs each wrong submission followed by the exercise's test cells (hidden
tests included, as the autograder restores them), then the real answer and tests. Each
wrong submission must make a test cell fail (so nbgrader scores it below full marks) by
an assertion or error of the test's own, not by a NameError or SyntaxError of the
submission; the lesson and the real answers must pass.

The kernel runs without the BLAS pins of the strict nbval run (two OpenBLAS threads, the
machine's own kernels), so this is also the curriculum's run on another BLAS
configuration: the lessons' asserts must hold there too. It writes how long the
notebook's own cells took (lesson and exercises, in seconds) to
``build/notebook-times/<stem>.json``, which ``scripts/notebook_times.py`` turns into the
teacher's guide's table of run times.
"""
import datetime
import json
import os
import runpy
import sys
from pathlib import Path

import nbformat
import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / 'scripts'))

import assignments  # noqa: E402
import exercises as ex  # noqa: E402

MUTANT_DIR = Path(__file__).resolve().parent / 'exercise_mutants'
KINDS = ('hard-coded', 'closed-form', 'mistake')
#: Errors that mean the wrong submission is broken, not that a test caught it.
BROKEN = ('NameError', 'SyntaxError', 'IndentationError')
NOTEBOOKS = [p for p in assignments.curriculum_notebooks()
             if ex.exercises(nbformat.read(str(p), as_version=4))]


def _mutants(path):
    """(MUTANTS, NO_CLOSED_FORM) of the notebook's mutant file ({} and {} without one)."""
    module = MUTANT_DIR / (path.stem + '.py')
    if not module.exists():
        return {}, {}
    found = runpy.run_path(str(module))
    return found.get('MUTANTS', {}), found.get('NO_CLOSED_FORM', {})


def _kind(name):
    return name.split(':')[0].strip()


def _wrong_submissions(nb, exercise, mutants):
    """``[(label, {answer cell index: source})]``: every wrong submission to ``exercise``."""
    answers = exercise.indices('answer')
    letter = exercise.predicted_letter(nb)
    if letter is not None:
        return [("prediction = '%s'" % wrong,
                 {answers[0]: ex.with_solution(nb.cells[answers[0]].source,
                                               "prediction = '%s'" % wrong)})
                for wrong in exercise.choices(nb) if wrong != letter]
    wrong = []
    for label, code in mutants.get(exercise.number, {}).items():
        parts = code if isinstance(code, dict) else {'answer': code}
        sources = {}
        for part, replacement in parts.items():
            index = int(part[len('answer'):] or 1) - 1
            cell = answers[index]
            sources[cell] = ex.with_solution(nb.cells[cell].source, replacement)
        wrong.append((label, sources))
    return wrong


def test_every_exercise_has_its_wrong_submissions():
    """The mutant files name every kind for every exercise that is not a prediction."""
    problems = []
    for path in NOTEBOOKS:
        nb = nbformat.read(str(path), as_version=4)
        mutants, no_closed_form = _mutants(path)
        for k, exercise in ex.exercises(nb).items():
            if not exercise.indices('tests'):
                continue
            letter = exercise.predicted_letter(nb)
            if letter is not None:
                if len([c for c in exercise.choices(nb) if c != letter]) < 2:
                    problems.append('%s ex%d: a prediction needs at least three choices '
                                    '(* (a) ... lines in its text)' % (path.stem, k))
                continue
            kinds = {_kind(label) for label in mutants.get(k, {})}
            unknown = kinds - set(KINDS)
            needed = {'hard-coded', 'mistake'} | ({'closed-form'} if k not in no_closed_form
                                                  else set())
            if unknown or needed - kinds:
                problems.append('%s ex%d: wrong submissions of kinds %s are missing%s'
                                % (path.stem, k, sorted(needed - kinds),
                                   ', unknown kinds %s' % sorted(unknown) if unknown else ''))
    assert not problems, '\n'.join(problems)


def _build_run(nb, mutants):
    """The notebook to execute, and ``[(exercise, label, [test cell positions])]`` of the
    wrong submissions in it; every original code cell keeps ``metadata.original``."""
    run = nbformat.v4.new_notebook(metadata=nb.metadata)
    planted = []
    first_answer = {ex_.indices('answer')[0]: ex_ for ex_ in ex.exercises(nb).values()
                    if ex_.indices('answer') and ex_.indices('tests')}
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != 'code':
            continue
        exercise = first_answer.get(i)
        if exercise is not None:
            group = sorted(exercise.indices('answer') + exercise.indices('tests'))
            for label, sources in _wrong_submissions(nb, exercise, mutants):
                tests = []
                for j in group:
                    if j in exercise.indices('tests'):
                        tests.append(len(run.cells))
                    run.cells.append(nbformat.v4.new_code_cell(sources.get(j, nb.cells[j].source)))
                planted.append((exercise.number, label, tests))
        copy = nbformat.v4.new_code_cell(cell.source)
        copy.metadata['original'] = i
        run.cells.append(copy)
    return run, planted


def _seconds(cell):
    """How long the kernel took to run ``cell`` (from nbclient's timing metadata)."""
    timing = cell.metadata.get('execution', {})
    start, end = timing.get('iopub.execute_input'), timing.get('shell.execute_reply')
    if not start or not end:
        return 0.0
    parse = datetime.datetime.fromisoformat
    return (parse(end.replace('Z', '+00:00')) - parse(start.replace('Z', '+00:00'))).total_seconds()


def _write_times(path, nb, run):
    """build/notebook-times/<stem>.json: seconds spent in the lesson's and the exercises'
    own cells (the wrong submissions not counted)."""
    times = {'lesson': 0.0, 'exercises': 0.0}
    for cell in run.cells:
        if 'original' in cell.metadata:
            part = 'exercises' if ex.nbgrader(nb.cells[cell.metadata['original']]) else 'lesson'
            times[part] += _seconds(cell)
    folder = REPO / 'build' / 'notebook-times'
    folder.mkdir(parents=True, exist_ok=True)
    times = {k: round(v, 1) for k, v in times.items()}
    (folder / (path.stem + '.json')).write_text(json.dumps(times) + '\n')


def _error(cell):
    for output in cell.get('outputs', []):
        if output.output_type == 'error':
            return output.ename, output.evalue
    return None


@pytest.mark.parametrize('path', NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_wrong_submissions_score_below_full_marks(path):
    from nbclient import NotebookClient
    nb = nbformat.read(str(path), as_version=4)
    mutants, _ = _mutants(path)
    run, planted = _build_run(nb, mutants)
    env = {k: v for k, v in os.environ.items() if not k.startswith('OPENBLAS_')}
    env.update(OPENBLAS_NUM_THREADS='2', MPLBACKEND='module://matplotlib_inline.backend_inline')
    client = NotebookClient(run, timeout=600, kernel_name='python3', allow_errors=True,
                            resources={'metadata': {'path': str(path.parent)}})
    client.execute(env=env)
    _write_times(path, nb, run)

    failed = {c.metadata['original']: _error(c) for c in run.cells
              if 'original' in c.metadata and _error(c)}
    assert not failed, ('%s fails without the BLAS pins (2 threads, default kernels) in '
                        'cells %s' % (path.name, failed))
    passed = []
    for k, label, tests in planted:
        errors = [_error(run.cells[p]) for p in tests]
        caught = [e for e in errors if e]
        broken = [e for e in caught if e[0] in BROKEN]
        if broken or not caught:
            passed.append('ex%d %r: %s' % (k, label, broken or 'full marks'))
    assert not passed, ('%s: wrong submissions that are not caught by the tests (or are '
                        'broken):\n%s' % (path.name, '\n'.join(passed)))
