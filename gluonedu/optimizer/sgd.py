"""SGD with momentum and weight decay (and its deprecated alias ccSGD), as MXNet 1.9.1's.

MXNet runs SGD through four C++ kernels; the numbers they produce differ only by
float rounding, but to reproduce them to the last bits we follow each one's order of
operations. With ``step = lr * clip(rescale_grad * grad, clip_gradient)``:

* ``multi_sgd_update`` / ``multi_sgd_mom_update`` (dense gradients, the usual case,
  one or many tensors per call) and ``sgd_mom_update`` (one tensor)::

      mom = momentum * mom - lr * wd * weight - step       (mom is 0 without momentum)
      weight = weight + mom

* ``sgd_update`` (one tensor, no momentum)::

      weight = (1 - lr * wd) * weight - step

The ``mp_`` variants are the same kernels run on a float32 master copy of a float16
weight; the float16 weight then receives the master copy rounded to float16.

The hyperparameters reach a kernel as numbers of the precision it computes in (float32
for float32 and multi-precision float16 weights), so we round them the same way.
"""
import os
import warnings
from typing import NamedTuple

import numpy as np

from .. import ndarray as nd
from .fastpath import Kernel
from .kernels import (clip_constant, clipped, kernel_clip, kernel_scalars,
                      lazy_rows)
from .optimizer import (Optimizer, ScheduledMomentum, register, check_hyperparameter,
                        state_type)

__all__ = ['SGD', 'ccSGD', 'MomentumOptimizer', 'MomentumState', 'MomentumMPState']


@state_type
class MomentumState(NamedTuple):
    """The state of SGD, NAG, LARS, LBSGD and Signum: the momentum buffer (a bare array, as
    MXNet's, or None without momentum)."""
    momentum: object


@state_type
class MomentumMPState(NamedTuple):
    """A float16 weight's state under ``multi_precision`` in MXNet's SGD layout: the
    momentum (or None), then the float32 master copy."""
    momentum: object
    weight_fp32: object


def _lr_times_grad(grad, lr, rescale_grad, clip_gradient):
    """``lr * clip(rescale_grad * grad, clip_gradient)``, in the kernels' order.

    Without clipping the kernels multiply ``lr * rescale_grad`` first, then the gradient.
    """
    if clip_gradient is not None:
        return lr * nd.clip(rescale_grad * grad, -clip_gradient, clip_gradient)
    return (lr * rescale_grad) * grad


def sgd_momentum_step(weight, grad, mom, lr, wd, momentum, rescale_grad, clip_gradient):
    """The momentum-form kernel, in place: ``mom = momentum*mom - lr*wd*w - step; w += mom``.

    ``mom`` may be None (SGD without momentum through the multi-tensor kernel). All
    arrays are dense and of one dtype; the scalars are already of that dtype.
    """
    step = _lr_times_grad(grad, lr, rescale_grad, clip_gradient)
    decayed = (lr * wd) * weight
    new_mom = (momentum * mom if mom is not None else 0) - decayed - step
    if mom is not None:
        mom[:] = new_mom
    weight[:] = weight + new_mom


def sgd_plain_step(weight, grad, lr, wd, rescale_grad, clip_gradient):
    """The ``sgd_update`` kernel, in place: ``w = (1 - lr*wd) * w - step``."""
    step = _lr_times_grad(grad, lr, rescale_grad, clip_gradient)
    weight[:] = (1 - lr * wd) * weight - step


def sgd_kernel(has_momentum, multi_tensor):
    """Which of MXNet's SGD kernels runs: 'momentum' (``sgd_mom_update`` and its
    multi-tensor form), 'multi' (``multi_sgd_update``: the momentum form with a zero
    buffer) or 'plain' (``sgd_update``: ``w = (1 - lr*wd)*w - step``).

    ``multi_tensor``: the call goes through MXNet's multi-tensor kernels (dense arrays
    only; SGD and LARS).
    """
    if has_momentum:
        return 'momentum'
    return 'multi' if multi_tensor else 'plain'


def sgd_step(weight, grad, mom, lr, wd, momentum, rescale_grad, clip_gradient, multi_tensor):
    """One SGD step in place, by the kernel :func:`sgd_kernel` chooses; a row_sparse
    ``grad`` updates only its rows (MXNet's SGD kernels are lazy). Scalars already of the
    weight's dtype."""
    kind = sgd_kernel(mom is not None, multi_tensor)
    if grad.stype == 'row_sparse':
        if kind == 'plain':
            lazy_rows(lambda w, g: sgd_plain_step(w, g, lr, wd, rescale_grad, clip_gradient),
                      grad, weight)
        else:
            lazy_rows(lambda w, m, g: sgd_momentum_step(w, g, m, lr, wd, momentum,
                                                        rescale_grad, clip_gradient),
                      grad, weight, mom)
    elif kind == 'plain':
        sgd_plain_step(weight, grad, lr, wd, rescale_grad, clip_gradient)
    else:
        sgd_momentum_step(weight, grad, mom, lr, wd, momentum, rescale_grad, clip_gradient)


