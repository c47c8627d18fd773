"""Operators over sparse arrays (``mx.nd.sparse.*``), with MXNet 1.9.1's storage rules.

An operator keeps sparse storage when zeros stay zeros — and MXNet keeps it there;
otherwise it computes on the dense equivalent and returns a dense array (MXNet's
"storage fallback": the same numbers, dense storage). For two arrays ``C`` (csr),
``R`` (row_sparse), ``D`` (dense) and a number ``s``:

===================================  ==========================================
``C ± C``, ``C * C``                  csr (union / intersection of the entries)
``R ± R``, ``R * R``                  row_sparse
``C * D``, ``D * C`` (same shape)     csr, the entries of C (``elemwise_mul``)
``R * D``, ``D * R`` (same shape)     row_sparse
``C * v``, ``C / v`` (v broadcast)    csr (``broadcast_mul``/``broadcast_div``)
``X * s``, ``s * X``, ``X / s``       X's storage, for X csr or row_sparse
``X > s`` (false at 0: s >= 0), …   X's storage; comparisons of arrays are dense
``X + s``, ``s / X``, ``X / D``, …    dense (the operator ``C / D`` of one shape raises,
                                      as MXNet's ``broadcast_div``; use ``divide``)
``dot(C, D)``                         dense; ``dot(C, D, transpose_a=True)`` row_sparse
``dot(D, C)``                         csr (as MXNet on CPU)
===================================  ==========================================

The ``D * C`` and ``D * R`` rows hold for ``elemwise_mul``/``sparse.multiply``; the
operators ``D * C`` and ``D * R`` (a dense array's own ``*``) fall back to dense, as in
MXNet.

``dot(C, W)`` reads only the rows of ``W`` whose columns occur in ``C`` (``W`` may be
row-sparse, e.g. ``Parameter.row_sparse_data``), and the gradient it sends to ``W`` is
row-sparse: exactly those rows (a ``row_sparse`` gradient buffer keeps them as rows;
a dense one receives them added into zeros).

While ``autograd.record()`` tracks an input, every operator here computes on the dense
equivalent, so that gradients flow (the storage of the result may then be dense where
it would otherwise be sparse); ``dot(C, W)`` keeps its sparse kernel and its
row-sparse gradient.
"""
import builtins

import numpy as np

from .. import _backend
from ..base import MXNetError
from . import _graph, ops
from .csr import CSRNDArray, from_dense
from .ndarray import NDArray, check_same_device
from .ops.binary import apply as binary_op
from .ops.reduce import reduction_axes
from .registry import check_arrays
from .sparse import (BaseSparseNDArray, RowSparseNDArray, _dense_to_row_sparse, check_stype,
                     sum_by_id)

__all__ = [
    'dot', 'add', 'subtract', 'multiply', 'divide',
    'elemwise_add', 'elemwise_sub', 'elemwise_mul', 'elemwise_div',
    'broadcast_add', 'broadcast_sub', 'broadcast_mul', 'broadcast_div', 'broadcast_plus',
    'broadcast_minus', 'cast_storage', 'clip', 'sum', 'mean', 'norm', 'slice', 'concat',
    'zeros_like', 'stop_gradient', 'where', 'add_n',
    'abs', 'sign', 'sqrt', 'square', 'negative', 'relu', 'floor', 'ceil', 'round', 'trunc',
    'sin', 'tanh', 'expm1', 'log1p', 'cbrt', 'tan', 'sinh', 'arcsin', 'arcsinh', 'arctan',
    'arctanh', 'degrees', 'radians', 'fix', 'rint',
    'exp', 'log', 'log2', 'log10', 'cos', 'rsqrt', 'sigmoid', 'arccos', 'arccosh', 'cosh',
    'gamma', 'gammaln',
]

_ARITH = ('add', 'subtract', 'multiply', 'divide')
_COMPARISONS = ('equal', 'not_equal', 'less', 'less_equal', 'greater', 'greater_equal')


# ---------------------------------------------------------------------- helpers
def _is_sparse(x):
    return isinstance(x, BaseSparseNDArray)


def _recording(*arrays):
    """Whether the tape must see this operation (an input takes part in differentiation)."""
    return _graph.STATE.recording and any(isinstance(a, NDArray) and _graph.is_tracked(a)
                                          for a in arrays)


