"""Connectionist temporal classification: the ``CTCLoss`` operator (alias ``ctc_loss``).

Graves et al. (2006), "Connectionist Temporal Classification: Labelling Unsegmented
Sequence Data with Recurrent Neural Networks". For activations ``data`` of shape
``(T, N, C)`` (time, batch, alphabet with the blank) and one label sequence per sample,
the loss is ``-log p(label | data)``, where ``p`` sums the softmax probabilities of every
alignment: a path of ``T`` symbols that reads as the label once repeated symbols are
merged and blanks removed.

The sum runs over the *extended* label ``l'`` = blank, l1, blank, l2, ..., blank (length
``S = 2L + 1``) by dynamic programming, in log space so that long sequences do not
underflow:

    alpha[t, s] = logsumexp(alpha[t-1, s], alpha[t-1, s-1], alpha[t-1, s-2]) + y[t, l'_s]
    beta[t, s]  = logsumexp(beta[t+1, s] + y[t+1, l'_s], ... s+1, ... s+2)

(the ``s-2``/``s+2`` step only between two different labels; ``y`` the log-softmax), and
``log p = logsumexp(alpha[T-1, S-1], alpha[T-1, S-2])``. A label no alignment of ``T``
steps can read (``aa`` in two steps needs a blank between) gets loss 0, as MXNet's, and a
zero gradient (MXNet leaves it unwritten). The gradient of the loss with
respect to the activations is ``softmax(data)[t, k] - sum_{s: l'_s = k}
exp(alpha[t, s] + beta[t, s] - log p)``.
"""
import numpy as np

from ...base import MXNetError
from ..registry import Bool, Enum, Op, add

#: The value that pads a label sequence, by where the blank is.
_PADDING = {'first': 0, 'last': -1}


def _logsumexp(xp, *terms):
    stacked = xp.stack(terms)
    top = stacked.max(axis=0)
    safe = xp.where(xp.isfinite(top), top, 0)
    return safe + xp.log(xp.exp(stacked - safe).sum(axis=0))


def _extended(label, blank):
    """The label with a blank before, between and after its symbols."""
    ext = np.full(2 * len(label) + 1, blank, dtype=np.int64)
    ext[1::2] = label
    return ext


def _skips(ext, blank):
    """Where the recursion may jump two positions: onto a label that differs from the one
    two positions back."""
    skip = np.zeros(len(ext), dtype=bool)
    skip[2:] = (ext[2:] != blank) & (ext[2:] != ext[:-2])
    return skip


def _alpha_beta(xp, logp, ext, skip):
    """The forward and backward variables (log space) of one sample: ``(T, S)`` each."""
    steps, size = logp.shape[0], len(ext)
    emit = logp[:, ext]                               # (T, S): y[t, l'_s]
    neg_inf = -np.inf
    alpha = xp.full((steps, size), neg_inf, dtype=logp.dtype)
    beta = xp.full((steps, size), neg_inf, dtype=logp.dtype)
    alpha[0, :min(2, size)] = emit[0, :min(2, size)]
    beta[-1, max(size - 2, 0):] = 0
    skip_to, skip_from = xp.asarray(skip), xp.asarray(np.append(skip[2:], [False, False]))
    pad = xp.full(2, neg_inf, dtype=logp.dtype)
    for t in range(1, steps):
        prev = xp.concatenate([pad, alpha[t - 1]])     # prev[s + 2] = alpha[t-1, s]
        two_back = xp.where(skip_to, prev[:-2], neg_inf)
        alpha[t] = _logsumexp(xp, prev[2:], prev[1:-1], two_back) + emit[t]
    for t in range(steps - 2, -1, -1):
        nxt = xp.concatenate([beta[t + 1] + emit[t + 1], pad])   # nxt[s] = beta.. at s
        two_ahead = xp.where(skip_from, nxt[2:], neg_inf)
        beta[t] = _logsumexp(xp, nxt[:-2], nxt[1:-1], two_ahead)
    return alpha, beta


