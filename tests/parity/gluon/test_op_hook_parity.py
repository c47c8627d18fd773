"""HybridBlock.register_op_hook (op_hook_driver): the names, operator names, order and
values MXNet 1.9.1's CachedOp reports, when it reports them, and what it does with a
failing callback."""
import json

import pytest

import op_hook_driver as driver
from harness import run_oracle


@pytest.fixture(scope='module')
def mxnet_outcomes(tmp_path_factory):
    results, _ = run_oracle(driver.__file__, tmp_path_factory.mktemp('mxnet_op_hook'))
    return {case: json.loads(str(results[case])) for case in driver.CASES}


@pytest.mark.parametrize('case', driver.CASES)
def test_the_op_hook_reports_as_mxnet(case, mxnet_outcomes):
    import gluonedu
    assert driver.run(gluonedu, case) == mxnet_outcomes[case]
