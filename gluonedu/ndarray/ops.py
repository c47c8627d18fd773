"""Operators over NDArrays, each with its gradient.

Every operator computes its result with the array module of its input's context
(NumPy or CuPy) and, while ``autograd.record()`` is active, records a backward function
that maps the output's gradient to its inputs' gradients. Names and arguments follow
MXNet 1.x's ``mx.nd`` operators.
"""
import builtins
import numbers

import numpy as np

from .. import _backend
from ..base import MXNetError, normalize_dtype
from . import _graph
from .ndarray import (NDArray, _binary_op, _check_same_device, _check_same_dtype,
                      _unbroadcast)

__all__ = [
    # element-wise math
    'abs', 'sign', 'sqrt', 'rsqrt', 'square', 'exp', 'expm1', 'log', 'log1p', 'log2', 'log10',
    'negative', 'reciprocal', 'sin', 'cos', 'floor', 'ceil', 'round', 'trunc', 'cbrt',
    'relu', 'sigmoid', 'tanh', 'softsign', 'Activation', 'LeakyReLU', 'clip',
    'add', 'subtract', 'multiply', 'divide', 'modulo', 'power', 'maximum', 'minimum',
    'equal', 'not_equal', 'greater', 'greater_equal', 'lesser', 'lesser_equal',
    'elemwise_add', 'elemwise_sub', 'elemwise_mul', 'elemwise_div',
    'broadcast_add', 'broadcast_sub', 'broadcast_mul', 'broadcast_div', 'broadcast_mod',
    'broadcast_power', 'broadcast_maximum', 'broadcast_minimum', 'broadcast_equal',
    'broadcast_not_equal', 'broadcast_greater', 'broadcast_greater_equal', 'broadcast_lesser',
    'broadcast_lesser_equal', 'broadcast_plus', 'broadcast_minus',
    'broadcast_to', 'broadcast_like', 'broadcast_axis', 'broadcast_axes', 'where', 'add_n',
    # linear algebra and layers
    'dot', 'batch_dot', 'FullyConnected', 'Embedding', 'Dropout', 'softmax', 'log_softmax',
    # shape
    'reshape', 'reshape_like', 'flatten', 'Flatten', 'expand_dims', 'squeeze', 'transpose',
    'swapaxes', 'tile', 'repeat', 'concat', 'stack', 'split', 'slice', 'slice_axis', 'take',
    'pick', 'one_hot', 'flip', 'reverse', 'cast', 'Cast', 'zeros_like', 'ones_like',
    'stop_gradient', 'BlockGrad', 'identity', 'copy',
    # reductions
    'sum', 'mean', 'max', 'min', 'prod', 'norm', 'argmax', 'argmin', 'sum_axis',
]


# ---------------------------------------------------------------------- helpers
def _check_nd(op, *arrays):
    for x in arrays:
        if not isinstance(x, NDArray):
            raise TypeError("%s expects NDArray inputs, got %s; convert with mx.nd.array(...)"
                            % (op, type(x).__name__))
    if len(arrays) > 1:
        _check_same_device(op, arrays)


def _dense(x):
    return x.tostype('default') if x.stype != 'default' else x


def _make(data, like, inputs, backward, op):
    """Wrap ``data`` on ``like``'s context and record how it was computed."""
    return _graph.record(NDArray(data, like._ctx), inputs, backward, op)


def _write_out(result, out):
    """Honour MXNet's ``out=``: copy ``result`` into ``out`` and return ``out``."""
    if out is None:
        return result
    out[:] = result
    return out


def _unary(op, data, forward, grad, out=None):
    """An element-wise op: ``forward(xp, x)`` and ``grad(xp, x, y, g) -> dx``."""
    _check_nd(op, data)
    data = _dense(data)
    xp, x = data._xp, data._data
    with _backend.device_scope(data._ctx), np.errstate(divide='ignore', invalid='ignore'):
        y = forward(xp, x)
        if y.dtype != x.dtype:
            y = y.astype(x.dtype)
    result = _make(y, data, (data,), lambda g: (grad(xp, x, y, g),), op)
    return _write_out(result, out)


def _own_copy(result):
    """Give an operator's result its own memory (indexing may return a view; ops do not)."""
    result._data = result._data.copy()
    return result


def _zero_grad(xp, x, y, g):
    return xp.zeros_like(g)


# ---------------------------------------------------------------------- element-wise math
def abs(data, out=None):
    """|x|; gradient sign(x)."""
    return _unary('abs', data, lambda xp, x: xp.abs(x), lambda xp, x, y, g: g * xp.sign(x), out)


def sign(data, out=None):
    """sign(x); gradient 0."""
    return _unary('sign', data, lambda xp, x: xp.sign(x), _zero_grad, out)


def sqrt(data, out=None):
    """√x; gradient 1 / (2√x)."""
    return _unary('sqrt', data, lambda xp, x: xp.sqrt(x), lambda xp, x, y, g: g / (2 * y), out)


def rsqrt(data, out=None):
    """1/√x; gradient -y³/2."""
    return _unary('rsqrt', data, lambda xp, x: 1 / xp.sqrt(x),
                  lambda xp, x, y, g: -0.5 * g * y * y * y, out)


def cbrt(data, out=None):
    """∛x; gradient 1 / (3 y²)."""
    return _unary('cbrt', data, lambda xp, x: xp.cbrt(x), lambda xp, x, y, g: g / (3 * y * y),
                  out)


def square(data, out=None):
    """x²; gradient 2x."""
    return _unary('square', data, lambda xp, x: x * x, lambda xp, x, y, g: 2 * g * x, out)


def exp(data, out=None):
    """eˣ; gradient eˣ."""
    return _unary('exp', data, lambda xp, x: xp.exp(x), lambda xp, x, y, g: g * y, out)


