"""Small, seeded data sets for teaching (``mx.data``, this module; not part of MXNet).

Every function returns NumPy arrays on the host, float32 features and float32 targets,
and is deterministic given ``seed`` (``seed=None`` draws fresh randomness). Targets of
classification sets are class indices stored as float32 (0., 1., ...), MXNet's own
convention, so they work directly with ``SoftmaxCrossEntropyLoss``,
``SigmoidBinaryCrossEntropyLoss`` and ``(out.argmax(axis=1) == label)``.

Wrap them for training with ``gluon.data.ArrayDataset``::

    X, y = mx.data.two_moons(n=200, seed=0)
    loader = gluon.data.DataLoader(gluon.data.ArrayDataset(X, y), batch_size=32, shuffle=True)

The classification sets come shuffled, so even an unshuffled loader sees mixed classes.
"""
import numpy as np

__all__ = ['linear_regression', 'blobs', 'two_moons', 'spirals', 'digits']


def _shuffled(rng, features, labels):
    order = rng.permutation(len(labels))
    return (features[order].astype(np.float32, copy=False),
            labels[order].astype(np.float32, copy=False))


def _class_sizes(n, num_classes):
    """``n`` split into ``num_classes`` sizes differing by at most one (the first larger)."""
    base, extra = divmod(n, num_classes)
    return [base + 1 if k < extra else base for k in range(num_classes)]


def linear_regression(n=1000, w=(2.0, -3.4), b=4.2, noise=0.01, seed=0):
    """Samples of a noisy linear model ``y = X·w + b + ε``.

    ``X`` has i.i.d. standard normal entries and ``ε ~ N(0, noise²)``.

    Parameters
    ----------
    n : int, default 1000
        Number of samples.
    w : sequence of float, default (2.0, -3.4)
        The true weights; their number is the number of features ``d``.
    b : float, default 4.2
        The true bias.
    noise : float, default 0.01
        Standard deviation of the additive noise.
    seed : int or None, default 0

    Returns
    -------
    X : numpy.ndarray, float32, shape (n, d)
    y : numpy.ndarray, float32, shape (n,)
    """
    rng = np.random.default_rng(seed)
    w = np.asarray(w, dtype=np.float64).reshape(-1)
    X = rng.standard_normal((n, w.size))
    y = X @ w + b + noise * rng.standard_normal(n)
    return X.astype(np.float32), y.astype(np.float32)


def blobs(n=300, centers=3, dim=2, std=1.0, center_box=(-5.0, 5.0), seed=0):
    """Gaussian clusters: class ``k`` is ``N(center_k, std² I)``.

    Parameters
    ----------
    n : int, default 300
        Number of samples, split as evenly as possible between the classes.
    centers : int or array-like of shape (k, dim), default 3
        The number of clusters (their centers drawn uniformly in ``center_box`` along each
        axis), or the centers themselves.
    dim : int, default 2
        Number of features (ignored when ``centers`` gives the centers).
    std : float, default 1.0
        Standard deviation of every cluster.
    center_box : (float, float), default (-5.0, 5.0)
    seed : int or None, default 0

    Returns
    -------
    X : numpy.ndarray, float32, shape (n, dim)
    y : numpy.ndarray, float32, shape (n,), values 0., ..., k - 1.
    """
    rng = np.random.default_rng(seed)
    if np.isscalar(centers):
        low, high = center_box
        centers = rng.uniform(low, high, size=(int(centers), dim))
    centers = np.asarray(centers, dtype=np.float64)
    if centers.ndim != 2:
        raise ValueError("centers must be a number of clusters or an array of shape "
                         "(clusters, dim), got shape %s" % (centers.shape,))
    sizes = _class_sizes(n, len(centers))
    X = np.concatenate([c + std * rng.standard_normal((m, centers.shape[1]))
                        for c, m in zip(centers, sizes)])
    y = np.repeat(np.arange(len(centers)), sizes)
    return _shuffled(rng, X, y)


