"""How each optimizer class maps onto a rule of :mod:`.rules`: its states and scalars.

A *spec* answers, for one optimizer instance and one group of parameters:

* which rule runs (``rule(optimizer)``; None, with a reason, when the configuration is
  one the fast path does not cover — the group then takes the reference path);
* which arrays of a parameter's state are the rule's state buffers (``split_state``);
* the per-segment scalars and constants of this step (``scalars``), computed from the
  same Python numbers the reference optimizer uses and rounded to float32 the same way.

Per-segment inputs arrive as :class:`Segments`: float64 arrays ``lr`` (scheduled lr ×
lr_mult) and ``wd`` (wd × wd_mult) and the int array ``t`` (each parameter's update
count after this step), read in the reference's order by the fused updater.
"""
import math

import numpy as np

from ...ndarray import NDArray
from ...ndarray import random as nd_random
from ..adadelta import AdaDelta
from ..adagrad import AdaGrad
from ..adam import Adam
from ..adamax import Adamax
from ..dcasgd import DCASGD
from ..ftml import FTML
from ..ftrl import Ftrl
from ..lamb import LAMB, l2norm
from ..lars import LARS, _NO_LARS_SUFFIXES, _sum_of_squares
from ..lbsgd import LBSGD
from ..nadam import Nadam
from ..nag import NAG
from ..rmsprop import RMSProp
from ..sgd import SGD, ccSGD
from ..sgld import SGLD
from ..signum import Signum

__all__ = ['SPECS', 'spec_for', 'Segments']

f32 = np.float32
OFF = f32(-1)  # "no clipping" for a rule


class Segments:
    """The per-parameter numbers of one fused step (one entry per parameter)."""

    def __init__(self, indices, lr, wd, t):
        self.indices = indices
        self.lr = lr
        self.wd = wd
        self.t = t


def _per_t(t, formula):
    """``formula(t)`` for each entry of ``t``, evaluated once per distinct value.

    The formulas are the reference's Python expressions on Python numbers, so the
    results match it exactly; usually every parameter has the same ``t``.
    """
    values = {int(v): formula(int(v)) for v in np.unique(t)}
    return np.array([values[int(v)] for v in t])


def _kernel_clip(clip_gradient):
    """MXNet's kernel convention: clip only for a positive bound."""
    if clip_gradient is None or not clip_gradient > 0:
        return OFF
    return f32(clip_gradient)


def _python_clip(clip_gradient):
    """The Python optimizers' convention: clip whenever a bound is set (a negative one is
    an error there, so the fast path declines it and the reference raises)."""
    return OFF if clip_gradient is None else f32(clip_gradient)


class Spec:
    """Base: the state is ``create_state``'s (a tuple, one array, or None)."""
    #: 'each': the reference counts an index and reads its lr, index by index.
    #: 'chunks': it counts a whole multi-tensor call before reading the lrs (SGD).
    counting = 'each'
    #: Under multi_precision the master copy is state[0] (generic) or state[1] (SGD's).
    master_first = True
    #: Whether ``run`` is one kernel call over ``group.kernel_arrays()``, so that the
    #: kernel can also sum the squares for the norms (``sums``) in the same pass.
    sums_in_kernel = True

    def rule(self, opt):
        """(rule name, None) or (None, why the fast path declines)."""
        raise NotImplementedError

    def refusal(self, opt, indices, weights):
        """Why this run of parameters cannot take the fast path (a reason the optimizer's
        per-parameter bookkeeping gives), or None. Checked before anything is counted."""
        return None

    def split_state(self, opt, state, multi_precision):
        """(master copy or None, [state arrays in the rule's order])."""
        master = None
        if multi_precision:
            master, state = state if self.master_first else state[::-1]
        if state is None:
            return master, []
        if isinstance(state, (tuple, list)):
            return master, [s for s in state if s is not None]
        return master, [state]

    def scalars(self, opt, seg):
        """(per-segment arrays, constants) for the rule."""
        raise NotImplementedError

    def run(self, opt, group, seg, backend, sums=None):
        """One step of the group: by default, the rule once over the flat buffers.

        ``sums``: passed to the backend's kernel (see ``sums_in_kernel``).
        """
        name, _ = self.rule(opt)
        per_segment, constants = self.scalars(opt, seg)
        backend.run(name, group, group.kernel_arrays(), per_segment, constants, sums)


