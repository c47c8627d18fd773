"""FusedUpdater: the Updater whose optimizer step runs over flat buffers.

It *is* an :class:`~gluonedu.optimizer.Updater` (same states, same ``get_states`` /
``set_states``, same instrumentation events): only ``_apply`` — "run the optimizer on
these parameters" — is replaced. For each run of parameters it

1. decides whether the fast path applies (:func:`fast_path_refusal`); if not, the run
   goes through the reference ``Updater._apply`` unchanged;
2. finds (or builds) the run's :class:`~.flat.FlatGroup` — its weights, gradients and
   states laid end to end, every parameter's arrays re-pointed to views of them;
3. counts the updates and reads each parameter's lr and wd exactly as the reference
   would (same scheduler calls, same ``lr_mult``/``wd_mult`` lookups, same order);
4. runs the optimizer's rule once over the buffers (numba, NumPy or CuPy backend).

Which parameters take the fast path: dense weights and gradients of dtype float32, or
float16 with ``multi_precision=True`` (the rule then runs on the float32 master
copies). Runs holding row_sparse gradients go to :mod:`.lazy` (only the rows present
are updated, for the optimizers MXNet updates lazily). Everything else — row_sparse
weights, row_sparse cases :mod:`.lazy` declines, float16 without multi_precision,
float64, a parameter listed twice, an optimizer without a spec (Test, subclasses), a
configuration a spec declines (e.g. LBSGD parameters at different points of their
gradient accumulation), a momentum schedule over parameters whose update counts
differ — takes the reference path, one run at a time.

A momentum schedule (:class:`~gluonedu.optimizer.optimizer.ScheduledMomentum`) needs
nothing else here: the specs read ``opt.momentum`` / ``opt.beta1`` after counting, as the
reference does, and get the scheduled value.

A *run* is what the reference processes as a unit: with aggregated optimizers (SGD,
LARS, LAMB) all parameters of one dtype, else each maximal stretch of consecutive
parameters of one dtype; so counting, scheduling and Nadam's running product see the
parameters in the reference's order.
"""
import os

import numpy as np

from ..updater import Updater
from . import lazy
from .flat import FlatGroup
from .norms import FlatNorms
from .specs import Segments, spec_for

__all__ = ['FusedUpdater', 'fast_path_refusal', 'backend_name']

_FAST_DTYPES = (np.float32,)


def backend_name(context, requested=None):
    """'cupy', 'numba' or 'numpy': the backend a fused step uses on ``context``.

    ``requested`` (or the environment variable ``GLUONEDU_FUSED_BACKEND``) may force
    'numpy' (or 'numba'/'cupy' where available).
    """
    from .numba_backend import available as numba_available
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
        from .cupy_kernels import CupyBackend
        return CupyBackend()
    from .numpy_backend import NumpyBackend
    return NumpyBackend()


