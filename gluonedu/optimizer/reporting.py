"""What an update reports on the instrumentation bus (source 'optimizer').

Per parameter and update: the effective ``lr`` and ``wd`` (after the scheduler and the
multipliers); if a subscriber asked for norms, the L2 norms of the weight, the gradient
as handed to the optimizer, the update (new weight − old weight), and each state array
by name; if a subscriber listens for ``clip`` and ``clip_gradient`` is set, the fraction
of gradient entries the clip changed; if one listens for ``nonfinite``, the number of
NaN/±Inf entries of each gradient that has any (:func:`nonfinite_counts`). Nothing here
runs unless ``BUS.active``.

An Updater call goes in three steps::

    wanted = interest()                            # what anyone wants (kept per set of wants)
    measured = updater._apply(..., wanted.request)  # a Measures, or {index: {'norm': ...}}
    BUS.emit_report('optimizer', UpdateReport(wanted.kinds, optimizer, indices, weights,
                                              step_log, measured))   # if wanted.kinds
    report_clip(optimizer, indices, weights, grads)                  # if wanted.clip

The reference path measures each parameter after its update (:meth:`NormRequest.measure`,
a dictionary per index); the fused path measures whole flat buffers at once, in its
kernel or by segment reductions, and hands over a :class:`Measures`: one row of numbers
per parameter. The ``nonfinite`` counts travel the same way: the numba kernel counts them
in the update's own pass.

The lr and wd reported are the ones the step used: what ``Optimizer.begin_step`` worked
out, which it logs while an Updater reports (``step_log``).

What reaches the bus is one :class:`UpdateReport` per call (``EventBus.emit_report``):
the arrays above as :class:`~gluonedu.instrument.events.Columns`, labelled by
:class:`UpdatedParams`, whose names and contexts are worked out only when read. A
Recorder keeps the report as it is during the step and makes its rows when its table is
read, so an update's report costs a few calls, not a few per parameter.

Cost: every norm is a float64 sum of squares on the array's own device (no host copy of
the array); an update norm also needs a device copy of the weight taken before the
update (the fused kernel needs none). Which norms are wanted is asked of the bus when
its subscribers change, not on every call.
"""
import math
from typing import NamedTuple
import weakref

import numpy as np

from ..instrument.events import BUS, Columns

__all__ = ['NormRequest', 'Interest', 'interest', 'Measures', 'UpdatedParams', 'UpdateReport',
           'report_clip',
           'reads_gradients', 'report_schedule', 'array_norm', 'all_finite',
           'nonfinite_count', 'nonfinite_counts',
           'PARAM_NORMS', 'UPDATE_KINDS']

#: The norm names of the ``norm`` event, in the order they are emitted.
PARAM_NORMS = ('weight', 'grad', 'update')


def _sum_of_squares(raw):
    """``sum(raw ** 2)`` in float64, for a NumPy or CuPy array of any shape and dtype."""
    flat = raw.reshape(-1).astype(np.float64)  # float64: float16/32 sums keep their digits
    return float(flat.dot(flat))


def array_norm(array):
    """L2 norm of an NDArray (of the stored rows for a row_sparse one)."""
    if array.stype != 'default':
        array = array.data
    return math.sqrt(_sum_of_squares(array.handle))


def nonfinite_counts(arrays):
    """How many entries of each NDArray (the stored rows of a sparse one) are NaN or ±Inf.

    Most gradients hold none, and for float32/float64 one BLAS product says so: Σx² is
    finite exactly when every entry is (or when an entry is so large that its square
    overflows; the count below then finds 0). Otherwise one element-wise test on the
    array's own device (NumPy's ``isfinite`` dispatches to CuPy for a GPU array). No
    floating-point warning is raised, whatever the arrays hold.
    """
    counts = []
    with np.errstate(over='ignore', invalid='ignore'):
        for array in arrays:
            raw = (array.data if array.stype != 'default' else array).handle
            if all_finite(raw.reshape(-1)):
                counts.append(0)
                continue
            counts.append(int(raw.size - int(np.isfinite(raw).sum())))
    return counts


def all_finite(flat):
    """Whether every entry of a 1-D NumPy/CuPy array is finite, in one BLAS product
    for float32/float64 (see :func:`nonfinite_counts`; False, too, when a square
    overflows). Call it under ``np.errstate(over='ignore', invalid='ignore')``."""
    if flat.dtype in _BLAS_DTYPES:
        return math.isfinite(float(flat.dot(flat)))
    return bool(np.isfinite(flat).all())


