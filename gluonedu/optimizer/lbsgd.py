"""LBSGD: large-batch SGD with gradient accumulation and learning-rate warmup, as MXNet 1.9.1's.

LBSGD emulates a batch ``batch_scale`` times larger than the real one: it sums the
gradients of ``batch_scale`` consecutive calls per parameter and steps (SGD with
momentum) only on the last of them, with the averaged gradient. The learning rate is
warmed up over the first ``warmup_epochs * updates_per_epoch`` accumulated gradients
from ``lr`` to ``lr * batch_scale`` (the linear scaling rule), or scaled per layer
by a LARS-like trust ratio (``warmup_strategy='lars'``).

The step is SGD's; we reuse the SGD kernels of :mod:`.sgd`.
"""
import logging
import math
import warnings

import numpy as np

from .. import ndarray as nd
from .fastpath import Kernel, per_t
from .kernels import clip_constant, kernel_clip, kernel_scalars
from .optimizer import Optimizer, register, accepts_lists, check_hyperparameter
from .sgd import MomentumMPState, MomentumState, _step_of, sgd_step

__all__ = ['LBSGD']

_WARMUP_STRATEGIES = ('linear', 'power2', 'sqrt', 'lars')


def _add_gradients(total, grad):
    """``total + grad``, staying row-sparse (over the union of rows) when both are."""
    if total.stype == 'row_sparse' and grad.stype == 'row_sparse':
        rows = np.union1d(total.indices.asnumpy(), grad.indices.asnumpy()).astype(np.int64)
        dense = total.tostype('default') + grad.tostype('default')
        return nd.sparse.row_sparse_array((dense[nd.array(rows, dtype=np.int64)], rows),
                                          shape=dense.shape, ctx=dense.context)
    return total.tostype('default') + grad.tostype('default')


def _divide(grad, divisor):
    """``grad / divisor``, staying row-sparse when ``grad`` is."""
    if grad.stype == 'row_sparse':
        return nd.sparse.row_sparse_array((grad.data / divisor, grad.indices),
                                          shape=grad.shape, ctx=grad.context)
    return grad / divisor


def lbsgd_momentum(weight, grad, momentum, cum, lr, wd, momentum_coef, batch_scale, accumulated,
                   rescale, clip):
    """LBSGD's step with momentum on one element: the average of the accumulated
    gradients, then SGD's momentum step (``lr`` already warmed up).

    ``accumulated > 0``: this call's ``grad`` adds to the sum ``cum`` of earlier calls;
    else ``grad`` is the whole sum.
    """
    if accumulated > 0:
        grad = cum + grad
    grad = grad / batch_scale
    momentum = momentum_coef * momentum - (lr * wd) * weight - _step_of(grad, lr, rescale, clip)
    return weight + momentum, momentum


def lbsgd_plain(weight, grad, cum, lr, wd, one, batch_scale, accumulated, rescale, clip):
    """LBSGD's step without momentum on one element: the averaged gradient, then
    ``sgd_update``: w = (1 - lr*wd)*w - lr*clip(rescale*g)."""
    if accumulated > 0:
        grad = cum + grad
    grad = grad / batch_scale
    return ((one - lr * wd) * weight - _step_of(grad, lr, rescale, clip),)


LBSGD_MOMENTUM = Kernel(lbsgd_momentum, writes=('weight', 'momentum'), reads=('grad', 'cum'),
                        per_parameter=('lr', 'wd'))
LBSGD_PLAIN = Kernel(lbsgd_plain, writes=('weight',), reads=('grad', 'cum'),
                     per_parameter=('lr', 'wd'))


