"""Batch normalization in two passes over the data, compiled with numba; same contract as
:mod:`.batchnorm_reference`, which it falls back to without numba, on GPUs and for
dtypes other than float32/float64.

NumPy evaluates the formulas one operation at a time, each a pass over the whole array
with a temporary — about seven passes forward and twelve backward. Here each pass does
all the work for a channel: sums (accumulated in float64) in one, the output in the
next. numba is optional (``pip install gluonedu[fast]``), looked up when the package is
imported and compiled the first time a BatchNorm runs (cached on disk);
``GLUONEDU_NUMBA=0`` turns it off. The loops run on one thread, like NumPy's.
"""
import importlib.util
import os

import numpy as np

from . import batchnorm_reference

__all__ = ['stats', 'normalize', 'backward_sums', 'backward_data', 'available']

_INSTALLED = importlib.util.find_spec('numba') is not None
_loops = None


def available():
    """Whether numba is installed and not turned off with ``GLUONEDU_NUMBA=0``."""
    return _INSTALLED and os.environ.get('GLUONEDU_NUMBA', '1') != '0'


def _compiled():
    """The numba loops, compiled on first use."""
    global _loops
    if _loops is None:
        from . import batchnorm_numba
        _loops = batchnorm_numba
    return _loops


def _use_numba(xp, x):
    return xp is np and x.dtype in (np.float32, np.float64) and available()


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
