"""NDArray: an n-dimensional array on one device, with MXNet 1.x semantics.

An NDArray wraps a NumPy array (CPU contexts) or a CuPy array (GPU contexts) and the
context it lives on. As in MXNet 1.x:

* the default dtype is float32, also for arrays made from Python lists or NumPy arrays;
* there are no zero-dimensional arrays: scalars and full reductions have shape ``(1,)``;
* comparisons return 0/1 in the array's own dtype, not booleans;
* operations need their array inputs on one context and of one dtype
  (``MXNetError`` otherwise: use ``as_in_context`` / ``astype``);
* arrays are mutable: ``x[:] = y``, ``x += y`` and ``out=`` write in place.
"""
import numbers
import operator
import warnings

import numpy as np

from .. import _backend
from ..base import MXNetError, STYPE_TO_MX, normalize_dtype, numeric_types
from ..context import Context, current_context
from . import _graph

__all__ = ['NDArray', 'array', 'empty', 'zeros', 'ones', 'full', 'arange', 'waitall',
           'from_numpy']

_GRAD_REQS = ('write', 'add', 'null')

# MXNet's storage-type ids by name and back, under MXNet's names (its tests and some user code
# import them from mxnet.ndarray.ndarray); -1 is a storage type not known yet.
_STORAGE_TYPE_STR_TO_ID = {'undefined': -1, **STYPE_TO_MX}
_STORAGE_TYPE_ID_TO_STR = {code: stype for stype, code in _STORAGE_TYPE_STR_TO_ID.items()}


def _as_ctx(ctx):
    if ctx is None:
        return current_context()
    if isinstance(ctx, Context):
        return ctx
    if isinstance(ctx, str):  # 'cpu(1)' or 'gpu'
        name, _, rest = ctx.partition('(')
        return Context(name, int(rest.rstrip(')') or 0))
    raise TypeError("ctx must be a Context such as mx.cpu(0) or mx.gpu(0), got %r" % (ctx,))


