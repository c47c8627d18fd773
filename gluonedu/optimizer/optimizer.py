"""The Optimizer base class and the registry of optimizers (MXNet 1.9.1 semantics).

An optimizer turns a gradient into a weight update. It is called per parameter, with
the parameter's *index* (an int, or a name), and keeps per-index counters so that
time-dependent rules (Adam's bias correction, schedules) see the right step. What it
needs to remember between steps (momentum, moment estimates, ...) lives in a *state*
object that :meth:`Optimizer.create_state` makes and the :class:`~.updater.Updater`
stores.

Every built-in optimizer reads a common preamble from this base class:

* the learning rate of index ``i`` is ``lr(num_update) * lr_mult[i]``, where
  ``lr(n)`` comes from ``lr_scheduler`` if one is set, and ``lr_mult`` from the Parameter
  (via ``param_dict``), from :meth:`set_lr_mult`, or 1;
* the weight decay of index ``i`` is ``wd * wd_mult[i]`` alike — when
  ``param_idx2name`` is given, names not ending in ``_weight`` or ``_gamma`` get
  ``wd_mult = 0`` (biases are not decayed);
* the gradient is first multiplied by ``rescale_grad`` (the Trainer sets 1/batch_size)
  and, if ``clip_gradient`` is set, clipped to [-clip_gradient, clip_gradient];
* the momentum-like hyperparameter (SGD's ``momentum``, Adam's ``beta1``; declared with
  :class:`ScheduledMomentum`) is the constructor's value, unless ``lr_scheduler`` also
  schedules momentum (:class:`~gluonedu.lr_scheduler.OneCycleScheduler`): then it is
  the scheduler's value at ``num_update``, read like the learning rate.
"""
import functools
import itertools
import warnings
from typing import NamedTuple

import numpy as np

from .. import ndarray as nd
from ..base import check_hyperparameter
from ..instrument.events import BUS
from ..lr_scheduler import LRScheduler
from .keywords import unknown_keyword_error
from .reporting import report_schedule

__all__ = ['Optimizer', 'register', 'create', 'accepts_lists', 'check_hyperparameter',
           'ScheduledMomentum', 'StepScalars', 'MultiPrecisionState', 'state_type',
           'STATE_TYPES']


class ScheduledMomentum:
    """The momentum-like hyperparameter of an optimizer, which a schedule may drive.

    Declared on the class (``momentum = ScheduledMomentum()`` in SGD, ``beta1 =
    ScheduledMomentum()`` in Adam). Reading ``opt.momentum`` gives the value last
    assigned, unless ``opt.lr_scheduler`` schedules momentum as well
    (``lr_scheduler.momentum_at(n)`` is not None, as for
    :class:`~gluonedu.lr_scheduler.OneCycleScheduler`): then it gives the scheduler's
    value at ``opt.num_update``. So the momentum follows the same clock as the learning
    rate, and every reader — the readable update, the fused fast path, instrumentation —
    sees the same value once the step is counted.
    """

    def __init__(self, default=None):
        self.default = default

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, opt, owner=None):
        if opt is None:
            return self
        scheduled = opt.scheduled_momentum()
        if scheduled is not None:
            return scheduled
        return opt.__dict__.get(self.name, self.default)

    def __set__(self, opt, value):
        opt.__dict__[self.name] = value


class StepScalars(NamedTuple):
    """What one update of a parameter reads at its start (:meth:`Optimizer.begin_step`).

    ``lr``: the learning rate (scheduled, times ``lr_mult``); ``wd``: the weight decay
    (times ``wd_mult``); ``t``: the parameter's update count, this update included.
    Numbers for one index; NumPy arrays, one entry per index, for a list of them.
    """
    lr: object
    wd: object
    t: object


#: Registered state types, by class name (saved states come back as these classes).
STATE_TYPES = {}


def state_type(cls):
    """Register a NamedTuple of state arrays (a class decorator).

    An optimizer's ``create_state`` returns one (e.g. ``AdamState(mean, var)``): it unpacks
    like MXNet's plain tuples, and its field names are the arrays' names everywhere —
    instrumentation events, norms, saved states, the fast path's kernel arguments.
    """
    STATE_TYPES[cls.__name__] = cls
    return cls


