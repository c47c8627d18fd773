"""Selecting elements: slice, slice_axis, take, pick, one_hot, where.

Integer indices may come in any dtype (float ids are truncated, as MXNet does); the
gradient of the indexed array scatters the output's gradient back (summing where ids
repeat) and the indices get none.
"""
import numpy as np

from ...base import MXNetError
from ..registry import Axis, Bool, DType, Enum, Float, Int, Op, Shape, add


# ---------------------------------------------------------------------- slicing
def _sliced(env, op, data, key):
    y = data[key]
    if 0 in y.shape:
        raise MXNetError('%s: the range selects no element of an input of shape %s'
                         % (op, data.shape))
    xp = env.xp

    def backward(g):
        full = xp.zeros(data.shape, dtype=g.dtype)
        full[key] = g
        return (full,)
    return y.copy(), backward


def slice_(env, data, begin, end, step):
    """``data[begin:end:step]`` per axis; ``None`` entries mean the whole axis.

    As MXNet, a begin outside the axis is an error while an end past it is clipped.
    """
    if len(begin) != len(end) or (step and len(step) != len(begin)):
        raise MXNetError('slice: begin %s, end %s and step %s need the same length'
                         % (tuple(begin), tuple(end), tuple(step)))
    if len(begin) > data.ndim:
        raise MXNetError('slice: %d bounds for an input of %d dimensions'
                         % (len(begin), data.ndim))
    step = step or (None,) * len(begin)
    for axis, (b, s) in enumerate(zip(begin, step)):
        if s == 0:
            raise MXNetError('slice: the step of axis %d cannot be 0' % axis)
        n = data.shape[axis]
        if b is not None and not -n <= b < n:
            raise MXNetError('slice: begin %d is outside axis %d of size %d' % (b, axis, n))
    return _sliced(env, 'slice', data, tuple(slice(b, e, s) for b, e, s in zip(begin, end, step)))


add(Op('slice', slice_, aliases=('crop',), params=[
    Shape('begin', none_items=True, doc='Start per axis (None: from the start).'),
    Shape('end', none_items=True, doc='Stop per axis, exclusive (None: to the end).'),
    Shape('step', (), none_items=True, doc='Step per axis (default 1).')]))


def slice_axis(env, data, axis, begin, end):
    """``data`` restricted to [begin, end) along ``axis`` (``end=None``: to the end;
    negative bounds count from the end). The range must lie inside the axis and not be
    empty, as MXNet checks."""
    n = data.shape[axis]
    start = begin + n if begin < 0 else begin
    stop = n if end is None else end + n if end < 0 else end
    if not 0 <= start < stop <= n:
        raise MXNetError('slice_axis: [%s, %s) is not a non-empty range of axis %d (size %d)'
                         % (begin, end, axis, n))
    key = [slice(None)] * data.ndim
    key[axis] = slice(start, stop)
    return _sliced(env, 'slice_axis', data, tuple(key))


add(Op('slice_axis', slice_axis, params=[
    Axis('axis', doc='The axis to slice.'), Int('begin', doc='Start (negative: from the end).'),
    Int('end', optional=True, doc='Stop, exclusive (None: to the end).')]))


# ---------------------------------------------------------------------- gathering
def _wrap_or_clip(xp, ids, n, mode, op):
    if mode == 'wrap':
        return xp.mod(ids, n)
    if mode == 'raise' and ids.size and (int(ids.min()) < 0 or int(ids.max()) >= n):
        raise MXNetError('%s: an index is out of bounds [0, %d) (mode=\'raise\'); use '
                         'mode=\'clip\' or \'wrap\', or fix the indices' % (op, n))
    return xp.clip(ids, 0, n - 1)


def take(env, a, indices, axis, mode):
    """Entries of ``a`` at integer ``indices`` along ``axis``: 'clip' ids to the valid range,
    'wrap' them around, or 'raise' on ids out of range."""
    xp = env.xp
    n = a.shape[axis]
    ids = _wrap_or_clip(xp, indices.astype(np.int64), n, mode, 'take')
    y = xp.take(a, ids, axis=axis)

    def backward(g):
        full = xp.zeros(a.shape, dtype=g.dtype)
        moved = xp.moveaxis(full, axis, 0)
        gm = xp.moveaxis(g, list(range(axis, axis + ids.ndim)), list(range(ids.ndim)))
        xp.add.at(moved, ids.reshape(-1), gm.reshape((-1,) + moved.shape[1:]))
        return full, None
    return y, backward


