"""FusedUpdater: the Updater whose optimizer step runs over flat buffers.

It *is* an :class:`~gluonedu.optimizer.Updater` (same states, same ``get_states`` /
``set_states``, same instrumentation events): only ``_apply`` — "run the optimizer on
these parameters" — is replaced. For each run of parameters it

1. decides whether the fast path applies (:func:`fast_path_refusal`, then the
   optimizer's own ``fused_refusal``); if not, the run goes through the reference
   ``Updater._apply`` unchanged;
2. finds the run's flat buffers: a FlatGroup handed over by whoever owns the layout
   (:meth:`FusedUpdater.use_flat_groups`: the Trainer, the KVStore), or one of its own;
   the optimizer's states are laid out in the same segments (a :class:`~.run.FlatRun`);
   a run holding row_sparse gradients becomes a :class:`~.run.LazyRun` instead;
3. calls the optimizer's ``fused_step(run)`` (declared in the optimizer's own file, see
   :mod:`gluonedu.optimizer.fastpath`), which counts the updates and reads each
   parameter's lr and wd with ``begin_step`` — exactly as the reference — and applies
   its kernels (numba, NumPy or CuPy backend).

Which parameters take the fast path: dense weights of dtype float32, or float16 with
``multi_precision=True`` (the kernels then run on the float32 master copies); row_sparse
gradients where the optimizer updates them lazily. Everything else — row_sparse weights,
float16 without multi_precision, float64, a parameter listed twice, an optimizer
without a fast path (Test, subclasses), a configuration the optimizer declines (e.g.
LBSGD parameters at different points of their gradient accumulation), a momentum
schedule over parameters whose update counts differ — takes the reference path, one run
at a time.

A momentum schedule (:class:`~gluonedu.optimizer.optimizer.ScheduledMomentum`) needs
nothing else here: each ``fused_step`` reads ``self.momentum`` / ``self.beta1`` after
``begin_step`` has counted, as the reference does, and gets the scheduled value.

A *run* is what the reference processes as a unit: with aggregated optimizers (SGD,
LARS, LAMB) all parameters of one dtype, else each maximal stretch of consecutive
parameters of one dtype; so counting, scheduling and Nadam's running product see the
parameters in the reference's order.
"""
import os

import numpy as np

from ..fastpath import has_fast_path
from ..flat import FlatGroup
from ..reporting import Measures
from ..updater import Updater
from .run import FlatRun, LazyRun

__all__ = ['FusedUpdater', 'fast_path_refusal', 'backend_name']


def backend_name(context, requested=None):
    """'cupy', 'numba' or 'numpy': the backend a fused step uses on ``context``.

    ``requested`` (or the environment variable ``GLUONEDU_FUSED_BACKEND``) may force
    'numpy' (or 'numba'/'cupy' where available).
    """
    from ..._numba import available as numba_available
    requested = requested or os.environ.get('GLUONEDU_FUSED_BACKEND') or None
    if context.device_type == 'gpu':
        return 'numpy' if requested == 'numpy' else 'cupy'
    if requested == 'numpy':
        return 'numpy'
    if requested == 'numba' and not numba_available():
        raise RuntimeError("the 'numba' backend was asked for but numba is not installed "
                           "(pip install 'gluonedu[fast]') or GLUONEDU_NUMBA=0 is set")
    return 'numba' if numba_available() else 'numpy'


def _make_backend(name):
    if name == 'numba':
        from .numba_backend import NumbaBackend
        return NumbaBackend()
    if name == 'cupy':
        from .cupy_backend import CupyBackend
        return CupyBackend()
    from .numpy_backend import NumpyBackend
    return NumpyBackend()


def fast_path_refusal(optimizer, weights, grads, indices=None):
    """Why the run (``weights``, ``grads``) cannot take the fast path, or None if it can.

    ``indices``: the run's parameter indices, for the optimizer's own checks
    (``fused_refusal``: its configuration, its per-parameter bookkeeping, row_sparse
    gradients); None skips those.
    """
    if not has_fast_path(optimizer):
        return '%s has no fused kernel' % type(optimizer).__name__
    if any(w.stype != 'default' for w in weights):
        return '%s weights' % next(w.stype for w in weights if w.stype != 'default')
    if any(g.stype not in ('default', 'row_sparse') for g in grads):
        return '%s gradients (the reference updates them as dense arrays)' % next(
            g.stype for g in grads if g.stype not in ('default', 'row_sparse'))
    dtype = weights[0].dtype
    if dtype is np.float16 and not optimizer.multi_precision:
        return 'float16 without multi_precision'
    if dtype is not np.float32 and dtype is not np.float16:
        return 'dtype %s' % np.dtype(dtype)
    if any(g.dtype is not dtype for g in grads):
        return 'gradients of another dtype than the weights'
    if len({id(w) for w in weights}) != len(weights):
        return 'a parameter listed twice'
    if indices is not None:
        return _refusal_now(optimizer, indices, weights, grads)
    return None