@state_type
class MultiPrecisionState(NamedTuple):
    """A float16 weight's state under ``multi_precision``: its float32 master copy and the
    optimizer's own state of that copy."""
    weight_fp32: object
    state: object


class Optimizer:
    """The base class of all optimizers.

    Parameters
    ----------
    rescale_grad : float, default 1.0
        Multiplies the gradient before anything else (the Trainer sets 1/batch_size).
    param_idx2name : dict of int -> str, optional
        Names of the indices; biases (names not ending in ``_weight``/``_gamma``) then
        get no weight decay.
    wd : float, default 0.0
        Weight decay (L2 penalty) coefficient.
    clip_gradient : float, optional
        Clip the rescaled gradient to [-clip_gradient, clip_gradient].
    learning_rate : float, optional
        Overrides the scheduler's base_lr if both are given; 0.01 if neither is.
    lr_scheduler : LRScheduler, optional
        Gives the learning rate as a function of the number of updates.
    sym : Symbol, optional
        Its arguments' ``lr_mult``/``wd_mult`` attributes give the default multipliers.
    begin_num_update : int, default 0
        The update count to start from.
    multi_precision : bool, default False
        Keep a float32 master copy of float16 weights and update that.
    param_dict : dict of index -> Parameter, optional
        Parameters whose ``lr_mult``/``wd_mult`` are read live at every update.
    """
    opt_registry = {}
    #: The attributes that change as the optimizer runs; a state file restores them as
    #: saved and rebuilds every other attribute through the constructor (rebuild.py).
    STATE_ATTRS = ('num_update', '_all_index_update_counts', 'lr_mult', 'wd_mult', 'sym_info',
                   'aggregate_num')

    def __init__(self, rescale_grad=1., param_idx2name=None, wd=0., clip_gradient=None,
                 learning_rate=None, lr_scheduler=None, sym=None, begin_num_update=0,
                 multi_precision=False, param_dict=None):
        if lr_scheduler is not None and not isinstance(lr_scheduler, LRScheduler):
            raise TypeError("lr_scheduler must be an mx.lr_scheduler.LRScheduler (e.g. "
                            "FactorScheduler(step=100)), got %s" % type(lr_scheduler).__name__)
        if learning_rate is not None:
            check_hyperparameter('learning_rate', learning_rate, low=0)
        self.rescale_grad = rescale_grad
        self.lr_scheduler = lr_scheduler
        if lr_scheduler is None and learning_rate is None:
            learning_rate = 0.01
        self.lr = learning_rate
        if lr_scheduler is not None and learning_rate is not None and \
                lr_scheduler.base_lr != learning_rate:
            # MXNet prints (rather than warns) this; a real warning is easier to see and filter.
            warnings.warn("learning rate from ``lr_scheduler`` has been overwritten by "
                          "``learning_rate`` in optimizer.", UserWarning, stacklevel=2)
            lr_scheduler.base_lr = learning_rate
        self.wd = wd
        self.lr_mult = {}
        self.wd_mult = {}
        self.begin_num_update = begin_num_update
        self.num_update = begin_num_update
        self._all_index_update_counts = {0: {}}
        self._index_update_count = self._all_index_update_counts[0]
        # While an Updater reports a call: what begin_step worked out (not saved).
        self._step_log = None
        self.clip_gradient = clip_gradient
        self.multi_precision = multi_precision
        self.aggregate_num = 0
        if param_idx2name is None:
            param_idx2name = {}
        if not isinstance(param_idx2name, dict):
            raise AssertionError("param_idx2name should be a dict of param indexes to names.")
        self.idx2name = param_idx2name.copy()
        self.sym_info = (sym.attr_dict(), sym.list_arguments()) if sym is not None else ()
        self.param_dict = param_dict if param_dict else {}
        self.set_lr_mult({})
        self.set_wd_mult({})
        if lr_scheduler is not None and lr_scheduler.momentum_at(begin_num_update) is not None \
                and self.momentum_hyperparameter() is None:
            raise ValueError("lr_scheduler %r also schedules momentum, but %s has no momentum "
                             "to schedule; build the scheduler with cycle_momentum=False"
                             % (lr_scheduler, type(self).__name__))

    # ------------------------------------------------------------------ registry
    @staticmethod
    def register(klass):
        """Register an Optimizer subclass under its lower-cased class name (a decorator)."""
        if not isinstance(klass, type):
            raise TypeError("register() expects an Optimizer class, got %r" % (klass,))
        name = klass.__name__.lower()
        if name in Optimizer.opt_registry:
            old = Optimizer.opt_registry[name]
            warnings.warn('New optimizer %s.%s is overriding existing optimizer %s.%s'
                          % (klass.__module__, klass.__name__, old.__module__, old.__name__),
                          stacklevel=2)
        Optimizer.opt_registry[name] = klass
        return klass

    @staticmethod
    def create_optimizer(name, **kwargs):
        """An instance of the optimizer registered as ``name`` (case-insensitive)."""
        klass = Optimizer.opt_registry.get(str(name).lower())
        if klass is None:
            raise ValueError("Cannot find optimizer %r. Registered optimizers: %s. Register "
                             "your own with @mx.optimizer.register."
                             % (name, ', '.join(sorted(Optimizer.opt_registry))))
        try:
            return klass(**kwargs)
        except TypeError as error:
            advice = unknown_keyword_error(klass, kwargs, error)
            if advice is None:
                raise
            raise advice from None

    # ------------------------------------------------------------------ learning rate
    @property
    def learning_rate(self):
        """The current learning rate (from the scheduler, if one is set)."""
        if self.lr_scheduler is not None:
            return self.lr_scheduler(self.num_update)
        return self.lr

    def set_learning_rate(self, lr):
        """Set the learning rate. Not allowed when an lr_scheduler drives it.

        As in MXNet, that case raises ``UserWarning`` (as an exception).
        """
        if self.lr_scheduler is not None:
            raise UserWarning("LRScheduler of the optimizer has already been defined. "
                              "set_learning_rate can change the learning rate only when the "
                              "optimizer has no LRScheduler; change the scheduler's base_lr "
                              "instead.")
        check_hyperparameter('learning_rate', lr, low=0)
        self.lr = lr

    def set_lr_scale(self, args_lrscale):
        """[Deprecated] Use :meth:`set_lr_mult`."""
        raise DeprecationWarning("set_lr_scale is deprecated: use set_lr_mult")

    def set_lr_mult(self, args_lr_mult):
        """Set learning-rate multipliers by parameter name or index (over the symbol's)."""
        self.lr_mult = self._symbol_mults('__lr_mult__')
        self.lr_mult.update(args_lr_mult)

    def set_wd_mult(self, args_wd_mult):
        """Set weight-decay multipliers by parameter name or index.

        Names from ``param_idx2name`` not ending in ``_weight`` or ``_gamma`` default to 0.
        """
        self.wd_mult = {}
        for name in self.idx2name.values():
            if not (name.endswith('_weight') or name.endswith('_gamma')):
                self.wd_mult[name] = 0.0
        self.wd_mult.update(self._symbol_mults('__wd_mult__'))
        self.wd_mult.update(args_wd_mult)

    def _symbol_mults(self, key):
        """The multipliers ``key`` that the symbol's arguments carry as attributes."""
        if not self.sym_info:
            return {}
        attrs, arg_names = self.sym_info
        return {name: float(attrs[name][key]) for name in arg_names
                if key in attrs.get(name, {})}

    # ------------------------------------------------------------------ momentum schedule
    @classmethod
    def momentum_hyperparameter(cls):
        """The name of the hyperparameter a momentum schedule drives ('momentum',
        'beta1'), or None if this optimizer has none (see :class:`ScheduledMomentum`)."""
        for klass in cls.__mro__:
            for name, value in vars(klass).items():
                if isinstance(value, ScheduledMomentum):
                    return name
        return None

    def scheduled_momentum(self):
        """The momentum ``lr_scheduler`` sets at the current ``num_update``, or None when
        it schedules none."""
        if self.lr_scheduler is None:
            return None
        return self.lr_scheduler.momentum_at(self.num_update)

    # ------------------------------------------------------------------ counters
    def _set_current_context(self, device_id):
        """Count updates separately per device (one updater per context)."""
        if device_id not in self._all_index_update_counts:
            self._all_index_update_counts[device_id] = {}
        self._index_update_count = self._all_index_update_counts[device_id]

    def _update_count(self, index):
        """Count one more update of ``index`` (or of each index of a list)."""
        for idx in (index if isinstance(index, (list, tuple)) else [index]):
            if idx not in self._index_update_count:
                self._index_update_count[idx] = self.begin_num_update
            self._index_update_count[idx] += 1
            self.num_update = max(self._index_update_count[idx], self.num_update)

    def begin_step(self, indices, per_call=1, lr_before_count=False):
        """Count one update of each index and read its lr, wd and count: a StepScalars.

        The step's bookkeeping, for the readable updates and the fast path alike.
        ``indices``: one index (the result holds numbers) or a list (NumPy arrays, one
        entry per index). The indices are counted in order, ``per_call`` at a time, as
        calls of the reference update count them: one by one (the one-tensor updates,
        ``per_call=1``), or a whole multi-tensor call before its learning rates are read
        (SGD, LARS). The scheduler sees ``num_update`` — the largest count so far — as it
        stands at each read. ``lr_before_count``: each index's lr is read before it is
        counted (LBSGD, as MXNet's).
        """
        single = not isinstance(indices, (list, tuple))
        indices = [indices] if single else list(indices)
        counts, begin = self._index_update_count, self.begin_num_update
        before = self.num_update
        distinct = set(indices)
        if len(distinct) == len(indices):   # each index once: count them all at once
            t = [counts.get(i, begin) + 1 for i in indices]
            counts.update(zip(indices, t))
        else:                                    # an index listed twice counts twice
            t = []
            for index in indices:
                counts[index] = counts.get(index, begin) + 1
                t.append(counts[index])
        seen = self._counts_seen(before, t, per_call, lr_before_count)
        # in order, once per distinct value: schedulers may keep state
        scheduled = {n: self._scheduled_lr(n) for n in dict.fromkeys(seen)}
        params = self.param_dict
        if params and params.keys() >= distinct:   # the Trainer's case, quickly
            lr_mults = [params[i].lr_mult for i in indices]
            wd_mults = [params[i].wd_mult for i in indices]
        else:
            lr_mults = [self._mult(i, self.lr_mult, 'lr_mult') for i in indices]
            wd_mults = [self._mult(i, self.wd_mult, 'wd_mult') for i in indices]
        if single:
            lr, wd = scheduled[seen[0]] * lr_mults[0], self.wd * wd_mults[0]
            if self._step_log is not None:   # an Updater reports them as the step's
                self._step_log.append((indices, [lr], [wd]))
            return StepScalars(lr, wd, t[0])
        # lr × lr_mult and wd × wd_mult, one float64 product per index (as Python's)
        lr_seen = scheduled[seen[0]] if len(scheduled) == 1 else [scheduled[n] for n in seen]
        lrs = np.multiply(lr_seen, lr_mults, dtype=np.float64)
        wds = np.multiply(self.wd, wd_mults, dtype=np.float64)
        if self._step_log is not None:
            self._step_log.append((indices, lrs, wds))
        return StepScalars(lrs, wds, np.array(t, dtype=np.int64))

    def _counts_seen(self, before, t, per_call, lr_before_count):
        """The num_update each index's lr read sees, and set ``num_update`` to the last:
        the largest count so far (``before``, then the counts ``t``), after the index's
        call of ``per_call`` indices (or before the index itself, with lr_before_count).
        """
        if t and t[0] >= before and min(t) == max(t):
            # The Trainer's usual step: every index at the same count, past num_update.
            self.num_update = t[0]
            return [before] + [t[0]] * (len(t) - 1) if lr_before_count else [t[0]] * len(t)
        running = list(itertools.accumulate(t, max, initial=before))
        self.num_update = running[-1]
        if lr_before_count:
            return running[:-1]
        if per_call == 1:
            return running[1:]
        last = len(t)
        return [running[min(k - k % per_call + per_call, last)] for k in range(last)]

    def _scheduled_lr(self, num_update):
        """The learning rate before multipliers: the scheduler's at ``num_update`` (reported
        as a ``schedule`` event), or lr."""
        if self.lr_scheduler is None:
            return self.lr
        lr = self.lr_scheduler(num_update)
        if BUS.active:
            report_schedule(self.lr_scheduler, num_update, lr)
        return lr

    def _get_lrs(self, indices):
        """Learning rates of ``indices``: scheduled (or fixed) lr times each lr_mult."""
        lr = self._scheduled_lr(self.num_update)
        return [lr * self._mult(index, self.lr_mult, 'lr_mult') for index in indices]

    def _get_lr(self, index):
        return self._get_lrs([index])[0]

    def _get_wds(self, indices):
        """Weight decays of ``indices``: wd times each wd_mult."""
        return [self.wd * self._mult(index, self.wd_mult, 'wd_mult') for index in indices]

    def _get_wd(self, index):
        return self._get_wds([index])[0]

    def _mult(self, index, mults, attr):
        if index in self.param_dict:
            return getattr(self.param_dict[index], attr)
        if index in mults:
            return mults[index]
        if index in self.idx2name:
            return mults.get(self.idx2name[index], 1.0)
        return 1.0

    # ------------------------------------------------------------------ states & updates
    #: The NamedTuple of this optimizer's state (its fields name the arrays), or None
    #: for an optimizer without state. A state of one array is that array itself, as
    #: in MXNet, and is named by the type's one field.
    state_type = None

    def create_state(self, index, weight):
        """The state (e.g. momentum) ``update`` needs for ``weight``; None if none."""
        return None

    def create_state_multi_precision(self, index, weight):
        """As :meth:`create_state`, plus a float32 master copy for float16 weights.

        With ``multi_precision=True`` a float16 weight gets the state
        ``MultiPrecisionState(weight_fp32, create_state(index, weight_fp32))``. Without
        it, float16 weights are updated in float16, with a warning.
        """
        if self.multi_precision and weight.dtype == np.float16:
            master = weight.astype(np.float32)
            return MultiPrecisionState(master, self.create_state(index, master))
        if weight.dtype == np.float16 and not self.multi_precision:
            warnings.warn("Accumulating with float16 in optimizer can lead to poor accuracy or "
                          "slow convergence. Consider using multi_precision=True option of "
                          "the optimizer", stacklevel=2)
        return self.create_state(index, weight)

    def update(self, index, weight, grad, state):
        """Update ``weight`` in place from ``grad`` and ``state``.

        ``index``, ``weight``, ``grad`` and ``state`` may also be lists (one entry per
        parameter) for the built-in optimizers.
        """
        raise NotImplementedError("%s must implement update(index, weight, grad, state)"
                                  % type(self).__name__)

    def update_multi_precision(self, index, weight, grad, state):
        """Update, going through the float32 master copy for float16 weights."""
        if isinstance(index, (list, tuple)):
            for i, w, g, s in zip(index, weight, grad, state):
                self.update_multi_precision(i, w, g, s)
            return
        if self.multi_precision and weight.dtype == np.float16:
            master, inner_state = state
            self.update(index, master, grad.astype(np.float32), inner_state)
            nd.cast(master, dtype=weight.dtype, out=weight)
        else:
            self.update(index, weight, grad, state)

    def named_states(self, state, weight=None):
        """``[(name, array)]``: the arrays of a ``state``, named by its fields.

        A float32 master copy (multi_precision) is 'weight_fp32' and comes first; a state
        that is one bare array takes the one field of :attr:`state_type`; the arrays of a
        tuple without field names are 'state0', 'state1', ... . ``weight`` is accepted
        for compatibility and not needed.
        """
        named = list(_named_arrays(state, self.state_type))
        named.sort(key=lambda item: item[0] != 'weight_fp32')   # stable: the master first
        return named

    # ------------------------------------------------------------------ the fast path
    # An optimizer with a fast path defines fused_step(self, run) in its own class (see
    # gluonedu.optimizer.fastpath and docs/fused.md); the fused executor calls it.

    #: Whether ``fused_step`` makes one kernel pass over all the parameters (then the
    #: norms a Recorder asks for are summed inside that pass).
    fused_one_pass = True

    def fused_refusal(self, indices, weights, grads):
        """Why these parameters cannot take this optimizer's fast path (a str), or None.

        Checked before anything is counted; the reference path then runs. By default
        row_sparse gradients are declined (they need a lazy kernel).
        """
        if any(g.stype == 'row_sparse' for g in grads):
            return 'row_sparse gradients: %s has no lazy kernel' % type(self).__name__
        return None

    # ------------------------------------------------------------------ helpers for subclasses
    def _rescaled(self, grad):
        """``clip(grad * rescale_grad, clip_gradient)``: the common first step."""
        grad = grad * self.rescale_grad
        if self.clip_gradient is not None:
            grad = nd.clip(grad, -self.clip_gradient, self.clip_gradient)
        return grad

    def __repr__(self):
        return '%s(learning_rate=%r, wd=%r)' % (type(self).__name__, self.learning_rate, self.wd)


