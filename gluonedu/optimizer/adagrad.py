"""AdaGrad: steps scaled by the accumulated squared gradients (Duchi et al., 2011)."""
from typing import NamedTuple

import numpy as np

from .. import ndarray as nd
from .fastpath import Kernel
from .kernels import (clip_constant, clipped, kernel_clip, lazy_rows,
                      negative_clip_refusal)
from .optimizer import Optimizer, register, accepts_lists, check_hyperparameter, state_type

__all__ = ['AdaGrad', 'AdaGradState']


@state_type
class AdaGradState(NamedTuple):
    """AdaGrad's state: the sum of squared gradients (a bare array, as MXNet's)."""
    history: object


def adagrad(weight, grad, history, neg_lr, wd, rescale, clip, epsilon):
    """AdaGrad on one element: history += g*g; w += (g / sqrt(history + eps) + w*wd) * -lr."""
    grad = grad * rescale
    if clip >= 0:
        grad = clipped(grad, clip)
    history = history + grad * grad
    return weight + (grad / np.sqrt(history + epsilon) + weight * wd) * neg_lr, history


def sparse_adagrad(weight, grad, history, lr, rescale, clip, epsilon):
    """AdaGrad on one element of a row_sparse gradient's rows (``sparse.adagrad_update``):
    no weight decay, clipping only for a positive bound; its own order of operations."""
    grad = grad * rescale
    if clip > 0:
        grad = clipped(grad, clip)
    history = history + grad * grad
    return weight - grad / np.sqrt(history + epsilon) * lr, history


ADAGRAD = Kernel(adagrad, writes=('weight', 'history'), per_parameter=('neg_lr', 'wd'))
SPARSE_ADAGRAD = Kernel(sparse_adagrad, writes=('weight', 'history'), per_parameter=('lr',))


@register
class AdaGrad(Optimizer):
    """The AdaGrad optimizer: each coordinate's step shrinks as its gradients add up.

    A weight ``w`` with gradient ``g`` and accumulated squares ``history`` is updated by::

        g       = clip(rescale_grad * g, clip_gradient)
        history = history + g**2
        w       = w - lr * (g / sqrt(history + eps) + wd * w)

    Weight decay is added to the step, not to the gradient, so it does not enter
    ``history``.

    **Row-sparse gradients** take MXNet's ``sparse.adagrad_update`` path: only the rows
    in ``grad.indices`` (of ``w`` and ``history``) are updated, as
    ``w[row] = w[row] - lr * g[row] / sqrt(history[row] + eps)``. That path has no
    weight decay: as MXNet, a non-zero ``wd`` with a row-sparse gradient is an error.
    It also clips only for a positive ``clip_gradient`` (MXNet's kernel convention).

    Parameters
    ----------
    eps : float, default 1e-7
        Added to ``history`` under the square root; must be >= 0. Stored as
        ``float_stable_eps``, MXNet's attribute name.
    **kwargs
        Passed to :class:`Optimizer` (``learning_rate``, ``wd``, ``clip_gradient``, ...).

    Notes
    -----
    State: ``history``, float32 zeros of the weight's shape and storage type.
    """

    state_type = AdaGradState

    def __init__(self, eps=1e-7, **kwargs):
        check_hyperparameter('eps', eps, low=0)
        super().__init__(**kwargs)
        self.float_stable_eps = eps

    def create_state(self, index, weight):
        # As MXNet: the history has the default dtype (float32), whatever the weight's.
        return nd.zeros(weight.shape, weight.context, stype=weight.stype)

    @accepts_lists
    def update(self, index, weight, grad, state):
        lr, wd, _ = self.begin_step(index)
        history = state

        if grad.stype == 'row_sparse':
            self._update_rows(weight, grad, history, lr, wd)
            return
        grad = grad * self.rescale_grad
        if self.clip_gradient is not None:
            grad = nd.clip(grad, -self.clip_gradient, self.clip_gradient)
        history[:] = history + nd.square(grad)
        scaled_grad = grad / nd.sqrt(history + self.float_stable_eps)
        weight[:] = weight + (scaled_grad + weight * wd) * -lr

    def _update_rows(self, weight, grad, history, lr, wd):
        """The lazy update of the rows present in a row-sparse ``grad``."""
        if wd != 0:
            raise ValueError("AdaGrad: weight decay (wd=%r) is not supported with row_sparse "
                             "gradients (neither is it in MXNet); set wd=0, or give this "
                             "parameter wd_mult=0, or use dense gradients" % (wd,))
        clip = kernel_clip(self.clip_gradient)

        def update_rows(weight_rows, history_rows, grad_rows):
            grad_rows = grad_rows * self.rescale_grad
            if clip is not None:
                grad_rows = nd.clip(grad_rows, -clip, clip)
            history_rows[:] = history_rows + grad_rows * grad_rows
            weight_rows[:] = weight_rows - grad_rows / nd.sqrt(
                history_rows + self.float_stable_eps) * lr
        lazy_rows(update_rows, grad, weight, history)

    # ------------------------------------------------------------------ fast path
    def fused_refusal(self, indices, weights, grads):
        why = negative_clip_refusal(self.clip_gradient)
        sparse = [i for i, g in zip(indices, grads) if g.stype == 'row_sparse']
        if why is None and any(wd != 0 for wd in self._get_wds(sparse)):
            why = 'AdaGrad with weight decay on a row_sparse gradient (the reference raises)'
        return why

    def fused_step(self, run):
        """:meth:`update` over a fused run (row_sparse gradients: only their rows, by
        the sparse kernel)."""
        lr, wd, _ = self.begin_step(list(run.indices))
        rescale, epsilon = np.float32(self.rescale_grad), np.float32(self.float_stable_eps)
        run(ADAGRAD, where=~run.sparse, neg_lr=-lr, wd=wd, rescale=rescale,
            clip=clip_constant(self.clip_gradient, kernel=False), epsilon=epsilon)
        run(SPARSE_ADAGRAD, where=run.sparse, lr=lr, rescale=rescale,
            clip=clip_constant(self.clip_gradient), epsilon=epsilon)