# ---------------------------------------------------------------------------- SGD family
class SGDSpec(Spec):
    counting = 'chunks'
    master_first = False

    def rule(self, opt):
        return ('sgd_momentum' if opt.momentum > 0 else 'sgd_no_momentum'), None

    def scalars(self, opt, seg):
        rescale, clip = f32(opt.rescale_grad), _kernel_clip(opt.clip_gradient)
        if opt.momentum > 0:
            return ([seg.lr, seg.wd, np.full(len(seg.lr), opt.momentum)], [rescale, clip])
        return [seg.lr, seg.wd], [f32(0), rescale, clip]


class NAGSpec(Spec):
    master_first = False

    def rule(self, opt):
        return ('nag_momentum' if opt.momentum > 0 else 'sgd_plain'), None

    def scalars(self, opt, seg):
        rescale, clip = f32(opt.rescale_grad), _kernel_clip(opt.clip_gradient)
        if opt.momentum > 0:
            momentum = f32(opt.momentum)
            return [seg.lr, seg.wd], [momentum, momentum + 1, rescale, clip]
        return [seg.lr, seg.wd], [f32(1), rescale, clip]


class LARSSpec(SGDSpec):
    """LARS: SGD's rule at a per-layer lr; the trust ratios come from segment norms.

    The reference reads lr (and shifts its momentum correction) once per multi-tensor
    call of ``aggregate_num`` parameters, so we call its own methods chunk by chunk.
    """
    counting = 'custom'

    def rule(self, opt):
        return 'sgd_momentum', None

    def run(self, opt, group, seg, backend, sums=None):
        indices = seg.indices
        size = max(1, opt.aggregate_num) if group.aggregated else 1
        w_sq, g_sq = self._sums_of_squares(group, backend)
        lrs, wds, moms = [], [], []
        for start in range(0, len(indices), size):
            chunk = list(indices[start:start + size])
            opt._update_count(chunk)
            lr_chunk, wd_chunk = opt._get_lrs(chunk), opt._get_wds(chunk)
            momentum = opt._momentum_now() if opt.momentum > 0 else 0.0
            for j, (i, lr, wd) in enumerate(zip(chunk, lr_chunk, wd_chunk)):
                k = start + j
                lrs.append(self._layer_lr(opt, i, w_sq[k], g_sq[k], lr, wd))
                wds.append(wd)
                moms.append(momentum)
        seg.t = np.array([opt._index_update_count[i] for i in indices])
        constants = [f32(opt.rescale_grad), _kernel_clip(opt.clip_gradient)]
        backend.run('sgd_momentum' if opt.momentum > 0 else 'sgd_no_momentum', group,
                    group.kernel_arrays(),
                    [np.array(lrs, dtype=np.float64), np.array(wds), np.array(moms)]
                    if opt.momentum > 0 else [np.array(lrs, dtype=np.float64), np.array(wds)],
                    constants if opt.momentum > 0 else [f32(0)] + constants, sums)

    @staticmethod
    def _sums_of_squares(group, backend):
        """Σw², Σg² per parameter, squares in the arrays' dtype (MXNet's multi_sum_sq)."""
        if backend.name == 'numba' and not group.multi_precision:
            return backend.segment_sums_of_squares(group, [group.weight, group.grad])
        w = [_sum_of_squares(x, square_in_float32=False) for x in group.weight_views()]
        g = [_sum_of_squares(x, square_in_float32=False) for x in group.grad_views()]
        return w, g

    @staticmethod
    def _layer_lr(opt, index, w_sum_sq, g_sum_sq, lr, wd):
        """The trust-ratio lr, as :meth:`LARS._layer_lr` computes it on the fused path."""
        if opt.idx2name.get(index, str(index)).endswith(_NO_LARS_SUFFIXES):
            return lr
        w_norm = np.sqrt(f32(w_sum_sq))
        g_norm = np.sqrt(f32(g_sum_sq)) * f32(abs(opt.rescale_grad))
        if w_norm > 0 and g_norm > 0:
            return f32(lr) * (f32(opt.eta) * w_norm / (g_norm + f32(wd) * w_norm + f32(opt.eps)))
        return f32(lr)


