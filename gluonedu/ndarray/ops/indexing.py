"""Selecting elements: slice, slice_axis, take, pick, batch_take, one_hot, where.

Integer indices may come in any dtype (float ids are truncated, as MXNet does); the
gradient of the indexed array scatters the output's gradient back (summing where ids
repeat) and the indices get none.
"""
import numpy as np

from ...base import MXNetError
from ..infer import forward_rule, like_first
from ..registry import Axis, Bool, DType, Enum, Float, Int, Op, Shape, add


# ---------------------------------------------------------------------- slicing
def _sliced(env, op, data, key, allow_empty=False):
    y = data[key]
    if 0 in y.shape and not allow_empty:
        raise MXNetError('%s: the range selects no element of an input of shape %s'
                         % (op, data.shape))
    xp = env.xp

    def backward(g):
        full = xp.zeros(data.shape, dtype=g.dtype)
        full[key] = g
        return (full,)
    return y.copy(), backward


def slice_key(op, shape, begin, end, step, check_begin=True):
    """The Python key of ``[begin:end:step]`` per axis of an array of ``shape`` (``None``
    entries: the whole axis), checked as MXNet checks ``slice``'s parameters: a begin
    outside the axis is an error (unless not ``check_begin``: clipped, as Python slices)
    while an end past it is clipped."""
    if begin is None or end is None:
        raise MXNetError('%s: begin and end are required' % op)
    if len(begin) != len(end) or (step and len(step) != len(begin)):
        raise MXNetError('%s: begin %s, end %s and step %s need the same length'
                         % (op, tuple(begin), tuple(end), tuple(step)))
    if len(begin) > len(shape):
        raise MXNetError('%s: %d bounds for an input of %d dimensions'
                         % (op, len(begin), len(shape)))
    step = step or (None,) * len(begin)  # None or (): step 1 everywhere
    for axis, (b, s) in enumerate(zip(begin, step)):
        if s == 0:
            raise MXNetError('%s: the step of axis %d cannot be 0' % (op, axis))
        n = shape[axis]
        if check_begin and b is not None and not -n <= b < n:
            raise MXNetError('%s: begin %d is outside axis %d of size %d' % (op, b, axis, n))
    return tuple(slice(b, e, s) for b, e, s in zip(begin, end, step))


def slice_(env, data, begin, end, step):
    """``data[begin:end:step]`` per axis; ``None`` entries mean the whole axis.

    As MXNet, a begin outside the axis is an error while an end past it is clipped.
    """
    key = slice_key('slice', data.shape, begin, end, step)
    # As MXNet: an empty range is an error, except with a negative step.
    return _sliced(env, 'slice', data, key, allow_empty=any(
        k.step is not None and k.step < 0 for k in key))


add(Op('slice', slice_, aliases=('crop',), params=[
    Shape('begin', none_items=True, doc='Start per axis (None: from the start).'),
    Shape('end', none_items=True, doc='Stop per axis, exclusive (None: to the end).'),
    Shape('step', (), none_items=True, accepts_none=True,
          doc='Step per axis (default 1).')]))


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


@forward_rule
def _take_shape(in_shapes, params):
    """``a``'s axis replaced by the indices' shape."""
    a, indices = in_shapes
    axis = params['axis'] % len(a)
    return [a[:axis] + indices + a[axis + 1:]]


