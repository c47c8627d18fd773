"""The runs an optimizer's ``fused_step(run)`` works on: flat buffers, or rows.

A *run* is what the reference processes as a unit (see :mod:`.updater`). The optimizer
applies its kernels with ``run(kernel, arrays=None, where=None, **scalars)``; the run
binds every argument of the kernel's rule by name — ``weight`` and ``grad`` (the float32
master copy and gradient under multi_precision), the optimizer's state arrays by their
field names, ``arrays`` the step made itself — and hands them to a backend.

* :class:`FlatRun`: dense parameters laid out in a FlatGroup (the Trainer's, the
  KVStore's, or one of the updater's own); the updater's state arrays are laid out in
  the same segments. One kernel call is one pass over all the parameters.
* :class:`LazyRun`: a run holding row_sparse gradients (an ``Embedding(sparse_grad=True)``
  beside dense layers). Each parameter is updated on its own arrays: only the rows its
  gradient holds (weight and states; numba's ``rows`` loop, else the rule on the
  fancy-indexed rows), or the whole array for a dense gradient. ``where`` then picks
  the parameters a kernel applies to (SGD's kernel depends on its multi-tensor call,
  AdaGrad's on the gradient's storage).
"""
import numpy as np

from ... import _backend
from ..flat import flatten
from ..reporting import Measures, reads_gradients
from .norms import FlatNorms, second_kernel_error
from .numpy_backend import segment_sums_exact

__all__ = ['FlatRun', 'LazyRun']

f32 = np.float32


def _per_parameter(value, count):
    value = np.asarray(value)
    return np.full(count, value) if value.ndim == 0 else value


def _in_call(flags, per_call):
    """For each parameter, whether every parameter of its call (``per_call`` of them,
    consecutive) has the flag."""
    flags = np.asarray(flags, dtype=bool)
    out = np.empty(len(flags), dtype=bool)
    for start in range(0, len(flags), per_call):
        out[start:start + per_call] = flags[start:start + per_call].all()
    return out


