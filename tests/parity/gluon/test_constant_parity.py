"""A Constant in a trained Block (constant_driver): the same warnings, constant, input
gradient and grad_req as MXNet 1.9.1."""
import json

import pytest

import constant_driver as driver
from harness import run_oracle


@pytest.fixture(scope='module')
def mxnet_outcomes(tmp_path_factory):
    results, _ = run_oracle(driver.__file__, tmp_path_factory.mktemp('mxnet_constant'))
    return {case: json.loads(str(results[case])) for case in driver.CASES}


@pytest.mark.parametrize('case', driver.CASES)
def test_a_constant_trains_as_in_mxnet(case, mxnet_outcomes):
    import gluonedu
    assert driver.run(gluonedu, case) == mxnet_outcomes[case]