# ---------------------------------------------------------------------------- fast path
# The same kernels, one element at a time (see gluonedu.optimizer.fastpath).
def _step_of(grad, lr, rescale, clip):
    """SGD's step ``lr * clip(rescale*g)``; unclipped in MXNet's order, ``(lr*rescale)*g``."""
    if clip > 0:
        return lr * clipped(rescale * grad, clip)
    return (lr * rescale) * grad


def sgd_momentum(weight, grad, momentum, lr, wd, momentum_coef, rescale, clip):
    """``sgd_mom_update``: momentum = momentum_coef*momentum - lr*wd*w - step; w += momentum."""
    momentum = momentum_coef * momentum - (lr * wd) * weight - _step_of(grad, lr, rescale, clip)
    return weight + momentum, momentum


def sgd_no_momentum(weight, grad, lr, wd, zero, rescale, clip):
    """``multi_sgd_update``: the momentum form with a zero buffer."""
    return (weight + (zero - (lr * wd) * weight - _step_of(grad, lr, rescale, clip)),)


def sgd_plain(weight, grad, lr, wd, one, rescale, clip):
    """``sgd_update``: w = (1 - lr*wd)*w - lr*clip(rescale*g)."""
    return ((one - lr * wd) * weight - _step_of(grad, lr, rescale, clip),)


#: MXNet's SGD kernels, by :func:`sgd_kernel`'s names.
SGD_KERNELS = {
    'momentum': Kernel(sgd_momentum, writes=('weight', 'momentum'),
                       per_parameter=('lr', 'wd', 'momentum_coef')),
    'multi': Kernel(sgd_no_momentum, writes=('weight',), per_parameter=('lr', 'wd')),
    'plain': Kernel(sgd_plain, writes=('weight',), per_parameter=('lr', 'wd')),
}


def fused_sgd(run, lr, wd, momentum, rescale_grad, clip_gradient):
    """SGD's kernels on a fused run, chosen per parameter by :func:`sgd_kernel`.

    ``momentum``: None without a momentum buffer, else the coefficient (a number, or one
    per parameter).
    """
    multi = run.in_multi_tensor_call()
    extra = {'momentum': {'momentum_coef': momentum}, 'multi': {'zero': np.float32(0)},
             'plain': {'one': np.float32(1)}}
    for where in (multi, ~multi):
        kind = sgd_kernel(momentum is not None, where is multi)
        run(SGD_KERNELS[kind], where=where, lr=lr, wd=wd, rescale=np.float32(rescale_grad),
            clip=clip_constant(clip_gradient), **extra[kind])


class MomentumOptimizer(Optimizer):
    """What SGD, NAG and LARS share: an optional momentum buffer, MXNet's state layout.

    The state is a momentum array (None when ``momentum == 0``); with
    ``multi_precision`` a float16 weight's state is ``MomentumMPState(momentum or None,
    weight_fp32)`` — the master copy *last*, as MXNet's ``mp_*`` kernels take it. Subclasses
    implement ``_update_impl(indices, weights, grads, states, multi_precision)`` over
    lists.
    """
    state_type = MomentumState
    momentum = ScheduledMomentum(default=0.0)
    #: Whether a row-sparse weight keeps row-sparse momentum (SGD, LARS) or dense (NAG).
    lazy_update = False

    def create_state(self, index, weight):
        if self.momentum == 0.0:
            return None
        stype = weight.stype if self.lazy_update else 'default'
        return nd.zeros(weight.shape, weight.context, dtype=weight.dtype, stype=stype)

    def create_state_multi_precision(self, index, weight):
        if self.multi_precision and weight.dtype == np.float16:
            master = weight.astype(np.float32)
            return MomentumMPState(self.create_state(index, master), master)
        if weight.dtype == np.float16 and not self.multi_precision:
            warnings.warn("Accumulating with float16 in optimizer can lead to poor accuracy or "
                          "slow convergence. Consider using multi_precision=True option of "
                          "the %s optimizer" % type(self).__name__, stacklevel=2)
        return self.create_state(index, weight)

    def update(self, index, weight, grad, state):
        """Update one weight, or lists of them, in place (float16 weights in float16)."""
        self._update_impl(*_as_lists(index, weight, grad, state), multi_precision=False)

    def update_multi_precision(self, index, weight, grad, state):
        """As :meth:`update`, going through the float32 master copies of float16 weights."""
        indices, weights, grads, states = _as_lists(index, weight, grad, state)
        use_master = self.multi_precision and weights[0].dtype == np.float16
        self._update_impl(indices, weights, grads, states, multi_precision=use_master)


def _as_lists(index, weight, grad, state):
    if isinstance(index, (list, tuple)):
        return list(index), list(weight), list(grad), list(state)
    return [index], [weight], [grad], [state]


