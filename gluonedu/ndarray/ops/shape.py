"""Operators that move elements around: reshape, transpose, tile, repeat, concat, split, flip,
broadcast_to. Their gradients move the output's gradient back the same way.
"""
import itertools

import numpy as np

from ...base import MXNetError
from .. import _graph
from ..ndarray import NDArray, _unbroadcast
from ..infer import fixed_dtype, forward_rule, is_known, like_first, merge
from ..registry import Axes, Axis, Bool, Enum, Float, Int, Op, Shape, add, check_size, get


def _reshape_grad(shape):
    return lambda g: (g.reshape(shape),)


# ---------------------------------------------------------------------- reshape family
def infer_reshape(src, spec, reverse=False):
    """The target shape of MXNet's reshape codes: 0 keep, -1 infer, -2 copy the rest,
    -3 merge two, -4 split one into the next two codes."""
    src, spec = list(src), list(spec)
    if reverse:
        src, spec = src[::-1], spec[::-1]
    out, i, k = [], 0, 0
    try:
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
            elif code < -4:
                raise MXNetError('reshape: %d is not a shape code: use a size, 0, -1, -2, -3 or '
                                 '-4' % code)
            else:
                out.append(code)
                i += 1
            k += 1
    except (IndexError, ZeroDivisionError):
        raise MXNetError('reshape: the codes %s do not fit the input shape %s'
                         % (tuple(spec[::-1] if reverse else spec),
                            tuple(src[::-1] if reverse else src))) from None
    if out.count(-1) > 1:
        raise MXNetError('reshape: only one dimension can be inferred (-1), got %s'
                         % (tuple(spec),))
    return tuple(out[::-1] if reverse else out)


def reshaped(data, shape, reverse):
    """``data`` (a raw array) viewed with MXNet's reshape ``shape`` codes."""
    target = infer_reshape(data.shape, shape, reverse)
    try:
        return data.reshape(target)
    except ValueError:
        raise MXNetError('reshape: cannot reshape an array of shape %s (size %d) into %s'
                         % (data.shape, data.size, tuple(shape))) from None


def reshape(env, data, shape, reverse, target_shape, keep_highest):
    """``data`` with a new shape, in MXNet's codes (0, -1, -2, -3, -4).

    As in MXNet, this operator returns a new array, while the method ``x.reshape(...)``
    returns a view sharing ``x``'s memory.
    """
    if not shape and target_shape:  # the deprecated form: a 0 is the one inferred size
        if keep_highest:
            raise MXNetError('reshape: keep_highest is deprecated and not supported; use '
                             'shape= with the code 0')
        if any(n < 0 for n in target_shape):
            raise MXNetError('reshape: target_shape %s has a negative size'
                             % (tuple(target_shape),))
        shape = tuple(-1 if n == 0 else n for n in target_shape)
    return reshaped(data, shape, reverse).copy(), _reshape_grad(data.shape)