class NDArray:
    """An array on one device. Create with :func:`array`, :func:`zeros`, ... .

    The gradient machinery is carried on the array: ``attach_grad()`` makes it a
    variable with a gradient buffer ``grad``; results computed under
    ``autograd.record()`` remember how they were made, and ``backward()`` fills the
    variables' ``grad``.
    """
    __slots__ = ('_data', '_ctx', '_grad', '_grad_req', '_node', '_tape_name', '_fresh_grad',
                 '__weakref__')
    # Make NumPy defer to our reflected operators (np.float32(2) * nd -> NDArray).
    __array_priority__ = 1000.0

    def __init__(self, data, ctx):
        if data.ndim == 0:
            data = data.reshape(1)
        self._data = data
        self._ctx = ctx
        self._grad = None
        self._grad_req = None
        self._node = None
        self._tape_name = None  # its name as a leaf of the tape (var<n>, null<n>)
        self._fresh_grad = False

    # ------------------------------------------------------------------ basics
    @property
    def _xp(self):
        return _backend.array_module(self._ctx)

    @property
    def shape(self):
        """Tuple of the array's dimensions."""
        return self._data.shape

    @property
    def dtype(self):
        """The NumPy type of the elements (``numpy.float32`` and so on)."""
        return self._data.dtype.type

    @property
    def size(self):
        """Number of elements."""
        return int(self._data.size)

    @property
    def ndim(self):
        """Number of dimensions."""
        return self._data.ndim

    @property
    def context(self):
        """The device this array lives on."""
        return self._ctx

    ctx = context

    @property
    def stype(self):
        """The storage type, 'default' for a dense array ('row_sparse' or 'csr' for the
        sparse ones)."""
        return 'default'

    @property
    def grad(self):
        """The gradient buffer attached by ``attach_grad`` (None if none)."""
        return self._grad

    @property
    def T(self):
        """The transpose (reversed axes)."""
        return self.transpose()

    @property
    def handle(self):
        """The underlying NumPy/CuPy array (for interoperability; shares memory)."""
        return self._data

    def __repr__(self):
        shape = 'x'.join(str(n) for n in self.shape)
        return '\n%s\n<%s %s @%s>' % (np.array2string(self.asnumpy()), type(self).__name__,
                                      shape, self._ctx)

    def __len__(self):
        return self.shape[0]

    def __iter__(self):
        for i in range(self.shape[0]):
            yield self[i]

    def __bool__(self):
        if self.size == 0:
            return False
        if self.size == 1:
            return bool(self._data.reshape(-1)[0])
        raise ValueError("The truth value of an NDArray with %d elements is ambiguous: "
                         "reduce it first, e.g. with (x > 0).sum() or x.asscalar()" % self.size)

    __hash__ = object.__hash__

    def __float__(self):
        return float(self.asscalar())

    def __int__(self):
        return int(self.asscalar())

    def __index__(self):
        if not np.issubdtype(self._data.dtype, np.integer):
            raise TypeError("only integer NDArrays of size 1 can be used as an index")
        return int(self.asscalar())

    def __reduce__(self):
        # In-memory copies (copy.deepcopy, multiprocessing) carry the values and context
        # only; files are written with mx.nd.save, never with pickle.
        return (_rebuild, (self.asnumpy(), self._ctx))

    def asnumpy(self):
        """A NumPy copy of the data (on the host)."""
        return np.array(_backend.to_host(self._data), copy=True)

    def asscalar(self):
        """The value of a size-1 array as a NumPy scalar."""
        if self.size != 1:
            raise ValueError("asscalar() needs an array of size 1, but this one has shape %s; "
                             "reduce it first (e.g. .sum()) or index one element"
                             % (self.shape,))
        return self.asnumpy().reshape(-1)[0]

    def wait_to_read(self):
        """Block until pending writes are done (a device sync on GPU; nothing on CPU)."""
        if self._ctx.device_type == 'gpu':
            with _backend.device_scope(self._ctx):
                self._xp.cuda.get_current_stream().synchronize()

    # ------------------------------------------------------------------ copies & types
    def copy(self):
        """A deep copy on the same context."""
        return self.copyto(self._ctx)

    def copyto(self, other):
        """Copy into ``other``: an NDArray (written in place and returned) or a Context."""
        if isinstance(other, NDArray):
            if other is self:
                raise MXNetError("copyto(): source and destination are the same array")
            if other.shape != self.shape:
                raise MXNetError("copyto(): shape %s does not match destination shape %s"
                                 % (self.shape, other.shape))
            other._assign(self)
            return other
        if isinstance(other, Context):
            return NDArray(_move(self._data, self._ctx, other, copy=True), other)
        raise TypeError("copyto() takes an NDArray or a Context, not %s" % type(other).__name__)

    def as_in_context(self, context):
        """This array if it already lives on ``context``, else a copy there."""
        if self._ctx == context:
            return self
        return self.copyto(context)

    as_in_ctx = as_in_context

    def astype(self, dtype, copy=True):
        """This array converted to ``dtype`` (no copy if unchanged and ``copy=False``)."""
        dtype = array_dtype(dtype)
        if not copy and dtype == self._data.dtype:
            return self
        out = NDArray(self._data.astype(dtype), self._ctx)

        def backward(g):
            return (g.astype(self._data.dtype),)
        return _graph.record(out, (self,), backward, 'astype')

    def tostype(self, stype):
        """This array in storage type ``stype``: 'default', 'row_sparse' or 'csr' (2-D)."""
        from . import sparse  # sparse builds on this module
        return self if stype == 'default' else sparse.cast_storage(self, stype)

    def detach(self):
        """The same data, cut from the recorded graph and without a gradient."""
        return NDArray(self._data, self._ctx)

    # ------------------------------------------------------------------ autograd
    def attach_grad(self, grad_req='write', stype=None):
        """Make this array a variable of differentiation, with a zeroed gradient buffer.

        Parameters
        ----------
        grad_req : {'write', 'add', 'null'}
            'write' overwrites ``grad`` at each backward, 'add' accumulates into it.
        stype : {None, 'default', 'row_sparse', 'csr'}
            Storage type of the gradient buffer.
        """
        from . import sparse  # sparse builds on this module
        _check_grad_req(grad_req)
        # (self.dtype, not self._data: a sparse array's _data is its dense equivalent.)
        if stype in (None, 'default'):
            grad = _filled(0, self.shape, self._ctx, self.dtype)
        else:
            grad = sparse.zeros(stype, self.shape, ctx=self._ctx, dtype=self.dtype)
        mark_variable(self, grad, grad_req)

    def backward(self, out_grad=None, retain_graph=False, train_mode=True):
        """Compute the gradients of this array with respect to the recorded variables."""
        from .. import autograd
        autograd.backward([self], None if out_grad is None else [out_grad],
                          retain_graph=retain_graph, train_mode=train_mode)

    def _store_grad(self, grad, add):
        if grad.dtype != self._data.dtype:
            grad = grad.astype(self._data.dtype)
        if add:
            self._data += grad
        else:
            self._data[...] = grad

    # ------------------------------------------------------------------ in-place writes
    def _check_writable(self):
        if _graph.STATE.recording and _graph.is_tracked(self):
            raise MXNetError(
                "cannot write in place to an array that takes part in the recorded graph while "
                "recording: the recorded gradient would be wrong. Write outside "
                "`autograd.record()`, or use out-of-place ops (y = x + 1).")

    def _check_recorded_value(self, value, whole):
        """As MXNet: while recording, a value that needs gradients may only overwrite a whole
        array (recorded as a copy); writing it into part of one, or with +=, is refused."""
        recorded = (_graph.STATE.recording and isinstance(value, NDArray)
                    and _graph.is_tracked(value))
        if recorded and not whole:
            raise MXNetError(
                "in-place operations (+=, x[i] = ..., etc.) are not supported when recording "
                "with autograd: the gradient could not flow through them. Build the result "
                "out of place (y = x + v, nd.concat, nd.where) instead.")
        return recorded

    def _assign(self, value, key=Ellipsis):
        """``self[key] = value`` for an NDArray, NumPy array or scalar (casting to our dtype)."""
        self._check_writable()
        whole = key is Ellipsis or (isinstance(key, slice) and key == slice(None))
        recorded = self._check_recorded_value(value, whole)
        if isinstance(value, NDArray):
            if value.stype != 'default':
                value = value.tostype('default')
            src = _move(value._data, value._ctx, self._ctx, copy=False)
        elif isinstance(value, numeric_types):  # as MXNet: the C++ cast of float(value)
            src = _ops.binary.scalar_as(self._data.dtype, float(value))
        else:
            src = _host_values(value, self._data.dtype)
            if self._ctx.device_type == 'gpu':
                src = _move(src, Context('cpu'), self._ctx, copy=False)
        target = self._data[key]
        target_shape = np.shape(target)
        if not np.size(target):  # nothing to write (any value, as MXNet)
            return
        if isinstance(src, np.ndarray) or hasattr(src, 'get'):
            src = _fit_value(src, target_shape)
        with _backend.device_scope(self._ctx):
            self._data[key] = src
        if recorded:
            self._record_copy_of(value)

    def _record_copy_of(self, value):
        """Record ``self[:] = value`` so that gradients flow back to ``value``."""
        shape, dtype = value.shape, value._data.dtype
        broadcast = len(shape) <= self.ndim and all(
            s in (1, t) for s, t in zip(reversed(shape), reversed(self.shape)))

        def backward(g):
            g = _unbroadcast(self._xp, g, shape) if broadcast else g.reshape(shape)
            return (_move(g.astype(dtype, copy=False), self._ctx, value._ctx, copy=False),)
        _graph.record(self, (value,), backward, 'copyto')

    def __setitem__(self, key, value):
        self._assign(value, _index_key(key, self))

    def __getitem__(self, key):
        key = _index_key(key, self)
        with _backend.device_scope(self._ctx):
            data = self._data[key]
        if not hasattr(data, 'ndim'):
            data = self._xp.asarray(data)
        elif not data.flags.c_contiguous:
            # As MXNet: a contiguous slice (x[1], x[2:5]) is a view, anything else a copy.
            data = data.copy()
        out = NDArray(data, self._ctx)
        shape = data.shape

        def backward(g):
            full = self._xp.zeros(self.shape, dtype=g.dtype)
            self._xp.add.at(full, key, g.reshape(shape))
            return (full,)
        return _graph.record(out, (self,), backward, 'slice')

    def _inplace(self, other, op):
        """``x += y`` and friends, ``op`` NumPy's name of the operation ('add', ...)."""
        self._check_writable()
        self._check_recorded_value(other, whole=False)
        result = _ops.binary.apply(op, self, other)
        if result.shape != self.shape:
            raise MXNetError("in-place operation: the result has shape %s, this array %s"
                             % (result.shape, self.shape))
        self._data[...] = result._data
        return self

    def __iadd__(self, other):
        return self._inplace(other, 'add')

    def __isub__(self, other):
        return self._inplace(other, 'subtract')

    def __imul__(self, other):
        return self._inplace(other, 'multiply')

    def __itruediv__(self, other):
        return self._inplace(other, 'divide')

    def __imod__(self, other):
        return self._inplace(other, 'mod')

    # ------------------------------------------------------------------ arithmetic
    # As MXNet: an array operand picks broadcast_<op>, a number the <op>_scalar operator.
    def __add__(self, other):
        return _ops.add(self, other)

    def __radd__(self, other):
        return _ops.add(other, self)

    def __sub__(self, other):
        return _ops.subtract(self, other)

    def __rsub__(self, other):
        return _ops.subtract(other, self)

    def __mul__(self, other):
        return _ops.multiply(self, other)

    def __rmul__(self, other):
        return _ops.multiply(other, self)

    def __truediv__(self, other):
        return _ops.divide(self, other)

    def __rtruediv__(self, other):
        return _ops.divide(other, self)

    def __mod__(self, other):
        return _ops.modulo(self, other)

    def __rmod__(self, other):
        return _ops.modulo(other, self)

    def __pow__(self, other):
        return _ops.power(self, other)

    def __rpow__(self, other):
        return _ops.power(other, self)

    def __neg__(self):
        return _ops.binary.negate(self)

    def __pos__(self):
        return self

    def __abs__(self):
        return _ops.abs(self)

    def __eq__(self, other):
        return _ops.equal(self, other)

    def __ne__(self, other):
        return _ops.not_equal(self, other)

    def __lt__(self, other):
        return _ops.lesser(self, other)

    def __le__(self, other):
        return _ops.lesser_equal(self, other)

    def __gt__(self, other):
        return _ops.greater(self, other)

    def __ge__(self, other):
        return _ops.greater_equal(self, other)

    # ------------------------------------------------------------------ shape
    # Most operator methods (x.sum(...), x.take(...)) are attached below from the table.
    def reshape(self, *shape, **kwargs):
        """Reshape, with MXNet's special codes 0 (keep), -1 (infer), -2, -3, -4.

        A view sharing this array's memory, as in MXNet (the ``nd.reshape`` operator copies).
        """
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        shape = kwargs.pop('shape', shape)
        reverse = kwargs.pop('reverse', False)
        if kwargs:
            raise TypeError("reshape() got unexpected arguments %s" % sorted(kwargs))
        return _ops.shape.reshape_view(self, shape, reverse)

    def flatten(self, inplace=False):
        """(d0, d1, ...) -> (d0, d1·...): a copy, or a view with ``inplace=True``."""
        return self.reshape((0, -1)) if inplace else _ops.flatten(self)

    def expand_dims(self, axis, inplace=False):
        """Insert a size-1 axis at ``axis``: a copy, or a view with ``inplace=True``."""
        result = _ops.expand_dims(self, axis=axis)
        return self.reshape(result.shape) if inplace else result

    def squeeze(self, axis=None, inplace=False):
        """Remove size-1 axes: a copy, or a view with ``inplace=True``."""
        result = _ops.squeeze(self, axis=axis)
        return self.reshape(result.shape) if inplace else result

    def broadcast_to(self, shape):
        """Broadcast to ``shape``; unlike ``nd.broadcast_to``, the method (as MXNet's) may
        add leading axes, and raises ValueError when the shapes do not fit."""
        shape = tuple(shape)
        if len(shape) < self.ndim:
            raise ValueError("cannot broadcast an array of shape %s to %s"
                             % (self.shape, shape))
        padded = (1,) * (len(shape) - self.ndim) + self.shape
        if any(d != s and d != 1 for d, s in zip(padded, shape)):
            raise ValueError("cannot broadcast an array of shape %s to %s: only size-1 axes "
                             "grow" % (self.shape, shape))
        source = self.reshape(padded) if padded != self.shape else self
        return _ops.broadcast_to(source, shape=shape)

    def broadcast_like(self, other):
        """Broadcast to ``other``'s shape (leading axes may be added, as MXNet)."""
        return self.broadcast_to(other.shape)

    def split_v2(self, *args, **kwargs):
        """Same as ``mx.nd.split_v2(self, ...)``."""
        return _ops.split_v2(self, *args, **kwargs)