class SignumSpec(Spec):
    def rule(self, opt):
        return ('signum' if opt.momentum > 0 else 'signsgd'), None

    def scalars(self, opt, seg):
        rescale, clip = f32(opt.rescale_grad), _kernel_clip(opt.clip_gradient)
        wd_lh = f32(opt.wd_lh or 0.0)
        if opt.momentum > 0:
            momentum = f32(opt.momentum)
            return [seg.lr, seg.wd], [f32(1), momentum, 1 - momentum, rescale, clip, wd_lh]
        wd_total = seg.wd.astype(np.float32) + wd_lh  # float32 sum, as the reference
        return [seg.lr, wd_total], [f32(1), rescale, clip]


class DCASGDSpec(Spec):
    def rule(self, opt):
        if opt.clip_gradient is not None and opt.clip_gradient < 0:
            return None, 'a negative clip_gradient (the reference raises)'
        return ('dcasgd_momentum' if opt.momentum != 0.0 else 'dcasgd'), None

    def scalars(self, opt, seg):
        constants = [f32(opt.rescale_grad), _python_clip(opt.clip_gradient), f32(opt.lamda)]
        if opt.momentum != 0.0:
            constants.insert(0, f32(opt.momentum))
        return [-seg.lr, seg.wd], constants


class LBSGDSpec(Spec):
    """LBSGD: per-parameter gradient accumulation, the warmup multiplier, SGD's step.

    The sums of gradients live in one flat float32 buffer per group (``lbsgd_cum``).
    The optimizer's own bookkeeping is left exactly as the reference leaves it:
    ``cumgrads[i] = {'cum_grad': ..., 'num_cums': n}``, with ``cum_grad`` a view of the
    buffer while a sum is open and 0 after a step, so that the reference path, or a
    saved state, can take over at any call (an entry the reference left is copied back
    into the buffer). A call either only accumulates (one array operation), or steps:
    the averaged gradient and SGD's step at ``lr × multiplier`` in one kernel
    (``lbsgd_momentum`` with a momentum state, else ``lbsgd_plain``), the call's own
    gradient added inside it. Multipliers: ``LBSGD._get_lbmult(num_cums)``, or for
    'lars' ``LBSGD._lars_multiplier`` from float32 sums per parameter (NumPy's, as the
    reference) of the weight and the averaged gradient.

    Declined (reference path): parameters of one run at different points of their
    cycle (some stepping while others accumulate, or some starting a sum while others
    add to one), and a sum left in an array the buffer cannot hold.
    """
    counting = 'read_first'   # the reference reads lr before counting the update
    sums_in_kernel = False    # a call that only accumulates runs no kernel

    def rule(self, opt):
        return ('lbsgd_momentum' if opt.momentum != 0.0 else 'lbsgd_plain'), None

    @staticmethod
    def _phase(opt, index):
        """(adds, num_cums): whether this call adds to an open sum, and its count after it
        (``LBSGD._cumulate_gradient``'s cases)."""
        entry = opt.cumgrads.get(index, {})
        if entry and entry['num_cums'] > 0:
            return isinstance(entry['cum_grad'], NDArray), entry['num_cums'] + 1
        return False, opt.init_updates + 1

    def refusal(self, opt, indices, weights):
        phases = set()
        for index, weight in zip(indices, weights):
            adds, num_cums = self._phase(opt, index)
            phases.add((adds, num_cums % opt.batch_scale == 0))
            if adds and not _holds_like(opt.cumgrads[index]['cum_grad'], weight):
                return ('an accumulated gradient (LBSGD.cumgrads) that is not a dense float32 '
                        'array shaped and placed like its weight')
        if len(phases) > 1:
            return ('parameters at different points of their gradient accumulation '
                    '(batch_scale=%d): some step or start a sum while others do not'
                    % opt.batch_scale)
        return None

    def run(self, opt, group, seg, backend, sums=None):
        assert sums is None, 'LBSGD measures its norms after the step'
        indices = seg.indices
        phases = [self._phase(opt, i) for i in indices]
        adds = phases[0][0]
        counts = [n for _, n in phases]
        steps = counts[0] % opt.batch_scale == 0   # the same for all: see refusal
        grad = group.kernel_arrays()[1]
        cum, views = (self._open_sums(opt, group, indices, adds) if adds or not steps
                      else (grad, None))   # a step that starts no sum: g is the whole sum
        if not steps:   # accumulate only; the weights stay as they are
            if adds:
                group.xp.add(cum, grad, out=cum)
            else:
                cum[...] = grad
            for index, view, n in zip(indices, views, counts):
                opt.cumgrads[index] = {'cum_grad': view, 'num_cums': n}
            return
        if opt.warmup_strategy == 'lars':
            multipliers = self._lars(opt, group, cum, grad, adds, seg.wd)
        else:
            multipliers = _per_t(np.array(counts), opt._get_lbmult)
        per_segment = [seg.lr * multipliers, seg.wd]
        tail = [f32(opt.batch_scale), f32(1) if adds else OFF, f32(opt.rescale_grad),
                _kernel_clip(opt.clip_gradient)]
        arrays = group.kernel_arrays() + [cum]
        if group.states:   # the reference steps with momentum when the state holds one
            backend.run('lbsgd_momentum', group, arrays, per_segment,
                        [f32(opt.momentum)] + tail)
        else:
            backend.run('lbsgd_plain', group, arrays, per_segment, [f32(1)] + tail)
        for index, n in zip(indices, counts):
            opt.cumgrads[index] = {'cum_grad': 0, 'num_cums': n}

    @staticmethod
    def _open_sums(opt, group, indices, adds):
        """The group's buffer of sums and its per-parameter views (the ``cum_grad`` arrays).
        ``adds``: a sum the reference path left in another array is copied in first."""
        cum = group.scratch('lbsgd_cum')
        views = group.memo.get('lbsgd_cum_views')
        if views is None:
            views = [NDArray(cum[lo:hi].reshape(w.shape), w.context) for lo, hi, w in
                     zip(group.offsets[:-1], group.offsets[1:], group.weights)]
            group.memo['lbsgd_cum_views'] = views
        for index, view in zip(indices, views if adds else ()):
            held = opt.cumgrads[index]['cum_grad']
            if held is not view:
                view._data[...] = held._data
        return cum, views

    @staticmethod
    def _lars(opt, group, cum, grad, adds, wds):
        """The 'lars' multipliers from Σw², Σg² per parameter of the weight and the
        averaged gradient, summed as the reference's ``float((v * v).asnumpy().sum())``."""
        xp = group.xp
        average = group.scratch('lbsgd_average')
        if adds:
            xp.add(cum, grad, out=average)
        else:
            average[...] = grad
        xp.divide(average, f32(opt.batch_scale), out=average)
        w2 = _float32_sums_of_squares(group, group.kernel_arrays()[0])
        g2 = _float32_sums_of_squares(group, average)
        return np.array([opt._lars_multiplier(a, b, float(wd))
                         for a, b, wd in zip(w2, g2, wds.tolist())])


