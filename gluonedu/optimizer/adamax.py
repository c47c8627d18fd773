"""AdaMax: Adam with the infinity norm (Kingma & Ba, 2015, section 7), as MXNet 1.9.1."""
from typing import NamedTuple

import numpy as np

from .. import ndarray as nd
from .fastpath import Kernel, per_t
from .kernels import clip_constant, clipped, negative_clip_refusal
from .optimizer import Optimizer, register, accepts_lists, check_hyperparameter, state_type

__all__ = ['Adamax', 'AdamaxState']


@state_type
class AdamaxState(NamedTuple):
    """AdaMax's first moment and its decaying maximum of ``|g|``."""
    mean: object
    inf_norm: object


def adamax(weight, grad, mean, inf_norm, lr, wd, rescale, clip, beta1, beta2, one_minus_beta1):
    """AdaMax on one element: u = max(beta2*u, |g|); w -= lr/(1 - beta1**t) * m / u."""
    grad = grad * rescale + wd * weight
    if clip >= 0:
        grad = clipped(grad, clip)
    mean = beta1 * mean + one_minus_beta1 * grad
    inf_norm = np.maximum(beta2 * inf_norm, np.abs(grad))
    return weight - lr * mean / inf_norm, mean, inf_norm


ADAMAX = Kernel(adamax, writes=('weight', 'mean', 'inf_norm'), per_parameter=('lr', 'wd'))


@register
class Adamax(Optimizer):
    """The AdaMax optimizer: Adam whose second moment is a decaying maximum of ``|g|``.

    At update ``t`` (counted per index) a weight ``w`` with gradient ``g``, first moment
    ``m`` and infinity-norm estimate ``u`` is updated by::

        g = clip(rescale_grad * g + wd * w, clip_gradient)
        m = beta1 * m + (1 - beta1) * g
        u = maximum(beta2 * u, |g|)
        w = w - lr / (1 - beta1**t) * m / u

    Only ``m`` needs bias correction: a maximum is not biased towards zero. Where the
    gradient has been exactly zero so far, ``u`` is 0 and the step is 0/0 (NaN), as in
    MXNet. A row-sparse gradient is used as the dense gradient it stands for.

    Parameters
    ----------
    learning_rate : float, default 0.002
    beta1 : float, default 0.9
        Decay rate of the first moment, in [0, 1).
    beta2 : float, default 0.999
        Decay rate of the infinity norm, in [0, 1] (1 keeps the running maximum).
    **kwargs
        Passed to :class:`Optimizer` (``wd``, ``rescale_grad``, ``clip_gradient``, ...).

    Notes
    -----
    State: ``AdamaxState(mean, inf_norm)`` — ``m`` and ``u``, zeros of the weight's shape and dtype.
    """

    state_type = AdamaxState

    def __init__(self, learning_rate=0.002, beta1=0.9, beta2=0.999, **kwargs):
        check_hyperparameter('beta1', beta1, low=0, high=1, high_open=True)
        check_hyperparameter('beta2', beta2, low=0, high=1)
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2

    def create_state(self, index, weight):
        mean = nd.zeros(weight.shape, weight.context, dtype=weight.dtype)
        inf_norm = nd.zeros(weight.shape, weight.context, dtype=weight.dtype)
        return AdamaxState(mean, inf_norm)

    @accepts_lists
    def update(self, index, weight, grad, state):
        lr, wd, t = self.begin_step(index)
        lr /= (1. - self.beta1 ** t)  # bias correction of the first moment

        if grad.stype == 'row_sparse':
            grad = grad.tostype('default')
        grad = grad * self.rescale_grad + wd * weight
        if self.clip_gradient is not None:
            grad = nd.clip(grad, -self.clip_gradient, self.clip_gradient)

        mean, inf_norm = state
        mean[:] = self.beta1 * mean + (1. - self.beta1) * grad
        inf_norm[:] = nd.maximum(self.beta2 * inf_norm, nd.abs(grad))
        weight[:] = weight - lr * mean / inf_norm

    # ------------------------------------------------------------------ fast path
    def fused_refusal(self, indices, weights, grads):
        return negative_clip_refusal(self.clip_gradient) or \
            super().fused_refusal(indices, weights, grads)

    def fused_step(self, run):
        """:meth:`update` over a fused run."""
        lr, wd, t = self.begin_step(list(run.indices))
        run(ADAMAX, lr=lr / per_t(t, lambda t: 1. - self.beta1 ** t), wd=wd,
            rescale=np.float32(self.rescale_grad),
            clip=clip_constant(self.clip_gradient, kernel=False),
            beta1=np.float32(self.beta1), beta2=np.float32(self.beta2),
            one_minus_beta1=np.float32(1. - self.beta1))
