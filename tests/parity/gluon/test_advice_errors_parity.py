"""The three mistakes of advice_errors_driver raise MXNet 1.9.1's exception types at the
same stage, whatever gluonedu's messages add."""
import json

import pytest

import advice_errors_driver as driver
from harness import run_oracle


@pytest.fixture(scope='module')
def mxnet_outcomes(tmp_path_factory):
    results, _ = run_oracle(driver.__file__, tmp_path_factory.mktemp('mxnet_advice_errors'))
    return {case: json.loads(str(results[case])) for case in driver.CASES}


@pytest.mark.parametrize('case', driver.CASES)
def test_a_mistake_raises_what_mxnet_raises_where_it_raises_it(case, mxnet_outcomes):
    import gluonedu
    assert mxnet_outcomes[case][0] is not None, 'MXNet 1.9.1 accepted the mistake'
    assert driver.run(gluonedu, case) == mxnet_outcomes[case]
