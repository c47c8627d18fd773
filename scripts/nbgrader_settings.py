"""gluonedu's nbgrader settings: what it changes in nbgrader's pipeline, and why.

:func:`configure` writes them into an nbgrader config. ``scripts/assignments.py`` uses it
in-process and has the course directory's ``nbgrader_config.py`` call it, so that
nbgrader's own commands (``make grade``) and the Formgrader (``make formgrader``) work
the same way (docs/exercises.md):

* a cell may run for minutes on a loaded machine (nbgrader's default time-out: 30 s);
* the student version carries no widget state (:class:`ClearWidgetState`);
* an honest submission autogrades without a "checksum has changed" warning, a changed
  test cell still with one (:class:`OverwriteCellsRestoringHiddenTests`);
* the feedback shows a test cell as the student version does (:class:`HideHiddenTests`).
"""
import warnings

import nbformat
from nbconvert.preprocessors import Preprocessor
from nbgrader import utils
from nbgrader.api import MissingEntry
from nbgrader.converters import Autograde, GenerateAssignment, GenerateFeedback
from nbgrader.preprocessors import ClearHiddenTests, OverwriteCells
from traitlets import Bool

#: Seconds a cell may run when nbgrader executes a notebook.
CELL_TIMEOUT = 600


class _Step(Preprocessor):
    """A preprocessor that runs whenever an nbgrader converter lists it (nbconvert's are
    off unless enabled). Not an NbGraderPreprocessor: that one rejects the display
    settings the feedback's HTML exporter passes down, with a warning each time."""
    enabled = Bool(True)


class ClearWidgetState(_Step):
    """Remove the notebook's saved widget state (``metadata.widgets``).

    The instructor version is saved with the state of the widgets it ran; the student
    version has no outputs, so that state describes nothing the student sees (it is
    most of a hand-out's size)."""

    def preprocess(self, nb, resources):
        nb.metadata.pop('widgets', None)
        return nb, resources


def _without_hidden_tests(cell, source):
    """``source`` as the student version of ``cell`` has it: its hidden tests removed, by
    the step of ``nbgrader generate_assignment`` that removed them."""
    released = nbformat.from_dict({'cell_type': cell.cell_type, 'source': source,
                                   'metadata': cell.metadata})
    ClearHiddenTests().preprocess_cell(released, {}, 0)
    return released.source


class OverwriteCellsRestoringHiddenTests(OverwriteCells):
    """nbgrader's OverwriteCells, which first puts back the hidden tests of a test cell
    that is exactly as the student version had it.

    The gradebook holds a test cell with its hidden tests, and the checksum of that; the
    student version holds the cell without them. OverwriteCells restores the hidden
    tests because the checksums differ, and so warns "Attribute 'checksum' ... has
    changed!" for every such cell of every honest submission (jupyter/nbgrader#1961).
    After this restoration the checksums agree, and the warning is left to a test cell
    the student did change (which OverwriteCells still restores)."""

    def preprocess_cell(self, cell, resources, cell_index):
        grade_id = cell.metadata.get('nbgrader', {}).get('grade_id')
        if grade_id is not None and utils.is_grade(cell):
            try:
                source_cell = self.gradebook.find_source_cell(
                    grade_id, self.notebook_id, self.assignment_id)
            except MissingEntry:
                pass                      # OverwriteCells says so
            else:
                if source_cell.locked and cell.source == _without_hidden_tests(
                        cell, source_cell.source):
                    cell.source = source_cell.source
        return super().preprocess_cell(cell, resources, cell_index)


class HideHiddenTests(_Step):
    """The feedback's test cells as the student version shows them.

    A test cell that holds hidden tests shows its visible tests only, and an error in it
    only its last line (``AssertionError: <message>``): the traceback would quote the
    hidden line that failed. The scores are unchanged."""

    def preprocess_cell(self, cell, resources, cell_index):
        if cell.cell_type == 'code' and utils.is_grade(cell):
            released = _without_hidden_tests(cell, cell.source)
            if released != cell.source:
                cell.source = released
                for output in cell.outputs:
                    if output.output_type == 'error':
                        output.traceback = [': '.join(filter(None, (output.ename, output.evalue)))]
        return cell, resources


def configure(config):
    """Write gluonedu's settings into the nbgrader ``config`` (a traitlets Config)."""
    config.Execute.timeout = CELL_TIMEOUT
    config.GenerateAssignment.preprocessors = [
        *GenerateAssignment.preprocessors.default(), ClearWidgetState]
    config.Autograde.sanitize_preprocessors = [
        OverwriteCellsRestoringHiddenTests if step is OverwriteCells else step
        for step in Autograde.sanitize_preprocessors.default()]
    config.GenerateFeedback.preprocessors = [
        HideHiddenTests, *GenerateFeedback.preprocessors.default()]
    return config


def ignore_nbgrader_warnings():
    """Ignore the warnings nbgrader's own use of SQLAlchemy sessions raises on every
    autograde ("Object of type <SubmittedNotebook> not in session"): not ours to fix,
    and they read like errors."""
    warnings.filterwarnings('ignore', message='Object of type .* not in session')
