"""Pooling with every window gathered at once, same contract as :mod:`.pool_reference`.

A strided view of the padded input exposes the windows as trailing axes,
``(N, C, *out, *kernel)``; one copy flattens them to ``(N, C, *out, prod(kernel))`` and a
single reduction along the last axis pools them all (``argmax`` keeps the first largest
entry, the one MXNet's gradient goes to). The gradient of max pooling puts ``dy`` at
each window's argmax (zeros elsewhere) and adds the windows back onto the
input ("col2im", one strided addition per offset); average and sum pooling add ``dy``
(divided by the window sizes) at every offset, as the reference does.

2-D max pooling of float data runs as numba loops (:mod:`.pool_numba`): one pass over
the windows, no copies of them, and one pass for the gradient.
"""
import numpy as np

from .... import _numba
from . import pool_reference
from .pool_reference import lowest, padding, window_sizes
from .windows import offset_slices, pad_spatial, window_view

__all__ = ['forward', 'backward']


def _windows(xp, x, kernel, stride, pad, out_size, fill):
    before, after = padding(x.shape, kernel, stride, pad, out_size)
    xpad = pad_spatial(xp, x, before, after, fill)
    view = window_view(xp, xpad, kernel, stride, (1,) * len(kernel), out_size,
                       range(2, x.ndim))
    return view.reshape(view.shape[:x.ndim] + (-1,))


def _compiled_max_2d(xp, dtype, kernel, pool_type):
    return (pool_type == 'max' and xp is np and len(kernel) == 2 and
            np.dtype(dtype) in (np.float32, np.float64) and _numba.available())


def forward(xp, x, kernel, stride, pad, out_size, pool_type, count_include_pad, p_value):
    """``(y, saved)``: the pooled array, and what :func:`backward` needs."""
    if _compiled_max_2d(xp, x.dtype, kernel, pool_type):
        pool_numba = _numba.kernels(__package__ + '.pool_numba')
        y = np.empty(x.shape[:2] + tuple(out_size), dtype=x.dtype)
        saved = np.empty(y.shape, dtype=np.intp)
        pool_numba.max_pool_2d(np.ascontiguousarray(x), *kernel, *stride, *pad,
                               lowest(x.dtype), y, saved)
        return y, saved
    if pool_type == 'lp':
        return pool_reference.forward(xp, x, kernel, stride, pad, out_size, pool_type,
                                      count_include_pad, p_value)
    if pool_type == 'max':
        floor = lowest(x.dtype)
        # fmax: a NaN or -inf entry counts as the lowest value, so it never wins (MXNet)
        windows = xp.fmax(_windows(xp, x, kernel, stride, pad, out_size, floor), floor)
        first_max = windows.argmax(axis=-1)
        y = xp.take_along_axis(windows, first_max[..., None], axis=-1)[..., 0]
        return y, first_max
    total = _windows(xp, x, kernel, stride, pad, out_size, 0).sum(axis=-1)
    if pool_type == 'avg':
        total /= window_sizes(xp, x.shape, kernel, stride, pad, out_size, count_include_pad,
                              x.dtype)
    return total, None


def backward(xp, dy, y, saved, x_shape, kernel, stride, pad, pool_type, count_include_pad,
             p_value):
    """The gradient of the pooling's input (of shape ``x_shape``)."""
    if _compiled_max_2d(xp, dy.dtype, kernel, pool_type):
        pool_numba = _numba.kernels(__package__ + '.pool_numba')
        dx = np.zeros(x_shape, dtype=dy.dtype)
        pool_numba.max_pool_2d_backward(np.ascontiguousarray(dy), saved, kernel[1], *stride,
                                        *pad, dx)
        return dx
    if pool_type != 'max':
        return pool_reference.backward(xp, dy, y, saved, x_shape, kernel, stride, pad,
                                       pool_type, count_include_pad, p_value)
    out_size = dy.shape[2:]
    nd = len(kernel)
    winner = saved[..., None] == xp.arange(int(np.prod(kernel)))
    dwin = (winner * dy[..., None]).reshape(dy.shape + tuple(kernel))
    before, after = padding(x_shape, kernel, stride, pad, out_size)
    padded = x_shape[:2] + tuple(n + b + a for n, b, a in zip(x_shape[2:], before, after))
    dxpad = xp.zeros(padded, dtype=dy.dtype)
    lead = (slice(None),) * (nd + 2)
    for k in np.ndindex(*kernel):
        dxpad[(slice(None), slice(None)) + offset_slices(k, stride, (1,) * nd, out_size)] \
            += dwin[lead + k]
    crop = tuple(slice(b, b + n) for b, n in zip(before, x_shape[2:]))
    return dxpad[(slice(None), slice(None)) + crop]
