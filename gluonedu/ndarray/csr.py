"""Compressed sparse row (CSR) arrays: the storage type of sparse features.

A :class:`CSRNDArray` of shape ``(rows, cols)`` keeps only its non-zero entries, row
after row, in three 1-D arrays:

* ``data`` (nnz,): the values — row 0's, then row 1's, …;
* ``indices`` (nnz,): the column of each value (int64, increasing within a row);
* ``indptr`` (rows + 1,): row ``i`` owns ``data[indptr[i]:indptr[i + 1]]`` (int64,
  ``indptr[0] == 0``, non-decreasing, ``indptr[-1] == nnz``).

For example ``[[0, 1, 0], [2, 0, 3]]`` is ``data = [1, 2, 3]``, ``indices = [1, 0, 2]``,
``indptr = [0, 1, 3]``. A batch of bag-of-words documents is mostly zeros: 1000 rows of
a million features with 10 words each hold 10,000 values instead of a billion. Row
slices (``x[10:20]``) are cheap: they cut ``data`` and ``indices`` at ``indptr``.

As in MXNet 1.9.1, operators that keep zeros at zero (``nd.sparse.square``, ``x * 2``,
``x + y`` of two CSR arrays, ``sparse.dot``) return CSR (or row-sparse) results; other
operators compute on the dense equivalent and return a dense array ("storage
fallback"): the same numbers, dense storage. What CSR storage cannot offer raises:
``reshape`` (:class:`NotSupportedForSparseNDArray`), a step or a column range in
``x[...]`` (ValueError), writing anything but the whole array (``x[:] = value``).
"""
import numbers

import numpy as np

from .. import _backend
from ..base import MXNetError, NotSupportedForSparseNDArray, normalize_dtype
from ..context import Context
from . import _graph
from .ndarray import NDArray, _as_ctx, _move
from .sparse import BaseSparseNDArray, RowSparseNDArray, check_stype

__all__ = ['CSRNDArray', 'csr_matrix', 'csr_zeros', 'is_scipy_sparse']