def two_moons(n=200, noise=0.1, seed=0):
    """Two interleaved half circles: not linearly separable, a classic for MLPs.

    Class 0 lies on the upper unit half circle ``(cos t, sin t)``, class 1 on the lower
    one shifted to ``(1 − cos t, 0.5 − sin t)``, ``t ∈ [0, π]``; Gaussian noise of
    standard deviation ``noise`` is added to both coordinates.

    Returns
    -------
    X : numpy.ndarray, float32, shape (n, 2)
    y : numpy.ndarray, float32, shape (n,), values 0. and 1.
    """
    rng = np.random.default_rng(seed)
    n_upper, n_lower = _class_sizes(n, 2)
    t_upper = np.linspace(0, np.pi, n_upper)
    t_lower = np.linspace(0, np.pi, n_lower)
    X = np.concatenate([np.stack([np.cos(t_upper), np.sin(t_upper)], axis=1),
                        np.stack([1 - np.cos(t_lower), 0.5 - np.sin(t_lower)], axis=1)])
    X = X + noise * rng.standard_normal(X.shape)
    y = np.repeat([0, 1], [n_upper, n_lower])
    return _shuffled(rng, X, y)


def spirals(n=300, classes=3, noise=0.2, seed=0):
    """Interleaved spiral arms, one per class (the CS231n toy problem).

    Along arm ``k`` the radius ``r`` grows linearly from 0 to 1 while the angle runs over
    ``[4k, 4(k + 1)]`` radians plus Gaussian noise of std ``noise``; a point is
    ``r · (sin θ, cos θ)``.

    Returns
    -------
    X : numpy.ndarray, float32, shape (n, 2)
    y : numpy.ndarray, float32, shape (n,), values 0., ..., classes - 1.
    """
    rng = np.random.default_rng(seed)
    sizes = _class_sizes(n, classes)
    arms = []
    for k, m in enumerate(sizes):
        radius = np.linspace(0.0, 1.0, m)
        angle = np.linspace(4.0 * k, 4.0 * (k + 1), m) + noise * rng.standard_normal(m)
        arms.append(np.stack([radius * np.sin(angle), radius * np.cos(angle)], axis=1))
    X = np.concatenate(arms)
    y = np.repeat(np.arange(classes), sizes)
    return _shuffled(rng, X, y)


def digits(test_size=None, flatten=True, seed=0):
    """The 8×8 handwritten digits bundled with scikit-learn (1797 images, 10 classes).

    Read from scikit-learn's own copy (``sklearn.datasets.load_digits``): nothing is
    downloaded. Pixel values 0..16 are scaled to [0, 1].

    Parameters
    ----------
    test_size : None, float in (0, 1) or int, default None
        None returns all samples in scikit-learn's order. Otherwise the samples are
        shuffled with ``seed`` and split: a float is the fraction, an int the number, of
        test samples.
    flatten : bool, default True
        Features of shape (64,) per image; ``False`` gives images of shape (1, 8, 8)
        (channel first, for convolutions).
    seed : int or None, default 0
        Seed of the shuffle before the split.

    Returns
    -------
    (X, y) if ``test_size`` is None, else ``((X_train, y_train), (X_test, y_test))``:
        ``X`` float32 of shape (m, 64) or (m, 1, 8, 8) with values in [0, 1];
        ``y`` float32 of shape (m,) with values 0., ..., 9.
    """
    try:
        from sklearn.datasets import load_digits
    except ImportError as err:
        raise ImportError("mx.data.digits() reads the copy of the digits bundled with "
                          "scikit-learn; install it with `pip install scikit-learn`") from err
    bunch = load_digits()
    X = (bunch.data / 16.0).astype(np.float32)
    y = bunch.target.astype(np.float32)
    if not flatten:
        X = X.reshape(-1, 1, 8, 8)
    if test_size is None:
        return X, y
    n = len(y)
    n_test = int(round(test_size * n)) if isinstance(test_size, float) else int(test_size)
    if not 0 < n_test < n:
        raise ValueError("test_size must leave both parts non-empty: a fraction in (0, 1) "
                         "or a count in [1, %d], got %r" % (n - 1, test_size))
    order = np.random.default_rng(seed).permutation(n)
    test, train = order[:n_test], order[n_test:]
    return (X[train], y[train]), (X[test], y[test])
