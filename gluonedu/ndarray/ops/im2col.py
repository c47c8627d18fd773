"""im2col and col2im: the sliding windows of a 2-D convolution as the columns of a matrix,
and back (summing where windows overlap). Each is the other's gradient.

For data (N, C, H, W) and a kernel K, column l of ``im2col``'s (N, C·prod(K), L) result holds
the window at output position l (row-major over the L = prod(out) positions), its rows in
(channel, kernel offset) order — so a convolution is ``weight (O, C·prod(K)) @ columns``.
The window geometry (stride, dilate, pad) is the convolution's (:mod:`..nn_ops.kernels.
windows`).
"""
import numpy as np

from ...base import MXNetError
from ..nn_ops.kernels.windows import conv_output_size, offset_slices, pad_spatial, window_view
from ..registry import FLOATS, Op, Shape, add


def _geometry(name, spatial_shape, kernel, stride, dilate, pad):
    """(stride, dilate, pad, out_size), defaults filled in, checked against the data."""
    n = len(kernel)
    if n != 2:   # MXNet 1.9.1 accepts 3-D kernels, then fails computing them
        raise MXNetError('%s: MXNet 1.9.1 computes 2-D windows only, got the kernel %s'
                         % (name, kernel))
    stride, dilate, pad = stride or (1,) * n, dilate or (1,) * n, pad or (0,) * n
    if len(spatial_shape) != n or not len(stride) == len(dilate) == len(pad) == n:
        raise MXNetError('%s: kernel %s, stride %s, dilate %s and pad %s must each give one '
                         'value per spatial axis of %s' % (name, kernel, stride, dilate, pad,
                                                           tuple(spatial_shape)))
    out_size = tuple(conv_output_size(size, k, s, p, d) for size, k, s, p, d
                     in zip(spatial_shape, kernel, stride, pad, dilate))
    if min(out_size) <= 0:
        raise MXNetError('%s: the kernel %s (dilated by %s) is larger than the padded input %s'
                         % (name, kernel, dilate, tuple(n + 2 * p for n, p
                                                        in zip(spatial_shape, pad))))
    return stride, dilate, pad, out_size


def _to_columns(xp, data, kernel, stride, dilate, pad, out_size):
    nd = len(kernel)
    view = window_view(xp, pad_spatial(xp, data, pad, pad), kernel, stride, dilate, out_size,
                       range(2, 2 + nd))                       # (N, C, *out, *K)
    order = (0, 1) + tuple(range(2 + nd, 2 + 2 * nd)) + tuple(range(2, 2 + nd))
    return view.transpose(order).reshape(data.shape[0], -1, int(np.prod(out_size)))


def _from_columns(xp, columns, shape, kernel, stride, dilate, pad, out_size):
    blocks = columns.reshape(shape[:2] + tuple(kernel) + tuple(out_size))
    padded = xp.zeros(shape[:2] + tuple(n + 2 * p for n, p in zip(shape[2:], pad)),
                      dtype=columns.dtype)
    for k in np.ndindex(*kernel):
        padded[(slice(None), slice(None)) + offset_slices(k, stride, dilate, out_size)] += \
            blocks[(slice(None), slice(None)) + k]
    inside = tuple(slice(p, p + n) for p, n in zip(pad, shape[2:]))
    return padded[(slice(None), slice(None)) + inside].copy()


def im2col(env, data, kernel, stride, dilate, pad):
    """The windows of ``data`` (N, C, H, W) as columns: (N, C·prod(kernel), L)."""
    geometry = _geometry('im2col', data.shape[2:], kernel, stride, dilate, pad)
    args = (kernel,) + geometry

    def backward(g):
        return _from_columns(env.xp, g, data.shape, *args),
    return _to_columns(env.xp, data, *args), backward


def col2im(env, data, output_size, kernel, stride, dilate, pad):
    """The image (N, C, ``*output_size``) whose windows are the columns ``data``
    (N, C·prod(kernel), L), overlapping entries summed."""
    geometry = _geometry('col2im', output_size, kernel, stride, dilate, pad)
    args = (kernel,) + geometry
    n_kernel, n_windows = int(np.prod(kernel)), int(np.prod(geometry[-1]))
    if data.ndim != 3 or data.shape[1] % n_kernel or data.shape[2] != n_windows:
        raise MXNetError('col2im: data of shape %s are not the columns of windows %s of an '
                         'image %s: expected (N, C·%d, %d)' % (data.shape, kernel,
                                                               output_size, n_kernel,
                                                               n_windows))
    shape = (data.shape[0], data.shape[1] // n_kernel) + tuple(output_size)

    def backward(g):
        return _to_columns(env.xp, g, *args),
    return _from_columns(env.xp, data, shape, *args), backward


def _window_params():
    return [Shape('kernel', doc='The window size per spatial axis.'),
            Shape('stride', (), doc='The step between windows (default 1).'),
            Shape('dilate', (), doc='The spacing of a window\'s entries (default 1).'),
            Shape('pad', (), doc='Zeros added on both sides of each spatial axis (default 0).')]


add(Op('im2col', im2col, dtypes=FLOATS, params=_window_params()))
add(Op('col2im', col2im, dtypes=FLOATS, params=[
    Shape('output_size', doc='The spatial shape of the image.')] + _window_params()))