def _dense(x):
    """``x`` as a dense array (recorded, so gradients reach a sparse variable)."""
    return x.tostype('default') if isinstance(x, NDArray) and x.stype != 'default' else x


def dense_fallback(name, *args, **kwargs):
    """The dense operator ``ops.<name>`` on the dense equivalents of ``args``."""
    return getattr(ops, name)(*(_dense(a) for a in args), **kwargs)


def _write_out(result, out):
    if out is None:
        return result
    out[:] = result
    return out


def _check_pair(op, lhs, rhs):
    check_same_device(op, [lhs, rhs])
    if np.dtype(lhs.dtype) != np.dtype(rhs.dtype):
        raise MXNetError("%s: inputs have different dtypes (%s and %s); convert one with "
                         ".astype('%s') first" % (op, np.dtype(lhs.dtype), np.dtype(rhs.dtype),
                                                  np.dtype(lhs.dtype)))


def _entries(x):
    """``(keys, values)`` of a sparse array: sorted unique int64 keys, one value per key.

    csr: the key of an entry is ``row * cols + col``, its value a number; row_sparse:
    the key is the row id, the value the stored row.
    """
    if isinstance(x, CSRNDArray):
        return x._row_ids() * x.shape[1] + x._col_indices, x._values
    return x._indices, x._values


