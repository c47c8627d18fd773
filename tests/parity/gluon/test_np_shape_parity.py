"""NumPy shape semantics (np_shape_driver): MXNet's test_np_shape_parameters, the switch
through scopes, decorators and threads, shape_is_known and the errors, as MXNet 1.9.1."""
import json

import pytest

import np_shape_driver as driver
from harness import run_oracle


@pytest.fixture(scope='module')
def mxnet_outcomes(tmp_path_factory):
    results, _ = run_oracle(driver.__file__, tmp_path_factory.mktemp('mxnet_np_shape'))
    return {case: json.loads(str(results[case])) for case in driver.CASES}


@pytest.mark.parametrize('case', driver.CASES)
def test_np_shape_as_in_mxnet(case, mxnet_outcomes):
    import gluonedu
    assert json.loads(json.dumps(driver.run(gluonedu, case))) == mxnet_outcomes[case]
