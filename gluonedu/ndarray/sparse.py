"""Sparse arrays (``mx.nd.sparse``): row-sparse and compressed-sparse-row storage.

A :class:`RowSparseNDArray` of shape ``(n, …)`` stores ``data`` (the k stored rows) and
``indices`` (their sorted, unique row ids, int64). Rows not stored are zero. This is the
storage type of an Embedding weight's gradient with ``sparse_grad=True``: a batch touches
only a few rows, and lazy optimizers update only those.

A :class:`~gluonedu.ndarray.csr.CSRNDArray` stores the non-zero entries of a 2-D array
row by row (``data``, ``indices``, ``indptr``): the storage type of sparse *features*
(bag of words, one-hot categories). See :mod:`gluonedu.ndarray.csr`.

This module is MXNet's ``mx.nd.sparse`` namespace: the array classes, their creation
functions (``row_sparse_array``, ``csr_matrix``, ``zeros``, ``empty``, ``array``) and the
operators that keep sparse storage (``dot``, ``add``, ``elemwise_mul``, ``retain``, …,
from :mod:`gluonedu.ndarray.sparse_ops`).
"""
import builtins
import functools

import numpy as np

from .. import _backend
from ..base import MXNetError, normalize_dtype
from ..context import Context
from . import _graph
from .ndarray import NDArray, _as_ctx, _move, from_numpy

STYPES = ('default', 'row_sparse', 'csr')


class BaseSparseNDArray(NDArray):
    """What sparse arrays share: stored ``_values`` of a ``_shape``, a summary ``repr``
    (the values are not printed) and arithmetic with MXNet's storage rules
    (:func:`gluonedu.ndarray.sparse_ops.arith`: ``x * 2`` and ``x + y`` of two csr arrays
    stay sparse, ``x + 1`` is dense, …). Subclasses compute ``_data``, the dense
    equivalent that storage fallbacks work on."""
    __slots__ = ()

    def _init_sparse(self, values, shape, ctx):
        """Set what every array carries (a subclass then sets its index arrays)."""
        self._values = values
        self._shape = tuple(shape)
        self._ctx = ctx
        self._grad = None
        self._grad_req = None
        self._node = None
        self._tape_name = None
        self._fresh_grad = False

    @property
    def shape(self):
        return self._shape

    @property
    def dtype(self):
        return self._values.dtype.type

    @property
    def size(self):
        """The number of elements of the dense equivalent."""
        return int(np.prod(self._shape))

    @property
    def ndim(self):
        return len(self._shape)

    def asnumpy(self):
        """The dense values as a NumPy array."""
        return np.array(_backend.to_host(self._data))

    def __repr__(self):
        return '\n<%s %s @%s>' % (type(self).__name__, 'x'.join(map(str, self.shape)),
                                   self._ctx)

    def __add__(self, other):
        return sparse_ops.arith('add', self, other)

    def __radd__(self, other):
        return sparse_ops.reflected('add', other, self)

    def __sub__(self, other):
        return sparse_ops.arith('subtract', self, other)

    def __rsub__(self, other):
        return sparse_ops.reflected('subtract', other, self)

    def __mul__(self, other):
        return sparse_ops.arith('multiply', self, other)

    def __rmul__(self, other):
        return sparse_ops.reflected('multiply', other, self)

    def __truediv__(self, other):
        # As MXNet: the operator divides by broadcasting (csr / dense of one shape raises).
        if isinstance(other, NDArray):
            return sparse_ops.broadcast_div(self, other)
        return sparse_ops.arith('divide', self, other)

    def __rtruediv__(self, other):
        return sparse_ops.reflected('divide', other, self)

    def __neg__(self):
        return sparse_ops.arith('multiply', self, -1.0)

    def __abs__(self):
        return sparse_ops.abs(self)

    def __eq__(self, other):
        return sparse_ops.arith('equal', self, other)

    def __ne__(self, other):
        return sparse_ops.arith('not_equal', self, other)

    def __lt__(self, other):
        return sparse_ops.arith('less', self, other)

    def __le__(self, other):
        return sparse_ops.arith('less_equal', self, other)

    def __gt__(self, other):
        return sparse_ops.arith('greater', self, other)

    def __ge__(self, other):
        return sparse_ops.arith('greater_equal', self, other)

    __hash__ = NDArray.__hash__

    def _inplace(self, other, op):
        """``x += y`` and friends: compute ``x op y``, then store it in x's storage type."""
        self._check_writable()
        self._check_recorded_value(other, whole=False)
        self._assign(sparse_ops.arith(op, self, other))
        return self

    def tostype(self, stype):
        """This array as a dense one ('default'; gradients flow back through the cast)."""
        check_stype(stype)
        dense = NDArray(self._data, self._ctx)
        return _graph.record(dense, (self,), lambda g: (g,), 'cast_storage')