class CSRNDArray(BaseSparseNDArray):
    """A 2-D array in compressed sparse row storage: ``data``, ``indices``, ``indptr``.

    Make one with :func:`csr_matrix`, ``x.tostype('csr')`` or
    ``mx.nd.zeros(shape, stype='csr')``.
    """
    __slots__ = ('_values', '_col_indices', '_indptr', '_shape')

    def __init__(self, values, col_indices, indptr, shape, ctx):
        self._init_sparse(values, shape, ctx)
        self._col_indices = col_indices
        self._indptr = indptr

    # ------------------------------------------------------------------ properties
    @property
    def _data(self):
        """The dense equivalent (computed on demand: what a storage fallback works on)."""
        xp = self._xp
        with _backend.device_scope(self._ctx):
            dense = xp.zeros(self._shape, dtype=self._values.dtype)
            dense[self._row_ids(), self._col_indices] = self._values
        return dense

    @property
    def stype(self):
        return 'csr'

    @property
    def data(self):
        """A copy of the stored values, shape (nnz,)."""
        return NDArray(self._values.copy(), self._ctx)

    @property
    def indices(self):
        """A copy of the column index of each stored value (int64)."""
        return NDArray(self._col_indices.copy(), self._ctx)

    @property
    def indptr(self):
        """A copy of the row pointers (int64, rows + 1); row i is
        ``data[indptr[i]:indptr[i+1]]``."""
        return NDArray(self._indptr.copy(), self._ctx)

    def _row_ids(self):
        """The row of each stored value (int64, nnz)."""
        return segment_ids(self._xp, self._indptr, self._values.shape[0])

    # ------------------------------------------------------------------ conversions
    def asscipy(self):
        """The same matrix as a ``scipy.sparse.csr_matrix`` (needs SciPy)."""
        try:
            import scipy.sparse as spsp
        except ImportError:
            raise ImportError("asscipy() needs SciPy: pip install scipy (it comes with "
                              "scikit-learn)") from None
        host = [np.array(_backend.to_host(a)) for a in
                (self._values, self._col_indices, self._indptr)]
        return spsp.csr_matrix(tuple(host), shape=self._shape)

    def tostype(self, stype):
        """This array as ``stype``: 'default' (dense, gradients flow back) or 'csr' (a copy).

        A cast to 'row_sparse' raises ValueError, as in MXNet.
        """
        check_stype(stype)
        if stype == 'csr':
            return self.copy()
        if stype == 'row_sparse':
            raise ValueError("cannot cast a csr array to row_sparse (MXNet has no such cast); "
                             "go through tostype('default') first")
        return super().tostype(stype)

    def copyto(self, other):
        """Copy into ``other`` (an NDArray of the same shape, written in place) or a Context."""
        if isinstance(other, Context):
            with _backend.device_scope(other):
                return CSRNDArray(*(_move(a, self._ctx, other, True) for a in
                                    (self._values, self._col_indices, self._indptr)),
                                  self._shape, other)
        if isinstance(other, RowSparseNDArray):
            raise TypeError("copyto: a csr array cannot be copied into a row_sparse one; "
                            "copy it into a dense or csr array")
        return super().copyto(other)

    def astype(self, dtype, copy=True):
        """This array with values of ``dtype`` (itself if unchanged and ``copy=False``)."""
        dtype = normalize_dtype(dtype)
        if not copy and dtype == self._values.dtype:
            return self
        return CSRNDArray(self._values.astype(dtype), self._col_indices.copy(),
                          self._indptr.copy(), self._shape, self._ctx)

    def detach(self):
        """The same values, cut from the recorded graph."""
        return CSRNDArray(self._values, self._col_indices, self._indptr, self._shape,
                          self._ctx)

    def attach_grad(self, grad_req='write', stype=None):
        """Make this array a variable; its gradient buffer is csr unless ``stype`` says."""
        super().attach_grad(grad_req, 'csr' if stype is None else stype)

    def __reduce__(self):
        return (_rebuild_csr, tuple(np.array(_backend.to_host(a)) for a in
                                    (self._values, self._col_indices, self._indptr))
                + (self._shape, self._ctx))

    def check_format(self, full_check=True):
        """Raise MXNetError unless the stored arrays form a valid CSR matrix.

        ``full_check=False`` checks the sizes and ``indptr`` only; True also checks that
        every column index lies in range and increases within its row.
        """
        check_csr_format(*(np.asarray(_backend.to_host(a)) for a in
                           (self._values, self._col_indices, self._indptr)),
                         self._shape, full_check)

    # ------------------------------------------------------------------ indexing
    def __getitem__(self, key):
        """Rows: ``x[i]`` (one row, kept 2-D), ``x[begin:end]``, ``x[:]`` (itself)."""
        if isinstance(key, numbers.Integral) and not isinstance(key, bool):
            begin = key + self._shape[0] if key < 0 else key
            return self._rows(begin, begin + 1)
        if isinstance(key, slice):
            if key.step is not None:
                raise ValueError("a csr array supports contiguous row slices only (x[a:b]), "
                                 "not a step")
            if key.start is None and key.stop is None:
                return self
            begin, end, _ = key.indices(self._shape[0])   # clipped, as Python (and MXNet)
            return self._rows(begin, end)
        if isinstance(key, tuple):
            raise ValueError("a csr array is indexed by rows only (x[a:b]); use "
                             "mx.nd.sparse.slice(x, begin=(r0, c0), end=(r1, c1)) for columns")
        raise ValueError("cannot index a csr array with %r: use an int or a row slice x[a:b]; "
                         "for arbitrary rows use x.take(ids)" % (key,))

    def _rows(self, begin, end):
        """Rows [begin, end) as a new CSRNDArray."""
        if not 0 <= begin < end <= self._shape[0]:
            raise MXNetError("rows [%d, %d) of a csr array with %d rows: the range must be "
                             "non-empty and inside the array" % (begin, end, self._shape[0]))
        start, stop = (int(v) for v in _backend.to_host(self._indptr[[begin, end]]))
        return CSRNDArray(self._values[start:stop].copy(), self._col_indices[start:stop].copy(),
                          self._indptr[begin:end + 1] - start, (end - begin, self._shape[1]),
                          self._ctx)

    def take(self, indices, axis=0, mode='clip'):
        """The rows ``indices`` (axis 0) as a csr array; other axes fall back to dense."""
        if axis != 0:
            return sparse_ops.dense_fallback('take', self, indices, axis=axis, mode=mode)
        xp = self._xp
        ids = xp.asarray(indices._data if isinstance(indices, NDArray) else indices)
        ids = ids.astype(np.int64).reshape(-1)
        n = self._shape[0]
        ids = xp.mod(ids, n) if mode == 'wrap' else xp.clip(ids, 0, n - 1)
        starts = self._indptr[ids]
        indptr = xp.concatenate([xp.zeros(1, dtype=np.int64),
                                 xp.cumsum(self._indptr[ids + 1] - starts)])
        # Where each entry of the picked rows sits in the stored arrays.
        total = int(_backend.to_host(indptr[-1:])[0])
        owner = segment_ids(xp, indptr, total)
        where = starts[owner] + (xp.arange(total) - indptr[owner])
        return CSRNDArray(self._values[where], self._col_indices[where], indptr,
                          (ids.shape[0], self._shape[1]), self._ctx)

    def reshape(self, *shape, **kwargs):
        raise NotSupportedForSparseNDArray(self.reshape, None, shape)

    def __setitem__(self, key, value):
        self._assign(value, key)

    def _assign(self, value, key=Ellipsis):
        """``x[:] = value``: the only write a csr array takes (as MXNet)."""
        self._check_writable()
        recorded = self._check_recorded_value(value, whole=True)
        if isinstance(key, slice):
            if key != slice(None):
                raise ValueError("a csr array can only be written whole (x[:] = value), not "
                                 "a slice of it")
        elif key is not Ellipsis:
            raise MXNetError("a csr array can only be written whole (x[:] = value); "
                             "convert with tostype('default') to write parts of it")
        if isinstance(value, numbers.Number):
            raise ValueError("cannot write a number into a csr array; give an array of its "
                             "shape %s" % (self._shape,))
        if isinstance(value, np.ndarray):
            value = from_dense(NDArray(self._xp.asarray(value), self._ctx))
        elif not isinstance(value, NDArray):
            raise TypeError("cannot write a %s into a csr array" % type(value).__name__)
        if value.shape != self._shape:
            raise MXNetError("cannot write an array of shape %s into a csr array of shape %s"
                             % (value.shape, self._shape))
        if value is self:
            return
        source = value if value.stype == 'csr' else \
            from_dense(value.tostype('default').as_in_context(self._ctx))
        with _backend.device_scope(self._ctx):
            moved = [_move(a, source._ctx, self._ctx, copy=True) for a in
                     (source._values, source._col_indices, source._indptr)]
        self._values = moved[0].astype(self._values.dtype, copy=False)
        self._col_indices, self._indptr = moved[1], moved[2]
        if recorded:
            self._record_copy_of(value)

    def _store_grad(self, grad, add):
        if isinstance(grad, _graph.RowGrad):
            grad = grad.todense(self._xp)
        if add:
            grad = grad + self._data
        stored = from_dense(NDArray(grad.astype(self._values.dtype, copy=False), self._ctx))
        self._values, self._col_indices, self._indptr = \
            stored._values, stored._col_indices, stored._indptr

    # ------------------------------------------------------------------ methods kept sparse
    def sum(self, axis=None, keepdims=False, exclude=False):
        return sparse_ops.sum(self, axis, keepdims, exclude)

    def mean(self, axis=None, keepdims=False, exclude=False):
        return sparse_ops.mean(self, axis, keepdims, exclude)

    def norm(self, ord=2, axis=None, keepdims=False):
        return sparse_ops.norm(self, ord, axis, keepdims)

    def abs(self):
        return sparse_ops.abs(self)

    def sign(self):
        return sparse_ops.sign(self)

    def sqrt(self):
        return sparse_ops.sqrt(self)

    def square(self):
        return sparse_ops.square(self)

    def relu(self):
        return sparse_ops.relu(self)

    def clip(self, a_min, a_max):
        return sparse_ops.clip(self, a_min, a_max)

    def slice(self, begin, end, step=None):
        return sparse_ops.slice(self, begin, end, step)


