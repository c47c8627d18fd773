"""Helpers for testing code written against gluonedu (MXNet's ``mx.test_utils`` subset).

The comparison functions accept NDArrays, NumPy arrays and Python scalars alike and use
MXNet 1.9.1's tolerances, which depend on the dtypes compared:

=========  ======  ======
dtype      rtol    atol
=========  ======  ======
float16    1e-2    1e-1
float32    1e-4    1e-3
float64    1e-5    1e-20
integers   0       0
=========  ======  ======

When two values of different dtypes are compared, the looser tolerance of the two is used.
"""
import numbers

import numpy as np

from .context import Context, current_context
from .ndarray import NDArray, array as _nd_array
from .ndarray import sparse as _sparse

__all__ = ['default_context', 'set_default_context', 'default_dtype', 'default_rtols',
           'default_atols', 'get_rtol', 'get_atol', 'get_tols', 'same', 'almost_equal',
           'assert_almost_equal', 'assert_exception', 'random_arrays', 'rand_ndarray',
           'rand_shape_2d', 'rand_shape_3d', 'rand_shape_nd']


def default_context():
    """The context tests run on: the current context (``cpu(0)`` unless changed)."""
    return current_context()


def set_default_context(ctx):
    """Make ``ctx`` the default context of this thread (outside any ``with ctx:`` block)."""
    if not isinstance(ctx, Context):
        raise TypeError("set_default_context() takes a Context, got %r" % (ctx,))
    Context._local.default = ctx


def default_dtype():
    """The default dtype of test data: float32."""
    return np.float32


_INT_TYPES = (np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32,
              np.int64, np.uint64)


def default_rtols():
    """Relative tolerance per dtype (MXNet 1.9.1's values)."""
    tols = {np.dtype(np.float16): 1e-2, np.dtype(np.float32): 1e-4, np.dtype(np.float64): 1e-5}
    tols.update({np.dtype(t): 0 for t in _INT_TYPES})
    return tols


def default_atols():
    """Absolute tolerance per dtype (MXNet 1.9.1's values)."""
    tols = {np.dtype(np.float16): 1e-1, np.dtype(np.float32): 1e-3,
            np.dtype(np.float64): 1e-20}
    tols.update({np.dtype(t): 0 for t in _INT_TYPES})
    return tols


def get_rtol(rtol=None, dtype=np.dtype(np.float64)):
    """``rtol`` if given, else the default relative tolerance of ``dtype``."""
    return default_rtols()[np.dtype(dtype)] if rtol is None else rtol


def get_atol(atol=None, dtype=np.dtype(np.float64)):
    """``atol`` if given, else the default absolute tolerance of ``dtype``."""
    return default_atols()[np.dtype(dtype)] if atol is None else atol


def _dtype_of(x):
    if isinstance(x, NDArray):
        return np.dtype(x.dtype)
    return np.asarray(x).dtype


def _tolerance(x, tol, defaults):
    if isinstance(tol, numbers.Number):
        return tol
    dtype = _dtype_of(x)
    tol = tol or {}
    return tol.get(dtype, defaults.get(dtype, defaults[np.dtype(np.float64)]))


def get_tols(x, y, rtol, atol):
    """The (rtol, atol) to compare ``x`` with ``y``: the looser default of their dtypes.

    ``rtol``/``atol`` may be numbers (used as given), None, or dicts dtype -> tolerance.
    """
    rtol = max(_tolerance(x, rtol, default_rtols()), _tolerance(y, rtol, default_rtols()))
    atol = max(_tolerance(x, atol, default_atols()), _tolerance(y, atol, default_atols()))
    return rtol, atol


def _to_numpy(x):
    if isinstance(x, NDArray):
        return x.asnumpy()
    return np.asarray(x)


def same(a, b):
    """Whether ``a`` and ``b`` hold exactly the same values and shape."""
    return np.array_equal(_to_numpy(a), _to_numpy(b))


def almost_equal(a, b, rtol=None, atol=None, equal_nan=False):
    """``|a - b| <= atol + rtol·|b|`` everywhere (broadcasting), as ``np.allclose``.

    Without tolerances this uses float64's defaults (as MXNet's ``almost_equal``).
    """
    return bool(np.allclose(_to_numpy(a), _to_numpy(b), rtol=get_rtol(rtol),
                            atol=get_atol(atol), equal_nan=equal_nan))


def _max_violation(a, b, rtol, atol):
    """Index and size (in tolerance units) of the worst element-wise violation."""
    with np.errstate(invalid='ignore', over='ignore'):
        diff = np.where(np.equal(a, b), 0, np.abs(a - b))
        violation = diff / (atol + rtol * np.abs(b) + 1e-20)
    violation = np.broadcast_to(violation, np.broadcast_shapes(a.shape, b.shape))
    violation = np.where(np.isnan(violation), np.inf, violation)
    index = tuple(int(i) for i in np.unravel_index(int(np.argmax(violation)), violation.shape))
    return index, float(violation[index]) if violation.size else 0.0


