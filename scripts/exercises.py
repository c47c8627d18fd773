"""The curriculum's exercises, read from a notebook's nbgrader metadata (docs/exercises.md).

An exercise ``k`` of notebook ``NN`` is the cells whose grade id reads ``NN-ex<k>-<part>``:

* ``text``     the task (markdown, locked);
* ``answer``   the student's code (``### BEGIN SOLUTION`` ... ``### END SOLUTION``);
  ``answer2``, ... where there are several;
* ``tests``    the autograded checks (locked, points), hidden tests between
  ``### BEGIN HIDDEN TESTS`` and ``### END HIDDEN TESTS``;
* ``explain``  a manually graded explanation (markdown, points; rubric in
  docs/exercises.md);
* ``reveal``   a predict exercise's experiment, shown after its answer is graded (locked,
  no points).

:func:`exercises` groups a notebook's cells so; :func:`with_solution` writes another
submission into an answer cell. tests/test_assignments.py and
tests/test_exercise_mutants.py use both.
"""
import re
from dataclasses import dataclass, field

GRADE_ID = re.compile(r'^(?P<prefix>[A-Za-z0-9_]+)-ex(?P<number>\d+)-(?P<part>[a-z]+)(?P<index>\d*)$')
PARTS = ('text', 'answer', 'tests', 'explain', 'reveal')
SOLUTION = ('### BEGIN SOLUTION', '### END SOLUTION')
HIDDEN = ('### BEGIN HIDDEN TESTS', '### END HIDDEN TESTS')
#: A predict-then-run exercise's whole solution: one letter.
PREDICTION = re.compile(r"^prediction\s*=\s*'(?P<letter>[a-z])'\s*(#.*)?$")
#: The text cell's heading: ``### Exercise k · <kind>: <title>``.
HEADING = re.compile(r'^### Exercise (?P<number>\d+) · (?P<kind>[a-z ,]+): \S')
#: The choices a predict exercise's text offers: lines ``* (a) ...``.
CHOICE = re.compile(r'^\s*[*-] \(([a-z])\)', re.M)


def nbgrader(cell):
    """The cell's nbgrader metadata, or None."""
    return cell.get('metadata', {}).get('nbgrader')


def grade_id(cell):
    """The cell's grade id parsed by :data:`GRADE_ID` (a match), or None."""
    meta = nbgrader(cell)
    return GRADE_ID.match(meta.get('grade_id', '')) if meta else None


@dataclass
class Exercise:
    """One exercise: its number and ``{part name: [cell index, ...]}`` (``answer2`` is
    filed under ``answer``), in notebook order."""
    number: int
    cells: dict = field(default_factory=dict)

    def indices(self, part):
        return self.cells.get(part, [])

    def solution(self, nb):
        """The solution region of the first answer cell (stripped), or ''."""
        answers = self.indices('answer')
        return solution_region(nb.cells[answers[0]].source) if answers else ''

    def predicted_letter(self, nb):
        """The letter a predict exercise's solution stores, or None for another kind."""
        match = PREDICTION.match(self.solution(nb))
        return match['letter'] if match and len(self.indices('answer')) == 1 else None

    def choices(self, nb):
        """The letters the text cell offers (``* (a) ...`` lines), in order."""
        return [c for i in self.indices('text') for c in CHOICE.findall(nb.cells[i].source)]


def exercises(nb):
    """``{k: Exercise}`` for every exercise numbered in ``nb``'s grade ids."""
    found = {}
    for i, cell in enumerate(nb.cells):
        match = grade_id(cell)
        if not match:
            continue
        k = int(match['number'])
        found.setdefault(k, Exercise(k)).cells.setdefault(match['part'], []).append(i)
    return dict(sorted(found.items()))


def _region(source, markers):
    lines = source.splitlines()
    starts = [i for i, line in enumerate(lines) if line.strip() == markers[0]]
    ends = [i for i, line in enumerate(lines) if line.strip() == markers[1]]
    return lines, starts, ends


def solution_region(source):
    """The code between the solution markers (the first pair), stripped."""
    lines, starts, ends = _region(source, SOLUTION)
    if not starts or not ends:
        return ''
    return '\n'.join(lines[starts[0] + 1:ends[0]]).strip()


def with_solution(source, replacement):
    """``source`` with its solution region (markers included) replaced by ``replacement``:
    a submission that wrote ``replacement`` where the student version says
    ``# YOUR CODE HERE``. The lines before and after the region (the set-up the student
    version keeps) stay."""
    lines, starts, ends = _region(source, SOLUTION)
    if len(starts) != 1 or len(ends) != 1:
        raise ValueError('an answer cell needs exactly one solution region to replace')
    return '\n'.join(lines[:starts[0]] + [replacement.strip('\n')] + lines[ends[0] + 1:])