@register
class LBSGD(Optimizer):
    """Large-batch SGD: gradient accumulation, warmup, momentum and weight decay.

    Per parameter, every call adds ``grad`` to an accumulator and counts it
    (``num_cums``, starting at ``begin_epoch * updates_per_epoch + 1``). When
    ``num_cums % batch_scale == 0`` it steps with the average ``g = sum / batch_scale``::

        lr_t = lr * mult
        g'   = clip(rescale_grad * g, clip_gradient)
        mom  = momentum * mom - lr_t * wd * w - lr_t * g'          (with momentum)
        w    = w + mom
        w    = (1 - lr_t * wd) * w - lr_t * g'                     (without)

    and empties the accumulator; the other calls leave the weight unchanged. With
    ``N = warmup_epochs * updates_per_epoch``, ``n = num_cums`` and ``B = batch_scale``,
    ``mult`` is ``B`` once ``n >= N`` (or 1 if ``N <= 1``), and before that

    * ``'linear'``: ``1 + (B - 1) * n / N``
    * ``'power2'``: ``1 + (B - 1) * n**2 / N**2``
    * ``'sqrt'``:   ``1 + (B - 1) * sqrt(n / N)``
    * ``'lars'``:   ``clip(sqrt(||w||^2 / (||g||^2 + wd * ||w||^2 + 1e-18)), 0.01, 100)``
      at every step (no warmup)

    As MXNet, ``lr`` is read *before* this call is counted (a scheduler sees the
    previous update count), and ``num_epochs`` is stored but unused.

    Parameters
    ----------
    momentum : float, default 0.0
        Decay of the momentum buffer (>= 0).
    multi_precision : bool, default False
        Keep a float32 master copy of float16 weights.
    warmup_strategy : {'linear', 'power2', 'sqrt', 'lars'}, default 'linear'
    warmup_epochs : int, default 5
    batch_scale : int, default 1
        How many calls make one large batch (>= 1).
    updates_per_epoch : int, default 32
        Calls per epoch, for the warmup length.
    begin_epoch : int, default 0
        Epoch to resume from (the warmup counter starts there).
    num_epochs : int, default 60
        Stored for compatibility.
    **kwargs
        Passed to :class:`Optimizer` (``learning_rate``, ``wd``, ``rescale_grad``, ...).

    Notes
    -----
    The state is the momentum (None when ``momentum == 0``). Through the Updater a
    float16 weight with ``multi_precision=True`` gets the base class's
    ``(weight_fp32, momentum)``; :meth:`create_state` called directly on a float16
    weight returns MXNet's own ``(momentum, weight_fp32)``, which :meth:`update` also
    accepts. Row-sparse gradients update only their rows (MXNet's SGD kernels are lazy
    by default); the accumulated gradient keeps the union of the rows.
    """

    state_type = MomentumState

    STATE_ATTRS = Optimizer.STATE_ATTRS + ('init_updates', 'lbmult', 'cumgrads', 'adaptive',
                                           'admult')

    def __init__(self, momentum=0.0, multi_precision=False, warmup_strategy='linear',
                 warmup_epochs=5, batch_scale=1, updates_per_epoch=32, begin_epoch=0,
                 num_epochs=60, **kwargs):
        check_hyperparameter('momentum', momentum, low=0)
        check_hyperparameter('warmup_epochs', warmup_epochs, low=0)
        check_hyperparameter('updates_per_epoch', updates_per_epoch, low=0)
        check_hyperparameter('begin_epoch', begin_epoch, low=0)
        if isinstance(batch_scale, bool) or not isinstance(batch_scale, (int, np.integer)) \
                or batch_scale < 1:
            raise ValueError("batch_scale must be a positive integer (how many calls make one "
                             "large batch), got %r" % (batch_scale,))
        if warmup_strategy not in _WARMUP_STRATEGIES:
            # MXNet then silently applies no warmup; keep that, but say so.
            warnings.warn("unknown warmup_strategy %r: no warmup is applied. Choose one of %s."
                          % (warmup_strategy, ', '.join(_WARMUP_STRATEGIES)), stacklevel=2)
        super().__init__(**kwargs)
        logging.info('Running Large-Batch SGD Algorithm')
        logging.info('(Batch_scale=%f, warmup_epochs=%d, warmup_strategy=%s, '
                     'updates_per_epoch=%d)', batch_scale, warmup_epochs, warmup_strategy,
                     updates_per_epoch)
        self.momentum = momentum
        self.multi_precision = multi_precision
        self.warmup_strategy = warmup_strategy
        self.warmup_epochs = warmup_epochs
        self.batch_scale = batch_scale
        self.updates_per_epoch = updates_per_epoch
        self.init_updates = begin_epoch * updates_per_epoch
        self.num_epochs = num_epochs
        self.lbmult = 1
        self.cumgrads = {}       # index -> {'cum_grad': NDArray or 0, 'num_cums': int}
        self.adaptive = False    # kept for MXNet compatibility (unused there too)
        self.admult = 1

    # ------------------------------------------------------------------ states
    def create_state(self, index, weight):
        if self.multi_precision and weight.dtype == np.float16:
            master = weight.astype(np.float32)
            momentum = None
            if self.momentum != 0.0:
                momentum = nd.zeros(weight.shape, weight.context, dtype=np.float32,
                                    stype=weight.stype)
            return MomentumMPState(momentum, master)
        if weight.dtype == np.float16 and not self.multi_precision:
            warnings.warn("Accumulating with float16 in optimizer can lead to poor accuracy or "
                          "slow convergence. Consider using multi_precision=True option of "
                          "the LBSGD optimizer", stacklevel=2)
        if self.momentum == 0.0:
            return None
        return nd.zeros(weight.shape, weight.context, dtype=weight.dtype, stype=weight.stype)

    # ------------------------------------------------------------------ warmup
    def _get_lbmult(self, nup):
        """The warmup multiplier of the learning rate after ``nup`` accumulated gradients."""
        nwup = self.warmup_epochs * self.updates_per_epoch
        maxmult = float(self.batch_scale)
        if nup >= nwup:
            return maxmult
        if nwup <= 1:
            return 1.0
        if self.warmup_strategy == 'linear':
            return 1.0 + (maxmult - 1) * nup / nwup
        if self.warmup_strategy == 'power2':
            return 1.0 + (maxmult - 1) * (nup * nup) / (nwup * nwup)
        if self.warmup_strategy == 'sqrt':
            return 1.0 + (maxmult - 1) * math.sqrt(float(nup) / nwup)
        return 1.0

    def _l2norm(self, v):
        """The squared L2 norm ``sum(v * v)`` (in v's precision; the name is MXNet's)."""
        v = v.data if v.stype == 'row_sparse' else v
        return float((v * v).asnumpy().sum())

    def _get_lars(self, weight, g, wd):
        """The 'lars' strategy's multiplier, clipped to [0.01, 100]."""
        return self._lars_multiplier(self._l2norm(weight), self._l2norm(g), wd)

    @staticmethod
    def _lars_multiplier(weight2, grad2, wd):
        """``clip(sqrt(weight2 / (grad2 + wd * weight2 + 1e-18)), 0.01, 100)`` from the
        squared norms (also used by the fused path, which sums them per flat buffer)."""
        lars = math.sqrt(weight2 / (grad2 + wd * weight2 + 1e-18))
        return min(max(lars, 0.01), 100.0)

    # ------------------------------------------------------------------ accumulation
    def _reset_cum_gradient(self, index):
        """Empty the accumulator of ``index`` (its count keeps running)."""
        self.cumgrads[index]['cum_grad'] = 0

    def _get_cum_gradient(self, index):
        return self.cumgrads.get(index, {})

    def _put_cum_gradient(self, index, cgrad):
        self.cumgrads[index] = cgrad

    def _cumulate_gradient(self, grad, index):
        """Add ``grad`` to the accumulator of ``index``; return ``{'cum_grad', 'num_cums'}``.

        The first gradient is copied: MXNet keeps a reference to it, so a gradient
        buffer that is overwritten in place (as Gluon's are) would be counted twice.
        """
        cgrad = self._get_cum_gradient(index)
        if cgrad and cgrad['num_cums'] > 0:
            if isinstance(cgrad['cum_grad'], nd.NDArray):
                cum_grad = _add_gradients(cgrad['cum_grad'], grad)
            else:  # emptied after a step
                cum_grad = grad.copy()
            num_cums = cgrad['num_cums'] + 1
        else:
            cum_grad = grad.copy()
            num_cums = self.init_updates + 1
        cgrad = {'cum_grad': cum_grad, 'num_cums': num_cums}
        self._put_cum_gradient(index, cgrad)
        return cgrad

    # ------------------------------------------------------------------ updates
    @accepts_lists
    def update(self, index, weight, grad, state):
        """Accumulate ``grad``; on every ``batch_scale``-th call, step ``weight`` in place."""
        # As MXNet: the learning rate is read before this update is counted.
        lr, wd, _ = self.begin_step(index, lr_before_count=True)

        cgrad = self._cumulate_gradient(grad, index)
        if cgrad['num_cums'] % self.batch_scale != 0:
            return  # still accumulating: the weight is left as it is
        grad = _divide(cgrad['cum_grad'], self.batch_scale)
        if self.warmup_strategy == 'lars':
            lbmult = self._get_lars(weight, grad, wd)
        else:
            lbmult = self._get_lbmult(cgrad['num_cums'])
        lr = lr * lbmult

        if isinstance(state, (list, tuple)):   # MXNet's own (momentum, weight_fp32) layout
            mom, master = state
            self._sgd_step(master, grad.astype(np.float32).tostype('default'), mom, lr, wd)
            nd.cast(master, dtype=weight.dtype, out=weight)
        else:
            self._sgd_step(weight, grad, state, lr, wd)
        self._reset_cum_gradient(index)

    def _sgd_step(self, weight, grad, mom, lr, wd):
        """MXNet's ``sgd_mom_update`` (with a momentum buffer) or ``sgd_update``, lazy
        for row-sparse gradients."""
        if weight.stype != 'default':
            raise NotImplementedError(
                "LBSGD updates dense weights; this weight is %s. Convert it with "
                "weight.tostype('default')" % weight.stype)
        dtype = weight.dtype
        lr, wd, momentum, rescale = kernel_scalars(dtype, lr, wd, self.momentum,
                                                   self.rescale_grad)
        sgd_step(weight, grad, mom, lr, wd, momentum, rescale,
                 kernel_clip(self.clip_gradient, dtype), multi_tensor=False)

    # ------------------------------------------------------------------ fast path
    # The sums of gradients live in one flat float32 buffer per run ('lbsgd_cum'). The
    # bookkeeping is left exactly as the reference leaves it: cumgrads[i] = {'cum_grad':
    # ..., 'num_cums': n}, cum_grad a view of the buffer while a sum is open and 0 after
    # a step, so that the reference path, or a saved state, can take over at any call.
    # A call either only accumulates (one array operation), or steps: the averaged
    # gradient and SGD's step at lr x multiplier in one kernel, the call's own gradient
    # added inside it.
    fused_one_pass = False   # a call that only accumulates runs no kernel

    def _phase(self, index):
        """(adds, num_cums): whether this call adds to an open sum, and its count after it
        (``_cumulate_gradient``'s cases)."""
        entry = self.cumgrads.get(index, {})
        if entry and entry['num_cums'] > 0:
            return isinstance(entry['cum_grad'], nd.NDArray), entry['num_cums'] + 1
        return False, self.init_updates + 1

    def fused_refusal(self, indices, weights, grads):
        why = super().fused_refusal(indices, weights, grads)
        if why:
            return why
        phases = set()
        for index, weight in zip(indices, weights):
            adds, num_cums = self._phase(index)
            phases.add((adds, num_cums % self.batch_scale == 0))
            if adds and not _holds_like(self.cumgrads[index]['cum_grad'], weight):
                return ('an accumulated gradient (LBSGD.cumgrads) that is not a dense float32 '
                        'array shaped and placed like its weight')
        if len(phases) > 1:
            return ('parameters at different points of their gradient accumulation '
                    '(batch_scale=%d): some step or start a sum while others do not'
                    % self.batch_scale)
        return None

    def fused_step(self, run):
        """:meth:`update` over a flat run whose parameters are at one point of their
        accumulation (see :meth:`fused_refusal`)."""
        indices = list(run.indices)
        step = self.begin_step(indices, lr_before_count=True)
        phases = [self._phase(i) for i in indices]
        adds = phases[0][0]
        counts = [n for _, n in phases]
        steps = counts[0] % self.batch_scale == 0
        grad = run.arrays['grad']
        # A step that starts no sum: the gradient is the whole sum.
        cum, views = self._open_sums(run, adds) if adds or not steps else (grad, None)
        if not steps:   # accumulate only; the weights stay as they are
            if adds:
                run.xp.add(cum, grad, out=cum)
            else:
                cum[...] = grad
            for index, view, n in zip(indices, views, counts):
                self.cumgrads[index] = {'cum_grad': view, 'num_cums': n}
            return
        if self.warmup_strategy == 'lars':
            multipliers = self._fused_lars(run, cum, grad, adds, step.wd)
        else:
            multipliers = per_t(np.array(counts), self._get_lbmult)
        common = dict(lr=step.lr * multipliers, wd=step.wd,
                      batch_scale=np.float32(self.batch_scale),
                      accumulated=np.float32(1 if adds else 0),
                      rescale=np.float32(self.rescale_grad),
                      clip=clip_constant(self.clip_gradient))
        if 'momentum' in run.arrays:   # the reference steps with momentum when it has one
            run(LBSGD_MOMENTUM, arrays={'cum': cum}, momentum_coef=np.float32(self.momentum),
                **common)
        else:
            run(LBSGD_PLAIN, arrays={'cum': cum}, one=np.float32(1), **common)
        for index, n in zip(indices, counts):
            self.cumgrads[index] = {'cum_grad': 0, 'num_cums': n}

    def _open_sums(self, run, adds):
        """The run's buffer of sums and its per-parameter views (the ``cum_grad`` arrays).
        ``adds``: a sum the reference path left in another array is copied in first."""
        cum = run.scratch('lbsgd_cum')
        views = run.memo.get('lbsgd_cum_views')
        if views is None:
            views = [nd.NDArray(cum[lo:hi].reshape(w.shape), w.context) for lo, hi, w in
                     zip(run.offsets[:-1], run.offsets[1:], run.weights)]
            run.memo['lbsgd_cum_views'] = views
        for index, view in zip(run.indices, views if adds else ()):
            held = self.cumgrads[index]['cum_grad']
            if held is not view:
                view[:] = held
        return cum, views

    def _fused_lars(self, run, cum, grad, adds, wds):
        """The 'lars' multipliers from Σw², Σg² per parameter of the weight and the
        averaged gradient, summed as the reference's ``float((v * v).asnumpy().sum())``."""
        average = run.scratch('lbsgd_average')
        if adds:
            run.xp.add(cum, grad, out=average)
        else:
            average[...] = grad
        run.xp.divide(average, np.float32(self.batch_scale), out=average)
        w2 = _float32_sums_of_squares(run, run.arrays['weight'])
        g2 = _float32_sums_of_squares(run, average)
        return np.array([self._lars_multiplier(a, b, float(wd))
                         for a, b, wd in zip(w2, g2, wds.tolist())])


def _holds_like(held, weight):
    """Whether the flat float32 buffer of ``weight``'s run can take the sum ``held``."""
    return (held.stype == 'default' and np.dtype(held.dtype) == np.float32 and
            held.shape == weight.shape and held.context == weight.context)


def _float32_sums_of_squares(run, buffer):
    """Σx² per parameter as ``float((x * x).asnumpy().sum())``: float32 squares, summed
    by NumPy in float32 (its pairwise sum gives the same bits on a flat piece as on the
    parameter's own array)."""
    squares = buffer * buffer
    if run.xp is not np:
        squares = run.xp.asnumpy(squares)
    return [float(squares[lo:hi].sum()) for lo, hi in zip(run.offsets[:-1].tolist(),
                                                          run.offsets[1:].tolist())]