def _resolved(shape, size, spec):
    """``shape`` with its one -1 worked out from ``size``; MXNetError if it does not fit."""
    known = int(np.prod([n for n in shape if n != -1]))
    if -1 in shape:
        if known == 0 or size % known:
            raise MXNetError('reshape: cannot reshape %d elements into %s' % (size, spec))
        shape = tuple(size // known if n == -1 else n for n in shape)
    elif known != size:
        raise MXNetError('reshape: cannot reshape %d elements into %s' % (size, spec))
    return shape


def _reshape_target(data, params):
    """The target of the reshape codes (or of the deprecated ``target_shape``)."""
    shape = params['shape']
    if not shape and params['target_shape']:
        shape = tuple(-1 if n == 0 else n for n in params['target_shape'])
    target = infer_reshape(data, shape, params['reverse'])
    return _resolved(target, int(np.prod(data)), shape)


def _reshape_shape(in_shapes, out_shapes, params):
    """The output from a known input; and, as MXNet, an input's one unknown size from a
    known output (the output's size over the input's known sizes)."""
    data, out = in_shapes[0], out_shapes[0]
    if data is not None and not is_known(data) and is_known(out) and list(data).count(0) == 1:
        known, size = int(np.prod([n for n in data if n])), int(np.prod(out))
        if size % known == 0:
            data = tuple(n or size // known for n in data)
    if not is_known(data):
        return in_shapes, out_shapes
    return [data], [merge(out, _reshape_target(data, params))]


add(Op('Reshape', reshape, aliases=('reshape',), infer_shape=_reshape_shape, params=[
    Shape('shape', (), doc='The new shape, in MXNet\'s codes.'),
    Bool('reverse', False, doc='Read the codes from the right.'),
    Shape('target_shape', (), accepts_none=True, doc='Deprecated; use shape.'),
    Bool('keep_highest', False, doc='Deprecated; use shape.')]))


def reshape_view(array, shape, reverse=False):
    """``array`` (an NDArray) reshaped without a copy: the ``x.reshape(...)`` method."""
    op = get('Reshape')
    data = reshaped(array._data, op.parse_param('shape', shape),
                    op.parse_param('reverse', reverse))
    return _graph.record(NDArray(data, array._ctx), (array,),
                         lambda g: (g.reshape(array.shape),), op.name)


def _axis_span(begin, end, ndim, op):
    """[begin, end) of MXNet's optional, possibly negative axis bounds."""
    start = 0 if begin is None else begin + ndim if begin < 0 else begin
    stop = ndim if end is None else end + ndim if end < 0 else end
    if not 0 <= start < stop <= ndim:
        raise MXNetError('%s: axes [%s, %s) are out of range (or empty) for %d dimensions'
                         % (op, begin, end, ndim))
    return start, stop


def reshape_like(env, lhs, rhs, lhs_begin, lhs_end, rhs_begin, rhs_end):
    """``lhs`` with its axes [lhs_begin, lhs_end) given the sizes of ``rhs``'s
    [rhs_begin, rhs_end) (all axes by default)."""
    lb, le = _axis_span(lhs_begin, lhs_end, lhs.ndim, 'reshape_like')
    rb, re_ = _axis_span(rhs_begin, rhs_end, rhs.ndim, 'reshape_like')
    target = lhs.shape[:lb] + rhs.shape[rb:re_] + lhs.shape[le:]
    if int(np.prod(target)) != lhs.size:
        raise MXNetError('reshape_like: cannot give shape %s (size %d) the shape %s'
                         % (lhs.shape, lhs.size, target))
    return lhs.reshape(target).copy(), lambda g: (g.reshape(lhs.shape), None)


add(Op('reshape_like', reshape_like, ('lhs', 'rhs'), same_dtype=False, params=[
    Int('lhs_begin', None, optional=True), Int('lhs_end', None, optional=True),
    Int('rhs_begin', None, optional=True), Int('rhs_end', None, optional=True)]))


def flatten(env, data):
    """Collapse all axes but the first: (d0, d1, …) -> (d0, d1·…)."""
    return data.reshape(data.shape[0], -1).copy(), _reshape_grad(data.shape)


@forward_rule
def _flatten_shape(in_shapes, params):
    shape = in_shapes[0]
    return [(shape[0], int(np.prod(shape[1:])))]


add(Op('Flatten', flatten, aliases=('flatten',), infer_shape=_flatten_shape))


def expand_dims(env, data, axis):
    """Insert a size-1 axis at ``axis``."""
    return env.xp.expand_dims(data, axis).copy(), _reshape_grad(data.shape)


@forward_rule
def _expand_dims_shape(in_shapes, params):
    shape = in_shapes[0]
    axis = params['axis'] % (len(shape) + 1)
    return [shape[:axis] + (1,) + shape[axis:]]


add(Op('expand_dims', expand_dims, infer_shape=_expand_dims_shape,
       params=[Axis('axis', extra=1, doc='Where the new axis goes.')]))


def squeeze(env, data, axis):
    """Remove size-1 axes (those in ``axis``, or all); never below shape (1,)."""
    axes = tuple(i for i, n in enumerate(data.shape) if n == 1) if axis is None else axis
    for a in axes:
        if data.shape[a] != 1:
            raise MXNetError('squeeze: axis %d has size %d, not 1' % (a, data.shape[a]))
    y = data.reshape(tuple(n for i, n in enumerate(data.shape) if i not in axes) or (1,))
    return y.copy(), _reshape_grad(data.shape)


add(Op('squeeze', squeeze, params=[Axes('axis', None, doc='The axes to remove (None: all '
                                                          'of size 1).')]))


# ---------------------------------------------------------------------- axes permutations
def transpose(env, data, axes):
    """Permute the axes (reverse them when ``axes`` is empty)."""
    xp = env.xp
    if not axes:
        axes = tuple(range(data.ndim))[::-1]
    elif sorted(axes) != list(range(data.ndim)):
        raise MXNetError('transpose: axes %s must be a permutation of 0..%d'
                         % (tuple(axes), data.ndim - 1))
    inverse = tuple(np.argsort(axes))
    return xp.transpose(data, axes).copy(), lambda g: (xp.transpose(g, inverse),)


@forward_rule
def _transpose_shape(in_shapes, params):
    shape, axes = in_shapes[0], params['axes']
    if not axes:
        return [shape[::-1]]
    if sorted(a % len(shape) for a in axes) != list(range(len(shape))):
        raise MXNetError('transpose: axes %s must be a permutation of 0..%d'
                         % (tuple(axes), len(shape) - 1))
    return [tuple(shape[a] for a in axes)]


add(Op('transpose', transpose, infer_shape=_transpose_shape,
       params=[Shape('axes', (), doc='The new order of the axes.')]))


def swapaxes(env, data, dim1, dim2):
    """Exchange two axes."""
    return data.swapaxes(dim1, dim2).copy(), lambda g: (g.swapaxes(dim1, dim2),)


add(Op('SwapAxis', swapaxes, aliases=('swapaxes',),
       params=[Axis('dim1', 0), Axis('dim2', 0)]))


def _check_axes_in_range(name, axes, ndim):
    for a in axes:
        if not 0 <= a < ndim:
            raise MXNetError('%s: axis %d is out of range [0, %d)' % (name, a, ndim))


def flip(env, data, axis):
    """Reverse the order of elements along each axis in ``axis`` (0 <= axis < ndim)."""
    xp = env.xp
    _check_axes_in_range('reverse', axis, data.ndim)
    y = data
    for a in axis:  # as MXNet: an axis named twice is flipped twice
        y = xp.flip(y, axis=a)
    return y.copy(), lambda g: (_flip_all(xp, g, axis),)


def _flip_all(xp, g, axes):
    for a in axes:
        g = xp.flip(g, axis=a)
    return g


add(Op('reverse', flip, aliases=('flip',), infer_shape=like_first,
       params=[Shape('axis', doc='The axes to reverse.')]))


# ---------------------------------------------------------------------- repetition
def tile(env, data, reps):
    """Repeat the whole array ``reps`` times along each axis."""
    xp = env.xp
    reps = reps or ()
    if any(r <= 0 for r in reps):
        raise MXNetError('tile: reps %s must be positive' % (tuple(reps),))
    check_size('tile', data.size * int(np.prod(reps, dtype=object)))
    y = xp.tile(data, reps)
    ndim = max(len(reps), data.ndim)
    in_shape = (1,) * (ndim - data.ndim) + data.shape
    full_reps = (1,) * (ndim - len(reps)) + tuple(reps)

    def backward(g):
        split = []
        for r, n in zip(full_reps, in_shape):
            split.extend([r, n])
        g = g.reshape(split).sum(axis=tuple(range(0, 2 * ndim, 2)))
        return (g.reshape(data.shape),)
    return y, backward


@forward_rule
def _tile_shape(in_shapes, params):
    shape, reps = in_shapes[0], tuple(params['reps'] or ())
    ndim = max(len(shape), len(reps))
    shape, reps = (1,) * (ndim - len(shape)) + shape, (1,) * (ndim - len(reps)) + reps
    out = tuple(n * r for n, r in zip(shape, reps))
    check_size('tile', int(np.prod(out, dtype=object)))
    return [out]


add(Op('tile', tile, infer_shape=_tile_shape,
       params=[Shape('reps', accepts_none=True, doc='Repetitions per axis.')]))


def repeat(env, data, repeats, axis):
    """Repeat each element ``repeats`` times (along ``axis``, or of the flattened array)."""
    xp = env.xp
    if repeats < 0:
        raise MXNetError('repeat: repeats must be >= 0, got %d' % repeats)
    y = xp.repeat(data, repeats, axis=axis)

    def backward(g):
        if axis is None:
            return (g.reshape(-1, repeats).sum(axis=1).reshape(data.shape),)
        shape = data.shape[:axis] + (data.shape[axis], repeats) + data.shape[axis + 1:]
        return (g.reshape(shape).sum(axis=axis + 1),)
    return y, backward


@forward_rule
def _repeat_shape(in_shapes, params):
    shape, n = in_shapes[0], params['repeats']
    if params['axis'] is None:
        return [(int(np.prod(shape)) * n,)]
    axis = params['axis'] % len(shape)
    return [shape[:axis] + (shape[axis] * n,) + shape[axis + 1:]]


add(Op('repeat', repeat, infer_shape=_repeat_shape,
       params=[Int('repeats', doc='How often each element appears.'),
                                 Axis('axis', None, optional=True,
                                      doc='The axis (None: the flattened array).')]))


# ---------------------------------------------------------------------- joining & splitting
def concat(env, *data, num_args, dim):
    """Join arrays along axis ``dim``."""
    xp = env.xp
    first = data[0].shape
    for d in data[1:]:
        if d.shape != first and (d.ndim != len(first) or d.shape[:dim] != first[:dim]
                                 or d.shape[dim + 1:] != first[dim + 1:]):
            raise MXNetError('concat along dim %d needs arrays that agree on every other axis, '
                             'got shapes %s' % (dim, [x.shape for x in data]))
    y = xp.concatenate(data, axis=dim)
    bounds = list(itertools.accumulate(d.shape[dim] for d in data[:-1]))
    return y, lambda g: tuple(xp.split(g, bounds, axis=dim))


def _concat_shapes(in_shapes, out_shapes, params):
    """Inputs equal but along ``dim``, where the output has their sum."""
    known = [s for s in in_shapes if s is not None]
    if not known:
        return in_shapes, out_shapes
    ndim = len(known[0])
    dim = params['dim'] % ndim
    common = None
    for s in known:
        common = merge(common, s[:dim] + (0,) + s[dim + 1:])
    ins = [common if s is None else merge(s, common) for s in in_shapes]
    total = sum(s[dim] for s in ins) if all(s[dim] for s in ins) else 0
    return ins, [merge(out_shapes[0], common[:dim] + (total,) + common[dim + 1:])]


add(Op('Concat', concat, ('*data',), aliases=('concat',), infer_shape=_concat_shapes, params=[
    Int('num_args', low=1, doc='The number of arrays (set from the call).'),
    Axis('dim', 1, doc='The axis to join along.')]))


def _rnn_param_concat_shapes(in_shapes, out_shapes, params):
    """Concat's rule, and the inputs' unknown sizes along ``dim`` from the output's, shared
    equally among them as MXNet does: the recurrent layers' packed parameters tell the
    first layer's input size (the same in both directions)."""
    ins, outs = _concat_shapes(in_shapes, out_shapes, params)
    total = outs[0]
    if total is None or not is_known(total) or any(s is None for s in ins):
        return ins, outs
    dim = params['dim'] % len(total)
    unknown = [i for i, s in enumerate(ins) if not s[dim]]
    if unknown:
        rest = total[dim] - sum(s[dim] for s in ins)
        if rest <= 0 or rest % len(unknown):
            raise MXNetError('_rnn_param_concat: %d elements cannot be shared equally by the '
                             '%d inputs of unknown size' % (rest, len(unknown)))
        ins = list(ins)
        for i in unknown:
            ins[i] = ins[i][:dim] + (rest // len(unknown),) + ins[i][dim + 1:]
    return ins, outs


add(Op('_rnn_param_concat', concat, ('*data',), infer_shape=_rnn_param_concat_shapes,
       doc='Concat of the recurrent layers\' parameters (their shapes inferred from the '
           'packed vector\'s).', params=[
    Int('num_args', low=1, doc='The number of arrays (set from the call).'),
    Axis('dim', 1, doc='The axis to join along.')]))


def stack(env, *data, axis, num_args):
    """Join arrays of one shape along a new axis ``axis``."""
    xp = env.xp
    if len({d.shape for d in data}) != 1:
        raise MXNetError('stack needs arrays of one shape, got %s' % [d.shape for d in data])
    y = xp.stack(data, axis=axis)
    return y, lambda g: tuple(xp.take(g, i, axis=axis) for i in range(len(data)))


def _stack_shapes(in_shapes, out_shapes, params):
    """Inputs of one shape; the output has a new axis of their number."""
    shape = None
    for s in in_shapes:
        shape = merge(shape, s)
    if shape is None:
        return in_shapes, out_shapes
    axis = params['axis'] % (len(shape) + 1)
    out = shape[:axis] + (len(in_shapes),) + shape[axis:]
    return [shape] * len(in_shapes), [merge(out_shapes[0], out)]


add(Op('stack', stack, ('*data',), infer_shape=_stack_shapes, params=[
    Axis('axis', 0, extra=1, doc='Where the new axis goes.'),
    Int('num_args', low=1, doc='The number of arrays (set from the call).')]))


def split(env, data, num_outputs, axis, squeeze_axis):
    """Split into ``num_outputs`` equal parts along ``axis`` (a list, or one array if 1)."""
    xp = env.xp
    if data.shape[axis] % num_outputs:
        raise MXNetError('split: axis %d of shape %s does not divide into %d equal parts'
                         % (axis, data.shape, num_outputs))
    step = data.shape[axis] // num_outputs
    if squeeze_axis and step != 1:
        raise MXNetError('split: squeeze_axis=True needs parts of size 1 along axis %d' % axis)
    parts = xp.split(data, num_outputs, axis=axis)
    parts = [(p.squeeze(axis) if squeeze_axis else p).copy() for p in parts]
    part_shape = data.shape[:axis] + (step,) + data.shape[axis + 1:]

    def backward(grads):
        full = [xp.zeros(part_shape, dtype=data.dtype) if g is None else g.reshape(part_shape)
                for g in grads]
        return (xp.concatenate(full, axis=axis),)
    return parts, backward


@forward_rule
def _split_shapes(in_shapes, params):
    shape, n = in_shapes[0], params['num_outputs']
    axis = params['axis'] % len(shape)
    if shape[axis] % n:
        raise MXNetError('split: axis %d of shape %s does not divide into %d equal parts'
                         % (axis, shape, n))
    part = shape[:axis] + (() if params['squeeze_axis'] else (shape[axis] // n,)) + \
        shape[axis + 1:]
    return [part] * n


add(Op('SliceChannel', split, aliases=('split',), num_outputs=lambda p: p['num_outputs'],
       infer_shape=_split_shapes,
       params=[Int('num_outputs', low=1, doc='The number of parts.'),
               Axis('axis', 1, doc='The axis to split.'),
               Bool('squeeze_axis', False, doc='Drop the split axis (parts of size 1).')]))


# ---------------------------------------------------------------------- broadcasting
def broadcast_to(env, data, shape):
    """Broadcast to ``shape``; a 0 in ``shape`` keeps that input dimension."""
    xp = env.xp
    if len(shape) != data.ndim:
        raise MXNetError('broadcast_to: shape %s must have %d dimensions like the input %s'
                         % (tuple(shape), data.ndim, data.shape))
    target = tuple(d if s == 0 else s for d, s in zip(data.shape, shape))
    for d, s in zip(data.shape, target):
        if d != s and d != 1:
            raise MXNetError('broadcast_to: cannot broadcast %s to %s: only size-1 axes grow'
                             % (data.shape, target))
    y = xp.array(xp.broadcast_to(data, target))
    return y, lambda g: (_unbroadcast(xp, g, data.shape),)


@forward_rule
def _broadcast_to_shape(in_shapes, params):
    shape, target = in_shapes[0], params['shape']
    if len(target) != len(shape):
        raise MXNetError('broadcast_to: shape %s must have %d dimensions like the input %s'
                         % (tuple(target), len(shape), shape))
    return [tuple(d if s == 0 else s for d, s in zip(shape, target))]


add(Op('broadcast_to', broadcast_to, infer_shape=_broadcast_to_shape,
       params=[Shape('shape', (), doc='The target shape.')]))


def broadcast_axis(env, data, axis, size):
    """Broadcast the size-1 axes ``axis`` to sizes ``size``."""
    if (axis is None) != (size is None) or (axis is not None and len(axis) != len(size)):
        raise MXNetError('broadcast_axis: axis %s and size %s need the same length'
                         % (axis, size))
    axis, size = axis or (), size or ()
    _check_axes_in_range('broadcast_axis', axis, data.ndim)
    shape = [0] * data.ndim
    for a, s in zip(axis, size):
        if data.shape[a] != 1:
            raise MXNetError('broadcast_axis: axis %d has size %d; only size-1 axes grow'
                             % (a, data.shape[a]))
        shape[a] = s
    return broadcast_to(env, data, shape)


@forward_rule
def _broadcast_axis_shape(in_shapes, params):
    shape = list(in_shapes[0])
    for a, n in zip(params['axis'] or (), params['size'] or ()):
        shape[a % len(shape)] = n
    return [tuple(shape)]


add(Op('broadcast_axis', broadcast_axis, aliases=('broadcast_axes',),
       infer_shape=_broadcast_axis_shape, params=[
    Shape('axis', (), accepts_none=True, doc='The size-1 axes to grow.'),
    Shape('size', (), accepts_none=True, doc='Their new sizes.')]))


def broadcast_like(env, lhs, rhs, lhs_axes, rhs_axes):
    """Broadcast ``lhs`` to the shape of ``rhs`` (or only ``lhs_axes`` to the sizes of
    ``rhs_axes``, when both are given)."""
    if lhs_axes is None or rhs_axes is None:  # as MXNet: both are needed to pick axes
        shape = rhs.shape
    else:
        if not lhs_axes or len(lhs_axes) != len(rhs_axes):
            raise MXNetError('broadcast_like: lhs_axes and rhs_axes need the same, non-zero '
                             'length')
        shape = [0] * lhs.ndim
        for la, ra in zip(lhs_axes, rhs_axes):
            if not (-lhs.ndim <= la < lhs.ndim and -rhs.ndim <= ra < rhs.ndim):
                raise MXNetError('broadcast_like: axes %d (lhs %s) and %d (rhs %s) do not both '
                                 'exist' % (la, lhs.shape, ra, rhs.shape))
            if lhs.shape[la] != 1:
                raise MXNetError('broadcast_like: axis %d of lhs %s has size %d; only an axis of '
                                 'size 1 is broadcast' % (la, lhs.shape, lhs.shape[la]))
            shape[la] = rhs.shape[ra]
    y, backward = broadcast_to(env, lhs, shape)
    return y, lambda g: backward(g) + (None,)


add(Op('broadcast_like', broadcast_like, ('lhs', 'rhs'), same_dtype=False, params=[
    Shape('lhs_axes', None, optional=True), Shape('rhs_axes', None, optional=True)]))


# ---------------------------------------------------------------------- blocks <-> channels
def _check_blocks(op, data, block_size, channels_divisible):
    if data.ndim != 4:
        raise MXNetError('%s: the input must be 4-D (N, C, H, W), got shape %s'
                         % (op, data.shape))
    if block_size <= 0:
        raise MXNetError('%s: block_size must be positive, got %d' % (op, block_size))
    n, c, h, w = data.shape
    if channels_divisible and c % (block_size * block_size):
        raise MXNetError('%s: the channels (%d) must be a multiple of block_size² (%d)'
                         % (op, c, block_size * block_size))
    if not channels_divisible and (h % block_size or w % block_size):
        raise MXNetError('%s: height %d and width %d must be multiples of block_size %d'
                         % (op, h, w, block_size))


def _depth_to_space(xp, x, b):
    n, c, h, w = x.shape
    y = x.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2)
    return y.reshape(n, c // (b * b), h * b, w * b)


def _space_to_depth(xp, x, b):
    n, c, h, w = x.shape
    y = x.reshape(n, c, h // b, b, w // b, b).transpose(0, 3, 5, 1, 2, 4)
    return y.reshape(n, c * b * b, h // b, w // b)


def depth_to_space(env, data, block_size):
    """(N, C, H, W) -> (N, C/b², H·b, W·b): channel blocks become b×b pixel blocks."""
    _check_blocks('depth_to_space', data, block_size, True)
    xp = env.xp
    return (_depth_to_space(xp, data, block_size).copy(),
            lambda g: (_space_to_depth(xp, g, block_size).copy(),))


def space_to_depth(env, data, block_size):
    """(N, C, H, W) -> (N, C·b², H/b, W/b): b×b pixel blocks become channels."""
    _check_blocks('space_to_depth', data, block_size, False)
    xp = env.xp
    return (_space_to_depth(xp, data, block_size).copy(),
            lambda g: (_depth_to_space(xp, g, block_size).copy(),))


_BLOCK = [Int('block_size', doc='The side b of a block.')]
add(Op('depth_to_space', depth_to_space, params=_BLOCK))
add(Op('space_to_depth', space_to_depth, params=_BLOCK))


def shape_array(env, data):
    """The shape of ``data`` as an int64 array."""
    return env.xp.asarray(data.shape, dtype=np.int64), None


def size_array(env, data):
    """The number of elements of ``data`` as a one-element int64 array."""
    return env.xp.asarray([data.size], dtype=np.int64), None


add(Op('shape_array', shape_array, infer_type=fixed_dtype('int64'),
       infer_shape=forward_rule(lambda in_shapes, params: [(len(in_shapes[0]),)])))
add(Op('size_array', size_array, infer_type=fixed_dtype('int64'),
       infer_shape=forward_rule(lambda in_shapes, params: [(1,)])))


# ---------------------------------------------------------------------- split_v2
def split_v2(env, data, indices, axis, squeeze_axis, sections):
    """Parts of ``data`` along ``axis`` starting at each of ``indices`` (the first is 0), or
    ``sections`` equal parts."""
    xp = env.xp
    n = data.shape[axis]
    if sections > 0:
        if n % sections:
            raise MXNetError('split_v2: axis %d of size %d does not divide into %d parts'
                             % (axis, n, sections))
        starts = [i * (n // sections) for i in range(sections)]
    else:
        starts = list(indices)
    bounds = starts[1:] + [n]
    if starts[:1] != [0] or any(not 0 <= b <= e <= n for b, e in zip(starts, bounds)):
        raise MXNetError('split_v2: indices %s must start at 0 and increase within the axis '
                         '(size %d)' % (tuple(starts), n))
    parts = []
    for b, e in zip(starts, bounds):
        key = [slice(None)] * data.ndim
        key[axis] = slice(b, e)
        part = data[tuple(key)]
        if squeeze_axis:
            if e - b != 1:
                raise MXNetError('split_v2: squeeze_axis needs parts of size 1')
            part = part.squeeze(axis)
        parts.append(part.copy())

    def backward(grads):
        full = []
        for g, b, e in zip(grads, starts, bounds):
            shape = data.shape[:axis] + (e - b,) + data.shape[axis + 1:]
            full.append(xp.zeros(shape, dtype=data.dtype) if g is None else g.reshape(shape))
        return (xp.concatenate(full, axis=axis),)
    return parts, backward


add(Op('_split_v2', split_v2, num_outputs=lambda p: p['sections'] or len(p['indices']),
       params=[Shape('indices', doc='Where each part starts (0 first).'),
               Axis('axis', 1, doc='The axis to split.'),
               Bool('squeeze_axis', False, doc='Drop the split axis (parts of size 1).'),
               Int('sections', 0, doc='Equal parts instead of indices (0: use indices).')]))
