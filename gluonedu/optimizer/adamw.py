"""AdamW: Adam with decoupled weight decay (Loshchilov & Hutter, 2019).

*Decoupled Weight Decay Regularization* (https://arxiv.org/abs/1711.05101) observes that
for Adam, adding ``wd * w`` to the gradient (L2 regularisation, what Adam's ``wd`` does)
is not weight decay: the term passes through the division by ``sqrt(v)``, so weights
with large gradients are decayed less. AdamW shrinks the weight directly instead, by
``lr * wd * w`` per step, whatever the gradients.

MXNet 1.9.1 has no AdamW optimizer, only the operator ``mx.nd.contrib.adamw_update``
(and ``mp_adamw_update`` for float16 weights with a float32 master copy); this optimizer
is a gluonedu addition whose numbers are that operator's
(tests/parity/optimizer/test_adamw_parity.py).
"""
import math
from typing import NamedTuple

import numpy as np

from .. import ndarray as nd
from .fastpath import Kernel, per_t
from .kernels import clip_constant, clipped
from .optimizer import (Optimizer, ScheduledMomentum, register, accepts_lists,
                        check_hyperparameter, state_type)

__all__ = ['AdamW', 'AdamWState']


@state_type
class AdamWState(NamedTuple):
    """AdamW's running estimates of the gradient's first and second moments."""
    mean: object
    var: object


def adamw(weight, grad, mean, var, lr, wd, c_t, rescale, clip, beta1, beta2, one_minus_beta1,
          one_minus_beta2, epsilon):
    """AdamW (``adamw_update``) on one element (the fast path's rule)."""
    grad = rescale * grad
    if clip > 0:
        grad = clipped(grad, clip)
    mean = beta1 * mean + one_minus_beta1 * grad
    var = beta2 * var + one_minus_beta2 * (grad * grad)
    return weight - lr * (c_t * mean / (np.sqrt(var) + epsilon) + wd * weight), mean, var


ADAMW = Kernel(adamw, writes=('weight', 'mean', 'var'), per_parameter=('lr', 'wd', 'c_t'))


