"""``mx.nd`` operators against MXNet 1.9.1: the same calls, the same outcomes.

Every case of :mod:`ops_cases` runs once on MXNet 1.9.1 (one oracle process, each case in a
fork) and on gluonedu, through the same driver code (:mod:`ops_driver`). Where MXNet
returns, gluonedu must return arrays of the same shapes and dtypes and equal values (and
gradients, where the case differentiates); where MXNet raises, gluonedu must raise the same
class of error. MXNet's ``AssertionError`` for a non-NDArray argument (an ``assert`` in its
generated functions) is gluonedu's ``TypeError``; the other deliberate differences are listed
in ``ops_cases.DIVERGENCES`` and explained in docs/divergences.md.
"""
import json

import numpy as np
import pytest

import ops_cases
import ops_driver
import parity_driver
from conftest import REPO, check_oracle_version, run_oracle

ORACLE_SCRIPT = REPO / 'tests' / 'parity' / 'oracle_ops_mxnet.py'
CASES = ops_cases.all_cases()
INPUTS = ops_cases.make_inputs()
#: MXNet's error class -> gluonedu's, where they differ by design.
SAME_ERROR = {'AssertionError': 'TypeError'}
TOLERANCES = {'float16': (1e-2, 1e-2), 'float32': (1e-5, 1e-6), 'float64': (1e-10, 1e-12)}


@pytest.fixture(scope='module')
def ops_oracle(tmp_path_factory):
    """(arrays by "<id>|<name>", outcome by case id) from MXNet 1.9.1, run once."""
    workdir = tmp_path_factory.mktemp('mxnet_ops_oracle')
    cases_path, inputs_path = workdir / 'cases.json', workdir / 'inputs.npz'
    results_path = workdir / 'results.npz'
    cases_path.write_text(json.dumps(CASES))
    parity_driver.save_arrays(inputs_path, INPUTS)
    run_oracle(ORACLE_SCRIPT, [cases_path, inputs_path, results_path], workdir, results_path)
    results = parity_driver.load_arrays(results_path)
    meta = json.loads(results.pop('__meta__').tobytes().decode())
    check_oracle_version(meta)
    return results, meta['outcomes']


def _describe(outcome):
    if outcome[0] == 'ok':
        return 'a result'
    return '%s: %s' % (outcome[1], outcome[2])


def _compare(name, ours, theirs, case_id, tol=None):
    assert ours.shape == theirs.shape, '%s %s: shape %s, MXNet %s' % (
        case_id, name, ours.shape, theirs.shape)
    assert ours.dtype == theirs.dtype, '%s %s: dtype %s, MXNet %s' % (
        case_id, name, ours.dtype, theirs.dtype)
    if ours.dtype.kind == 'f':
        rtol, atol = tol or TOLERANCES[ours.dtype.name]
        np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=atol, equal_nan=True,
                                   err_msg='%s %s differs from MXNet 1.9.1' % (case_id, name))
    else:
        np.testing.assert_array_equal(ours, theirs,
                                      err_msg='%s %s differs from MXNet 1.9.1' % (case_id, name))


def _compare_stats(case, ours, theirs):
    """Samplers: shapes and dtypes exactly; mean and std within the case's tolerance."""
    rtol, atol = case['tol']
    for name, expected in theirs.items():
        got = np.asarray(ours[name])
        if name.endswith(('.shape', '.dtype')):
            assert got.tolist() == expected.tolist(), '%s %s: %s, MXNet %s' % (
                case['id'], name, got.tolist(), expected.tolist())
        elif name.endswith(('.mean', '.std')):
            assert abs(float(got) - float(expected)) <= atol + rtol * abs(float(expected)), \
                '%s %s: %.4f, MXNet %.4f' % (case['id'], name, float(got), float(expected))


@pytest.mark.parametrize('case', CASES, ids=[c['id'] for c in CASES])
def test_operator_call_matches_mxnet(case, ops_oracle):
    import gluonedu
    results, outcomes = ops_oracle
    gluonedu.random.seed(int(case.get('seed', 0)))
    ours = ops_driver.run_case(gluonedu, case, INPUTS)
    theirs = outcomes[case['id']]
    if case['id'] in ops_cases.DIVERGENCES:
        why, expected = ops_cases.DIVERGENCES[case['id']]
        got = 'ok' if ours[0] == 'ok' else ours[1]
        assert got == expected, '%s (a documented divergence: %s): expected %s, got %s' % (
            case['id'], why, expected, _describe(ours))
        return
    if theirs['status'] == 'crash':
        pytest.fail('MXNet 1.9.1 crashes on %s (signal %s); gluonedu gives %s. Record it in '
                    'ops_cases.DIVERGENCES.' % (case['id'], theirs['signal'], _describe(ours)),
                    pytrace=False)
    if theirs['status'] == 'error':
        expected = SAME_ERROR.get(theirs['type'], theirs['type'])
        assert ours[0] == 'error', '%s: MXNet raises %s (%s), gluonedu returns a result' % (
            case['id'], theirs['type'], theirs['message'])
        assert ours[1] == expected, '%s: MXNet raises %s (%s), gluonedu %s' % (
            case['id'], theirs['type'], theirs['message'], _describe(ours))
        return
    assert ours[0] == 'ok', '%s: MXNet returns a result, gluonedu raises %s' % (
        case['id'], _describe(ours))
    prefix = case['id'] + '|'
    expected = {k[len(prefix):]: v for k, v in results.items() if k.startswith(prefix)}
    assert sorted(ours[1]) == sorted(expected), '%s: outputs %s, MXNet %s' % (
        case['id'], sorted(ours[1]), sorted(expected))
    if case['compare'] == 'stats':
        _compare_stats(case, ours[1], expected)
        return
    for name, theirs_array in expected.items():
        _compare(name, np.asarray(ours[1][name]), theirs_array, case['id'], case.get('tol'))
