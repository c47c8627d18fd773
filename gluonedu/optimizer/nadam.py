"""Nadam: Adam with Nesterov momentum (Dozat, 2016), as MXNet 1.9.1's Python Nadam."""
from typing import NamedTuple

import numpy as np

from .. import ndarray as nd
from .fastpath import Kernel, per_t
from .kernels import clip_constant, clipped, negative_clip_refusal
from .optimizer import Optimizer, register, accepts_lists, check_hyperparameter, state_type

__all__ = ['Nadam', 'NadamState']


@state_type
class NadamState(NamedTuple):
    """Nadam's running estimates of the gradient's first and second moments."""
    mean: object
    var: object


def nadam(weight, grad, mean, var, lr, wd, grad_scale, mean_scale, var_scale, one_minus_mu_t,
          mu_next, rescale, clip, beta1, beta2, one_minus_beta1, one_minus_beta2, epsilon):
    """Nadam on one element; the ``*_scale`` are the bias corrections 1 - m_schedule,
    1 - m_schedule * mu_next and 1 - beta2**t."""
    grad = grad * rescale + wd * weight
    if clip >= 0:
        grad = clipped(grad, clip)
    mean = beta1 * mean + one_minus_beta1 * grad
    var = beta2 * var + one_minus_beta2 * grad * grad
    mean_bar = one_minus_mu_t * (grad / grad_scale) + mu_next * (mean / mean_scale)
    return weight - lr * mean_bar / (np.sqrt(var / var_scale) + epsilon), mean, var


NADAM = Kernel(nadam, writes=('weight', 'mean', 'var'),
               per_parameter=('lr', 'wd', 'grad_scale', 'mean_scale', 'var_scale',
                              'one_minus_mu_t', 'mu_next'))


@register
class Nadam(Optimizer):
    """The Nesterov-accelerated Adam optimizer with a warming momentum schedule.

    At update ``t`` (counted per index) a weight ``w`` with gradient ``g``, mean ``m``
    and variance ``v`` is updated by::

        g       = clip(rescale_grad * g + wd * w, clip_gradient)
        mu_t    = beta1 * (1 - 0.5 * 0.96**(t * schedule_decay))
        mu_next = beta1 * (1 - 0.5 * 0.96**((t + 1) * schedule_decay))
        m_schedule = m_schedule * mu_t
        m       = beta1 * m + (1 - beta1) * g
        v       = beta2 * v + (1 - beta2) * g**2
        g_hat   = g / (1 - m_schedule)
        m_hat   = m / (1 - m_schedule * mu_next)
        v_hat   = v / (1 - beta2**t)
        m_bar   = (1 - mu_t) * g_hat + mu_next * m_hat
        w       = w - lr * m_bar / (sqrt(v_hat) + epsilon)

    ``m_schedule`` (the product of the momentum coefficients so far) is one number kept
    on the optimizer, as in MXNet — not one per parameter: every update of *any* index
    multiplies it. With several parameters it therefore advances once per parameter per
    step; we keep MXNet's behaviour so that results (and saved optimizers) agree.
    A row-sparse gradient is used as the dense gradient it stands for.

    Parameters
    ----------
    learning_rate : float, default 0.001
    beta1 : float, default 0.9
        Momentum coefficient (scaled by the schedule), in [0, 1).
    beta2 : float, default 0.999
        Decay rate of the second moment, in [0, 1).
    epsilon : float, default 1e-8
        Added to ``sqrt(v_hat)`` to avoid division by zero; must be >= 0.
    schedule_decay : float, default 0.004
        How fast the momentum warms up towards ``beta1``.
    **kwargs
        Passed to :class:`Optimizer` (``wd``, ``rescale_grad``, ``clip_gradient``, ...).

    Notes
    -----
    State: ``NadamState(mean, var)``, zeros of the weight's shape and dtype; plus the shared
    ``m_schedule`` attribute (starting at 1.0).
    """

    state_type = NadamState

    STATE_ATTRS = Optimizer.STATE_ATTRS + ('m_schedule',)

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 schedule_decay=0.004, **kwargs):
        check_hyperparameter('beta1', beta1, low=0, high=1, high_open=True)
        check_hyperparameter('beta2', beta2, low=0, high=1, high_open=True)
        check_hyperparameter('epsilon', epsilon, low=0)
        check_hyperparameter('schedule_decay', schedule_decay)
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon
        self.schedule_decay = schedule_decay
        self.m_schedule = 1.

    def create_state(self, index, weight):
        mean = nd.zeros(weight.shape, weight.context, dtype=weight.dtype)
        var = nd.zeros(weight.shape, weight.context, dtype=weight.dtype)
        return NadamState(mean, var)

    @accepts_lists
    def update(self, index, weight, grad, state):
        lr, wd, t = self.begin_step(index)

        if grad.stype == 'row_sparse':
            grad = grad.tostype('default')
        grad = grad * self.rescale_grad + wd * weight
        if self.clip_gradient is not None:
            grad = nd.clip(grad, -self.clip_gradient, self.clip_gradient)

        # The warming momentum schedule (plain Python floats, as in MXNet).
        momentum_t = self.beta1 * (1. - 0.5 * 0.96 ** (t * self.schedule_decay))
        momentum_next = self.beta1 * (1. - 0.5 * 0.96 ** ((t + 1) * self.schedule_decay))
        self.m_schedule = self.m_schedule * momentum_t
        m_schedule_next = self.m_schedule * momentum_next

        mean, var = state
        mean[:] = self.beta1 * mean + (1. - self.beta1) * grad
        var[:] = self.beta2 * var + (1. - self.beta2) * grad * grad

        grad_hat = grad / (1. - self.m_schedule)
        mean_hat = mean / (1. - m_schedule_next)
        var_hat = var / (1. - self.beta2 ** t)
        mean_bar = (1. - momentum_t) * grad_hat + momentum_next * mean_hat
        weight[:] = weight - lr * mean_bar / (nd.sqrt(var_hat) + self.epsilon)

    # ------------------------------------------------------------------ fast path
    def fused_refusal(self, indices, weights, grads):
        return negative_clip_refusal(self.clip_gradient) or \
            super().fused_refusal(indices, weights, grads)

    def fused_step(self, run):
        """:meth:`update` over a fused run; ``m_schedule`` is multiplied index by index,
        in order, as the reference does."""
        lr, wd, t = self.begin_step(list(run.indices))
        mu = per_t(t, lambda t: self.beta1 * (1. - 0.5 * 0.96 ** (t * self.schedule_decay)))
        mu_next = per_t(t, lambda t: self.beta1 *
                        (1. - 0.5 * 0.96 ** ((t + 1) * self.schedule_decay)))
        schedule = np.empty(len(mu))
        m_schedule = self.m_schedule
        for k, m in enumerate(mu.tolist()):
            m_schedule = m_schedule * m
            schedule[k] = m_schedule
        self.m_schedule = m_schedule
        run(NADAM, lr=lr, wd=wd, grad_scale=1. - schedule, mean_scale=1. - schedule * mu_next,
            var_scale=per_t(t, lambda t: 1. - self.beta2 ** t), one_minus_mu_t=1. - mu,
            mu_next=mu_next, rescale=np.float32(self.rescale_grad),
            clip=clip_constant(self.clip_gradient, kernel=False),
            beta1=np.float32(self.beta1), beta2=np.float32(self.beta2),
            one_minus_beta1=np.float32(1. - self.beta1),
            one_minus_beta2=np.float32(1. - self.beta2), epsilon=np.float32(self.epsilon))
