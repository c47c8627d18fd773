"""The Updater: applies an optimizer to indexed weights and keeps their states.

The Trainer (one Updater per context) and the KVStore (when updates run on the store)
call ``updater(index, grad, weight)``. The first call for an index creates its state
with ``optimizer.create_state_multi_precision``; later calls pass it back to
``optimizer.update_multi_precision``.
"""
import warnings

import numpy as np

from ..base import MXNetError
from ..instrument.events import BUS
from .. import ndarray as nd
from ..ndarray import NDArray
from .optimizer import rebuilt
from .reporting import UpdateReport, interest, report_clip
from .serialization import dumps_states, loads_states

__all__ = ['Updater', 'get_updater', 'state_mismatch', 'state_template']


class Updater:
    """Calls ``optimizer`` on ``(index, grad, weight)`` and stores each index's state.

    Indices, grads and weights may be single values or lists of them. Optimizers
    with ``aggregate_num > 0`` receive lists of up to that many parameters of one dtype
    at a time (MXNet's multi-tensor path).
    """

    def __init__(self, optimizer):
        self.optimizer = optimizer
        self.states = {}
        self.states_synced = {}
        self.aggregate_updates = optimizer.aggregate_num > 0

    def __call__(self, index, grad, weight):
        if isinstance(index, (list, tuple)):
            indices, grads, weights = list(index), list(grad), list(weight)
        else:
            indices, grads, weights = [index], [grad], [weight]
        if weights:
            self.optimizer._set_current_context(weights[0].context.device_id)
        for idx, w in zip(indices, weights):
            if idx not in self.states:
                self.states[idx] = self.optimizer.create_state_multi_precision(idx, w)
                self.states_synced[idx] = True
            elif not self.states_synced[idx]:
                template = state_template(self.optimizer, idx, w.shape, w.dtype, w.stype)
                state = _with_names(self.states[idx], template)
                problem = state_mismatch(state, template)
                if problem:
                    raise MXNetError("the loaded optimizer states do not fit parameter %r: %s"
                                     % (idx, problem))
                self.states[idx] = self.sync_state_context(state, w.context)
                self.states_synced[idx] = True
        wanted = interest() if BUS.active else None
        if wanted is None or not wanted.any:
            self._apply(indices, weights, grads)
            return
        optimizer = self.optimizer
        # the lr and wd the step uses, as begin_step works them out
        optimizer._step_log = step_log = []
        try:
            measured = self._apply(indices, weights, grads, wanted.request)
        finally:
            optimizer._step_log = None
        # What was wanted, as the step made it (see optimizer/reporting.py)
        if wanted.kinds:
            BUS.emit_report('optimizer', UpdateReport(wanted.kinds, optimizer, indices,
                                                      weights, step_log, measured))
        if wanted.clip and optimizer.clip_gradient is not None:
            report_clip(optimizer, indices, weights, grads)

    def update_reduced(self, group, store_sum):
        """(gluonedu) A store's update of its flat copies ``group`` (a FlatGroup) with the
        gradient a :class:`~gluonedu.optimizer.flat.StoreSum` declares: the sum is
        written into ``group.grad``, the weights updated, and ``store_sum``'s copies
        receive them. (The FusedUpdater may do all three in one pass.)"""
        store_sum.sum_into(group.grad)
        self(list(group.indices), group.grads, group.weights)
        store_sum.copy_out(group.weight)

    def _apply(self, indices, weights, grads, norms=None):
        """Update the weights; measure the ``norms`` requested (a NormRequest or None).

        Returns ``{index: {'norm': {...}, 'state_norm': {...}}}`` (empty without a
        request; the fast path may return a ``reporting.Measures`` instead).
        """
        before = norms.before(weights) if norms else None
        self._update(indices, weights, grads)
        if norms is None:
            return {}
        return norms.measure(self.optimizer, indices, weights, grads,
                             [self.states[i] for i in indices], before)

    def _update(self, indices, weights, grads):
        if not self.aggregate_updates:
            for idx, w, g in zip(indices, weights, grads):
                self.optimizer.update_multi_precision(idx, w, g, self.states[idx])
            return
        by_dtype = {}
        for idx, w, g in zip(indices, weights, grads):
            by_dtype.setdefault(w.dtype, []).append((idx, w, g))
        size = self.optimizer.aggregate_num
        for group in by_dtype.values():
            for start in range(0, len(group), size):
                chunk = group[start:start + size]
                self.optimizer.update_multi_precision(
                    [i for i, _, _ in chunk], [w for _, w, _ in chunk],
                    [g for _, _, g in chunk], [self.states[i] for i, _, _ in chunk])

    def sync_state_context(self, state, context):
        """``state`` with every array moved to ``context``."""
        if isinstance(state, NDArray):
            return state.as_in_context(context)
        if isinstance(state, (tuple, list)):
            synced = [self.sync_state_context(s, context) for s in state]
            return rebuilt(state, synced)
        return state

    def set_states(self, states):
        """Restore states (and the optimizer, if it was saved) from :meth:`get_states` bytes."""
        self.restore(*loads_states(states))

    def restore(self, states, optimizer=None):
        """Take ``states`` (index -> state) and ``optimizer``, if not None, as decoded from
        a state file (:func:`~gluonedu.optimizer.serialization.loads_states`)."""
        self.states = states
        if optimizer is not None:
            self.optimizer = optimizer
            self.aggregate_updates = optimizer.aggregate_num > 0
        self.states_synced = dict.fromkeys(self.states, False)

    def get_states(self, dump_optimizer=False):
        """The states as bytes (with the optimizer's settings and counters if asked)."""
        return dumps_states(self.states, self.optimizer if dump_optimizer else None)


