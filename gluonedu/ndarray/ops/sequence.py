"""Variable-length sequences in a padded batch: SequenceLast, SequenceMask, SequenceReverse.

``data`` holds a batch of sequences along two axes: time and batch, (T, B, ...) with
``axis=0`` or (B, T, ...) with ``axis=1``. With ``use_sequence_length`` the input
``sequence_length`` (B,) gives each sequence's length (fractions truncated); without it
every sequence is T long.
"""
import numpy as np

from ...base import MXNetError
from ..registry import Bool, Float, Int, Op, add


def _lengths(xp, name, data, sequence_length, axis, shortest=None):
    """Each sequence's length as int64 (B,), checked to lie in [shortest, T] unless
    ``shortest`` is None (any length will do)."""
    if data.ndim < 2:
        raise MXNetError('%s: data needs at least 2 dimensions (time and batch), got shape %s'
                         % (name, data.shape))
    steps, batch = data.shape[axis], data.shape[1 - axis]
    if sequence_length is None:
        return xp.full(batch, steps, dtype=np.int64)
    if sequence_length.shape != (batch,):
        raise MXNetError('%s: sequence_length has shape %s, the batch is %d long'
                         % (name, sequence_length.shape, batch))
    lengths = sequence_length.astype(np.int64)
    if shortest is not None and lengths.size and (int(lengths.min()) < shortest or
                                                  int(lengths.max()) > steps):
        raise MXNetError('%s: a sequence length is outside [%d, %d], the steps of data'
                         % (name, shortest, steps))
    return lengths


def _time_major(xp, a, time_axis):
    """(T, B, ...) view of ``a`` (B, T, ...) when ``time_axis`` is 1; the same swap puts a
    time-major result back."""
    return a if time_axis == 0 else xp.swapaxes(a, 0, 1)


def _drop_length(params):
    return () if params['use_sequence_length'] else ('sequence_length',)


def _declare(name, forward, axes, extra=()):
    params = [Bool('use_sequence_length', False,
                   doc='Read each sequence\'s length from sequence_length.')]
    params += list(extra) + [Int('axis', 0, doc='The time axis: %s.' % axes)]
    add(Op(name, forward, ('data', 'sequence_length'), params=params, same_dtype=False,
           drop_inputs=_drop_length))


def _check_axis(name, axis, allowed):
    if axis not in allowed:
        raise MXNetError('%s: axis=%d is not supported; MXNet 1.9.1 allows axis %s'
                         % (name, axis, ' or '.join(map(str, allowed))))


def sequence_last(env, data, sequence_length=None, *, use_sequence_length, axis):
    """The last element of each sequence: (B, ...)."""
    xp = env.xp
    _check_axis('SequenceLast', axis, (0, 1))
    lengths = _lengths(xp, 'SequenceLast', data, sequence_length, axis, shortest=1)
    if data.shape[axis] == 0:
        raise MXNetError('SequenceLast: the sequences have no steps (data of shape %s)'
                         % (data.shape,))
    steps = _time_major(xp, data, axis)
    batch = xp.arange(steps.shape[1])
    last = lengths - 1
    y = steps[last, batch]

    def backward(g):
        grad = xp.zeros(steps.shape, dtype=g.dtype)
        grad[last, batch] = g
        return _time_major(xp, grad, axis), None
    return y.copy(), backward


def _past_the_end(xp, steps, lengths):
    """A (T, B, 1...) mask of the steps beyond each sequence's length."""
    mask = xp.arange(steps.shape[0])[:, None] >= lengths[None, :]
    return mask.reshape(mask.shape + (1,) * (steps.ndim - 2))


def sequence_mask(env, data, sequence_length=None, *, use_sequence_length, value, axis):
    """``data`` with the steps beyond each sequence's length set to ``value``."""
    xp = env.xp
    _check_axis('SequenceMask', axis, (0, 1))
    lengths = _lengths(xp, 'SequenceMask', data, sequence_length, axis)
    beyond = _time_major(xp, _past_the_end(xp, _time_major(xp, data, axis), lengths), axis)
    y = xp.where(beyond, data.dtype.type(value), data)

    def backward(g):
        return xp.where(beyond, 0, g), None
    return y, backward


def _reversed_steps(xp, steps, lengths):
    """For each (step t, sequence b), the step it comes from: L_b - 1 - t within the
    sequence, t itself beyond it."""
    t = xp.arange(steps.shape[0])[:, None]
    return xp.where(t < lengths[None, :], lengths[None, :] - 1 - t, t)


def sequence_reverse(env, data, sequence_length=None, *, use_sequence_length, axis):
    """Each sequence reversed in time; the padding beyond its length stays in place."""
    xp = env.xp
    _check_axis('SequenceReverse', axis, (0,))
    lengths = _lengths(xp, 'SequenceReverse', data, sequence_length, axis, shortest=0)
    source = _reversed_steps(xp, data, lengths)
    batch = xp.arange(data.shape[1])[None, :]
    y = data[source, batch]

    def backward(g):
        grad = xp.zeros(data.shape, dtype=g.dtype)
        grad[source, batch] = g     # the permutation is its own inverse
        return grad, None
    return y, backward


_declare('SequenceLast', sequence_last, '0 (T, B, ...) or 1 (B, T, ...)')
_declare('SequenceMask', sequence_mask, '0 (T, B, ...) or 1 (B, T, ...)',
         extra=(Float('value', 0.0, single=True, doc='The value of the masked steps.'),))
_declare('SequenceReverse', sequence_reverse, '0 (T, B, ...), the only one supported')
