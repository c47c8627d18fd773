"""Convolution as one matrix product per group (im2col + BLAS), same contract as
:mod:`.conv_reference`.

The data is moved to channel-last order ``(N, *S, C)`` and padded; a strided view
(:func:`.windows.window_view`) exposes every window, and one copy lays the windows out
as the rows of a matrix ``cols`` of shape ``(M, G, prod(K)·C/G)``, ``M = N·prod(out)``:
row ``m`` holds the patch that output position ``m`` sees. Then, per group,

    y    = cols  · Wᵀ        (M, O/G)      forward
    dW   = colsᵀ · dy        (K·C/G, O/G)  weight gradient
    dcols = dy   · W         (M, K·C/G)    input gradient, before "col2im"

where ``W`` is the group's weight as a ``(O/G, K·C/G)`` matrix in the same (kernel
offset, channel) order. "col2im" adds each column block of ``dcols`` back onto the
window positions it came from: one strided addition per kernel offset. Channel-last
order makes each copy read and write contiguous runs of channels, and puts the long
``M`` axis first, the orientation in which OpenBLAS's SGEMM is fastest.

Stride-1, ungrouped convolutions on the CPU skip the ``cols`` copy ("shifted GEMMs"):
with the padded data flattened to rows ``X`` of shape ``(N·prod(padded), C)``, the window
tap at kernel offset ``k`` of output row ``m`` is input row ``m + off(k)``, so

    Y[m]         = Σ_k X[m + off(k)] · W_k        one GEMM per offset, into Y in place
    dX[m + off(k)] += dY[m] · W_kᵀ                (col2im for free)
    dW_k         = X[off(k):]ᵀ · dY

where every operand is a contiguous block of rows. ``Y`` is computed on the whole padded
grid (the rows of windows that run off the edge are dropped afterwards, and ``dY`` is 0
there): a little more arithmetic, no copies of the windows.

Two cases go faster still: 1×1 kernels without padding are a batch of channel products
``y[n] = W·x[n]`` on the channel-first data (no layout changes at all), and 3×3
stride-1 kernels with enough channels use Winograd's algorithm (:mod:`.conv_winograd`,
2.25× fewer multiply-adds). :func:`forward_keeping` also returns the transformed data
(windows, padded rows, subsampled rows or tiles) so that the weight gradient does not
build it again; 2-D col2im is a numba loop (:mod:`.im2col_numba`).
"""
import numpy as np

from .... import _numba
from . import blas, conv_winograd
from .windows import conv_output_size, offset_slices, window_view

__all__ = ['forward', 'forward_keeping', 'backward_data', 'backward_weight']


def _out_size(x_shape, kernel, stride, pad, dilate):
    return tuple(conv_output_size(n, k, s, p, d)
                 for n, k, s, p, d in zip(x_shape[2:], kernel, stride, pad, dilate))


def _channels_last(xp, x, pad):
    """``x`` as ``(N, *S, C)``, zero-padded on the spatial axes (one copy)."""
    spatial = x.shape[2:]
    out = xp.zeros((x.shape[0],) + tuple(n + 2 * p for n, p in zip(spatial, pad))
                   + (x.shape[1],), dtype=x.dtype)
    inner = tuple(slice(p, p + n) for p, n in zip(pad, spatial))
    out[(slice(None),) + inner] = xp.moveaxis(x, 1, -1)
    return out


def _to_channels_first(xp, rows, batch, out_size):
    """``(M, C)`` rows back to a contiguous ``(N, C, *out)`` array."""
    y = rows.reshape((batch,) + tuple(out_size) + (rows.shape[-1],))
    return xp.ascontiguousarray(xp.moveaxis(y, -1, 1))


def _compiled_2d(xp, dtype, kernel):
    """Whether im2col/col2im run as numba loops (2-D NumPy float data, numba present)."""
    return (xp is np and len(kernel) == 2 and np.dtype(dtype) in (np.float32, np.float64)
            and _numba.available())