# ---------------------------------------------------------------------- helpers
def _rebuild(host_array, ctx):
    return from_numpy(host_array, ctx)


def _check_grad_req(grad_req):
    if grad_req not in _GRAD_REQS:
        raise ValueError("grad_req must be one of 'write', 'add' or 'null', got %r" % (grad_req,))


# ---------------------------------------------------------------------- for the layers above
# What autograd, the optimizer's flat layouts, the stores and the Trainer need of an
# NDArray beyond MXNet's API; module functions, not in __all__ (so not in ``mx.nd``).

def mark_variable(arr, grad, grad_req):
    """Make ``arr`` a leaf variable whose gradient goes to ``grad``."""
    _check_grad_req(grad_req)
    arr._node = None
    arr._tape_name = _graph.variable_name()
    arr._grad = grad
    arr._grad_req = grad_req
    arr._fresh_grad = False


def is_variable(arr):
    """Whether ``arr`` is a variable of differentiation (attach_grad with a grad_req
    other than 'null')."""
    return arr._grad_req is not None and arr._grad_req != 'null'


def write_grad(var, grad):
    """Write the raw gradient ``grad`` that backward computed into variable ``var``'s
    buffer, per its grad_req, and mark the gradient fresh (the Trainer's stale check)."""
    buf = var._grad
    if isinstance(grad, _graph.RowGrad) and buf.stype == 'default':
        grad = grad.todense(var._xp)
    buf._store_grad(grad, add=(var._grad_req == 'add'))
    var._fresh_grad = True