def _holds_like(held, weight):
    """Whether the flat float32 buffer of ``weight``'s group can take the sum ``held``."""
    return (held.stype == 'default' and held._data.dtype == np.float32 and
            held._data.shape == weight._data.shape and
            (held._ctx is weight._ctx or held._ctx == weight._ctx))


def _float32_sums_of_squares(group, buffer):
    """Σx² per parameter as ``float((x * x).asnumpy().sum())``: float32 squares, summed
    by NumPy in float32 (its pairwise sum gives the same bits on a flat piece as on the
    parameter's own array)."""
    squares = buffer * buffer
    if group.xp is not np:
        squares = group.xp.asnumpy(squares)
    return [float(squares[lo:hi].sum()) for lo, hi in zip(group.offsets[:-1].tolist(),
                                                          group.offsets[1:].tolist())]


class SGLDSpec(Spec):
    """SGLD: the deterministic half-step and the reference's own noise, in one pass.

    The reference draws, parameter by parameter in order, ``nd.random.normal(0,
    sqrt(lr), shape=w.shape, dtype=w.dtype, ctx=w.context)``, and nothing else draws in
    between; so the group's noise can be drawn before the pass into a scratch buffer
    (:func:`_sgld_noise`), the very same numbers.
    """
    sums_in_kernel = True

    def rule(self, opt):
        if opt.clip_gradient is not None and opt.clip_gradient < 0:
            return None, 'a negative clip_gradient (the reference raises)'
        if getattr(opt._noise, '__func__', None) is not _SGLD_NOISE or \
                nd_random.normal is not _NORMAL:
            return None, ('SGLD._noise or mx.nd.random.normal is replaced (the reference '
                          'draws its noise through them)')
        return 'sgld', None

    def run(self, opt, group, seg, backend, sums=None):
        noise = _sgld_noise(group, seg.lr)
        backend.run('sgld', group, group.kernel_arrays() + [noise], [-seg.lr / 2, seg.wd],
                    [f32(opt.rescale_grad), _python_clip(opt.clip_gradient)], sums)


