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
"""
import numpy as np

from .. import _backend
from ..ndarray.ndarray import holds_handles, rebind_count, set_handle

__all__ = ['FlatGroup', 'FlatReduction', 'CHUNK', 'flatten', 'sum_and_copy']

#: Largest chunk of a parallel loop (elements): big enough to stream, small enough to
#: balance two or more threads over a few large parameters.
CHUNK = 1 << 16


def sum_and_copy(parts, outs, group):
    """Write ``parts[0] + parts[1] + ...`` — element by element, left to right, in their
    dtype — into every buffer of ``outs``: a store's all-reduce.

    ``parts`` and ``outs`` are flat buffers of ``group``'s size and dtype; a part may
    also be an out (it is read before it is written), but ``outs[0]`` must not be a later
    part. Host float32/float64 buffers take one parallel pass over memory (numba, over
    the group's chunks); others are summed with their array module, then copied.
    """
    from .. import _numba
    from ._fused import numba_backend   # the fast path's backend, if installed
    if _numba.available() and all(
            type(a) is np.ndarray and a.dtype == parts[0].dtype and a.flags.c_contiguous
            for a in (*parts, *outs)) and parts[0].dtype in (np.float32, np.float64):
        numba_backend.sum_and_copy(parts, outs, group.chunk_lo, group.chunk_hi)
        return
    total = outs[0]
    if total is not parts[0]:
        total[...] = parts[0]
    for part in parts[1:]:
        total += part
    for out in outs[1:]:
        out[...] = total


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
        # Each parameter's first chunk: per-chunk results add up per parameter by reduceat.
        self.first_chunk = np.searchsorted(self.chunk_segment, np.arange(len(sizes)))
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


class FlatReduction:
    """A gradient still to be summed, and where the updated weights go: what a KVStore
    hands its updater so that reduce, update and broadcast can be one pass over memory
    (:meth:`~gluonedu.optimizer._fused.FusedUpdater.update_reduced`, docs/fused.md).

    The gradient of the update is the sum of ``parts``, taken element by element left
    to right in their dtype, ``((p0 + p1) + p2) + ...`` — a store hands a reduction over
    only where that is its own order. A fused pass reads the parts, sums them, updates
    and writes the new weights into every buffer of ``copies``, never writing the sum
    anywhere. Wherever a pass cannot (another backend, norms to measure, a second
    kernel that reads the gradient), :meth:`sum` has the store write the sum into the
    updater's gradient buffer first, in the store's own code, and the updater copies the
    weights after the step.

    Parameters
    ----------
    parts : sequence of arrays
        The devices' flat gradients (host arrays of the group's size and dtype), in the
        store's order.
    copies : sequence of arrays
        Flat buffers (host arrays of the same size and dtype) that receive the updated
        weights.
    sum_into_grad : callable
        ``sum_into_grad()`` writes the sum of ``parts`` into the updater's gradient buffer
        (the store's reduction).
    """

    def __init__(self, parts, copies, sum_into_grad):
        self.parts, self.copies = tuple(parts), tuple(copies)
        self._sum_into_grad = sum_into_grad
        #: Whether the gradient buffer holds the sum.
        self.summed = False
        #: Whether a pass has summed the parts itself (then a kernel reading the gradient
        #: buffer later needs :meth:`sum`).
        self.consumed = False
        #: Whether ``copies`` hold the weights as the last kernel left them.
        self.copied = False

    def sum(self):
        """Write the sum into the gradient buffer (once)."""
        if not self.summed:
            self._sum_into_grad()
            self.summed = True

    def copy_weights(self, weight):
        """Copy ``weight`` (the updated flat weights) into every buffer of ``copies``,
        unless the last pass already wrote them."""
        if not self.copied:
            for copy in self.copies:
                copy[...] = weight
            self.copied = True
