"""AdaGrad: steps scaled by the accumulated squared gradients (Duchi et al., 2011)."""
from typing import NamedTuple

from .. import ndarray as nd
from .kernels import kernel_clip, lazy_rows
from .optimizer import Optimizer, register, accepts_lists, check_hyperparameter, state_type

__all__ = ['AdaGrad', 'AdaGradState']


@state_type
class AdaGradState(NamedTuple):
    """AdaGrad's state: the sum of squared gradients (a bare array, as MXNet's)."""
    history: object


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
