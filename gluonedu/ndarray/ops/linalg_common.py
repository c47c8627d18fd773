"""What MXNet's batched linear-algebra operators (``nd.linalg.*``) share.

Each operator works on the last two axes of its inputs (a stack of matrices; the leading
axes are the batch), in float32 or float64 as MXNet's LAPACK-backed kernels, and is in the
table as ``_linalg_<name>`` with the alias ``linalg_<name>`` (``nd.linalg.<name>`` is the
same operator; see :mod:`gluonedu.ndarray.linalg`).
"""
from ...base import MXNetError
from ..registry import Op, add

#: MXNet's linalg kernels run in single or double precision only.
LAPACK_DTYPES = ('float32', 'float64')


def declare(short, forward, inputs=('A',), params=(), alias=True, **options):
    """Put ``_linalg_<short>`` in the table (with the alias ``linalg_<short>``)."""
    add(Op('_linalg_' + short, forward, inputs, params=params,
           aliases=('linalg_' + short,) if alias else (), dtypes=LAPACK_DTYPES, **options))


def T(a):
    """The transpose of each matrix of a stack."""
    return a.swapaxes(-1, -2)


def check_matrices(name, *arrays):
    """MXNetError unless each array is a stack of matrices (at least 2 axes)."""
    for a in arrays:
        if a.ndim < 2:
            raise MXNetError('%s: an input of shape %s is no matrix: it needs at least 2 '
                             'dimensions (..., rows, columns)' % (name, a.shape))


def check_square(name, *arrays):
    """MXNetError unless each array is a stack of square matrices."""
    check_matrices(name, *arrays)
    for a in arrays:
        if a.shape[-1] != a.shape[-2]:
            raise MXNetError('%s: the input of shape %s must be a stack of square matrices '
                             '(its last two dimensions equal)' % (name, a.shape))


def check_batches(name, *arrays):
    """MXNetError unless the arrays share their batch (leading) axes."""
    batch = arrays[0].shape[:-2]
    for a in arrays[1:]:
        if a.ndim != arrays[0].ndim or a.shape[:-2] != batch:
            raise MXNetError('%s: inputs of shapes %s must have the same leading (batch) '
                             'dimensions' % (name, ', '.join(str(x.shape) for x in arrays)))


def triangle(xp, a, lower, offset=0):
    """The lower (or upper) triangle of each matrix from diagonal ``offset``, zeros
    elsewhere."""
    return xp.tril(a, offset) if lower else xp.triu(a, offset)


def solve_triangular(xp, t, b, lower):
    """X with t @ X = b for triangular ``t`` (batched), by substitution, row by row.

    As LAPACK's trsm, a zero on the diagonal gives inf/nan instead of an error.
    """
    n = t.shape[-1]
    x = xp.zeros(t.shape[:-2] + b.shape[-2:], dtype=b.dtype)
    rows = range(n) if lower else range(n - 1, -1, -1)
    for i in rows:
        done = slice(0, i) if lower else slice(i + 1, n)
        known = t[..., i:i + 1, done] @ x[..., done, :]
        x[..., i, :] = (b[..., i, :] - known[..., 0, :]) / t[..., i, i, None]
    return x


def batch_result(values):
    """A per-matrix result of shape (batch...): MXNet gives a single matrix's as (1,)."""
    return values.reshape(1) if values.ndim == 0 else values