def _from_entries(like, keys, values):
    """A sparse array of ``like``'s kind, shape and context from ``(keys, values)``."""
    xp = like._xp
    if isinstance(like, RowSparseNDArray):
        return RowSparseNDArray(values, keys.astype(np.int64), like.shape, like.context)
    rows, cols = like.shape
    counts = xp.bincount(keys // cols, minlength=rows)
    indptr = xp.concatenate([xp.zeros(1, dtype=np.int64), xp.cumsum(counts)]).astype(np.int64)
    return CSRNDArray(values, (keys % cols).astype(np.int64), indptr, like.shape, like.context)


def _with_values(x, values):
    """``x``'s entries with new values (a zero-preserving operation's result)."""
    keys, _ = _entries(x)
    return _from_entries(x, keys, values)


def _at_entries(x, dense):
    """The entries of ``dense`` (broadcast to ``x``'s shape) at ``x``'s stored positions."""
    full = x._xp.broadcast_to(dense, x.shape)
    if isinstance(x, CSRNDArray):
        return full[x._row_ids(), x._col_indices]
    return full[x._indices]


def _union(lhs, rhs, sign):
    """``lhs + sign * rhs`` of two sparse arrays of one kind: every entry of either."""
    xp = lhs._xp
    (ka, va), (kb, vb) = _entries(lhs), _entries(rhs)
    return _from_entries(lhs, *sum_by_id(xp, xp.concatenate([ka, kb]),
                                         xp.concatenate([va, vb if sign > 0 else -vb])))


def _intersection_product(lhs, rhs):
    """``lhs * rhs`` of two sparse arrays of one kind: the entries both store."""
    xp = lhs._xp
    (ka, va), (kb, vb) = _entries(lhs), _entries(rhs)
    pos = xp.minimum(xp.searchsorted(kb, ka), max(kb.shape[0] - 1, 0))
    both = kb[pos] == ka if kb.shape[0] else xp.zeros(ka.shape[0], dtype=bool)
    return _from_entries(lhs, ka[both], va[both] * vb[pos[both]])


# ---------------------------------------------------------------------- arithmetic
def _scalar_op(op, x, scalar, x_first):
    """``x op scalar`` (or ``scalar op x``). Sparse results, as MXNet: ``x * s``,
    ``s * x``, ``x / s``, and a comparison ``x > s`` (etc.) that is false at 0."""
    if _is_sparse(x) and not _recording(x):
        dtype = np.dtype(x.dtype)
        s = dtype.type(scalar)   # as MXNet: the number takes the array's dtype
        with np.errstate(divide='ignore', invalid='ignore'):
            if op == 'multiply' or (op == 'divide' and x_first):
                return _with_values(x, x._values * s if op == 'multiply' else x._values / s)
            if op in _COMPARISONS and x_first and not getattr(np, op)(dtype.type(0), s):
                return _with_values(x, getattr(x._xp, op)(x._values, s).astype(dtype))
    return binary_op(op, x, scalar) if x_first else binary_op(op, scalar, x)


def _same_shape_op(op, lhs, rhs):
    """``lhs op rhs`` for arrays of one shape (MXNet's ``elemwise_<op>``)."""
    kinds = {type(lhs), type(rhs)}
    if op in ('add', 'subtract') and len(kinds) == 1 and _is_sparse(lhs):
        return _union(lhs, rhs, 1 if op == 'add' else -1)
    if op == 'multiply':
        if len(kinds) == 1 and _is_sparse(lhs):
            return _intersection_product(lhs, rhs)
        sparse = [x for x in (lhs, rhs) if _is_sparse(x)]
        if len(sparse) == 1:
            other = rhs if sparse[0] is lhs else lhs
            return _with_values(sparse[0], sparse[0]._values * _at_entries(sparse[0],
                                                                           other._data))
    return binary_op(op, lhs, rhs)


def _broadcast_op(op, lhs, rhs):
    """``lhs op rhs`` with broadcasting: csr times / divided by a smaller dense array
    stays csr (MXNet's ``broadcast_mul``/``broadcast_div``); the rest is dense."""
    try:
        shape = np.broadcast_shapes(lhs.shape, rhs.shape)
    except ValueError:
        raise MXNetError("%s: shapes %s and %s cannot be broadcast together"
                         % (op, lhs.shape, rhs.shape)) from None
    if op == 'divide' and isinstance(lhs, CSRNDArray) and rhs.stype == 'default' and \
            rhs.shape == lhs.shape:
        raise MXNetError("broadcast_div of a csr array by a dense array of the same shape is "
                         "not supported (as in MXNet): use nd.sparse.elemwise_div (or "
                         "nd.sparse.divide), which returns a dense array")
    if op in ('multiply', 'divide') and isinstance(lhs, CSRNDArray) and \
            rhs.stype == 'default' and shape == lhs.shape:
        with np.errstate(divide='ignore', invalid='ignore'):
            factors = _at_entries(lhs, rhs._data)
            return _with_values(lhs, lhs._values * factors if op == 'multiply'
                                else lhs._values / factors)
    return binary_op(op, lhs, rhs)


def arith(op, lhs, rhs):
    """``lhs op rhs`` with MXNet's storage rules (``sparse.add`` and friends for op in
    add, subtract, multiply, divide): same-shape arrays as ``elemwise_<op>``, others
    broadcast, numbers as scalars; comparisons keep sparse storage only against a number
    (when false at 0); ``mod``, ``power`` and the rest compute densely."""
    lhs_nd, rhs_nd = isinstance(lhs, NDArray), isinstance(rhs, NDArray)
    if lhs_nd and not rhs_nd:
        return _scalar_op(op, lhs, rhs, x_first=True)
    if rhs_nd and not lhs_nd:
        return _scalar_op(op, rhs, lhs, x_first=False)
    if not (lhs_nd and rhs_nd):
        return getattr(np, op)(lhs, rhs)
    if op not in _ARITH:
        return binary_op(op, lhs, rhs)
    _check_pair(op, lhs, rhs)
    if _recording(lhs, rhs):
        return binary_op(op, lhs, rhs)
    if lhs.shape == rhs.shape:
        return _same_shape_op(op, lhs, rhs)
    return _broadcast_op(op, lhs, rhs)


def reflected(op, lhs, rhs):
    """``lhs op rhs`` reached through ``rhs``'s reflected operator (``2 * x``, ``d * x``).

    Python asks a sparse ``rhs`` first even when ``lhs`` is a dense NDArray (a subclass
    wins); MXNet's dense operator runs then, so the result is dense (``d * c``), while a
    number follows :func:`arith` (``2 * c`` is csr).
    """
    if isinstance(lhs, NDArray):
        return binary_op(op, lhs, rhs)
    return arith(op, lhs, rhs)


def _arith_function(op, doc):
    def func(lhs, rhs):
        return arith(op, lhs, rhs)
    func.__name__ = op
    func.__doc__ = doc
    return func


add = _arith_function('add', "lhs + rhs: csr + csr is csr, row_sparse + row_sparse is "
                             "row_sparse, anything with a dense array or a number is dense.")
subtract = _arith_function('subtract', "lhs - rhs, with the storage rules of :func:`add`.")
multiply = _arith_function('multiply', "lhs * rhs: sparse times sparse, dense (same shape, "
                                       "or broadcast onto a csr array) or a number keeps the "
                                       "sparse storage.")
divide = _arith_function('divide', "lhs / rhs: a sparse array divided by a number, or a csr "
                                   "array by a broadcast dense array, stays sparse; the rest "
                                   "is dense.")


def _elemwise(op):
    def func(lhs, rhs, out=None):
        check_arrays('elemwise_' + op, [lhs, rhs])
        if lhs.shape != rhs.shape:
            raise MXNetError("elemwise_%s needs arrays of one shape, got %s and %s; use "
                             "broadcast_%s to broadcast" % (op[:3], lhs.shape, rhs.shape,
                                                             op[:3]))
        return _write_out(arith(op, lhs, rhs), out)
    func.__name__ = 'elemwise_' + op
    func.__doc__ = "Element-wise %s of two arrays of one shape, keeping sparse storage as " \
                   "MXNet (see the module docstring)." % op
    return func


elemwise_add = _elemwise('add')
elemwise_sub = _elemwise('subtract')
elemwise_mul = _elemwise('multiply')
elemwise_div = _elemwise('divide')


def _broadcasting(op):
    def func(lhs, rhs, out=None):
        check_arrays('broadcast_' + op, [lhs, rhs])
        _check_pair(op, lhs, rhs)
        if _recording(lhs, rhs):
            return _write_out(binary_op(op, lhs, rhs), out)
        return _write_out(_broadcast_op(op, lhs, rhs), out)
    func.__name__ = 'broadcast_' + op
    func.__doc__ = "Broadcasting %s; a csr array times (or divided by) a dense array " \
                   "broadcast to its shape stays csr." % op
    return func


broadcast_add = broadcast_plus = _broadcasting('add')
broadcast_sub = broadcast_minus = _broadcasting('subtract')
broadcast_mul = _broadcasting('multiply')
broadcast_div = _broadcasting('divide')


# ---------------------------------------------------------------------- element-wise
def _keeps_zeros(name):
    """``ops.<name>`` applied to the stored values only (f(0) == 0, so zeros stay zeros)."""
    dense_op = getattr(ops, name)

    def func(data, out=None):
        if not _is_sparse(data) or _recording(data):
            return dense_op(_dense(data), out=out)
        return _write_out(_with_values(data, dense_op(NDArray(data._values, data.context))
                                       ._data), out)
    func.__name__ = name
    func.__doc__ = "%s; a csr or row_sparse input keeps its storage (%s(0) = 0)." % (
        (dense_op.__doc__ or name).splitlines()[0], name)
    return func


abs = _keeps_zeros('abs')
sign = _keeps_zeros('sign')
sqrt = _keeps_zeros('sqrt')
square = _keeps_zeros('square')
negative = _keeps_zeros('negative')
relu = _keeps_zeros('relu')
floor = _keeps_zeros('floor')
ceil = _keeps_zeros('ceil')
round = _keeps_zeros('round')
trunc = _keeps_zeros('trunc')
sin = _keeps_zeros('sin')
tanh = _keeps_zeros('tanh')
expm1 = _keeps_zeros('expm1')
log1p = _keeps_zeros('log1p')
cbrt = _keeps_zeros('cbrt')
tan = _keeps_zeros('tan')
sinh = _keeps_zeros('sinh')
arcsin = _keeps_zeros('arcsin')
arcsinh = _keeps_zeros('arcsinh')
arctan = _keeps_zeros('arctan')
arctanh = _keeps_zeros('arctanh')
degrees = _keeps_zeros('degrees')
radians = _keeps_zeros('radians')
fix = _keeps_zeros('fix')
rint = _keeps_zeros('rint')

# f(0) != 0: these compute on the dense equivalent and return dense arrays.
exp, log, log2, log10 = ops.exp, ops.log, ops.log2, ops.log10
cos, rsqrt, sigmoid = ops.cos, ops.rsqrt, ops.sigmoid
arccos, arccosh, cosh, gamma, gammaln = ops.arccos, ops.arccosh, ops.cosh, ops.gamma, ops.gammaln
where, add_n = ops.where, ops.add_n


def clip(data, a_min, a_max, out=None):
    """Clip to [a_min, a_max]; a sparse input keeps its storage, which needs
    ``a_min <= 0 <= a_max`` (MXNet raises otherwise, and so do we)."""
    if not _is_sparse(data) or _recording(data):
        return ops.clip(_dense(data), a_min, a_max, out=out)
    if not a_min <= 0 <= a_max:
        raise MXNetError("clip of a %s array keeps its zeros, so it needs a_min <= 0 <= a_max "
                         "(got [%s, %s]); clip data.tostype('default') instead"
                         % (data.stype, a_min, a_max))
    return _write_out(_with_values(data, data._xp.clip(data._values, a_min, a_max)), out)


def cast_storage(data, stype):
    """``data`` in storage type ``stype`` ('default', 'row_sparse' or 'csr')."""
    check_stype(stype)
    if stype == data.stype:
        return data.copy()
    if stype == 'default':
        return data.tostype('default')
    if data.stype != 'default':
        raise ValueError("cannot cast %s to %s (MXNet has no such cast); go through "
                         "'default' first" % (data.stype, stype))
    return from_dense(data) if stype == 'csr' else _dense_to_row_sparse(data)


def zeros_like(data, out=None):
    """Zeros of ``data``'s shape, dtype, context and storage type."""
    return ops.zeros_like(data, out=out)


def stop_gradient(data, out=None):
    """The same values, with no gradient flowing back (storage kept)."""
    if isinstance(data, CSRNDArray):
        return _write_out(data.detach().copy(), out)
    if isinstance(data, RowSparseNDArray):
        return _write_out(RowSparseNDArray(data._values.copy(), data._indices.copy(),
                                           data.shape, data.context), out)
    return ops.stop_gradient(data, out=out)


# ---------------------------------------------------------------------- reductions
def _csr_reduce(data, axis, keepdims, exclude, values):
    """Σ ``values`` (one per stored entry) over ``axis`` of a csr array, dense result."""
    xp = data._xp
    rows, cols = data.shape
    axes = reduction_axes('sum', 2, axis, exclude)
    if len(axes) == 2:
        total = xp.zeros(1, dtype=values.dtype)
        xp.add.at(total, xp.zeros(values.shape[0], dtype=np.int64), values)
        result, keep = total, (1, 1)
    elif axes == (0,):
        result = xp.zeros(cols, dtype=values.dtype)
        xp.add.at(result, data._col_indices, values)
        keep = (1, cols)
    else:
        result = xp.zeros(rows, dtype=values.dtype)
        xp.add.at(result, data._row_ids(), values)
        keep = (rows, 1)
    return NDArray(result.reshape(keep) if keepdims else result, data.context), axes


def sum(data, axis=None, keepdims=False, exclude=False, out=None):
    """Σ over ``axis`` (dense result); a csr input is summed over its stored values only."""
    if not isinstance(data, CSRNDArray) or _recording(data):
        return ops.sum(data, axis, keepdims, exclude, out=out)
    return _write_out(_csr_reduce(data, axis, keepdims, exclude, data._values)[0], out)


def mean(data, axis=None, keepdims=False, exclude=False, out=None):
    """Mean over ``axis`` (dense result); for csr, Σ of the stored values / count."""
    if not isinstance(data, CSRNDArray) or _recording(data):
        return ops.mean(data, axis, keepdims, exclude, out=out)
    total, axes = _csr_reduce(data, axis, keepdims, exclude, data._values)
    count = int(np.prod([data.shape[a] for a in axes]))
    # As the dense mean: in the array's dtype (an integer mean truncates).
    return _write_out(NDArray((total._data / count).astype(total._data.dtype), data.context),
                      out)


def norm(data, ord=2, axis=None, keepdims=False, out=None):
    """The L2 (``ord=2``) or L1 (``ord=1``) norm over ``axis``; csr uses its stored values."""
    if not isinstance(data, CSRNDArray) or _recording(data):
        return ops.norm(data, ord=ord, axis=axis, keepdims=keepdims, out=out)
    xp = data._xp
    if ord not in (1, 2):
        raise MXNetError("norm: ord must be 1 or 2, got %r" % (ord,))
    values = xp.abs(data._values) if ord == 1 else data._values * data._values
    total, _ = _csr_reduce(data, axis, keepdims, False, values)
    if ord == 2:
        total = NDArray(xp.sqrt(total._data).astype(values.dtype), data.context)
    return _write_out(total, out)


# ---------------------------------------------------------------------- shape
def slice(data, begin, end, step=None, out=None):
    """``data[begin:end]`` per axis (``None``: the whole axis); a csr input stays csr
    (rows and columns; no step)."""
    if not isinstance(data, CSRNDArray) or _recording(data):
        return ops.slice(_dense(data), begin, end, step, out=out)
    if step is not None and any(s not in (None, 1) for s in step):
        raise MXNetError("slice of a csr array takes no step; got step=%s" % (tuple(step),))
    bounds = [builtins.slice(b, e).indices(n) for b, e, n in
              zip(tuple(begin) + (None,) * (2 - len(begin)),
                  tuple(end) + (None,) * (2 - len(end)), data.shape)]
    (r0, r1, _), (c0, c1, _) = bounds
    rows = data._rows(r0, r1)
    if (c0, c1) == (0, data.shape[1]):
        return _write_out(rows, out)
    if c0 >= c1:
        raise MXNetError("slice: columns [%d, %d) of a csr array are empty" % (c0, c1))
    xp = data._xp
    keep = (rows._col_indices >= c0) & (rows._col_indices < c1)
    counts = xp.bincount(rows._row_ids()[keep], minlength=r1 - r0)
    indptr = xp.concatenate([xp.zeros(1, dtype=np.int64), xp.cumsum(counts)]).astype(np.int64)
    return _write_out(CSRNDArray(rows._values[keep], rows._col_indices[keep] - c0, indptr,
                                 (r1 - r0, c1 - c0), data.context), out)


def concat(*data, dim=1, out=None, **kwargs):
    """Join arrays along ``dim``; csr arrays joined along rows (``dim=0``) stay csr."""
    if not (dim == 0 and data and all(isinstance(d, CSRNDArray) for d in data)) \
            or _recording(*data):
        return ops.concat(*(_dense(d) for d in data), dim=dim, out=out)
    first = data[0]
    for d in data[1:]:
        _check_pair('concat', first, d)
        if d.shape[1] != first.shape[1]:
            raise MXNetError("concat: csr arrays of %d and %d columns cannot be stacked"
                             % (first.shape[1], d.shape[1]))
    xp = first._xp
    offsets = np.cumsum([0] + [d._values.shape[0] for d in data[:-1]])
    indptr = xp.concatenate([xp.zeros(1, dtype=np.int64)] +
                            [d._indptr[1:] + int(o) for d, o in zip(data, offsets)])
    return _write_out(CSRNDArray(xp.concatenate([d._values for d in data]),
                                 xp.concatenate([d._col_indices for d in data]), indptr,
                                 (builtins.sum(d.shape[0] for d in data), first.shape[1]),
                                 first.context), out)


# ---------------------------------------------------------------------- dot
def _rows_of(rhs, ids):
    """Rows ``ids`` of a dense or row-sparse 2-D array (zeros for rows not stored)."""
    if isinstance(rhs, RowSparseNDArray):
        return rhs._gather_rows(ids)
    return rhs._data[ids]


def _segment_sums(xp, values, indptr):
    """Row i: the sum of ``values[indptr[i]:indptr[i + 1]]`` (zeros when empty), added in
    order, as MXNet's csr kernels add."""
    sums = xp.zeros((indptr.shape[0] - 1,) + values.shape[1:], dtype=values.dtype)
    nonempty = xp.flatnonzero(indptr[1:] > indptr[:-1])
    if nonempty.shape[0]:
        # Empty segments between two non-empty ones have no entries: each reduceat
        # slice runs exactly to the end of its segment.
        sums[nonempty] = xp.add.reduceat(values, indptr[nonempty], axis=0)
    return sums


def _csr_times(lhs, rhs_rows):
    """``C @ R`` for the csr ``lhs`` = C, given ``rhs_rows`` = the rows of R its entries
    pick (entry j: row ``indices[j]`` of R)."""
    return _segment_sums(lhs._xp, lhs._values[:, None] * rhs_rows, lhs._indptr)


def _csr_transpose_times(lhs, rhs_rows):
    """``C.T @ R`` for the csr ``lhs`` = C, given ``rhs_rows`` = the rows of R of each
    entry's row: ``(rows present, their values)`` — one row per column of C that holds
    an entry."""
    return sum_by_id(lhs._xp, lhs._col_indices, lhs._values[:, None] * rhs_rows)


def _check_csr_dot(lhs, rhs, transpose_a):
    if rhs.ndim != 2:
        raise MXNetError("dot of a csr array needs a 2-D right-hand side, got shape %s"
                         % (rhs.shape,))
    if np.dtype(lhs.dtype) not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise MXNetError("dot of a csr array supports float32 and float64 (as MXNet), not %s; "
                         "convert with .astype('float32')" % np.dtype(lhs.dtype))
    inner = lhs.shape[0] if transpose_a else lhs.shape[1]
    if inner != rhs.shape[0]:
        raise MXNetError("dot: shapes %s and %s are not aligned (transpose_a=%s): %d != %d"
                         % (lhs.shape, rhs.shape, transpose_a, inner, rhs.shape[0]))


def _csr_dot(lhs, rhs, transpose_a):
    """``lhs @ rhs`` (dense) or ``lhs.T @ rhs`` (row_sparse) for a csr ``lhs``."""
    _check_csr_dot(lhs, rhs, transpose_a)
    rows, cols = lhs._row_ids(), lhs._col_indices
    with _backend.device_scope(lhs.context):
        if transpose_a:
            present, values = _csr_transpose_times(lhs, _rows_of(rhs, rows))
            y = RowSparseNDArray(values, present, (lhs.shape[1], rhs.shape[1]), lhs.context)
        else:
            y = NDArray(_csr_times(lhs, _rows_of(rhs, cols)), lhs.context)

    def backward(g):
        grad_lhs = grad_rhs = None
        if _graph.is_tracked(rhs):
            if transpose_a:   # d(C.T W) / dW = C g
                grad_rhs = _csr_times(lhs, g[cols])
            else:             # d(C W) / dW = C.T g: only the rows of the columns present
                grad_rhs = _graph.RowGrad(*_csr_transpose_times(lhs, g[rows]), rhs.shape)
        if _graph.is_tracked(lhs):
            dense_rhs = rhs._data
            grad_lhs = dense_rhs @ g.T if transpose_a else g @ dense_rhs.T
        return grad_lhs, grad_rhs
    return _graph.record(y, (lhs, rhs), backward, 'dot')


def _to_stype(result, stype):
    if stype is None or stype == result.stype:
        return result
    check_stype(stype)
    dense = result.tostype('default')
    return dense if stype == 'default' else cast_storage(dense, stype)


def dot(lhs, rhs, transpose_a=False, transpose_b=False, forward_stype=None, out=None):
    """Matrix product with MXNet's storage rules (``mx.nd.sparse.dot``; ``nd.dot`` of a
    csr input comes here).

    * ``dot(csr, W)`` → dense; ``dot(csr, W, transpose_a=True)`` → row_sparse, one row
      per column that holds an entry. ``W`` is dense or row_sparse, 2-D, float32 or
      float64. Only the rows of ``W`` that the entries pick are read, and ``W``'s
      gradient is row-sparse (those rows).
    * ``dot(dense, csr)`` → csr (``transpose_a=True``: dense).
    * ``dot(csr, csr)`` raises MXNetError (as MXNet); with a transpose it and every other
      combination compute densely and return a dense array.

    ``forward_stype`` converts the result to that storage type.
    """
    check_arrays('dot', [lhs, rhs])
    _check_pair('dot', lhs, rhs)
    lhs_csr, rhs_csr = isinstance(lhs, CSRNDArray), isinstance(rhs, CSRNDArray)
    if lhs_csr and rhs_csr and not (transpose_a or transpose_b):
        raise MXNetError("dot of two csr arrays is not supported (as in MXNet); convert one "
                         "with tostype('default')")
    if lhs_csr and not rhs_csr and not transpose_b:
        result = _csr_dot(lhs, rhs, transpose_a)
    else:
        result = ops.dot(_dense(lhs), _dense(rhs), transpose_a, transpose_b)
        if rhs_csr and not lhs_csr and not transpose_a and not _recording(lhs, rhs):
            result = from_dense(result)   # MXNet's dot(dense, csr) is csr on CPU
    return _write_out(_to_stype(result, forward_stype), out)