def _named_arrays(state, kind):
    """(name, array) pairs of ``state`` (see :meth:`Optimizer.named_states`)."""
    if state is None:
        return
    if isinstance(state, nd.NDArray):
        fields = getattr(kind, '_fields', ())
        yield (fields[0] if len(fields) == 1 else 'state0'), state
        return
    if isinstance(state, MultiPrecisionState):
        yield 'weight_fp32', state.weight_fp32
        yield from _named_arrays(state.state, kind)
        return
    fields = getattr(state, '_fields', None)
    if fields is None:
        for i, array in enumerate(_arrays_in(state)):
            yield 'state%d' % i, array
        return
    for field, part in zip(fields, state):
        if isinstance(part, nd.NDArray):
            yield field, part
        elif part is not None:
            yield from _named_arrays(part, kind)


def merge_update_counts(optimizer, other):
    """Fold ``other``'s per-device, per-index update counts into ``optimizer``'s (the
    larger count wins), and its ``num_update``: a distributed store joins the counters
    its servers kept."""
    for device, counts in other._all_index_update_counts.items():
        mine = optimizer._all_index_update_counts.setdefault(device, {})
        for index, count in counts.items():
            mine[index] = max(mine.get(index, 0), count)
    optimizer.num_update = max(optimizer.num_update, other.num_update)


