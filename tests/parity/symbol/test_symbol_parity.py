"""Symbols, hybridized Blocks, export and import against MXNet 1.9.1, in both directions.

Every case of :mod:`symbol_cases` runs on MXNet 1.9.1 (one oracle process) and on
gluonedu through the same driver (:mod:`symbol_driver`): graphs must serialize to the same
JSON text, infer the same shapes and dtypes, evaluate to the same values and gradients
(float32: rtol 1e-5), and fail with the same class of error. Files cross over: gluonedu
reads the ``-symbol.json``/``.params`` files MXNet wrote and MXNet reads gluonedu's, and
each side's results for the other's files must agree.
"""
import warnings
from pathlib import Path

import numpy as np
import pytest

import symbol_cases
import symbol_driver
from harness import run_oracle

ORACLE_SCRIPT = Path(__file__).with_name('oracle_symbol_mxnet.py')
CASES = symbol_cases.CASES
INPUTS = symbol_cases.make_inputs()
#: MXNet's error class -> gluonedu's other accepted one, where they differ by design (as in
#: the nd suite: an operator's bad argument).
SAME_ERROR = {'AssertionError': 'TypeError'}


def _run_here(case, workdir):
    import gluonedu
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        return symbol_driver.run_case(gluonedu, case, INPUTS, workdir, 'gluonedu')


@pytest.fixture(scope='module')
def symbol_oracle(tmp_path_factory):
    """``(workdir, arrays by "<id>|<name>", outcome by case id)`` from MXNet 1.9.1."""
    workdir = tmp_path_factory.mktemp('mxnet_symbol_oracle')
    producers = {c['id']: _run_here(c, workdir) for c in CASES if c['phase'] == 1}
    results, meta = run_oracle(ORACLE_SCRIPT, workdir, cases=CASES, inputs=INPUTS)
    return workdir, producers, results, meta['outcomes']


def _compare(case_id, name, ours, theirs):
    if name.endswith(symbol_driver.JSON_SUFFIX):
        mine, expected = symbol_driver.decode_json(ours), symbol_driver.decode_json(theirs)
        assert mine == expected, '%s %s:\n gluonedu %s\n MXNet    %s' % (
            case_id, name, mine, expected)
        return
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype, \
        '%s %s: %s %s, MXNet %s %s' % (case_id, name, ours.shape, ours.dtype, theirs.shape,
                                       theirs.dtype)
    if ours.dtype.kind == 'f':
        rtol, atol = {'float16': (1e-3, 1e-3), 'float64': (1e-12, 0)}.get(
            ours.dtype.name, (1e-5, 1e-6))
        np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=atol,
                                   err_msg='%s %s differs from MXNet 1.9.1' % (case_id, name))
    else:
        np.testing.assert_array_equal(ours, theirs, err_msg='%s %s' % (case_id, name))


@pytest.mark.parametrize('case', CASES, ids=[c['id'] for c in CASES])
def test_symbol_case_matches_mxnet(case, symbol_oracle):
    workdir, producers, results, outcomes = symbol_oracle
    ours = producers.get(case['id']) or _run_here(case, workdir)
    theirs = outcomes[case['id']]
    if theirs['status'] == 'error':
        expected = (theirs['type'], SAME_ERROR.get(theirs['type']))
        assert ours[0] == 'error', '%s: MXNet raises %s (%s), gluonedu returns a result' % (
            case['id'], theirs['type'], theirs['message'])
        assert ours[1] in expected, '%s: MXNet raises %s (%s), gluonedu %s: %s' % (
            case['id'], theirs['type'], theirs['message'], ours[1], ours[2])
        return
    assert ours[0] == 'ok', '%s: MXNet returns a result, gluonedu raises %s: %s' % (
        case['id'], ours[1], ours[2])
    prefix = case['id'] + '|'
    expected = {k[len(prefix):]: v for k, v in results.items() if k.startswith(prefix)}
    assert sorted(ours[1]) == sorted(expected), '%s: outputs %s, MXNet %s' % (
        case['id'], sorted(ours[1]), sorted(expected))
    for name, theirs_array in expected.items():
        _compare(case['id'], name, ours[1][name], theirs_array)