def _whole(key):
    """Whether an index ``key`` is ``[:]`` (this module's ``slice`` is the operator)."""
    return isinstance(key, builtins.slice) and key == builtins.slice(None)


def sum_by_id(xp, ids, values):
    """``(unique ids, sums)``: the ids sorted, and for each the sum of its ``values``
    (rows of values, one per id) in the order they come — what adding them into a zeroed
    table would give, without the table."""
    if ids.shape[0] == 0:
        return ids.astype(np.int64), values[:0]
    order = xp.argsort(ids, kind='stable')
    ids = ids[order]
    starts = xp.flatnonzero(xp.concatenate([xp.ones(1, dtype=bool), ids[1:] != ids[:-1]]))
    return ids[starts].astype(np.int64), xp.add.reduceat(values[order], starts, axis=0)


def check_stype(stype):
    """Raise MXNetError unless ``stype`` names a storage type."""
    if stype not in STYPES:
        raise MXNetError("unknown storage type %r: use one of %s" % (stype, ', '.join(STYPES)))


class RowSparseNDArray(BaseSparseNDArray):
    """A row-sparse array: ``data`` rows at row ids ``indices`` of a ``shape`` array."""
    __slots__ = ('_values', '_indices', '_shape')

    def __init__(self, values, indices, shape, ctx):
        self._init_sparse(values, shape, ctx)
        self._indices = indices

    @property
    def _data(self):
        """The dense equivalent (computed on demand)."""
        xp = self._xp
        dense = xp.zeros(self._shape, dtype=self._values.dtype)
        dense[self._indices] = self._values
        return dense

    @property
    def stype(self):
        return 'row_sparse'

    @property
    def data(self):
        """The stored rows, shape (k, …)."""
        return NDArray(self._values, self._ctx)

    @property
    def indices(self):
        """The row ids of the stored rows (int64, sorted, unique)."""
        return NDArray(self._indices, self._ctx)

    def tostype(self, stype):
        """This array as ``stype``: 'default' (dense) or 'row_sparse' (itself)."""
        check_stype(stype)
        if stype == 'row_sparse':
            return self
        if stype == 'csr':
            raise ValueError("cannot cast a row_sparse array to csr (MXNet has no such cast); "
                             "go through tostype('default') first")
        return super().tostype(stype)

    def copyto(self, other):
        if isinstance(other, Context):
            return RowSparseNDArray(_move(self._values, self._ctx, other, True),
                                    _move(self._indices, self._ctx, other, True),
                                    self._shape, other)
        return super().copyto(other)

    def astype(self, dtype, copy=True):
        dtype = normalize_dtype(dtype)
        if not copy and dtype == self._values.dtype:
            return self
        return RowSparseNDArray(self._values.astype(dtype), self._indices.copy(),
                                self._shape, self._ctx)

    def __getitem__(self, key):
        if _whole(key):
            return self
        if isinstance(key, NDArray) and key.ndim == 1:
            return NDArray(self._gather_rows(key._data.astype(np.int64)), self._ctx)
        raise MXNetError("RowSparseNDArray supports x[:] and x[row_ids] (a 1-D NDArray of row "
                         "ids); convert with tostype('default') for other indexing")

    def _gather_rows(self, row_ids):
        """Dense rows ``row_ids`` (zeros for rows not stored)."""
        xp = self._xp
        rows = xp.zeros((row_ids.shape[0],) + self._shape[1:], dtype=self._values.dtype)
        if self._indices.shape[0]:
            pos = xp.minimum(xp.searchsorted(self._indices, row_ids), self._indices.shape[0] - 1)
            stored = self._indices[pos] == row_ids
            rows[stored] = self._values[pos[stored]]
        return rows

    def _scatter_rows(self, row_ids, values):
        """Store ``values`` as rows ``row_ids`` (unique), adding rows not stored yet."""
        xp = self._xp
        indices = xp.union1d(self._indices, row_ids).astype(np.int64)
        merged = xp.zeros((indices.shape[0],) + self._shape[1:], dtype=self._values.dtype)
        merged[xp.searchsorted(indices, self._indices)] = self._values
        merged[xp.searchsorted(indices, row_ids)] = values
        self._replace(indices, merged)

    def _assign(self, value, key=Ellipsis):
        self._check_writable()
        if not (key is Ellipsis or _whole(key)):
            if getattr(key, 'ndim', None) != 1:
                raise MXNetError("RowSparseNDArray supports x[:] = value and x[row_ids] = rows "
                                 "assignment only")
            rows = value._data if isinstance(value, NDArray) else self._xp.asarray(value)
            self._scatter_rows(key.astype(np.int64), self._xp.broadcast_to(
                rows, (key.shape[0],) + self._shape[1:]).astype(self._values.dtype))
            return
        if isinstance(value, RowSparseNDArray):
            if value.shape != self.shape:
                raise MXNetError("cannot assign a row-sparse array of shape %s to one of shape %s"
                                 % (value.shape, self.shape))
            self._replace(_move(value._indices, value._ctx, self._ctx, True),
                          _move(value._values, value._ctx, self._ctx, True).astype(
                              self._values.dtype))
            return
        if isinstance(value, (int, float)) and value == 0:
            self._replace(self._xp.zeros((0,), dtype=np.int64),
                          self._xp.zeros((0,) + self._shape[1:], dtype=self._values.dtype))
            return
        dense = from_numpy(np.broadcast_to(np.asarray(value.asnumpy() if isinstance(value, NDArray)
                                                      else value, dtype=self._values.dtype),
                                           self._shape), self._ctx)
        sparse = _dense_to_row_sparse(dense)
        self._replace(sparse._indices, sparse._values)

    def _replace(self, indices, values):
        self._indices, self._values = indices, values

    def _store_grad(self, grad, add):
        xp = self._xp
        if not isinstance(grad, _graph.RowGrad):
            grad = _dense_to_row_sparse(NDArray(grad, self._ctx))
            grad = _graph.RowGrad(grad._indices, grad._values, self._shape)
        indices, values = grad.indices, grad.data.astype(self._values.dtype)
        if add:
            indices = xp.concatenate([self._indices, indices])
            values = xp.concatenate([self._values, values])
        self._replace(*sum_by_id(xp, indices, values))

    def wait_to_read(self):
        pass


