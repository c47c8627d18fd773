"""The norms a Recorder asks for, measured on a flat run: one reduction per quantity.

The reference path measures each parameter's arrays one by one after its update (see
:mod:`gluonedu.optimizer.reporting`). On a flat run the same numbers come from whole
buffers, either

* **in the kernel** (numba, one-pass steps, float32 weights): the update's own pass
  also sums, per chunk, Σw'², Σg², Σ(w' − w)² and Σs'² of every state the kernel writes,
  in float64; the chunks' sums are added up per parameter afterwards; or
* **by segment reductions** (the NumPy and CuPy paths, float16 weights under
  multi_precision, LAMB, LBSGD): one float64 sum of squares per buffer, split by
  parameter, after the step; the update norm needs one copy of the weight buffer taken
  before it.

States are found by name: the run's state buffers, and the kernel's written arrays, are
named as the optimizer's state fields. If the request counts non-finite gradient entries,
the kernel's pass counts them too (a last column: only a chunk whose Σg² is not finite
is scanned again, so a finite gradient costs nothing more); the other paths count them
per parameter after the step. (A request for the counts alone is no FlatNorms' work: the
FlatRun's update pass counts them itself.) Either way the result is a
:class:`~gluonedu.optimizer.reporting.Measures` (one row of norms per parameter), which
reports the same events as the reference's per-parameter measurement.
"""
import numpy as np

from ..reporting import Measures

__all__ = ['FlatNorms']

_COLUMN = {'weight': 0, 'grad': 1, 'update': 2}   # of the kernel's sums; then the states


def second_kernel_error(kernel):
    """The error of a step that measures (or sums) in its kernel's pass but runs a second
    kernel."""
    return RuntimeError("a step that measures, counts or sums a store's gradients in its "
                        "kernel's pass runs one kernel; %s runs two (set fused_one_pass = "
                        "False)" % kernel.name)


class FlatNorms:
    """Measures a :class:`~gluonedu.optimizer.reporting.NormRequest` on one FlatRun.

    A run keeps one for as long as the request stands (the bus's subscribers unchanged),
    with its buffers. Each step::

        norms.begin()
        sums = norms.kernel_sums(kernel)   # for the step's kernel call (None: not in it)
        ... the fused step
        measured = norms.result()
    """

    def __init__(self, request, run, in_kernel):
        self.request = request
        self.run = run
        #: The state names the request wants, in the order the run's states have them.
        self.states = [name for name in run.state_buffers
                       if request.states and request.wants_state(name)]
        self.in_kernel = in_kernel
        self._sums = self._kernel = None
        self._buffers = {}   # columns -> the per-chunk sums array a kernel fills
        self._layouts = {}   # kernel name -> where its sums' columns go (_layout)
        self._before = None
        self._copies_weights = not in_kernel and 'update' in request.param

    def begin(self):
        """Start a step: forget the last one's kernel; copy the weights an update norm
        measured by reduction needs."""
        self._kernel = None
        if self._copies_weights:
            self._before = self.run.model_weight.copy()   # float16 ones included

    def kernel_sums(self, kernel):
        """The array ``kernel``'s pass fills with per-chunk sums, or None."""
        if not self.in_kernel:
            return None
        if self._kernel is not None:
            raise second_kernel_error(kernel)
        self._kernel = kernel
        # Σw'², Σg², Σ(w'-w)², Σs'² per written state, the non-finite gradient count
        columns = 3 + len(kernel.writes)
        self._sums = self._buffers.get(columns)
        if self._sums is None:
            self._sums = self._buffers[columns] = np.empty((len(self.run.chunk_lo), columns))
        return self._sums

    def result(self):
        """A :class:`~gluonedu.optimizer.reporting.Measures` of the run, after the step."""
        run, request = self.run, self.request
        counts = self._nonfinite_counts() if request.nonfinite else None
        names = request.param
        if self._kernel is not None:
            columns, rest, state_names = self._layout(self._kernel)
            # a parameter per chunk (small ones): the chunks' sums are the parameters'
            sums = self._sums if run.chunk_per_parameter else \
                np.add.reduceat(self._sums, run.first_chunk, axis=0)
            sums = sums[:, columns]     # a view when they are the leading columns
            if rest:
                sums = np.concatenate([sums, self._reductions([], rest)], axis=1)
        else:
            sums, state_names = self._reductions(names, self.states), self.states
        return Measures(run.indices, list(names), state_names, np.sqrt(sums), counts)

    def _layout(self, kernel):
        """``(columns, rest, state names)`` of ``kernel``'s sums: the columns of the
        requested norms (a slice when they lead, in order), the requested states the
        kernel does not write (measured by reduction), and the states' names in the
        order of the result."""
        layout = self._layouts.get(kernel.name)
        if layout is None:
            written = [n for n in kernel.writes if n != 'weight']
            in_sums = [n for n in self.states if n in written]
            columns = [_COLUMN[n] for n in self.request.param] + \
                [3 + written.index(n) for n in in_sums]
            if columns == list(range(len(columns))):
                columns = slice(0, len(columns))
            rest = [n for n in self.states if n not in written]
            layout = self._layouts[kernel.name] = (columns, rest, in_sums + rest)
        return layout

    def _nonfinite_counts(self):
        """NaN/±Inf entries of each parameter's gradient (a list of ints): the kernel's
        last column, or (no kernel pass) the run's own count."""
        if self._kernel is not None:
            return self.run.per_parameter_counts(self._sums[:, -1])
        return self.run.nonfinite_counts()

    def _reductions(self, names, states):
        """Σx² per parameter by segment reductions: of ``names`` (weight/grad/update), then
        of the ``states`` buffers, as the columns of one array."""
        run = self.run
        sums = [run.segment_sums64(self._param_buffer(name)) for name in names]
        sums += [run.segment_sums64(run.state_buffers[name]) for name in states]
        return np.stack(sums, axis=1) if sums else np.zeros((len(run.indices), 0))

    def _param_buffer(self, name):
        run = self.run
        if name == 'weight':
            return run.model_weight
        if name == 'grad':
            return run.model_grad
        diff = run.model_weight.astype(np.float64)
        diff -= self._before
        return diff
