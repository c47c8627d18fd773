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

The random helpers draw from NumPy's global generator, as MXNet's do, so that
``np.random.seed(s)`` gives MXNet's arrays and shapes. Nothing is downloaded:
:func:`download` and the ``get_*`` data helpers use files already where MXNet's downloads
would put them, and otherwise say which files to put where.
"""
import contextlib
import functools
import gzip
import io
import numbers
import os
import struct
import sys

import numpy as np

from .context import (Context, current_context, num_gpus,  # noqa: F401 (Context: as MXNet's)
                      set_default_context)
from .ndarray import NDArray, array
from .ndarray import random as _nd_random
from .ndarray import sparse as _sparse
from .test_utils_numeric import *  # noqa: F401,F403 (matrices and chi-square checks)
from .test_utils_numeric import __all__ as _numeric_all

__all__ = ['default_context', 'set_default_context', 'default_dtype', 'default_rtols',
           'default_atols', 'default_numeric_eps', 'effective_dtype', 'get_tolerance',
           'get_rtol', 'get_atol', 'get_etol', 'get_tols', 'same', 'same_array',
           'almost_equal', 'assert_almost_equal', 'assert_allclose',
           'assert_almost_equal_with_err', 'assert_almost_equal_ignore_nan',
           'compare_ndarray_tuple', 'assert_exception', 'retry', 'environment',
           'random_arrays', 'random_uniform_arrays', 'random_sample', 'rand_ndarray',
           'rand_shape_2d', 'rand_shape_3d', 'rand_shape_nd', 'rand_coord_2d', 'np_reduce',
           'collapse_sum_like', 'mean_check', 'var_check', 'list_gpus', 'download',
           'get_mnist', 'get_mnist_ubyte', 'get_mnist_pkl', 'get_cifar10', 'checkShapes',
           'getenv', 'setenv', 'discard_stderr', 'rand_sparse_ndarray', 'create_sparse_array',
           'create_sparse_array_zd', 'shuffle_csr_column_indices', 'assign_each',
           'assign_each2', 'compare_optimizer', 'locationError', 'array', 'ss'] + _numeric_all


def default_context():
    """The context tests run on: the current context (``cpu(0)`` unless changed)."""
    return current_context()


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


def default_numeric_eps():
    """The finite-difference step per dtype for numeric gradients (powers of two)."""
    return {np.dtype(np.float16): 1.0 / 2 ** 6, np.dtype(np.float32): 1.0 / 2 ** 9,
            np.dtype(np.float64): 1.0 / 2 ** 14}


def effective_dtype(dat):
    """The dtype whose tolerances apply to ``dat``: its own. (MXNet answers float16 for
    float32 results of TF32 GPU kernels; CuPy does not use TF32 unless asked.)"""
    return np.dtype(dat.dtype)


def get_rtol(rtol=None, dtype=np.dtype(np.float64)):
    """``rtol`` if given, else the default relative tolerance of ``dtype``."""
    return default_rtols()[np.dtype(dtype)] if rtol is None else rtol


def get_atol(atol=None, dtype=np.dtype(np.float64)):
    """``atol`` if given, else the default absolute tolerance of ``dtype``."""
    return default_atols()[np.dtype(dtype)] if atol is None else atol


def get_etol(etol=None):
    """The fraction of elements allowed to mismatch: ``etol``, default 0."""
    return 0 if etol is None else etol


def get_tolerance(dat, tol, default_tol):
    """``tol`` if it is a number; else ``tol[dtype]`` (a dict), else ``default_tol[dtype]``,
    for the dtype of ``dat`` (float64's default for dtypes without one)."""
    if isinstance(tol, numbers.Number):
        return tol
    dtype = effective_dtype(dat if hasattr(dat, 'dtype') else np.asarray(dat))
    tol = tol or {}
    return tol.get(dtype, default_tol.get(dtype, default_tol[np.dtype(np.float64)]))


def get_tols(x, y, rtol, atol):
    """The (rtol, atol) to compare ``x`` with ``y``: the looser default of their dtypes.

    ``rtol``/``atol`` may be numbers (used as given), None, or dicts dtype -> tolerance.
    """
    rtol = max(get_tolerance(x, rtol, default_rtols()), get_tolerance(y, rtol, default_rtols()))
    atol = max(get_tolerance(x, atol, default_atols()), get_tolerance(y, atol, default_atols()))
    return rtol, atol


def _to_numpy(x):
    if isinstance(x, NDArray):
        return x.asnumpy()
    return np.asarray(x)


def same(a, b):
    """Whether ``a`` and ``b`` hold exactly the same values and shape."""
    return np.array_equal(_to_numpy(a), _to_numpy(b))


def same_array(array1, array2):
    """Whether two NDArrays share their memory (a change to one shows in the other)."""
    array1[:] += 1
    shared = same(array1, array2)
    array1[:] -= 1
    return shared and same(array1, array2)


def checkShapes(a, b):  # noqa: N802  (MXNet's name)
    """AssertionError unless the arrays ``a`` and ``b`` have one shape."""
    if a.shape != b.shape:
        raise AssertionError("a.shape = %s and b.shape = %s are not equal: pass "
                             "use_broadcast=True to compare by broadcasting"
                             % (a.shape, b.shape))


def almost_equal(a, b, rtol=None, atol=None, equal_nan=False, use_broadcast=True):
    """``|a - b| <= atol + rtol·|b|`` everywhere (broadcasting), as ``np.allclose``.

    Without tolerances this uses float64's defaults (as MXNet's ``almost_equal``).
    ``use_broadcast=False`` requires equal shapes (AssertionError otherwise).
    """
    a, b = _to_numpy(a), _to_numpy(b)
    if not use_broadcast:
        checkShapes(a, b)
    return bool(np.allclose(a, b, rtol=get_rtol(rtol), atol=get_atol(atol), equal_nan=equal_nan))


def _violations(a, b, rtol, atol):
    """Each element's error in units of its tolerance (inf where one side is NaN)."""
    with np.errstate(invalid='ignore', over='ignore'):
        diff = np.where(np.equal(a, b), 0, np.abs(a - b))
        violation = diff / (atol + rtol * np.abs(b) + 1e-20)
    violation = np.broadcast_to(violation, np.broadcast_shapes(a.shape, b.shape))
    return np.where(np.isnan(violation), np.inf, violation)


def assert_almost_equal(a, b, rtol=None, atol=None, names=('a', 'b'), equal_nan=False,
                        use_broadcast=True, mismatches=(10, 10)):
    """Raise AssertionError unless ``a`` and ``b`` are almost equal (see module doc).

    The message names the worst element (its index, both values, the error in units of
    the tolerance), then up to ``mismatches[0]`` further mismatched elements, worst
    first. ``use_broadcast=False`` requires equal shapes.
    """
    rtol, atol = get_tols(a, b, rtol, atol)
    a_np, b_np = _to_numpy(a), _to_numpy(b)
    if not use_broadcast:
        checkShapes(a_np, b_np)
    if a_np.dtype == np.bool_ and b_np.dtype == np.bool_:
        np.testing.assert_equal(a_np, b_np)
        return
    try:
        shape = np.broadcast_shapes(a_np.shape, b_np.shape)
    except ValueError:
        raise AssertionError("%s of shape %s and %s of shape %s cannot be compared"
                             % (names[0], a_np.shape, names[1], b_np.shape)) from None
    if np.allclose(a_np, b_np, rtol=rtol, atol=atol, equal_nan=equal_nan):
        return
    a64, b64 = (np.broadcast_to(x.astype(np.float64), shape) for x in (a_np, b_np))
    mismatch = ~np.isclose(a64, b64, rtol=rtol, atol=atol, equal_nan=equal_nan)
    violation = np.where(mismatch, _violations(a64, b64, rtol, atol), -1.0)
    order = np.argsort(-violation, axis=None, kind='stable')[:max(1, mismatches[0])]
    worst = [tuple(int(i) for i in np.unravel_index(k, shape)) for k in order
             if violation.flat[k] >= 0]
    index = worst[0]
    others = ''.join("\n  %s: %s=%.8f, %s=%.8f" % (i, names[0], a64[i], names[1], b64[i])
                     for i in worst[1:])
    raise AssertionError(
        "Error %f exceeds tolerance rtol=%e, atol=%e (mismatch %.2f%%).\n%s%s\n %s: %s\n %s: %s"
        % (violation[index], rtol, atol, 100.0 * mismatch.mean(),
           locationError(a64, b64, index, names, maxError=True),
           ('\nNext mismatches:' + others) if others else '', names[0], a_np, names[1], b_np))


def assert_allclose(a, b, rtol=1e-07, atol=0, equal_nan=True):
    """:func:`assert_almost_equal` with NumPy's ``assert_allclose`` defaults."""
    assert_almost_equal(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)


def assert_almost_equal_with_err(a, b, rtol=None, atol=None, etol=None, names=('a', 'b'),
                                 equal_nan=False, mismatches=(10, 10)):
    """Like :func:`assert_almost_equal`, but a fraction ``etol`` of the elements may
    mismatch (with ``etol`` 0 or None, none may)."""
    etol = get_etol(etol)
    if etol <= 0:
        assert_almost_equal(a, b, rtol=rtol, atol=atol, names=names, equal_nan=equal_nan,
                            mismatches=mismatches)
        return
    rtol, atol = get_tols(a, b, rtol, atol)
    a_np, b_np = _to_numpy(a), _to_numpy(b)
    equal = np.isclose(a_np, b_np, rtol=rtol, atol=atol, equal_nan=equal_nan)
    error = 1 - np.count_nonzero(equal) / equal.size
    if error > etol:
        assert_almost_equal(a_np, b_np, rtol=rtol, atol=atol, names=names,
                            equal_nan=equal_nan, mismatches=mismatches)


def assert_almost_equal_ignore_nan(a, b, rtol=None, atol=None, names=('a', 'b')):
    """:func:`assert_almost_equal` on the elements where neither side is NaN."""
    a, b = np.array(_to_numpy(a)), np.array(_to_numpy(b))
    nan = np.logical_or(np.isnan(a), np.isnan(b))
    a[nan] = 0
    b[nan] = 0
    assert_almost_equal(a, b, rtol, atol, names)


def compare_ndarray_tuple(t1, t2, rtol=None, atol=None):
    """:func:`assert_almost_equal` on each pair of (nested) tuples of arrays; None skips."""
    if t1 is None or t2 is None:
        return
    if isinstance(t1, tuple):
        for s1, s2 in zip(t1, t2):
            compare_ndarray_tuple(s1, s2, rtol, atol)
    else:
        assert_almost_equal(t1, t2, rtol=rtol, atol=atol)


def compare_optimizer(opt1, opt2, shape, dtype, w_stype='default', g_stype='default',
                      rtol=1e-4, atol=1e-5, compare_states=True, ntensors=1):
    """Update the same random weights with ``opt1`` and ``opt2`` and assert that their
    weights (and states, with ``compare_states``) agree.

    ``shape`` is one shape (one tensor, of storage ``w_stype``/``g_stype``), or a list of
    shapes: then ``opt2`` updates the ``ntensors`` weights in one multi-tensor call and
    ``opt1`` one by one.
    """
    ctx = default_context()
    if not isinstance(shape, list):
        if ntensors != 1:
            raise AssertionError('compare_optimizer: one shape means one tensor')
        w2, w1 = _compared_pair(shape, w_stype, dtype, ctx, density=1)
        g2, g1 = _compared_pair(shape, g_stype, dtype, ctx)
        state1 = opt1.create_state_multi_precision(0, w1)
        state2 = opt2.create_state_multi_precision(0, w2)
        if compare_states:
            compare_ndarray_tuple(state1, state2)
        opt1.update_multi_precision(0, w1, g1, state1)
        opt2.update_multi_precision(0, w2, g2, state2)
        if compare_states:
            compare_ndarray_tuple(state1, state2, rtol=rtol, atol=atol)
        assert_almost_equal(w1, w2, rtol=rtol, atol=atol)
        return
    w1 = tuple(_nd_random.uniform(shape=s, ctx=ctx, dtype=dtype) for s in shape)
    g1 = tuple(_nd_random.uniform(shape=s, ctx=ctx, dtype=dtype) for s in shape)
    w2, g2 = tuple(w.copy() for w in w1), tuple(g.copy() for g in g1)
    state2 = [opt2.create_state_multi_precision(0, w2[i]) for i in range(ntensors)]
    opt2.update_multi_precision(list(range(ntensors)), w2, g2, state2)
    for i in range(ntensors):
        state1 = opt1.create_state_multi_precision(i, w1[i])
        opt1.update_multi_precision(i, w1[i], g1[i], state1)
        if compare_states:
            compare_ndarray_tuple(state1, state2[i], rtol, atol)
        compare_ndarray_tuple(w1[i], w2[i], rtol, atol)


def _compared_pair(shape, stype, dtype, ctx, density=None):
    """(an array of storage ``stype``, its dense copy) of random values."""
    if stype == 'default':
        values = _nd_random.uniform(shape=shape, ctx=ctx, dtype=dtype)
        return values, values.copyto(ctx)
    if stype in ('row_sparse', 'csr'):
        values = rand_ndarray(shape, stype, density=density, dtype=dtype)
        return values, values.copyto(ctx).tostype('default')
    raise ValueError('compare_optimizer: storage type %r is not supported' % (stype,))


def locationError(a, b, index, names, maxError=False):  # noqa: N802  (MXNet's name)
    """The text that names a mismatched element: its index and both values."""
    return 'Location of %serror: %s, %s=%.8f, %s=%.8f' % (
        'maximum ' if maxError else '', index, names[0], a[index], names[1], b[index])


def assert_exception(f, exception_type, *args, **kwargs):
    """Assert that ``f(*args, **kwargs)`` raises ``exception_type``."""
    try:
        f(*args, **kwargs)
    except exception_type:
        return
    raise AssertionError("%s did not raise %s"
                         % (getattr(f, '__name__', f), exception_type.__name__))


def retry(n):
    """A decorator re-running a test up to ``n`` times while it fails an assertion."""
    if not n > 0:
        raise AssertionError("retry needs n > 0, got %r" % (n,))

    def decorate(f):
        @functools.wraps(f)
        def wrapper(*args, **kwargs):
            for attempt in range(n):
                try:
                    f(*args, **kwargs)
                    return
                except AssertionError:
                    if attempt == n - 1:
                        raise
        return wrapper
    return decorate


@contextlib.contextmanager
def environment(*args):
    """Set environment variables inside a ``with`` block and restore them after.

    ``environment('NAME', 'value')`` or ``environment({'A': '1', 'B': None})``; None
    unsets a variable.
    """
    if len(args) == 1 and isinstance(args[0], dict):
        changes = args[0]
    elif len(args) == 2:
        changes = {args[0]: args[1]}
    else:
        raise AssertionError('Expecting one dict arg or two args: env var name and value')
    saved = {name: os.environ.get(name) for name in changes}

    def apply(values):
        for name, value in values.items():
            setenv(name, value)
    apply(changes)
    try:
        yield
    finally:
        apply(saved)


def getenv(name):
    """The value of the environment variable ``name``, or None if it is unset."""
    return os.environ.get(name)


def setenv(name, value):
    """Set the environment variable ``name`` to the text ``value`` (None unsets it)."""
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value


@contextlib.contextmanager
def discard_stderr():
    """Silence the process's standard error (file descriptor 2, so that C libraries are
    silenced too) inside a ``with`` block."""
    try:
        stderr_fd = sys.stderr.fileno()
    except (AttributeError, ValueError, io.UnsupportedOperation):
        yield   # no file descriptor behind sys.stderr (a notebook): nothing to redirect
        return
    with open(os.devnull, 'w') as devnull:
        saved = os.dup(stderr_fd)
        try:
            os.dup2(devnull.fileno(), stderr_fd)
            yield
        finally:
            os.dup2(saved, stderr_fd)
            os.close(saved)


def random_arrays(*shapes):
    """Standard-normal float32 NumPy arrays of the given shapes (one array if one shape)."""
    arrays = [np.random.randn(*s).astype(default_dtype()) for s in shapes]
    return arrays[0] if len(arrays) == 1 else arrays


def random_uniform_arrays(*shapes, low=0.0, high=1.0, dtype=None):
    """A list of U[low, high) NumPy arrays of the given shapes (float32 by default)."""
    dtype = default_dtype() if dtype is None else dtype
    return [np.random.uniform(low, high, size=s).astype(dtype) for s in shapes]


def random_sample(population, k):
    """``k`` elements of the list ``population`` in random order (without repeats)."""
    if not 0 <= k <= len(population):
        raise AssertionError("random_sample: k=%d is not between 0 and the population's "
                             "size %d" % (k, len(population)))
    population = population[:]
    np.random.shuffle(population)
    return population[0:k]


def rand_ndarray(shape, stype='default', density=None, dtype=None, modifier_func=None,
                 shuffle_csr_indices=False, distribution=None, ctx=None):
    """A random NDArray of ``shape``: standard-normal values for ``stype='default'``,
    else :func:`rand_sparse_ndarray`'s array."""
    ctx = ctx if ctx is not None else default_context()
    if stype == 'default':
        dtype = default_dtype() if dtype is None else dtype
        return array(random_arrays(tuple(shape)), ctx=ctx, dtype=dtype)
    return rand_sparse_ndarray(shape, stype, density=density, dtype=dtype,
                               distribution=distribution, modifier_func=modifier_func,
                               shuffle_csr_indices=shuffle_csr_indices, ctx=ctx)[0]


def rand_sparse_ndarray(shape, stype, density=None, dtype=None, distribution=None,
                        data_init=None, rsp_indices=None, modifier_func=None,
                        shuffle_csr_indices=False, ctx=None):
    """A random sparse NDArray and its parts: ``(array, (values, indices))`` for
    row_sparse, ``(array, (indptr, indices, data))`` for csr.

    ``stype='row_sparse'``: each row is stored with probability ``density`` (random in
    [0, 1) if None; or the rows ``rsp_indices``) and holds U[0, 1) values (all
    ``data_init`` if given), each passed through ``modifier_func`` if given.
    ``stype='csr'`` (2-D): ``distribution='uniform'`` (the default) puts ``round(density *
    rows * cols)`` values U[0, 1) (or ``data_init``) at distinct random positions, without
    making a dense array (huge shapes are fine); ``'powerlaw'`` fills row i with about 2^i
    values 1 + U(0.001, 2), as MXNet. ``shuffle_csr_indices=True`` (unsorted column
    indices) is refused: gluonedu's csr arrays keep each row's columns sorted, as
    ``check_format`` requires.
    """
    ctx = ctx if ctx is not None else default_context()
    dtype = default_dtype() if dtype is None else dtype
    density = np.random.rand() if density is None else density
    if stype == 'row_sparse':
        if distribution not in (None, 'uniform'):
            raise AssertionError("row_sparse arrays are drawn uniformly; distribution=%r is "
                                 "for CSR arrays" % (distribution,))
        if rsp_indices is not None:
            indices = np.asarray(rsp_indices)
            if len(indices) > shape[0]:
                raise AssertionError('rsp_indices has more rows (%d) than the shape (%d)'
                                     % (len(indices), shape[0]))
        else:
            indices = np.flatnonzero(np.random.rand(shape[0]) < density)
        if indices.size == 0:
            return (_sparse.zeros('row_sparse', shape, ctx=ctx, dtype=dtype),
                    (np.array([], dtype=dtype), np.array([])))
        values = np.random.rand(indices.size, *shape[1:]).astype(dtype)
        if data_init is not None:
            values.fill(data_init)
        if modifier_func is not None:
            values = assign_each(values, modifier_func)
        array = _sparse.row_sparse_array((values, indices), shape=shape, ctx=ctx, dtype=dtype)
        return array, (values, indices)
    if stype == 'csr':
        if shuffle_csr_indices:
            raise ValueError("rand_ndarray: gluonedu's csr arrays keep each row's column "
                             "indices sorted (check_format requires it); drop "
                             "shuffle_csr_indices=True")
        if distribution == 'powerlaw':
            csr = _powerlaw_csr(tuple(shape), density, dtype, ctx)
        elif distribution in (None, 'uniform'):
            csr = _random_csr(tuple(shape), density, dtype, ctx, data_init)
        else:
            raise ValueError("rand_ndarray: distribution must be 'uniform' or 'powerlaw', "
                             "got %r" % (distribution,))
        if modifier_func is not None:
            values = assign_each(csr.data.asnumpy(), modifier_func)
            csr = _sparse.csr_matrix((values.astype(dtype), csr.indices, csr.indptr),
                                     shape=csr.shape, ctx=ctx, dtype=dtype)
        return csr, (csr.indptr, csr.indices, csr.data)
    raise ValueError("rand_ndarray: unknown storage type %r: use 'default', 'row_sparse' or "
                     "'csr'" % (stype,))


def create_sparse_array(shape, stype, data_init=None, rsp_indices=None, dtype=None,
                        modifier_func=None, density=.5, shuffle_csr_indices=False):
    """A random sparse array (:func:`rand_sparse_ndarray`), row_sparse ``rsp_indices``
    sorted first."""
    if stype not in ('row_sparse', 'csr'):
        raise AssertionError('Unknown storage type: %s' % (stype,))
    if rsp_indices is not None and stype == 'row_sparse':
        rsp_indices = np.sort(np.asarray(rsp_indices))
    return rand_sparse_ndarray(shape, stype, density=density, dtype=dtype, data_init=data_init,
                               rsp_indices=rsp_indices if stype == 'row_sparse' else None,
                               modifier_func=modifier_func,
                               shuffle_csr_indices=shuffle_csr_indices)[0]


def create_sparse_array_zd(shape, stype, density, data_init=None, rsp_indices=None,
                           dtype=None, modifier_func=None, shuffle_csr_indices=False):
    """:func:`create_sparse_array` where a row_sparse array's rows are ``rsp_indices``
    only (density 0 otherwise)."""
    if stype == 'row_sparse':
        density = 0.0
    return create_sparse_array(shape, stype, data_init=data_init, rsp_indices=rsp_indices,
                               dtype=dtype, modifier_func=modifier_func, density=density,
                               shuffle_csr_indices=shuffle_csr_indices)


def shuffle_csr_column_indices(csr):
    """MXNet shuffles each row's column indices in place, to test unsorted CSR input;
    gluonedu's csr arrays keep them sorted (``check_format`` requires it), so this refuses
    with ValueError."""
    raise ValueError("shuffle_csr_column_indices: gluonedu's csr arrays keep each row's "
                     "column indices sorted; test with sorted indices")


def assign_each(the_input, function):
    """A float64 array of ``function(x)`` for each element ``x`` of ``the_input`` (a copy
    of it if ``function`` is None)."""
    if function is None:
        return np.array(the_input)
    return np.vectorize(function, otypes=[np.float64])(the_input) if np.size(the_input) \
        else np.zeros(np.shape(the_input))


def assign_each2(input1, input2, function):
    """A float64 array of ``function(x, y)`` for the elements of two arrays of one shape
    (a copy of ``input1`` if ``function`` is None)."""
    if function is None:
        return np.array(input1)
    if input1.shape != input2.shape:
        raise AssertionError('assign_each2 takes two arrays of one shape, got %s and %s'
                             % (input1.shape, input2.shape))
    return np.vectorize(function, otypes=[np.float64])(input1, input2) if input1.size \
        else np.zeros(input1.shape)


def _random_csr(shape, density, dtype, ctx, data_init=None):
    """A csr array with ``round(density * size)`` values U[0, 1) (or ``data_init``) at
    distinct positions."""
    _check_csr_request(shape, density)
    size = shape[0] * shape[1]
    wanted = int(round(density * size))
    positions = np.unique(np.random.randint(0, max(size, 1), size=wanted))
    while positions.size < wanted:   # draws that collided: draw the missing ones again
        extra = np.random.randint(0, size, size=wanted - positions.size)
        positions = np.union1d(positions, extra)
    values = np.random.rand(positions.size).astype(dtype)
    if data_init is not None:
        values.fill(data_init)
    return _sparse.csr_matrix((values, (positions // shape[1], positions % shape[1])),
                              shape=shape, ctx=ctx, dtype=dtype)


def _powerlaw_csr(shape, density, dtype, ctx):
    """MXNet's 'powerlaw' csr: every row starts with one value; then row i holds up to
    2^(i+1) leading values (whole rows once that exceeds the columns), until
    ``int(rows * cols * density)`` values are placed."""
    _check_csr_request(shape, density)
    rows, cols = shape
    left = int(rows * cols * density)
    if left < 2 * rows:
        raise ValueError("rand_ndarray: a powerlaw csr needs rows * cols * density >= 2 * rows "
                         "(as MXNet's); shape %s with density %s has %d values"
                         % (shape, density, left))
    dense = np.zeros(shape, dtype=dtype)
    dense[:, 0] = 1 + np.random.uniform(0.001, 2, rows)
    left -= rows
    width = 2
    for row in range(rows):
        if left <= 0:
            break
        limit = min(cols, width)
        if limit == cols and left > limit:
            dense[row] = 1 + np.random.uniform(0.001, 2)
            left -= limit - 1
            continue
        count = min(limit - 1, left)
        dense[row, 1:1 + count] = 1 + np.random.uniform(0.001, 2, count)
        left -= count
        width *= 2
    if left > 0:
        raise ValueError("rand_ndarray: a powerlaw csr of shape %s cannot hold density %s"
                         % (shape, density))
    return _sparse.csr_matrix(dense, ctx=ctx, dtype=dtype)


def _check_csr_request(shape, density):
    if len(shape) != 2 or min(shape) <= 0:
        raise ValueError("rand_ndarray: csr arrays are 2-D with rows and columns, got shape "
                         "%s" % (shape,))
    if not 0 <= density <= 1:
        raise ValueError("rand_ndarray: density must lie in [0, 1], got %s" % (density,))


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


def rand_coord_2d(x_low, x_high, y_low, y_high):
    """A random point (x, y) with x in [x_low, x_high) and y in [y_low, y_high)."""
    return (np.random.randint(x_low, x_high, dtype=np.int64),
            np.random.randint(y_low, y_high, dtype=np.int64))


def np_reduce(dat, axis, keepdims, numpy_reduce_func):
    """``numpy_reduce_func`` applied over each axis in ``axis`` (int, tuple or None: all),
    one axis at a time, last first; ``keepdims`` keeps them as size 1."""
    if isinstance(axis, int):
        axis = [axis]
    else:
        axis = list(axis) if axis is not None else range(len(dat.shape))
    out = dat
    for i in reversed(sorted(axis)):
        out = numpy_reduce_func(out, axis=i)
    if keepdims:
        shape = list(dat.shape)
        for i in axis:
            shape[i] = 1
        out = out.reshape(tuple(shape))
    return out


def collapse_sum_like(a, shape):
    """``a`` summed over the axes that broadcasting would add to ``shape`` (the gradient
    of a broadcast): the result has ``shape``."""
    if not len(a.shape) >= len(shape):
        raise AssertionError("collapse_sum_like: %s has fewer axes than %s"
                             % (a.shape, tuple(shape)))
    if np.prod(shape) == 0 or a.size == 0:
        return np.zeros(shape, dtype=a.dtype)
    extra = len(a.shape) - len(shape)
    axes = list(range(extra))
    for i, size in enumerate(shape):
        if size != a.shape[i + extra]:
            if size != 1:
                raise AssertionError("collapse_sum_like: %s does not broadcast to %s"
                                     % (tuple(shape), a.shape))
            axes.append(i + extra)
    return np.sum(a, axis=tuple(axes)).reshape(shape)


def mean_check(generator, mu, sigma, nsamples=1000000):
    """Whether the mean of ``generator(nsamples)`` is within 3 standard errors of ``mu``."""
    mean = np.array(generator(nsamples)).mean()
    bound = 3 * sigma / np.sqrt(nsamples)
    return bool(mu - bound < mean < mu + bound)


def var_check(generator, sigma, nsamples=1000000):
    """Whether the variance of ``generator(nsamples)`` is within 3 standard errors of
    ``sigma²``."""
    var = np.array(generator(nsamples)).var(ddof=1)
    bound = 3 * np.sqrt(2 * sigma ** 4 / (nsamples - 1))
    return bool(sigma ** 2 - bound < var < sigma ** 2 + bound)


def list_gpus():
    """The ids of the GPUs gluonedu can use: ``range(n)`` (empty without CuPy or a GPU)."""
    return range(num_gpus())


# ---------------------------------------------------------------------- data files
def download(url, fname=None, dirname=None, overwrite=False, retries=5):
    """The path where MXNet's ``download`` would save ``url``, if the file is there.

    gluonedu never downloads: a missing file (or ``overwrite=True``) raises
    FileNotFoundError naming the URL and the path to save it at.
    """
    if fname is None:
        fname = url.split('/')[-1]
    if dirname is not None:
        fname = os.path.join(dirname, fname)
    if os.path.isfile(fname) and not overwrite:
        return fname
    raise FileNotFoundError("gluonedu does not download files: get %s and save it as %s"
                            % (url, os.path.abspath(fname)))


_MNIST_URL = 'http://data.mxnet.io/data/mnist/'


def _read_mnist(label_url, image_url):
    label_path, image_path = download(label_url), download(image_url)
    try:
        with gzip.open(label_path) as fin:
            struct.unpack('>II', fin.read(8))
            label = np.frombuffer(fin.read(), dtype=np.int8)
        with gzip.open(image_path, 'rb') as fin:
            _, _, rows, cols = struct.unpack('>IIII', fin.read(16))
            image = np.frombuffer(fin.read(), dtype=np.uint8).reshape(len(label), rows, cols)
    except (OSError, EOFError, ValueError, struct.error) as err:
        raise ValueError("%s or %s is not a valid MNIST file (%s); get it again"
                         % (label_path, image_path, err)) from None
    return label, image.reshape(image.shape[0], 1, 28, 28).astype(np.float32) / 255


def get_mnist():
    """MNIST as a dict of NumPy arrays, from the four ``*-ubyte.gz`` files in the current
    folder (where MXNet's version downloads them).

    ``train_data``/``test_data``: float32 (n, 1, 28, 28) in [0, 1];
    ``train_label``/``test_label``: int8 (n,).
    """
    train_label, train_data = _read_mnist(_MNIST_URL + 'train-labels-idx1-ubyte.gz',
                                          _MNIST_URL + 'train-images-idx3-ubyte.gz')
    test_label, test_data = _read_mnist(_MNIST_URL + 't10k-labels-idx1-ubyte.gz',
                                        _MNIST_URL + 't10k-images-idx3-ubyte.gz')
    return {'train_data': train_data, 'train_label': train_label,
            'test_data': test_data, 'test_label': test_label}


def _require(paths, source):
    missing = [p for p in paths if not os.path.exists(p)]
    if missing:
        raise FileNotFoundError("gluonedu does not download files: %s is missing; get %s "
                                "and put its contents there"
                                % (', '.join(os.path.abspath(p) for p in missing), source))


def get_mnist_ubyte():
    """Check that ``data/`` holds the four uncompressed MNIST ``*-ubyte`` files (MXNet's
    version downloads and unzips them there)."""
    _require([os.path.join('data', name) for name in (
        'train-images-idx3-ubyte', 'train-labels-idx1-ubyte', 't10k-images-idx3-ubyte',
        't10k-labels-idx1-ubyte')], 'http://data.mxnet.io/mxnet/data/mnist.zip')


def get_mnist_pkl():
    """Check that ``data/mnist.pkl.gz`` exists (MXNet's version downloads it there)."""
    _require([os.path.join('data', 'mnist.pkl.gz')],
             'http://deeplearning.net/data/mnist/mnist.pkl.gz')


def get_cifar10():
    """Check that ``data/cifar/`` holds ``train.rec``, ``test.rec``, ``train.lst`` and
    ``test.lst`` (MXNet's version downloads and unzips them there)."""
    _require([os.path.join('data', 'cifar', name) for name in (
        'train.rec', 'test.rec', 'train.lst', 'test.lst')],
        'http://data.mxnet.io/mxnet/data/cifar10.zip')


def __getattr__(name):
    # MXNet's test_utils.ss is scipy.stats, imported here on first use: it takes a second.
    if name == 'ss':
        import scipy.stats
        return scipy.stats
    raise AttributeError("module %r has no attribute %r" % (__name__, name))


def __dir__():
    return sorted(set(globals()) | {'ss'})
