"""Sparse storage (csr, row_sparse) against MXNet 1.9.1: operators, errors, training runs.

Every case of :mod:`sparse_driver` runs the same code on both sides:

* operator cases: each result's storage type, dtype and dense values (and, where the
  case asks, the stored structure: ``indices``/``indptr``) must match MXNet's — values
  within rtol 1e-5 (atol 1e-6), float64 within 1e-12;
* error cases: gluonedu must raise the class MXNet raises (MXNetError, ValueError,
  TypeError, NotSupportedForSparseNDArray);
* training cases: a linear model on CSR features (dense or row_sparse weight fetched
  with ``row_sparse_data`` inside ``record()``) and a sparse embedding, with SGD,
  SGD with momentum and weight decay, lazy Adam and FTRL (and a csr weight gradient
  with SGD): the weight gradient, the rows it stores and the full weight after every
  step must match.

The oracle runs once for the module (one subprocess). Without a working oracle these
tests skip, naming why — in CI (``CI`` set) they fail instead.
"""
import warnings
from pathlib import Path

import numpy as np
import pytest

import sparse_driver
from harness import run_oracle

ORACLE_SCRIPT = Path(__file__).with_name('oracle_sparse_mxnet.py')
ERROR_CASES = sorted(name for name in sparse_driver.OP_CASES if name.startswith('err_'))
VALUE_CASES = sorted(name for name in sparse_driver.OP_CASES if not name.startswith('err_'))
TRAINING_CASES = sparse_driver.training_cases()


@pytest.fixture(scope='module')
def sparse_oracle(tmp_path_factory):
    """(arrays, meta) of MXNet 1.9.1 for every case, run once."""
    return run_oracle(ORACLE_SCRIPT, tmp_path_factory.mktemp('mxnet_sparse_oracle'),
                      inputs=sparse_driver.make_inputs())


@pytest.fixture(scope='module')
def ours(tmp_path_factory):
    """(arrays, meta) of gluonedu for every case."""
    import gluonedu
    workdir = tmp_path_factory.mktemp('gluonedu_sparse')
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        return sparse_driver.run_all(gluonedu, sparse_driver.make_inputs(), str(workdir),
                                     _format_exc)


def _format_exc():
    import traceback
    return traceback.format_exc()


def _tolerance(array):
    return (1e-12, 0.0) if array.dtype == np.float64 else (1e-5, 1e-6)


def _with_prefix(arrays, prefix):
    return {key[len(prefix):]: value for key, value in arrays.items() if key.startswith(prefix)}


@pytest.mark.parametrize('name', VALUE_CASES)
def test_sparse_operator_matches_mxnet(name, sparse_oracle, ours):
    (want_arrays, want_meta), (have_arrays, have_meta) = sparse_oracle, ours
    key = 'op|' + name
    assert key not in want_meta['errors'], 'MXNet raised %s' % want_meta['errors'].get(key)
    assert key not in have_meta['errors'], 'gluonedu raised %s' % have_meta['errors'].get(key)
    want_info = _with_prefix(want_meta['info'], key + '|')
    have_info = _with_prefix(have_meta['info'], key + '|')
    assert sorted(have_info) == sorted(want_info)
    mismatched = {result: (have_info[result], want_info[result]) for result in want_info
                  if have_info[result] != want_info[result]}
    assert not mismatched, 'storage type / dtype differ from MXNet: %s' % mismatched
    want, have = _with_prefix(want_arrays, key + '|'), _with_prefix(have_arrays, key + '|')
    assert sorted(have) == sorted(want)
    for field in sorted(want):
        assert have[field].shape == want[field].shape, field
        if np.issubdtype(want[field].dtype, np.floating):
            rtol, atol = _tolerance(want[field])
            np.testing.assert_allclose(have[field], want[field], rtol=rtol, atol=atol,
                                       err_msg='%s differs from MXNet' % field)
        else:
            np.testing.assert_array_equal(have[field], want[field],
                                          err_msg='%s differs from MXNet' % field)


@pytest.mark.parametrize('name', ERROR_CASES)
def test_sparse_error_matches_mxnet(name, sparse_oracle, ours):
    key = 'op|' + name
    want = sparse_oracle[1]['errors'].get(key)
    assert want is not None, 'MXNet 1.9.1 does not raise on %s' % name
    assert ours[1]['errors'].get(key) == want


@pytest.mark.parametrize('case', TRAINING_CASES, ids=[c['id'] for c in TRAINING_CASES])
def test_sparse_training_matches_mxnet_after_every_step(case, sparse_oracle, ours):
    (want_arrays, want_meta), (have_arrays, have_meta) = sparse_oracle, ours
    if case['id'] in want_meta['failed']:
        pytest.fail('MXNet 1.9.1 failed on %s:\n%s' % (case['id'], want_meta['failed'][case['id']]),
                    pytrace=False)
    assert case['id'] not in have_meta['failed'], have_meta['failed'].get(case['id'])
    prefix = 'train|%s|' % case['id']
    want, have = _with_prefix(want_arrays, prefix), _with_prefix(have_arrays, prefix)
    assert sorted(have) == sorted(want)
    np.testing.assert_array_equal(have['grad_stype'], want['grad_stype'])
    np.testing.assert_array_equal(have['stored_rows'], want['stored_rows'],
                                  err_msg='the gradient stores other rows than MXNet')
    for name in ('grad', 'weight') + (('bias',) if 'bias' in want else ()):
        for step in range(want[name].shape[0]):
            np.testing.assert_allclose(
                have[name][step], want[name][step], rtol=1e-5, atol=1e-6,
                err_msg='%s: %s differs from MXNet after step %d' % (case['id'], name, step + 1))
