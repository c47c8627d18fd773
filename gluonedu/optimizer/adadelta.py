"""AdaDelta: a step size from running averages of squared gradients and steps (Zeiler, 2012)."""
from typing import NamedTuple

import numpy as np

from .. import ndarray as nd
from .fastpath import Kernel
from .kernels import clip_constant, clipped, negative_clip_refusal
from .optimizer import Optimizer, register, accepts_lists, check_hyperparameter, state_type

__all__ = ['AdaDelta', 'AdaDeltaState']


@state_type
class AdaDeltaState(NamedTuple):
    """AdaDelta's running averages of squared gradients and of squared steps."""
    acc_grad: object
    acc_delta: object


def adadelta(weight, grad, acc_grad, acc_delta, wd, rescale, clip, rho, one_minus_rho, epsilon):
    """AdaDelta on one element: no learning rate; the step's units come from past steps."""
    grad = grad * rescale
    if clip >= 0:
        grad = clipped(grad, clip)
    acc_grad = rho * acc_grad + one_minus_rho * grad * grad
    delta = np.sqrt(acc_delta + epsilon) / np.sqrt(acc_grad + epsilon) * grad
    acc_delta = rho * acc_delta + one_minus_rho * delta * delta
    return weight - (delta + wd * weight), acc_grad, acc_delta


ADADELTA = Kernel(adadelta, writes=('weight', 'acc_grad', 'acc_delta'), per_parameter=('wd',))


@register
class AdaDelta(Optimizer):
    """The AdaDelta optimizer: no learning rate; the units of the step come from past steps.

    A weight ``w`` with gradient ``g``, running average of squared gradients ``acc_g``
    and of squared steps ``acc_delta`` is updated by::

        g         = clip(rescale_grad * g, clip_gradient)
        acc_g     = rho * acc_g + (1 - rho) * g**2
        delta     = sqrt(acc_delta + epsilon) / sqrt(acc_g + epsilon) * g
        acc_delta = rho * acc_delta + (1 - rho) * delta**2
        w         = w - (delta + wd * w)

    As in MXNet, the learning rate (and so any lr_scheduler or lr_mult) is not used, and
    weight decay is subtracted unscaled. MXNet also scales the caller's gradient array in
    place by ``rescale_grad``; we leave the gradient untouched (docs/divergences.md).
    A row-sparse gradient is used as the dense gradient it stands for.

    Parameters
    ----------
    rho : float, default 0.9
        Decay rate of both running averages, in [0, 1].
    epsilon : float, default 1e-5
        Added under both square roots; must be >= 0.
    **kwargs
        Passed to :class:`Optimizer` (``wd``, ``rescale_grad``, ``clip_gradient``, ...).

    Notes
    -----
    State: ``AdaDeltaState(acc_grad, acc_delta)``, float32 zeros of the weight's shape.
    """

    state_type = AdaDeltaState

    def __init__(self, rho=0.90, epsilon=1e-5, **kwargs):
        check_hyperparameter('rho', rho, low=0, high=1)
        check_hyperparameter('epsilon', epsilon, low=0)
        super().__init__(**kwargs)
        self.rho = rho
        self.epsilon = epsilon

    def create_state(self, index, weight):
        # As MXNet: default dtype (float32), whatever the weight's.
        acc_g = nd.zeros(weight.shape, weight.context)
        acc_delta = nd.zeros(weight.shape, weight.context)
        return AdaDeltaState(acc_g, acc_delta)

    @accepts_lists
    def update(self, index, weight, grad, state):
        _, wd, _ = self.begin_step(index)

        if grad.stype == 'row_sparse':
            grad = grad.tostype('default')
        grad = grad * self.rescale_grad  # a new array: the caller's gradient is not changed
        if self.clip_gradient is not None:
            grad = nd.clip(grad, -self.clip_gradient, self.clip_gradient)

        acc_g, acc_delta = state
        acc_g[:] = self.rho * acc_g + (1. - self.rho) * grad * grad
        delta = nd.sqrt(acc_delta + self.epsilon) / nd.sqrt(acc_g + self.epsilon) * grad
        acc_delta[:] = self.rho * acc_delta + (1. - self.rho) * delta * delta
        weight[:] = weight - (delta + wd * weight)

    # ------------------------------------------------------------------ fast path
    def fused_refusal(self, indices, weights, grads):
        return negative_clip_refusal(self.clip_gradient) or \
            super().fused_refusal(indices, weights, grads)

    def fused_step(self, run):
        """:meth:`update` over a fused run."""
        _, wd, _ = self.begin_step(list(run.indices))
        run(ADADELTA, wd=wd, rescale=np.float32(self.rescale_grad),
            clip=clip_constant(self.clip_gradient, kernel=False), rho=np.float32(self.rho),
            one_minus_rho=np.float32(1. - self.rho), epsilon=np.float32(self.epsilon))
