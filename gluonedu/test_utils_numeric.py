"""Test data and checks of MXNet's ``mx.test_utils`` for linear algebra and samplers:
large-tensor constructors, random matrices with known spectra, chi-square tests of random
generators. :mod:`gluonedu.test_utils` exports them; the random ones draw from NumPy's
global generator, as MXNet's do.
"""
import numpy as np

from . import ndarray as nd

__all__ = ['create_2d_tensor', 'create_vector', 'get_identity_mat', 'get_identity_mat_batch',
           'new_matrix_with_real_eigvals_2d', 'new_matrix_with_real_eigvals_nd',
           'new_orthonormal_matrix_2d', 'new_sym_matrix_with_real_eigvals_2d',
           'new_sym_matrix_with_real_eigvals_nd', 'gen_buckets_probs_with_ppf',
           'chi_square_check', 'verify_generator']


def create_2d_tensor(rows, columns, dtype=np.int64):
    """A ``(rows, columns)`` NDArray whose row ``i`` holds ``i``."""
    column = nd.arange(0, rows, dtype=dtype).reshape(rows, 1)
    return nd.broadcast_to(column, shape=(rows, columns))


def create_vector(size, dtype=np.int64):
    """``0, 1, ..., size - 1`` as an NDArray."""
    return nd.arange(0, size, dtype=dtype)


def get_identity_mat(size):
    """The ``size × size`` identity matrix (float32 NDArray)."""
    return nd.array(np.eye(size))


def get_identity_mat_batch(size):
    """Two identity matrices, shape ``(2, size, size)``."""
    return nd.array(np.stack([np.eye(size)] * 2))


def new_matrix_with_real_eigvals_2d(n):
    """A well-conditioned ``n × n`` matrix ``Q⁻¹ D Q`` with real eigenvalues ``D`` in
    [-10, 10): ``Q`` a reflection times a diagonal, drawn until its condition number is
    below 3."""
    eye = np.eye(n)
    while True:
        scale = np.diag(np.random.uniform(-1.0, 1.0, n))
        v = np.random.uniform(-1., 1., n).reshape(n, 1)
        v = v / np.linalg.norm(v, axis=-2, keepdims=True)
        q = np.matmul(eye - 2 * np.matmul(v, v.T), scale)
        if np.linalg.cond(q, 2) < 3:
            break
    eigenvalues = np.diag(np.random.uniform(-10.0, 10.0, n))
    return np.matmul(np.matmul(np.linalg.inv(q), eigenvalues), q)


def new_orthonormal_matrix_2d(n):
    """An ``n × n`` orthonormal matrix: the Q of the QR factorisation of ``XᵀX``, ``X``
    standard normal."""
    x = np.random.randn(n, n)
    return np.linalg.qr(np.matmul(x.T, x))[0]


def new_sym_matrix_with_real_eigvals_2d(n):
    """A symmetric ``n × n`` matrix ``Qᵀ D Q`` with eigenvalues ``D`` in [-10, 10)."""
    q = new_orthonormal_matrix_2d(n)
    eigenvalues = np.diag(np.random.uniform(-10.0, 10.0, n))
    return np.matmul(np.matmul(q.T, eigenvalues), q)


def _batch_of(make, shape):
    count = int(np.prod(shape[:-2])) if len(shape) > 2 else 1
    return np.array([make(shape[-1]) for _ in range(count)]).reshape(shape)


def new_matrix_with_real_eigvals_nd(shape):
    """A batch of :func:`new_matrix_with_real_eigvals_2d` matrices of ``shape``."""
    return _batch_of(new_matrix_with_real_eigvals_2d, shape)


def new_sym_matrix_with_real_eigvals_nd(shape):
    """A batch of :func:`new_sym_matrix_with_real_eigvals_2d` matrices of ``shape``."""
    return _batch_of(new_sym_matrix_with_real_eigvals_2d, shape)


def gen_buckets_probs_with_ppf(ppf, nbuckets):
    """``nbuckets`` equally likely buckets ``(ppf(i/n), ppf((i+1)/n))`` of a distribution
    given by its quantile function ``ppf``, and their probabilities ``1/n``."""
    if not nbuckets > 0:
        raise AssertionError('gen_buckets_probs_with_ppf needs at least one bucket')
    probs = [1.0 / nbuckets for _ in range(nbuckets)]
    buckets = [(ppf(i / float(nbuckets)), ppf((i + 1) / float(nbuckets)))
               for i in range(nbuckets)]
    return buckets, probs


def chi_square_check(generator, buckets, probs, nsamples=1000000):
    """Pearson's chi-square test of ``generator(nsamples)`` against the ``probs`` of
    ``buckets``: ``(p value, observed counts, expected counts)``.

    Buckets are ``(low, high)`` ranges (continuous samples; ordered, not overlapping) or
    the values a discrete generator draws.
    """
    try:
        import scipy.stats   # here, not at the top: it takes a second to import
    except ImportError:
        raise ImportError('chi_square_check needs SciPy: pip install scipy') from None
    if not isinstance(buckets, list) or len(probs) != len(buckets):
        raise AssertionError('chi_square_check takes a list of buckets and one probability '
                             'per bucket')
    samples = generator(nsamples)
    expected = (nsamples * np.array(probs, dtype=np.float32)).astype(np.int32)
    if isinstance(buckets[0], (list, tuple)):
        edges = np.array(buckets, dtype=np.float32).ravel()
        if np.any(np.diff(edges) < 0):
            raise AssertionError('the buckets must be ordered ranges that do not overlap')
        ids = np.searchsorted(edges, samples, side='right') // 2
        observed = np.array([(ids == i).sum() for i in range(len(buckets))], dtype=np.int64)
    else:
        samples = np.array(samples)
        observed = np.array([(samples == b).sum() for b in buckets], dtype=np.int64)
    _, p = scipy.stats.chisquare(f_obs=observed, f_exp=expected)
    return p, observed, expected


def verify_generator(generator, buckets, probs, nsamples=1000000, nrepeat=5, success_rate=0.2,
                     alpha=0.05):
    """Run :func:`chi_square_check` ``nrepeat`` times; AssertionError unless at least
    ``success_rate`` of them have ``p > alpha``. Returns the p values."""
    runs = [chi_square_check(generator, buckets, probs, nsamples) for _ in range(nrepeat)]
    p_values = [p for p, _, _ in runs]
    if (np.array(p_values) > alpha).sum() < nrepeat * success_rate:
        raise AssertionError('Generator test fails, Chi-square p=%s, obs_freq=%s, '
                             'expected_freq=%s.\nbuckets=%s, probs=%s'
                             % (p_values, [o for _, o, _ in runs], [e for _, _, e in runs],
                                buckets, probs))
    return p_values