def holds_handles(arrays, handles):
    """Whether each of ``arrays`` still holds, as its data, the very raw array of
    ``handles`` at its position (nobody gave it other storage since)."""
    for arr, handle in zip(arrays, handles):   # a loop: checked on every step
        if arr._data is not handle:
            return False
    return True


def has_fresh_grad(arr):
    """Whether backward has written ``arr``'s gradient since the last update."""
    return arr._fresh_grad


def mark_grad_used(arr):
    """Mark ``arr``'s gradient as used by an update (stale until backward writes it)."""
    arr._fresh_grad = False


def set_handle(arr, handle):
    """Make ``arr`` hold ``handle`` — a NumPy/CuPy array of its shape and dtype, on its
    device — as its data from now on, without a copy: the flat layouts make parameters'
    arrays views of one buffer this way."""
    if not isinstance(handle, arr._xp.ndarray) or handle.shape != arr._data.shape or \
            handle.dtype != arr._data.dtype:
        raise ValueError("set_handle: an NDArray of shape %s and dtype %s on %s cannot hold "
                         "a %s" % (arr._data.shape, arr._data.dtype, arr._ctx, _described(handle)))
    arr._data = handle
    _REBINDS[0] += 1


_REBINDS = [0]   # how many times set_handle gave an NDArray other storage


