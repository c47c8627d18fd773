"""Loss functions (``mx.gluon.loss``).

A loss is a :class:`~gluonedu.gluon.block.HybridBlock`: call it as
``loss_fn(pred, label[, sample_weight])`` and it returns one loss value per sample, an
NDArray of shape ``(batch_size,)``. Every loss here computes, in order:

1. an element-wise loss ``ℓ`` (the formula in each class's docstring);
2. the weighting of :func:`~.base.apply_weighting`: ``ℓ · sample_weight · weight``
   (``sample_weight`` broadcasts against ``ℓ``; ``weight`` is a Python number);
3. the mean of ``ℓ`` over every axis except ``batch_axis`` (KLDivLoss: the sum).

Summing or averaging over the batch is left to the caller (``loss.backward()`` on a
vector sums it; ``Trainer.step(batch_size)`` then divides by the batch size).
"""
from .base import Loss
from .pointwise import (L2Loss, L1Loss, SigmoidBinaryCrossEntropyLoss, SigmoidBCELoss,
                        SoftmaxCrossEntropyLoss, SoftmaxCELoss, KLDivLoss, HuberLoss, HingeLoss,
                        SquaredHingeLoss, LogisticLoss, PoissonNLLLoss)
from .sequence import CTCLoss
from .embedding import CosineEmbeddingLoss, TripletLoss, SDMLLoss

__all__ = ['Loss', 'L2Loss', 'L1Loss', 'SigmoidBinaryCrossEntropyLoss', 'SigmoidBCELoss',
           'SoftmaxCrossEntropyLoss', 'SoftmaxCELoss', 'KLDivLoss', 'HuberLoss', 'HingeLoss',
           'SquaredHingeLoss', 'LogisticLoss', 'PoissonNLLLoss', 'CTCLoss',
           'CosineEmbeddingLoss', 'TripletLoss', 'SDMLLoss']
