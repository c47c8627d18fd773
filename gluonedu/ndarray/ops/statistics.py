"""Summaries of an array's values: moments (mean and variance) and _histogram
(``nd.histogram``)."""
import numpy as np

from ...base import MXNetError
from ..param_types import BadValue, is_none
from ..registry import Axes, Bool, Int, Op, Param, add
from .indexing import not_differentiable


def moments(env, data, axes, keepdims):
    """The mean and the (population) variance of ``data`` over ``axes``:
    mean = Σ x / n,  var = Σ (x - mean)² / n. Integer arrays keep their dtype (both
    truncated)."""
    xp = env.xp
    if not axes:
        raise MXNetError('moments: name the axes to reduce (all of them for global moments); '
                         'empty axes are not supported')
    n = int(np.prod([data.shape[a] for a in axes]))
    mean = (data.sum(axis=axes, keepdims=True) / n).astype(data.dtype)
    centered = data - mean
    var = ((centered * centered).sum(axis=axes, keepdims=True) / n).astype(data.dtype)

    def shaped(a):
        return a if keepdims else a.reshape([d for i, d in enumerate(a.shape) if i not in axes])

    def backward(grads):
        g_mean, g_var = (xp.zeros_like(mean) if g is None else g.reshape(mean.shape)
                         for g in grads)
        return (g_mean + 2 * g_var * centered) / n,
    return [shaped(mean), shaped(var)], backward


add(Op('moments', moments, num_outputs=2, params=[
    Axes('axes', None, doc='The axes to reduce.'),
    Bool('keepdims', False, doc='Keep the reduced axes with size 1.')]))


class _Range(Param):
    """(low, high): two numbers, or their text '(0, 5)'; None when not given."""
    type_name = 'tuple of <double> or None'

    def parse(self, value):
        if is_none(value):
            return None
        if isinstance(value, str):
            value = value.strip('()[] ').split(',')
        try:
            low, high = (float(v) for v in value)
        except (TypeError, ValueError):
            raise BadValue from None
        return low, high


def histogram(env, data, bins=None, *, bin_cnt, range):  # pylint: disable=redefined-builtin
    """Counts (int64) of the values of ``data`` in each bin, and the bins' edges: ``bin_cnt``
    equal bins over ``range``, or the edges ``bins`` (increasing). A bin includes its left
    edge; the last one its right edge too. Values outside the bins (and NaN) are not
    counted."""
    xp = env.xp
    values = data.reshape(-1)
    if bins is None:
        if bin_cnt is None or range is None:
            raise MXNetError('_histogram: give the edges (bins) or bin_cnt with range')
        low, high = range
        if low > high:
            raise MXNetError('_histogram: range (%s, %s) must have low <= high' % (low, high))
        edges = xp.linspace(low, high, bin_cnt + 1).astype(data.dtype)
    elif bins.ndim != 1 or bins.size < 2:
        raise MXNetError('_histogram: bins must hold at least 2 edges (a 1-D array), got '
                         'shape %s' % (bins.shape,))
    else:
        edges = bins
    counts = xp.histogram(values[~xp.isnan(values)] if values.dtype.kind == 'f' else values,
                          bins=edges.astype(np.float64))[0]
    return [counts.astype(np.int64), edges.copy()], not_differentiable('_histogram')


add(Op('_histogram', histogram, ('data', 'bins'), num_outputs=2,
       drop_inputs=lambda p: ('bins',) if p['bin_cnt'] is not None else (), params=[
           Int('bin_cnt', None, optional=True, doc='The number of equal bins over range.'),
           _Range('range', None, doc='(low, high) of the equal bins.')]))