add(Op('take', take, ('a', 'indices'), same_dtype=False, params=[
    Axis('axis', 0, doc='The axis to take along.'),
    Enum('mode', ('clip', 'raise', 'wrap'), 'clip', doc='What out-of-range ids do.')]))


def pick(env, data, index, axis, keepdims, mode):
    """For each position, the entry of ``data`` at ``index`` along ``axis``.

    E.g. the predicted probability of each sample's true class:
    ``pick(prob, label, axis=1)``.
    """
    xp = env.xp
    if axis is None:
        raise MXNetError('pick: axis=None is not supported; name the axis to pick along')
    kept = data.shape[:axis] + (1,) + data.shape[axis + 1:]
    if index.size != int(np.prod(kept)):
        raise MXNetError('pick: index of shape %s does not match data of shape %s along '
                         'axis %d' % (index.shape, data.shape, axis))
    n = data.shape[axis]
    ids = _wrap_or_clip(xp, index.astype(np.int64).reshape(kept), n, mode, 'pick')
    y = xp.take_along_axis(data, ids, axis=axis)
    if not keepdims:
        y = y.reshape(data.shape[:axis] + data.shape[axis + 1:])

    def backward(g):
        full = xp.zeros(data.shape, dtype=g.dtype)
        xp.put_along_axis(full, ids, g.reshape(ids.shape), axis=axis)
        return full, None
    return y, backward


add(Op('pick', pick, ('data', 'index'), aliases=('choose_element_0index',), same_dtype=False,
       params=[Axis('axis', -1, optional=True, doc='The axis to pick along.'),
               Bool('keepdims', False, doc='Keep the picked axis with size 1.'),
               Enum('mode', ('clip', 'wrap'), 'clip', doc='What out-of-range ids do.')]))


_ONE_HOT_DTYPES = ('bfloat16', 'float16', 'float32', 'float64', 'int32', 'int64', 'int8',
                   'uint8')


def one_hot(env, indices, depth, on_value, off_value, dtype):
    """A (…, depth) array with ``on_value`` at each index and ``off_value`` elsewhere (ids
    outside [0, depth) give a row of ``off_value``)."""
    xp = env.xp
    if depth < 0:
        raise MXNetError('one_hot: depth must be >= 0, got %d' % depth)
    hot = indices.astype(np.int64)[..., None] == xp.arange(depth)
    return xp.where(hot, on_value, off_value).astype(dtype), None


add(Op('one_hot', one_hot, ('indices',), params=[
    Int('depth', doc='The number of classes.'),
    Float('on_value', 1.0, doc='The value at the index.'),
    Float('off_value', 0.0, doc='The value elsewhere.'),
    DType('dtype', _ONE_HOT_DTYPES, 'float32', doc='The dtype of the result.')]))


def where(env, condition, x, y):
    """``x`` where ``condition`` is non-zero, else ``y`` (element-wise; a 1-D condition
    selects whole rows)."""
    xp = env.xp
    if x.shape != y.shape:
        raise MXNetError('where: x and y must have the same shape, got %s and %s'
                         % (x.shape, y.shape))
    cond = condition != 0
    if cond.shape != x.shape:
        if cond.ndim == 1 and cond.shape[0] == x.shape[0]:
            cond = cond.reshape((-1,) + (1,) * (x.ndim - 1))
        else:
            raise MXNetError('where: condition shape %s must equal x\'s %s or be its first '
                             'axis' % (condition.shape, x.shape))
    out = xp.where(cond, x, y)

    def backward(g):
        zero = xp.zeros_like(g)
        return None, xp.where(cond, g, zero), xp.where(cond, zero, g)
    return out, backward


add(Op('where', where, ('condition', 'x', 'y'), same_dtype=('x', 'y')))
