"""Reductions: sum, mean, max, min, prod, norm, argmax, argmin.

As in MXNet, ``axis=None`` (or ``()``) reduces every axis into shape ``(1,)``, ``exclude``
reduces the axes *not* named, and the result keeps the input's dtype (an int32 mean
truncates).
"""
import numpy as np

from ...base import MXNetError
from ..infer import arg_reduce, forward_rule, reduce as reduce_shape
from ..registry import Axes, Axis, Bool, DType, Int, Op, add, get, not_differentiable

_REDUCE_PARAMS = (Axes('axis', None, doc='The axes to reduce (None: all).'),
                  Bool('keepdims', False, doc='Keep the reduced axes with size 1.'),
                  Bool('exclude', False, doc='Reduce the axes not in ``axis`` instead.'))


def reduced_axes(ndim, axis, exclude):
    """The axes a reduction runs over (``axis`` already normalized by the table)."""
    if not axis:
        return tuple(range(ndim))  # as MXNet: no axis reduces all, with or without exclude
    if exclude:
        return tuple(a for a in range(ndim) if a not in axis)
    return axis


def reduction_axes(op, ndim, axis, exclude):
    """The axes a reduction over ``axis`` (int, tuple or None, as the operators take it)
    runs over for ``ndim`` dimensions; MXNetError for an axis out of range."""
    param = _REDUCE_PARAMS[0]
    return reduced_axes(ndim, param.normalize(get(op), get(op).parse_param('axis', axis), ndim),
                        exclude)


def _reduction(reduce, grad):
    """An operator from ``reduce(xp, x, axes, keepdims) -> y`` and
    ``grad(xp, x, y_keepdims, g_keepdims) -> dx``."""
    def forward(env, data, axis, keepdims, exclude):
        xp = env.xp
        axes = reduced_axes(data.ndim, axis, exclude)
        y = reduce(xp, data, axes, keepdims)
        if y.dtype != data.dtype:
            y = y.astype(data.dtype)

        def backward(g):
            keep_shape = tuple(1 if i in axes else n for i, n in enumerate(data.shape))
            return (grad(xp, data, y.reshape(keep_shape), g.reshape(keep_shape)),)
        return y, backward
    return forward


def _broadcast_grad(xp, x, y, g):
    return xp.broadcast_to(g, x.shape).copy()


def _mean_grad(xp, x, y, g):
    return xp.broadcast_to(g, x.shape) * x.dtype.type(y.size / x.size)


def _extreme_grad(xp, x, y, g):
    # As MXNet: every position equal to the extreme receives the gradient.
    return g * (x == y)


def _prod_grad(xp, x, y, g):
    return g * y / x


def _nan_sum_grad(xp, x, y, g):
    return xp.where(xp.isnan(x), 0, xp.broadcast_to(g, x.shape)).astype(x.dtype)


def _nan_prod_grad(xp, x, y, g):
    return xp.where(xp.isnan(x), 0, g * y / x).astype(x.dtype)


add(Op('sum', _reduction(lambda xp, x, a, k: x.sum(axis=a, keepdims=k), _broadcast_grad),
       infer_shape=reduce_shape, params=_REDUCE_PARAMS, aliases=('sum_axis',),
       doc='Σ over ``axis`` (all axes if None; all but ``axis`` with ``exclude``).'))
add(Op('mean', _reduction(lambda xp, x, a, k: x.mean(axis=a, keepdims=k), _mean_grad),
       infer_shape=reduce_shape, params=_REDUCE_PARAMS, doc='The mean over ``axis``.'))
add(Op('max', _reduction(lambda xp, x, a, k: x.max(axis=a, keepdims=k), _extreme_grad),
       infer_shape=reduce_shape, params=_REDUCE_PARAMS, aliases=('max_axis',),
       doc='The maximum over ``axis``.'))
add(Op('min', _reduction(lambda xp, x, a, k: x.min(axis=a, keepdims=k), _extreme_grad),
       infer_shape=reduce_shape, params=_REDUCE_PARAMS, aliases=('min_axis',),
       doc='The minimum over ``axis``.'))
add(Op('prod', _reduction(lambda xp, x, a, k: x.prod(axis=a, keepdims=k), _prod_grad),
       infer_shape=reduce_shape, params=_REDUCE_PARAMS, quiet=True,
       doc='The product over ``axis``; gradient y / x (for non-zero x).'))


