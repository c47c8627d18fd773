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

Generating loads nbgrader once (slow to import) and autograding executes each such
notebook twice, so the slow part runs only for notebooks that have exercises.
"""
import re
import sys
from pathlib import Path

import nbformat
import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / 'scripts'))

import assignments  # noqa: E402
import exercises as ex  # noqa: E402

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
