"""The fuzz suites' verdict on each call, and their table (issue 31): clean, leak, silent.

* **leak**: gluonedu raised an exception it did not raise itself — the innermost frame of
  the traceback is not a ``raise`` statement of gluonedu's code (NumPy's or Python's own
  error escaped: ``data type 'foo' not understood``, ``too many values to unpack``).
  Counted apart: a leak of the class MXNet 1.9.1 raises too (``leak, MXNet's class``),
  and any other (``leak``).
* **silent**: gluonedu returned where MXNet raises, or returned other values; for the
  surfaces only gluonedu has, returned a result that breaks its promise (a NaN lr).
* **differs**: gluonedu raised an error of its own, of another class than MXNet's (or
  where MXNet returns).
* **clean**: anything else: MXNet's outcome, or a documented divergence from it.
* **not compared**: MXNet 1.9.1 crashed (or hung) on the call.

``python tests/parity/ndarray/fuzz_table.py`` prints the table of both suites, per surface
(``GLUONEDU_MXNET_PYTHON`` names the oracle, as for the tests).
"""
import collections
import traceback
from pathlib import Path

import gluonedu
import ops_driver
import ops_outcomes

PACKAGE = Path(gluonedu.__file__).resolve().parent
COLUMNS = ('clean', 'leak', "leak, MXNet's class", 'silent', 'differs', 'not compared')


def origin(exc):
    """'gluonedu' if gluonedu raised ``exc`` itself (a ``raise`` statement of the package
    is the innermost frame), else 'raw'."""
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return 'raw'
    last = frames[-1]
    inside = Path(last.filename).resolve().is_relative_to(PACKAGE)
    return 'gluonedu' if inside and (last.line or '').lstrip().startswith('raise') else 'raw'


def run_ours(mx, case, inputs):
    """gluonedu's outcome of ``case``; an error's fourth item is its :func:`origin`."""
    if case.get('seed') is not None:
        mx.random.seed(case['seed'])
    return ops_driver.run_case(mx, case, inputs, origin=origin)


def verdict(case, ours, theirs=None, expected=None, documented=False, sound=None):
    """One column of :data:`COLUMNS` for ``ours`` (:func:`run_ours`) against MXNet's
    outcome ``theirs`` and arrays ``expected``; for a gluonedu-only call (``theirs`` None),
    ``sound(case, arrays)`` says whether a result keeps its promise."""
    if ours[0] == 'error' and ours[3] == 'raw':
        same = theirs is not None and theirs['status'] == 'error' and \
            ops_outcomes.expected_error(theirs, case) == ours[1]
        return "leak, MXNet's class" if same else 'leak'
    if theirs is None:
        return 'clean' if ours[0] == 'error' or sound(case, ours[1]) else 'silent'
    if theirs['status'] == 'crash':
        return 'not compared'
    if documented or ops_outcomes.mismatch(case, ours[:3], theirs, expected) is None:
        return 'clean'
    return 'silent' if ours[0] == 'ok' else 'differs'


def table(rows):
    """The text of a table: ``rows`` maps a row's name to a Counter of columns."""
    width = max(len(name) for name in list(rows) + ['total'])
    total = sum(rows.values(), collections.Counter())
    lines = [_row('', COLUMNS + ('calls',), width)]
    for name, counts in list(rows.items()) + [('total', total)]:
        lines.append(_row(name, [counts[c] for c in COLUMNS] + [sum(counts.values())],
                          width))
    return '\n'.join(lines)


def _row(name, cells, width):
    return '%-*s' % (width, name) + ''.join('  %*s' % (max(len(c), 5), cell)
                                            for c, cell in zip(COLUMNS + ('calls',), cells))


def main():
    """Run both fuzz suites as their tests do and print the table."""
    import sys
    import tempfile

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the parity harness
    import test_edges_fuzz
    import test_ops_fuzz
    with tempfile.TemporaryDirectory(prefix='fuzz-table-') as tmp:
        rows = test_ops_fuzz.verdict_counts(Path(tmp) / 'ops')
        rows.update(test_edges_fuzz.verdict_counts(Path(tmp) / 'edges'))
    print(table(rows))


if __name__ == '__main__':
    main()