add(Op('nansum', _reduction(lambda xp, x, a, k: xp.nansum(x, axis=a, keepdims=k), _nan_sum_grad),
       infer_shape=reduce_shape, params=_REDUCE_PARAMS,
       doc='Σ over ``axis``, NaN counted as 0.'))
add(Op('nanprod', _reduction(lambda xp, x, a, k: xp.nanprod(x, axis=a, keepdims=k),
                             _nan_prod_grad),
       infer_shape=reduce_shape, params=_REDUCE_PARAMS, quiet=True,
       doc='The product over ``axis``, NaN counted as 1.'))


def _l2(xp, x, a, keepdims):
    return xp.sqrt((x * x).sum(axis=a, keepdims=keepdims))


def _l2_grad(xp, x, y, g):
    return xp.where(y == 0, 0, g * x / y).astype(x.dtype)


def _l1(xp, x, a, keepdims):
    return xp.abs(x).sum(axis=a, keepdims=keepdims)


def _l1_grad(xp, x, y, g):
    return g * xp.sign(x)


_NORMS = {1: _reduction(_l1, _l1_grad), 2: _reduction(_l2, _l2_grad)}


def norm(env, data, ord, axis, out_dtype, keepdims):
    """The L2 (``ord=2``) or L1 (``ord=1``) norm over ``axis`` (all elements if None)."""
    if ord not in _NORMS:
        raise MXNetError('norm: ord must be 1 or 2, got %d' % ord)
    if out_dtype is not None and np.dtype(out_dtype) != data.dtype:
        raise MXNetError('norm: out_dtype=%s differs from the input\'s %s; MXNet 1.9.1 only '
                         'computes norms in the input\'s dtype (cast the input instead)'
                         % (out_dtype, data.dtype))
    return _NORMS[ord](env, data, axis, keepdims, False)


add(Op('norm', norm, quiet=True, infer_shape=reduce_shape, params=[
    Int('ord', 2, doc='1 (sum of absolute values) or 2 (Euclidean).'),
    Axes('axis', None, doc='The axes to reduce (None: all).'),
    DType('out_dtype', (None, 'float16', 'float32', 'float64', 'int32', 'int64', 'int8'), None,
          doc='The dtype of the result (None: the input\'s).'),
    Bool('keepdims', False, doc='Keep the reduced axes with size 1.')]))


def _arg_extreme(name):
    def forward(env, data, axis, keepdims):
        xp = env.xp
        if axis is None:
            y = getattr(xp, name)(data.reshape(-1)).reshape((1,) * (data.ndim if keepdims
                                                                     else 1))
        else:
            y = getattr(xp, name)(data, axis=axis)
            if keepdims:
                y = xp.expand_dims(y, axis)
        # MXNet returns the indices in the input's dtype (floats for float input).
        return y.astype(data.dtype), None
    forward.__doc__ = ('Index of the %s along ``axis`` (of the flattened array if None), '
                       'in the input\'s dtype (as MXNet).' % name[3:].replace('max', 'maximum')
                       .replace('min', 'minimum'))
    return forward


_ARG_PARAMS = (Axis('axis', None, optional=True, doc='The axis (None: the flattened array).'),
               Bool('keepdims', False, doc='Keep the reduced axis with size 1.'))
add(Op('argmax', _arg_extreme('argmax'), params=_ARG_PARAMS, infer_shape=arg_reduce))
add(Op('argmin', _arg_extreme('argmin'), params=_ARG_PARAMS, infer_shape=arg_reduce))


def argmax_channel(env, data):
    """Index of the maximum along axis 1 (the channels), in the input's dtype."""
    if data.ndim < 2:
        raise MXNetError('argmax_channel needs an input of at least 2 dimensions, got shape %s'
                         % (data.shape,))
    return env.xp.argmax(data, axis=1).astype(data.dtype), not_differentiable('argmax_channel')


@forward_rule
def _argmax_channel_shape(in_shapes, params):
    shape = in_shapes[0]
    return [shape[:1] + shape[2:] or (1,)]


add(Op('argmax_channel', argmax_channel, infer_shape=_argmax_channel_shape))