def expm1(data, out=None):
    """eˣ - 1; gradient eˣ."""
    return _unary('expm1', data, lambda xp, x: xp.expm1(x), lambda xp, x, y, g: g * (y + 1), out)


def log(data, out=None):
    """ln x; gradient 1/x."""
    return _unary('log', data, lambda xp, x: xp.log(x), lambda xp, x, y, g: g / x, out)


def log1p(data, out=None):
    """ln(1 + x); gradient 1/(1 + x)."""
    return _unary('log1p', data, lambda xp, x: xp.log1p(x), lambda xp, x, y, g: g / (1 + x), out)


def log2(data, out=None):
    """log₂ x; gradient 1/(x ln 2)."""
    return _unary('log2', data, lambda xp, x: xp.log2(x),
                  lambda xp, x, y, g: g / (x * np.log(2.0)), out)


def log10(data, out=None):
    """log₁₀ x; gradient 1/(x ln 10)."""
    return _unary('log10', data, lambda xp, x: xp.log10(x),
                  lambda xp, x, y, g: g / (x * np.log(10.0)), out)


def negative(data, out=None):
    """-x."""
    return _unary('negative', data, lambda xp, x: -x, lambda xp, x, y, g: -g, out)


def reciprocal(data, out=None):
    """1/x; gradient -1/x²."""
    return _unary('reciprocal', data, lambda xp, x: 1 / x, lambda xp, x, y, g: -g * y * y, out)


def sin(data, out=None):
    """sin x; gradient cos x."""
    return _unary('sin', data, lambda xp, x: xp.sin(x), lambda xp, x, y, g: g * xp.cos(x), out)


def cos(data, out=None):
    """cos x; gradient -sin x."""
    return _unary('cos', data, lambda xp, x: xp.cos(x), lambda xp, x, y, g: -g * xp.sin(x), out)


def floor(data, out=None):
    """⌊x⌋; gradient 0."""
    return _unary('floor', data, lambda xp, x: xp.floor(x), _zero_grad, out)


def ceil(data, out=None):
    """⌈x⌉; gradient 0."""
    return _unary('ceil', data, lambda xp, x: xp.ceil(x), _zero_grad, out)


def round(data, out=None):
    """x rounded half away from zero (as MXNet); gradient 0."""
    return _unary('round', data, lambda xp, x: xp.sign(x) * xp.floor(xp.abs(x) + 0.5),
                  _zero_grad, out)


def trunc(data, out=None):
    """x rounded towards zero; gradient 0."""
    return _unary('trunc', data, lambda xp, x: xp.trunc(x), _zero_grad, out)


def relu(data, out=None):
    """max(x, 0); gradient 1 where x > 0."""
    return _unary('relu', data, lambda xp, x: xp.maximum(x, 0),
                  lambda xp, x, y, g: g * (x > 0), out)


def sigmoid(data, out=None):
    """1 / (1 + e⁻ˣ); gradient y(1 - y)."""
    def forward(xp, x):
        # MXNet's float32 formula; exp() overflowing to inf correctly gives 0.
        return 1 / (1 + xp.exp(-x))
    return _unary('sigmoid', data, forward, lambda xp, x, y, g: g * y * (1 - y), out)


def tanh(data, out=None):
    """tanh x; gradient 1 - y²."""
    return _unary('tanh', data, lambda xp, x: xp.tanh(x), lambda xp, x, y, g: g * (1 - y * y),
                  out)


def softsign(data, out=None):
    """x / (1 + |x|); gradient 1 / (1 + |x|)²."""
    return _unary('softsign', data, lambda xp, x: x / (1 + xp.abs(x)),
                  lambda xp, x, y, g: g / ((1 + xp.abs(x)) ** 2), out)


def _softrelu(data, out=None):
    """ln(1 + eˣ) computed stably; gradient sigmoid(x)."""
    def forward(xp, x):
        return xp.maximum(x, 0) + xp.log1p(xp.exp(-xp.abs(x)))

    def grad(xp, x, y, g):
        z = xp.exp(-xp.abs(x))
        return g * xp.where(x >= 0, 1 / (1 + z), z / (1 + z))
    return _unary('softrelu', data, forward, grad, out)


_ACTIVATIONS = {'relu': relu, 'sigmoid': sigmoid, 'tanh': tanh, 'softrelu': _softrelu,
                'softsign': softsign}


def Activation(data, act_type, out=None, name=None):
    """Apply ``act_type``: 'relu', 'sigmoid', 'tanh', 'softrelu' or 'softsign'."""
    if act_type not in _ACTIVATIONS:
        raise MXNetError("unknown act_type %r: use one of %s" % (act_type, sorted(_ACTIVATIONS)))
    return _ACTIVATIONS[act_type](data, out=out)


def LeakyReLU(data, act_type='leaky', slope=0.25, out=None, name=None):
    """x if x > 0 else slope·x ('leaky'), or slope·(eˣ - 1) ('elu')."""
    if act_type == 'leaky':
        return _unary('LeakyReLU', data, lambda xp, x: xp.where(x > 0, x, slope * x),
                      lambda xp, x, y, g: g * xp.where(x > 0, 1.0, slope).astype(x.dtype), out)
    if act_type == 'elu':
        return _unary('LeakyReLU', data, lambda xp, x: xp.where(x > 0, x, slope * xp.expm1(x)),
                      lambda xp, x, y, g: g * xp.where(x > 0, 1.0, y + slope).astype(x.dtype),
                      out)
    raise MXNetError("LeakyReLU act_type %r is not supported: use 'leaky' or 'elu'" % act_type)


