"""Batch normalization in two passes over the data, compiled with numba; same contract as
:mod:`.batchnorm_reference`, which it falls back to without numba, on GPUs and for
dtypes other than float32/float64.

NumPy evaluates the formulas one operation at a time, each a pass over the whole array
with a temporary — about seven passes forward and twelve backward. Here each pass does
all the work for a channel: sums (accumulated in float64) in one, the output in the
next. numba is optional, compiled the first time a BatchNorm runs and cached on disk, as
the package's one policy (:mod:`gluonedu._numba`) says. The loops run on one thread,
like NumPy's.
"""
import numpy as np

from .... import _numba
from . import batchnorm_reference

__all__ = ['stats', 'normalize', 'backward_sums', 'backward_data']


def _compiled():
    """The numba loops, compiled on first use."""
    return _numba.kernels(__package__ + '.batchnorm_numba')


def _use_numba(xp, x):
    return xp is np and x.dtype in (np.float32, np.float64) and _numba.available()


def stats(xp, x):
    """``(mean, var)`` of each channel (biased variance), shapes ``(C,)``."""
    if not _use_numba(xp, x):
        return batchnorm_reference.stats(xp, x)
    mean, var = _compiled().stats(x)
    return mean.astype(x.dtype), var.astype(x.dtype)


def normalize(xp, x, mean, scale, shift):
    """``(x − mean)·scale + shift`` per channel."""
    if not _use_numba(xp, x):
        return batchnorm_reference.normalize(xp, x, mean, scale, shift)
    out = np.empty_like(x)
    _compiled().normalize(x, mean, scale, shift, out)
    return out


def backward_sums(xp, x, dy, mean, inv_std):
    """``(Σ dy, Σ dy·x̂)`` of each channel."""
    if not _use_numba(xp, x):
        return batchnorm_reference.backward_sums(xp, x, dy, mean, inv_std)
    sum_dy, sum_dy_x_hat = _compiled().backward_sums(x, dy, mean, inv_std)
    return sum_dy.astype(x.dtype), sum_dy_x_hat.astype(x.dtype)


def backward_data(xp, x, dy, mean, inv_std, scale, sum_dy, sum_dy_x_hat, batch_stats):
    """The data's gradient (see :mod:`.batchnorm_reference`)."""
    if not _use_numba(xp, x):
        return batchnorm_reference.backward_data(xp, x, dy, mean, inv_std, scale, sum_dy,
                                                 sum_dy_x_hat, batch_stats)
    out = np.empty_like(x)
    _compiled().backward_data(x, dy, mean, inv_std, scale, sum_dy, sum_dy_x_hat,
                              batch_stats, out)
    return out
