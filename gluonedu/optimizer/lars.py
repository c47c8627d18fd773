"""LARS (Layer-wise Adaptive Rate Scaling), as MXNet 1.9.1's.

From You, Gitman & Ginsburg, *Large Batch Training of Convolutional Networks*
(https://arxiv.org/abs/1708.03888). LARS is SGD with momentum whose learning rate is
rescaled per layer (per parameter tensor) by a *trust ratio*::

    lr_layer = lr * eta * ||w|| / (||rescale_grad * grad|| + wd * ||w|| + eps)

so that each layer's step is a fixed fraction ``eta`` of its own norm, however large
the batch. Biases and normalisation parameters (names ending in ``gamma``, ``beta`` or
``bias``) keep the plain learning rate.

The step itself is SGD's; we reuse the SGD kernels of :mod:`.sgd`. MXNet runs dense
groups through its fused multi-tensor kernels (``multi_sum_sq`` + ``multi_lars`` +
``preloaded_multi_sgd_*``) and row-sparse ones through ``sgd_update``/``sgd_mom_update``
(lazy when ``lazy_update``); both compute the same trust ratio.
"""
import os

import numpy as np

from .. import ndarray as nd
from .kernels import kernel_clip, kernel_scalars
from .optimizer import register, check_hyperparameter
from .sgd import MomentumOptimizer, fused_sgd, sgd_step

__all__ = ['LARS', 'multi_lars_lr']

_NO_LARS_SUFFIXES = ('gamma', 'beta', 'bias')


def _sum_of_squares(array, square_in_float32):
    """Σ array² (row-sparse: over its stored rows), summed in float64.

    MXNet's fused path (``multi_sum_sq``) squares in the array's own dtype — float16
    squares are rounded to float16 — its one-tensor path casts to float32 first.
    """
    values = array.data if array.stype == 'row_sparse' else array
    if square_in_float32:
        values = values.astype(np.float32)
    return (values * values).asnumpy().astype(np.float64).sum()


def multi_lars_lr(lr, w_sum_sq, g_sum_sq, wd, eta, eps, rescale_grad):
    """The layer-wise learning rate from Σw² and Σg², in float32 as ``multi_lars``:
    ``lr * eta * ||w|| / (||g|| + wd * ||w|| + eps)`` with ``||g||`` rescaled, or ``lr``
    where either norm is 0."""
    f32 = np.float32
    w_norm = np.sqrt(f32(w_sum_sq))
    g_norm = np.sqrt(f32(g_sum_sq)) * f32(abs(rescale_grad))
    if w_norm > 0 and g_norm > 0:
        return f32(lr) * (f32(eta) * w_norm / (g_norm + f32(wd) * w_norm + f32(eps)))
    return f32(lr)


