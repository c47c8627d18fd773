"""The norms a Recorder asks for, measured on a flat group: one reduction per quantity.

The reference path measures each parameter's arrays one by one after its update (see
:mod:`gluonedu.optimizer.reporting`). On a flat group the same numbers come from whole
buffers, either

* **in the kernel** (numba, single-kernel optimizers, float32 weights): the update's own
  pass also sums, per chunk, Σw'², Σg², Σ(w' − w)² and Σs'² of every state, in float64;
  the chunks' sums are added up per parameter afterwards; or
* **by segment reductions** (the NumPy and CuPy paths, float16 weights under
  multi_precision, LAMB): one float64 sum of squares per buffer, split by parameter,
  after the step; the update norm needs one copy of the weight buffer taken before it.

Either way the result is the dictionary the reference's measurement gives,
``{index: {'norm': {...}, 'state_norm': {...}}}``, so the events are the same.
"""
import numpy as np

from ..reporting import array_norm

__all__ = ['FlatNorms']


def _address(raw):
    """Where a NumPy or CuPy array's data begins in memory."""
    if hasattr(raw, '__array_interface__'):
        return raw.__array_interface__['data'][0]
    return raw.data.ptr


def _state_layout(group, optimizer, first_state):
    """[(state name, flat buffer)] for the named states of the group's first parameter,
    matched by address to the group's buffers; None if one lies outside them.

    The same for every step of a group (a group is rebuilt when its arrays change), so
    it is worked out once and kept on the group.
    """
    if 'state_layout' in group.memo:
        return group.memo['state_layout']
    buffers = ([group.master] if group.multi_precision else []) + list(group.states)
    layout = []
    for name, array in optimizer.named_states(first_state, group.weights[0]):
        start = _address(array._data)
        match = [b for b in buffers if b.dtype == array._data.dtype and
                 _address(b) + int(group.offsets[0]) * b.itemsize == start]
        if not match:
            layout = None
            break
        layout.append((name, match[0]))
    group.memo['state_layout'] = layout
    return layout


class FlatNorms:
    """Measures a :class:`~gluonedu.optimizer.reporting.NormRequest` on one flat group.

    Use::

        norms = FlatNorms(request, group, optimizer, first_state, in_kernel)
        sums = norms.kernel_sums()       # hand to the kernel (None: not in the kernel)
        ... the fused step ...
        measured = norms.result(optimizer, states)
    """

    def __init__(self, request, group, optimizer, first_state, in_kernel):
        self.request = request
        self.group = group
        layout = _state_layout(group, optimizer, first_state) if request.states else []
        # A state outside the buffers (layout None) is measured parameter by parameter.
        self.fallback_states = layout is None
        self.named = [(name, buffer) for name, buffer in layout or []
                      if request.wants_state(name)]
        self.state_names = [name for name, _ in self.named]
        self.in_kernel = in_kernel and not group.multi_precision
        self._sums = None
        self._before = None
        if self.in_kernel:
            self._sums = np.empty((len(group.chunk_lo), 3 + len(group.states)))
            self._columns = [_COLUMN[name] for name in request.param] + \
                [3 + _position(group.states, buffer) for _, buffer in self.named]
        elif 'update' in request.param:
            self._before = group.weight.copy()   # the model weights, float16 ones included

    def kernel_sums(self):
        """The array the kernel fills with per-chunk sums, or None."""
        return self._sums

    def result(self, optimizer, states):
        """``{index: {'norm': {...}, 'state_norm': {...}}}`` after the step.

        ``states``: each parameter's optimizer state, for a state the buffers do not hold.
        """
        group, request = self.group, self.request
        if self.in_kernel:
            sums = np.add.reduceat(self._sums, group.first_chunk, axis=0)[:, self._columns]
        else:
            sums = [self._segment_sums(name) for name in request.param]
            sums += [group.segment_sums64(buffer) for _, buffer in self.named]
            sums = np.stack(sums, axis=1) if sums else np.zeros((len(group.indices), 0))
        names, state_names, split = request.param, self.state_names, len(request.param)
        measured = {index: {'norm': dict(zip(names, row[:split])),
                            'state_norm': dict(zip(state_names, row[split:]))}
                    for index, row in zip(group.indices, np.sqrt(sums).tolist())}
        if self.fallback_states:
            for index, weight, state in zip(group.indices, group.weights, states):
                measured[index]['state_norm'] = {
                    name: array_norm(array) for name, array in
                    optimizer.named_states(state, weight) if request.wants_state(name)}
        return measured

    def _segment_sums(self, name):
        """Σx² per parameter of the weight, the gradient or the update, after the step."""
        group = self.group
        if name == 'weight':
            return group.segment_sums64(group.weight)
        if name == 'grad':
            return group.segment_sums64(group.grad)
        diff = group.weight.astype(np.float64)
        diff -= self._before
        return group.segment_sums64(diff)


_COLUMN = {'weight': 0, 'grad': 1, 'update': 2}   # of the kernel's sums; then the states


def _position(buffers, buffer):
    return next(i for i, b in enumerate(buffers) if b is buffer)
