"""LARS's bias exemption through gluon.Trainer, against MXNet 1.9.1 (see lars_names_driver).

The Trainer gives the optimizer its parameters by index, never their names; LARS exempts a
tensor from its trust ratio by name only. So through ``Trainer(params, 'lars', ...)`` every
tensor, biases included, gets the trust ratio; an optimizer created with ``param_idx2name``
in the Trainer's order (sorted names) exempts the biases; names in another order exempt the
wrong tensors. Both behaviours are MXNet 1.9.1's: the weights match it step by step.
"""
import numpy as np
import pytest

import lars_names_driver as driver
from harness import oracle_case_arrays, run_oracle

LR, ETA = driver.SETTINGS['learning_rate'], driver.SETTINGS['eta']


def _first_step_ratios(out, names):
    """{param: ‖Δw‖ / (lr ‖g‖)} of the first step (momentum is still 0): 1 for the plain
    rate, eta ‖w‖/‖g‖ for the trust ratio."""
    ratios = {}
    for key in names:
        step = out[key + '|w'][0] - out[key + '|w0']
        ratios[key] = np.linalg.norm(step) / (LR * np.linalg.norm(out[key + '|g']))
    return ratios


@pytest.mark.parametrize('names', driver.CASES)
def test_which_tensors_keep_the_plain_rate(names):
    import gluonedu
    out = driver.run(gluonedu, names)
    params = sorted({key.split('|')[0] for key in out})
    ratios = _first_step_ratios(out, params)
    plain = {key for key, r in ratios.items() if abs(r - 1) < 1e-5}
    biases = {key for key in params if key.endswith('bias')}
    expected = {None: set(), 'trainer': biases, 'collect': set(params) - biases}[names]
    assert plain == expected, ratios
    for key in set(params) - plain:   # the trust ratio: the step is lr * eta of ‖w‖
        step = out[key + '|w'][0] - out[key + '|w0']
        np.testing.assert_allclose(np.linalg.norm(step) / np.linalg.norm(out[key + '|w0']),
                                   LR * ETA, rtol=1e-5)


@pytest.fixture(scope='module')
def lars_oracle(tmp_path_factory):
    return run_oracle(driver.__file__, tmp_path_factory.mktemp('mxnet_lars_names'))


@pytest.mark.parametrize('names', driver.CASES)
def test_lars_through_the_trainer_matches_mxnet(names, lars_oracle):
    import gluonedu
    results, meta = lars_oracle
    expected = oracle_case_arrays(results, meta, driver.case_id(names))
    got = driver.run(gluonedu, names)
    assert sorted(got) == sorted(expected)
    for key in sorted(expected):
        np.testing.assert_allclose(got[key], expected[key], rtol=1e-5, atol=1e-6, err_msg=key)