def clip(data, a_min, a_max, out=None):
    """min(max(x, a_min), a_max); gradient 1 inside [a_min, a_max], 0 outside."""
    if a_min > a_max:
        raise MXNetError("clip: a_min (%s) must not exceed a_max (%s)" % (a_min, a_max))
    return _unary('clip', data, lambda xp, x: xp.clip(x, a_min, a_max),
                  lambda xp, x, y, g: g * ((x >= a_min) & (x <= a_max)), out)


# ---------------------------------------------------------------------- binary, broadcasting
def _binary(op):
    def func(lhs, rhs, out=None):
        if not isinstance(lhs, NDArray) and not isinstance(rhs, NDArray):
            return getattr(np, op)(lhs, rhs)
        return _write_out(_binary_op(lhs, rhs, op), out)
    return func


add = _binary('add')
subtract = _binary('subtract')
multiply = _binary('multiply')
divide = _binary('divide')
modulo = _binary('mod')
power = _binary('power')
maximum = _binary('maximum')
minimum = _binary('minimum')
equal = _binary('equal')
not_equal = _binary('not_equal')
greater = _binary('greater')
greater_equal = _binary('greater_equal')
lesser = _binary('less')
lesser_equal = _binary('less_equal')
for _f, _doc in [(add, 'lhs + rhs'), (subtract, 'lhs - rhs'), (multiply, 'lhs * rhs'),
                 (divide, 'lhs / rhs'), (modulo, 'lhs mod rhs'), (power, 'lhs ** rhs'),
                 (maximum, 'max(lhs, rhs)'), (minimum, 'min(lhs, rhs)'),
                 (equal, 'lhs == rhs as 0/1'), (not_equal, 'lhs != rhs as 0/1'),
                 (greater, 'lhs > rhs as 0/1'), (greater_equal, 'lhs >= rhs as 0/1'),
                 (lesser, 'lhs < rhs as 0/1'), (lesser_equal, 'lhs <= rhs as 0/1')]:
    _f.__doc__ = "Element-wise %s, broadcasting; either side may be a scalar." % _doc


def _elementwise(op):
    def func(lhs, rhs, out=None):
        _check_nd(op, lhs, rhs)
        if lhs.shape != rhs.shape:
            raise MXNetError("elemwise op needs equal shapes, got %s and %s; use the "
                             "broadcast_* operators to broadcast" % (lhs.shape, rhs.shape))
        return _write_out(_binary_op(lhs, rhs, op), out)
    func.__doc__ = "Element-wise %s of two arrays of the same shape." % op
    return func


elemwise_add = _elementwise('add')
elemwise_sub = _elementwise('subtract')
elemwise_mul = _elementwise('multiply')
elemwise_div = _elementwise('divide')


def _broadcasting(op):
    def func(lhs, rhs, out=None):
        _check_nd(op, lhs, rhs)
        return _write_out(_binary_op(lhs, rhs, op), out)
    func.__doc__ = "Element-wise %s of two arrays, broadcasting size-1 axes." % op
    return func


broadcast_add = broadcast_plus = _broadcasting('add')
broadcast_sub = broadcast_minus = _broadcasting('subtract')
broadcast_mul = _broadcasting('multiply')
broadcast_div = _broadcasting('divide')
broadcast_mod = _broadcasting('mod')
broadcast_power = _broadcasting('power')
broadcast_maximum = _broadcasting('maximum')
broadcast_minimum = _broadcasting('minimum')
broadcast_equal = _broadcasting('equal')
broadcast_not_equal = _broadcasting('not_equal')
broadcast_greater = _broadcasting('greater')
broadcast_greater_equal = _broadcasting('greater_equal')
broadcast_lesser = _broadcasting('less')
broadcast_lesser_equal = _broadcasting('less_equal')


def broadcast_to(data, shape, out=None):
    """Broadcast to ``shape``; a 0 in ``shape`` keeps that input dimension."""
    _check_nd('broadcast_to', data)
    shape = tuple(int(s) for s in shape)
    if len(shape) != data.ndim:
        raise MXNetError("broadcast_to: shape %s must have %d dimensions like the input %s"
                         % (shape, data.ndim, data.shape))
    target = tuple(d if s == 0 else s for d, s in zip(data.shape, shape))
    for d, s in zip(data.shape, target):
        if d != s and d != 1:
            raise MXNetError("broadcast_to: cannot broadcast %s to %s: only size-1 axes grow"
                             % (data.shape, target))
    xp = data._xp
    with _backend.device_scope(data._ctx):
        y = xp.array(xp.broadcast_to(data._data, target))
    result = _make(y, data, (data,), lambda g: (_unbroadcast(xp, g, data.shape),),
                   'broadcast_to')
    return _write_out(result, out)


def broadcast_like(lhs, rhs, lhs_axes=None, rhs_axes=None, out=None):
    """Broadcast ``lhs`` to the shape of ``rhs``."""
    _check_nd('broadcast_like', lhs, rhs)
    if lhs_axes is not None:
        shape = [0] * lhs.ndim
        for la, ra in zip(lhs_axes, rhs_axes):
            shape[la] = rhs.shape[ra]
        return broadcast_to(lhs, shape, out=out)
    return broadcast_to(lhs, rhs.shape, out=out)


def broadcast_axis(data, axis=(), size=(), out=None):
    """Broadcast the size-1 axes ``axis`` to sizes ``size``."""
    axis = (axis,) if isinstance(axis, numbers.Integral) else tuple(axis)
    size = (size,) if isinstance(size, numbers.Integral) else tuple(size)
    shape = [0] * data.ndim
    for a, s in zip(axis, size):
        shape[a] = s
    return broadcast_to(data, shape, out=out)


broadcast_axes = broadcast_axis


