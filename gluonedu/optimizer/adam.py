"""Adam: adaptive moment estimation (Kingma & Ba, 2015), as MXNet 1.9.1's ``adam_update``."""
import math
from typing import NamedTuple

import numpy as np

from .. import ndarray as nd
from .fastpath import Kernel, per_t
from .kernels import clip_constant, clipped, kernel_clip, lazy_rows
from .optimizer import (Optimizer, ScheduledMomentum, register, accepts_lists,
                        check_hyperparameter, state_type)

__all__ = ['Adam', 'AdamState']


@state_type
class AdamState(NamedTuple):
    """Adam's running estimates of the gradient's first and second moments."""
    mean: object
    var: object


def adam(weight, grad, mean, var, lr, wd, rescale, clip, beta1, beta2, one_minus_beta1,
         one_minus_beta2, epsilon):
    """Adam (``adam_update``) on one element, ``lr`` already bias-corrected."""
    grad = grad * rescale + wd * weight
    if clip > 0:
        grad = clipped(grad, clip)
    mean = beta1 * mean + one_minus_beta1 * grad
    var = beta2 * var + one_minus_beta2 * grad * grad
    return weight - lr * mean / (np.sqrt(var) + epsilon), mean, var


ADAM = Kernel(adam, writes=('weight', 'mean', 'var'), per_parameter=('lr', 'wd'))


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

    Notes
    -----
    State: ``AdamState(mean, var)``, zeros of the weight's shape and dtype (and storage type, when
    ``lazy_update`` is True).
    """

    state_type = AdamState
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
        return AdamState(mean, var)

    @accepts_lists
    def update(self, index, weight, grad, state):
        lr, wd, t = self.begin_step(index)
        lr *= math.sqrt(1. - self.beta2 ** t) / (1. - self.beta1 ** t)

        mean, var = state
        if grad.stype == 'row_sparse' and self.lazy_update:
            lazy_rows(lambda w, m, v, g: self._adam_step(w, g, m, v, lr, wd),
                      grad, weight, mean, var)
        else:
            if grad.stype == 'row_sparse':
                grad = grad.tostype('default')
            self._adam_step(weight, grad, mean, var, lr, wd)

    def _adam_step(self, weight, grad, mean, var, lr, wd):
        """One Adam step on dense arrays, written in place (``lr`` already bias-corrected)."""
        grad = grad * self.rescale_grad + wd * weight
        clip = kernel_clip(self.clip_gradient)
        if clip is not None:
            grad = nd.clip(grad, -clip, clip)
        # The kernel rounds beta to the weight's dtype and forms 1 - beta in that dtype;
        # so do we (in float32 this differs from Python's 1 - beta by up to ~1e-5 relative).
        scalar = np.dtype(weight.dtype).type
        one_minus_beta1 = 1 - scalar(self.beta1)
        one_minus_beta2 = 1 - scalar(self.beta2)
        mean[:] = self.beta1 * mean + one_minus_beta1 * grad
        var[:] = self.beta2 * var + one_minus_beta2 * grad * grad
        weight[:] = weight - lr * mean / (nd.sqrt(var) + self.epsilon)

    # ------------------------------------------------------------------ fast path
    def fused_refusal(self, indices, weights, grads):
        if not self.lazy_update and any(g.stype == 'row_sparse' for g in grads):
            return 'lazy_update=False (a row_sparse gradient then counts as dense)'
        return None

    def fused_step(self, run):
        """:meth:`update` over a fused run (row_sparse gradients: only their rows)."""
        lr, wd, t = self.begin_step(list(run.indices))
        correction = per_t(t, lambda t: math.sqrt(1. - self.beta2 ** t) / (1. - self.beta1 ** t))
        beta1, beta2 = np.float32(self.beta1), np.float32(self.beta2)
        run(ADAM, lr=lr * correction, wd=wd, rescale=np.float32(self.rescale_grad),
            clip=clip_constant(self.clip_gradient), beta1=beta1, beta2=beta2,
            one_minus_beta1=1 - beta1, one_minus_beta2=1 - beta2,
            epsilon=np.float32(self.epsilon))
