"""Delay-compensated asynchronous SGD (Zheng et al., 2017), as MXNet 1.9.1's DCASGD.

In asynchronous training a gradient arrives computed at an older weight. DCASGD
corrects it with a cheap approximation of the Hessian (``lamda * g * g``, element-wise)
times the distance the weight has moved since the previous update.
"""
from typing import NamedTuple

import numpy as np

from .. import ndarray as nd
from .fastpath import Kernel
from .kernels import clip_constant, clipped, negative_clip_refusal
from .optimizer import Optimizer, register, accepts_lists, check_hyperparameter, state_type

__all__ = ['DCASGD', 'DCASGDState']


@state_type
class DCASGDState(NamedTuple):
    """DCASGD's momentum (None without momentum) and the weight of the previous update."""
    momentum: object
    previous_weight: object


def dcasgd_momentum(weight, grad, momentum, previous_weight, neg_lr, wd, momentum_coef, rescale,
                    clip, lamda):
    """DCASGD with momentum on one element (the fast path's rule)."""
    grad = grad * rescale
    if clip >= 0:
        grad = clipped(grad, clip)
    step = neg_lr * (grad + wd * weight + lamda * grad * grad * (weight - previous_weight))
    momentum = momentum * momentum_coef + step
    return weight + momentum, momentum, weight


def dcasgd(weight, grad, previous_weight, neg_lr, wd, rescale, clip, lamda):
    """DCASGD without momentum on one element: w += -lr*(g + wd*w + lamda*g*g*(w - w_prev))."""
    grad = grad * rescale
    if clip >= 0:
        grad = clipped(grad, clip)
    step = neg_lr * (grad + wd * weight + lamda * grad * grad * (weight - previous_weight))
    return weight + step, weight


DCASGD_MOMENTUM = Kernel(dcasgd_momentum, writes=('weight', 'momentum', 'previous_weight'),
                         per_parameter=('neg_lr', 'wd'))
DCASGD_PLAIN = Kernel(dcasgd, writes=('weight', 'previous_weight'),
                      per_parameter=('neg_lr', 'wd'))


@register
class DCASGD(Optimizer):
    """Delay-compensated SGD, optionally with momentum.

    For a weight ``w`` with gradient ``g`` and the weight ``w_prev`` of the previous
    update::

        g      = clip(rescale_grad * g, clip_gradient)
        step   = -lr * (g + wd * w + lamda * g * g * (w - w_prev))
        mom    = momentum * mom + step        (mom = step when momentum == 0)
        w_prev = w
        w      = w + mom

    (MXNet 1.9.1 fails whenever ``momentum > 0`` — its ``if mom:`` asks an NDArray for a
    truth value; gluonedu implements the rule above, see docs/divergences.md.)

    Row-sparse gradients count as the dense arrays they stand for.

    Parameters
    ----------
    momentum : float, default 0.0
        Decay of the momentum buffer, >= 0.
    lamda : float, default 0.04
        Scale of the delay compensation (MXNet's spelling).
    **kwargs
        Passed to :class:`Optimizer` (``learning_rate``, ``wd``, ``rescale_grad``, ...).

    Notes
    -----
    State: ``DCASGDState(momentum or None, previous_weight)``; the previous weight starts as a copy
    of the weight.
    """

    state_type = DCASGDState

    STATE_ATTRS = Optimizer.STATE_ATTRS + ('weight_previous',)

    def __init__(self, momentum=0.0, lamda=0.04, **kwargs):
        check_hyperparameter('momentum', momentum, low=0)
        super().__init__(**kwargs)
        self.momentum = momentum
        self.weight_previous = {}  # unused; kept because MXNet's optimizer has it
        self.lamda = lamda

    def create_state(self, index, weight):
        mom = None
        if self.momentum != 0.0:
            mom = nd.zeros(weight.shape, weight.context, dtype=weight.dtype)
        return DCASGDState(mom, weight.copy())

    @accepts_lists
    def update(self, index, weight, grad, state):
        lr, wd, _ = self.begin_step(index)
        if grad.stype == 'row_sparse':
            grad = grad.tostype('default')

        grad = self._rescaled(grad)
        mom, previous_weight = state
        step = -lr * (grad + wd * weight + self.lamda * grad * grad * (weight - previous_weight))
        if mom is not None:
            mom[:] *= self.momentum
            mom[:] += step
        else:
            mom = step
        previous_weight[:] = weight
        weight[:] += mom

    # ------------------------------------------------------------------ fast path
    def fused_refusal(self, indices, weights, grads):
        return negative_clip_refusal(self.clip_gradient) or \
            super().fused_refusal(indices, weights, grads)

    def fused_step(self, run):
        """:meth:`update` over a fused run."""
        step = self.begin_step(list(run.indices))
        common = dict(neg_lr=-step.lr, wd=step.wd, rescale=np.float32(self.rescale_grad),
                      clip=clip_constant(self.clip_gradient, kernel=False),
                      lamda=np.float32(self.lamda))
        if self.momentum != 0.0:
            run(DCASGD_MOMENTUM, momentum_coef=np.float32(self.momentum), **common)
        else:
            run(DCASGD_PLAIN, **common)