def _im2col(xp, x, kernel, stride, pad, dilate, groups, out_size):
    """The windows of ``x`` as a ``(M, G, prod(kernel)·C/G)`` matrix (one copy)."""
    xl = _channels_last(xp, x, pad)
    nd = len(kernel)
    view = window_view(xp, xl, kernel, stride, dilate, out_size, range(1, nd + 1))
    # view: (N, *out, C, *K) -> (N, *out, G, *K, C/G): rows in (offset, channel) order
    view = view.reshape(view.shape[:nd + 1] + (groups, x.shape[1] // groups) + tuple(kernel))
    order = tuple(range(nd + 2)) + tuple(range(nd + 3, 2 * nd + 3)) + (nd + 2,)
    rows = x.shape[0] * int(np.prod(out_size))
    return view.transpose(order).reshape(rows, groups, -1)


def _weight_matrices(xp, w, groups):
    """``w`` (O, C/G, *K) as G matrices ``(prod(K)·C/G, O/G)`` matching :func:`_im2col`."""
    nd = w.ndim - 2
    per_group = w.reshape((groups, w.shape[0] // groups) + w.shape[1:])
    # (G, O/G, C/G, *K) -> (G, *K, C/G, O/G)
    order = (0,) + tuple(range(3, nd + 3)) + (2, 1)
    return xp.ascontiguousarray(per_group.transpose(order)).reshape(
        groups, -1, w.shape[0] // groups)


def _per_group(xp, a, b):
    """``a[g] @ b[g]`` for each group g (a plain 2-D product when there is one group)."""
    if a.shape[0] == 1:
        return (a[0] @ b[0])[None]
    return xp.matmul(a, b)


# ---------------------------------------------------------------------- shifted GEMMs
#: Input channels from which shifted GEMMs beat one im2col GEMM (each of their products
#: is only ``channels`` deep; below this, the many thin products cost more than the copy).
SHIFTED_FROM_CHANNELS = 16


def _shifted(xp, dtype, stride, groups, channels):
    """Whether the shifted-GEMM kernels apply (see the module docstring)."""
    return (groups == 1 and channels >= SHIFTED_FROM_CHANNELS and all(s == 1 for s in stride)
            and blas.can_accumulate(xp, dtype))


def _macs(x_shape, w_shape, out_size):
    """Multiply-adds of the convolution (each of its three products has as many)."""
    return x_shape[0] * int(np.prod(out_size)) * int(np.prod(w_shape))


def _row_offsets(padded, kernel, dilate):
    """For each kernel offset, how many rows of the flattened padded grid it shifts by."""
    row_strides = [int(np.prod(padded[i + 1:])) for i in range(len(padded))]
    return [sum(k * d * r for k, d, r in zip(offset, dilate, row_strides))
            for offset in np.ndindex(*kernel)]


def _taps(w):
    """``w`` (O, C, *K) as one contiguous ``(C, O)`` matrix per kernel offset."""
    return np.ascontiguousarray(np.moveaxis(w.reshape(w.shape[:2] + (-1,)), -1, 0)
                                .transpose(0, 2, 1))


def _grid_rows(dy, padded):
    """``dy`` (N, O, *out) on the padded grid, as rows ``(N·prod(padded), O)``, 0 outside."""
    rows = np.zeros((dy.shape[0],) + tuple(padded) + (dy.shape[1],), dtype=dy.dtype)
    rows[(slice(None),) + tuple(slice(0, o) for o in dy.shape[2:])] = np.moveaxis(dy, 1, -1)
    return rows.reshape(-1, dy.shape[1])


def _shifted_forward(x, w, pad, dilate, out_size):
    """``(y, xl)``: the convolution, and the padded channel-last data it multiplied."""
    xl = _channels_last(np, x, pad)
    padded, rows = xl.shape[1:-1], xl.reshape(-1, x.shape[1])
    offsets = _row_offsets(padded, w.shape[2:], dilate)
    used = rows.shape[0] - offsets[-1]
    y = np.zeros((rows.shape[0], w.shape[0]), dtype=x.dtype)
    for offset, tap in zip(offsets, _taps(w)):
        blas.accumulate(y[:used], rows[offset:offset + used], tap)
    y = y.reshape((x.shape[0],) + tuple(padded) + (w.shape[0],))
    return np.ascontiguousarray(np.moveaxis(
        y[(slice(None),) + tuple(slice(0, o) for o in out_size)], -1, 1)), xl


def _shifted_backward_data(dy, w, x_shape, pad, dilate):
    padded = tuple(n + 2 * p for n, p in zip(x_shape[2:], pad))
    dy_rows = _grid_rows(dy, padded)
    offsets = _row_offsets(padded, w.shape[2:], dilate)
    used = dy_rows.shape[0] - offsets[-1]
    dx = np.zeros((dy_rows.shape[0], x_shape[1]), dtype=dy.dtype)
    for offset, tap in zip(offsets, _taps(w)):
        blas.accumulate(dx[offset:offset + used], dy_rows[:used], tap.T)
    dx = dx.reshape((x_shape[0],) + padded + (x_shape[1],))
    crop = tuple(slice(p, p + n) for p, n in zip(pad, x_shape[2:]))
    return np.ascontiguousarray(np.moveaxis(dx[(slice(None),) + crop], -1, 1))


def _shifted_backward_weight(x, dy, w_shape, pad, dilate, xl):
    xl = _channels_last(np, x, pad) if xl is None else xl
    padded, rows = xl.shape[1:-1], xl.reshape(-1, x.shape[1])
    dy_rows = _grid_rows(dy, padded)
    offsets = _row_offsets(padded, w_shape[2:], dilate)
    used = rows.shape[0] - offsets[-1]
    taps = np.stack([rows[o:o + used].T @ dy_rows[:used] for o in offsets])
    # (prod(K), C, O) -> (O, C, *K)
    return np.ascontiguousarray(taps.transpose(2, 1, 0)).reshape(w_shape)


# ---------------------------------------------------------------------- 1×1 kernels
def _pointwise(kernel, pad, groups):
    """Whether the convolution is a per-position channel product (1×1 kernel, no pad)."""
    return groups == 1 and all(k == 1 for k in kernel) and not any(pad)


def _subsampled(x, stride):
    """The positions a 1×1 kernel with ``stride`` reads (a view)."""
    return x[(slice(None), slice(None)) + tuple(slice(None, None, s) for s in stride)]


def _pointwise_forward(xp, x, w, stride):
    """``(y, xs)``: ``y[n] = W·xs[n]`` on channel-first rows ``xs`` (N, C, positions) —
    a batch of GEMMs with no layout changes."""
    xs = xp.ascontiguousarray(_subsampled(x, stride)).reshape(x.shape[0], x.shape[1], -1)
    y = xp.matmul(w.reshape(w.shape[0], -1), xs)
    return y.reshape((x.shape[0], w.shape[0]) + _subsampled(x, stride).shape[2:]), xs


def _pointwise_backward_weight(xp, x, dy, w_shape, stride, xs):
    if xs is None:
        xs = xp.ascontiguousarray(_subsampled(x, stride)).reshape(x.shape[0], x.shape[1], -1)
    dy_rows = dy.reshape(dy.shape[0], dy.shape[1], -1)
    return xp.matmul(dy_rows, xs.transpose(0, 2, 1)).sum(axis=0).reshape(w_shape)


def _pointwise_backward_data(xp, dy, w, x_shape, stride):
    dxs = xp.matmul(w.reshape(w.shape[0], -1).T, dy.reshape(dy.shape[0], dy.shape[1], -1))
    dxs = dxs.reshape((x_shape[0], x_shape[1]) + dy.shape[2:])
    if all(s == 1 for s in stride):
        return dxs
    dx = xp.zeros(x_shape, dtype=dy.dtype)
    _subsampled(dx, stride)[...] = dxs
    return dx


# ---------------------------------------------------------------------- im2col + GEMM
def _im2col_forward(xp, x, w, stride, pad, dilate, groups, out_size):
    """``(y, cols)``: the convolution, and the windows it multiplied."""
    cols = _im2col(xp, x, w.shape[2:], stride, pad, dilate, groups, out_size)
    y = _per_group(xp, cols.transpose(1, 0, 2), _weight_matrices(xp, w, groups))
    y = y.transpose(1, 0, 2).reshape(cols.shape[0], -1)
    return _to_channels_first(xp, y, x.shape[0], out_size), cols


def _im2col_backward_weight(xp, x, dy, w_shape, stride, pad, dilate, groups, cols):
    kernel, out_size = w_shape[2:], dy.shape[2:]
    if cols is None:
        cols = _im2col(xp, x, kernel, stride, pad, dilate, groups, out_size)
    dy_rows = xp.moveaxis(dy, 1, -1).reshape(-1, groups, w_shape[0] // groups)
    dw = _per_group(xp, cols.transpose(1, 2, 0), dy_rows.transpose(1, 0, 2))
    # (G, *K, C/G, O/G) -> (O, C/G, *K)
    nd = len(kernel)
    dw = dw.reshape((groups,) + tuple(kernel) + (w_shape[1], w_shape[0] // groups))
    order = (0, nd + 2, nd + 1) + tuple(range(1, nd + 1))
    return xp.ascontiguousarray(dw.transpose(order)).reshape(w_shape)


def _im2col_backward_data(xp, dy, w, x_shape, stride, pad, dilate, groups):
    kernel, out_size = w.shape[2:], dy.shape[2:]
    nd = len(kernel)
    dy_rows = xp.moveaxis(dy, 1, -1).reshape(-1, groups, w.shape[0] // groups)
    weights = _weight_matrices(xp, w, groups)
    dcols = _per_group(xp, dy_rows.transpose(1, 0, 2), weights.transpose(0, 2, 1))
    if _compiled_2d(xp, dy.dtype, kernel):
        im2col_numba = _numba.kernels(__package__ + '.im2col_numba')
        dx = np.zeros(x_shape, dtype=dy.dtype)
        im2col_numba.col2im_2d(dcols.transpose(1, 0, 2), *kernel, *stride, *pad, *dilate,
                               *out_size, dx)
        return dx
    # (G, M, K·C/G) -> (N, *out, G, *K, C/G): one block per kernel offset
    dcols = dcols.transpose(1, 0, 2).reshape(
        (x_shape[0],) + tuple(out_size) + (groups,) + tuple(kernel) + (x_shape[1] // groups,))
    padded = (x_shape[0],) + tuple(n + 2 * p for n, p in zip(x_shape[2:], pad)) + (x_shape[1],)
    dxl = xp.zeros(padded, dtype=dy.dtype)
    lead = (slice(None),) * (nd + 2)
    for k in np.ndindex(*kernel):
        block = dcols[lead + k].reshape(dcols.shape[:nd + 1] + (x_shape[1],))
        dxl[(slice(None),) + offset_slices(k, stride, dilate, out_size)] += block
    crop = tuple(slice(p, p + n) for p, n in zip(pad, x_shape[2:]))
    return xp.ascontiguousarray(xp.moveaxis(dxl[(slice(None),) + crop], -1, 1))


# ---------------------------------------------------------------------- the kernels
def forward(xp, x, w, stride, pad, dilate, groups):
    """The convolution of ``x`` with ``w`` (no bias)."""
    return forward_keeping(xp, x, w, stride, pad, dilate, groups)[0]


def forward_keeping(xp, x, w, stride, pad, dilate, groups):
    """``(y, kept)``: the convolution, and the transformed data that
    :func:`backward_weight` multiplies again (windows, padded rows or Winograd tiles)."""
    out_size = _out_size(x.shape, w.shape[2:], stride, pad, dilate)
    with blas.threads_for(xp, _macs(x.shape, w.shape, out_size)):
        if conv_winograd.applies(xp, x.dtype, w.shape[2:], stride, pad, dilate, groups,
                                 x.shape[1], w.shape[0]):
            return conv_winograd.forward(x, w, pad, out_size)
        if _pointwise(w.shape[2:], pad, groups):
            return _pointwise_forward(xp, x, w, stride)
        if _shifted(xp, x.dtype, stride, groups, x.shape[1]):
            return _shifted_forward(x, w, pad, dilate, out_size)
        return _im2col_forward(xp, x, w, stride, pad, dilate, groups, out_size)


def backward_weight(xp, x, dy, w_shape, stride, pad, dilate, groups, kept=None):
    """The gradient of the convolution's weight (of shape ``w_shape``); ``kept`` is what
    :func:`forward_keeping` returned beside ``y`` for this ``x`` (None: recompute it)."""
    with blas.threads_for(xp, _macs(x.shape, w_shape, dy.shape[2:])):
        if conv_winograd.applies(xp, x.dtype, w_shape[2:], stride, pad, dilate, groups,
                                 x.shape[1], w_shape[0]):
            return conv_winograd.backward_weight(x, dy, w_shape, pad, kept)
        if _pointwise(w_shape[2:], pad, groups):
            return _pointwise_backward_weight(xp, x, dy, w_shape, stride, kept)
        if _shifted(xp, x.dtype, stride, groups, x.shape[1]):
            return _shifted_backward_weight(x, dy, w_shape, pad, dilate, kept)
        return _im2col_backward_weight(xp, x, dy, w_shape, stride, pad, dilate, groups, kept)


def backward_data(xp, dy, w, x_shape, stride, pad, dilate, groups):
    """The gradient of the convolution's input (of shape ``x_shape``)."""
    with blas.threads_for(xp, _macs(x_shape, w.shape, dy.shape[2:])):
        if conv_winograd.applies(xp, dy.dtype, w.shape[2:], stride, pad, dilate, groups,
                                 x_shape[1], w.shape[0]):
            return conv_winograd.backward_data(dy, w, x_shape, pad)
        if _pointwise(w.shape[2:], pad, groups):
            return _pointwise_backward_data(xp, dy, w, x_shape, stride)
        if _shifted(xp, dy.dtype, stride, groups, x_shape[1]):
            return _shifted_backward_data(dy, w, x_shape, pad, dilate)
        return _im2col_backward_data(xp, dy, w, x_shape, stride, pad, dilate, groups)
