"""Flat buffers: the arrays of a group of parameters laid end to end in one buffer each.

A :class:`FlatGroup` holds, for one (context, dtype) group of parameters, one contiguous
buffer for their weights and one for their gradients. Every parameter's NDArrays are
then *views* into those buffers (``ndarray.set_handle``), so the model, autograd
and the reference optimizer see exactly the arrays they saw before, while a fused step
— or an all-reduce in a KVStore — touches each buffer with a constant number of calls
however many parameters there are.

Who builds them: the Trainer, once, for each of its contexts (and hands them to its
Updaters and to its KVStore); the KVStore for its own copies of the weights; a
FusedUpdater used on its own builds its own. Optimizer states are laid out by the
updater that owns them, in the same segments.

Parameter ``k`` occupies ``[offsets[k], offsets[k+1])`` of every buffer: a *segment*.
For parallel loops the buffers are also cut into *chunks* of at most ``CHUNK`` elements
that never straddle two segments (``chunk_lo``, ``chunk_hi``, ``chunk_segment``,
``first_chunk``).

Views stay valid while nobody replaces the arrays. ``Parameter.set_data`` writes in
place (fine); ``reset_ctx``, ``cast`` and ``load_states`` make new arrays: whoever holds
a group checks :meth:`FlatGroup.is_current` (an identity check per array) and builds it
again from the new arrays.

A store that reduces flat gradients declares its sum as a :class:`StoreSum` (the parts,
the order it adds them in, where the result goes) instead of computing it; the sum in a
declared order is computed in one place, :func:`sum_in_order`.
"""
from dataclasses import dataclass

import numpy as np

from .. import _backend
from ..ndarray.ndarray import holds_handles, rebind_count, set_handle

__all__ = ['FlatGroup', 'StoreSum', 'CHUNK', 'LEFT_TO_RIGHT', 'CPU_REDUCER', 'flatten',
           'sum_in_order']

#: Largest chunk of a parallel loop (elements): big enough to stream, small enough to
#: balance two or more threads over a few large parameters.
CHUNK = 1 << 16


def flatten(xp, arrays, dtype, offsets):
    """One buffer holding ``arrays`` (NDArrays) end to end; each re-pointed to its view."""
    buffer = xp.empty(int(offsets[-1]), dtype=dtype)
    for array, lo, hi in zip(arrays, offsets[:-1], offsets[1:]):
        view = buffer[lo:hi].reshape(array.shape)
        view[...] = array.handle
        set_handle(array, view)
    return buffer


