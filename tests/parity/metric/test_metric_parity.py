"""``mx.metric`` against MXNet 1.9.1, update by update.

Every case of :func:`metric_parity_driver.metric_cases` — each metric and its options,
made through the names, aliases and configs ``create`` knows, with ``reset_local`` in the
middle — runs the same driver code on both sides from the same seeded batches; ``get()``
and ``get_global()`` must agree after every update (rtol 1e-6: both sides compute in the
arrays' float32 and add each batch as a float64), names and configs exactly. Every case
of :func:`metric_parity_driver.error_cases` must raise the exception type MXNet raises.
The oracle runs once per session in its own interpreter.
"""
import json
from pathlib import Path

import numpy as np
import pytest

import metric_parity_driver as driver
from harness import oracle_case_arrays, run_oracle

ORACLE_SCRIPT = Path(__file__).with_name('oracle_metric.py')
VALUE_CASES = driver.metric_cases()
ERROR_CASES = driver.error_cases()


@pytest.fixture(scope='session')
def metric_oracle(tmp_path_factory):
    """``(results, meta)`` of every metric case run once on MXNet 1.9.1."""
    return run_oracle(ORACLE_SCRIPT, tmp_path_factory.mktemp('mxnet_metric_oracle'))


@pytest.mark.parametrize('case', VALUE_CASES, ids=[c['id'] for c in VALUE_CASES])
def test_metric_matches_mxnet(case, metric_oracle):
    import gluonedu
    expected = oracle_case_arrays(*metric_oracle, case['id'])
    got = driver.run_metric_case(gluonedu, case)
    assert sorted(got) == sorted(expected)
    for name in sorted(expected):
        want, have = expected[name], got[name]
        if want.dtype.kind in 'US':
            if name == 'config':
                assert json.loads(str(have)) == json.loads(str(want)), case['id']
            else:
                assert str(have) == str(want), '%s: %s' % (case['id'], name)
        else:
            np.testing.assert_allclose(have, want, rtol=1e-6, atol=1e-12, equal_nan=True,
                                       err_msg='%s: %s' % (case['id'], name))


@pytest.mark.parametrize('case', ERROR_CASES, ids=[c['id'] for c in ERROR_CASES])
def test_metric_error_type_matches_mxnet(case, metric_oracle):
    import gluonedu
    expected = oracle_case_arrays(*metric_oracle, case['id'])
    assert str(driver.run_error_case(gluonedu, case)['error']) == str(expected['error'])