def segment_ids(xp, indptr, total):
    """For positions 0..total-1 of arrays cut into segments at ``indptr``, each one's
    segment (int64): the row of every stored value, for a csr ``indptr``."""
    return xp.searchsorted(indptr[1:], xp.arange(total), side='right').astype(np.int64)


def _rebuild_csr(values, col_indices, indptr, shape, ctx):
    xp = _backend.array_module(ctx)
    with _backend.device_scope(ctx):
        return CSRNDArray(*(xp.array(a) for a in (values, col_indices, indptr)), shape, ctx)


# ---------------------------------------------------------------------- construction
def csr_zeros(shape, ctx, dtype):
    """An all-zero csr array (no stored values)."""
    if len(shape) != 2:
        raise MXNetError("csr storage holds 2-D arrays, not shape %s" % (shape,))
    xp = _backend.array_module(ctx)
    with _backend.device_scope(ctx):
        return CSRNDArray(xp.zeros(0, dtype=dtype), xp.zeros(0, dtype=np.int64),
                          xp.zeros(shape[0] + 1, dtype=np.int64), shape, ctx)


def from_dense(dense):
    """The csr array holding the non-zero entries of the 2-D NDArray ``dense``."""
    data = dense._data
    if data.ndim != 2:
        raise ValueError("csr storage holds 2-D arrays; this array has shape %s"
                         % (tuple(data.shape),))
    xp = dense._xp
    with _backend.device_scope(dense._ctx):
        rows, cols = xp.nonzero(data)           # row-major: sorted by row, then column
        counts = xp.bincount(rows, minlength=data.shape[0])
        indptr = xp.concatenate([xp.zeros(1, dtype=np.int64), xp.cumsum(counts)])
        return CSRNDArray(data[rows, cols], cols.astype(np.int64), indptr.astype(np.int64),
                          data.shape, dense._ctx)


