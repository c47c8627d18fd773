"""Differential fuzzing of ``mx.nd``'s edges outside the operator table (issue 31).

:mod:`fuzz_edges` generates, seeded, :data:`CALLS_PER_SURFACE` calls of each surface — every
binary operation with a number on either side, array creation with every kind of source
and dtype, MXNet-format files with hostile headers, ``ParameterDict.load`` of lists and
dicts, and the gluonedu additions ``OneCycleScheduler`` and ``lr_find`` — and MXNet 1.9.1
runs the ones it has in one oracle process (oracle_ops_mxnet.py --shared). Every call must
be clean (:mod:`fuzz_table`): MXNet's outcome, or a documented divergence
(:data:`DIVERGENCES`, each a section of docs/divergences.md); never an exception gluonedu
did not raise itself, never a result where MXNet raises, nor one that breaks its promise.
"""
import collections
import math
from pathlib import Path

import numpy as np
import pytest

import fuzz_edges
import fuzz_table
import gluonedu
import ops_driver
import ops_outcomes
from harness import REPO, run_oracle

ORACLE_SCRIPT = Path(__file__).with_name('oracle_ops_mxnet.py')
CALLS_PER_SURFACE = 150
#: What gluonedu's reader of MXNet-format files refuses where MXNet 1.9.1 reads a garbage
#: shape, ignores the device or raises NumPy's or Python's error.
FILE_CHECKS = ('limit of 2^31 - 1 elements', 'an invalid device', 'dimensions (at byte',
               'not UTF-8')


def _raises(ours, error_class, text=''):
    return ours[0] == 'error' and ours[1] == error_class and text in ours[2]


def _is_array(arg):
    return isinstance(arg, dict) and 'nd' in arg


# Each test is of (case, inputs, gluonedu's outcome, MXNet's, MXNet's arrays).
def _zero_size(case, inputs, ours, theirs, expected):
    return ours[0] == 'ok' and theirs.get('type') == 'MXNetError' and any(
        _is_array(a) and 0 in inputs[a['nd']].shape
        for a in case.get('args', []) + [case.get('self')])


def _none_beside_an_array(case, inputs, ours, theirs, expected):
    """nd.subtract(None, x): MXNet's broadcast_sub takes the None for a missing input."""
    return case['args'][:1] == [None] and 'expects 2 inputs' in theirs.get('message', '') \
        and _raises(ours, 'TypeError', 'is not supported')


def _error_classes_of_empty_and_array(case, inputs, ours, theirs, expected):
    return (theirs.get('type') == 'KeyError' and _raises(ours, 'TypeError', 'cannot hold') or
            theirs.get('type') == 'OverflowError' and _raises(ours, 'ValueError', 'negative'))


def _out_of_range(case, inputs, ours, theirs, expected):
    return case.get('call') == 'array' and theirs['status'] == 'ok' and \
        _raises(ours, 'TypeError', 'out of bounds')


def _zero_dimensional(case, inputs, ours, theirs, expected):
    """MXNet's shape () as gluonedu's (1,), or MXNet failing on a shape ()."""
    if ours[0] != 'ok':
        return False
    if theirs['status'] == 'ok':
        vectors = {name: value.reshape(1) if value.ndim == 0 and '.' not in name else
                   np.array([1]) if name.endswith('.shape') and not value.size else value
                   for name, value in expected.items()}
        return ops_outcomes.mismatch(case, ours[:3], theirs, vectors) is None
    return case['args'][:1] == [{'tuple': []}] and 'inferring shapes' in theirs['message']


def _numpy_bool_on_the_left(case, inputs, ours, theirs, expected):
    return 'operator' in case and case['args'][0] == {'scalar': True, 'dtype': 'bool'} and \
        theirs.get('type') == 'TypeError' and ours[0] == 'ok'


def _number_over_integer_array(case, inputs, ours, theirs, expected):
    """MXNet's _rdiv_scalar divides integers in single precision."""
    if case.get('operator', case.get('call')) not in ('truediv', 'divide', 'true_divide'):
        return False
    lhs, rhs = case['args']
    return not _is_array(lhs) and _is_array(rhs) and inputs[rhs['nd']].dtype.kind in 'iu' \
        and ours[0] == 'ok'


def _none_where_numbers_belong(case, inputs, ours, theirs, expected):
    return _raises(ours, 'TypeError', 'from None')


def _file_checks(case, inputs, ours, theirs, expected):
    return any(_raises(ours, 'MXNetError', text) for text in FILE_CHECKS) or \
        ours[0] == 'ok' and 'saved in np shape semantics' in theirs.get('message', '')


def _parameter_dict_list(case, inputs, ours, theirs, expected):
    return theirs['status'] == 'error' and _raises(ours, 'ValueError', 'without names')