_SGLD_NOISE = SGLD._noise      # what the reference draws through, as imported
_NORMAL = nd_random.normal


def _sgld_noise(group, lrs):
    """SGLD's noise for the group: N(0, lr_k) for parameter k, drawn as the reference draws
    it, in a float32 scratch buffer.

    With NumPy's Generator (CPU contexts) one ``standard_normal`` call fills a float64
    scratch: ``normal(0, s, n)`` computes ``0 + s * z`` from the same standard normals z,
    one after the other, wherever calls split the stream; we scale each parameter's
    piece by its ``math.sqrt(lr)`` and round to float32 (the reference's ``astype``).
    Other generators (CuPy's draws in pairs, so splits matter) get the reference's own
    call per parameter, copied in.
    """
    noise = group.scratch('sgld_noise')
    context = group.weights[0].context
    scales = np.array([math.sqrt(lr) for lr in lrs.tolist()])   # the reference's own sqrt
    generator = nd_random.random_state(context)
    if isinstance(generator, np.random.Generator):
        normals = group.scratch('sgld_normals', np.float64)
        generator.standard_normal(out=normals)
        normals *= scales[0] if (scales == scales[0]).all() else group.expand(scales)
        np.add(normals, 0.0, out=noise)   # "0 + s*z" (a -0.0 becomes 0.0), then rounded
        return noise
    for piece, weight, scale in zip(group.views_of(noise), group.weights, scales.tolist()):
        sample = nd_random.normal(0, scale, shape=weight.shape, dtype=np.float32,
                                  ctx=context)
        piece._data[...] = sample._data.reshape(-1)
    return noise


# ---------------------------------------------------------------------------- Adam family
class AdamSpec(Spec):
    def rule(self, opt):
        return 'adam', None

    def scalars(self, opt, seg):
        correction = _per_t(seg.t, lambda t: math.sqrt(1. - opt.beta2 ** t) / (1. - opt.beta1 ** t))
        beta1, beta2 = f32(opt.beta1), f32(opt.beta2)
        return ([seg.lr * correction, seg.wd],
                [f32(opt.rescale_grad), _kernel_clip(opt.clip_gradient), beta1, beta2,
                 1 - beta1, 1 - beta2, f32(opt.epsilon)])