def _sample(xp, logp, label, blank):
    """(loss, gradient of the loss w.r.t. the activations) of one sample, ``logp`` the
    log-softmax of its ``(T, C)`` activations."""
    ext = _extended(label, blank)
    alpha, beta = _alpha_beta(xp, logp, ext, _skips(ext, blank))
    log_p = _logsumexp(xp, *alpha[-1, -2:]) if len(ext) > 1 else alpha[-1, 0]
    if not bool(xp.isfinite(log_p)):   # no alignment fits (repeats need blanks between):
        return 0, xp.zeros_like(logp)  # loss 0 as MXNet's, and no gradient
    occupancy = xp.exp(alpha + beta - log_p)         # (T, S): posterior of each position
    grad = xp.exp(logp)
    for k in np.unique(ext):
        grad[:, k] -= occupancy[:, ext == k].sum(axis=1)
    return -log_p, grad


def _lengths(values, use, default, name, limit):
    if not use:
        return default
    lengths = [int(v) for v in values.tolist()]
    if any(n < 0 or n > limit for n in lengths):
        raise MXNetError('CTCLoss: %s must lie in [0, %d], got %s' % (name, limit, lengths))
    return lengths


def ctc_loss(env, data, label, *lengths, use_data_lengths, use_label_lengths, blank_label):
    """The CTC loss of each sequence of a batch: ``data`` (T, N, C) activations (the
    softmax is taken inside), ``label`` (N, L) symbols padded with 0 (``blank_label=
    'first'``: the blank is channel 0) or -1 (``'last'``: channel C-1); the lengths from
    ``data_lengths``/``label_lengths`` where ``use_*_lengths``."""
    xp = env.xp
    lengths = list(lengths)
    data_lengths = lengths.pop(0) if use_data_lengths else None
    label_lengths = lengths.pop(0) if use_label_lengths else None
    if data.ndim != 3 or label.ndim != 2 or label.shape[0] != data.shape[1]:
        raise MXNetError('CTCLoss: data must be (sequence length, batch, alphabet) and label '
                         '(batch, label length); got %s and %s' % (data.shape, label.shape))
    steps, batch, channels = data.shape
    if label.shape[1] > steps:
        raise MXNetError('CTCLoss: labels of up to %d symbols cannot be read from %d time steps '
                         '(the label\'s second axis cannot exceed the data\'s first)'
                         % (label.shape[1], steps))
    blank = 0 if blank_label == 'first' else channels - 1
    labels = [[int(v) for v in row] for row in label.tolist()]
    padding = _PADDING[blank_label]
    data_len = _lengths(data_lengths, use_data_lengths, [steps] * batch, 'data_lengths',
                        steps)
    label_len = _lengths(label_lengths, use_label_lengths,
                         [row.index(padding) if padding in row else len(row)
                          for row in labels], 'label_lengths', label.shape[1])
    shifted = data - data.max(axis=2, keepdims=True)
    logp = shifted - xp.log(xp.exp(shifted).sum(axis=2, keepdims=True))
    losses = xp.zeros(batch, dtype=data.dtype)
    grads = xp.zeros_like(data)
    for n in range(batch):
        symbols = labels[n][:label_len[n]]
        if any(not 0 <= s < channels for s in symbols):
            raise MXNetError('CTCLoss: label %s of sample %d has a symbol outside the '
                             'alphabet [0, %d)' % (symbols, n, channels))
        if data_len[n]:
            losses[n], grads[:data_len[n], n] = _sample(xp, logp[:data_len[n], n], symbols,
                                                        blank)

    def backward(out_grad):
        return ((grads * out_grad[None, :, None]).astype(data.dtype), None) + (
            None,) * (use_data_lengths + use_label_lengths)
    return losses, backward


add(Op('CTCLoss', ctc_loss, ('data', 'label', 'data_lengths', 'label_lengths'),
       aliases=('ctc_loss',), same_dtype=False, quiet=True, hidden_outputs=1,
       drop_inputs=lambda p: tuple(
           name for name, used in (('data_lengths', p['use_data_lengths']),
                                   ('label_lengths', p['use_label_lengths'])) if not used),
       params=[Bool('use_data_lengths', False, doc='Read each sequence length from '
                                                   'data_lengths (else all are T).'),
               Bool('use_label_lengths', False, doc='Read each label length from '
                                                    'label_lengths (else up to padding).'),
               Enum('blank_label', ('first', 'last'), 'first',
                    doc="The blank's channel: 0 ('first', labels padded with 0) or the "
                        "last ('last', labels padded with -1).")]))
