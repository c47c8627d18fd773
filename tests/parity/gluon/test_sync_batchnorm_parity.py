"""gluon.contrib.nn.SyncBatchNorm over several CPU contexts (sync_batchnorm_driver): the
outputs, gradients and running statistics of MXNet 1.9.1, and MXNet's own
test_sync_batchnorm."""
import json

import numpy as np
import pytest

import sync_batchnorm_driver as driver
from harness import run_oracle

CASES = list(driver.CASES) + ['mxnet_test_sync_batchnorm', 'threads_residual']


@pytest.fixture(scope='module')
def mxnet_outcomes(tmp_path_factory):
    # MXNet's operator waits until every slice has arrived: the NaiveEngine, which runs
    # each call at once, would wait forever.
    results, _ = run_oracle(driver.__file__, tmp_path_factory.mktemp('mxnet_sync_batchnorm'),
                            naive_engine=False)
    return {case: json.loads(str(results[case])) for case in CASES}


@pytest.fixture(scope='module')
def gluonedu_outcomes():
    import gluonedu
    return json.loads(json.dumps(driver.run_all(gluonedu)))


@pytest.mark.parametrize('case', CASES)
def test_sync_batchnorm_as_in_mxnet(case, mxnet_outcomes, gluonedu_outcomes):
    mine, theirs = gluonedu_outcomes[case], mxnet_outcomes[case]
    assert sorted(mine) == sorted(theirs)
    for name, value in theirs.items():
        if isinstance(value, (str, bool)):
            assert mine[name] == value, name
        else:
            np.testing.assert_allclose(mine[name], value, rtol=1e-4, atol=1e-5, err_msg=name)
