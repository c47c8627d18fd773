"""NaN/±Inf gradients against MXNet 1.9.1 (nonfinite_driver): clip_global_norm returns
MXNet's norm and warns as MXNet does, but leaves the arrays as they were where MXNet
scales them into NaN or zeros (docs/divergences.md); a Trainer step makes MXNet's
update, NaN included, and adds a RuntimeWarning MXNet does not give."""
import json

import numpy as np
import pytest

import nonfinite_driver as driver
from harness import run_oracle


@pytest.fixture(scope='module')
def mxnet_outcomes(tmp_path_factory):
    results, _ = run_oracle(driver.__file__, tmp_path_factory.mktemp('mxnet_nonfinite'))
    outcomes = {case: {} for case in driver.CASES}
    for key, value in results.items():
        case, name = key.split('/')
        outcomes[case][name] = value
    return outcomes


@pytest.fixture(scope='module')
def gluonedu_outcomes():
    import gluonedu
    return {case: driver.run(gluonedu, case) for case in driver.CASES}


def _warnings(outcome):
    return json.loads(str(outcome['warnings']))


@pytest.mark.parametrize('case', driver.CLIPS)
def test_clip_global_norm_returns_and_warns_as_mxnet(case, mxnet_outcomes, gluonedu_outcomes):
    theirs, ours = mxnet_outcomes[case], gluonedu_outcomes[case]
    np.testing.assert_allclose(ours['total'], theirs['total'], rtol=1e-6)  # nan == nan
    assert _warnings(ours) == _warnings(theirs)
    first, check_isfinite = driver.CLIPS[case]
    assert _warnings(ours) == (['UserWarning'] if check_isfinite and
                               not np.isfinite(first).all() else [])


def test_clip_global_norm_of_finite_arrays_is_mxnets(mxnet_outcomes, gluonedu_outcomes):
    theirs, ours = mxnet_outcomes['clip finite'], gluonedu_outcomes['clip finite']
    for name in ('a', 'b'):
        np.testing.assert_allclose(ours[name], theirs[name], rtol=1e-6)


@pytest.mark.parametrize('case', [c for c in driver.CLIPS if c != 'clip finite'])
def test_clip_global_norm_leaves_arrays_as_they_were_where_mxnet_spoils_them(
        case, mxnet_outcomes, gluonedu_outcomes):
    theirs, ours = mxnet_outcomes[case], gluonedu_outcomes[case]
    first = np.array(driver.CLIPS[case][0], dtype=np.float32)
    np.testing.assert_array_equal(ours['a'], first)
    np.testing.assert_array_equal(ours['b'], [30., 40.])
    # the divergence: MXNet scales by max_norm / norm, NaN (a NaN norm) or 0 (an inf one)
    assert np.isnan(theirs['b']).all() or (theirs['b'] == 0).all()


def test_a_trainer_step_updates_as_mxnet_and_warns(mxnet_outcomes, gluonedu_outcomes):
    theirs, ours = mxnet_outcomes['trainer step'], gluonedu_outcomes['trainer step']
    for name in ('weight1', 'bias1', 'weight2', 'bias2'):
        np.testing.assert_allclose(ours[name], theirs[name], rtol=1e-6)   # NaN where MXNet's
    assert np.isnan(theirs['weight1'][0, 1]) and np.isnan(theirs['weight2'][0]).all()
    assert _warnings(theirs) == []
    assert _warnings(ours) == ['RuntimeWarning'] * 2   # the weight at step 1, the bias at 2
