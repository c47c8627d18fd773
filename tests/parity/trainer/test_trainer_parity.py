"""gluon.Trainer (with its KVStore) against MXNet 1.9.1, weight by weight, step by step.

Every case of :func:`trainer_driver.trainer_cases` — an MLP over 1 and 2 contexts,
'device' and 'local' stores (and a KVStore instance), update_on_kvstore True/False,
with and without 2-bit compression, SGD-momentum and Adam; an Embedding(sparse_grad=True)
model; save_states / load_states into a fresh Trainer halfway — runs the same driver
code on both sides from the same seeded weights and data. After every step, every
context's copy of every parameter must match MXNet's within rtol 1e-5 (atol 1e-6).

All cases go to the oracle in ONE subprocess (MXNet's import costs seconds). Without a
working oracle these tests skip, naming why — in CI (``CI`` set) they fail instead.
"""
import warnings
from pathlib import Path

import numpy as np
import pytest

import trainer_driver
from harness import oracle_case_arrays, run_oracle

CASES = trainer_driver.trainer_cases()
ORACLE_SCRIPT = Path(__file__).with_name('oracle_trainer_mxnet.py')
RTOL, ATOL = 1e-5, 1e-6


@pytest.fixture(scope='module')
def trainer_oracle(tmp_path_factory):
    """(results by "<id>|<name>", meta) from MXNet 1.9.1 for every case, run once."""
    return run_oracle(ORACLE_SCRIPT, tmp_path_factory.mktemp('mxnet_trainer_oracle'),
                      cases=CASES, inputs=trainer_driver.make_inputs())


@pytest.mark.parametrize('case', CASES, ids=[c['id'] for c in CASES])
def test_trainer_matches_mxnet_after_every_step(case, trainer_oracle, tmp_path):
    import gluonedu
    inputs = trainer_driver.make_inputs()
    if case['expect_error']:
        assert case['id'] in trainer_oracle[1]['errors'], \
            'MXNet accepted a configuration it is expected to refuse'
        with pytest.raises(Exception, match='(?i)compression'):
            trainer_driver.run_trainer_case(gluonedu, case, inputs, str(tmp_path))
        return
    expected = oracle_case_arrays(*trainer_oracle, case['id'])
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')  # lazy-update notices and the like
        got = trainer_driver.run_trainer_case(gluonedu, case, inputs, str(tmp_path))
    assert sorted(got) == sorted(expected)
    for name in sorted(expected):
        want, have = expected[name], got[name]
        assert have.shape == want.shape, name
        for step in range(want.shape[0]):
            np.testing.assert_allclose(
                have[step], want[step], rtol=RTOL, atol=ATOL,
                err_msg='%s: parameter %s differs from MXNet after step %d'
                        % (case['id'], name, step + 1))
