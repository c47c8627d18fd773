"""The base class of losses, :class:`Loss`, and the steps every loss shares: the
weighting (:func:`apply_weighting`) and reshaping the prediction like the label."""
import numbers

from ...ndarray import NDArray
from ..block import HybridBlock

__all__ = ['Loss', 'apply_weighting', 'reshape_like']


def apply_weighting(F, loss, weight=None, sample_weight=None):
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


def reshape_like(F, x, y):
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