def check_csr_format(values, col_indices, indptr, shape, full_check=True):
    """Raise MXNetError unless host arrays ``values, col_indices, indptr`` form a valid
    CSR matrix of ``shape`` (see the module docstring for the rules)."""
    rows, cols = shape
    nnz = values.shape[0]
    problem = None
    if values.ndim != 1 or col_indices.ndim != 1 or indptr.ndim != 1:
        problem = "data, indices and indptr must be 1-D"
    elif indptr.shape[0] != rows + 1:
        problem = "indptr has %d entries; a matrix of %d rows needs %d" % (
            indptr.shape[0], rows, rows + 1)
    elif col_indices.shape[0] != nnz:
        problem = "data has %d values but indices has %d" % (nnz, col_indices.shape[0])
    elif indptr[0] != 0 or indptr[-1] != nnz:
        problem = "indptr must start at 0 and end at the number of values (%d), got " \
            "%d ... %d" % (nnz, indptr[0], indptr[-1])
    elif (np.diff(indptr) < 0).any():
        problem = "indptr must be non-decreasing"
    elif full_check and nnz:
        row_ids = segment_ids(np, indptr, nnz)
        same_row = row_ids[1:] == row_ids[:-1]
        if col_indices.min() < 0 or col_indices.max() >= cols:
            problem = "column indices must lie in [0, %d)" % cols
        elif (np.diff(col_indices)[same_row] <= 0).any():
            problem = "the column indices of each row must be increasing (sorted, no repeats)"
    if problem is not None:
        raise MXNetError("invalid csr matrix of shape %s: %s" % (tuple(shape), problem))


