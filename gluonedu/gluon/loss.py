"""Loss functions (``mx.gluon.loss``).

A loss is a :class:`~gluonedu.gluon.block.HybridBlock`: call it as
``loss_fn(pred, label[, sample_weight])`` and it returns one loss value per sample, an
NDArray of shape ``(batch_size,)``. Every loss here computes, in order:

1. an element-wise loss ``ℓ`` (the formula in each class's docstring);
2. the weighting of :func:`_apply_weighting`: ``ℓ · sample_weight · weight``
   (``sample_weight`` broadcasts against ``ℓ``; ``weight`` is a Python number);
3. the mean of ``ℓ`` over every axis except ``batch_axis`` (KLDivLoss: the sum).

Summing or averaging over the batch is left to the caller (``loss.backward()`` on a
vector sums it; ``Trainer.step(batch_size)`` then divides by the batch size).
"""
import math
import numbers

from ..ndarray import NDArray
from .block import HybridBlock

__all__ = ['Loss', 'L2Loss', 'L1Loss', 'SigmoidBinaryCrossEntropyLoss', 'SigmoidBCELoss',
           'SoftmaxCrossEntropyLoss', 'SoftmaxCELoss', 'KLDivLoss', 'HuberLoss', 'HingeLoss',
           'SquaredHingeLoss', 'LogisticLoss', 'PoissonNLLLoss', 'CTCLoss',
           'CosineEmbeddingLoss', 'TripletLoss', 'SDMLLoss']


def _apply_weighting(F, loss, weight=None, sample_weight=None):
    """``loss · sample_weight · weight``, skipping whichever is None.

    ``sample_weight`` is an array broadcastable to ``loss``'s shape, e.g. shape
    ``(batch, 1)`` to weigh each sample of a ``(batch, k)`` loss. ``weight`` is one
    number scaling the whole loss.
    """
    if sample_weight is not None:
        loss = F.broadcast_mul(loss, sample_weight)
    if weight is not None:
        if not isinstance(weight, numbers.Number):
            raise AssertionError("weight must be a Python number, got %s; pass per-sample "
                                 "weights as the sample_weight input instead"
                                 % type(weight).__name__)
        loss = loss * weight
    return loss


def _reshape_like(F, x, y):
    """``x`` reshaped to ``y``'s shape (they must have the same number of elements)."""
    if isinstance(y, NDArray):
        return x.reshape(y.shape)
    return F.reshape_like(x, y)  # a symbol's shape is known only when it is bound


class Loss(HybridBlock):
    """Base class of losses.

    Parameters
    ----------
    weight : float or None
        A number multiplying the loss (None: no scaling).
    batch_axis : int
        The axis of the batch; the result keeps only this axis.

    Notes
    -----
    Subclasses implement ``hybrid_forward(F, pred, label, ...)``.
    """

    def __init__(self, weight, batch_axis, **kwargs):
        super().__init__(**kwargs)
        self._weight = weight
        self._batch_axis = batch_axis

    def __repr__(self):
        return '%s(batch_axis=%s, w=%s)' % (type(self).__name__, self._batch_axis,
                                            self._weight)

    def hybrid_forward(self, F, x, *args, **kwargs):
        """Compute the per-sample loss; every subclass overrides this."""
        raise NotImplementedError("%s must implement hybrid_forward(F, pred, label, ...)"
                                  % type(self).__name__)

    def _batch_mean(self, F, loss):
        """The mean of ``loss`` over every axis except ``batch_axis``."""
        return F.mean(loss, axis=self._batch_axis, exclude=True)


