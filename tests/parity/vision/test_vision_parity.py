"""``gluon.data.vision.transforms`` against MXNet 1.9.1.

* Deterministic transforms (ToTensor, Normalize, Cast, Resize over every interpolation,
  dtype and channel count, CenterCrop, CropResize, Rotate, Compose) on the same seeded
  images: the pixels must be bit-identical, float results included, dtypes too, and bad
  input must raise MXNet's exception type.
* Colour adjustments by a fixed factor (brightness, contrast, hue, lighting):
  bit-identical pixels. (Saturation follows the documented formula, not MXNet 1.9.1's: see
  docs/divergences.md and tests/gluon/test_vision_transforms.py.)
* Random transforms: 400 draws on each side, one statistic per draw (the brightness
  factor, the hue reached, which flip, ...); a two-sample Kolmogorov-Smirnov distance
  below 0.138 (α = 0.001) says the distributions agree.

The oracle runs once per session in its own interpreter.
"""
from pathlib import Path

import numpy as np
import pytest

import vision_parity_driver as driver
from harness import oracle_case_arrays, run_oracle

ORACLE_SCRIPT = Path(__file__).with_name('oracle_vision.py')
TRANSFORM_CASES = driver.transform_cases()
COLOUR_CASES = driver.colour_cases()
DISTRIBUTION_CASES = driver.distribution_cases()
KS_CRITICAL = 1.95 * np.sqrt(2 / 400)      # α = 0.001 for two samples of 400


@pytest.fixture(scope='session')
def vision_oracle(tmp_path_factory):
    """``(results, meta)`` of every vision case run once on MXNet 1.9.1."""
    return run_oracle(ORACLE_SCRIPT, tmp_path_factory.mktemp('mxnet_vision_oracle'))


def _assert_same_pixels(got, want, case_id):
    assert got.shape == want.shape, case_id
    np.testing.assert_array_equal(got, want, err_msg=case_id)


@pytest.mark.parametrize('case', TRANSFORM_CASES, ids=[c['id'] for c in TRANSFORM_CASES])
def test_transform_matches_mxnet(case, vision_oracle):
    import gluonedu
    expected = oracle_case_arrays(*vision_oracle, case['id'])
    got = driver.run_transform_case(gluonedu, case)
    if 'error' in expected or 'error' in got:
        assert str(got.get('error')) == str(expected.get('error')), case['id']
        return
    assert str(got['dtype']) == str(expected['dtype'])
    _assert_same_pixels(got['out'], expected['out'], case['id'])


def _gluonedu_adjust(kind, image, alpha):
    import gluonedu
    from gluonedu.gluon.data.vision import _image
    x = gluonedu.nd.array(image, dtype=image.dtype)
    if kind == 'lighting':
        return _image.adjust_lighting(x, alpha).asnumpy()
    return _image.adjust(x, [(kind, alpha)], 'test').asnumpy()


@pytest.mark.parametrize('case', COLOUR_CASES, ids=[c['id'] for c in COLOUR_CASES])
def test_colour_adjustment_matches_mxnet(case, vision_oracle):
    expected = oracle_case_arrays(*vision_oracle, case['id'])['out']
    got = driver.run_colour_case(_gluonedu_adjust, case)['out']
    assert got.dtype == expected.dtype
    _assert_same_pixels(got, expected, case['id'])


def _ks_distance(a, b):
    values = np.sort(np.concatenate([a, b]))
    cdf_a = np.searchsorted(np.sort(a), values, side='right') / len(a)
    cdf_b = np.searchsorted(np.sort(b), values, side='right') / len(b)
    return np.abs(cdf_a - cdf_b).max()


@pytest.mark.parametrize('case', DISTRIBUTION_CASES, ids=[c['id'] for c in DISTRIBUTION_CASES])
def test_random_transform_has_mxnets_distribution(case, vision_oracle):
    import gluonedu
    expected = oracle_case_arrays(*vision_oracle, case['id'])['stat']
    got = driver.run_distribution_case(gluonedu, case)['stat']
    assert len(set(np.round(got, 6))) > 1, 'the transform never changed'
    assert _ks_distance(got, expected) < KS_CRITICAL, (case['id'], got.mean(), expected.mean())