def rebind_count():
    """How many times :func:`set_handle` has given an NDArray other storage in this
    process: while the count stays the same, every NDArray holds the data it held (an
    NDArray's storage changes nowhere else)."""
    return _REBINDS[0]


def _described(value):
    if hasattr(value, 'shape') and hasattr(value, 'dtype'):
        return '%s.%s of shape %s and dtype %s' % (type(value).__module__.split('.')[0],
                                                   type(value).__name__, value.shape,
                                                   value.dtype)
    return type(value).__name__


def _move(data, src_ctx, dst_ctx, copy):
    """``data`` (living on ``src_ctx``) as an array of ``dst_ctx``."""
    if src_ctx.device_type == 'gpu' or dst_ctx.device_type == 'gpu':
        host = _backend.to_host(data)
        if dst_ctx.device_type != 'gpu':
            return np.array(host, copy=True)
        xp = _backend.array_module(dst_ctx)
        with _backend.device_scope(dst_ctx):
            return xp.array(host, copy=True)
    return data.copy() if copy else data


def _host_values(value, dtype):
    """A value to assign (a NumPy array, nested lists) as a host array of ``dtype``."""
    if not (isinstance(value, np.ndarray) or hasattr(value, 'get')):
        return _from_python(value, dtype)
    host = _backend.to_host(value)
    try:
        return host.astype(dtype, copy=False)
    except (ValueError, TypeError) as err:  # text that is no number
        raise ValueError("cannot assign a %s array to a %s NDArray: %s"
                         % (host.dtype, dtype, err)) from None


