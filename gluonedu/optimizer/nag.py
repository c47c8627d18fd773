"""Nesterov accelerated gradient, as MXNet 1.9.1's ``nag_mom_update`` kernel computes it."""

import numpy as np

from .. import ndarray as nd
from .fastpath import Kernel
from .kernels import clip_constant, clipped, kernel_clip, kernel_scalars
from .optimizer import register, check_hyperparameter
from .sgd import SGD_KERNELS, MomentumOptimizer, sgd_step

__all__ = ['NAG']


def nag_momentum_step(weight, grad, mom, lr, wd, momentum, rescale_grad, clip_gradient):
    """The ``nag_mom_update`` kernel, in place, on dense arrays of one dtype.

    With ``s = clip(rescale_grad * grad, clip_gradient)``::

        m   = momentum * mom
        w'  = w - m + (1 + momentum) * (m - lr * (s + wd * w))
        mom = m - lr * (s + wd * w')

    The momentum's weight-decay term reads the *updated* weight ``w'``: MXNet's kernel
    writes the weight in place before it computes the momentum (both in
    ``nag_mom_update`` with ``out=weight``, as the optimizer calls it, and in
    ``mp_nag_mom_update``). We reproduce that; see docs/divergences.md.
    """
    scaled = rescale_grad * grad
    if clip_gradient is not None:
        scaled = nd.clip(scaled, -clip_gradient, clip_gradient)
    decayed_mom = momentum * mom
    weight[:] = weight - decayed_mom + (momentum + 1) * (decayed_mom - lr * (scaled + wd * weight))
    mom[:] = decayed_mom - lr * (scaled + wd * weight)  # weight is already the new one


def nag_momentum(weight, grad, momentum, lr, wd, momentum_coef, momentum_plus_one, rescale,
                 clip):
    """:func:`nag_momentum_step` on one element (the fast path's rule)."""
    scaled = rescale * grad
    if clip > 0:
        scaled = clipped(scaled, clip)
    decayed = momentum_coef * momentum
    weight = weight - decayed + momentum_plus_one * (decayed - lr * (scaled + wd * weight))
    momentum = decayed - lr * (scaled + wd * weight)
    return weight, momentum


NAG_MOMENTUM = Kernel(nag_momentum, writes=('weight', 'momentum'), per_parameter=('lr', 'wd'))


@register
class NAG(MomentumOptimizer):
    """Nesterov accelerated gradient: SGD that looks one momentum step ahead.

    For a weight ``w`` with gradient ``g``::

        s   = clip(rescale_grad * g, clip_gradient)
        w'  = w + momentum * (momentum * mom - lr * (s + wd * w)) - lr * (s + wd * w)
        mom = momentum * mom - lr * (s + wd * w')

    That is Nesterov's rule ``mom = momentum * mom - lr * d; w = w + momentum * mom -
    lr * d`` with ``d = s + wd * w``, except that — as in MXNet 1.9.1's kernel — the
    momentum's weight-decay term sees the updated weight ``w'``. As in MXNet the buffer
    holds the (negative) step, learning rate included; MXNet's docstring writes the rule
    with ``state = -mom / lr``. Without momentum
    this is plain SGD (``w = (1 - lr*wd) * w - lr * clip(rescale_grad * g)``), and then —
    as MXNet — a row-sparse gradient updates only its rows. With momentum a row-sparse
    gradient counts as the dense array it stands for.

    Parameters
    ----------
    momentum : float, default 0.0
        Decay of the momentum buffer, >= 0. With 0 there is no state.
    multi_precision : bool, default False
        Keep a float32 master copy of float16 weights. The state is then
        ``(momentum or None, weight_fp32)`` — NAG's own order, as MXNet.
    **kwargs
        Passed to :class:`Optimizer` (``learning_rate``, ``wd``, ``rescale_grad``, ...).
    """

    def __init__(self, momentum=0.0, **kwargs):
        check_hyperparameter('momentum', momentum, low=0)
        super().__init__(**kwargs)
        self.momentum = momentum

    def _update_impl(self, indices, weights, grads, states, multi_precision):
        for index, weight, grad, state in zip(indices, weights, grads, states):
            lr, wd, _ = self.begin_step(index)
            if multi_precision:
                mom, master = state
                # mp_nag_mom_update / mp_sgd_update: no row-sparse version, so dense.
                self._step(master, grad.astype(np.float32).tostype('default'), mom, lr, wd)
                nd.cast(master, dtype=weight.dtype, out=weight)
            else:
                self._step(weight, grad, state, lr, wd)

    def _step(self, weight, grad, mom, lr, wd):
        dtype = weight.dtype
        lr, wd, momentum, rescale = kernel_scalars(dtype, lr, wd, self.momentum,
                                                   self.rescale_grad)
        clip = kernel_clip(self.clip_gradient, dtype)
        if mom is None:
            # MXNet calls sgd_update here, whose lazy_update defaults to True.
            sgd_step(weight, grad, None, lr, wd, momentum, rescale, clip, multi_tensor=False)
            return
        if grad.stype == 'row_sparse':
            grad = grad.tostype('default')
        # A momentum of exactly 0 never gets here (no state); MXNet would pass 0 anyway.
        nag_momentum_step(weight, grad, mom, lr, wd, momentum, rescale, clip)

    # ------------------------------------------------------------------ fast path
    def fused_refusal(self, indices, weights, grads):
        if any(g.stype == 'row_sparse' for g in grads):
            if self.momentum > 0:
                return 'NAG with momentum counts a row_sparse gradient as dense'
            if np.dtype(weights[0].dtype) == np.float16:
                return ('float16 multi_precision NAG densifies row_sparse gradients (MXNet has '
                        'no lazy multi-precision kernel)')
        return None

    def fused_step(self, run):
        """:meth:`_update_impl` over a fused run (without momentum: ``sgd_update``)."""
        step = self.begin_step(list(run.indices))
        common = dict(lr=step.lr, wd=step.wd, rescale=np.float32(self.rescale_grad),
                      clip=clip_constant(self.clip_gradient))
        if self.momentum > 0:
            momentum = np.float32(self.momentum)
            run(NAG_MOMENTUM, momentum_coef=momentum, momentum_plus_one=momentum + 1, **common)
        else:
            run(SGD_KERNELS['plain'], one=np.float32(1), **common)