def fast_path_refusal(optimizer, weights, grads, indices=None):
    """Why the run (``weights``, ``grads``) cannot take the fast path, or None if it can.

    ``indices``: the run's parameter indices, for the specs that look at per-parameter
    bookkeeping (LBSGD's gradient accumulation); None skips those checks.
    """
    spec = spec_for(optimizer)
    if spec is None:
        return '%s has no fused kernel' % type(optimizer).__name__
    _, reason = spec.rule(optimizer)
    if reason:
        return reason
    if any(w.stype != 'default' for w in weights) or any(g.stype != 'default' for g in grads):
        return 'row_sparse weights or gradients'
    dtype = weights[0]._data.dtype
    if dtype == np.float16 and not optimizer.multi_precision:
        return 'float16 without multi_precision'
    if dtype not in (np.float32, np.float16):
        return 'dtype %s' % dtype
    if any(g._data.dtype != dtype for g in grads):
        return 'gradients of another dtype than the weights'
    if len({id(w) for w in weights}) != len(weights):
        return 'a parameter listed twice'
    if indices is not None and _momentum_moves_within(optimizer, indices):
        return ('a momentum schedule, and update counts that move num_update within the '
                'run (its parameters see different momenta)')
    if indices is not None:
        return spec.refusal(optimizer, indices, weights)
    return None


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
        self._groups = {}     # (dtype, indices) -> FlatGroup
        self._backends = {}   # name -> backend object
        #: For teaching and tests: how the last call ran, [(indices, 'fused:<backend>'
        #: or 'reference: <why>')].
        self.last_paths = []

    # ------------------------------------------------------------------ states
    def set_states(self, states):
        super().set_states(states)
        self._groups.clear()  # the loaded states are new arrays: rebuild the views

    def sync_state_context(self, state, context):
        self._groups.clear()
        return super().sync_state_context(state, context)

    def flat_groups(self):
        """The flat groups built so far (used by the Trainer's flat all-reduce)."""
        return list(self._groups.values())

    # ------------------------------------------------------------------ one call
    def _apply(self, indices, weights, grads, norms=None):
        self.last_paths = []
        measured = {}
        for run in self._runs(indices, weights, grads):
            run_indices, run_weights, run_grads = (list(x) for x in zip(*run))
            if lazy.has_row_sparse(run_weights, run_grads):  # lazy updates: see lazy.py
                path, found = lazy.apply(self, run_indices, run_weights, run_grads, norms)
                self.last_paths.append((tuple(run_indices), path))
                measured.update(found)
                continue
            why = fast_path_refusal(self.optimizer, run_weights, run_grads, run_indices)
            if why is not None:
                self.last_paths.append((tuple(run_indices), 'reference: ' + why))
                measured.update(Updater._apply(self, run_indices, run_weights, run_grads,
                                               norms))
                continue
            backend = self._backend_for(run_weights[0].context)
            group = self._group_for(run_indices, run_weights, run_grads)
            measured.update(self._fused_step(group, backend, norms))
            self.last_paths.append((tuple(run_indices), 'fused:' + backend.name))
        return measured

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

    def _backend_for(self, context):
        name = backend_name(context, self.requested_backend)
        if name not in self._backends:
            self._backends[name] = _make_backend(name)
        return self._backends[name]

    def _group_for(self, indices, weights, grads):
        key = (weights[0]._data.dtype, tuple(indices))
        group = self._groups.get(key)
        if group is not None and group.is_current(weights, grads):
            return group
        spec = spec_for(self.optimizer)
        multi_precision = self.optimizer.multi_precision and \
            weights[0]._data.dtype == np.float16
        masters, states = [], []
        for index in indices:
            master, arrays = spec.split_state(self.optimizer, self.states[index],
                                              multi_precision)
            masters.append(master)
            states.append(arrays)
        group = FlatGroup(weights[0]._xp, indices, weights, grads,
                          masters if multi_precision else None, states,
                          aggregated=self.aggregate_updates)
        # A parameter belongs to one group: forget groups that shared its arrays.
        for old_key in [k for k in self._groups if set(k[1]) & set(indices)]:
            del self._groups[old_key]
        self._groups[key] = group
        return group

    def _fused_step(self, group, backend, norms=None):
        """One step of ``group``; returns the norms measured for ``norms`` (see reporting)."""
        opt = self.optimizer
        spec = spec_for(opt)
        measuring = None
        if norms is not None:
            measuring = FlatNorms(norms, group, opt, self.states[group.indices[0]],
                                  in_kernel=backend.sums_in_kernel and spec.sums_in_kernel)
        indices = group.indices
        if spec.counting == 'custom':
            seg = Segments(indices, None, None, None)
        else:
            chunk = max(1, opt.aggregate_num) if (spec.counting == 'chunks' and
                                                  self.aggregate_updates) else 1
            seg = _count_and_read(opt, indices, chunk,
                                  read_first=spec.counting == 'read_first')
        if group.multi_precision:
            group.load_grad32()
        spec.run(opt, group, seg, backend, measuring.kernel_sums() if measuring else None)
        if group.multi_precision:
            group.store_weight16()
        if measuring is None:
            return {}
        return measuring.result(opt, [self.states[i] for i in group.indices])


def _count_and_read(opt, indices, chunk, read_first=False):
    """Count one update of each index and read its lr and wd, as the reference does.

    The reference counts index by index (``chunk=1``) or a whole multi-tensor call of
    ``chunk`` indices at a time, and reads the learning rates after each; the scheduler
    sees the running maximum of the counts (``num_update``) at each read.
    ``read_first``: each index's lr is read *before* it is counted (LBSGD), so the
    scheduler sees ``num_update`` as the previous indices left it.
    """
    counts = opt._index_update_count
    begin = opt.begin_num_update
    t = np.array([counts.get(i, begin) + 1 for i in indices], dtype=np.int64)
    counts.update(zip(indices, t.tolist()))
    running = np.maximum.accumulate(np.maximum(t, opt.num_update))
    if read_first:   # the num_update each read sees
        seen = np.concatenate([[opt.num_update], running[:-1]]).astype(np.int64)
    elif chunk > 1:
        last = np.minimum((np.arange(len(t)) // chunk + 1) * chunk, len(t)) - 1
        seen = running[last]
    else:
        seen = running
    opt.num_update = int(running[-1])
    if opt.lr_scheduler is None:
        base = np.full(len(t), float(opt.lr))
    else:
        values = {}
        for n in seen.tolist():  # in order: schedulers may keep state
            if n not in values:
                values[n] = opt.lr_scheduler(n)
        base = np.array([values[n] for n in seen.tolist()], dtype=np.float64)
    params = opt.param_dict
    if all(i in params for i in indices):  # the Trainer's case: read them off the Parameters
        lr_mults = np.array([params[i].lr_mult for i in indices], dtype=np.float64)
        wd_mults = np.array([params[i].wd_mult for i in indices], dtype=np.float64)
    else:
        lr_mults = np.array([opt._mult(i, opt.lr_mult, 'lr_mult') for i in indices],
                            dtype=np.float64)
        wd_mults = np.array([opt._mult(i, opt.wd_mult, 'wd_mult') for i in indices],
                            dtype=np.float64)
    return Segments(indices, base * lr_mults, opt.wd * wd_mults, t)