def is_scipy_sparse(value):
    """Whether ``value`` is a SciPy sparse matrix (without importing SciPy)."""
    module = type(value).__module__ or ''
    return module.startswith('scipy.sparse') and hasattr(value, 'tocsr')


def _host(value):
    if isinstance(value, NDArray):
        return value.asnumpy()
    return np.asarray(_backend.to_host(value) if hasattr(value, 'get') else value)


def _source_dtype(source, dtype):
    """MXNet's rule: the given dtype, else a NumPy/NDArray source's own, else float32."""
    if dtype is not None:
        return normalize_dtype(dtype)
    if isinstance(source, (np.ndarray, NDArray)):
        return np.dtype(source.dtype)
    return np.dtype(np.float32)


def _index_array(values, what):
    """``values`` as int64 host indices (float arrays of whole numbers are accepted)."""
    host = _host(values).reshape(-1)
    if host.size and not np.issubdtype(host.dtype, np.integer):
        if not np.issubdtype(host.dtype, np.number) or (host != np.floor(host)).any():
            raise MXNetError("csr_matrix: %s must be whole numbers, got %r" % (what, host))
    return host.astype(np.int64)


def _from_parts(values, col_indices, indptr, shape, ctx):
    """A CSRNDArray on ``ctx`` from validated host arrays."""
    check_csr_format(values, col_indices, indptr, shape)
    xp = _backend.array_module(ctx)
    with _backend.device_scope(ctx):
        return CSRNDArray(*(xp.array(a) for a in (values, col_indices, indptr)), shape, ctx)


def _from_triple(data, indices, indptr, shape, ctx, dtype):
    values = _host(data).astype(_source_dtype(data, dtype))
    if values.ndim != 1:
        raise MXNetError("csr_matrix: data must be 1-D, got shape %s" % (values.shape,))
    col_indices = _index_array(indices, 'indices')
    indptr = _index_array(indptr, 'indptr')
    if shape is None:
        shape = (indptr.shape[0] - 1, int(col_indices.max()) + 1 if col_indices.size else 0)
    return _from_parts(values, col_indices, indptr, _shape2(shape), ctx)


def _from_coo(data, rows, cols, shape, ctx, dtype):
    """``(data, (row, col))``: entries at given positions; repeated positions are summed."""
    values = _host(data).astype(_source_dtype(data, dtype)).reshape(-1)
    rows, cols = _index_array(rows, 'row ids'), _index_array(cols, 'column ids')
    if not values.shape == rows.shape == cols.shape:
        raise MXNetError("csr_matrix: (data, (row, col)) need three arrays of one length, got "
                         "%d, %d and %d" % (values.shape[0], rows.shape[0], cols.shape[0]))
    if shape is None:
        shape = (int(rows.max()) + 1 if rows.size else 0,
                 int(cols.max()) + 1 if cols.size else 0)
    shape = _shape2(shape)
    if rows.size and (rows.min() < 0 or rows.max() >= shape[0] or cols.min() < 0
                      or cols.max() >= shape[1]):
        raise MXNetError("csr_matrix: positions must lie inside the shape %s" % (shape,))
    keys, where = np.unique(rows * shape[1] + cols, return_inverse=True)
    summed = np.zeros(keys.shape[0], dtype=values.dtype)
    np.add.at(summed, where.reshape(-1), values)
    indptr = np.concatenate([[0], np.cumsum(np.bincount(keys // shape[1],
                                                        minlength=shape[0]))])
    return _from_parts(summed, keys % shape[1], indptr.astype(np.int64), shape, ctx)


def _shape2(shape):
    shape = tuple(int(n) for n in shape)
    if len(shape) != 2 or min(shape) < 0:
        raise ValueError("a csr array is 2-D: shape must be (rows, cols), got %s" % (shape,))
    return shape