@register
class LARS(MomentumOptimizer):
    """SGD with momentum and a layer-wise adaptive learning rate (LARS).

    For each parameter tensor with weight ``w`` and gradient ``grad``::

        w_norm = ||w||;  g_norm = ||rescale_grad * grad||
        if the name ends in gamma/beta/bias, or w_norm == 0, or g_norm == 0:
            lr_layer = lr
        else:
            lr_layer = lr * eta * w_norm / (g_norm + wd * w_norm + eps)
        g   = clip(rescale_grad * grad, clip_gradient)
        mom = momentum_t * mom - lr_layer * wd * w - lr_layer * g      (no state if 0)
        w   = w + mom

    ``lr`` includes ``lr_mult``. With ``momentum_correction``, ``momentum_t = momentum *
    lr_now / lr_before``, where the two are the scheduler's learning rates at this call
    and at the previous call of the optimizer (Goyal et al., 2017), so a learning-rate
    drop does not leave a too-large momentum behind.

    Weight decay is applied only to names ending in ``_weight`` when ``param_idx2name``
    is given (``_gamma`` is not decayed, unlike the base class).

    **Multi-tensor calls.** ``update`` takes lists; as MXNet, one call reads the
    learning rate (and advances the momentum correction) once for the whole list. The
    Updater passes ``aggregate_num`` tensors per call (``MXNET_OPTIMIZER_AGGREGATION_SIZE``,
    default 4).

    **Row-sparse gradients.** With ``lazy_update=True`` only the rows in
    ``grad.indices`` are updated (weight and momentum, weight decay included);
    otherwise the gradient counts as the dense array it stands for. The trust ratio
    uses the whole gradient either way.

    Parameters
    ----------
    momentum : float, default 0.0
        Decay of the momentum buffer (>= 0).
    lazy_update : bool, default True
        Update only the rows present in a row-sparse gradient.
    eta : float, default 0.001
        The LARS coefficient (>= 0).
    eps : float, default 0
        Added to the trust ratio's denominator (>= 0).
    momentum_correction : bool, default True
        Scale the momentum by the scheduler's learning-rate ratio.
    **kwargs
        Passed to :class:`Optimizer` (``learning_rate``, ``wd``, ``multi_precision``, ...).

    Notes
    -----
    The state is the momentum (None when ``momentum == 0``). With ``multi_precision=True``
    a float16 weight's state is ``(momentum or None, weight_fp32)`` — SGD's order. The
    trust ratio is then measured on the float16 weight, as MXNet does.
    """

    STATE_ATTRS = MomentumOptimizer.STATE_ATTRS + ('skip', 'last_lr', 'cur_lr')

    def __init__(self, momentum=0.0, lazy_update=True, eta=0.001, eps=0,
                 momentum_correction=True, **kwargs):
        # MXNet silently ignores a negative momentum; we say so instead.
        check_hyperparameter('momentum', momentum, low=0)
        check_hyperparameter('eta', eta, low=0)
        check_hyperparameter('eps', eps, low=0)
        super().__init__(**kwargs)
        self.momentum = momentum
        self.momentum_correction = momentum_correction
        self.lazy_update = lazy_update
        self.aggregate_num = int(os.getenv('MXNET_OPTIMIZER_AGGREGATION_SIZE', '4'))
        self.eta = eta
        self.eps = eps
        self.skip = 0          # kept for MXNet compatibility (unused there too)
        self.last_lr = None    # the scheduler's lr at the previous call
        self.cur_lr = None     # ... and at this call

    # ------------------------------------------------------------------ lr and wd
    def _scheduled_lr(self, num_update):
        """As the base class, also remembering the previous and current base lr.

        Every read shifts ``cur_lr`` into ``last_lr``: the momentum correction compares
        the learning rate of consecutive optimizer calls.
        """
        if self.cur_lr is not None:
            self.last_lr = self.cur_lr
        lr = super()._scheduled_lr(num_update)
        if self.cur_lr is None:
            self.last_lr = lr
        self.cur_lr = lr
        return lr

    def set_wd_mult(self, args_wd_mult):
        """Set weight-decay multipliers; named parameters not ending in ``_weight`` get 0."""
        self.wd_mult = {}
        for name in self.idx2name.values():
            if not name.endswith('_weight'):
                self.wd_mult[name] = 0.0
        self.wd_mult.update(args_wd_mult)

    def _layer_lr(self, index, weight, grad, lr, wd, multi_tensor):
        """``lr`` scaled by the trust ratio (unchanged for gamma/beta/bias parameters).

        ``multi_tensor``: compute it as MXNet's multi-tensor kernels do (``multi_sum_sq``
        then ``multi_lars``, in float32); otherwise as its one-tensor path does.
        """
        if not self._has_trust_ratio(index):
            return lr
        return self._trust_lr(_sum_of_squares(weight, square_in_float32=not multi_tensor),
                              _sum_of_squares(grad, square_in_float32=not multi_tensor),
                              lr, wd, multi_tensor)

    def _has_trust_ratio(self, index):
        """False for gamma/beta/bias parameters, which keep the plain learning rate."""
        return not self.idx2name.get(index, str(index)).endswith(_NO_LARS_SUFFIXES)

    def _trust_lr(self, w_sum_sq, g_sum_sq, lr, wd, multi_tensor):
        """``lr`` scaled by the trust ratio, from Σw² and Σg² (see :meth:`_layer_lr`)."""
        if multi_tensor:
            return multi_lars_lr(lr, w_sum_sq, g_sum_sq, wd, self.eta, self.eps,
                                 self.rescale_grad)
        w_norm = float(np.float32(np.sqrt(w_sum_sq)))
        g_norm = float(np.float32(np.sqrt(g_sum_sq))) * abs(self.rescale_grad)
        if w_norm > 0.0 and g_norm > 0.0:
            return lr * self.eta * w_norm / (g_norm + wd * w_norm + self.eps)
        return lr

    def _momentum_now(self):
        """The momentum for this call, corrected for a learning-rate change."""
        if self.momentum_correction and self.last_lr != 0:
            return self.momentum * (self.cur_lr / self.last_lr)
        return self.momentum

    def _update_impl(self, indices, weights, grads, states, multi_precision):
        # MXNet's multi-tensor kernels take dense arrays only: one row-sparse array sends
        # the whole call through the one-tensor kernels.
        multi_tensor = all(w.stype == 'default' and g.stype == 'default'
                           for w, g in zip(weights, grads))
        step = self.begin_step(indices, per_call=len(indices))
        lrs, wds = step.lr.tolist(), step.wd.tolist()
        momentum = self._momentum_now() if self.momentum > 0 else 0.0

        # All trust ratios are measured before any weight moves.
        layer_lrs = [self._layer_lr(i, w, g, lr, wd, multi_tensor)
                     for i, w, g, lr, wd in zip(indices, weights, grads, lrs, wds)]
        for weight, grad, state, lr, wd in zip(weights, grads, states, layer_lrs, wds):
            if multi_precision:
                mom, master = state
                # The multi-precision kernels have no row-sparse version: dense gradient.
                self._sgd_step(master, grad.astype(np.float32).tostype('default'), mom, lr,
                               wd, momentum, multi_tensor)
                nd.cast(master, dtype=weight.dtype, out=weight)
            else:
                if grad.stype == 'row_sparse' and not self.lazy_update:
                    grad = grad.tostype('default')
                self._sgd_step(weight, grad, state, lr, wd, momentum, multi_tensor)

    def _sgd_step(self, weight, grad, mom, lr, wd, momentum, multi_tensor):
        """The SGD kernel MXNet runs for one tensor at its layer-wise learning rate."""
        if weight.stype != 'default':
            raise NotImplementedError(
                "LARS updates dense weights; this weight is %s. Convert it with "
                "weight.tostype('default')" % weight.stype)
        dtype = weight.dtype
        lr, wd, momentum, rescale = kernel_scalars(dtype, lr, wd, momentum, self.rescale_grad)
        sgd_step(weight, grad, mom, lr, wd, momentum, rescale,
                 kernel_clip(self.clip_gradient, dtype), multi_tensor)

    # ------------------------------------------------------------------ fast path
    def fused_step(self, run):
        """:meth:`_update_impl` over a flat run: trust ratios from Σw², Σg² per parameter
        (measured before any weight moves, on the model's weights and gradients), then
        SGD's kernel at the layer-wise learning rates. As the reference, each multi-tensor
        call of ``run.per_call`` parameters reads the lr (and moves the momentum
        correction) once."""
        w_sq = run.sums_of_squares(run.model_weight)
        g_sq = run.sums_of_squares(run.model_grad)
        lrs, wds, moms = [], [], []
        for start in range(0, len(run.indices), run.per_call):
            call = list(run.indices[start:start + run.per_call])
            step = self.begin_step(call, per_call=len(call))
            momentum = self._momentum_now() if self.momentum > 0 else 0.0
            for k, index, lr, wd in zip(range(start, start + len(call)), call,
                                        step.lr.tolist(), step.wd.tolist()):
                lrs.append(self._trust_lr(w_sq[k], g_sq[k], lr, wd, multi_tensor=True)
                           if self._has_trust_ratio(index) else lr)
                wds.append(wd)
                moms.append(momentum)
        fused_sgd(run, np.array(lrs, dtype=np.float64), np.array(wds),
                  np.array(moms) if self.momentum > 0 else None, self.rescale_grad,
                  self.clip_gradient)