class AdamaxSpec(Spec):
    def rule(self, opt):
        if opt.clip_gradient is not None and opt.clip_gradient < 0:
            return None, 'a negative clip_gradient (the reference raises)'
        return 'adamax', None

    def scalars(self, opt, seg):
        lr = seg.lr / _per_t(seg.t, lambda t: 1. - opt.beta1 ** t)
        return ([lr, seg.wd], [f32(opt.rescale_grad), _python_clip(opt.clip_gradient),
                               f32(opt.beta1), f32(opt.beta2), f32(1. - opt.beta1)])


class NadamSpec(Spec):
    def rule(self, opt):
        if opt.clip_gradient is not None and opt.clip_gradient < 0:
            return None, 'a negative clip_gradient (the reference raises)'
        return 'nadam', None

    def scalars(self, opt, seg):
        # The reference multiplies the optimizer-wide m_schedule index by index, in order.
        mu = _per_t(seg.t, lambda t: opt.beta1 * (1. - 0.5 * 0.96 ** (t * opt.schedule_decay)))
        mu_next = _per_t(seg.t, lambda t: opt.beta1 *
                         (1. - 0.5 * 0.96 ** ((t + 1) * opt.schedule_decay)))
        schedule = np.empty(len(mu))
        m_schedule = opt.m_schedule
        for k, m in enumerate(mu.tolist()):
            m_schedule = m_schedule * m
            schedule[k] = m_schedule
        opt.m_schedule = m_schedule
        return ([seg.lr, seg.wd, 1. - schedule, 1. - schedule * mu_next,
                 _per_t(seg.t, lambda t: 1. - opt.beta2 ** t), 1. - mu, mu_next],
                [f32(opt.rescale_grad), _python_clip(opt.clip_gradient), f32(opt.beta1),
                 f32(opt.beta2), f32(1. - opt.beta1), f32(1. - opt.beta2), f32(opt.epsilon)])


class LAMBSpec(Spec):
    """LAMB: phase 1 (moments, direction) per element; trust ratios from segment norms of
    the weight and the direction; phase 2 (the step) per element."""
    sums_in_kernel = False  # two kernels, and the second sees the direction, not g

    def rule(self, opt):
        return 'lamb_direction', None

    def split_state(self, opt, state, multi_precision):
        master = None
        if multi_precision:
            master, state = state
        return master, list(state)

    def run(self, opt, group, seg, backend, sums=None):
        assert sums is None, 'LAMB measures its norms after the step'
        beta1, beta2 = f32(opt.beta1), f32(opt.beta2)
        if opt.bias_correction:
            # The reference: scalar(1 - beta1 ** t), beta1 a float32 number.
            mean_scale = _per_t(seg.t, lambda t: f32(1 - beta1 ** t))
            var_scale = _per_t(seg.t, lambda t: f32(1 - beta2 ** t))
        else:
            mean_scale = var_scale = np.ones(len(seg.t), dtype=np.float32)
        direction = group.scratch('direction')
        arrays = group.kernel_arrays() + [direction]
        backend.run('lamb_direction', group, arrays, [seg.wd, mean_scale, var_scale],
                    [f32(opt.rescale_grad), _kernel_clip(opt.clip_gradient), beta1, beta2,
                     1 - beta1, 1 - beta2, f32(opt.epsilon)])
        r1 = self._weight_norms(group, backend)
        r2 = np.sqrt(np.asarray(backend.segment_sums_of_squares(group, [direction])[0],
                                dtype=np.float64).astype(np.float32)) \
            if backend.name == 'numba' else \
            np.array([l2norm(d) for d in group.views_of(direction)], dtype=np.float32)
        if opt.lower_bound:
            r1 = np.maximum(r1, f32(opt.lower_bound))
        if opt.upper_bound:
            r1 = np.minimum(r1, f32(opt.upper_bound))
        lr = seg.lr.astype(np.float32)
        with np.errstate(divide='ignore', invalid='ignore'):
            scaled = np.where((r1 == 0) | (r2 == 0), lr, lr * r1 / r2)
        backend.run('lamb_apply', group, [group.kernel_arrays()[0], direction], [scaled], [])

    @staticmethod
    def _weight_norms(group, backend):
        """||w|| per parameter (of the float16 weight under multi_precision, as MXNet)."""
        if backend.name == 'numba' and not group.multi_precision:
            sums = backend.segment_sums_of_squares(group, [group.weight])[0]
            return np.sqrt(np.asarray(sums, dtype=np.float64).astype(np.float32))
        return np.array([l2norm(w) for w in group.weight_views()], dtype=np.float32)


