"""The numba loops of :mod:`.batchnorm_fast` (imported only when numba is used).

Arrays are ``(A, C, B)`` views of the data; each loop runs channel by channel.
"""
import numba
import numpy as np


@numba.njit(cache=True)
def stats(x):
    """Mean and biased variance of each channel, accumulated in float64."""
    outer, channels, inner = x.shape
    count = outer * inner
    mean, var = np.empty(channels), np.empty(channels)
    for c in range(channels):
        total = 0.0
        for a in range(outer):
            for b in range(inner):
                total += x[a, c, b]
        m = total / count
        squares = 0.0
        for a in range(outer):
            for b in range(inner):
                d = x[a, c, b] - m
                squares += d * d
        mean[c], var[c] = m, squares / count
    return mean, var


@numba.njit(cache=True)
def normalize(x, mean, scale, shift, out):
    """out = (x − mean)·scale + shift per channel."""
    outer, channels, inner = x.shape
    for a in range(outer):
        for c in range(channels):
            m, s, t = mean[c], scale[c], shift[c]
            for b in range(inner):
                out[a, c, b] = (x[a, c, b] - m) * s + t


@numba.njit(cache=True)
def backward_sums(x, dy, mean, inv_std):
    """Σ dy and Σ dy·x̂ of each channel, accumulated in float64."""
    outer, channels, inner = x.shape
    sum_dy, sum_dy_x_hat = np.zeros(channels), np.zeros(channels)
    for a in range(outer):
        for c in range(channels):
            m, inv = mean[c], inv_std[c]
            p, q = 0.0, 0.0
            for b in range(inner):
                g = dy[a, c, b]
                p += g
                q += g * ((x[a, c, b] - m) * inv)
            sum_dy[c] += p
            sum_dy_x_hat[c] += q
    return sum_dy, sum_dy_x_hat


@numba.njit(cache=True)
def backward_data(x, dy, mean, inv_std, scale, sum_dy, sum_dy_x_hat, batch_stats, out):
    """dx = scale·(dy − Σdy/M − x̂·Σ(dy·x̂)/M), or scale·dy with fixed statistics."""
    outer, channels, inner = x.shape
    count = outer * inner
    for a in range(outer):
        for c in range(channels):
            s = scale[c]
            if batch_stats:
                m, inv = mean[c], inv_std[c]
                u, v = sum_dy[c] / count, sum_dy_x_hat[c] / count
                for b in range(inner):
                    x_hat = (x[a, c, b] - m) * inv
                    out[a, c, b] = s * (dy[a, c, b] - u - x_hat * v)
            else:
                for b in range(inner):
                    out[a, c, b] = s * dy[a, c, b]
