"""Signum and signSGD (Bernstein et al., 2018), as MXNet 1.9.1's ``signum_update`` and
``signsgd_update`` kernels compute them."""

import numpy as np

from .. import ndarray as nd
from .fastpath import Kernel
from .kernels import clip_constant, clipped, kernel_clip, kernel_scalars
from .optimizer import Optimizer, register, accepts_lists, check_hyperparameter
from .sgd import MomentumState

__all__ = ['Signum']


def signum(weight, grad, momentum, lr, wd, one, momentum_coef, one_minus_coef, rescale, clip,
           wd_lh):
    """Signum on one element (the fast path's rule)."""
    if clip > 0:
        pull = one_minus_coef * clipped(rescale * grad, clip)
    else:
        pull = (one_minus_coef * rescale) * grad
    momentum = momentum_coef * momentum - (one_minus_coef * wd) * weight - pull
    return (one - lr * wd_lh) * weight + lr * np.sign(momentum), momentum


def signsgd(weight, grad, lr, wd_total, one, rescale, clip):
    """signSGD on one element: w = (1 - lr*(wd + wd_lh))*w - lr*sign(clip(rescale*g))."""
    scaled = rescale * grad
    if clip > 0:
        scaled = clipped(scaled, clip)
    return ((one - lr * wd_total) * weight - lr * np.sign(scaled),)


SIGNUM = Kernel(signum, writes=('weight', 'momentum'), per_parameter=('lr', 'wd'))
SIGNSGD = Kernel(signsgd, writes=('weight',), per_parameter=('lr', 'wd_total'))


@register
class Signum(Optimizer):
    """Step by the *sign* of the momentum (Signum) or of the gradient (signSGD).

    With ``momentum > 0`` (Signum), for a weight ``w`` with gradient ``g``::

        g   = clip(rescale_grad * g, clip_gradient) + wd * w
        mom = momentum * mom - (1 - momentum) * g
        w   = (1 - lr * wd_lh) * w + lr * sign(mom)

    The buffer holds the *negated* running average, as MXNet's kernel stores it
    (MXNet's docstring writes ``state = -mom``). ``wd`` joins the gradient (it is
    averaged into the momentum); ``wd_lh`` decays the weight directly ("decoupled").

    With ``momentum == 0`` (signSGD) there is no state, and MXNet's ``signsgd_update``
    decays the weight directly with ``wd``::

        w = (1 - lr * wd) * w - lr * sign(clip(rescale_grad * g, clip_gradient))

    (MXNet 1.9.1 fails on ``momentum=0`` with ``wd_lh != 0``; gluonedu decays by
    ``wd + wd_lh`` there — see docs/divergences.md.)

    Row-sparse gradients count as the dense arrays they stand for.

    Parameters
    ----------
    learning_rate : float, default 0.01
    momentum : float, default 0.9
        Decay of the running average, >= 0. With 0 the optimizer is signSGD.
    wd_lh : float, default 0.0
        Decoupled weight decay (Loshchilov & Hutter), applied outside the sign.
    **kwargs
        Passed to :class:`Optimizer` (``wd``, ``rescale_grad``, ``clip_gradient``, ...).
    """

    state_type = MomentumState

    def __init__(self, learning_rate=0.01, momentum=0.9, wd_lh=0.0, **kwargs):
        check_hyperparameter('momentum', momentum, low=0)
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.momentum = momentum
        self.wd_lh = wd_lh

    def create_state(self, index, weight):
        if self.momentum == 0.0:
            return None
        return nd.zeros(weight.shape, weight.context, dtype=weight.dtype, stype=weight.stype)

    @accepts_lists
    def update(self, index, weight, grad, state):
        lr, wd, _ = self.begin_step(index)
        if grad.stype == 'row_sparse':
            grad = grad.tostype('default')

        dtype = weight.dtype
        lr, wd, momentum, rescale, wd_lh = kernel_scalars(
            dtype, lr, wd, self.momentum, self.rescale_grad, self.wd_lh or 0.0)
        clip = kernel_clip(self.clip_gradient, dtype)
        scaled = rescale * grad
        if clip is not None:
            scaled = nd.clip(scaled, -clip, clip)

        if state is not None:
            one_minus_momentum = 1 - momentum
            if clip is not None:
                pull = one_minus_momentum * scaled
            else:  # the kernel multiplies the scalars first
                pull = (one_minus_momentum * rescale) * grad
            state[:] = momentum * state - (one_minus_momentum * wd) * weight - pull
            weight[:] = (1 - lr * wd_lh) * weight + lr * nd.sign(state)
        else:
            # signsgd_update: weight decay acts on the weight, not inside the sign.
            weight[:] = (1 - lr * (wd + wd_lh)) * weight - lr * nd.sign(scaled)

    def fused_step(self, run):
        """:meth:`update` over a fused run (the kernels of MXNet's float32 numbers)."""
        step = self.begin_step(list(run.indices))
        common = dict(lr=step.lr, one=np.float32(1), rescale=np.float32(self.rescale_grad),
                      clip=clip_constant(self.clip_gradient))
        wd_lh = np.float32(self.wd_lh or 0.0)
        if self.momentum > 0:
            momentum = np.float32(self.momentum)
            run(SIGNUM, wd=step.wd, momentum_coef=momentum, one_minus_coef=1 - momentum,
                wd_lh=wd_lh, **common)
        else:   # signsgd_update: the two decays add (in float32, as the reference)
            run(SIGNSGD, wd_total=step.wd.astype(np.float32) + wd_lh, **common)