def where(condition, x, y, out=None):
    """``x`` where ``condition`` is non-zero, else ``y`` (element-wise)."""
    _check_nd('where', condition, x, y)
    _check_same_dtype('where', [x, y])
    if x.shape != y.shape:
        raise MXNetError("where: x and y must have the same shape, got %s and %s"
                         % (x.shape, y.shape))
    xp = x._xp
    cond = condition._data != 0
    if cond.shape != x.shape:
        if cond.ndim == 1 and cond.shape[0] == x.shape[0]:
            cond = cond.reshape((-1,) + (1,) * (x.ndim - 1))
        else:
            raise MXNetError("where: condition shape %s must equal x's %s or be its first axis"
                             % (condition.shape, x.shape))
    with _backend.device_scope(x._ctx):
        data = xp.where(cond, x._data, y._data)

    def backward(g):
        zero = xp.zeros_like(g)
        return None, xp.where(cond, g, zero), xp.where(cond, zero, g)
    return _write_out(_make(data, x, (condition, x, y), backward, 'where'), out)


def add_n(*args, out=None):
    """The element-wise sum of all arguments (MXNet's ElementWiseSum)."""
    if not args:
        raise MXNetError("add_n needs at least one array")
    _check_nd('add_n', *args)
    _check_same_dtype('add_n', list(args))
    total = args[0]._data.copy()
    for a in args[1:]:
        if a.shape != total.shape:
            raise MXNetError("add_n: all arrays need the same shape, got %s and %s"
                             % (total.shape, a.shape))
        total += a._data
    return _write_out(_make(total, args[0], args, lambda g: (g,) * len(args), 'add_n'), out)


# ---------------------------------------------------------------------- linear algebra
def dot(lhs, rhs, transpose_a=False, transpose_b=False, forward_stype=None, out=None):
    """Dot product: sums over the last axis of ``lhs`` and the first axis of ``rhs``.

    ``transpose_a``/``transpose_b`` reverse the axes of that input first. A csr input
    goes to :func:`gluonedu.ndarray.sparse.dot` (MXNet's storage rules).
    """
    _check_nd('dot', lhs, rhs)
    if 'csr' in (lhs.stype, rhs.stype):
        from . import sparse
        return sparse.dot(lhs, rhs, transpose_a, transpose_b, forward_stype, out)
    lhs, rhs = _dense(lhs), _dense(rhs)
    _check_same_dtype('dot', [lhs, rhs])
    a, b = lhs._data, rhs._data
    # As MXNet, an N-D input is seen as a matrix and that matrix is transposed: lhs is
    # (prod(shape[:-1]), shape[-1]), or (shape[0], prod(shape[1:])) before transpose_a;
    # rhs is (shape[0], prod(shape[1:])), or (prod(shape[:-1]), shape[-1]) before transpose_b.
    a2 = a.reshape(a.shape[0], -1).T if transpose_a else a.reshape(-1, a.shape[-1])
    b2 = b.reshape(-1, b.shape[-1]).T if transpose_b else b.reshape(b.shape[0], -1)
    if a2.shape[1] != b2.shape[0]:
        raise MXNetError("dot: shapes %s and %s are not aligned (transpose_a=%s, "
                         "transpose_b=%s): %d != %d" % (lhs.shape, rhs.shape, transpose_a,
                                                        transpose_b, a2.shape[1], b2.shape[0]))
    out_shape = ((a.shape[1:] if transpose_a else a.shape[:-1])
                 + (b.shape[:-1] if transpose_b else b.shape[1:]))
    with _backend.device_scope(lhs._ctx):
        y = (a2 @ b2).reshape(out_shape)

    def backward(g):
        g2 = g.reshape(a2.shape[0], b2.shape[1])
        ga, gb = g2 @ b2.T, a2.T @ g2
        return ((ga.T if transpose_a else ga).reshape(a.shape),
                (gb.T if transpose_b else gb).reshape(b.shape))
    return _write_out(_make(y, lhs, (lhs, rhs), backward, 'dot'), out)


def batch_dot(lhs, rhs, transpose_a=False, transpose_b=False, forward_stype=None, out=None):
    """Batched matrix product of (B, n, k) and (B, k, m) arrays -> (B, n, m)."""
    _check_nd('batch_dot', lhs, rhs)
    _check_same_dtype('batch_dot', [lhs, rhs])
    if lhs.ndim != 3 or rhs.ndim != 3:
        raise MXNetError("batch_dot needs 3-D inputs, got shapes %s and %s"
                         % (lhs.shape, rhs.shape))
    a = lhs._data.swapaxes(1, 2) if transpose_a else lhs._data
    b = rhs._data.swapaxes(1, 2) if transpose_b else rhs._data
    if a.shape[0] != b.shape[0] or a.shape[2] != b.shape[1]:
        raise MXNetError("batch_dot: shapes %s and %s are not aligned (after transposes)"
                         % (lhs.shape, rhs.shape))
    with _backend.device_scope(lhs._ctx):
        y = a @ b

    def backward(g):
        ga = g @ b.swapaxes(1, 2)
        gb = a.swapaxes(1, 2) @ g
        return (ga.swapaxes(1, 2) if transpose_a else ga), (gb.swapaxes(1, 2) if transpose_b
                                                            else gb)
    return _write_out(_make(y, lhs, (lhs, rhs), backward, 'batch_dot'), out)