class ArrayLayout:
    """The shape and dtype that an array of an optimizer state has, without its data."""
    __slots__ = ('shape', 'dtype')

    def __init__(self, shape, dtype):
        self.shape, self.dtype = tuple(shape), np.dtype(dtype)


def state_template(optimizer, index, shape, dtype, stype='default'):
    """The state ``optimizer`` would create for a weight of ``shape``, ``dtype`` and
    ``stype``, each array an :class:`ArrayLayout`: a loader checks a file's states against
    it. It is built for a stand-in of one element per axis, so that no weight-sized array
    is allocated; the stand-in's shape in the state stands for ``shape``."""
    stand_in = nd.zeros((1,) * len(shape), dtype=dtype, stype=stype)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')   # e.g. the float16 notice: said when first created
        state = optimizer.create_state_multi_precision(index, stand_in)

    def layout(item):
        if isinstance(item, NDArray):
            return ArrayLayout(shape if item.shape == stand_in.shape else item.shape,
                               item.dtype)
        if isinstance(item, (tuple, list)):
            return rebuilt(item, [layout(i) for i in item])
        return item
    return layout(state)


def state_mismatch(state, template):
    """Why ``state`` (loaded from a file) is not a state like ``template``
    (:func:`state_template`) — a wrong layout (another optimizer's), arity, shape or dtype —
    or None."""
    return _layout_mismatch(state, template, 'the state')


def _layout_mismatch(state, template, where):
    if isinstance(template, ArrayLayout):
        if not isinstance(state, NDArray):
            return '%s is %s, not an array' % (where, _what(state))
        if state.shape != template.shape or state.dtype != template.dtype:
            return '%s is a %s array of shape %s; this optimizer keeps %s of shape %s' % (
                where, np.dtype(state.dtype).name, state.shape, template.dtype.name,
                template.shape)
    elif isinstance(template, (tuple, list)):
        renamed = hasattr(template, '_fields') and hasattr(state, '_fields') and \
            type(state).__name__ != type(template).__name__
        if not isinstance(state, (tuple, list)) or len(state) != len(template) or renamed:
            return '%s is %s; this optimizer keeps %s' % (where, _what(state), _what(template))
        if hasattr(template, '_fields') and getattr(state, '_fields', template._fields) != \
                template._fields:
            return '%s names its arrays %s; this optimizer keeps %s' % (
                where, ', '.join(state._fields), ', '.join(template._fields))
        for i, (item, like) in enumerate(zip(state, template)):
            problem = _layout_mismatch(item, like, '%s[%d]' % (where, i))
            if problem:
                return problem
    elif type(state) is not type(template):   # None, or a number
        return '%s is %s; this optimizer keeps %s' % (where, _what(state), _what(template))
    return None


def _what(value):
    if isinstance(value, (tuple, list)):
        return '%s of length %d' % (type(value).__name__, len(value))
    return 'None' if value is None else type(value).__name__


def _with_names(state, template):
    """``state`` with its tuples typed as ``template``'s (``AdamState``, ...): states saved
    before states had names come back as plain tuples."""
    if not isinstance(state, tuple) or hasattr(state, '_fields'):
        return state
    return _typed_like(state, template)


def _typed_like(state, template):
    if not isinstance(state, tuple) or not isinstance(template, tuple) or \
            len(state) != len(template):
        return state
    items = [_typed_like(s, t) for s, t in zip(state, template)]
    return rebuilt(template, items)


def get_updater(optimizer):
    """An :class:`Updater` for ``optimizer`` (a callable ``(index, grad, weight)``)."""
    return Updater(optimizer)
