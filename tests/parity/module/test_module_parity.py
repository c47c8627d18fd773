"""mx.mod.Module (module_driver): the multipliers, trained parameters, score, predict and
misuse errors of MXNet 1.9.1, MXNet's test_lr_wd_mult and test_nadam among the cases."""
import json

import numpy as np
import pytest

import module_driver as driver
from harness import run_oracle


@pytest.fixture(scope='module')
def mxnet_outcomes(tmp_path_factory):
    results, _ = run_oracle(driver.__file__, tmp_path_factory.mktemp('mxnet_module'))
    return {case: json.loads(str(results[case])) for case in driver.CASES}


def _assert_same(ours, theirs, where):
    """Equal structure and names; numbers equal to float32 rounding."""
    if isinstance(theirs, dict):
        assert sorted(ours) == sorted(theirs), where
        for key in theirs:
            _assert_same(ours[key], theirs[key], '%s.%s' % (where, key))
    elif isinstance(theirs, list):
        assert len(ours) == len(theirs), where
        for i, (mine, other) in enumerate(zip(ours, theirs)):
            _assert_same(mine, other, '%s[%d]' % (where, i))
    elif isinstance(theirs, float):
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6, err_msg=where)
    else:
        assert ours == theirs, where


@pytest.mark.parametrize('case', driver.CASES)
def test_a_module_trains_as_in_mxnet(case, mxnet_outcomes):
    import gluonedu
    _assert_same(driver.run(gluonedu, case), mxnet_outcomes[case], case)