def FullyConnected(data, weight, bias=None, num_hidden=None, no_bias=False, flatten=True,
                   out=None, name=None):
    """y = x·Wᵀ + b, with W of shape (num_hidden, in_units).

    ``flatten=True`` first flattens ``data`` to (batch, in_units); otherwise the layer
    applies to the last axis.
    """
    inputs = (data, weight) if no_bias or bias is None else (data, weight, bias)
    _check_nd('FullyConnected', *inputs)
    _check_same_dtype('FullyConnected', list(inputs))
    x = data._data
    x2 = x.reshape(x.shape[0], -1) if flatten else x.reshape(-1, x.shape[-1])
    w = weight._data
    if num_hidden is not None and w.shape[0] != num_hidden:
        raise MXNetError("FullyConnected: weight has shape %s but num_hidden is %d"
                         % (w.shape, num_hidden))
    if w.ndim != 2 or x2.shape[1] != w.shape[1]:
        raise MXNetError("FullyConnected: the input has %d features per sample (shape %s) but "
                         "the weight of shape %s expects %d" % (x2.shape[1], x.shape, w.shape,
                                                                w.shape[-1]))
    if len(inputs) == 3 and bias.shape != (w.shape[0],):
        raise MXNetError("FullyConnected: bias must have shape (%d,), got %s"
                         % (w.shape[0], bias.shape))
    with _backend.device_scope(data._ctx):
        y2 = x2 @ w.T
        if len(inputs) == 3:
            y2 = y2 + bias._data
    out_shape = (x.shape[0], w.shape[0]) if flatten else x.shape[:-1] + (w.shape[0],)

    def backward(g):
        g2 = g.reshape(-1, w.shape[0])
        grads = ((g2 @ w).reshape(x.shape), g2.T @ x2)
        return grads + ((g2.sum(axis=0),) if len(inputs) == 3 else ())
    return _write_out(_make(y2.reshape(out_shape), data, inputs, backward, 'FullyConnected'),
                      out)


def softmax(data, axis=-1, temperature=None, out=None, **kwargs):
    """exp(x/t) / Σ exp(x/t) along ``axis``; gradient y·(g - Σ g·y) / t."""
    _check_nd('softmax', data)
    xp, t = data._xp, (1.0 if temperature is None else float(temperature))
    with _backend.device_scope(data._ctx):
        z = data._data / t if t != 1.0 else data._data
        e = xp.exp(z - z.max(axis=axis, keepdims=True))
        y = e / e.sum(axis=axis, keepdims=True)

    def backward(g):
        return (y * (g - (g * y).sum(axis=axis, keepdims=True)) / t,)
    return _write_out(_make(y, data, (data,), backward, 'softmax'), out)


def log_softmax(data, axis=-1, temperature=None, out=None, **kwargs):
    """log softmax(x/t) along ``axis``; gradient (g - softmax·Σ g) / t."""
    _check_nd('log_softmax', data)
    xp, t = data._xp, (1.0 if temperature is None else float(temperature))
    with _backend.device_scope(data._ctx):
        z = data._data / t if t != 1.0 else data._data
        shifted = z - z.max(axis=axis, keepdims=True)
        y = shifted - xp.log(xp.exp(shifted).sum(axis=axis, keepdims=True))

    def backward(g):
        return ((g - xp.exp(y) * g.sum(axis=axis, keepdims=True)) / t,)
    return _write_out(_make(y, data, (data,), backward, 'log_softmax'), out)


def Embedding(data, weight, input_dim=None, output_dim=None, dtype='float32',
              sparse_grad=False, out=None, name=None):
    """Rows of ``weight`` (input_dim, output_dim) picked by the integer ids in ``data``.

    Ids are clipped to [0, input_dim - 1] as in MXNet. With ``sparse_grad=True`` the
    gradient of ``weight`` is row-sparse: only the rows looked up carry values.
    """
    _check_nd('Embedding', data, weight)
    w = weight._data
    if input_dim is not None and w.shape[0] != input_dim or \
            output_dim is not None and w.shape[1] != output_dim:
        raise MXNetError("Embedding: weight has shape %s, expected (%s, %s)"
                         % (w.shape, input_dim, output_dim))
    xp = weight._xp
    ids = xp.clip(data._data.astype(np.int64), 0, w.shape[0] - 1)
    with _backend.device_scope(weight._ctx):
        y = w[ids]

    def backward(g):
        rows = g.reshape(-1, w.shape[1])
        if sparse_grad:
            return None, _graph.RowGrad(ids.reshape(-1), rows, w.shape)
        full = xp.zeros(w.shape, dtype=g.dtype)
        xp.add.at(full, ids.reshape(-1), rows)
        return None, full
    return _write_out(_make(y, weight, (data, weight), backward, 'Embedding'), out)


def Dropout(data, p=0.5, mode='training', axes=(), cudnn_off=None, out=None, name=None):
    """Zero each element with probability ``p`` and scale the rest by 1/(1 - p).

    Active only in training mode (``autograd.record()`` or ``train_mode()``), or
    always with ``mode='always'``; otherwise the identity. ``axes`` shares the mask
    along those axes. The mask comes from gluonedu's seeded random generator.
    """
    _check_nd('Dropout', data)
    if not 0 <= p < 1:
        raise MXNetError("Dropout: p must be in [0, 1), got %s" % p)
    active = mode == 'always' or _graph.STATE.training
    if not active or p == 0:
        return _write_out(identity(data), out)
    from . import random as _random
    mask_shape = tuple(1 if i in axes else n for i, n in enumerate(data.shape))
    keep = _random.uniform(0, 1, shape=mask_shape, ctx=data._ctx, dtype=data.dtype)._data >= p
    scale = keep.astype(data._data.dtype) / data._data.dtype.type(1 - p)
    with _backend.device_scope(data._ctx):
        y = data._data * scale
    return _write_out(_make(y, data, (data,), lambda g: (g * scale,), 'Dropout'), out)