class FlatRun:
    """Dense parameters over flat buffers: a FlatGroup and the updater's state buffers.

    Parameters
    ----------
    group : FlatGroup
        The weights and gradients.
    optimizer : Optimizer
    states : list
        Each parameter's optimizer state; their arrays are re-pointed to views of this
        run's state buffers (one per state name, as ``optimizer.named_states`` names them).
    per_call : int
        How many parameters one multi-tensor call of the reference takes.
    """

    def __init__(self, group, optimizer, states, per_call):
        named = [optimizer.named_states(state) for state in states]
        names = [name for name, _ in named[0]]
        if any([name for name, _ in n] != names for n in named):
            raise ValueError('parameters whose states are laid out differently')
        self.group = group
        self.indices = group.indices
        self.per_call = per_call
        self.sparse = np.zeros(len(self.indices), dtype=bool)
        self.xp = group.xp
        for attr in ('size', 'sizes', 'offsets', 'chunk_lo', 'chunk_hi', 'chunk_segment',
                     'first_chunk', 'chunk_per_parameter', 'expand', 'segment_ids',
                     'segment_sums64', 'views_of'):
            setattr(self, attr, getattr(group, attr))
        self.state_buffers = {}   # name -> flat buffer, 'weight_fp32' included
        for j, name in enumerate(names):
            arrays = [n[j][1] for n in named]
            self.state_buffers[name] = flatten(self.xp, arrays, arrays[0].dtype,
                                               self.offsets)
        self._states = list(states)
        self.multi_precision = 'weight_fp32' in self.state_buffers
        self.grad32 = self.xp.empty(self.size, dtype=np.float32) \
            if self.multi_precision else None
        #: The arrays a kernel may name: the (master) weight, the float32 gradient, states.
        self.arrays = {name: buffer for name, buffer in self.state_buffers.items()
                       if name != 'weight_fp32'}
        self.arrays['weight'] = self.state_buffers.get('weight_fp32', group.weight)
        self.arrays['grad'] = self.grad32 if self.multi_precision else group.grad
        self._scratch = {}
        #: What an optimizer's step works out once and keeps (e.g. LBSGD's views).
        self.memo = {}
        self.backend = None
        self._backend = self._norms = None
        # A store's sum offered to the step's kernel, and whether that kernel took it.
        self._offered_sum, self._took_sum = None, False
        self._norms_kept = None
        # A counting pass's per-chunk counts, and the answer of a step that found none.
        self._count_buffer = np.empty((len(self.chunk_lo), 1))
        n = len(self.indices)
        self._all_finite = Measures(self.indices, (), (), np.empty((n, 0)), [0] * n)
        self._counts = self._counted = None

    # ------------------------------------------------------------------ validity
    def is_current(self, group, states):
        """Whether this run still lays out ``group`` and ``states`` (the same objects:
        loading states or moving them to another context makes new ones)."""
        return group is self.group and len(states) == len(self._states) and \
            all(a is b for a, b in zip(states, self._states))

    # ------------------------------------------------------------------ one step
    def step(self, optimizer, backend, norms=None, store_sum=None):
        """``optimizer.fused_step(self)`` on ``backend``; the norms ``norms`` asks for.

        ``store_sum``: a :class:`~gluonedu.optimizer.flat.StoreSum` of this run's whole
        gradient (the store's devices' gradients, still to be summed; the weights go to
        its copies). Where the step is one kernel that nothing else reads the gradient
        beside (no norms, no report reading it, no float32 copy of it), and the backend
        compiles the declared order, that kernel sums the parts and writes the copies in
        its own pass; otherwise the sum is written into the gradient buffer first. Either
        way the copies hold the new weights afterwards.

        Returns ``{}`` if nothing was requested, else a
        :class:`~gluonedu.optimizer.reporting.Measures`.
        """
        self.backend, self._backend = backend.name, backend
        counting = False
        if norms is not None:
            one_pass = backend.sums_in_kernel and optimizer.fused_one_pass and \
                not self.multi_precision
            # Only the non-finite counts wanted, and a pass that can count them: the
            # update's own pass counts (no FlatNorms; a watched step's usual request).
            counting = one_pass and norms.count_only
        self._norms = None if norms is None or counting else \
            self._flat_norms(norms, in_kernel=one_pass)
        in_pass = (store_sum is not None and optimizer.fused_one_pass and norms is None and
                   not self.multi_precision and not reads_gradients(optimizer) and
                   backend.takes_sum(store_sum, self))
        if store_sum is not None and not in_pass:
            store_sum.sum_into(self.group.grad)
        self._offered_sum, self._took_sum = (store_sum if in_pass else None), False
        self._counts, self._counted = (self._count_buffer if counting else None), None
        if self.multi_precision:
            self.grad32[...] = self.group.grad
        try:
            optimizer.fused_step(self)
        finally:
            self._offered_sum = self._counts = None
        if self.multi_precision:
            self.group.weight[...] = self.arrays['weight']
        if store_sum is not None and not self._took_sum:
            store_sum.copy_out(self.group.weight)
        if counting:
            return self._all_finite if self._counted == 0 else self._counted_measures()
        return {} if self._norms is None else self._norms.result()

    def _flat_norms(self, request, in_kernel):
        """The FlatNorms measuring ``request`` this step (kept while the request stands)."""
        norms = self._norms_kept
        if norms is None or norms.request is not request or norms.in_kernel != in_kernel:
            norms = self._norms_kept = FlatNorms(request, self, in_kernel)
        norms.begin()
        return norms

    def _counted_measures(self):
        """The Measures of a step whose pass counted non-finite gradient entries: each
        parameter's count (its chunks' counts added up), and no norms."""
        counts = self.nonfinite_counts() if self._counted is None \
            else self.per_parameter_counts(self._count_buffer[:, 0])
        n = len(self.indices)
        return Measures(self.indices, (), (), np.empty((n, 0)), counts)

    def per_parameter_counts(self, chunk_counts):
        """Each parameter's count (a list of ints): its chunks' ``chunk_counts`` added."""
        if not np.count_nonzero(chunk_counts):   # the usual case: nothing counted anywhere
            return [0] * len(self.indices)
        if not self.chunk_per_parameter:
            chunk_counts = np.add.reduceat(chunk_counts, self.first_chunk)
        return [int(c) for c in chunk_counts.tolist()]

    def nonfinite_counts(self):
        """Each parameter's count of NaN/±Inf gradient entries (a list of ints), when no
        kernel counted them: one segment sum of the gradient's non-finite flags (a 0/1
        flag is its own square)."""
        flags = ~self.xp.isfinite(self.model_grad)
        return [int(c) for c in self.segment_sums64(flags.astype(np.float32)).tolist()]

    def __call__(self, kernel, arrays=None, where=None, **scalars):
        """Apply ``kernel`` to every parameter of the run (``where``: None, or all True;
        all False does nothing)."""
        if where is not None:
            where = np.asarray(where, dtype=bool)
            if not where.any():
                return
            if not where.all():
                raise ValueError("a flat run applies kernel %s to all of its parameters; "
                                 "where= picks some only on a run of row_sparse gradients"
                                 % kernel.name)
        available = dict(self.arrays, **arrays) if arrays else self.arrays
        bound, per_parameter, constants = kernel.bind(available, scalars)
        per_parameter = [_per_parameter(p, len(self.indices)) for p in per_parameter]
        if self._counts is not None:   # the pass counts non-finite gradient entries
            if self._counted is not None:
                raise second_kernel_error(kernel)
            self._counted = self._backend.run(kernel, self, bound, per_parameter,
                                              constants, self._counts)
            return
        if self._took_sum:   # the gradient buffer does not hold the sum the pass took
            raise second_kernel_error(kernel)
        offered, self._offered_sum = self._offered_sum, None
        if offered is not None:
            if 'weight' in kernel.writes and 'grad' in kernel.arrays and \
                    'grad' not in kernel.writes:
                # The pass sums the gradient's parts and writes the weights' copies itself.
                self._backend.run(kernel, self, bound, per_parameter, constants,
                                  store_sum=offered)
                self._took_sum = True
                return
            offered.sum_into(self.group.grad)   # a kernel that cannot take it over
        sums = self._norms.kernel_sums(kernel) if self._norms is not None else None
        counted = self._backend.run(kernel, self, bound, per_parameter, constants, sums)
        if sums is not None:
            self._norms.counted = counted

    def in_multi_tensor_call(self):
        """For each parameter, whether its multi-tensor call holds only dense arrays."""
        return np.ones(len(self.indices), dtype=bool)

    # ------------------------------------------------------------------ helpers for steps
    def scratch(self, name, dtype=np.float32):
        """A reusable buffer of the run's size (e.g. LAMB's direction)."""
        if name not in self._scratch:
            self._scratch[name] = self.xp.empty(self.size, dtype=dtype)
        return self._scratch[name]

    @property
    def weights(self):
        """The model's weight NDArrays (float16 ones under multi_precision)."""
        return self.group.weights

    @property
    def model_weight(self):
        """The flat buffer of the model's weights (float16 under multi_precision)."""
        return self.group.weight

    @property
    def model_grad(self):
        """The flat buffer of the model's gradients (float16 under multi_precision)."""
        return self.group.grad

    def sums_of_squares(self, buffer):
        """Σx² per parameter of a flat buffer, squares in its dtype, summed in float64 —
        by the numba kernel (its chunks' order) for float32 buffers on the numba path,
        else parameter by parameter as NumPy sums (the reference's order)."""
        if self.backend == 'numba' and buffer.dtype == np.float32:
            return self._backend.segment_sums_of_squares(self, [buffer])[0]
        return segment_sums_exact(self, [buffer])[0]


