"""Flat indices and coordinates of an array of a given ``shape``: ravel_multi_index and
unravel_index (row-major order, as NumPy's functions of those names)."""
import numpy as np

from ...base import MXNetError
from ..registry import Op, Shape, add

_SHAPE = Shape('shape', None, accepts_none=True, doc='The shape of the array indexed.')


def _strides(shape):
    """Row-major strides of ``shape`` in elements: (s1·s2·…, …, s_last, 1)."""
    return tuple(int(np.prod(shape[i + 1:])) for i in range(len(shape)))


def _check_shape(name, shape):
    if not shape:
        raise MXNetError('%s: the shape parameter is required (the shape of the array the '
                         'indices address)' % name)


def ravel_multi_index(env, data, shape):
    """Flat indices of the coordinates in the columns of ``data`` (len(shape), N):
    Σ_i data[i] · stride_i. Coordinates are not checked against ``shape``."""
    _check_shape('ravel_multi_index', shape)
    if data.ndim != 2 or data.shape[0] != len(shape):
        raise MXNetError('ravel_multi_index: data must be (%d, N), one row per axis of shape '
                         '%s; got shape %s' % (len(shape), shape, data.shape))
    strides = env.xp.asarray(_strides(shape), dtype=data.dtype)
    return (data * strides[:, None]).sum(axis=0, dtype=data.dtype), None


def unravel_index(env, data, shape):
    """Coordinates (len(shape), N) of the N flat indices ``data`` (truncated to integers).
    As C's integer division, the first coordinate takes what is left over."""
    xp = env.xp
    _check_shape('unravel_index', shape)
    if data.ndim != 1:
        raise MXNetError('unravel_index takes a 1-D array of flat indices, got shape %s; '
                         'flatten it first' % (data.shape,))
    rest = data.astype(np.int64)
    coordinates = []
    for size in reversed(shape[1:]):
        coordinates.append(xp.fmod(rest, size))
        rest = (rest - coordinates[-1]) // size
    coordinates.append(rest)
    return xp.stack(coordinates[::-1]).astype(data.dtype), None


add(Op('_ravel_multi_index', ravel_multi_index, aliases=('ravel_multi_index',),
       params=[_SHAPE]))
add(Op('_unravel_index', unravel_index, aliases=('unravel_index',), params=[_SHAPE]))
