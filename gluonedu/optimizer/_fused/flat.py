"""Flat buffers: the arrays of a group of parameters laid end to end in one buffer each.

A :class:`FlatGroup` holds, for one (context, dtype) group of parameters, one
contiguous buffer for the weights, one for the gradients, one per optimizer state (and
the float32 master copies under multi_precision). Every parameter's NDArrays are then
*views* into those buffers (their ``_data`` is re-pointed), so the model, autograd and
the reference optimizer see exactly the arrays they saw before, while a fused step
touches each buffer with a constant number of calls however many parameters there are.

Parameter ``k`` occupies ``[offsets[k], offsets[k+1])`` of every buffer: a *segment*.
For parallel loops the buffers are also cut into *chunks* of at most ``CHUNK`` elements
that never straddle two segments (``chunk_lo``, ``chunk_hi``, ``chunk_segment``,
``first_chunk``).

Views stay valid while nobody replaces the arrays. ``Parameter.set_data`` writes in
place (fine); ``reset_ctx``, ``cast`` and ``load_states`` make new arrays: the fused
updater notices (:meth:`FlatGroup.is_current`, an identity check per array) and builds
the group again from the new arrays.
"""
import numpy as np

__all__ = ['FlatGroup', 'CHUNK']

#: Largest chunk of a parallel loop (elements): big enough to stream, small enough to
#: balance two or more threads over a few large parameters.
CHUNK = 1 << 16


def _flatten(xp, arrays, dtype, offsets):
    """One buffer holding ``arrays`` end to end; each NDArray re-pointed to its view."""
    buffer = xp.empty(int(offsets[-1]), dtype=dtype)
    for array, lo, hi in zip(arrays, offsets[:-1], offsets[1:]):
        view = buffer[lo:hi].reshape(array._data.shape)
        view[...] = array._data
        array._data = view
    return buffer


class FlatGroup:
    """Weights, gradients and states of parameters ``indices`` in flat buffers.

    Parameters
    ----------
    xp : module
        numpy or cupy (the context's array module).
    indices, weights, grads : lists
        The parameters' indices and their weight and gradient NDArrays (dense).
    masters : list of NDArray or None
        Float32 master copies (multi_precision), else None.
    states : list of lists of NDArray
        Per parameter, its state arrays in the rule's order.
    aggregated : bool
        Whether the reference Updater passes this group to the optimizer in chunks.
    """

    def __init__(self, xp, indices, weights, grads, masters, states, aggregated):
        self.xp = xp
        self.indices = tuple(indices)
        self.aggregated = aggregated
        self.sizes = np.array([w._data.size for w in weights], dtype=np.int64)
        self.offsets = np.concatenate([[0], np.cumsum(self.sizes)]).astype(np.int64)
        self.size = int(self.offsets[-1])
        self.multi_precision = masters is not None
        self.weight = _flatten(xp, weights, weights[0]._data.dtype, self.offsets)
        self.grad = _flatten(xp, grads, grads[0]._data.dtype, self.offsets)
        self.master = (_flatten(xp, masters, np.float32, self.offsets)
                       if self.multi_precision else None)
        n_states = len(states[0]) if states else 0
        self.states = [_flatten(xp, [s[k] for s in states], states[0][k]._data.dtype,
                                self.offsets) for k in range(n_states)]
        self._weights, self._grads = list(weights), list(grads)
        self._weight_views = [w._data for w in weights]
        self._grad_views = [g._data for g in grads]
        self._scratch = {}
        self.grad32 = xp.empty(self.size, dtype=np.float32) if self.multi_precision else None
        self._build_chunks()
        self._expanded = {}
        self._segment_ids = None
        #: What users of the group work out once and keep (e.g. the state layout).
        self.memo = {}

    def _build_chunks(self):
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
        self.first_chunk = np.searchsorted(self.chunk_segment, np.arange(len(self.sizes)))

    @property
    def weights(self):
        """The parameters' weight NDArrays (views of ``weight``), in order."""
        return self._weights

    # ------------------------------------------------------------------ validity
    def is_current(self, weights, grads):
        """Whether ``weights``/``grads`` are still exactly the arrays viewing our buffers."""
        return (len(weights) == len(self._weights)
                and all(a is b and a._data is v for a, b, v in
                        zip(weights, self._weights, self._weight_views))
                and all(a is b and a._data is v for a, b, v in
                        zip(grads, self._grads, self._grad_views)))

    # ------------------------------------------------------------------ what kernels see
    def kernel_arrays(self):
        """[weight (or master copy), grad (float32), *states]: a rule's array arguments."""
        if self.multi_precision:
            return [self.master, self.grad32] + self.states
        return [self.weight, self.grad] + self.states

    def load_grad32(self):
        """Multi-precision: the float16 gradients as float32 (``grad.astype(float32)``)."""
        self.grad32[...] = self.grad

    def store_weight16(self):
        """Multi-precision: the master copies rounded into the float16 weights."""
        self.weight[...] = self.master

    def scratch(self, name, dtype=np.float32):
        """A reusable buffer of the group's size (e.g. LAMB's direction)."""
        if name not in self._scratch:
            self._scratch[name] = self.xp.empty(self.size, dtype=dtype)
        return self._scratch[name]

    def views_of(self, buffer):
        """The per-parameter pieces of a flat buffer, as flat NDArrays of our context."""
        from ...ndarray import NDArray
        ctx = self._weights[0].context
        return [NDArray(buffer[lo:hi], ctx) for lo, hi in
                zip(self.offsets[:-1], self.offsets[1:])]

    def weight_views(self):
        """The model weights (float16 ones under multi_precision), one NDArray each."""
        return self.views_of(self.weight)

    def grad_views(self):
        return self.views_of(self.grad)

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
