"""Losses computed element by element and then averaged over each sample: regression
(L2, L1, Huber, Poisson), classification (cross-entropies, hinges, logistic) and KL
divergence."""
import math

from .base import Loss, apply_weighting, reshape_like

__all__ = ['L2Loss', 'L1Loss', 'SigmoidBinaryCrossEntropyLoss', 'SigmoidBCELoss',
           'SoftmaxCrossEntropyLoss', 'SoftmaxCELoss', 'KLDivLoss', 'HuberLoss', 'HingeLoss',
           'SquaredHingeLoss', 'LogisticLoss', 'PoissonNLLLoss']


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
        label = reshape_like(F, label, pred)
        loss = F.square(label - pred)
        loss = apply_weighting(F, loss, self._weight / 2, sample_weight)
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
        label = reshape_like(F, label, pred)
        loss = F.abs(label - pred)
        loss = apply_weighting(F, loss, self._weight, sample_weight)
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
        label = reshape_like(F, label, pred)
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
        loss = apply_weighting(F, loss, self._weight, sample_weight)
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
            label = reshape_like(F, label, log_prob)
            loss = -F.sum(log_prob * label, axis=self._axis, keepdims=True)
        loss = apply_weighting(F, loss, self._weight, sample_weight)
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
        loss = apply_weighting(F, loss, self._weight, sample_weight)
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
        label = reshape_like(F, label, pred)
        dist = F.abs(label - pred)
        loss = F.where(dist > self._rho, dist - 0.5 * self._rho,
                       (0.5 / self._rho) * F.square(dist))
        loss = apply_weighting(F, loss, self._weight, sample_weight)
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
        label = reshape_like(F, label, pred)
        loss = F.relu(self._margin - pred * label)
        if self._squared:
            loss = F.square(loss)
        loss = apply_weighting(F, loss, self._weight, sample_weight)
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
        label = reshape_like(F, label, pred)
        if self._label_format == 'signed':
            label = (label + 1.0) / 2.0
        loss = (F.relu(pred) - pred * label
                + F.Activation(-F.abs(pred), act_type='softrelu'))
        loss = apply_weighting(F, loss, self._weight, sample_weight)
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
        target = reshape_like(F, target, pred)
        if self._from_logits:
            loss = F.exp(pred) - target * pred
        else:
            loss = pred - target * F.log(pred + epsilon)
        if self._compute_full:
            stirling = target * F.log(target) - target + 0.5 * F.log(2 * target * math.pi)
            loss = loss + stirling * (target > 1)
        return F.mean(apply_weighting(F, loss, self._weight, sample_weight))
