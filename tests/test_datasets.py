"""gluonedu.toy_data (mx.data): the seeded synthetic teaching sets and the bundled digits."""
import numpy as np
import pytest

import gluonedu as mx
from gluonedu import gluon

CLASSIFICATION_SETS = [
    ('blobs', lambda **kw: mx.data.blobs(n=301, centers=3, **kw), 3),
    ('two_moons', lambda **kw: mx.data.two_moons(n=201, **kw), 2),
    ('spirals', lambda **kw: mx.data.spirals(n=301, classes=3, **kw), 3),
]


@pytest.mark.parametrize('name,make,classes', CLASSIFICATION_SETS,
                         ids=[c[0] for c in CLASSIFICATION_SETS])
def test_classification_sets_shapes_dtypes_and_balance(name, make, classes):
    X, y = make(seed=0)
    n = len(y)
    assert X.shape == (n, 2) and X.dtype == np.float32
    assert y.shape == (n,) and y.dtype == np.float32
    counts = np.bincount(y.astype(int))
    assert len(counts) == classes and counts.max() - counts.min() <= 1
    # shuffled: the labels are not sorted by class
    assert (np.diff(y) != 0).sum() > classes


@pytest.mark.parametrize('name,make,classes', CLASSIFICATION_SETS,
                         ids=[c[0] for c in CLASSIFICATION_SETS])
def test_classification_sets_are_deterministic_given_seed(name, make, classes):
    X1, y1 = make(seed=5)
    X2, y2 = make(seed=5)
    X3, _ = make(seed=6)
    np.testing.assert_array_equal(X1, X2)
    np.testing.assert_array_equal(y1, y2)
    assert not np.array_equal(X1, X3)


def test_linear_regression_follows_its_model():
    X, y = mx.data.linear_regression(n=500, w=[1.5, -2.0, 0.5], b=0.3, noise=0.01, seed=0)
    assert X.shape == (500, 3) and X.dtype == np.float32
    assert y.shape == (500,) and y.dtype == np.float32
    design = np.hstack([X, np.ones((500, 1))]).astype(np.float64)
    coef, *_ = np.linalg.lstsq(design, y.astype(np.float64), rcond=None)
    np.testing.assert_allclose(coef, [1.5, -2.0, 0.5, 0.3], atol=0.01)
    residual = y - (X @ np.array([1.5, -2.0, 0.5], np.float32) + 0.3)
    assert residual.std() == pytest.approx(0.01, rel=0.2)


def test_linear_regression_defaults_and_determinism():
    X, y = mx.data.linear_regression()
    assert X.shape == (1000, 2) and y.shape == (1000,)
    X2, y2 = mx.data.linear_regression()
    np.testing.assert_array_equal(X, X2)
    np.testing.assert_array_equal(y, y2)


def test_blobs_with_given_centers_clusters_around_them():
    centers = np.array([[0., 0., 0.], [10., 10., 10.]])
    X, y = mx.data.blobs(n=400, centers=centers, std=0.5, seed=1)
    assert X.shape == (400, 3)
    for k in range(2):
        np.testing.assert_allclose(X[y == k].mean(axis=0), centers[k], atol=0.15)
        assert X[y == k].std(axis=0) == pytest.approx([0.5] * 3, rel=0.2)
    with pytest.raises(ValueError):
        mx.data.blobs(centers=np.zeros(3))


def test_two_moons_without_noise_lies_on_two_half_circles():
    X, y = mx.data.two_moons(n=100, noise=0.0, seed=0)
    upper, lower = X[y == 0], X[y == 1]
    np.testing.assert_allclose(np.hypot(*upper.T), 1.0, atol=1e-6)
    np.testing.assert_allclose(np.hypot(lower[:, 0] - 1, lower[:, 1] - 0.5), 1.0, atol=1e-6)
    assert (upper[:, 1] >= -1e-6).all() and (lower[:, 1] <= 0.5 + 1e-6).all()


def test_spirals_radius_stays_in_unit_disc():
    X, y = mx.data.spirals(n=300, classes=4, seed=0)
    assert set(np.unique(y)) == {0., 1., 2., 3.}
    assert np.hypot(*X.T).max() <= 1.0 + 1e-6


def test_synthetic_sets_feed_array_dataset_and_dataloader():
    X, y = mx.data.two_moons(n=50, seed=0)
    loader = gluon.data.DataLoader(gluon.data.ArrayDataset(X, y), batch_size=20)
    shapes = [(data.shape, label.shape, label.dtype) for data, label in loader]
    assert shapes == [((20, 2), (20,), np.float32)] * 2 + [((10, 2), (10,), np.float32)]


# ---------------------------------------------------------------------- digits
def test_digits_loads_all_1797_samples():
    pytest.importorskip('sklearn')
    X, y = mx.data.digits()
    assert X.shape == (1797, 64) and X.dtype == np.float32
    assert y.shape == (1797,) and y.dtype == np.float32
    assert X.min() == 0.0 and X.max() == 1.0
    assert set(np.unique(y)) == set(float(k) for k in range(10))


def test_digits_images_and_seeded_split():
    pytest.importorskip('sklearn')
    X_all, y_all = mx.data.digits()
    images, _ = mx.data.digits(flatten=False)
    assert images.shape == (1797, 1, 8, 8)
    np.testing.assert_array_equal(images.reshape(1797, 64), X_all)

    (X_train, y_train), (X_test, y_test) = mx.data.digits(test_size=0.2, seed=3)
    assert len(y_test) == round(0.2 * 1797) and len(y_train) + len(y_test) == 1797
    assert X_train.shape[1:] == (64,)
    again = mx.data.digits(test_size=0.2, seed=3)
    np.testing.assert_array_equal(again[1][0], X_test)
    other = mx.data.digits(test_size=0.2, seed=4)
    assert not np.array_equal(other[1][0], X_test)
    (_, _), (_, y_count) = mx.data.digits(test_size=100)
    assert len(y_count) == 100
    with pytest.raises(ValueError):
        mx.data.digits(test_size=0)
