"""What the layer operators share: input checks, layouts and recording a result."""
import numpy as np

from ...base import MXNetError
from .. import _graph
from ..ndarray import NDArray
from ..registry import check_arrays

__all__ = ['check_inputs', 'check_shape', 'tracked', 'record', 'spatial_tuple', 'channel_last',
           'to_channel_first', 'from_channel_first', 'shape_text', 'spatial_layout',
           'axis_index', 'float_dtype']


def check_inputs(op, arrays):
    """NDArrays on one context with one dtype; MXNetError/TypeError otherwise."""
    check_arrays(op, arrays)
    dtypes = {np.dtype(a.dtype) for a in arrays}
    if len(dtypes) > 1:
        raise MXNetError("%s: inputs have different dtypes (%s); convert them with .astype() "
                         "to one" % (op, ', '.join(sorted(map(str, dtypes)))))


def shape_text(shape):
    return '(%s)' % ', '.join(str(n) for n in shape)


def check_shape(op, name, got, expected):
    """MXNetError unless ``got`` equals ``expected`` (0 in ``expected``: any size)."""
    if len(got) != len(expected) or any(e and g != e for g, e in zip(got, expected)):
        raise MXNetError("%s: %s has shape %s, expected %s from the data's shape and the "
                         "parameters" % (op, name, shape_text(got), shape_text(expected)))


def tracked(arr):
    """Whether a gradient must flow to ``arr`` (an input may be None or unrecorded)."""
    return arr is not None and _graph.is_tracked(arr)


def record(data, like, inputs, backward, op):
    """The result array on ``like``'s context, recorded with its backward function."""
    return _graph.record(NDArray(data, like._ctx), tuple(inputs), backward, op)


def spatial_tuple(op, name, value, ndim, default):
    """A stride/pad/dilate parameter as ``ndim`` ints; ``()`` means ``default`` each."""
    if not value:
        return (default,) * ndim
    if len(value) != ndim:
        raise MXNetError("%s: %s=%s must have one entry per kernel dimension (%d)"
                         % (op, name, shape_text(value), ndim))
    return tuple(value)


def channel_last(layout):
    """Whether ``layout`` ('NCHW', 'NHWC', ..., None) puts the channels last."""
    return layout is not None and layout.endswith('C')


def to_channel_first(xp, a, layout):
    """``a`` in ``layout`` as ``(N, C, *spatial)`` (a view)."""
    return xp.moveaxis(a, -1, 1) if channel_last(layout) else a


def from_channel_first(xp, a, layout):
    """``(N, C, *spatial)`` data back in ``layout`` (contiguous)."""
    return xp.ascontiguousarray(xp.moveaxis(a, 1, -1)) if channel_last(layout) else a


def spatial_layout(op, layout, ndim, allowed):
    """MXNetError unless ``layout`` suits ``ndim``-dimensional data (None always does)."""
    if layout is None:
        return
    if len(layout) != ndim or layout not in allowed:
        fitting = sorted(a for a in allowed if a is not None and len(a) == ndim)
        raise MXNetError("%s: layout %s does not fit %d-D data; use one of %s"
                         % (op, layout, ndim, fitting))


def axis_index(op, axis, ndim):
    """``axis`` (negative counts from the end) as an index in ``range(ndim)``."""
    if not -ndim <= axis < ndim:
        raise MXNetError("%s: axis %d is out of range for %d-D data" % (op, axis, ndim))
    return axis % ndim


def float_dtype(op, arr):
    """MXNetError unless ``arr`` holds floating-point numbers."""
    if not np.issubdtype(arr._data.dtype, np.floating):
        raise MXNetError("%s works on floating-point data, got %s; convert with "
                         ".astype('float32')" % (op, arr._data.dtype))