class LazyRun:
    """A run holding row_sparse gradients: each parameter updated on its own arrays."""

    def __init__(self, optimizer, states, indices, weights, grads, backend, per_call):
        self.optimizer = optimizer
        self.indices = tuple(indices)
        self.per_call = per_call
        self.sparse = np.array([g.stype == 'row_sparse' for g in grads], dtype=bool)
        self.multi_precision = np.dtype(weights[0].dtype) == np.float16
        self.backend = backend.name
        self._backend = backend
        self._weights, self._grads, self._states = weights, grads, states

    def in_multi_tensor_call(self):
        """For each parameter, whether its multi-tensor call holds only dense arrays (MXNet
        runs any other call through its one-tensor kernels)."""
        return _in_call(~self.sparse, self.per_call)

    def __call__(self, kernel, arrays=None, where=None, **scalars):
        if arrays:
            raise ValueError("kernel %s: a run of row_sparse gradients takes no extra arrays"
                             % kernel.name)
        count = len(self.indices)
        with _backend.device_scope(self._weights[0].context):
            for k in range(count):
                if where is not None and not where[k]:
                    continue
                self._update(kernel, k, scalars)

    def _update(self, kernel, k, scalars):
        weight, grad = self._weights[k], self._grads[k]
        named = dict(self.optimizer.named_states(self._states[k]))
        master = named.pop('weight_fp32', None)
        sparse = grad.stype == 'row_sparse'
        g = grad.data.handle if sparse else grad.handle
        available = {name: array.handle for name, array in named.items()}
        available['weight'] = (master if self.multi_precision else weight).handle
        available['grad'] = g.astype(np.float32) if self.multi_precision else g
        bound, per_parameter, constants = kernel.bind(available, scalars)
        values = [f32(_per_parameter(p, len(self.indices))[k]) for p in per_parameter] + \
            [f32(c) for c in constants]
        if sparse:
            _update_rows(self._backend, kernel, bound, grad.indices.handle, values)
        else:
            _update_all(self._backend, kernel, bound, values)
        if self.multi_precision:  # the reference casts the whole master copy back
            weight.handle[...] = master.handle