# ---------------------------------------------------------------------- shape
def _infer_reshape(src, spec, reverse=False):
    """MXNet's reshape codes: 0 keep, -1 infer, -2 copy the rest, -3 merge two, -4 split."""
    src, spec = list(src), list(spec)
    if reverse:
        src, spec = src[::-1], spec[::-1]
    out, i, k = [], 0, 0
    while k < len(spec):
        code = spec[k]
        if code == 0:
            out.append(src[i])
            i += 1
        elif code == -1:
            out.append(-1)
            i += 1
        elif code == -2:
            out.extend(src[i:])
            i = len(src)
        elif code == -3:
            out.append(src[i] * src[i + 1])
            i += 2
        elif code == -4:
            d1, d2 = spec[k + 1], spec[k + 2]
            if d1 == -1:
                d1 = src[i] // d2
            if d2 == -1:
                d2 = src[i] // d1
            out.extend([d1, d2])
            i += 1
            k += 2
        else:
            out.append(code)
            i += 1
        k += 1
    if reverse:
        out = out[::-1]
    return tuple(out)


def _reshape(data, shape, reverse, copy):
    _check_nd('reshape', data)
    target = _infer_reshape(data.shape, shape, reverse)
    try:
        y = data._data.reshape(target)
    except ValueError:
        raise MXNetError("reshape: cannot reshape an array of shape %s (size %d) into %s"
                         % (data.shape, data.size, tuple(shape))) from None
    if copy:
        y = y.copy()
    return _make(y, data, (data,), lambda g: (g.reshape(data.shape),), 'reshape')


def reshape(data, shape=None, reverse=False, out=None, **kwargs):
    """``data`` with a new shape (MXNet's special codes 0, -1, -2, -3, -4).

    As in MXNet, this operator returns a new array, while the method ``x.reshape(...)``
    returns a view sharing ``x``'s memory.
    """
    return _write_out(_reshape(data, shape, reverse, copy=True), out)


def reshape_like(lhs, rhs, out=None):
    """``lhs`` reshaped to the shape of ``rhs``."""
    return reshape(lhs, shape=rhs.shape, out=out)


def flatten(data, out=None):
    """Collapse all axes but the first: (d0, d1, …) -> (d0, d1·…)."""
    return reshape(data, shape=(data.shape[0], -1) if data.ndim else (-1,), out=out)


Flatten = flatten


def expand_dims(data, axis, out=None):
    """Insert a size-1 axis at ``axis``."""
    _check_nd('expand_dims', data)
    y = data._xp.expand_dims(data._data, axis).copy()
    return _write_out(_make(y, data, (data,), lambda g: (g.reshape(data.shape),),
                            'expand_dims'), out)


def squeeze(data, axis=None, out=None):
    """Remove size-1 axes (those in ``axis``, or all)."""
    _check_nd('squeeze', data)
    y = data._xp.squeeze(data._data, axis=axis).copy()
    return _write_out(_make(y, data, (data,), lambda g: (g.reshape(data.shape),), 'squeeze'),
                      out)


def transpose(data, axes=None, out=None):
    """Permute the axes (reverse them when ``axes`` is empty)."""
    _check_nd('transpose', data)
    axes = None if axes is None or len(axes) == 0 else tuple(axes)
    xp = data._xp
    y = xp.transpose(data._data, axes).copy()
    inverse = None if axes is None else tuple(np.argsort(axes))
    return _write_out(_make(y, data, (data,), lambda g: (xp.transpose(g, inverse),),
                            'transpose'), out)


def swapaxes(data, dim1=0, dim2=0, out=None):
    """Exchange two axes."""
    _check_nd('swapaxes', data)
    y = data._data.swapaxes(dim1, dim2).copy()
    return _write_out(_make(y, data, (data,), lambda g: (g.swapaxes(dim1, dim2),), 'swapaxes'),
                      out)


def tile(data, reps, out=None):
    """Repeat the whole array ``reps`` times along each axis."""
    _check_nd('tile', data)
    xp = data._xp
    reps = (reps,) if isinstance(reps, numbers.Integral) else tuple(reps)
    y = xp.tile(data._data, reps)
    ndim = builtins.max(len(reps), data.ndim)
    in_shape = (1,) * (ndim - data.ndim) + data.shape
    full_reps = (1,) * (ndim - len(reps)) + reps

    def backward(g):
        split = []
        for r, n in zip(full_reps, in_shape):
            split.extend([r, n])
        g = g.reshape(split).sum(axis=tuple(range(0, 2 * ndim, 2)))
        return (g.reshape(data.shape),)
    return _write_out(_make(y, data, (data,), backward, 'tile'), out)


def repeat(data, repeats, axis=None, out=None):
    """Repeat each element ``repeats`` times (along ``axis``, or of the flattened array)."""
    _check_nd('repeat', data)
    xp = data._xp
    y = xp.repeat(data._data, repeats, axis=axis)

    def backward(g):
        if axis is None:
            return (g.reshape(-1, repeats).sum(axis=1).reshape(data.shape),)
        ax = axis % data.ndim
        shape = data.shape[:ax] + (data.shape[ax], repeats) + data.shape[ax + 1:]
        return (g.reshape(shape).sum(axis=ax + 1),)
    return _write_out(_make(y, data, (data,), backward, 'repeat'), out)


def concat(*data, dim=1, out=None, **kwargs):
    """Join arrays along axis ``dim``."""
    if not data:
        raise MXNetError("concat needs at least one array")
    _check_nd('concat', *data)
    _check_same_dtype('concat', list(data))
    xp = data[0]._xp
    try:
        with _backend.device_scope(data[0]._ctx):
            y = xp.concatenate([d._data for d in data], axis=dim)
    except ValueError as err:
        raise MXNetError("concat along dim %d: %s (shapes %s)"
                         % (dim, err, [d.shape for d in data])) from None
    bounds = np.cumsum([d.shape[dim] for d in data])[:-1]
    return _write_out(_make(y, data[0], data, lambda g: tuple(xp.split(g, bounds, axis=dim)),
                            'concat'), out)


