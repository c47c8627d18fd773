"""Pooling read off its definition: one pass per offset inside the window.

Data is channel-first ``(N, C, *S)``; every output position ``i`` (per spatial axis)
looks at the padded input positions ``i·stride + k``, ``k = 0 … kernel-1``:

    max:  y[i] = max(lowest, max_k xpad[i·s + k])   (padding never wins, nor a NaN)
    sum:  y[i] = Σ_k    xpad[i·s + k]         (padding counts as 0)
    avg:  y[i] = Σ_k    xpad[i·s + k] / size(i)
    lp:   y[i] = (Σ_k   xpad[i·s + k]^p)^(1/p)     p = 1, 2, 3

``size(i)`` follows MXNet: along each axis, the window clipped to the padded input
(``count_include_pad=True``) or to the input itself (False); the product over axes.
Max starts each window at the dtype's lowest value and lets an entry win only when it
is larger (``>``), as MXNet's CPU kernel does: a NaN or -inf never wins, and a window of
nothing else gives the lowest value. Its gradient goes to the *first* winner of each
window (in row-major order of the offsets; the first offset when nothing won); the others spread ``dy`` over the
window with their weights. The loops below run over the ``prod(kernel)`` offsets; each
step is one vectorised operation on arrays of the output's size.
"""
import numpy as np

from .windows import offset_slices, pad_spatial

__all__ = ['forward', 'backward', 'window_sizes', 'padding', 'lowest']


def padding(x_shape, kernel, stride, pad, out_size):
    """(before, after) padding so that every one of ``out_size`` windows fits."""
    after = tuple(max(p, (o - 1) * s + k - n - p)
                  for n, k, s, p, o in zip(x_shape[2:], kernel, stride, pad, out_size))
    return tuple(pad), after


def window_sizes(xp, x_shape, kernel, stride, pad, out_size, count_include_pad, dtype):
    """The divisor of average pooling at every output position, shaped ``(*out_size)``."""
    size = np.ones((), dtype=np.int64)
    for n, k, s, p, o in zip(x_shape[2:], kernel, stride, pad, out_size):
        start = np.arange(o) * s - p
        end = np.minimum(start + k, n + p)
        if not count_include_pad:
            start, end = np.maximum(start, 0), np.minimum(end, n)
        size = np.multiply.outer(size, end - start)
    # A 'full' window may lie wholly in the padding: its sum is 0, and so is its mean.
    return xp.asarray(np.maximum(size, 1).astype(dtype))


def lowest(dtype):
    """The smallest finite value of ``dtype``: max pooling's padding (as MXNet's)."""
    return np.finfo(dtype).min if np.issubdtype(dtype, np.floating) else np.iinfo(dtype).min


def _power(x, p):
    return x if p == 1 else x * x if p == 2 else x * x * x


def forward(xp, x, kernel, stride, pad, out_size, pool_type, count_include_pad, p_value):
    """``(y, saved)``: the pooled array, and what :func:`backward` needs."""
    before, after = padding(x.shape, kernel, stride, pad, out_size)
    fill = lowest(x.dtype) if pool_type == 'max' else 0
    xpad = pad_spatial(xp, x, before, after, fill)
    offsets = list(np.ndindex(*kernel))
    windows = (xpad[(slice(None), slice(None)) + offset_slices(k, stride, (1,) * len(k),
                                                                out_size)] for k in offsets)
    if pool_type == 'max':
        y = xp.full(x.shape[:2] + tuple(out_size), fill, dtype=x.dtype)
        first_max = xp.zeros(y.shape, dtype=np.int64)
        for index, patch in enumerate(windows):
            larger = patch > y
            y = xp.where(larger, patch, y)
            first_max = xp.where(larger, index, first_max)
        return y, first_max
    total = sum(_power(patch, p_value or 1) if pool_type == 'lp' else patch
                for patch in windows)
    if pool_type == 'avg':
        return total / window_sizes(xp, x.shape, kernel, stride, pad, out_size,
                                    count_include_pad, x.dtype), None
    if pool_type == 'lp':
        y = total if p_value == 1 else xp.sqrt(total) if p_value == 2 else xp.cbrt(total)
        return y, xpad
    return total, None


def backward(xp, dy, y, saved, x_shape, kernel, stride, pad, pool_type, count_include_pad,
             p_value):
    """The gradient of the pooling's input (of shape ``x_shape``)."""
    out_size = dy.shape[2:]
    before, after = padding(x_shape, kernel, stride, pad, out_size)
    padded = x_shape[:2] + tuple(n + b + a for n, b, a in zip(x_shape[2:], before, after))
    dxpad = xp.zeros(padded, dtype=dy.dtype)
    if pool_type == 'avg':
        dy = dy / window_sizes(xp, x_shape, kernel, stride, pad, out_size, count_include_pad,
                               dy.dtype)
    for index, k in enumerate(np.ndindex(*kernel)):
        window = (slice(None), slice(None)) + offset_slices(k, stride, (1,) * len(k),
                                                            out_size)
        if pool_type == 'max':
            dxpad[window] += xp.where(saved == index, dy, 0)
        elif pool_type == 'lp' and p_value > 1:
            # d(Σ x^p)^(1/p) / dx = (x / y)^(p-1), and 0 where the window is all zeros
            with np.errstate(divide='ignore', invalid='ignore'):
                ratio = xp.where(y == 0, 0, saved[window] / y)
            dxpad[window] += dy * _power(ratio, p_value - 1)
        else:
            dxpad[window] += dy
    crop = tuple(slice(b, b + n) for b, n in zip(before, x_shape[2:]))
    return dxpad[(slice(None), slice(None)) + crop]