@register
class SGD(MomentumOptimizer):
    """Stochastic gradient descent with momentum and weight decay.

    For a weight ``w`` with gradient ``g``, learning rate ``lr`` and weight decay ``wd``::

        step = lr * clip(rescale_grad * g, clip_gradient)
        mom  = momentum * mom - lr * wd * w - step      (no state when momentum == 0)
        w    = w + mom

    The momentum buffer holds the (negative) step, learning rate included, as MXNet's.

    **Lazy updates.** With a row-sparse gradient and ``lazy_update=True`` only the rows
    in ``grad.indices`` are updated (weight and momentum, weight decay included); the
    other rows are left exactly as they are. With ``lazy_update=False`` the gradient
    counts as the dense array it stands for, so every row decays.

    **Multi-tensor updates.** ``update`` also takes lists of indices, weights, grads and
    states. The :class:`~.updater.Updater` hands SGD up to ``aggregate_num`` parameters
    of one dtype at a time (the ``MXNET_OPTIMIZER_AGGREGATION_SIZE`` environment variable,
    default 4); all of them are counted before their learning rates are read, as MXNet's
    fused ``multi_sgd_*`` kernels do.

    Parameters
    ----------
    momentum : float, default 0.0
        Decay of the momentum buffer, >= 0. With 0 there is no state. A momentum schedule
        (:class:`~gluonedu.lr_scheduler.OneCycleScheduler`) may drive it; the state is
        then made whatever this value.
    lazy_update : bool, default True
        Update only the rows present in a row-sparse gradient.
    multi_precision : bool, default False
        Keep a float32 master copy of float16 weights. The state is then
        ``(momentum or None, weight_fp32)`` — SGD's own order, as MXNet.
    **kwargs
        Passed to :class:`Optimizer` (``learning_rate``, ``wd``, ``rescale_grad``, ...).
    """

    def __init__(self, momentum=0.0, lazy_update=True, **kwargs):
        # MXNet ignores a negative momentum silently (its kernels then run without it);
        # we say so instead.
        check_hyperparameter('momentum', momentum, low=0)
        super().__init__(**kwargs)
        self.momentum = momentum
        self.lazy_update = lazy_update
        self.aggregate_num = int(os.getenv('MXNET_OPTIMIZER_AGGREGATION_SIZE', '4'))

    def _update_impl(self, indices, weights, grads, states, multi_precision):
        # MXNet's multi-tensor kernels take dense arrays only: one row-sparse array sends
        # the whole group through the one-tensor kernels.
        multi_tensor = all(w.stype == 'default' and g.stype == 'default'
                           for w, g in zip(weights, grads))
        step = self.begin_step(indices, per_call=len(indices))
        for weight, grad, state, lr, wd in zip(weights, grads, states, step.lr.tolist(),
                                               step.wd.tolist()):
            if multi_precision:
                mom, master = state
                # The multi-precision kernels have no row-sparse version: dense gradient.
                self._update_one(master, grad.astype(np.float32).tostype('default'), mom,
                                 lr, wd, multi_tensor)
                nd.cast(master, dtype=weight.dtype, out=weight)
            else:
                if grad.stype == 'row_sparse' and not self.lazy_update:
                    grad = grad.tostype('default')
                self._update_one(weight, grad, state, lr, wd, multi_tensor)

    def _update_one(self, weight, grad, mom, lr, wd, multi_tensor):
        """Run the kernel MXNet would run for one (weight, grad, momentum) triple."""
        dtype = weight.dtype
        lr, wd, momentum, rescale = kernel_scalars(dtype, lr, wd, self.momentum,
                                                   self.rescale_grad)
        use_momentum = mom is not None and self.momentum > 0
        sgd_step(weight, grad, mom if use_momentum else None, lr, wd, momentum, rescale,
                 kernel_clip(self.clip_gradient, dtype), multi_tensor)


    # ------------------------------------------------------------------ fast path
    def fused_refusal(self, indices, weights, grads):
        if any(g.stype == 'row_sparse' for g in grads):
            if not self.lazy_update:
                return 'lazy_update=False (a row_sparse gradient then counts as dense)'
            if np.dtype(weights[0].dtype) == np.float16:
                return ('float16 multi_precision %s densifies row_sparse gradients (MXNet has '
                        'no lazy multi-precision kernel)' % type(self).__name__)
        return None

    def fused_step(self, run):
        """:meth:`_update_impl` over a fused run: counted call by call, then SGD's kernels."""
        step = self.begin_step(list(run.indices), per_call=run.per_call)
        fused_sgd(run, step.lr, step.wd, self.momentum if self.momentum > 0 else None,
                  self.rescale_grad, self.clip_gradient)


@register
class ccSGD(SGD):  # noqa: N801  (MXNet's name)
    """[Deprecated] The same optimizer as :class:`SGD`, kept for old code.

    MXNet 1.9.1 registers it without any warning; so does gluonedu.
    """
    fused_step = SGD.fused_step   # the same optimizer, so the same fast path
