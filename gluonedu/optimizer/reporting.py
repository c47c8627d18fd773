"""What an update reports on the instrumentation bus (source 'optimizer').

Per parameter and update: the effective ``lr`` and ``wd`` (after the scheduler and the
multipliers); if a subscriber asked for norms, the L2 norms of the weight, the gradient
as handed to the optimizer, the update (new weight − old weight), and each state array
by name; if a subscriber listens for ``clip`` and ``clip_gradient`` is set, the fraction
of gradient entries the clip changed; if one listens for ``nonfinite``, the number of
NaN/±Inf entries of each gradient that has any (:func:`nonfinite_count`). Nothing here
runs unless ``BUS.active``.

An Updater call goes in three steps::

    request = NormRequest.from_bus()         # which norms anyone wants (None: none)
    measured = updater._apply(..., request)  # {index: {'norm': {...}, 'state_norm': {...}}}
    report_update(optimizer, indices, weights, grads, measured)

The reference path measures each parameter after its update (:meth:`NormRequest.measure`);
the fused path measures whole flat buffers at once, in its kernel or by segment
reductions, and hands over the same dictionary. The ``nonfinite`` counts travel the same
way (``{index: {..., 'nonfinite': count}}``): the numba kernel counts them in the
update's own pass, where it sums the gradient's squares.

Cost: every norm is a float64 sum of squares on the array's own device (no host copy of
the array); an update norm also needs a device copy of the weight taken before the
update (the fused kernel needs none). Which norms are wanted is asked of the bus once
per call, not once per array.
"""
import math
import weakref

import numpy as np

from ..instrument.events import BUS, OneValueEach

__all__ = ['NormRequest', 'report_update', 'reads_gradients', 'report_schedule', 'array_norm',
           'nonfinite_count', 'PARAM_NORMS']

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


def nonfinite_count(array):
    """How many entries of an NDArray (the stored rows of a sparse one) are NaN or ±Inf.

    One sum over the array on its own device first: a finite sum proves every entry
    finite, so the element-wise test runs only for an array that has a non-finite entry
    (or whose finite entries overflow the sum).
    """
    raw = (array.data if array.stype != 'default' else array).handle
    with np.errstate(over='ignore', invalid='ignore'):  # the overflow is the question
        if math.isfinite(float(raw.sum())):
            return 0
        finite = (raw == raw) & (abs(raw) != math.inf)  # NumPy and CuPy alike
    return int(raw.size - int(finite.sum()))


def _update_norm(weight, before):
    """``||weight - before||``: the size of the step the optimizer just took."""
    diff = weight.handle.reshape(-1).astype(np.float64)
    diff -= before.reshape(-1)
    return math.sqrt(float(diff.dot(diff)))


def _name(optimizer, index):
    param = optimizer.param_dict.get(index)
    if param is not None:
        return param.name
    return optimizer.idx2name.get(index, index)


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
        self._state_wanted = {}   # state name -> bool, asked of the bus once per call

    @classmethod
    def from_bus(cls):
        """The current request, or None when nobody wants any norm or count."""
        param = tuple(n for n in PARAM_NORMS if BUS.wants_norm(n)) if BUS.wants('norm') else ()
        states = BUS.wants('state_norm')
        nonfinite = BUS.wants('nonfinite')
        return cls(param, states, nonfinite) if param or states or nonfinite else None

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
            if self.nonfinite:
                measured[index]['nonfinite'] = nonfinite_count(grad)
        return measured


_SCHEDULE_REPORTED = weakref.WeakKeyDictionary()   # scheduler -> last num_update reported


def report_schedule(scheduler, num_update, lr):
    """Emit ``schedule`` (source 'scheduler'): the learning rate ``scheduler`` gives at
    ``num_update`` — once per num_update, however many parameters read it."""
    if _SCHEDULE_REPORTED.get(scheduler) != num_update and BUS.wants('schedule'):
        _SCHEDULE_REPORTED[scheduler] = num_update
        BUS.emit('schedule', 'scheduler', lr=float(lr))


def reads_gradients(optimizer):
    """Whether :func:`report_update` will read the gradients it is given (a subscriber
    wants ``nonfinite`` counts, or ``clip`` fractions of a clipping optimizer)."""
    return BUS.active and (BUS.wants('nonfinite') or
                           (BUS.wants('clip') and optimizer.clip_gradient is not None))


def report_update(optimizer, indices, weights, grads, measured):
    """Emit lr/wd, the ``measured`` norms and clipping for each updated parameter.

    ``measured``: ``{index: {'norm': {...}, 'state_norm': {...}}}`` (empty when no norm
    was requested) from :meth:`NormRequest.measure` or the fused path. Each kind goes
    out as one batch (see ``EventBus.emit_batch``).
    """
    params = [str(_name(optimizer, index)) for index in indices]
    contexts = [str(w.context) for w in weights]
    emit_batch = BUS.emit_batch
    emit_batch('lr', 'optimizer', OneValueEach(params, contexts, 'lr',
                                               optimizer._get_lrs(indices)))
    emit_batch('wd', 'optimizer', OneValueEach(params, contexts, 'wd',
                                               optimizer._get_wds(indices)))
    found = [measured.get(index) or {} for index in indices] if measured else None
    for kind in ('norm', 'state_norm'):
        if found and BUS.wants(kind):
            events = [(p, c, m[kind]) for p, c, m in zip(params, contexts, found)
                      if m.get(kind)]
            if events:
                emit_batch(kind, 'optimizer', events)
    if BUS.wants('nonfinite'):
        _report_nonfinite(params, contexts, found or [{}] * len(indices), grads)
    if BUS.wants('clip') and optimizer.clip_gradient is not None:
        for param, ctx, grad in zip(params, contexts, grads):
            rescaled = grad.asnumpy() * optimizer.rescale_grad
            clipped = float((np.abs(rescaled) > optimizer.clip_gradient).mean())
            BUS.emit('clip', 'optimizer', param, ctx, clip_gradient=optimizer.clip_gradient,
                     clipped_fraction=clipped)


def _report_nonfinite(params, contexts, measured, grads):
    """Emit ``nonfinite`` (value ``count``) for each gradient with NaN/±Inf entries: the
    count measured with the update, else counted here."""
    events = []
    for param, ctx, found, grad in zip(params, contexts, measured, grads):
        count = found['nonfinite'] if 'nonfinite' in found else nonfinite_count(grad)
        if count:
            events.append((param, ctx, {'count': float(count)}))
    if events:
        BUS.emit_batch('nonfinite', 'optimizer', events)
