"""Creation operators: ``_zeros``, ``_ones``, ``_full``, ``_arange``, ``_eye``, ``_linspace``
(what ``nd.zeros``, ``nd.ones``, ``nd.arange``, ``nd.eye``, ... call). They take no array
input; the ``ctx`` parameter names the context of the result ('' for the current one)."""
import math

import numpy as np

from ...base import MXNetError
from ..infer import forward_rule, from_shape_param
from .binary import scalar_as
from ..registry import Bool, DType, Float, Int, Op, Shape, Str, add, check_size, numpy_dtype

CREATION_DTYPES = ('bfloat16', 'bool', 'float16', 'float32', 'float64', 'int32', 'int64',
                   'int8', 'uint8')


def _checked_shape(op, shape):
    """As MXNet 1.x, a shape needs at least one axis and no axis of size 0 or less."""
    if not shape or any(n <= 0 for n in shape):
        raise MXNetError('%s: cannot create an array of shape %s: every dimension must be '
                         'positive' % (op, shape if shape is None else tuple(shape)))
    check_size(op, int(np.prod(shape, dtype=object)))
    return tuple(shape)


def _filled(op, value):
    def forward(env, shape, ctx, dtype):
        return env.xp.full(_checked_shape(op, shape), value, dtype=numpy_dtype(dtype)), None
    forward.__doc__ = 'An array of %ss of ``shape``.' % value
    return forward


def _creation_params():
    return [Shape('shape', (), doc='The shape of the array.'),
            Str('ctx', '', doc='Its context, e.g. "cpu(0)" ("": the current one).'),
            DType('dtype', CREATION_DTYPES, 'float32', doc='Its dtype.')]


add(Op('_zeros', _filled('_zeros', 0), (), params=_creation_params(),
       infer_shape=from_shape_param))
add(Op('_ones', _filled('_ones', 1), (), params=_creation_params(),
       infer_shape=from_shape_param))


def full(env, shape, ctx, dtype, value):
    """An array of ``shape`` filled with ``value``."""
    return env.xp.full(_checked_shape('_full', shape), value, dtype=numpy_dtype(dtype)), None


add(Op('_full', full, (), infer_shape=from_shape_param,
       params=[Shape('shape', None, accepts_none=True, doc='The shape of the array.')]
       + _creation_params()[1:] + [Float('value', doc='The value of every element.')]))


def _arange_bounds(start, stop, infer_range):
    """(start, stop): [0, start) without ``stop``; as MXNet, ``infer_range`` leaves the end
    to a symbolic graph, which an imperative call does not have."""
    if stop is not None:
        return start, stop
    if infer_range:
        raise MXNetError('arange: infer_range=True needs a graph to infer stop from; give '
                         'stop (or leave infer_range False)')
    return 0.0, start


def arange(env, start, stop, step, repeat, infer_range, ctx, dtype):
    """Evenly spaced values in [start, stop) (or [0, start) without ``stop``), each repeated
    ``repeat`` times. As MXNet, start and step are cast to ``dtype`` and the values computed
    in it (an integer dtype truncates a fractional start or step)."""
    start, stop = _arange_bounds(start, stop, infer_range)
    if step == 0:
        raise MXNetError('arange: step must not be 0')
    if repeat <= 0:
        raise MXNetError('arange: repeat must be positive, got %d' % repeat)
    count = math.ceil((stop - start) / step)
    if count <= 0:
        raise MXNetError('arange: the range from %s to %s with step %s is empty'
                         % (start, stop, step))
    dt = np.dtype(numpy_dtype(dtype))
    values = scalar_as(dt, start) + np.arange(count).astype(dt) * scalar_as(dt, step)
    if repeat > 1:
        values = np.repeat(values, repeat)
    return env.xp.asarray(values), None


def _arange_length(params):
    start, stop = _arange_bounds(params['start'], params['stop'], params['infer_range'])
    step = params['step']
    if step == 0 or params['repeat'] <= 0:
        raise MXNetError('arange: step must not be 0 and repeat must be positive')
    count = math.ceil((stop - start) / step) * params['repeat']
    check_size('_arange', count)
    return count


add(Op('_arange', arange, (),
       infer_shape=forward_rule(lambda in_shapes, params: [(_arange_length(params),)]),
       params=[
    Float('start', doc='The first value (the end, without stop).'),
    Float('stop', None, optional=True, doc='The end, exclusive.'),
    Float('step', 1.0, doc='The spacing.'),
    Int('repeat', 1, doc='How often each value appears.'),
    Bool('infer_range', False, doc='Deprecated (symbolic only).'),
    Str('ctx', '', doc='The context of the result ("": the current one).'),
    DType('dtype', CREATION_DTYPES[:1] + CREATION_DTYPES[2:], 'float32',
          doc='The dtype of the result.')]))


def _eye_columns(N, M):
    """As MXNet, M ≤ 0 means N columns."""
    return M if M > 0 else N


def eye(env, N, M, k, ctx, dtype):
    """The N×M (M ≤ 0: N×N) matrix with ones on diagonal ``k``."""
    if N < 0:
        raise MXNetError('eye: N=%d must not be negative' % N)
    return env.xp.eye(N, _eye_columns(N, M), k, dtype=numpy_dtype(dtype)), None


add(Op('_eye', eye, (),
       infer_shape=forward_rule(lambda in_shapes, p: [(p['N'], _eye_columns(p['N'], p['M']))]),
       params=[
    Int('N', long=True, doc='The number of rows.'),
    Int('M', 0, long=True, doc='The number of columns (0 or less: N).'),
    Int('k', 0, long=True, doc='The diagonal (0: main, >0: above).'),
    Str('ctx', '', doc='The context of the result ("": the current one).'),
    DType('dtype', CREATION_DTYPES[2:], 'float32', doc='The dtype of the result.')]))


def linspace(env, start, stop, num, endpoint, ctx, dtype):
    """``num`` evenly spaced values from ``start`` to ``stop`` (included with
    ``endpoint``)."""
    if num < 0:
        raise MXNetError('linspace: num must not be negative, got %d' % num)
    values = np.linspace(start, stop, num, endpoint=endpoint)
    return env.xp.asarray(values.astype(numpy_dtype(dtype))), None


add(Op('_linspace', linspace, (),
       infer_shape=forward_rule(lambda in_shapes, p: [(p['num'],)]), params=[
    Float('start', doc='The first value.'),
    Float('stop', doc='The last value (or the end, without endpoint).'),
    Int('num', doc='How many values.'),
    Bool('endpoint', True, doc='Include stop.'),
    Str('ctx', '', doc='The context of the result ("": the current one).'),
    DType('dtype', CREATION_DTYPES[:1] + CREATION_DTYPES[2:], 'float32',
          doc='The dtype of the result.')]))