def _update_rows(backend, kernel, arrays, rows, values):
    """``kernel`` on rows ``rows`` of its written arrays, from the gradient's rows."""
    if rows.shape[0] == 0:
        return
    if backend.name == 'numba' and _numba_rows(backend, kernel, arrays, rows, values):
        return
    named = {n: (a if n == 'grad' else a[rows]) for n, a in zip(kernel.arrays, arrays)}
    results = _rule(kernel, named, values)
    for name, result in zip(kernel.writes, results):
        arrays[kernel.arrays.index(name)][rows] = result


def _update_all(backend, kernel, arrays, values):
    """``kernel`` on the whole of a dense parameter (a dense gradient in the run)."""
    if backend.name == 'numba' and _numba_rows(backend, kernel, arrays, None, values):
        return
    named = dict(zip(kernel.arrays, arrays))
    results = _rule(kernel, named, values)
    for name, result in zip(kernel.writes, results):
        if result is not named[name]:
            named[name][...] = result


def _rule(kernel, named, values):
    named.update(zip(kernel.per_parameter + kernel.constants, values))
    with np.errstate(divide='ignore', invalid='ignore', over='ignore'):
        return kernel.rule(**named)


_ONE_ROW = np.zeros(1, dtype=np.int64)


def _numba_rows(backend, kernel, arrays, rows, values):
    """Run the numba loop ``rows``; False if it could not (nothing written then).

    ``rows`` None: the whole (dense) parameter, as one row. The loop takes C-contiguous
    NumPy arrays, viewed as 2-D rows *in place* (a copy would lose the update); it
    declines by itself row ids that are not increasing and in range, and shapes that
    disagree (it writes rows in parallel, unchecked).
    """
    named = dict(zip(kernel.arrays, arrays))
    weight, grad = named['weight'], named['grad']
    if grad.shape != (weight.shape if rows is None else rows.shape + weight.shape[1:]):
        return False
    if any(type(a) is not np.ndarray or not a.flags.c_contiguous for a in arrays):
        return False
    n, k = (1, 1) if rows is None else (weight.shape[0], rows.shape[0])
    as_rows = [a.reshape(k, -1) if name == 'grad' else a.reshape(n, -1)
               for name, a in named.items()]
    return backend.rows(kernel, as_rows, _ONE_ROW if rows is None else rows, values)
