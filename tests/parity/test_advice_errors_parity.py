"""The three mistakes of advice_errors_driver raise MXNet 1.9.1's exception types at the
same stage, whatever gluonedu's messages add."""
import json

import pytest

import advice_errors_driver as driver
from conftest import HERE, load_oracle_npz, run_oracle


@pytest.fixture(scope='module')
def mxnet_outcomes(tmp_path_factory):
    workdir = tmp_path_factory.mktemp('mxnet_advice_errors')
    results_path = workdir / 'results.npz'
    run_oracle(HERE / 'advice_errors_driver.py', [results_path], workdir, results_path)
    results, _ = load_oracle_npz(results_path)
    return {case: json.loads(str(results[case])) for case in driver.CASES}


@pytest.mark.parametrize('case', driver.CASES)
def test_a_mistake_raises_what_mxnet_raises_where_it_raises_it(case, mxnet_outcomes):
    import gluonedu
    assert mxnet_outcomes[case][0] is not None, 'MXNet 1.9.1 accepted the mistake'
    assert driver.run(gluonedu, case) == mxnet_outcomes[case]