def assert_almost_equal(a, b, rtol=None, atol=None, names=('a', 'b'), equal_nan=False):
    """Raise AssertionError unless ``a`` and ``b`` are almost equal (see module doc).

    The message names the worst element: its index, both values and the error in units
    of the tolerance.
    """
    rtol, atol = get_tols(a, b, rtol, atol)
    a_np, b_np = _to_numpy(a), _to_numpy(b)
    if a_np.dtype == np.bool_ and b_np.dtype == np.bool_:
        np.testing.assert_equal(a_np, b_np)
        return
    try:
        np.broadcast_shapes(a_np.shape, b_np.shape)
    except ValueError:
        raise AssertionError("%s of shape %s and %s of shape %s cannot be compared"
                             % (names[0], a_np.shape, names[1], b_np.shape)) from None
    if np.allclose(a_np, b_np, rtol=rtol, atol=atol, equal_nan=equal_nan):
        return
    a64, b64 = (np.broadcast_to(x.astype(np.float64), np.broadcast_shapes(a_np.shape,
                                                                           b_np.shape))
                for x in (a_np, b_np))
    index, error = _max_violation(a64, b64, rtol, atol)
    mismatch = ~np.isclose(a64, b64, rtol=rtol, atol=atol, equal_nan=equal_nan)
    raise AssertionError(
        "Error %f exceeds tolerance rtol=%e, atol=%e (mismatch %.2f%%).\n"
        "Location of maximum error: %s, %s=%.8f, %s=%.8f\n %s: %s\n %s: %s"
        % (error, rtol, atol, 100.0 * mismatch.mean(), index, names[0], a64[index],
           names[1], b64[index], names[0], a_np, names[1], b_np))


def assert_exception(f, exception_type, *args, **kwargs):
    """Assert that ``f(*args, **kwargs)`` raises ``exception_type``."""
    try:
        f(*args, **kwargs)
    except exception_type:
        return
    raise AssertionError("%s did not raise %s"
                         % (getattr(f, '__name__', f), exception_type.__name__))


def random_arrays(*shapes):
    """Standard-normal float32 NumPy arrays of the given shapes (one array if one shape)."""
    arrays = [np.random.randn(*s).astype(default_dtype()) for s in shapes]
    return arrays[0] if len(arrays) == 1 else arrays


def rand_ndarray(shape, stype='default', density=None, dtype=None, ctx=None):
    """A random NDArray of ``shape``.

    ``stype='default'``: standard-normal values. ``stype='row_sparse'``: each row is
    stored with probability ``density`` (random in [0, 1) if None) and holds U[0, 1)
    values. ``stype='csr'`` (2-D): ``round(density * rows * cols)`` distinct random
    positions hold U[0, 1) values (no dense array is made, so huge shapes are fine).
    """
    ctx = ctx if ctx is not None else default_context()
    dtype = default_dtype() if dtype is None else dtype
    if stype == 'default':
        return _nd_array(random_arrays(tuple(shape)), ctx=ctx, dtype=dtype)
    if stype == 'row_sparse':
        density = np.random.rand() if density is None else density
        indices = np.flatnonzero(np.random.rand(shape[0]) < density)
        if indices.size == 0:
            return _sparse.zeros('row_sparse', shape, ctx=ctx, dtype=dtype)
        values = np.random.rand(indices.size, *shape[1:]).astype(dtype)
        return _sparse.row_sparse_array((values, indices), shape=shape, ctx=ctx, dtype=dtype)
    if stype == 'csr':
        return _random_csr(tuple(shape), np.random.rand() if density is None else density,
                           dtype, ctx)
    raise ValueError("rand_ndarray: unknown storage type %r: use 'default', 'row_sparse' or "
                     "'csr'" % (stype,))


def _random_csr(shape, density, dtype, ctx):
    """A csr array with ``round(density * size)`` values U[0, 1) at distinct positions."""
    if len(shape) != 2:
        raise ValueError("rand_ndarray: csr arrays are 2-D, got shape %s" % (shape,))
    size = shape[0] * shape[1]
    wanted = int(round(density * size))
    positions = np.unique(np.random.randint(0, max(size, 1), size=wanted))
    while positions.size < wanted:   # draws that collided: draw the missing ones again
        extra = np.random.randint(0, size, size=wanted - positions.size)
        positions = np.union1d(positions, extra)
    values = np.random.rand(positions.size).astype(dtype)
    return _sparse.csr_matrix((values, (positions // shape[1], positions % shape[1])),
                              shape=shape, ctx=ctx, dtype=dtype)


def rand_shape_2d(dim0=10, dim1=10, allow_zero_size=False):
    """A random 2-D shape with sizes up to (dim0, dim1)."""
    low = 0 if allow_zero_size else 1
    return int(np.random.randint(low, dim0 + 1)), int(np.random.randint(low, dim1 + 1))


def rand_shape_3d(dim0=10, dim1=10, dim2=10, allow_zero_size=False):
    """A random 3-D shape with sizes up to (dim0, dim1, dim2)."""
    low = 0 if allow_zero_size else 1
    return tuple(int(np.random.randint(low, d + 1)) for d in (dim0, dim1, dim2))


def rand_shape_nd(num_dim, dim=10, allow_zero_size=False):
    """A random ``num_dim``-D shape with sizes up to ``dim``."""
    low = 0 if allow_zero_size else 1
    return tuple(int(n) for n in np.random.randint(low, dim + 1, size=num_dim))