def _from_dense_source(source, shape, ctx, dtype):
    if isinstance(source, RowSparseNDArray):
        raise ValueError("cannot make a csr array from a row_sparse one (MXNet has no such "
                         "cast); go through tostype('default') first")
    dtype = _source_dtype(source, dtype)
    host = _host(source)
    if host.dtype == object:
        raise TypeError("csr_matrix needs numbers, got an object array")
    if host.ndim != 2:
        raise ValueError("a csr array is 2-D; this source has shape %s" % (host.shape,))
    if shape is not None and tuple(shape) != host.shape:
        raise ValueError("csr_matrix: the source has shape %s but shape=%s was given"
                         % (host.shape, tuple(shape)))
    xp = _backend.array_module(ctx)
    with _backend.device_scope(ctx):
        return from_dense(NDArray(xp.array(host.astype(dtype)), ctx))


def csr_matrix(arg1, shape=None, ctx=None, dtype=None):
    """Make a CSRNDArray (MXNet's ``mx.nd.sparse.csr_matrix``).

    ``arg1`` is one of:

    * ``(data, indices, indptr)``: the three CSR arrays (``shape`` defaults to
      ``(len(indptr) - 1, max(indices) + 1)``);
    * ``(data, (row, col))``: values at positions, repeated positions summed;
    * ``(rows, cols)``: an all-zero array of that shape;
    * a dense 2-D source (NumPy array, nested lists, NDArray): its non-zero entries;
    * a CSRNDArray or a SciPy sparse matrix: a copy.

    ``dtype`` defaults to the source's for NumPy arrays and NDArrays, else float32;
    ``ctx`` to the current context. The arrays are checked as ``check_format`` does
    (sizes, ``indptr``, column indices in range and increasing within each row):
    MXNetError names what is wrong.
    """
    ctx = _as_ctx(ctx) if ctx is not None else (
        arg1.context if isinstance(arg1, NDArray) else _as_ctx(None))
    if isinstance(arg1, tuple):
        if len(arg1) == 2 and all(isinstance(n, numbers.Integral) for n in arg1):
            return csr_zeros(_shape2(arg1), ctx, normalize_dtype(dtype))
        if len(arg1) == 2 and isinstance(arg1[1], tuple) and len(arg1[1]) == 2:
            return _from_coo(arg1[0], arg1[1][0], arg1[1][1], shape, ctx, dtype)
        if len(arg1) == 3:
            return _from_triple(*arg1, shape, ctx, dtype)
        if len(arg1) != 2:
            raise ValueError("csr_matrix takes (data, indices, indptr), (data, (row, col)) or "
                             "(rows, cols); got a tuple of %d items" % len(arg1))
    if isinstance(arg1, CSRNDArray):
        if shape is not None and tuple(shape) != arg1.shape:
            raise ValueError("csr_matrix: the source has shape %s but shape=%s was given"
                             % (arg1.shape, tuple(shape)))
        return arg1.copyto(ctx).astype(arg1.dtype if dtype is None else dtype, copy=False)
    if is_scipy_sparse(arg1):
        matrix = arg1.tocsr(copy=True)
        matrix.sum_duplicates()
        matrix.sort_indices()
        return _from_triple(matrix.data, matrix.indices, matrix.indptr,
                            shape if shape is not None else matrix.shape, ctx,
                            dtype if dtype is not None else matrix.dtype)
    if isinstance(arg1, (NDArray, np.ndarray, list, tuple)) or hasattr(arg1, '__array__'):
        return _from_dense_source(arg1, shape, ctx, dtype)
    raise TypeError("csr_matrix cannot make a csr array from a %s; give (data, indices, "
                    "indptr), a shape, or a dense 2-D array" % type(arg1).__name__)


# The operators (which the methods above call) build on this module: imported last.
from . import sparse_ops  # noqa: E402