def _fit_value(src, target_shape):
    """Broadcast a value into a slice's shape, allowing MXNet's size-1 leftovers."""
    if tuple(src.shape) == tuple(target_shape):
        return src
    if src.ndim > len(target_shape) and src.size == int(np.prod(target_shape)):
        # e.g. c[i] = a[i] + b[i]: a one-element array into one element
        return src.reshape(target_shape)
    try:
        np.broadcast_shapes(src.shape, target_shape)
        return src
    except ValueError:
        if src.size == int(np.prod(target_shape)):
            return src.reshape(target_shape)
        raise MXNetError("cannot assign a value of shape %s to a slice of shape %s"
                         % (tuple(src.shape), tuple(target_shape))) from None


def _index_key(key, arr):
    """Translate NDArray indices (MXNet allows them) into host/device integer arrays."""
    def convert(k):
        if isinstance(k, NDArray):
            return k._data.astype(np.int64) if arr._ctx == k._ctx or \
                arr._ctx.device_type != 'gpu' else _move(k._data, k._ctx, arr._ctx, False)
        return k
    if isinstance(key, tuple):
        return tuple(convert(k) for k in key)
    if isinstance(key, list):
        return np.asarray(key)
    return convert(key)


def _unbroadcast(xp, grad, shape):
    """Sum ``grad`` over the axes along which an input of ``shape`` was broadcast."""
    if grad.shape == tuple(shape):
        return grad
    extra = grad.ndim - len(shape)
    if extra:
        grad = grad.sum(axis=tuple(range(extra)))
    axes = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    if axes:
        grad = grad.sum(axis=axes, keepdims=True)
    return grad.reshape(shape)


def check_same_device(op, arrays):
    """MXNetError unless all ``arrays`` live on one context (``op`` names the caller)."""
    first = arrays[0]
    for other in arrays[1:]:
        if other._ctx != first._ctx:
            raise MXNetError(
                "%s: inputs live on different contexts (%s and %s). Move one with "
                ".as_in_context(%s) or .copyto(ctx) first." % (op, first._ctx, other._ctx,
                                                                first._ctx))


# ---------------------------------------------------------------------- creation
def from_numpy(data, ctx=None, copy=True):
    """Wrap a NumPy (or CuPy) array without changing its dtype (copies to the device).

    copy=False: a CPU context takes ``data`` itself as its buffer (a loader's freshly
    read array, which nothing else holds).
    """
    ctx = _as_ctx(ctx)
    xp = _backend.array_module(ctx)
    with _backend.device_scope(ctx):
        return NDArray(xp.array(_backend.to_host(data) if ctx.device_type == 'gpu'
                                else data, copy=copy or ctx.device_type == 'gpu'), ctx)


#: The dtypes an NDArray can hold, as MXNet 1.9.1 (bfloat16 aside: NumPy has none).
_DTYPES = frozenset(np.dtype(t) for t in ('float16', 'float32', 'float64', 'uint8', 'int8',
                                          'int32', 'int64', 'bool'))


