"""``gluon.rnn`` equals MXNet 1.9.1's: the layers (the fused CPU RNN operator) and the
cells' unroll give the same outputs, final states and gradients of the input, the initial
states and every Parameter (under the same names), and the same exception types on bad
input (rnn_driver.py runs both sides)."""
import json

import numpy as np
import pytest

import rnn_driver as driver
from harness import oracle_case_arrays, run_oracle


@pytest.fixture(scope='module')
def oracle(tmp_path_factory):
    return run_oracle(driver.__file__, tmp_path_factory.mktemp('mxnet_rnn'))


@pytest.mark.parametrize('case', list(driver.CASES))
def test_values_and_gradients_match_mxnet(case, oracle):
    import gluonedu
    theirs = oracle_case_arrays(*oracle, case)
    ours = driver.run(gluonedu, case)
    assert sorted(ours) == sorted(theirs), 'names differ from MXNet 1.9.1\'s'
    for name, expected in theirs.items():
        np.testing.assert_allclose(ours[name], expected, rtol=1e-4, atol=2e-5,
                                   err_msg='%s of %s' % (name, case))


@pytest.mark.parametrize('case', driver.ERROR_CASES)
def test_a_mistake_raises_what_mxnet_raises(case, oracle):
    import gluonedu
    theirs = json.loads(str(oracle_case_arrays(*oracle, case)['error']))
    assert theirs != 'none', 'MXNet 1.9.1 accepted the mistake'
    assert driver.run(gluonedu, case)['error'] == theirs