class L2Loss(Loss):
    """Half the squared error: ``ℓ = weight/2 · (label − pred)²``.

    ``label`` is reshaped to ``pred``'s shape (same number of elements required).
    Note the default ``weight=1.``: the ½ is part of the formula, so the gradient of the
    per-sample sum is ``pred − label``.

    Parameters
    ----------
    weight : float, default 1.
    batch_axis : int, default 0

    Notes
    -----
    Inputs: ``pred``, ``label``, optional ``sample_weight``. Output: shape ``(batch,)``.
    """

    def __init__(self, weight=1., batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        loss = F.square(label - pred)
        loss = _apply_weighting(F, loss, self._weight / 2, sample_weight)
        return self._batch_mean(F, loss)


class L1Loss(Loss):
    """Absolute error: ``ℓ = |label − pred|``, times ``weight`` if given.

    Parameters
    ----------
    weight : float or None, default None
    batch_axis : int, default 0

    Notes
    -----
    Inputs: ``pred``, ``label`` (reshaped like ``pred``), optional ``sample_weight``.
    Output: shape ``(batch,)``.
    """

    def __init__(self, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        loss = F.abs(label - pred)
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return self._batch_mean(F, loss)


class SigmoidBinaryCrossEntropyLoss(Loss):
    """Binary cross-entropy of a sigmoid output, for labels ``z ∈ [0, 1]``.

    With ``p = sigmoid(x)`` and an optional positive-class weight ``w⁺``:

    .. math::  ℓ = −\\,[\\,w⁺ · z · \\log p + (1 − z) · \\log(1 − p)\\,]

    ``from_sigmoid=False`` (default): ``pred`` holds logits ``x`` and the loss is
    computed without forming ``p``, so it never takes the log of 0:

    * without ``pos_weight``: ``ℓ = relu(x) − x·z + softrelu(−|x|)``,
      where ``softrelu(t) = log(1 + eᵗ)``;
    * with ``pos_weight``: ``ℓ = x − x·z + (1 + (w⁺ − 1)·z) · (softrelu(−|x|) + relu(−x))``.

    ``from_sigmoid=True``: ``pred`` holds probabilities ``p`` and
    ``ℓ = −[w⁺·z·log(p + ε) + (1 − z)·log(1 − p + ε)]`` with ``ε = 1e-12``.

    Parameters
    ----------
    from_sigmoid : bool, default False
        Whether ``pred`` is already a probability (the sigmoid's output).
    weight : float or None, default None
    batch_axis : int, default 0

    Notes
    -----
    Inputs: ``pred``, ``label`` (reshaped like ``pred``), optional ``sample_weight``, optional
    ``pos_weight`` (an array broadcastable to ``pred``, e.g. shape ``(1, classes)``).
    Output: shape ``(batch,)``.
    """

    def __init__(self, from_sigmoid=False, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._from_sigmoid = from_sigmoid

    def hybrid_forward(self, F, pred, label, sample_weight=None, pos_weight=None):
        label = _reshape_like(F, label, pred)
        if not self._from_sigmoid:
            log1p_exp_neg_abs = F.Activation(-F.abs(pred), act_type='softrelu')
            if pos_weight is None:
                loss = F.relu(pred) - pred * label + log1p_exp_neg_abs
            else:
                # softrelu(−|x|) + relu(−x) = log(1 + e⁻ˣ), computed stably.
                log_weight = 1 + F.broadcast_mul(pos_weight - 1, label)
                loss = pred - pred * label + log_weight * (log1p_exp_neg_abs + F.relu(-pred))
        else:
            eps = 1e-12
            positive = F.log(pred + eps) * label
            if pos_weight is not None:
                positive = F.broadcast_mul(positive, pos_weight)
            loss = -(positive + F.log(1. - pred + eps) * (1. - label))
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return self._batch_mean(F, loss)


SigmoidBCELoss = SigmoidBinaryCrossEntropyLoss


class SoftmaxCrossEntropyLoss(Loss):
    """Cross-entropy of a softmax over ``axis``.

    With ``log p = log_softmax(pred, axis)`` (or ``pred`` itself if ``from_logits``):

    * ``sparse_label=True`` (default): ``label`` holds class indices and has ``pred``'s
      shape without ``axis``; ``ℓ = −log p[label]`` (picked along ``axis``);
    * ``sparse_label=False``: ``label`` is a distribution of ``pred``'s shape;
      ``ℓ = −Σ_axis label · log p``.

    The summed/picked axis is kept (size 1) before weighting, so a ``sample_weight`` of
    shape ``(batch, 1)`` weighs each sample of a ``(batch, classes)`` prediction.

    Parameters
    ----------
    axis : int, default -1
        The class axis.
    sparse_label : bool, default True
        Whether ``label`` holds class indices rather than probabilities.
    from_logits : bool, default False
        Whether ``pred`` already holds log-probabilities (e.g. from ``log_softmax``);
        then no softmax is applied. (The name is MXNet's: "logits" means log-probabilities.)
    weight : float or None, default None
    batch_axis : int, default 0

    Notes
    -----
    Output: shape ``(batch,)``.
    """

    def __init__(self, axis=-1, sparse_label=True, from_logits=False, weight=None,
                 batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._axis = axis
        self._sparse_label = sparse_label
        self._from_logits = from_logits

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        log_prob = pred if self._from_logits else F.log_softmax(pred, axis=self._axis)
        if self._sparse_label:
            loss = -F.pick(log_prob, label, axis=self._axis, keepdims=True)
        else:
            label = _reshape_like(F, label, log_prob)
            loss = -F.sum(log_prob * label, axis=self._axis, keepdims=True)
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return self._batch_mean(F, loss)


SoftmaxCELoss = SoftmaxCrossEntropyLoss


class KLDivLoss(Loss):
    """Kullback-Leibler divergence ``ℓ = label · (log(label + 1e-12) − log p)``.

    ``log p`` is ``pred`` itself when ``from_logits=True`` (the default: ``pred`` holds
    log-probabilities), else ``log_softmax(pred, axis)``. Unlike the other losses, and as
    MXNet 1.9.1, the per-sample result is the **sum** (not the mean) over the non-batch
    axes: the textbook KL divergence of each sample.

    Parameters
    ----------
    from_logits : bool, default True
    axis : int, default -1
        The axis of the softmax (used only when ``from_logits=False``).
    weight : float or None, default None
    batch_axis : int, default 0
    """

    def __init__(self, from_logits=True, axis=-1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._from_logits = from_logits
        self._axis = axis

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        log_prob = pred if self._from_logits else F.log_softmax(pred, axis=self._axis)
        loss = label * (F.log(label + 1e-12) - log_prob)
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return F.sum(loss, axis=self._batch_axis, exclude=True)


class HuberLoss(Loss):
    """Smooth L1: with ``d = |label − pred|``, ``ℓ = d − ρ/2`` if ``d > ρ`` else ``d²/(2ρ)``.

    Parameters
    ----------
    rho : float, default 1
        Where the quadratic part turns linear.
    weight : float or None, default None
    batch_axis : int, default 0
    """

    def __init__(self, rho=1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._rho = rho

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        dist = F.abs(label - pred)
        loss = F.where(dist > self._rho, dist - 0.5 * self._rho,
                       (0.5 / self._rho) * F.square(dist))
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return self._batch_mean(F, loss)


class HingeLoss(Loss):
    """SVM hinge loss ``ℓ = max(0, margin − pred · label)`` for labels in {−1, 1}.

    Parameters
    ----------
    margin : float, default 1
    weight : float or None, default None
    batch_axis : int, default 0
    """
    _squared = False

    def __init__(self, margin=1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        loss = F.relu(self._margin - pred * label)
        if self._squared:
            loss = F.square(loss)
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return self._batch_mean(F, loss)


class SquaredHingeLoss(HingeLoss):
    """Squared hinge loss ``ℓ = max(0, margin − pred · label)²`` for labels in {−1, 1}.

    Parameters
    ----------
    margin : float, default 1
    weight : float or None, default None
    batch_axis : int, default 0
    """
    _squared = True


class LogisticLoss(Loss):
    """Logistic loss ``ℓ = log(1 + exp(−pred · y))`` for labels ``y ∈ {−1, 1}``.

    Computed stably as ``relu(x) − x·z + softrelu(−|x|)`` with ``z = (y + 1)/2``.
    With ``label_format='binary'`` the labels are already ``z ∈ {0, 1}``.

    Parameters
    ----------
    weight : float or None, default None
    batch_axis : int, default 0
    label_format : {'signed', 'binary'}, default 'signed'
    """

    def __init__(self, weight=None, batch_axis=0, label_format='signed', **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        if label_format not in ('signed', 'binary'):
            raise ValueError("label_format must be 'signed' (labels -1/1) or 'binary' "
                             "(labels 0/1), got %r" % (label_format,))
        self._label_format = label_format

    def hybrid_forward(self, F, pred, label, sample_weight=None):
        label = _reshape_like(F, label, pred)
        if self._label_format == 'signed':
            label = (label + 1.0) / 2.0
        loss = (F.relu(pred) - pred * label
                + F.Activation(-F.abs(pred), act_type='softrelu'))
        loss = _apply_weighting(F, loss, self._weight, sample_weight)
        return self._batch_mean(F, loss)


class PoissonNLLLoss(Loss):
    """Negative log-likelihood of counts ``target`` under a Poisson of rate ``pred``::

        ℓ = exp(pred) − target · pred                 (from_logits: pred is log λ)
        ℓ = pred − target · log(pred + epsilon)       (otherwise: pred is λ)

    plus, with ``compute_full``, Stirling's term ``t·log t − t + ½·log(2πt)`` where the
    target ``t > 1``. Unlike the other losses the result is the mean over *every*
    element, an array of shape ``(1,)``, as MXNet's.

    Parameters
    ----------
    weight : float or None, default None
    from_logits : bool, default True
    batch_axis : int, default 0
    compute_full : bool, default False

    Notes
    -----
    Inputs: ``pred``, ``target`` (reshaped like ``pred``), optional ``sample_weight``,
    ``epsilon`` (default 1e-08).
    """

    def __init__(self, weight=None, from_logits=True, batch_axis=0, compute_full=False,
                 **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._from_logits = from_logits
        self._compute_full = compute_full

    def hybrid_forward(self, F, pred, target, sample_weight=None, epsilon=1e-08):
        target = _reshape_like(F, target, pred)
        if self._from_logits:
            loss = F.exp(pred) - target * pred
        else:
            loss = pred - target * F.log(pred + epsilon)
        if self._compute_full:
            stirling = target * F.log(target) - target + 0.5 * F.log(2 * target * math.pi)
            loss = loss + stirling * (target > 1)
        return F.mean(_apply_weighting(F, loss, self._weight, sample_weight))


class CTCLoss(Loss):
    """Connectionist temporal classification loss (Graves et al., 2006), through the
    ``CTCLoss`` operator with the blank as the *last* class.

    ``pred`` holds unnormalised scores over ``alphabet + 1`` classes; ``label`` holds
    class indices in ``[0, alphabet)``, padded with -1 (or cut by ``label_lengths``).
    The loss of each sequence is ``−log p(label | pred)`` summed over all alignments.

    Parameters
    ----------
    layout : {'NTC', 'TNC'}, default 'NTC'
        The axes of ``pred``: batch, time, classes.
    label_layout : {'NT', 'TN'}, default 'NT'
        The axes of ``label``.
    weight : float or None, default None

    Notes
    -----
    Inputs: ``pred``, ``label``, optional ``pred_lengths`` and ``label_lengths`` (one per
    sequence), ``sample_weight``. Output: shape ``(batch,)``.
    """

    def __init__(self, layout='NTC', label_layout='NT', weight=None, **kwargs):
        if layout not in ('NTC', 'TNC'):
            raise AssertionError("CTCLoss: layout must be 'NTC' or 'TNC', got %r" % (layout,))
        if label_layout not in ('NT', 'TN'):
            raise AssertionError("CTCLoss: label_layout must be 'NT' or 'TN', got %r"
                                 % (label_layout,))
        self._layout = layout
        self._label_layout = label_layout
        super().__init__(weight, label_layout.find('N'), **kwargs)

    def hybrid_forward(self, F, pred, label, pred_lengths=None, label_lengths=None,
                       sample_weight=None):
        if self._layout == 'NTC':
            pred = F.swapaxes(pred, 0, 1)
        if self._batch_axis == 1:
            label = F.swapaxes(label, 0, 1)
        loss = F.CTCLoss(pred, label, pred_lengths, label_lengths,
                         use_data_lengths=pred_lengths is not None,
                         use_label_lengths=label_lengths is not None, blank_label='last')
        return _apply_weighting(F, loss, self._weight, sample_weight)


from .loss_embedding import CosineEmbeddingLoss, TripletLoss, SDMLLoss  # noqa: E402,F401