class FlatGroup:
    """The weights and gradients of parameters ``indices``, each in one flat buffer.

    Parameters
    ----------
    indices : sequence
        The parameters' indices (the KVStore's keys), in buffer order.
    weights, grads : lists of NDArray
        Their weights and gradients (dense, of one context; the weights of one dtype, the
        gradients of one dtype). They become views of ``weight`` and ``grad``.
    """

    def __init__(self, indices, weights, grads):
        self.indices = tuple(indices)
        self.context = weights[0].context
        self.xp = _backend.array_module(self.context)
        sizes = np.array([w.size for w in weights], dtype=np.int64)
        self._set_segments(sizes)
        self.weight = flatten(self.xp, weights, weights[0].dtype, self.offsets)
        self.grad = flatten(self.xp, grads, grads[0].dtype, self.offsets)
        self.weights, self.grads = list(weights), list(grads)
        self._weight_views = [w.handle for w in weights]
        self._grad_views = [g.handle for g in grads]
        self._views_checked = rebind_count()   # the count at which they were held
        self._slices = {}

    def _set_segments(self, sizes):
        self.sizes = sizes
        self.offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        self.size = int(self.offsets[-1])
        lo, seg = [], []
        for k, (start, stop) in enumerate(zip(self.offsets[:-1], self.offsets[1:])):
            starts = list(range(int(start), int(stop), CHUNK)) or [int(start)]
            lo.extend(starts)
            seg.extend([k] * len(starts))
        self.chunk_lo = np.array(lo, dtype=np.int64)
        self.chunk_hi = np.minimum(self.chunk_lo + CHUNK,
                                   self.offsets[1:][np.array(seg, dtype=np.int64)])
        self.chunk_segment = np.array(seg, dtype=np.int64)
        # Each parameter's first chunk: per-chunk results add up per parameter by reduceat
        # (unless each parameter is one chunk: then they are the parameters' results).
        self.first_chunk = np.searchsorted(self.chunk_segment, np.arange(len(sizes)))
        self.chunk_per_parameter = len(lo) == len(sizes)
        self._segment_ids = None
        self._expanded = {}

    # ------------------------------------------------------------------ validity
    def is_current(self, weights, grads):
        """Whether ``weights``/``grads`` are still exactly the arrays viewing our buffers."""
        return (len(weights) == len(self.weights)
                and all(a is b for a, b in zip(weights, self.weights))
                and all(a is b for a, b in zip(grads, self.grads))
                and self.views_held())

    def views_held(self):
        """Whether our weights and gradients still hold the views of our buffers (looked
        at again only after some NDArray was given other storage)."""
        count = rebind_count()
        if count != self._views_checked:
            if not (holds_handles(self.weights, self._weight_views) and
                    holds_handles(self.grads, self._grad_views)):
                return False
            self._views_checked = count
        return True

    def segments(self, start, stop):
        """The group of parameters ``start:stop`` (positions in this group): a FlatGroup
        whose buffers are views of ours (cached)."""
        if (start, stop) == (0, len(self.indices)):
            return self
        part = self._slices.get((start, stop))
        if part is None:
            lo, hi = int(self.offsets[start]), int(self.offsets[stop])
            part = object.__new__(FlatGroup)
            part.indices = self.indices[start:stop]
            part.xp, part.context = self.xp, self.context
            part._set_segments(self.sizes[start:stop])
            part.weight, part.grad = self.weight[lo:hi], self.grad[lo:hi]
            part.weights, part.grads = self.weights[start:stop], self.grads[start:stop]
            part._weight_views = self._weight_views[start:stop]
            part._grad_views = self._grad_views[start:stop]
            part._views_checked = self._views_checked
            part._slices = {}
            self._slices[(start, stop)] = part
        return part

    # ------------------------------------------------------------------ helpers
    def views_of(self, buffer):
        """The per-parameter pieces of a flat buffer, as flat NDArrays of our context."""
        from ..ndarray import NDArray
        return [NDArray(buffer[lo:hi], self.context) for lo, hi in
                zip(self.offsets[:-1], self.offsets[1:])]

    def segment_ids(self):
        """For every element, the index of its parameter (int32, on the group's device)."""
        if self._segment_ids is None:
            self._segment_ids = self.xp.asarray(
                np.repeat(np.arange(len(self.sizes), dtype=np.int32), self.sizes))
        return self._segment_ids

    def segment_sums64(self, x):
        """Σ float64(x)² per parameter of a flat buffer ``x``: a NumPy array of floats."""
        squares = x.astype(np.float64)
        squares *= squares
        if self.xp is np:
            if not self.size:
                return np.zeros(len(self.sizes))
            sums = np.add.reduceat(squares, np.minimum(self.offsets[:-1], self.size - 1))
            sums[self.sizes == 0] = 0.0  # reduceat gives an element for an empty segment
            return sums
        sums = self.xp.zeros(len(self.sizes), dtype=np.float64)
        self.xp.add.at(sums, self.segment_ids(), squares)
        return self.xp.asnumpy(sums)

    def expand(self, values):
        """Per-segment values as one value per element (cached: lrs rarely change)."""
        key = values.tobytes()
        hit = self._expanded.get(key)
        if hit is None:
            if len(self._expanded) > 8:
                self._expanded.clear()
            hit = self.xp.asarray(np.repeat(values, self.sizes))
            self._expanded[key] = hit
        return hit


# ---------------------------------------------------------------------- a store's sum
#: The orders in which a store adds its devices' values (``StoreSum.order``), element by
#: element in their dtype. ``((p0 + p1) + p2) + ...``: the 'device' store, and every
#: store's compressed values.
LEFT_TO_RIGHT = 'left to right'
#: MXNet's CPU reducer (the 'local' store): the first value, plus the others summed in
#: groups of four, ``p0 + (((p1 + p2) + p3) + p4) + (((p5 + p6) + p7) + p8) + ...``.
CPU_REDUCER = 'first, then groups of four'