# ---------------------------------------------------------------------------- the rest
class RMSPropSpec(Spec):
    def rule(self, opt):
        return ('rmsprop_centered' if opt.centered else 'rmsprop'), None

    def scalars(self, opt, seg):
        gamma1 = f32(opt.gamma1)
        clip_weights = f32(opt.clip_weights) if opt.clip_weights is not None and \
            opt.clip_weights > 0 else OFF
        head = [f32(opt.rescale_grad), _kernel_clip(opt.clip_gradient), gamma1, 1 - gamma1]
        if opt.centered:
            return [seg.lr, seg.wd], head + [f32(opt.gamma2), f32(opt.epsilon), clip_weights]
        return [seg.lr, seg.wd], head + [f32(opt.epsilon), clip_weights]


class AdaGradSpec(Spec):
    def rule(self, opt):
        if opt.clip_gradient is not None and opt.clip_gradient < 0:
            return None, 'a negative clip_gradient (the reference raises)'
        return 'adagrad', None

    def scalars(self, opt, seg):
        return ([-seg.lr, seg.wd], [f32(opt.rescale_grad), _python_clip(opt.clip_gradient),
                                    f32(opt.float_stable_eps)])


class AdaDeltaSpec(Spec):
    def rule(self, opt):
        if opt.clip_gradient is not None and opt.clip_gradient < 0:
            return None, 'a negative clip_gradient (the reference raises)'
        return 'adadelta', None

    def scalars(self, opt, seg):
        return ([seg.wd], [f32(opt.rescale_grad), _python_clip(opt.clip_gradient),
                           f32(opt.rho), f32(1. - opt.rho), f32(opt.epsilon)])


class FTMLSpec(Spec):
    def rule(self, opt):
        return 'ftml', None

    def scalars(self, opt, seg):
        beta1, beta2 = f32(opt.beta1), f32(opt.beta2)
        lr32 = seg.lr.astype(np.float32)
        # The reference: scalar(scalar(1 - beta1 ** t) / lr), all float32 numbers.
        d_scale = np.array([f32(f32(1 - beta1 ** int(t)) / lr) for t, lr in zip(seg.t, lr32)],
                           dtype=np.float32)
        v_scale = _per_t(seg.t, lambda t: f32(1 - beta2 ** t))
        return ([seg.wd, d_scale, v_scale],
                [f32(opt.rescale_grad), _kernel_clip(opt.clip_gradient), beta1, beta2,
                 1 - beta1, 1 - beta2, f32(opt.epsilon)])


class FtrlSpec(Spec):
    def rule(self, opt):
        return 'ftrl', None

    def scalars(self, opt, seg):
        return ([seg.lr, seg.wd], [f32(opt.rescale_grad), _kernel_clip(opt.clip_gradient),
                                   f32(opt.lamda1), f32(opt.beta)])


#: Exact optimizer class -> spec. Subclasses are not matched: they may change the math.
#: Test has no spec and always takes the reference path.
SPECS = {
    SGD: SGDSpec(), ccSGD: SGDSpec(), NAG: NAGSpec(), LARS: LARSSpec(), Signum: SignumSpec(),
    DCASGD: DCASGDSpec(), LBSGD: LBSGDSpec(), SGLD: SGLDSpec(), Adam: AdamSpec(),
    Adamax: AdamaxSpec(), Nadam: NadamSpec(), LAMB: LAMBSpec(), RMSProp: RMSPropSpec(),
    AdaGrad: AdaGradSpec(), AdaDelta: AdaDeltaSpec(), FTML: FTMLSpec(), Ftrl: FtrlSpec(),
}


def spec_for(optimizer):
    """The spec of ``optimizer``'s exact class, or None."""
    return SPECS.get(type(optimizer))
