"""Adam: adaptive moment estimation (Kingma & Ba, 2015), as MXNet 1.9.1's ``adam_update``."""
import math

import numpy as np

from .. import ndarray as nd
from .optimizer import (Optimizer, ScheduledMomentum, register, accepts_lists,
                        check_hyperparameter)

__all__ = ['Adam']


@register
class Adam(Optimizer):
    """The Adam optimizer: per-coordinate steps scaled by running gradient moments.

    At update ``t`` (counted per index) a weight ``w`` with gradient ``g`` and moment
    estimates ``m`` (mean) and ``v`` (variance) is updated by::

        g    = clip(rescale_grad * g + wd * w, clip_gradient)
        m    = beta1 * m + (1 - beta1) * g
        v    = beta2 * v + (1 - beta2) * g**2
        lr_t = lr * sqrt(1 - beta2**t) / (1 - beta1**t)
        w    = w - lr_t * m / (sqrt(v) + epsilon)

    Weight decay joins the gradient *before* clipping, and the bias correction is folded
    into the step size ``lr_t`` (so ``epsilon`` is not bias-corrected), both as in MXNet.

    **Lazy updates.** When ``grad`` is row-sparse and ``lazy_update`` is True, only the
    rows listed in ``grad.indices`` are updated — their ``w``, ``m`` and ``v``; other
    rows keep their values (and their moments do not decay). With ``lazy_update=False``
    a row-sparse gradient is treated as the dense gradient it stands for.

    Parameters
    ----------
    learning_rate : float, default 0.001
    beta1 : float, default 0.9
        Decay rate of the first-moment (mean) estimate, in [0, 1). A momentum schedule
        (:class:`~gluonedu.lr_scheduler.OneCycleScheduler`) may drive it.
    beta2 : float, default 0.999
        Decay rate of the second-moment (variance) estimate, in [0, 1).
    epsilon : float, default 1e-8
        Added to ``sqrt(v)`` to avoid division by zero; must be >= 0.
    lazy_update : bool, default True
        Update only the rows present in a row-sparse gradient.
    **kwargs
        Passed to :class:`Optimizer` (``wd``, ``rescale_grad``, ``clip_gradient``, ...).

    State: ``(mean, var)``, zeros of the weight's shape and dtype (and storage type, when
    ``lazy_update`` is True).
    """

    state_names = ('mean', 'var')
    beta1 = ScheduledMomentum()

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 lazy_update=True, **kwargs):
        check_hyperparameter('beta1', beta1, low=0, high=1, high_open=True)
        check_hyperparameter('beta2', beta2, low=0, high=1, high_open=True)
        check_hyperparameter('epsilon', epsilon, low=0)
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon
        self.lazy_update = lazy_update

    def create_state(self, index, weight):
        stype = weight.stype if self.lazy_update else 'default'
        mean = nd.zeros(weight.shape, weight.context, dtype=weight.dtype, stype=stype)
        var = nd.zeros(weight.shape, weight.context, dtype=weight.dtype, stype=stype)
        return (mean, var)

    @accepts_lists
    def update(self, index, weight, grad, state):
        self._update_count(index)
        lr = self._get_lr(index)
        wd = self._get_wd(index)
        t = self._index_update_count[index]
        lr *= math.sqrt(1. - self.beta2 ** t) / (1. - self.beta1 ** t)

        mean, var = state
        if grad.stype == 'row_sparse' and self.lazy_update:
            # Work on copies of the touched rows, then write them back.
            rows = grad.indices
            weight_rows, mean_rows, var_rows = weight[rows], mean[rows], var[rows]
            self._adam_step(weight_rows, grad.data, mean_rows, var_rows, lr, wd)
            mean[rows] = mean_rows
            var[rows] = var_rows
            weight[rows] = weight_rows
        else:
            if grad.stype == 'row_sparse':
                grad = grad.tostype('default')
            self._adam_step(weight, grad, mean, var, lr, wd)

    def _adam_step(self, weight, grad, mean, var, lr, wd):
        """One Adam step on dense arrays, written in place (``lr`` already bias-corrected)."""
        grad = grad * self.rescale_grad + wd * weight
        # MXNet's kernel clips only for a positive bound (0 or negative means "off").
        if self.clip_gradient is not None and self.clip_gradient > 0:
            grad = nd.clip(grad, -self.clip_gradient, self.clip_gradient)
        # The kernel rounds beta to the weight's dtype and forms 1 - beta in that dtype;
        # so do we (in float32 this differs from Python's 1 - beta by up to ~1e-5 relative).
        scalar = np.dtype(weight.dtype).type
        one_minus_beta1 = 1 - scalar(self.beta1)
        one_minus_beta2 = 1 - scalar(self.beta2)
        mean[:] = self.beta1 * mean + one_minus_beta1 * grad
        var[:] = self.beta2 * var + one_minus_beta2 * grad * grad
        weight[:] = weight - lr * mean / (nd.sqrt(var) + self.epsilon)
