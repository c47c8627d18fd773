"""The flat-buffer NumPy path: each kernel's rule runs once over whole flat buffers.

No compiler needed: a rule evaluated on arrays is a handful of vectorised NumPy calls
for the whole group. Every argument is passed by its name. Per-parameter scalars that
are the same for every parameter (the usual case) are passed as numbers; otherwise as
one value per element (built once and cached while they stay the same). The operations
and their order are the reference's, so the numbers are the reference's bit for bit.

The same class serves CuPy arrays when CuPy's kernels are not wanted (the rules only use
``np.sqrt``-style ufuncs, which CuPy arrays accept through ``__array_ufunc__``).
"""
import numpy as np

__all__ = ['NumpyBackend', 'segment_sums_exact']


def _as_scalar_or_elements(run, values):
    values = np.asarray(values, dtype=np.float32)
    if values.size and (values == values[0]).all():
        return values[0]
    return run.expand(values)


def segment_sums_exact(run, buffers):
    """Σx² per segment of each buffer, squares in the buffer's dtype, summed in float64
    by NumPy on the host (the reference's ``(x * x).asnumpy()`` sums)."""
    out = []
    for buffer in buffers:
        squares = buffer * buffer
        if not isinstance(squares, np.ndarray):
            squares = squares.get()   # a CuPy array
        out.append(np.array([float(squares[lo:hi].astype(np.float64).sum()) for lo, hi in
                             zip(run.offsets[:-1], run.offsets[1:])]))
    return out


class NumpyBackend:
    """Runs kernels' rules over flat NumPy (or CuPy) buffers."""
    name = 'numpy'
    #: Norms are measured by segment reductions after the step, not inside it.
    sums_in_kernel = False

    def takes_sum(self, store_sum, run):
        """False: a store's sum is written into the gradient buffer before the step."""
        return False

    def run(self, kernel, run, arrays, per_parameter, constants, sums=None):
        """Apply ``kernel`` in place: its written arrays receive the rule's results."""
        assert sums is None, 'the NumPy path sums no squares inside the step'
        values = dict(zip(kernel.arrays, arrays))
        values.update(zip(kernel.per_parameter,
                          (_as_scalar_or_elements(run, p) for p in per_parameter)))
        values.update(zip(kernel.constants, constants))
        with np.errstate(divide='ignore', invalid='ignore', over='ignore'):
            results = kernel.rule(**values)
        targets = [values[n] for n in kernel.writes]
        # A result may be an input buffer we are about to overwrite (DCASGD's previous
        # weight is the weight): copy such results first.
        results = [r.copy() if r is not t and any(r is a for a in targets) else r
                   for t, r in zip(targets, results)]
        for target, result in zip(targets, results):
            if result is not target:
                target[...] = result

    def segment_sums_of_squares(self, run, buffers):
        return segment_sums_exact(run, buffers)