def stack(*data, axis=0, out=None, **kwargs):
    """Join arrays of one shape along a new axis ``axis``."""
    if not data:
        raise MXNetError("stack needs at least one array")
    _check_nd('stack', *data)
    _check_same_dtype('stack', list(data))
    if len({d.shape for d in data}) != 1:
        raise MXNetError("stack needs arrays of one shape, got %s" % [d.shape for d in data])
    xp = data[0]._xp
    with _backend.device_scope(data[0]._ctx):
        y = xp.stack([d._data for d in data], axis=axis)

    def backward(g):
        return tuple(xp.take(g, i, axis=axis) for i in range(len(data)))
    return _write_out(_make(y, data[0], data, backward, 'stack'), out)


def split(data, num_outputs, axis=1, squeeze_axis=False, **kwargs):
    """Split into ``num_outputs`` equal parts along ``axis`` (a list, or one array if 1)."""
    _check_nd('split', data)
    if data.shape[axis] % num_outputs:
        raise MXNetError("split: axis %d of shape %s is not divisible into %d parts"
                         % (axis, data.shape, num_outputs))
    step = data.shape[axis] // num_outputs
    if squeeze_axis and step != 1:
        raise MXNetError("split: squeeze_axis=True needs parts of size 1 along axis %d" % axis)
    parts = []
    for i in range(num_outputs):
        part = slice_axis(data, axis, i * step, (i + 1) * step)
        parts.append(squeeze(part, axis=axis) if squeeze_axis else part)
    return parts[0] if num_outputs == 1 else parts


def slice(data, begin, end, step=None, out=None):
    """``data[begin:end:step]`` per axis; ``None`` entries mean the whole axis."""
    _check_nd('slice', data)
    step = step or [None] * len(begin)
    key = tuple(builtins.slice(b, e, s) for b, e, s in zip(begin, end, step))
    return _write_out(_own_copy(data[key]), out)


def slice_axis(data, axis, begin, end, out=None):
    """``data`` restricted to [begin, end) along ``axis`` (``end=None``: to the end)."""
    _check_nd('slice_axis', data)
    key = [builtins.slice(None)] * data.ndim
    key[axis] = builtins.slice(begin, end)
    return _write_out(_own_copy(data[tuple(key)]), out)


def take(a, indices, axis=0, mode='clip', out=None):
    """Entries of ``a`` at integer ``indices`` along ``axis`` ('clip' or 'wrap' ids)."""
    _check_nd('take', a, indices)
    xp = a._xp
    n = a.shape[axis]
    ids = indices._data.astype(np.int64)
    ids = xp.mod(ids, n) if mode == 'wrap' else xp.clip(ids, 0, n - 1)
    y = xp.take(a._data, ids, axis=axis)

    def backward(g):
        full = xp.zeros(a.shape, dtype=g.dtype)
        moved = xp.moveaxis(full, axis, 0)
        gm = xp.moveaxis(g, list(range(axis, axis + ids.ndim)), list(range(ids.ndim)))
        xp.add.at(moved, ids.reshape(-1), gm.reshape((-1,) + moved.shape[1:]))
        return (full, None)
    return _write_out(_make(y, a, (a, indices), backward, 'take'), out)


def pick(data, index, axis=-1, keepdims=False, mode='clip', out=None):
    """For each position, the entry of ``data`` at ``index`` along ``axis``.

    E.g. the predicted probability of each sample's true class:
    ``pick(prob, label, axis=1)``.
    """
    _check_nd('pick', data, index)
    xp = data._xp
    ax = axis % data.ndim
    n = data.shape[ax]
    ids = index._data.astype(np.int64).reshape(data.shape[:ax] + (1,) + data.shape[ax + 1:])
    ids = xp.mod(ids, n) if mode == 'wrap' else xp.clip(ids, 0, n - 1)
    with _backend.device_scope(data._ctx):
        y = xp.take_along_axis(data._data, ids, axis=ax)
    if not keepdims:
        y = y.reshape(data.shape[:ax] + data.shape[ax + 1:])

    def backward(g):
        full = xp.zeros(data.shape, dtype=g.dtype)
        xp.put_along_axis(full, ids, g.reshape(ids.shape), axis=ax)
        return full, None
    return _write_out(_make(y, data, (data, index), backward, 'pick'), out)


def one_hot(indices, depth, on_value=1.0, off_value=0.0, dtype='float32', out=None):
    """A (…, depth) array with ``on_value`` at each index and ``off_value`` elsewhere."""
    _check_nd('one_hot', indices)
    xp = indices._xp
    ids = indices._data.astype(np.int64)
    with _backend.device_scope(indices._ctx):
        hot = ids[..., None] == xp.arange(depth)
        y = xp.where(hot, on_value, off_value).astype(normalize_dtype(dtype))
    return _write_out(NDArray(y, indices._ctx), out)


def flip(data, axis, out=None):
    """Reverse the order of elements along ``axis``."""
    _check_nd('flip', data)
    xp = data._xp
    y = xp.flip(data._data, axis=axis).copy()
    return _write_out(_make(y, data, (data,), lambda g: (xp.flip(g, axis=axis),), 'flip'), out)


reverse = flip


def cast(data, dtype, out=None):
    """``data`` converted to ``dtype``."""
    _check_nd('cast', data)
    return _write_out(data.astype(dtype), out)


Cast = cast


def zeros_like(data, out=None):
    """Zeros of ``data``'s shape, dtype, context and storage type."""
    if data.stype != 'default':
        from . import sparse
        return _write_out(sparse.zeros(data.stype, data.shape, ctx=data.ctx, dtype=data.dtype),
                          out)
    if out is not None:
        out[:] = 0
        return out
    return NDArray(data._xp.zeros_like(data._data), data._ctx)


def ones_like(data, out=None):
    """Ones of ``data``'s shape, dtype and context."""
    return _write_out(NDArray(data._xp.ones_like(data._data), data._ctx), out)


