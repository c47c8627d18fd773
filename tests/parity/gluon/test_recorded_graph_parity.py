"""autograd.get_symbol of hybridized blocks (recorded_graph_driver): the graphs MXNet 1.9.1
records — inlined or one _CachedOp node, their names, attributes and gradients."""
import json

import pytest

import recorded_graph_driver as driver
from harness import run_oracle


@pytest.fixture(scope='module')
def mxnet_outcomes(tmp_path_factory):
    results, _ = run_oracle(driver.__file__, tmp_path_factory.mktemp('mxnet_recorded_graph'))
    return {case: json.loads(str(results[case])) for case in driver.CASES}


@pytest.mark.parametrize('case', driver.CASES)
def test_the_recorded_graph_is_mxnets(case, mxnet_outcomes):
    import gluonedu
    assert driver.run(gluonedu, case) == mxnet_outcomes[case]
