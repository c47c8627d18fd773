"""The operators of mixed-precision training and of gradient checks: ``amp_cast``,
``amp_multicast``, ``all_finite``, ``multi_all_finite``, ``multi_sum_sq``, ``reset_arrays``.
"""
import numpy as np

from ...base import MXNetError
from ..registry import FLOATS, Bool, DType, Int, Op, add, not_differentiable, numpy_dtype

_AMP_DTYPES = ('bfloat16', 'float16', 'float32', 'float64', 'int32', 'int64', 'int8', 'uint8')


def _is_float(array):
    return array.dtype.kind == 'f'


def _cast(array, dtype):
    """``array`` as ``dtype`` (new memory) and the backward that casts its gradient back."""
    result = array.astype(dtype)
    return result, (lambda g: g.astype(array.dtype))


def amp_cast(env, data, dtype):
    """``data`` cast to ``dtype`` if it is a floating-point array; other arrays unchanged."""
    if not _is_float(data):
        return data.copy(), (lambda g: (g,))
    result, back = _cast(data, numpy_dtype(dtype))
    return result, (lambda g: (back(g),))


def amp_multicast(env, *data, num_outputs, cast_narrow):
    """The floating-point arrays cast to their widest dtype (the narrowest with
    ``cast_narrow``), as mixed-precision code joins float16 and float32 inputs."""
    floats = [a.dtype for a in data if _is_float(a)]
    if len(floats) != len(data):
        raise MXNetError('amp_multicast: gluonedu casts floating-point arrays only; got %s'
                         % ', '.join(str(a.dtype) for a in data))
    target = (min if cast_narrow else max)(floats, key=lambda d: d.itemsize)
    results, backs = zip(*(_cast(a, target) for a in data))
    return list(results), (lambda grads: tuple(None if g is None else back(g)
                                               for g, back in zip(grads, backs)))


def _finite(op, xp, arrays):
    """``[1.]`` if every element of ``arrays`` is finite, else ``[0.]``. (With
    ``init_output=False`` MXNet writes only the 0 into an output it leaves as it was;
    gluonedu's output is new, so it starts from 1 either way.)"""
    for a in arrays:
        if not _is_float(a):
            raise MXNetError('%s checks floating-point arrays only, not %s: convert with '
                             ".astype('float32')" % (op, a.dtype))
    finite = all(bool(xp.isfinite(a).all()) for a in arrays)
    return xp.asarray([1.0 if finite else 0.0], dtype=np.float32)


def all_finite(env, data, init_output):
    """``[1.]`` if every element of ``data`` is finite, else ``[0.]`` (float32)."""
    return _finite('all_finite', env.xp, [data]), not_differentiable('all_finite')


def multi_all_finite(env, *data, num_arrays, init_output):
    """``[1.]`` if every element of every array is finite, else ``[0.]`` (float32)."""
    return _finite('multi_all_finite', env.xp, data), not_differentiable('multi_all_finite')


def multi_sum_sq(env, *data, num_arrays):
    """The sum of squares of each array (squared in its dtype, summed in higher
    precision), as one float32 array."""
    xp = env.xp
    return xp.asarray([float((a * a).astype(np.float64).sum()) for a in data],
                      dtype=np.float32), None


def reset_arrays(env, *data, num_arrays):
    """Set every array to zero, in place; returns nothing."""
    for a in data:
        a[...] = 0
    return [], None


add(Op('amp_cast', amp_cast, params=[DType('dtype', _AMP_DTYPES,
                                           doc='The dtype floating-point data becomes.')]))
add(Op('amp_multicast', amp_multicast, ('*data',), same_dtype=False, params=[
    Int('num_outputs', doc='How many arrays (inputs and outputs).'),
    Bool('cast_narrow', False, doc='Cast to the narrowest dtype instead of the widest.')],
    num_outputs=lambda p: p['num_outputs'], count=('num_outputs', 1, 0)))
add(Op('all_finite', all_finite, params=[
    Bool('init_output', True, doc='Start from True (else from the output as it is).')]))
add(Op('multi_all_finite', multi_all_finite, ('*data',), same_dtype=False, params=[
    Int('num_arrays', 1, doc='How many arrays.'),
    Bool('init_output', True, doc='Start from True (else from the output as it is).')],
    count=('num_arrays', 1, 0)))
add(Op('multi_sum_sq', multi_sum_sq, ('*data',), dtypes=FLOATS, params=[
    Int('num_arrays', doc='How many arrays.')], count=('num_arrays', 1, 0)))
add(Op('reset_arrays', reset_arrays, ('*data',), same_dtype=False, dtypes=FLOATS, params=[
    Int('num_arrays', doc='How many arrays.')], num_outputs=0, count=('num_arrays', 1, 0),
    mutate_inputs=('data',)))