def stop_gradient(data, out=None):
    """The same values, with no gradient flowing back through."""
    _check_nd('stop_gradient', data)
    return _write_out(NDArray(data._data.copy(), data._ctx), out)


BlockGrad = stop_gradient


def identity(data, out=None):
    """A copy of ``data`` (gradient passes through)."""
    _check_nd('identity', data)
    return _write_out(_make(data._data.copy(), data, (data,), lambda g: (g,), 'identity'), out)


copy = identity


# ---------------------------------------------------------------------- reductions
def _reduce_axes(ndim, axis, exclude):
    if axis is None or axis == ():
        return tuple(range(ndim))  # as MXNet: no axis reduces all, with or without exclude
    axes = (axis,) if isinstance(axis, numbers.Integral) else tuple(axis)
    axes = tuple(a % ndim for a in axes)
    if exclude:
        axes = tuple(a for a in range(ndim) if a not in axes)
    return axes


def _reduce(op, data, axis, keepdims, exclude, forward, grad):
    """A reduction; ``grad(xp, x, y_keepdims, g_keepdims) -> dx``."""
    _check_nd(op, data)
    data = _dense(data)
    xp, x = data._xp, data._data
    axes = _reduce_axes(x.ndim, axis, exclude)
    with _backend.device_scope(data._ctx):
        y_keep = forward(xp, x, axes)
    if y_keep.dtype != x.dtype:  # as MXNet: an int32 sum is int32, an int32 mean truncates
        y_keep = y_keep.astype(x.dtype)
    keep_shape = y_keep.shape
    y = y_keep if keepdims else y_keep.reshape(tuple(n for i, n in enumerate(x.shape)
                                                     if i not in axes))

    def backward(g):
        return (grad(xp, x, y_keep, g.reshape(keep_shape)),)
    return _make(y, data, (data,), backward, op)


def sum(data, axis=None, keepdims=False, exclude=False, out=None):
    """Σ over ``axis`` (all axes if None; all but ``axis`` if ``exclude``)."""
    return _write_out(_reduce('sum', data, axis, keepdims, exclude,
                              lambda xp, x, a: x.sum(axis=a, keepdims=True),
                              lambda xp, x, y, g: xp.broadcast_to(g, x.shape).copy()), out)


def sum_axis(data, axis=None, keepdims=False, exclude=False, out=None):
    """Alias of :func:`sum`."""
    return sum(data, axis, keepdims, exclude, out)


def mean(data, axis=None, keepdims=False, exclude=False, out=None):
    """Mean over ``axis``."""
    def grad(xp, x, y, g):
        return xp.broadcast_to(g, x.shape) * (y.size / x.size)
    return _write_out(_reduce('mean', data, axis, keepdims, exclude,
                              lambda xp, x, a: x.mean(axis=a, keepdims=True), grad), out)


def _extreme_grad(xp, x, y, g):
    # As MXNet: every position equal to the extreme receives the gradient.
    return g * (x == y)


def max(data, axis=None, keepdims=False, exclude=False, out=None):
    """Maximum over ``axis``."""
    return _write_out(_reduce('max', data, axis, keepdims, exclude,
                              lambda xp, x, a: x.max(axis=a, keepdims=True), _extreme_grad), out)


def min(data, axis=None, keepdims=False, exclude=False, out=None):
    """Minimum over ``axis``."""
    return _write_out(_reduce('min', data, axis, keepdims, exclude,
                              lambda xp, x, a: x.min(axis=a, keepdims=True), _extreme_grad), out)


def prod(data, axis=None, keepdims=False, exclude=False, out=None):
    """Product over ``axis``; gradient y / x (for non-zero x)."""
    return _write_out(_reduce('prod', data, axis, keepdims, exclude,
                              lambda xp, x, a: x.prod(axis=a, keepdims=True),
                              lambda xp, x, y, g: g * y / x), out)


def norm(data, ord=2, axis=None, keepdims=False, out=None):
    """The L2 (``ord=2``) or L1 (``ord=1``) norm over ``axis`` (all elements if None)."""
    if ord == 2:
        def forward(xp, x, a):
            return xp.sqrt((x * x).sum(axis=a, keepdims=True))

        def grad(xp, x, y, g):
            with np.errstate(divide='ignore', invalid='ignore'):
                return xp.where(y == 0, 0, g * x / y).astype(x.dtype)
    elif ord == 1:
        def forward(xp, x, a):
            return xp.abs(x).sum(axis=a, keepdims=True)

        def grad(xp, x, y, g):
            return g * xp.sign(x)
    else:
        raise MXNetError("norm: ord must be 1 or 2, got %r" % (ord,))
    return _write_out(_reduce('norm', data, axis, keepdims, False, forward, grad), out)


def _arg_extreme(op, data, axis, keepdims):
    _check_nd(op, data)
    xp = data._xp
    with _backend.device_scope(data._ctx):
        if axis is None:
            y = getattr(xp, op)(data._data.reshape(-1)).reshape((1,) * (data.ndim if keepdims
                                                                         else 1))
        else:
            y = getattr(xp, op)(data._data, axis=axis)
            if keepdims:
                y = xp.expand_dims(y, axis)
    # MXNet returns the indices in the input's dtype (floats for float input).
    return NDArray(y.astype(data._data.dtype), data._ctx)


def argmax(data, axis=None, keepdims=False, out=None):
    """Index of the maximum along ``axis``, in the input's dtype (as MXNet)."""
    return _write_out(_arg_extreme('argmax', data, axis, keepdims), out)


def argmin(data, axis=None, keepdims=False, out=None):
    """Index of the minimum along ``axis``, in the input's dtype (as MXNet)."""
    return _write_out(_arg_extreme('argmin', data, axis, keepdims), out)