add(Op('take', take, ('a', 'indices'), same_dtype=False, infer_shape=_take_shape, params=[
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


def not_differentiable(name):
    """The backward of an operator MXNet registers no gradient for."""
    def backward(*_):
        raise MXNetError('%s is not differentiable (MXNet registers no gradient for it)' % name)
    return backward


def batch_take(env, a, indices):
    """Row i's entry at ``indices[i]`` (clipped to the row) of ``a`` seen as rows of its
    last axis (MXNet's older ``pick(a, indices, axis=-1)``); of the shape of ``indices``."""
    if a.ndim < 2:
        raise MXNetError('batch_take needs data of at least 2 dimensions, got shape %s'
                         % (a.shape,))
    if indices.dtype != np.int32:
        raise MXNetError('batch_take takes int32 indices, got %s; convert them with '
                         ".astype('int32')" % indices.dtype)
    rows = a.reshape(-1, a.shape[-1])
    y, _ = pick(env, rows, indices.reshape(-1), axis=1, keepdims=False, mode='clip')
    return y.reshape(indices.shape), not_differentiable('batch_take')


add(Op('batch_take', batch_take, ('a', 'indices'), same_dtype=False))


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


add(Op('one_hot', one_hot, ('indices',),
       infer_shape=forward_rule(lambda in_shapes, p: [in_shapes[0] + (p['depth'],)]), params=[
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


def _where_shapes(in_shapes, out_shapes, params):
    """x, y and the result share a shape (the condition: that one, or its first axis)."""
    ins, outs = like_first(in_shapes[1:], out_shapes, params)
    ins, outs = like_first(ins[::-1], outs, params)
    return [in_shapes[0]] + ins[::-1], outs


add(Op('where', where, ('condition', 'x', 'y'), same_dtype=('x', 'y'),
       infer_shape=_where_shapes))


def _nd_indices(indices, data_shape, op):
    """Integer ids from ``indices`` (M, ...) into the first M axes of ``data_shape``.

    As MXNet: a value must lie in [-n, n - 1] (IndexError otherwise, as MXNet raises);
    negative values count from the end, and fractions are then truncated (-0.5 -> n - 1).
    """
    if indices.ndim < 2:
        raise MXNetError('%s: indices need at least 2 dimensions (M, ...), got shape %s'
                         % (op, indices.shape))
    m = indices.shape[0]
    if m > len(data_shape):
        raise MXNetError('%s: indices address %d axes, the data has %d' % (op, m, len(data_shape)))
    bounds = np.asarray(data_shape[:m]).reshape((m,) + (1,) * (indices.ndim - 1))
    values = indices.astype(np.float64)
    bad = (values < -bounds) | (values > bounds - 1)
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        raise IndexError('%s: index %s is out of bounds for axis %d with size %d'
                         % (op, indices[where], where[0], data_shape[where[0]]))
    return (values + (values < 0) * bounds).astype(np.int64)


def gather_nd(env, data, indices):
    """``out[y...] = data[indices[0, y...], ..., indices[M-1, y...], ...]``: gathers the
    elements (or slices) of ``data`` whose first M coordinates ``indices`` (M, ...) lists."""
    xp = env.xp
    ids = _nd_indices(indices, data.shape, 'gather_nd')
    key = tuple(ids)
    y = data[key]

    def backward(g):
        full = xp.zeros(data.shape, dtype=g.dtype)
        xp.add.at(full, key, g)
        return full, None
    return y, backward


@forward_rule
def _gather_nd_shape(in_shapes, params):
    """indices (M, ...) pick from data's first M axes: indices.shape[1:] + the rest."""
    data, indices = in_shapes
    return [indices[1:] + data[indices[0]:]]


add(Op('gather_nd', gather_nd, ('data', 'indices'), same_dtype=False,
       infer_shape=_gather_nd_shape))


def scatter_nd(env, data, indices, shape):
    """An array of ``shape``, zero except ``out[indices[:, i...]] = data[i...]`` (the
    inverse of gather_nd; ids out of range are skipped, the last of repeated ids wins)."""
    xp = env.xp
    if indices.ndim < 2:
        raise MXNetError('scatter_nd: indices need at least 2 dimensions (M, ...), got shape %s'
                         % (indices.shape,))
    m = indices.shape[0]
    if m > len(shape) or data.shape != indices.shape[1:] + tuple(shape[m:]):
        raise MXNetError('scatter_nd: data of shape %s does not fit indices of shape %s '
                         'into shape %s' % (data.shape, indices.shape, tuple(shape)))
    ids = indices.astype(np.int64)
    bounds = np.asarray(shape[:m]).reshape((m,) + (1,) * (ids.ndim - 1))
    keep = ((ids >= 0) & (ids < bounds)).all(axis=0)
    key = tuple(i[keep] for i in ids)
    out = xp.zeros(tuple(shape), dtype=data.dtype)
    out[key] = data[keep]

    def backward(g):
        grad = xp.zeros(data.shape, dtype=g.dtype)
        grad[keep] = g[key]
        return grad, None
    return out, backward


add(Op('scatter_nd', scatter_nd, ('data', 'indices'), same_dtype=False,
       infer_shape=forward_rule(lambda in_shapes, p: [tuple(p['shape'])]),
       params=[Shape('shape', doc='The shape of the result.')]))


def slice_like(env, data, shape_like, axes):
    """``data`` cut to the size of ``shape_like`` along ``axes`` (all axes if empty; none
    if None, as MXNet)."""
    if axes is None:
        return data.copy(), lambda g: (g, None)
    if not axes:
        if data.ndim != shape_like.ndim:
            raise MXNetError('slice_like: without axes both inputs need the same number of '
                             'dimensions, got %s and %s' % (data.shape, shape_like.shape))
        axes = range(data.ndim)
    key = [slice(None)] * data.ndim
    for a in axes:
        if not (-data.ndim <= a < data.ndim and -shape_like.ndim <= a < shape_like.ndim):
            raise MXNetError('slice_like: axis %d is out of range for shapes %s and %s'
                             % (a, data.shape, shape_like.shape))
        if shape_like.shape[a] > data.shape[a]:
            raise MXNetError('slice_like: axis %d of shape_like (%d) exceeds the data\'s (%d)'
                             % (a, shape_like.shape[a], data.shape[a]))
        key[a] = slice(0, shape_like.shape[a])
    y, backward = _sliced(env, 'slice_like', data, tuple(key))
    return y, lambda g: backward(g) + (None,)


add(Op('slice_like', slice_like, ('data', 'shape_like'), same_dtype=False,
       params=[Shape('axes', (), accepts_none=True, doc='The axes to cut (default: all).')]))


def diag(env, data, k, axis1, axis2):
    """A 1-D input becomes the matrix with it on diagonal ``k``; an N-D input gives its
    diagonal ``k`` over ``axis1``/``axis2`` (as the last axis)."""
    xp = env.xp
    if data.ndim == 1:
        y = xp.diag(data, k)
        return y, lambda g: (xp.diagonal(g, k).copy(),)
    a1, a2 = axis1 % data.ndim, axis2 % data.ndim
    if not (-data.ndim <= axis1 < data.ndim and -data.ndim <= axis2 < data.ndim) or a1 == a2:
        raise MXNetError('diag: axis1=%d and axis2=%d must be two different axes of a %d-D '
                         'input' % (axis1, axis2, data.ndim))
    if k > data.shape[a2] or -k > data.shape[a1]:
        raise MXNetError('diag: diagonal %d does not exist in an input of shape %s'
                         % (k, data.shape))
    y = xp.diagonal(data, k, a1, a2)  # may be empty at the edge, as MXNet

    def backward(g):
        full = xp.zeros(data.shape, dtype=g.dtype)
        planes = xp.moveaxis(full, (a1, a2), (-2, -1))  # a writable view of full
        steps = xp.arange(g.shape[-1])
        rows, cols = (steps, steps + k) if k >= 0 else (steps - k, steps)
        planes[..., rows, cols] = g
        return (full,)
    return y.copy(), backward


@forward_rule
def _diag_shape(in_shapes, params):
    """A vector becomes a square matrix; a matrix (or N-D) gives its diagonal, last."""
    shape, k = in_shapes[0], params['k']
    if len(shape) == 1:
        return [(shape[0] + abs(k),) * 2]
    a1, a2 = params['axis1'] % len(shape), params['axis2'] % len(shape)
    rows, cols = shape[a1], shape[a2]
    length = max(0, min(rows, cols - k) if k >= 0 else min(rows + k, cols))
    return [tuple(n for i, n in enumerate(shape) if i not in (a1, a2)) + (length,)]


add(Op('diag', diag, infer_shape=_diag_shape,
       params=[Int('k', 0, doc='Which diagonal (0: main, >0: above).'),
               Int('axis1', 0, doc='The first axis of the 2-D planes.'),
               Int('axis2', 1, doc='The second axis of the 2-D planes.')]))