#: The kinds of call where gluonedu differs from MXNet 1.9.1 on purpose, each a section of
#: docs/divergences.md: (section title, test).
DIVERGENCES = [
    ('Zero-size arrays', _zero_size),
    ('A non-NDArray where an array input belongs raises TypeError', _none_beside_an_array),
    ('Error classes of nd.empty and nd.array', _error_classes_of_empty_and_array),
    ("nd.array of numbers outside the dtype's range", _out_of_range),
    ('No zero-dimensional arrays', _zero_dimensional),
    ('A NumPy bool on the left of an operator', _numpy_bool_on_the_left),
    ('A number divided by an integer array', _number_over_integer_array),
    ('None where numbers belong', _none_where_numbers_belong),
    ('MXNet-format files that MXNet 1.9.1 misreads', _file_checks),
    ('ParameterDict.load of a list of arrays', _parameter_dict_list),
]


def _kwargs(case):
    return {key: ops_driver.resolve(None, value, {}) for key, value in case['kwargs'].items()}


def _sound_one_cycle(case, arrays):
    """Every lr finite in [0, max_lr]; every momentum in (0, 1), or NaN when the momentum
    does not cycle."""
    lrs, momenta = arrays['out0.python'], arrays['out1.python']
    kwargs = _kwargs(case)
    momenta_sound = (((momenta > 0) & (momenta < 1)).all()
                     if kwargs.get('cycle_momentum', True) else np.isnan(momenta).all())
    return np.isfinite(lrs).all() and (lrs >= 0).all() and \
        (lrs <= kwargs['max_lr']).all() and momenta_sound


def _sound_lr_find(case, arrays):
    """The lrs finite, growing from start_lr to at most end_lr."""
    lrs, kwargs = arrays['out0.python'], _kwargs(case)
    return len(lrs) > 0 and np.isfinite(lrs).all() and \
        math.isclose(lrs[0], kwargs.get('start_lr', 1e-7)) and (np.diff(lrs) > 0).all() and \
        lrs[-1] <= kwargs.get('end_lr', 10.) * (1 + 1e-12)


#: What a result of a gluonedu-only surface must be (there is no MXNet to compare with).
SOUND = {'one_cycle': _sound_one_cycle, 'lr_find': _sound_lr_find}


def run_fuzz(workdir):
    """(cases, {case id: verdict}, {case id: gluonedu's outcome}) of the edge fuzz, the
    oracle run in ``workdir``."""
    cases, inputs = fuzz_edges.generate(CALLS_PER_SURFACE)
    compared = [c for c in cases if fuzz_edges.surface(c) not in fuzz_edges.GLUONEDU_ONLY]
    workdir.mkdir(parents=True, exist_ok=True)
    results, meta = run_oracle(ORACLE_SCRIPT, workdir, '--shared', cases=compared,
                               inputs=inputs)
    arrays = collections.defaultdict(dict)
    for key, value in results.items():
        case_id, _, name = key.partition('|')
        arrays[case_id][name] = value
    verdicts, ours = {}, {}
    for case in cases:
        mine = ours[case['id']] = fuzz_table.run_ours(gluonedu, case, inputs)
        theirs, expected = meta['outcomes'].get(case['id']), arrays[case['id']]
        documented = theirs is not None and any(
            applies(case, inputs, mine, theirs, expected) for _, applies in DIVERGENCES)
        verdicts[case['id']] = fuzz_table.verdict(
            case, mine, theirs, expected, documented, sound=SOUND.get(fuzz_edges.surface(case)))
    return cases, verdicts, ours


def verdict_counts(workdir):
    """{surface: Counter of verdicts} (fuzz_table prints them)."""
    cases, verdicts, _ = run_fuzz(workdir)
    counts = collections.defaultdict(collections.Counter)
    for case in cases:
        counts[fuzz_edges.surface(case)][verdicts[case['id']]] += 1
    return dict(counts)


@pytest.fixture(scope='module')
def edges_run(tmp_path_factory):
    return run_fuzz(tmp_path_factory.mktemp('mxnet_edges_oracle'))


def test_every_surface_is_fuzzed_in_earnest(edges_run):
    cases, _, ours = edges_run
    for name in fuzz_edges.SURFACES:
        outcomes = [ours[c['id']][0] for c in cases if fuzz_edges.surface(c) == name]
        assert len(outcomes) == CALLS_PER_SURFACE, name
        # both kinds of outcome are exercised on every surface
        assert outcomes.count('ok') >= 10 and outcomes.count('error') >= 10, name


def test_every_binary_operation_meets_a_number_on_either_side(edges_run):
    cases = [c for c in edges_run[0] if fuzz_edges.surface(c) == 'binary']
    sides = collections.defaultdict(set)
    for case in cases:
        name = case.get('call') or 'op:' + case['operator']
        sides[name].update(i for i, a in enumerate(case['args']) if not _is_array(a))
    assert sides == {name: {0, 1} for name in fuzz_edges.BINARY}


def test_every_call_is_clean(edges_run):
    cases, verdicts, ours = edges_run
    problems = ['%s %s: %s\n    case: %r' % (verdicts[c['id']], c['id'], ours[c['id']][:3], c)
                for c in cases if verdicts[c['id']] not in ('clean', 'not compared')]
    assert not problems, '%d of %d calls are not clean:\n%s' % (
        len(problems), len(cases), '\n'.join(problems[:40]))


def test_each_divergence_is_a_section_of_docs_divergences():
    text = (REPO / 'docs' / 'divergences.md').read_text()
    for title, _ in DIVERGENCES:
        assert '\n## %s\n' % title in text, title
