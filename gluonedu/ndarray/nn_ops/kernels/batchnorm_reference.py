"""Batch normalization's arithmetic on a ``(A, C, B)`` view of the data, read off its
formulas (NumPy or CuPy).

BatchNorm normalizes every channel ``c`` over all the other axes. With the data reshaped
(a view) to ``x[a, c, b]`` — ``A`` the product of the axes before the channel axis, ``B``
of those after it — a channel's statistics run over ``a`` and ``b``, ``M = A·B`` values::

    mean_c = Σ x / M,   var_c = Σ (x − mean_c)² / M,   inv_c = 1/√(var_c + eps)
    y      = (x − mean_c) · scale_c + shift_c         (scale = γ·inv, shift = β)

and the gradient, with ``x̂ = (x − mean)·inv`` and ``Σ`` over a channel::

    dx = scale · (dy − Σdy/M − x̂ · Σ(dy·x̂)/M)    batch statistics
    dx = scale · dy                                fixed (running) statistics
    dγ = Σ dy·x̂,   dβ = Σ dy

:mod:`.batchnorm_fast` computes the same in two passes over the data with numba.
"""
__all__ = ['stats', 'normalize', 'backward_sums', 'backward_data']


def _per_channel(v):
    return v.reshape(1, -1, 1)


def stats(xp, x):
    """``(mean, var)`` of each channel (biased variance), shapes ``(C,)``."""
    mean = x.mean(axis=(0, 2))
    centered = x - _per_channel(mean)
    return mean, (centered * centered).mean(axis=(0, 2))


def normalize(xp, x, mean, scale, shift):
    """``(x − mean)·scale + shift`` per channel."""
    return (x - _per_channel(mean)) * _per_channel(scale) + _per_channel(shift)


def backward_sums(xp, x, dy, mean, inv_std):
    """``(Σ dy, Σ dy·x̂)`` of each channel."""
    x_hat = (x - _per_channel(mean)) * _per_channel(inv_std)
    return dy.sum(axis=(0, 2)), (dy * x_hat).sum(axis=(0, 2))


def backward_data(xp, x, dy, mean, inv_std, scale, sum_dy, sum_dy_x_hat, batch_stats):
    """The data's gradient (see the module docstring)."""
    if not batch_stats:
        return dy * _per_channel(scale)
    count = x.shape[0] * x.shape[2]
    x_hat = (x - _per_channel(mean)) * _per_channel(inv_std)
    return _per_channel(scale) * (dy - _per_channel(sum_dy / count)
                                  - x_hat * _per_channel(sum_dy_x_hat / count))
