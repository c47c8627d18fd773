"""gluonedu's 'local' and 'device' KVStores against MXNet 1.9.1, push by push.

Every case of :func:`kvstore_parity_driver.kvstore_cases` — 'local' and 'device', 1, 2,
3 and 5 devices, 2-bit compression on 'device', plain push/pull, pushpull, SGD-momentum
and Adam running on the store, row-sparse values with ``row_sparse_pull`` — runs the
same driver code on both sides from the same seeded inputs. Sums must match MXNet's bit
for bit (they depend only on the order of the additions, which gluonedu keeps:
'local' groups of four, 'device' left to right); optimizer updates within rtol 1e-5.
The oracle runs once per session in its own interpreter, as the optimizer parity suite.
"""
from pathlib import Path

import numpy as np
import pytest

import kvstore_parity_driver
from harness import oracle_case_arrays, run_oracle

CASES = kvstore_parity_driver.kvstore_cases()
ORACLE_SCRIPT = Path(__file__).with_name('oracle_kvstore.py')


@pytest.fixture(scope='session')
def kv_oracle(tmp_path_factory):
    """``(results, meta)`` of every KVStore case run once on MXNet 1.9.1."""
    return run_oracle(ORACLE_SCRIPT, tmp_path_factory.mktemp('mxnet_kvstore_oracle'),
                      cases=CASES, naive_engine=False)


@pytest.mark.parametrize('case', CASES, ids=[c['id'] for c in CASES])
def test_kvstore_matches_mxnet(case, kv_oracle):
    import gluonedu
    expected = oracle_case_arrays(*kv_oracle, case['id'])
    got = kvstore_parity_driver.run_kvstore_case(gluonedu, case)
    assert sorted(got) == sorted(expected)
    exact = case['mode'] in ('push_pull', 'pushpull', 'row_sparse')
    for name in sorted(expected):
        if exact:
            np.testing.assert_array_equal(got[name], expected[name],
                                          err_msg='%s: %s' % (case['id'], name))
        else:
            np.testing.assert_allclose(got[name], expected[name], rtol=1e-5, atol=1e-6,
                                       err_msg='%s: %s' % (case['id'], name))
