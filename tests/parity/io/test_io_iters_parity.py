"""mx.io's iterators yield MXNet 1.9.1's batches (values, dtypes, storage, pads, indices,
provide_data/provide_label) and raise its exception types on bad input
(io_iters_driver runs the same cases on both sides, each in its own directory)."""
import json
import os

import pytest

import io_iters_driver as driver
from harness import run_oracle


@pytest.fixture(scope='module')
def mxnet_outcomes(tmp_path_factory):
    results, _ = run_oracle(driver.__file__, tmp_path_factory.mktemp('mxnet_io_iters'))
    return {name: json.loads(str(value)) for name, value in results.items()}


@pytest.fixture(scope='module')
def gluonedu_outcomes(tmp_path_factory):
    import gluonedu
    workdir = tmp_path_factory.mktemp('gluonedu_io_iters')
    previous = os.getcwd()
    os.chdir(workdir)  # the cases write their files in the current directory
    try:
        outcomes = driver.run(gluonedu)
    finally:
        os.chdir(previous)
    return json.loads(json.dumps(outcomes))  # tuples become lists, as on the oracle's side


def case_names():
    import gluonedu
    return sorted(driver.all_cases(gluonedu))


@pytest.mark.parametrize('case', case_names())
def test_the_case_goes_as_on_mxnet(case, mxnet_outcomes, gluonedu_outcomes):
    assert gluonedu_outcomes[case] == mxnet_outcomes[case]


@pytest.mark.parametrize('case', sorted(driver.DIVERGENT))
def test_bad_input_mxnet_takes_silently_raises(case, mxnet_outcomes, gluonedu_outcomes):
    expected, _ = driver.DIVERGENT[case]
    assert 'result' in mxnet_outcomes[case], 'MXNet 1.9.1 raises now: compare the types'
    assert gluonedu_outcomes[case] == {'raised': expected}