def rebuilt(like, items):
    """A container like ``like`` (a list, a tuple, a state NamedTuple) holding ``items``."""
    if isinstance(like, list):
        return list(items)
    return type(like)(*items) if hasattr(like, '_fields') else tuple(items)


def _arrays_in(state):
    """The NDArrays of a (possibly nested) state, in order."""
    if isinstance(state, nd.NDArray):
        yield state
    elif isinstance(state, (tuple, list)):
        for item in state:
            yield from _arrays_in(item)


def accepts_lists(update_one):
    """Let an ``update`` written for one dense tensor also take lists of them, and csr ones.

    MXNet's multi-tensor calls pass lists of indices, weights, grads and states; the
    readable reference path handles them one parameter at a time. A csr weight (and its
    csr states) is updated through dense stand-ins written back afterwards, as MXNet's
    kernels compute csr arrays ("storage fallback"), so the formula sees dense arrays.
    """
    @functools.wraps(update_one)
    def update(self, index, weight, grad, state):
        if isinstance(index, (list, tuple)):
            for i, w, g, s in zip(index, weight, grad, state):
                _update_csr_densely(update_one, self, i, w, g, s)
        else:
            _update_csr_densely(update_one, self, index, weight, grad, state)
    return update


def _update_csr_densely(update_one, optimizer, index, weight, grad, state):
    """``update_one(...)``, with dense stand-ins for a csr weight and csr states."""
    csr = [a for a in [weight] + list(_arrays_in(state)) if a.stype == 'csr']
    if not csr:
        return update_one(optimizer, index, weight, grad, state)
    dense = {id(a): a.tostype('default') for a in csr}

    def stand_in(item):
        if isinstance(item, (tuple, list)):
            return rebuilt(item, [stand_in(part) for part in item])
        return dense.get(id(item), item)
    update_one(optimizer, index, stand_in(weight), grad, stand_in(state))
    for array in csr:
        array[:] = dense[id(array)]


register = Optimizer.register
create = Optimizer.create_optimizer