_BLAS_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def nonfinite_count(array):
    """How many entries of one NDArray are NaN or ±Inf (see :func:`nonfinite_counts`)."""
    return nonfinite_counts([array])[0]


def _update_norm(weight, before):
    """``||weight - before||``: the size of the step the optimizer just took."""
    diff = weight.handle.reshape(-1).astype(np.float64)
    diff -= before.reshape(-1)
    return math.sqrt(float(diff.dot(diff)))


#: The kinds an update reports in one :class:`UpdateReport`.
UPDATE_KINDS = ('lr', 'wd', 'norm', 'state_norm', 'nonfinite')


class Interest(NamedTuple):
    """What the bus's subscribers want of an update: the norms and counts to measure
    (a NormRequest, or None), the :data:`UPDATE_KINDS` to report, whether ``clip``,
    and whether any of these (else an update need not measure or report anything)."""
    request: object
    kinds: tuple
    clip: bool
    any: bool


_INTEREST = [None, None]   # [the bus version it was worked out for, its Interest]
_INTERESTS = {}            # BUS.wants_key -> its Interest (few: one per set of wants)


def interest():
    """The :class:`Interest` of the bus as it is now (looked up again only after its
    subscribers changed; the same Interest, NormRequest included, for the same wants,
    so that what a step keeps per request outlives a Recorder attached again)."""
    if _INTEREST[0] != BUS.version:
        key = BUS.wants_key
        found = _INTERESTS.get(key)
        if found is None:
            if len(_INTERESTS) >= 64:   # wants are few; this bounds odd programs
                _INTERESTS.clear()
            found = _INTERESTS[key] = _interest_now()
        _INTEREST[:] = BUS.version, found
    return _INTEREST[1]


def _interest_now():
    param = tuple(n for n in PARAM_NORMS if BUS.wants_norm(n)) if BUS.wants('norm') else ()
    states = BUS.wants('state_norm')
    nonfinite = BUS.wants('nonfinite')
    request = NormRequest(param, states, nonfinite) if param or states or nonfinite else None
    kinds = tuple(k for k in UPDATE_KINDS if BUS.wants(k))
    clip = BUS.wants('clip')
    return Interest(request, kinds, clip, request is not None or bool(kinds) or clip)


class NormRequest:
    """The norms the bus's subscribers want during one Updater call.

    ``param``: the wanted names among ('weight', 'grad', 'update'), in that order;
    ``states``: whether any state norm may be wanted (:meth:`wants_state` says which);
    ``nonfinite``: whether the NaN/±Inf entries of each gradient are to be counted.
    """

    def __init__(self, param, states, nonfinite=False):
        self.param = param
        self.states = states
        self.nonfinite = nonfinite
        #: Whether the non-finite counts are all that is wanted (no norm at all).
        self.count_only = nonfinite and not param and not states
        self._state_wanted = {}   # state name -> bool, asked of the bus once

    def wants_state(self, name):
        if name not in self._state_wanted:
            self._state_wanted[name] = BUS.wants_norm(name)
        return self._state_wanted[name]

    def before(self, weights):
        """Device copies of the weights if update norms are wanted, else None."""
        if 'update' not in self.param:
            return None
        # A row_sparse weight's handle is its dense equivalent, already a fresh array.
        return [w.handle.copy() if w.stype == 'default' else w.handle for w in weights]

    def measure(self, optimizer, indices, weights, grads, states, before):
        """``{index: {'norm': {...}, 'state_norm': {...}}}``, one parameter at a time.

        ``before``: what :meth:`before` returned ahead of the update.
        """
        measured = {}
        counts = nonfinite_counts(grads) if self.nonfinite else None
        for i, (index, weight, grad) in enumerate(zip(indices, weights, grads)):
            norms = {}
            for name in self.param:
                if name == 'weight':
                    norms[name] = array_norm(weight)
                elif name == 'grad':
                    norms[name] = array_norm(grad)
                elif before is not None:
                    norms[name] = _update_norm(weight, before[i])
            named = {}
            if self.states:
                for name, array in optimizer.named_states(states[i], weight):
                    if self.wants_state(name):
                        named[name] = array_norm(array)
            measured[index] = {'norm': norms, 'state_norm': named}
            if counts is not None:
                measured[index]['nonfinite'] = counts[i]
        return measured


