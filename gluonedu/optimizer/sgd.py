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

import numpy as np

from .. import ndarray as nd
from .optimizer import Optimizer, ScheduledMomentum, register, check_hyperparameter

__all__ = ['SGD', 'ccSGD', 'MomentumOptimizer']


def _scalars(dtype, *values):
    """``values`` as the kernel sees them: float32 parameters, cast to the update's dtype.

    (MXNet parses operator parameters as float32, so even a float64 update uses
    ``lr`` rounded to float32.)
    """
    kind = np.dtype(dtype).type
    return [kind(np.float32(v)) for v in values]


def _lr_times_grad(grad, lr, rescale_grad, clip_gradient):
    """``lr * clip(rescale_grad * grad, clip_gradient)``, in the kernels' order.

    Without clipping the kernels multiply ``lr * rescale_grad`` first, then the gradient.
    """
    if clip_gradient is not None:
        return lr * nd.clip(rescale_grad * grad, -clip_gradient, clip_gradient)
    return (lr * rescale_grad) * grad


def _kernel_clip(clip_gradient, dtype):
    """The clip bound a kernel applies, or None when clipping is off.

    MXNet passes ``clip_gradient`` to its kernels only when it is truthy, and the kernels
    clip only for a bound >= 0: so None, 0 and negative bounds all mean "no clipping".
    """
    if clip_gradient is None or not clip_gradient > 0:
        return None
    return np.dtype(dtype).type(np.float32(clip_gradient))


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


def lazy_rows(update_rows, grad, *arrays):
    """Apply ``update_rows(rows_of_arrays..., grad_rows)`` to the rows of a row-sparse grad.

    The touched rows of each array are copied out, updated, and written back; rows not
    in ``grad.indices`` are not read or written.
    """
    rows = grad.indices
    row_views = [a[rows] if a is not None else None for a in arrays]
    update_rows(*row_views, grad.data)
    for array, updated in zip(arrays, row_views):
        if array is not None:
            array[rows] = updated


class MomentumOptimizer(Optimizer):
    """What SGD, NAG and LARS share: an optional momentum buffer, MXNet's state layout.

    The state is a momentum array (None when ``momentum == 0``); with
    ``multi_precision`` a float16 weight's state is ``(momentum or None, weight_fp32)``
    — the master copy *last*, as MXNet's ``mp_*`` kernels take it. Subclasses
    implement ``_update_impl(indices, weights, grads, states, multi_precision)`` over
    lists.
    """
    state_names = ('momentum',)
    master_copy_first = False
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
            return (self.create_state(index, master), master)
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
        # MXNet's fused multi-tensor kernels take dense arrays only: one row-sparse
        # array sends the whole group through the one-tensor kernels.
        fused = all(w.stype == 'default' and g.stype == 'default'
                    for w, g in zip(weights, grads))
        self._update_count(indices)
        lrs = self._get_lrs(indices)
        wds = self._get_wds(indices)
        for weight, grad, state, lr, wd in zip(weights, grads, states, lrs, wds):
            if multi_precision:
                mom, master = state
                self._update_one(master, grad.astype(np.float32), mom, lr, wd, fused,
                                 sparse_ok=False)
                nd.cast(master, dtype=weight.dtype, out=weight)
            else:
                self._update_one(weight, grad, state, lr, wd, fused, sparse_ok=True)

    def _update_one(self, weight, grad, mom, lr, wd, fused, sparse_ok):
        """Run the kernel MXNet would run for one (weight, grad, momentum) triple.

        ``sparse_ok`` is False for the multi-precision kernels, which have no row-sparse
        version: MXNet densifies the gradient for them.
        """
        dtype = weight.dtype
        lr, wd, momentum, rescale = _scalars(dtype, lr, wd, self.momentum, self.rescale_grad)
        clip = _kernel_clip(self.clip_gradient, dtype)
        use_momentum = mom is not None and self.momentum > 0

        if grad.stype == 'row_sparse' and sparse_ok and self.lazy_update:
            if use_momentum:
                lazy_rows(lambda w, m, g: sgd_momentum_step(w, g, m, lr, wd, momentum,
                                                            rescale, clip), grad, weight, mom)
            else:
                lazy_rows(lambda w, g: sgd_plain_step(w, g, lr, wd, rescale, clip),
                          grad, weight)
            return
        if grad.stype == 'row_sparse':
            grad = grad.tostype('default')
        if use_momentum:
            sgd_momentum_step(weight, grad, mom, lr, wd, momentum, rescale, clip)
        elif fused:
            # multi_sgd_update: the momentum form with a zero buffer.
            sgd_momentum_step(weight, grad, None, lr, wd, momentum, rescale, clip)
        else:
            sgd_plain_step(weight, grad, lr, wd, rescale, clip)


@register
class ccSGD(SGD):  # noqa: N801  (MXNet's name)
    """[Deprecated] The same optimizer as :class:`SGD`, kept for old code.

    MXNet 1.9.1 registers it without any warning; so does gluonedu.
    """