def _dense_to_row_sparse(dense):
    xp = dense._xp
    data = dense._data
    nonzero = (data.reshape(data.shape[0], -1) != 0).any(axis=1)
    indices = xp.nonzero(nonzero)[0].astype(np.int64)
    return RowSparseNDArray(data[indices].copy(), indices, data.shape, dense._ctx)


def row_sparse_array(arg1, shape=None, ctx=None, dtype=None):
    """Make a RowSparseNDArray.

    ``arg1`` is ``(data, indices)`` (with ``shape`` giving the full shape), a dense
    array-like, or a RowSparseNDArray.
    """
    if isinstance(arg1, RowSparseNDArray):
        out = arg1.copyto(_as_ctx(ctx) if ctx is not None else arg1.ctx)
        return out if dtype is None else out.astype(dtype)
    ctx = _as_ctx(ctx)
    if isinstance(arg1, tuple) and len(arg1) == 2:
        values, indices = arg1
        values = np.asarray(values.asnumpy() if isinstance(values, NDArray) else values,
                            dtype=normalize_dtype(dtype if dtype is not None else
                                                  (values.dtype if isinstance(values, NDArray)
                                                   else None)))
        indices = np.asarray(indices.asnumpy() if isinstance(indices, NDArray) else indices
                             ).astype(np.int64).reshape(-1)
        if shape is None:
            shape = (int(indices.max()) + 1 if indices.size else 0,) + values.shape[1:]
        shape = tuple(shape)
        if values.shape[0] != indices.shape[0] or values.shape[1:] != shape[1:]:
            raise MXNetError("row_sparse_array: data of shape %s does not fit %d indices and "
                             "shape %s" % (values.shape, indices.shape[0], shape))
        if indices.size and (indices.min() < 0 or indices.max() >= shape[0]):
            raise MXNetError("row_sparse_array: indices must lie in [0, %d)" % shape[0])
        if np.unique(indices).size != indices.size:
            raise MXNetError("row_sparse_array: indices must be unique")
        order = np.argsort(indices)
        return RowSparseNDArray(from_numpy(values[order], ctx)._data,
                                from_numpy(indices[order], ctx)._data, shape, ctx)
    from .ndarray import array as dense_array
    return _dense_to_row_sparse(dense_array(arg1, ctx=ctx, dtype=dtype))