def array_dtype(dtype):
    """``dtype`` (None: float32) as a NumPy dtype an NDArray can hold; TypeError else."""
    dtype = normalize_dtype(dtype)
    if dtype not in _DTYPES:
        raise TypeError("NDArrays cannot hold %s: use one of %s"
                        % (dtype, ', '.join(sorted(str(d) for d in _DTYPES))))
    return dtype


def array(source_array, ctx=None, dtype=None):
    """An NDArray holding a copy of ``source_array`` (list, NumPy array or NDArray).

    As MXNet 1.x, the dtype is float32 unless given, except that an NDArray source keeps
    its dtype. NumPy arrays of Python objects convert when the objects are numbers (what
    pandas' ``.values`` gives for mixed numeric columns).
    """
    if isinstance(source_array, NDArray):
        if source_array.stype != 'default':
            source_array = source_array.tostype('default')
        if dtype is None:
            dtype = source_array._data.dtype
        host = _backend.to_host(source_array._data)
    elif isinstance(source_array, np.ndarray) or (hasattr(source_array, 'get')
                                                   and hasattr(source_array, 'dtype')):
        host = _backend.to_host(source_array)
    else:
        host = _from_python(source_array, array_dtype(dtype))
    return from_numpy(host.astype(array_dtype(dtype), copy=False), ctx)


def _from_python(source, dtype):
    """``source`` (a number or nested lists of numbers) as a NumPy array of ``dtype``."""
    try:
        host = np.array(source, dtype=dtype)
    except OverflowError as err:  # a number out of the dtype's range (NumPy 1 wrapped ints)
        raise TypeError("cannot make a %s NDArray from %r: %s" % (dtype, source, err)) \
            from None
    except (ValueError, TypeError):
        raise TypeError("cannot make an NDArray from %r: give a number, nested lists of "
                        "numbers of equal length, or a NumPy array"
                        % (type(source).__name__,)) from None
    # NumPy reads None as NaN (False for bool): a missing value would pass as a number.
    if (dtype.kind == 'b' or dtype.kind == 'f' and np.isnan(host).any()) and \
            _holds_none(source):
        raise TypeError("cannot make an NDArray from None: give numbers (float('nan') "
                        "marks a missing value)")
    return host


def _holds_none(source):
    return source is None or (isinstance(source, (list, tuple)) and
                              any(_holds_none(item) for item in source))


def _filled(fill, shape, ctx, dtype):
    """An array of ``shape`` filled with ``fill``, for gluonedu's own use (no checks)."""
    ctx = _as_ctx(ctx)
    xp = _backend.array_module(ctx)
    with _backend.device_scope(ctx):
        return NDArray(xp.full(shape, fill, dtype=normalize_dtype(dtype)), ctx)


def _create(op_name, shape, ctx, dtype, /, **kwargs):
    """Call the creation operator ``op_name`` as MXNet's zeros/ones do."""
    return _ops.registry.invoke(op_name, shape=shape, ctx=_as_ctx(ctx),
                                dtype=np.float32 if dtype is None else dtype, **kwargs)


def zeros(shape, ctx=None, dtype=None, stype=None, **kwargs):
    """An array of zeros (float32 unless ``dtype``). ``stype='row_sparse'`` gives an empty
    row-sparse array."""
    if stype not in (None, 'default'):
        from . import sparse
        return sparse.zeros(stype, shape, ctx=ctx, dtype=dtype, **kwargs)
    return _create('_zeros', shape, ctx, dtype, **kwargs)


def ones(shape, ctx=None, dtype=None, **kwargs):
    """An array of ones (float32 unless ``dtype``)."""
    return _create('_ones', shape, ctx, dtype, **kwargs)


def _host_shape(shape):
    """``shape`` as a tuple of non-negative ints, checked as Python's int conversion does."""
    try:
        dims = (shape,) if isinstance(shape, numbers.Integral) else tuple(shape)
        dims = tuple(operator.index(n) for n in dims)
    except TypeError:  # 2.5, None, 'x': TypeError, as MXNet
        raise TypeError("shape must be an int or a tuple of ints, got %r" % (shape,)) \
            from None
    if any(n < 0 for n in dims):
        raise ValueError("shape %s has a negative dimension" % (dims,))
    return dims


