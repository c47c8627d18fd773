"""Sliding-window geometry shared by the convolution and pooling kernels.

Arrays here are channel-first, ``(N, C, *spatial)``, with any number of spatial axes.
A window at output position ``i`` (per spatial axis) covers the padded input positions
``i·stride + k·dilate`` for ``k = 0 … kernel-1``. Two ways to visit all windows:

* by kernel offset (:func:`offset_slices`): for each ``k`` the input positions
  ``k·dilate, k·dilate + stride, …`` form one strided slice, of the output's size —
  a loop over the ``prod(kernel)`` offsets touches every window once per offset;
* all at once (:func:`window_view`): a strided *view* of the padded input with the
  kernel axes appended, ``(N, C, *out, *kernel)``, no copy until it is reshaped.
"""
import numpy as np

__all__ = ['conv_output_size', 'pad_spatial', 'offset_slices', 'window_view', 'as_strided']


def conv_output_size(size, kernel, stride, pad, dilate):
    """Output length of a convolution along one axis: ⌊(n + 2p − d(k−1) − 1)/s⌋ + 1."""
    return (size + 2 * pad - dilate * (kernel - 1) - 1) // stride + 1


def pad_spatial(xp, x, before, after, value=0):
    """``x`` with ``before[i]``/``after[i]`` entries of ``value`` around spatial axis i."""
    if not any(before) and not any(after):
        return x
    spatial = tuple(slice(b, b + n) for b, n in zip(before, x.shape[2:]))
    shape = x.shape[:2] + tuple(n + b + a for n, b, a in zip(x.shape[2:], before, after))
    out = xp.full(shape, value, dtype=x.dtype)
    out[(slice(None), slice(None)) + spatial] = x
    return out


def offset_slices(offset, stride, dilate, out_size):
    """Slices of the padded spatial axes read by kernel offset ``offset`` for every window."""
    return tuple(slice(k * d, k * d + (o - 1) * s + 1, s)
                 for k, s, d, o in zip(offset, stride, dilate, out_size))


def as_strided(xp, x, shape, strides):
    """NumPy's / CuPy's ``as_strided``: a view of ``x``'s memory with these strides."""
    if xp is np:
        return np.lib.stride_tricks.as_strided(x, shape, strides, writeable=False)
    return xp.lib.stride_tricks.as_strided(x, shape, strides)


def window_view(xp, xpad, kernel, stride, dilate, out_size, spatial_axes):
    """A view of ``xpad`` with the windows' kernel axes appended.

    ``spatial_axes`` are the positions of the spatial axes in ``xpad`` (2, 3, … for
    channel-first data, 1, 2, … for channel-last). The result has ``xpad``'s shape with
    each spatial axis replaced by the output's, then one axis per kernel dimension.
    """
    shape, strides = list(xpad.shape), list(xpad.strides)
    kernel_strides = []
    for axis, s, d, o in zip(spatial_axes, stride, dilate, out_size):
        shape[axis] = o
        kernel_strides.append(strides[axis] * d)
        strides[axis] *= s
    return as_strided(xp, xpad, tuple(shape) + tuple(kernel),
                      tuple(strides) + tuple(kernel_strides))
