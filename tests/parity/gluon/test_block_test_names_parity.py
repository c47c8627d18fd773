"""Names MXNet's own Block tests import (block_test_names_driver): py_str, is_np_array and
the storage-type ids give MXNet 1.9.1's values and errors."""
import json

import pytest

import block_test_names_driver as driver
from harness import run_oracle


@pytest.fixture(scope='module')
def mxnet_outcomes(tmp_path_factory):
    results, _ = run_oracle(driver.__file__, tmp_path_factory.mktemp('mxnet_block_test_names'))
    return {case: json.loads(str(results[case])) for case in driver.CASES}


@pytest.mark.parametrize('case', driver.CASES)
def test_the_name_behaves_as_in_mxnet(case, mxnet_outcomes):
    import gluonedu
    assert json.loads(json.dumps(driver.run(gluonedu, case))) == mxnet_outcomes[case]
