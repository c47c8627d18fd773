"""The curriculum's exercises, and their round trip through nbgrader (docs/exercises.md).

* Every curriculum notebook's exercise cells follow the conventions: nbgrader metadata,
  unique ``<prefix>-ex<k>-<part>`` grade ids, an autograded test cell after each answer,
  the exercises at the end of the notebook, and at least three of them in any notebook
  that has one.
* A predict-then-run exercise grades the prediction before showing the outcome: its test
  cell prints nothing and a locked ``reveal`` cell after it runs the experiment; each such
  exercise, and at least one exercise per notebook, has a manually graded ``explain``
  cell whose rubric is in docs/exercises.md.
* ``scripts/assignments.py`` generates every student version; none holds solution code,
  hidden tests or outputs.
* For every notebook with exercises, nbgrader's autograder gives the instructor version
  full marks, and the untouched student version zero on every exercise, while every cell
  still runs (only the exercises' own cells may fail).
* Grading runs as docs/exercises.md says, from a shell without the environment on its
  PATH: ``make grade`` autogrades an honest submission without a "checksum has changed"
  warning and a changed test cell with one (restored, so that it scores as the honest
  one), writes feedback that shows no hidden test, and grades.csv; ``make formgrader``
  serves the Formgrader on the course.

Generating loads nbgrader once (slow to import) and autograding executes each such
notebook twice, so the slow part runs only for notebooks that have exercises; grading
runs on one notebook, the quickest.
"""
import csv
import html
import json
import os
import re
import secrets
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / 'scripts'))

import assignments  # noqa: E402
import exercises as ex  # noqa: E402

sys.path.insert(0, str(REPO / 'tests' / 'browser'))
from browser_helpers import free_port, jupyter_env, listening, stop_group  # noqa: E402

NOTEBOOKS = assignments.curriculum_notebooks()

#: Every curriculum notebook ends with its exercises (False would allow a notebook without
#: any graded cell, listing it in a skip).
EVERY_NOTEBOOK_HAS_EXERCISES = True

MIN_EXERCISES = 3
GRADE_ID = ex.GRADE_ID
RUBRICS = (REPO / 'docs' / 'exercises.md').read_text(encoding='utf-8') + ''.join(
    p.read_text(encoding='utf-8') for p in sorted((REPO / 'docs' / 'rubrics').glob('*.md')))
MARKERS = ('### BEGIN SOLUTION', '### END SOLUTION', '### BEGIN HIDDEN TESTS',
           '### END HIDDEN TESTS')


def _read(path):
    return nbformat.read(str(path), as_version=4)


def _meta(cell):
    return cell.get('metadata', {}).get('nbgrader')


def _has_graded_cells(path):
    return any((_meta(c) or {}).get('grade') for c in _read(path).cells)


WITH_EXERCISES = [p for p in NOTEBOOKS if _has_graded_cells(p)]


def _ids(paths):
    return [p.stem for p in paths]


# ------------------------------------------------------------------ the conventions

#: What each part's nbgrader metadata must say (docs/exercises.md's table).
PART_RULES = {
    'text': dict(cell_type='markdown', grade=False, solution=False, locked=True),
    'answer': dict(cell_type='code', grade=False, solution=True, locked=False),
    'tests': dict(cell_type='code', grade=True, solution=False, locked=True),
    'explain': dict(cell_type='markdown', grade=True, solution=True, locked=False),
    'reveal': dict(cell_type='code', grade=False, solution=False, locked=True),
}


