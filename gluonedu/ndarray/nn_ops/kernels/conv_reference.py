"""Convolution read off its definition: one term per kernel offset.

For data ``x`` of shape ``(N, C, *S)`` and weight ``w`` of shape ``(O, C/G, *K)`` split
into ``G`` groups (output channel ``o`` sees the input channels of its group only)::

    y[n, o, i] = Σ_c Σ_k  w[o, c, k] · xpad[n, c, i·stride + k·dilate]

Fixing the kernel offset ``k`` turns the inner part into one matrix product over the
channels, ``w[:, :, k] · xpad[:, :, window slice of k]``: the loop below runs over the
``prod(K)`` offsets and groups and adds these products up. The gradients are the same
sum read the other way:

    dw[o, c, k]            = Σ_n Σ_i dy[n, o, i] · xpad[n, c, i·stride + k·dilate]
    dxpad[n, c, i·s + k·d] += Σ_o  w[o, c, k] · dy[n, o, i]

(and ``dx`` is ``dxpad`` without its padding). These functions are the reference the
fast kernels (:mod:`.conv_fast`) are tested against. Deconvolution uses the same three
functions: its forward pass is ``backward_data``.
"""
import numpy as np

from .windows import conv_output_size, offset_slices, pad_spatial

__all__ = ['forward', 'forward_keeping', 'backward_data', 'backward_weight']


def _groups(channels_in, channels_out, groups):
    """(input channel slice, output channel slice) of each group."""
    ci, co = channels_in // groups, channels_out // groups
    return [(slice(g * ci, (g + 1) * ci), slice(g * co, (g + 1) * co)) for g in range(groups)]


def _flat(a):
    """``(N, C, *spatial)`` as ``(N, C, positions)``."""
    return a.reshape(a.shape[:2] + (-1,))


def forward(xp, x, w, stride, pad, dilate, groups):
    """The convolution of ``x`` with ``w`` (no bias)."""
    kernel = w.shape[2:]
    out_size = tuple(conv_output_size(n, k, s, p, d)
                     for n, k, s, p, d in zip(x.shape[2:], kernel, stride, pad, dilate))
    xpad = pad_spatial(xp, x, pad, pad)
    y = xp.zeros((x.shape[0], w.shape[0]) + out_size, dtype=x.dtype)
    for cin, cout in _groups(x.shape[1], w.shape[0], groups):
        for k in np.ndindex(*kernel):
            patch = xpad[(slice(None), cin) + offset_slices(k, stride, dilate, out_size)]
            y[:, cout] += xp.einsum('oc,nc...->no...', w[(cout, slice(None)) + k], patch)
    return y


def forward_keeping(xp, x, w, stride, pad, dilate, groups):
    """``(y, None)``: the fast kernels also return work their weight gradient reuses."""
    return forward(xp, x, w, stride, pad, dilate, groups), None


def backward_data(xp, dy, w, x_shape, stride, pad, dilate, groups):
    """The gradient of the convolution's input ``x`` (of shape ``x_shape``)."""
    kernel, out_size = w.shape[2:], dy.shape[2:]
    padded = x_shape[:2] + tuple(n + 2 * p for n, p in zip(x_shape[2:], pad))
    dxpad = xp.zeros(padded, dtype=dy.dtype)
    for cin, cout in _groups(x_shape[1], w.shape[0], groups):
        for k in np.ndindex(*kernel):
            window = (slice(None), cin) + offset_slices(k, stride, dilate, out_size)
            dxpad[window] += xp.einsum('oc,no...->nc...', w[(cout, slice(None)) + k],
                                       dy[:, cout])
    crop = tuple(slice(p, p + n) for p, n in zip(pad, x_shape[2:]))
    return dxpad[(slice(None), slice(None)) + crop]


def backward_weight(xp, x, dy, w_shape, stride, pad, dilate, groups, kept=None):
    """The gradient of the convolution's weight (of shape ``w_shape``; ``kept`` is for
    the fast kernels' sake and unused here)."""
    kernel, out_size = w_shape[2:], dy.shape[2:]
    xpad = pad_spatial(xp, x, pad, pad)
    dw = xp.zeros(w_shape, dtype=x.dtype)
    for cin, cout in _groups(x.shape[1], w_shape[0], groups):
        for k in np.ndindex(*kernel):
            patch = xpad[(slice(None), cin) + offset_slices(k, stride, dilate, out_size)]
            dw[(cout, slice(None)) + k] = xp.einsum('noi,nci->oc', _flat(dy[:, cout]),
                                                    _flat(patch))
    return dw