@register
class AdamW(Optimizer):
    """Adam with decoupled weight decay.

    At update ``t`` (counted per index) a weight ``w`` with gradient ``g`` and moment
    estimates ``m`` (mean) and ``v`` (variance) is updated by::

        g   = clip(rescale_grad * g, clip_gradient)
        m   = beta1 * m + (1 - beta1) * g
        v   = beta2 * v + (1 - beta2) * g**2
        c_t = sqrt(1 - beta2**t) / (1 - beta1**t)          (1 with correct_bias=False)
        w   = w - lr * (c_t * m / (sqrt(v) + epsilon) + wd * w)

    ``lr`` is the scheduled learning rate times ``lr_mult``, ``wd`` is ``wd * wd_mult``.
    Unlike :class:`Adam`, ``wd`` never enters ``m`` and ``v``: the decay is ``lr * wd * w``
    per step for every weight, and clipping sees the gradient alone.

    **The operator.** This is ``adamw_update(w, g, m, v, rescale_grad, lr=c_t, eta=lr,
    wd=wd, ...)``: the operator's ``eta`` ("learning rate schedule multiplier", the
    paper's η_t) is our learning rate and its ``lr`` (the paper's α) the bias correction.
    GluonNLP's and MXNet 2's AdamW call it with ``lr=1, eta=lr * c_t`` instead, which
    also scales the *decay* by ``c_t`` (about 0.3 at the first step with the default
    betas, reaching 1 only after thousands of steps). We keep the decay at ``lr * wd``
    from the first step, as the paper and PyTorch's ``AdamW`` do; ``epsilon`` is not
    bias-corrected, as in MXNet's Adam.

    **Decoupled from the gradient, not from the learning rate.** One ``learning_rate``
    multiplies both terms, so the decay per step is ``lr * wd``: changing ``lr`` at a fixed
    ``wd`` changes how hard the weights are decayed, and the two are tuned together (as
    with PyTorch's ``AdamW``). The paper's finding that the best λ hardly depends on the
    best learning rate (its figure 2) is for its own parametrization, in which the swept
    rate α scales the Adam term only and the decay is multiplied by the schedule
    multiplier η_t alone; here α is fixed to the bias correction ``c_t``.

    As the operator, a step with ``rescale_grad`` 0, NaN or infinite changes nothing
    (weight, ``m`` and ``v`` stay; the update is still counted): a loss scaler can skip
    a step that way. A row-sparse gradient counts as the dense array it stands for.

    Parameters
    ----------
    learning_rate : float, default 0.001
    beta1 : float, default 0.9
        Decay rate of the first-moment (mean) estimate, in [0, 1). A momentum schedule
        (:class:`~gluonedu.lr_scheduler.OneCycleScheduler`) may drive it.
    beta2 : float, default 0.999
        Decay rate of the second-moment (variance) estimate, in [0, 1).
    epsilon : float, default 1e-6
        Added to ``sqrt(v)``; must be >= 0. (MXNet 2's AdamW default.)
    correct_bias : bool, default True
        Apply Adam's bias correction ``c_t``; False gives BERT's Adam (GluonNLP's BERTAdam).
    wd : float, default 0.0
        Decoupled weight decay per unit of learning rate, >= 0.
    **kwargs
        Passed to :class:`Optimizer` (``rescale_grad``, ``clip_gradient``, ...).

    Notes
    -----
    State: ``AdamWState(mean, var)``, zeros of the weight's shape and dtype.
    """

    state_type = AdamWState
    beta1 = ScheduledMomentum()

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-6,
                 correct_bias=True, **kwargs):
        check_hyperparameter('beta1', beta1, low=0, high=1, high_open=True)
        check_hyperparameter('beta2', beta2, low=0, high=1, high_open=True)
        check_hyperparameter('epsilon', epsilon, low=0)
        check_hyperparameter('wd', kwargs.get('wd', 0.0), low=0)
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon
        self.correct_bias = correct_bias

    def create_state(self, index, weight):
        mean = nd.zeros(weight.shape, weight.context, dtype=weight.dtype)
        var = nd.zeros(weight.shape, weight.context, dtype=weight.dtype)
        return AdamWState(mean, var)

    def bias_correction(self, t):
        """``c_t = sqrt(1 - beta2**t) / (1 - beta1**t)`` (1 without ``correct_bias``)."""
        if not self.correct_bias:
            return 1.0
        return math.sqrt(1. - self.beta2 ** t) / (1. - self.beta1 ** t)

    @accepts_lists
    def update(self, index, weight, grad, state):
        lr, wd, t = self.begin_step(index)
        c_t = self.bias_correction(t)
        if self.rescale_grad == 0 or not math.isfinite(self.rescale_grad):
            return  # the operator skips such a step
        if grad.stype == 'row_sparse':
            grad = grad.tostype('default')
        mean, var = state
        # The operator computes in the weight's dtype, with its float arguments rounded
        # to float32 first; 1 - beta is formed from the rounded beta.
        scalar = np.dtype(weight.dtype).type
        lr, wd, c_t, epsilon, rescale_grad = (scalar(np.float32(x)) for x in
                                              (lr, wd, c_t, self.epsilon, self.rescale_grad))
        beta1, beta2 = scalar(np.float32(self.beta1)), scalar(np.float32(self.beta2))

        grad = rescale_grad * grad
        # The operator clips for any bound >= 0 (0 zeroes the gradient); like GluonNLP
        # we pass it only a positive one, so None, 0 and negative bounds mean "off".
        if self.clip_gradient is not None and self.clip_gradient > 0:
            bound = scalar(np.float32(self.clip_gradient))
            grad = nd.clip(grad, -bound, bound)
        mean[:] = beta1 * mean + (1 - beta1) * grad
        var[:] = beta2 * var + (1 - beta2) * (grad * grad)
        weight[:] = weight - lr * (c_t * mean / (nd.sqrt(var) + epsilon) + wd * weight)

    def fused_step(self, run):
        """:meth:`update` over a fused run, with MXNet's float32 numbers."""
        lr, wd, t = self.begin_step(list(run.indices))
        if self.rescale_grad == 0 or not math.isfinite(self.rescale_grad):
            return  # the operator skips such a step
        beta1, beta2 = np.float32(self.beta1), np.float32(self.beta2)
        run(ADAMW, lr=lr, wd=wd, c_t=per_t(t, self.bias_correction),
            rescale=np.float32(self.rescale_grad), clip=clip_constant(self.clip_gradient),
            beta1=beta1, beta2=beta2, one_minus_beta1=1 - beta1, one_minus_beta2=1 - beta2,
            epsilon=np.float32(self.epsilon))