_SCHEDULE_REPORTED = weakref.WeakKeyDictionary()   # scheduler -> last num_update reported


def report_schedule(scheduler, num_update, lr):
    """Emit ``schedule`` (source 'scheduler'): the learning rate ``scheduler`` gives at
    ``num_update`` — once per num_update, however many parameters read it."""
    if _SCHEDULE_REPORTED.get(scheduler) != num_update and BUS.wants('schedule'):
        _SCHEDULE_REPORTED[scheduler] = num_update
        BUS.emit('schedule', 'scheduler', lr=float(lr))


def reads_gradients(optimizer):
    """Whether reporting the update will read its gradients after it (a subscriber
    wants ``nonfinite`` counts, or ``clip`` fractions of a clipping optimizer)."""
    return BUS.active and (BUS.wants('nonfinite') or
                           (BUS.wants('clip') and optimizer.clip_gradient is not None))


class Measures:
    """What a fused run measured: one row per parameter of ``indices``.

    ``table`` (float64, shape (parameters, norms + states)): the L2 norms named
    ``norm_names`` (among 'weight', 'grad', 'update'), then those of the states named
    ``state_names``. ``nonfinite``: each gradient's count of NaN/±Inf entries (a list of
    ints), or None when nobody asked.
    """
    __slots__ = ('indices', 'norm_names', 'state_names', 'table', 'nonfinite')

    def __init__(self, indices, norm_names, state_names, table, nonfinite=None):
        self.indices = list(indices)
        self.norm_names, self.state_names = tuple(norm_names), tuple(state_names)
        self.table, self.nonfinite = table, nonfinite

    def as_dict(self):
        """``{index: {'norm': {...}, 'state_norm': {...}[, 'nonfinite': count]}}``, the
        reference's form (to merge with parameters measured another way)."""
        split = len(self.norm_names)
        rows = self.table.tolist()
        measured = {index: {'norm': dict(zip(self.norm_names, row[:split])),
                            'state_norm': dict(zip(self.state_names, row[split:]))}
                    for index, row in zip(self.indices, rows)}
        if self.nonfinite is not None:
            for index, count in zip(self.indices, self.nonfinite):
                measured[index]['nonfinite'] = count
        return measured


class UpdatedParams:
    """The ``param`` and ``context`` labels (str) of the parameters of one Updater call
    (a :class:`~gluonedu.instrument.events.Labels`), worked out when first read: a
    Recorder reads them when its table is read, not during the step.

    ``param_dict``, ``idx2name``: the optimizer's name tables as they were at the step
    (a later Trainer gives the optimizer new ones).
    """
    __slots__ = ('_param_dict', '_idx2name', '_indices', '_weights', '_params', '_contexts')

    def __init__(self, param_dict, idx2name, indices, weights):
        self._param_dict, self._idx2name = param_dict, idx2name
        self._indices, self._weights = indices, weights
        self._params = self._contexts = None

    @property
    def params(self):
        """Each parameter's name (its index, for an optimizer that knows no name)."""
        if self._params is None:
            params, names = self._param_dict, self._idx2name
            self._params = [str(params[i].name) if i in params else str(names.get(i, i))
                            for i in self._indices]
        return self._params

    @property
    def contexts(self):
        """Each weight's device, e.g. 'cpu(0)'."""
        if self._contexts is None:
            self._contexts = [str(w.context) for w in self._weights]
        return self._contexts


def _logged_in_order(indices, step_log):
    """The lr and wd ``begin_step`` logged for each of ``indices``, in their order: the
    log's parts joined (NaN for an index it did not log)."""
    if len(step_log) == 1 and list(step_log[0][0]) == list(indices):
        return step_log[0][1], step_log[0][2]
    lrs, wds = {}, {}
    for logged, part_lrs, part_wds in step_log:
        lrs.update(zip(logged, part_lrs))
        wds.update(zip(logged, part_wds))
    return [lrs.get(i, math.nan) for i in indices], [wds.get(i, math.nan) for i in indices]


