"""Python-level functions of ``mx.nd`` built from operators (as in MXNet, not operators
themselves): eye, linspace, concatenate, moveaxis, split_v2, histogram, onehot_encode."""
import numbers

import numpy as np

from ...base import MXNetError
from ...context import current_context
from ..ndarray import NDArray, array
from ..registry import invoke

__all__ = ['eye', 'linspace', 'concatenate', 'moveaxis', 'split_v2', 'histogram',
           'onehot_encode']


def eye(N, M=0, k=0, ctx=None, dtype=None, **kwargs):
    """The N×M (M=0: N×N) array with ones on diagonal ``k`` (0: main, >0: above)."""
    return invoke('_eye', N=N, M=M, k=k, ctx=ctx or current_context(),
                  dtype=np.float32 if dtype is None else dtype, **kwargs)


def linspace(start, stop, num, endpoint=True, ctx=None, dtype=np.float32):
    """``num`` evenly spaced values from ``start`` to ``stop`` (included with
    ``endpoint``)."""
    return invoke('_linspace', start=start, stop=stop, num=num, endpoint=endpoint,
                  ctx=ctx or current_context(), dtype=dtype)


def concatenate(arrays, axis=0, always_copy=True):
    """Join a list of arrays along ``axis`` (``concat`` with the list as its inputs)."""
    if not isinstance(arrays, list) or not arrays or not isinstance(arrays[0], NDArray):
        raise TypeError('concatenate takes a non-empty list of NDArrays')
    if not always_copy and len(arrays) == 1:
        return arrays[0]
    return invoke('Concat', *arrays, dim=axis)


def moveaxis(tensor, source, destination):
    """``tensor`` with the axes ``source`` moved to the positions ``destination``."""
    def normalized(axes, what):
        axes = (axes,) if isinstance(axes, int) else tuple(axes)
        if any(not -tensor.ndim <= a < tensor.ndim for a in axes):
            raise ValueError('moveaxis: %s %s out of range for %d dimensions'
                             % (what, axes, tensor.ndim))
        return tuple(a % tensor.ndim for a in axes)
    source, destination = normalized(source, 'source'), normalized(destination, 'destination')
    if len(source) != len(destination):
        raise ValueError('moveaxis: source and destination need the same number of axes')
    order = [n for n in range(tensor.ndim) if n not in source]
    for dest, src in sorted(zip(destination, source)):
        order.insert(dest, src)
    return invoke('transpose', tensor, axes=tuple(order))


def split_v2(ary, indices_or_sections, axis=0, squeeze_axis=False):
    """Split ``ary`` along ``axis`` into equal sections (an int) or at the indices of a
    tuple (parts [0, i0), [i0, i1), ...)."""
    if isinstance(indices_or_sections, int):
        n = ary.shape[axis]
        if indices_or_sections <= 0 or n % indices_or_sections:
            raise ValueError('split_v2: %d sections do not divide an axis of size %d equally'
                             % (indices_or_sections, n))
        size = n // indices_or_sections
        indices = [i * size for i in range(indices_or_sections)]
    elif isinstance(indices_or_sections, tuple):
        indices = [0] + list(indices_or_sections)
    else:
        raise ValueError('split_v2: indices_or_sections must be an int or a tuple of ints')
    if not isinstance(ary, NDArray):
        raise MXNetError('split_v2 splits an NDArray, got %s' % type(ary).__name__)
    return invoke('_split_v2', ary, indices=tuple(indices), axis=axis,
                  squeeze_axis=squeeze_axis)


def histogram(a, bins=10, range=None):  # pylint: disable=redefined-builtin
    """(counts, edges) of the values of ``a``: ``bins`` an NDArray of edges, or a number
    of equal bins over ``range`` — without ``range``, NumPy's histogram of the values (as
    MXNet, computed on the host and returned as float32 arrays)."""
    if isinstance(bins, NDArray):
        return invoke('_histogram', a, bins)
    if isinstance(bins, numbers.Integral):
        if range is None:
            counts, edges = np.histogram(a.asnumpy(), bins=bins)
            return array(counts), array(edges)
        return invoke('_histogram', a, bin_cnt=bins, range=range)
    raise ValueError('histogram: bins must be an int or an NDArray of edges')


def onehot_encode(indices, out):
    """Write into ``out`` (N, K) the rows one_hot of ``indices`` (N,); returns ``out``.
    (MXNet's older form of ``one_hot``.)"""
    return invoke('_onehot_encode', indices, out, out=out)
