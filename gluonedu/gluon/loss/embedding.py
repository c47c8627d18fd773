"""Losses that compare embeddings: CosineEmbeddingLoss, TripletLoss, SDMLLoss."""
from .base import Loss, apply_weighting, reshape_like
from .pointwise import KLDivLoss

__all__ = ['CosineEmbeddingLoss', 'TripletLoss', 'SDMLLoss']


class CosineEmbeddingLoss(Loss):
    """Pull pairs labelled 1 together, push pairs labelled -1 apart, by cosine similarity.

    With ``cos = x1·x2 / max(‖x1‖‖x2‖, 1e-12)`` along the last axis::

        ℓ = 1 − cos                  if label == 1
        ℓ = max(0, cos − margin)     if label == −1

    Inputs: ``input1`` (reshaped like ``input2``), ``input2`` of shape ``(batch, dim)``,
    ``label`` of ``batch`` values in {−1, 1}, optional ``sample_weight``. Output: shape
    ``(batch, 1)``, as MXNet's.

    Parameters
    ----------
    weight : float or None, default None
    batch_axis : int, default 0
    margin : float, default 0
    """

    def __init__(self, weight=None, batch_axis=0, margin=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, input1, input2, label, sample_weight=None):
        input1 = reshape_like(F, input1, input2)
        label = label.reshape((-1, 1))
        cos = _cosine_similarity(F, input1, input2)
        loss = (1 - cos) * (label == 1) + F.relu((label == -1) * (cos - self._margin))
        return apply_weighting(F, loss, self._weight, sample_weight)


def _cosine_similarity(F, x, y):
    """``x·y / max(‖x‖‖y‖, 1e-12)`` along the last axis, shape ``(batch, 1)``."""
    norms = F.norm(x, axis=-1).reshape((-1, 1)) * F.norm(y, axis=-1).reshape((-1, 1))
    return F.sum(x * y, axis=-1).reshape((-1, 1)) / F.maximum(norms, 1e-12)


class TripletLoss(Loss):
    """Make ``pred`` closer to ``positive`` than to ``negative`` by at least ``margin``::

        ℓ = max(0, Σ (positive − pred)² − Σ (negative − pred)² + margin)

    the sums over every axis but ``batch_axis``.

    Inputs: ``pred``, ``positive``, ``negative`` (both reshaped like ``pred``). Output:
    shape ``(batch,)``.

    Parameters
    ----------
    margin : float, default 1
    weight : float or None, default None
    batch_axis : int, default 0
    """

    def __init__(self, margin=1, weight=None, batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self._margin = margin

    def hybrid_forward(self, F, pred, positive, negative):
        positive = reshape_like(F, positive, pred)
        negative = reshape_like(F, negative, pred)
        gap = F.sum(F.square(positive - pred) - F.square(negative - pred),
                    axis=self._batch_axis, exclude=True)
        return apply_weighting(F, F.relu(gap + self._margin), self._weight, None)


class SDMLLoss(Loss):
    """Smoothed deep metric learning loss (Bonadiman et al., 2019) for aligned batches.

    Row ``i`` of ``x1`` should be nearest to row ``i`` of ``x2``. With the squared
    distances ``d[i, j] = ‖x1[i] − x2[j]‖²``, the loss is the KL divergence
    (:class:`KLDivLoss`) from ``log_softmax(−d, axis=1)`` to the smoothed identity: ``1 −
    smoothing_parameter`` on the diagonal, ``smoothing_parameter / (batch − 1)`` elsewhere
    (Pereyra et al., 2017).

    Inputs: ``x1``, ``x2`` of one shape ``(batch, dim)``. Output: shape ``(batch,)``.

    Parameters
    ----------
    smoothing_parameter : float, default 0.3
    weight : float, default 1.
        Kept as MXNet's; MXNet 1.9.1 does not apply it, nor does gluonedu.
    batch_axis : int, default 0
    """

    def __init__(self, smoothing_parameter=0.3, weight=1., batch_axis=0, **kwargs):
        super().__init__(weight, batch_axis, **kwargs)
        self.kl_loss = KLDivLoss(from_logits=True)
        self.smoothing_parameter = smoothing_parameter

    def hybrid_forward(self, F, x1, x2):
        if x1.shape != x2.shape or len(x1.shape) != 2:
            raise AssertionError('SDMLLoss takes two batches of one shape (batch, dim); got '
                                 '%s and %s' % (x1.shape, x2.shape))
        batch_size = x1.shape[0]
        distances = F.sum(F.square(x1.expand_dims(1) - x2.expand_dims(0)), axis=2)
        gold = F.eye(batch_size, ctx=x1.context)
        smooth = self.smoothing_parameter
        labels = gold * (1 - smooth) + (1 - gold) * smooth / (batch_size - 1)
        return self.kl_loss(F.log_softmax(-distances, axis=1), labels)