def _refusal_now(optimizer, indices, weights, grads):
    """What may decline a run whose arrays took the fast path before: the optimizer's
    own conditions (its settings, its bookkeeping), and a momentum schedule."""
    if _momentum_moves_within(optimizer, indices):
        return ('a momentum schedule, and update counts that move num_update within the '
                'run (its parameters see different momenta)')
    return optimizer.fused_refusal(indices, weights, grads)


def _momentum_moves_within(opt, indices):
    """Whether a momentum schedule gives the run's parameters different momenta.

    The reference reads the scheduled momentum after counting each parameter (or chunk);
    one kernel call takes one momentum, read after counting them all. They agree unless
    a later parameter's count raises ``num_update`` above where the first one left it.
    """
    if opt.scheduled_momentum() is None:
        return False
    begin = opt.begin_num_update
    counts = [opt._index_update_count.get(i, begin) + 1 for i in indices]
    return max(counts) > max(opt.num_update, counts[0])


class FusedUpdater(Updater):
    """An Updater that applies the optimizer to flat buffers (see the module docstring).

    Parameters
    ----------
    optimizer : Optimizer
    backend : {'numba', 'numpy', 'cupy'}, optional
        Force a backend; by default CuPy on GPU contexts, numba on CPU contexts when
        installed, else the NumPy flat path.
    """

    def __init__(self, optimizer, backend=None):
        super().__init__(optimizer)
        self.requested_backend = backend
        self._runs_built = {}  # indices -> FlatRun
        self._handed = {}      # first index -> (position, FlatGroup) handed over
        self._backends = {}    # device type -> backend object
        self._reducing = None   # (FlatGroup, StoreSum) during an update_reduced call
        #: For teaching and tests: how the last call ran, [(indices, 'fused:<backend>',
        #: 'fused-lazy:<backend>' or 'reference: <why>')].
        self.last_paths = []

    # ------------------------------------------------------------------ layout and states
    def use_flat_groups(self, groups):
        """Run on these FlatGroups (their owner's layout: the Trainer's, the KVStore's)
        wherever a run's parameters lie in one of them, instead of laying out its own."""
        self._handed = {index: (position, group) for group in groups
                        for position, index in enumerate(group.indices)}

    def flat_runs(self):
        """The flat runs laid out so far (for teaching and tests)."""
        return list(self._runs_built.values())

    def restore(self, states, optimizer=None):
        super().restore(states, optimizer)
        self._runs_built.clear()  # the loaded states are new arrays: lay them out again

    def sync_state_context(self, state, context):
        self._runs_built.clear()
        return super().sync_state_context(state, context)

    # ------------------------------------------------------------------ one call
    def update_reduced(self, group, store_sum):
        """``self(group.indices, group.grads, group.weights)`` with the gradient that
        ``store_sum`` (a :class:`~gluonedu.optimizer.flat.StoreSum`) declares, and the new
        weights then in its copies: a store's reduce, update and broadcast.

        ``group``: the store's FlatGroup of its copies (handed over with
        :meth:`use_flat_groups`; one dtype, dense: one run). Its flat run hands the
        declared sum to its step, whose kernel sums the parts and writes the copies in
        its own pass where the backend can (:meth:`FlatRun.step`); on the reference path
        the sum is written into ``group.grad`` first and the copies receive the weights
        after. ``group.grad`` need not hold the sum afterwards.
        """
        self._reducing = (group, store_sum)
        try:
            self(list(group.indices), group.grads, group.weights)
        finally:
            self._reducing = None

    @staticmethod
    def _summed_around(reducing, update):
        """``update()`` on the store's summed gradient, its copies receiving the weights
        after (every path but a flat run over the store's group)."""
        if reducing is None:
            return update()
        group, store_sum = reducing
        store_sum.sum_into(group.grad)
        measured = update()
        store_sum.copy_out(group.weight)
        return measured

    def _apply(self, indices, weights, grads, norms=None):
        self.last_paths = []
        parts = []   # what each run measured
        opt = self.optimizer
        reducing, self._reducing = self._reducing, None   # update_reduced's, taken once
        built = self._built_run(indices, weights, grads)
        # A run laid out before for exactly these arrays is the whole call, as it was.
        runs = [(indices, weights, grads)] if built is not None else \
            [[list(x) for x in zip(*run)] for run in self._runs(indices, weights, grads)]
        for run_indices, run_weights, run_grads in runs:
            flat = built or self._built_run(run_indices, run_weights, run_grads)
            # A run laid out before holds the same arrays: only the optimizer's own
            # conditions (its settings, its bookkeeping) can have changed since.
            why = _refusal_now(opt, run_indices, run_weights, run_grads) if flat else \
                fast_path_refusal(opt, run_weights, run_grads, run_indices)
            if why is not None:
                self.last_paths.append((tuple(run_indices), 'reference: ' + why))
                parts.append(self._summed_around(reducing, lambda: Updater._apply(
                    self, run_indices, run_weights, run_grads, norms)))
                continue
            backend = self._backend_for(run_weights[0].context)
            if flat is None and any(g.stype == 'row_sparse' for g in run_grads):
                parts.append(self._summed_around(reducing, lambda: self._lazy_step(
                    run_indices, run_weights, run_grads, backend, norms)))
                self.last_paths.append((tuple(run_indices), 'fused-lazy:' + backend.name))
                continue
            flat = flat or self._new_flat_run(run_indices, run_weights, run_grads)
            if reducing is not None and flat.group is reducing[0]:
                parts.append(flat.step(opt, backend, norms, reducing[1]))
            else:
                parts.append(self._summed_around(
                    reducing, lambda: flat.step(opt, backend, norms)))
            self.last_paths.append((tuple(run_indices), 'fused:' + backend.name))
        return _merged(parts, indices)

    def _runs(self, indices, weights, grads):
        """The units the reference processes: dtype groups (aggregated) or stretches."""
        items = list(zip(indices, weights, grads))
        if self.aggregate_updates:
            by_dtype = {}
            for item in items:
                by_dtype.setdefault(item[1].dtype, []).append(item)
            return list(by_dtype.values())
        runs = []
        for item in items:
            if runs and runs[-1][-1][1].dtype == item[1].dtype:
                runs[-1].append(item)
            else:
                runs.append([item])
        return runs

    def _per_call(self):
        """How many parameters one call of the reference Updater hands the optimizer."""
        return max(1, self.optimizer.aggregate_num) if self.aggregate_updates else 1

    def _backend_for(self, context):
        """The backend for ``context``'s device type, chosen on first use (the environment
        is read then, not on every step)."""
        backend = self._backends.get(context.device_typeid)
        if backend is None:
            backend = self._backends[context.device_typeid] = _make_backend(
                backend_name(context, self.requested_backend))
        return backend

    def _group_for(self, indices, weights, grads):
        """A handed FlatGroup holding exactly these parameters, in order, or None."""
        position, group = self._handed.get(indices[0], (None, None))
        if group is None or tuple(indices) != group.indices[position:position + len(indices)]:
            return None
        part = group.segments(position, position + len(indices))
        return part if part.is_current(weights, grads) else None

    def _built_run(self, indices, weights, grads):
        """The FlatRun laid out for these parameters, if it still holds their arrays (the
        owner's group, if one was handed over) and states; else None."""
        run = self._runs_built.get(tuple(indices))
        if run is None:
            return None
        group = self._group_for(indices, weights, grads)
        if group is not run.group and (group is not None or
                                       not run.group.is_current(weights, grads)):
            return None
        return run if run.is_current(run.group, [self.states[i] for i in indices]) else None

    def _new_flat_run(self, indices, weights, grads):
        group = self._group_for(indices, weights, grads)
        if group is None:   # nobody handed these parameters over: lay them out here
            group = FlatGroup(indices, weights, grads)
        run = FlatRun(group, self.optimizer, [self.states[i] for i in indices],
                      self._per_call())
        # A parameter belongs to one run: forget runs that shared its arrays.
        for old_key in [k for k in self._runs_built if set(k) & set(indices)]:
            del self._runs_built[old_key]
        self._runs_built[tuple(indices)] = run
        return run

    def _lazy_step(self, indices, weights, grads, backend, norms=None):
        """One step of a run holding row_sparse gradients (measured as the reference)."""
        before = norms.before(weights) if norms else None
        run = LazyRun(self.optimizer, [self.states[i] for i in indices], indices, weights,
                      grads, backend, self._per_call())
        self.optimizer.fused_step(run)
        if norms is None:
            return {}
        return norms.measure(self.optimizer, indices, weights, grads,
                             [self.states[i] for i in indices], before)


def _merged(parts, indices):
    """What the runs measured, as one: a run's Measures as it is if that run was all of
    ``indices``; else the reference's dictionary of all of them."""
    if len(parts) == 1 and isinstance(parts[0], Measures) and parts[0].indices == indices:
        return parts[0]
    measured = {}
    for part in parts:
        measured.update(part.as_dict() if isinstance(part, Measures) else part)
    return measured
