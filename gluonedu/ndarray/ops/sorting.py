"""Ordering: sort, argsort, topk, and the running sum cumsum.

Ties keep their order (a stable sort), ascending and descending alike, as MXNet's; indices
come back in the ``dtype`` asked for (float32 by default, as MXNet).
"""
import numpy as np

from ...base import MXNetError
from ..infer import forward_rule
from ..registry import Axis, Bool, DType, Enum, Int, Op, add

_INDEX_DTYPES = ('float16', 'float32', 'float64', 'int32', 'int64', 'uint8')
#: sort and argsort refuse float16 in MXNet 1.9.1 (topk takes it).
_NOT_HALF = ('float32', 'float64', 'uint8', 'int8', 'int32', 'int64', 'bool')


def _order(xp, data, axis, is_ascend):
    """Stable argsort of ``data`` along ``axis`` (the flattened array for None)."""
    values = data.reshape(-1) if axis is None else data
    axis = 0 if axis is None else axis
    keys = values if is_ascend else -values.astype(np.float64)
    return values, axis, xp.argsort(keys, axis=axis, kind='stable')


def _scatter_grad(xp, data, axis, order, g):
    """The gradient of ``take_along_axis(data, order, axis)``, ``data`` flattened if None."""
    full = xp.zeros(data.size if axis is None else data.shape, dtype=g.dtype)
    xp.put_along_axis(full, order, g, axis=0 if axis is None else axis)
    return full.reshape(data.shape)


def sort(env, data, axis, is_ascend):
    """``data`` sorted along ``axis`` (the flattened array if None)."""
    xp = env.xp
    values, ax, order = _order(xp, data, axis, is_ascend)
    y = xp.take_along_axis(values, order, axis=ax)
    return y, lambda g: (_scatter_grad(xp, data, axis, order, g),)


def argsort(env, data, axis, is_ascend, dtype):
    """The indices that sort ``data`` along ``axis``, in ``dtype``."""
    _, _, order = _order(env.xp, data, axis, is_ascend)
    return order.astype(dtype), None


_ORDER_PARAMS = [Axis('axis', -1, optional=True, doc='The axis (None: the flattened array).'),
                 Bool('is_ascend', True, doc='Smallest first.')]
@forward_rule
def _sorted_shape(in_shapes, params):
    """The input's shape, or its size flattened when ``axis`` is None."""
    shape = in_shapes[0]
    return [(int(np.prod(shape)),) if params['axis'] is None else shape]


add(Op('sort', sort, dtypes=_NOT_HALF, params=_ORDER_PARAMS, infer_shape=_sorted_shape))
add(Op('argsort', argsort, dtypes=_NOT_HALF, infer_shape=_sorted_shape, params=_ORDER_PARAMS + [
    DType('dtype', _INDEX_DTYPES, 'float32', doc='The dtype of the indices.')]))


def topk(env, data, axis, k, ret_typ, is_ascend, dtype):
    """The ``k`` largest (or smallest, ``is_ascend``) entries along ``axis``: their
    indices, values, both (a list), or a 0/1 mask of the input's shape. ``k < 1`` means
    all."""
    xp = env.xp
    values, ax, order = _order(xp, data, axis, is_ascend)
    n = values.shape[ax]
    if k > n:
        raise MXNetError('topk: k=%d exceeds the %d elements along the axis' % (k, n))
    k = n if k < 1 else k
    top = xp.take(order, xp.arange(k), axis=ax)
    if ret_typ == 'mask':
        mask = xp.zeros(values.shape, dtype=data.dtype)
        xp.put_along_axis(mask, top, 1, axis=ax)
        return mask.reshape(data.shape), None
    indices = top.astype(dtype)
    if ret_typ == 'indices':
        return indices, None
    picked = xp.take_along_axis(values, top, axis=ax)

    def backward(grads):
        g = grads[0] if isinstance(grads, list) else grads  # the indices get none
        return (None if g is None else _scatter_grad(xp, data, axis, top, g),)
    if ret_typ == 'value':
        return picked, backward
    return [picked, indices], backward


@forward_rule
def _topk_shapes(in_shapes, params):
    """k entries along the axis (of the flattened input for None); a mask is shaped as
    the input."""
    shape = in_shapes[0]
    if params['ret_typ'] == 'mask':
        return [shape]
    if params['axis'] is None:
        shape = (int(np.prod(shape)),)
    axis = 0 if params['axis'] is None else params['axis'] % len(shape)
    k = params['k'] if params['k'] >= 1 else shape[axis]
    top = shape[:axis] + (k,) + shape[axis + 1:]
    return [top] * (2 if params['ret_typ'] == 'both' else 1)


def _topk_types(in_types, out_types, params):
    """Values (and a mask) in the input's dtype, indices in ``dtype``."""
    index = np.dtype(params['dtype'])
    kinds = {'both': [in_types[0], index], 'indices': [index]}
    return in_types, kinds.get(params['ret_typ'], [in_types[0]])


add(Op('topk', topk, num_outputs=lambda p: 2 if p['ret_typ'] == 'both' else 1,
       infer_shape=_topk_shapes, infer_type=_topk_types, params=[
    Axis('axis', -1, optional=True, doc='The axis (None: the flattened array).'),
    Int('k', 1, doc='How many entries (< 1: all).'),
    Enum('ret_typ', ('both', 'indices', 'mask', 'value'), 'indices', doc='What to return.'),
    Bool('is_ascend', False, doc='The smallest instead of the largest.'),
    DType('dtype', _INDEX_DTYPES, 'float32', doc='The dtype of the indices.')]))


def cumsum(env, a, axis, dtype):
    """Running sums along ``axis`` (of the flattened array if None), in ``dtype`` (default:
    the input's; booleans count as int64)."""
    xp = env.xp
    if axis is not None and not 0 <= axis < a.ndim:
        raise MXNetError('cumsum: axis %d is out of range [0, %d) (MXNet 1.9.1 takes no '
                         'negative axis here)' % (axis, a.ndim))
    out_dtype = np.dtype(dtype) if dtype is not None else \
        np.dtype(np.int64) if a.dtype == np.bool_ else a.dtype
    values = a.reshape(-1) if axis is None else a
    ax = 0 if axis is None else axis
    y = xp.cumsum(values, axis=ax, dtype=out_dtype)

    def backward(g):
        flipped = xp.flip(g, axis=ax)
        return (xp.flip(xp.cumsum(flipped, axis=ax), axis=ax).reshape(a.shape)
                .astype(a.dtype, copy=False),)
    return y, backward


add(Op('_np_cumsum', cumsum, ('a',), aliases=('cumsum',), infer_shape=_sorted_shape, params=[
    Int('axis', None, optional=True, doc='The axis (None: the flattened array).'),
    DType('dtype', (None, 'float16', 'float32', 'float64', 'int32', 'int64', 'int8'), None,
          doc='The dtype of the sums (None: the input\'s).')]))