def zeros(stype, shape, ctx=None, dtype=None, **kwargs):
    """An all-zero array of storage type ``stype``: 'row_sparse', 'csr' (2-D) or 'default'."""
    check_stype(stype)
    if stype == 'default':
        from .ndarray import zeros as dense_zeros
        return dense_zeros(shape, ctx=ctx, dtype=dtype)
    ctx = _as_ctx(ctx)
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if stype == 'csr':
        return csr_zeros(shape, ctx, normalize_dtype(dtype))
    xp = _backend.array_module(ctx)
    with _backend.device_scope(ctx):
        return RowSparseNDArray(xp.zeros((0,) + shape[1:], dtype=normalize_dtype(dtype)),
                                xp.zeros((0,), dtype=np.int64), shape, ctx)


def empty(stype, shape, ctx=None, dtype=None):
    """A sparse array without stored values: the same as :func:`zeros`."""
    return zeros(stype, shape, ctx=ctx, dtype=dtype)


def array(source_array, ctx=None, dtype=None):
    """A copy of a sparse array (CSRNDArray, RowSparseNDArray or a SciPy sparse matrix).

    As MXNet, dense sources are refused: use ``mx.nd.array`` for them, or
    ``csr_matrix``/``row_sparse_array`` to make a sparse array from dense values.
    """
    if isinstance(source_array, CSRNDArray) or is_scipy_sparse(source_array):
        return csr_matrix(source_array, ctx=ctx, dtype=dtype)
    if isinstance(source_array, RowSparseNDArray):
        return row_sparse_array(source_array, ctx=ctx, dtype=dtype)
    raise ValueError("mx.nd.sparse.array copies sparse arrays, not a %s: use mx.nd.array for "
                     "dense values, or csr_matrix / row_sparse_array to store them sparsely"
                     % type(source_array).__name__)


def retain(data, indices):
    """A row-sparse array holding only the rows of ``data`` whose ids are in ``indices``."""
    if not isinstance(data, RowSparseNDArray):
        raise MXNetError("retain expects a RowSparseNDArray, got %s" % type(data).__name__)
    xp = data._xp
    wanted = indices._data.astype(np.int64) if isinstance(indices, NDArray) else \
        xp.asarray(indices, dtype=np.int64)
    keep = xp.isin(data._indices, wanted)
    return RowSparseNDArray(data._values[keep], data._indices[keep], data.shape, data.ctx)


# The rest of the namespace: CSR storage and the operators over sparse arrays. Imported
# last, because they build on the classes above.
from .csr import CSRNDArray, csr_matrix, csr_zeros, is_scipy_sparse  # noqa: E402
from . import sparse_ops  # noqa: E402
from .sparse_ops import *  # noqa: E402,F401,F403
from .sparse_ops import __all__ as _ops_all  # noqa: E402

__all__ = ['BaseSparseNDArray', 'RowSparseNDArray', 'CSRNDArray', 'row_sparse_array',
           'csr_matrix', 'retain', 'zeros', 'empty', 'array'] + list(_ops_all)

# Operators MXNet also lists here whose results are dense: the table's own functions
# (sparse inputs are made dense first, MXNet's storage fallback).
from . import registry as _registry  # noqa: E402

_DENSE_RESULTS = ('Embedding', 'FullyConnected', 'LinearRegressionOutput',
                  'LogisticRegressionOutput', 'MAERegressionOutput', 'make_loss')
globals().update({name: _registry.make_function(_registry.get(name), name)
                  for name in _DENSE_RESULTS})


def ElementWiseSum(*args, **kwargs):  # noqa: N802  (MXNet's name)
    """The sum of the arrays (``add_n``): row_sparse when every one is (their rows summed,
    ``((a + b) + c) + ...``), dense otherwise."""
    if args and not kwargs and all(isinstance(a, RowSparseNDArray) for a in args):
        return functools.reduce(lambda a, b: sparse_ops.arith('add', a, b), args)
    return add_n(*args, **kwargs)  # noqa: F405 (from sparse_ops)


__all__ += list(_DENSE_RESULTS) + ['ElementWiseSum']