def _check_order(order):
    if order not in (LEFT_TO_RIGHT, CPU_REDUCER):
        raise ValueError("unknown order of a sum %r; use flat.LEFT_TO_RIGHT or "
                         "flat.CPU_REDUCER" % (order,))


def sum_in_order(parts, order, out=None):
    """The sum of the arrays ``parts`` in ``order`` (:data:`LEFT_TO_RIGHT` or
    :data:`CPU_REDUCER`), written into ``out`` (which may be ``parts[0]``; a new array
    if None) and returned.

    The one place where a store's sum is computed; a fused pass that takes a
    :class:`StoreSum` over compiles the same left-to-right sum into its loop.
    """
    _check_order(order)
    if out is None:
        total = parts[0].copy()
    else:
        total = out
        if total is not parts[0]:
            total[...] = parts[0]
    if order == LEFT_TO_RIGHT:
        for part in parts[1:]:
            total += part
        return total
    for start in range(1, len(parts), 4):
        group = parts[start:start + 4]
        partial = group[0].copy()
        for part in group[1:]:
            partial += part
        total += partial
    return total


@dataclass(frozen=True, eq=False)
class StoreSum:
    """A store's sum of its devices' flat gradients, declared: what a KVStore hands over
    instead of summing them itself (``allreduce_flat``, docs/fused.md).

    The store says what it sums and in which order, and where the result goes; whoever
    runs it decides how. An all-reduce (:meth:`write`) and a FusedUpdater's step
    (:meth:`~gluonedu.optimizer._fused.FusedUpdater.update_reduced`) compute it in one
    pass over memory where the backend can compile the order into its loop (numba: the
    left-to-right sum, host buffers); everywhere else :meth:`sum_into` computes the sum
    in the declared order first. The numbers are the same either way.

    Parameters
    ----------
    parts : tuple of arrays
        The devices' flat gradients (of one size and dtype, in the store's memory), in
        the store's order.
    order : str
        :data:`LEFT_TO_RIGHT` or :data:`CPU_REDUCER`.
    copies : tuple of arrays
        Flat buffers (same size and dtype, in the store's memory) that receive the
        result: the sum itself in an all-reduce, the updated weights in an update.
    """
    parts: tuple
    order: str
    copies: tuple

    def __post_init__(self):
        object.__setattr__(self, 'parts', tuple(self.parts))
        object.__setattr__(self, 'copies', tuple(self.copies))
        _check_order(self.order)

    @property
    def left_to_right(self):
        """Whether the sum is ``((p0 + p1) + p2) + ...``: the one order a fused pass may
        compile (MXNet's CPU reducer adds two parts so too)."""
        return self.order == LEFT_TO_RIGHT or len(self.parts) <= 2

    def sum_into(self, out):
        """Write the sum, in the declared order, into ``out`` (a buffer, not a later part)."""
        sum_in_order(self.parts, self.order, out)

    def copy_out(self, result):
        """Write ``result`` into every buffer of ``copies`` (but itself)."""
        for copy in self.copies:
            if copy is not result:
                copy[...] = result

    def write(self, group):
        """An all-reduce: write the sum into every buffer of ``copies``.

        ``group``: a FlatGroup of the parts' layout (its chunks split numba's pass). Host
        float32/float64 buffers summed left to right take one parallel pass over memory
        (numba) that reads the parts and writes every copy; otherwise the sum is written
        into ``parts[0]`` if it is a copy, else into ``copies[0]``, which must not be a
        later part, and copied into the others.
        """
        from ._fused import numba_backend   # the fast path's backend, if installed
        if numba_backend.takes(self, (np.float32, np.float64)):
            numba_backend.sum_and_copy(self.parts, self.copies, group.chunk_lo,
                                       group.chunk_hi)
            return
        total = self.parts[0] if any(c is self.parts[0] for c in self.copies) \
            else self.copies[0]
        self.sum_into(total)
        self.copy_out(total)