def empty(shape, ctx=None, dtype=None, stype=None):
    """An array with unspecified values (zeros here, for reproducibility)."""
    if stype not in (None, 'default'):
        from . import sparse
        return sparse.zeros(stype, shape, ctx=ctx, dtype=dtype)
    # MXNet's order of checks: a dtype NumPy knows, the shape, a dtype NDArrays hold
    dtype = normalize_dtype(dtype)
    shape = _host_shape(shape)
    return _filled(0, shape, ctx, array_dtype(dtype))


def full(shape, val, ctx=None, dtype=np.float32, out=None):
    """An array filled with ``val`` (a number or an NDArray broadcast into it); with
    ``out``, fills ``out`` in place."""
    out = empty(shape, ctx, dtype) if out is None else out
    out[:] = val
    return out


def arange(start, stop=None, step=1.0, repeat=1, infer_range=None, ctx=None, dtype=np.float32):
    """Evenly spaced values in [start, stop) (or [0, start)), each repeated ``repeat``
    times."""
    if infer_range is not None:
        warnings.warn('arange: infer_range is deprecated and ignored', DeprecationWarning)
    return _ops.registry.invoke('_arange', start=start, stop=stop, step=step, repeat=repeat,
                                ctx=_as_ctx(ctx), dtype=dtype)


def waitall():
    """Wait for all pending work (a device sync on every GPU; nothing on CPU)."""
    for device_id in range(_backend.gpu_count()):
        cupy = _backend.cupy_or_raise(device_id)
        with cupy.cuda.Device(device_id):
            cupy.cuda.get_current_stream().synchronize()


from . import ops as _ops  # noqa: E402  (ops build on the class above)

#: MXNet 1.9.1's NDArray methods that call the operator of the same name on ``self``.
_OPERATOR_METHODS = (
    'abs', 'arccos', 'arccosh', 'arcsin', 'arcsinh', 'arctan', 'arctanh', 'argmax',
    'argmax_channel', 'argmin', 'argsort', 'broadcast_axes', 'cbrt', 'ceil', 'clip', 'cos',
    'cosh', 'degrees', 'depth_to_space', 'exp', 'expm1', 'fix', 'flip', 'floor', 'log',
    'log10', 'log1p', 'log2', 'log_softmax', 'max', 'mean', 'min', 'nanprod', 'nansum', 'norm',
    'one_hot', 'ones_like', 'pad', 'pick', 'prod', 'radians', 'rcbrt', 'reciprocal', 'relu',
    'repeat', 'reshape_like', 'rint', 'round', 'rsqrt', 'shape_array', 'sigmoid', 'sign', 'sin',
    'sinh', 'size_array', 'slice', 'slice_axis', 'slice_like', 'softmax', 'softmin', 'sort',
    'space_to_depth', 'split', 'sqrt', 'square', 'sum', 'swapaxes', 'take', 'tan', 'tanh',
    'tile', 'topk', 'transpose', 'trunc', 'zeros_like', 'diag')


def _operator_method(function):
    def method(self, *args, **kwargs):
        return function(self, *args, **kwargs)
    method.__name__ = method.__qualname__ = function.__name__
    method.__doc__ = 'Same as ``mx.nd.%s(self, ...)``.' % function.__name__
    return method


for _name in _OPERATOR_METHODS:
    if hasattr(_ops, _name):
        setattr(NDArray, _name, _operator_method(getattr(_ops, _name)))


def _slice_assign(self, rhs, begin, end, step):
    """Write ``rhs`` into ``self[begin:end:step]`` (per axis; None: the whole axis) in
    place and return ``self``. rhs has the slice's shape, self's dtype and context."""
    return _ops.registry.invoke('_slice_assign', self, rhs, begin=begin, end=end, step=step,
                                out=self)


def _slice_assign_scalar(self, value, begin, end, step):
    """Write the number ``value`` (cast to self's dtype) into ``self[begin:end:step]`` in
    place and return ``self``."""
    return _ops.registry.invoke('_slice_assign_scalar', self, value, begin=begin, end=end,
                                step=step, out=self)


NDArray.slice_assign = _slice_assign
NDArray.slice_assign_scalar = _slice_assign_scalar