@pytest.mark.parametrize('path', NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_exercise_cells_follow_the_conventions(path):
    nb = _read(path)
    cells = nb.cells
    graded = [(i, c) for i, c in enumerate(cells) if _meta(c)]
    if not graded:
        return
    ids = [_meta(c)['grade_id'] for _, c in graded]
    assert len(ids) == len(set(ids)), 'grade_ids must be unique: %s' % ids
    bad = [g for g in ids if not GRADE_ID.match(g) or GRADE_ID.match(g)['part'] not in ex.PARTS]
    assert not bad, ('grade_ids must read <prefix>-ex<k>-<part>, part one of %s (e.g. '
                     '01-ex2-answer): %s' % (', '.join(ex.PARTS), bad))
    prefixes = {GRADE_ID.match(g)['prefix'] for g in ids}
    assert len(prefixes) == 1, 'one grade_id prefix per notebook, got %s' % sorted(prefixes)
    for i, cell in graded:
        meta = _meta(cell)
        part = GRADE_ID.match(meta['grade_id'])['part']
        where = '%s cell %d (%s)' % (path.name, i, meta['grade_id'])
        assert meta.get('schema_version') == 3, where
        for key, value in PART_RULES[part].items():
            got = cell.cell_type if key == 'cell_type' else bool(meta.get(key))
            assert got == value, '%s: a %s cell has %s=%s' % (where, part, key, value)
        if part == 'answer':
            assert cell.source.count('### BEGIN SOLUTION') == \
                cell.source.count('### END SOLUTION') == 1, where + ': solution markers'
        if meta.get('grade'):
            assert meta.get('points', 0) > 0, where + ': no points'
        if part == 'tests':
            assert cell.source.count('### BEGIN HIDDEN TESTS') == \
                cell.source.count('### END HIDDEN TESTS'), where + ': hidden-test markers'
        if part == 'explain':
            assert '**%s**' % meta['grade_id'] in RUBRICS, (
                '%s: docs/exercises.md has no rubric for it (a line starting **%s**)'
                % (where, meta['grade_id']))
            assert cell.source.strip(), where + ': write the model answer in it'
    # The exercises come last: after the first exercise cell, every code cell is one.
    first = graded[0][0]
    lesson_after = [i for i, c in enumerate(cells[first:], first)
                    if c.cell_type == 'code' and not _meta(c)]
    assert not lesson_after, ('%s: code cells %s follow the first exercise; the exercises '
                              'must end the notebook' % (path.name, lesson_after))
    found = ex.exercises(nb)
    for k, exercise in found.items():
        where = '%s exercise %d' % (path.name, k)
        answers, tests = exercise.indices('answer'), exercise.indices('tests')
        assert len(exercise.indices('text')) == 1, where + ' needs one text cell'
        heading = ex.HEADING.match(cells[exercise.indices('text')[0]].source)
        assert heading and int(heading['number']) == k, (
            where + "'s text starts with '### Exercise %d · <kind>: <title>'" % k)
        if tests:
            assert answers and min(answers) < min(tests), where + ' needs an answer before its tests'
        else:
            assert exercise.indices('explain'), where + ' has neither tests nor an explanation'
        if exercise.predicted_letter(nb) is not None:
            # The outcome is shown only after the prediction is graded.
            assert tests and all(not cells[i].outputs for i in tests), (
                where + ': a prediction\'s test cell shows nothing (the reveal cell does)')
            reveals = exercise.indices('reveal')
            assert reveals and min(reveals) > max(tests), where + ' needs a reveal cell after its tests'
            assert exercise.indices('explain'), where + ': a prediction asks for its reason'
    autograded = [k for k, e in found.items() if e.indices('tests')]
    assert len(autograded) >= MIN_EXERCISES, (
        '%s has %d autograded exercise(s); a notebook with exercises has at least %d '
        '(predict-then-run, modify, stretch)' % (path.name, len(autograded), MIN_EXERCISES))
    assert any(e.indices('explain') for e in found.values()), (
        '%s: at least one exercise asks for an explanation, graded by hand' % path.name)


def test_every_notebook_has_exercises():
    missing = [p.name for p in NOTEBOOKS if p not in WITH_EXERCISES]
    if not EVERY_NOTEBOOK_HAS_EXERCISES:
        if missing:
            pytest.skip('notebooks without exercises yet (allowed while '
                        'EVERY_NOTEBOOK_HAS_EXERCISES is False): %s' % ', '.join(missing))
        return
    assert not missing, 'every curriculum notebook ends with >= %d exercises; missing: %s' % (
        MIN_EXERCISES, ', '.join(missing))


# ------------------------------------------------------------------ the student versions

@pytest.fixture(scope='module')
def course(tmp_path_factory):
    """A course directory with every curriculum notebook's student version generated."""
    course_dir = tmp_path_factory.mktemp('course')
    released = assignments.generate(NOTEBOOKS, course_dir)
    return course_dir, released


def _split(source):
    """(lines inside solution / hidden-test regions, lines outside them): sets of the
    stripped, non-blank lines of ``source``."""
    inside, outside, depth = set(), set(), 0
    for line in (s.strip() for s in source.splitlines()):
        if line in (MARKERS[0], MARKERS[2]):
            depth += 1
        elif line in (MARKERS[1], MARKERS[3]):
            depth -= 1
        elif line:
            (inside if depth else outside).add(line)
    return inside, outside


@pytest.mark.parametrize('path', NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_student_versions_hold_no_solution_code(course, path):
    _, released = course
    instructor, student = _read(path), _read(released[path.stem])
    assert len(student.cells) == len(instructor.cells)
    assert 'widgets' not in student.metadata, (
        'the student version keeps the widget state the instructor version was saved with')
    for i, (mine, theirs) in enumerate(zip(instructor.cells, student.cells)):
        where = '%s cell %d' % (path.name, i)
        assert not any(m in theirs.source for m in MARKERS), where + ' keeps a marker'
        if theirs.cell_type == 'code':
            assert theirs.outputs == [] and theirs.execution_count is None, where
        hidden, shown = _split(mine.source)
        left = (_split(theirs.source)[1] & hidden) - shown
        assert not left, '%s: the student version keeps %s' % (where, sorted(left))
        if (_meta(mine) or {}).get('solution'):
            blank = 'raise NotImplementedError()' if mine.cell_type == 'code' else 'YOUR ANSWER HERE'
            assert blank in theirs.source, where


# ------------------------------------------------------------------ autograding

def _errors(notebook_path):
    """``{cell index: error name}`` of the executed notebook's code cells, and whether
    every code cell ran."""
    nb = _read(notebook_path)
    errors, ran = {}, True
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != 'code':
            continue
        ran = ran and cell.execution_count is not None
        for output in cell.outputs:
            if output.output_type == 'error':
                errors[i] = output.ename
    return nb, errors, ran


@pytest.mark.parametrize('path', WITH_EXERCISES, ids=_ids(WITH_EXERCISES))
def test_autograder_gives_full_marks_to_solutions_and_zero_to_the_blank_exercises(course, path):
    course_dir, released = course
    results = assignments.autograde(path.stem, {'instructor': path,
                                                'student': released[path.stem]}, course_dir)
    graded, scores = results['instructor']
    nb, errors, ran = _errors(graded)
    assert ran and not errors, 'the instructor version failed in cells %s' % errors
    manual = {m['grade_id'] for m in map(_meta, nb.cells)
              if m and m.get('grade') and m.get('solution')}
    auto = {g: s for g, s in scores.items() if g not in manual}
    assert auto and all(score == top for score, top in auto.values()), auto

    graded, scores = results['student']
    nb, errors, ran = _errors(graded)
    assert ran, 'the student version did not run to its end'
    exercise_cells = {i for i, c in enumerate(nb.cells) if _meta(c)}
    assert set(errors) <= exercise_cells, (
        'cells outside the exercises fail in the student version: %s'
        % {i: e for i, e in errors.items() if i not in exercise_cells})
    passing = {grade_id: s for grade_id, s in scores.items() if s[0]}
    assert not passing, ('these tests pass without an answer: %s; a test must need the '
                         "student's work" % sorted(passing))
    assert len(scores) >= MIN_EXERCISES


# ------------------------------------------------------------------ grading, as documented

GRADED_NOTEBOOK = REPO / 'notebooks' / '01_ndarray_autograd_parameters.ipynb'   # the quickest


def _make(target, course_dir, *args, env=None):
    """The command line and environment of ``make <target>`` on ``course_dir`` with this
    environment as the developers', from a shell whose PATH does not hold it (its stamp
    taken as up to date: nothing is installed)."""
    dev_venv = Path(sys.prefix)
    bin_dir = str(dev_venv / 'bin')
    env = {k: v for k, v in (env or os.environ).items()
           if k not in {'MAKEFLAGS', 'MFLAGS', 'MAKELEVEL', 'MAKEOVERRIDES', 'VIRTUAL_ENV'}}
    env['PATH'] = os.pathsep.join(p for p in env.get('PATH', '').split(os.pathsep)
                                  if p and os.path.abspath(p) != bin_dir)
    command = ['make', '--no-print-directory', '-o', str(dev_venv / '.installed'), target,
               'DEV_VENV=%s' % dev_venv, 'COURSE_DIR=%s' % course_dir, *args]
    return command, env


def _student_work(instructor, released, answers):
    """The student version with the instructor's solutions written in, as a student hands
    it back; ``answers`` ({cell index: code}) writes others in instead."""
    work = nbformat.from_dict(released)
    for i, (mine, theirs) in enumerate(zip(instructor.cells, work.cells)):
        if not (_meta(mine) or {}).get('solution'):
            continue
        if mine.cell_type == 'markdown':
            theirs.source = mine.source
        else:
            theirs.source = ex.with_solution(mine.source, answers.get(
                i, ex.solution_region(mine.source)))
    return work


def _with_hidden_tests(nb):
    """Indices of ``nb``'s test cells that hold hidden tests."""
    return [i for i, c in enumerate(nb.cells)
            if (_meta(c) or {}).get('grade') and ex.HIDDEN[0] in c.source]


def _text(html_path):
    """The text a browser shows of an HTML page (no styles, scripts or tags)."""
    page = Path(html_path).read_text(encoding='utf-8')
    page = re.sub(r'<(style|script)\b.*?</\1>', '', page, flags=re.S)
    return html.unescape(re.sub(r'<[^>]+>', '', page))


@pytest.fixture(scope='module')
def graded(tmp_path_factory):
    """A course of one assignment and two submissions, graded by ``make grade``.

    ``honest`` answers every exercise but the prediction as the instructor does, and
    predicts another letter; ``tampered`` is the same work with the prediction's test
    cell emptied (``pass``) so that it would pass. Returns the course directory, the
    assignment's name, the grade id of the test cell tampered with, and make's result."""
    course_dir = tmp_path_factory.mktemp('graded-course')
    name = GRADED_NOTEBOOK.stem
    released = assignments.generate([GRADED_NOTEBOOK], course_dir)[name]
    instructor, student = _read(GRADED_NOTEBOOK), _read(released)
    predict = next(e for e in ex.exercises(instructor).values()
                   if e.predicted_letter(instructor) is not None)
    right = predict.predicted_letter(instructor)
    wrong = next(c for c in predict.choices(instructor) if c != right)
    honest = _student_work(instructor, student,
                           {predict.indices('answer')[0]: "prediction = '%s'" % wrong})
    tampered = nbformat.from_dict(honest)
    tampered_cell = predict.indices('tests')[0]
    assert tampered_cell in _with_hidden_tests(instructor)
    tampered.cells[tampered_cell].source = 'pass'
    for student_id, work in (('honest', honest), ('tampered', tampered)):
        folder = course_dir / 'submitted' / student_id / name
        folder.mkdir(parents=True)
        nbformat.write(work, str(folder / (name + '.ipynb')))
    command, env = _make('grade', course_dir, 'NB=%s' % name)
    result = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True)
    return course_dir, name, _meta(instructor.cells[tampered_cell])['grade_id'], result


def _log_of(output, student_id):
    """The part of nbgrader's log about ``student_id``'s submission."""
    parts = re.split(r'(?=\[AutogradeApp \| INFO\] Sanitizing )', output)
    return ''.join(p for p in parts if '/submitted/%s/' % student_id in p.split('\n', 1)[0])


def test_make_grade_flags_a_changed_test_cell_and_only_that(graded):
    course_dir, name, tampered_id, result = graded
    assert result.returncode == 0, result.stdout + result.stderr
    output = result.stdout + result.stderr
    honest, tampered = _log_of(output, 'honest'), _log_of(output, 'tampered')
    assert honest and tampered, output
    assert 'has changed' not in honest, honest
    changed = re.findall(r"Attribute '(\w+)' for cell (\S+) has changed", tampered)
    assert changed == [('checksum', tampered_id)], tampered


def test_make_grade_writes_the_grades_and_feedback_without_hidden_tests(graded):
    course_dir, name, tampered_id, result = graded
    assert result.returncode == 0, result.stdout + result.stderr
    instructor = _read(GRADED_NOTEBOOK)
    points = {m['grade_id']: m['points'] for m in map(_meta, instructor.cells)
              if m and m.get('grade')}
    autograded = sum(p for g, p in points.items() if GRADE_ID.match(g)['part'] == 'tests')
    with open(course_dir / 'grades.csv', newline='') as f:
        rows = {row['student_id']: row for row in csv.DictReader(f) if row['assignment'] == name}
    # The restored test fails the tampered submission as it fails the honest one.
    for student_id in ('honest', 'tampered'):
        assert float(rows[student_id]['score']) == autograded - points[tampered_id], rows
        assert float(rows[student_id]['max_score']) == sum(points.values()), rows

    released = _read(course_dir / 'release' / name / (name + '.ipynb'))
    shown = {line.strip() for c in released.cells for line in c.source.splitlines()}
    hidden = {line for i in _with_hidden_tests(instructor)
              for line in _split(instructor.cells[i].source)[0]} - shown
    assert hidden
    for student_id in ('honest', 'tampered'):
        text = _text(course_dir / 'feedback' / student_id / name / (name + '.html'))
        assert 'Score' in text and not [m for m in MARKERS if m in text]
        assert not [line for line in hidden if line in text], student_id
        # The prediction's test fails by a hidden test: its error shows, not its traceback.
        assert 'AssertionError' in text and 'Traceback' not in text


def test_make_formgrader_serves_the_course(graded, tmp_path):
    course_dir, name, _, _ = graded
    port, token = free_port(), secrets.token_hex(16)
    command, env = _make('formgrader', course_dir, 'FORMGRADER_PORT=%d' % port,
                         'LAB_ARGS=--no-browser --ServerApp.port_retries=0 '
                         '--IdentityProvider.token=%s' % token,
                         env=jupyter_env(tmp_path, os.path.dirname(sys.executable)))
    log = tmp_path / 'formgrader.log'
    with open(log, 'wb') as out:
        server = subprocess.Popen(command, cwd=REPO, env=env, stdin=subprocess.DEVNULL,
                                  stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 90
        while not listening(port):
            assert server.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.3)
        url = 'http://127.0.0.1:%d/formgrader/api/assignments?token=%s' % (port, token)
        with urllib.request.urlopen(url, timeout=60) as response:
            listed = {a['name']: a for a in json.load(response)}
    finally:
        stop_group(server)
    assert listed[name]['num_submissions'] == 2, listed