class UpdateReport:
    """One Updater call's events of the :data:`UPDATE_KINDS` wanted, as one report
    (``EventBus.emit_report``).

    It is made on every watched step, so it only keeps what the step made: the
    optimizer's name tables, the indices and weights, the lr/wd ``begin_step`` logged
    during the call (``step_log``, in one part or several), and
    what was ``measured``: a :class:`Measures` of exactly ``indices``, or the
    reference's ``{index: {'norm': {...}, 'state_norm': {...}[, 'nonfinite': count]}}``
    (empty when nothing was requested); the non-finite counts are in it whenever
    ``nonfinite`` is wanted, since the :func:`interest`'s request asks for them. Which
    kinds hold something, the labels and the entries are worked out when it is read.
    """
    __slots__ = ('_wanted', '_kinds', '_names', '_labels', '_log', '_lrs', '_wds',
                 '_measured', '_per_index')

    def __init__(self, wanted, optimizer, indices, weights, step_log, measured):
        self._wanted, self._kinds, self._labels = wanted, None, None
        self._names = optimizer.param_dict, optimizer.idx2name, indices, weights
        if not step_log:   # an optimizer that reads lr/wd its own way (_get_lr): read now
            step_log = [(indices, optimizer._get_lrs(indices), optimizer._get_wds(indices))]
        self._log, self._lrs = step_log, None
        self._measured, self._per_index = measured, None

    @property
    def labels(self):
        """The :class:`UpdatedParams` of the entries."""
        if self._labels is None:
            self._labels = UpdatedParams(*self._names)
        return self._labels

    def _lrs_wds(self):
        if self._lrs is None:
            self._lrs, self._wds = _logged_in_order(self._names[2], self._log)
        return self._lrs, self._wds

    def _measured_per_index(self):
        """The reference's measurements, one dictionary per index in order."""
        if self._per_index is None:
            measured = self._measured or {}
            self._per_index = [measured.get(index) or {} for index in self._names[2]]
        return self._per_index

    def _counts(self):
        """Each gradient's count of non-finite entries, or None if none were counted."""
        if isinstance(self._measured, Measures):
            return self._measured.nonfinite
        found = self._measured_per_index()
        return [m['nonfinite'] for m in found] if found and all(
            'nonfinite' in m for m in found) else None

    @property
    def kinds(self):
        """The kinds wanted that have something to report: lr and wd always; norm,
        state_norm and nonfinite where something was measured (a count not 0)."""
        if self._kinds is None:
            measured, counts = self._measured, self._counts()
            if isinstance(measured, Measures):
                present = bool(measured.norm_names), bool(measured.state_names)
            else:
                found = self._measured_per_index()
                present = (any(m.get('norm') for m in found),
                           any(m.get('state_norm') for m in found))
            has = dict(zip(('norm', 'state_norm', 'nonfinite'),
                           present + (counts is not None and any(counts),)))
            self._kinds = tuple(k for k in self._wanted if has.get(k, True))
        return self._kinds

    def entries(self, kind):
        """The ``(param, context, values)`` entries of ``kind`` (one of ``kinds``)."""
        labels, measured = self.labels, self._measured
        if kind in ('lr', 'wd'):
            lrs, wds = self._lrs_wds()
            return Columns(labels, (kind,), (lrs if kind == 'lr' else wds,))
        if kind == 'nonfinite':
            return [(param, ctx, {'count': float(count)}) for param, ctx, count
                    in zip(labels.params, labels.contexts, self._counts()) if count]
        if kind not in ('norm', 'state_norm'):
            raise ValueError('an update reports no %r events' % (kind,))
        if isinstance(measured, Measures):
            split = len(measured.norm_names)
            if kind == 'norm':
                return Columns(labels, measured.norm_names, measured.table[:, :split].T)
            return Columns(labels, measured.state_names, measured.table[:, split:].T)
        return [(param, ctx, found[kind]) for param, ctx, found
                in zip(labels.params, labels.contexts, self._measured_per_index())
                if found.get(kind)]


def report_clip(optimizer, indices, weights, grads):
    """Emit ``clip`` for each gradient of the call: the fraction of its entries (after
    ``rescale_grad``) that ``optimizer.clip_gradient`` changes."""
    labels = UpdatedParams(optimizer.param_dict, optimizer.idx2name, indices, weights)
    for param, ctx, grad in zip(labels.params, labels.contexts, grads):
        rescaled = grad.asnumpy() * optimizer.rescale_grad
        clipped = float((np.abs(rescaled) > optimizer.clip_gradient).mean())
        BUS.emit('clip', 'optimizer', param, ctx, clip_gradient=optimizer.clip_gradient,
                 clipped_fraction=clipped)
