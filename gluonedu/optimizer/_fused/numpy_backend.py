"""The flat-buffer NumPy path: each rule runs once over whole flat buffers.

No compiler needed: a rule of :mod:`.rules` evaluated on arrays is a handful of
vectorised NumPy calls for the whole group. Per-segment scalars that are the same for
every parameter (the usual case) are passed as numbers; otherwise as one value per
element (built once and cached while they stay the same). The operations and their
order are the reference's, so the numbers are the reference's bit for bit.

The same class serves CuPy arrays when CuPy's kernels are not wanted (the rules only use
``np.sqrt``-style ufuncs, which CuPy arrays accept through ``__array_ufunc__``).
"""
import numpy as np

from .rules import RULES

__all__ = ['NumpyBackend']


def _as_scalar_or_elements(group, values):
    values = np.asarray(values, dtype=np.float32)
    if values.size and (values == values[0]).all():
        return values[0]
    return group.expand(values)


def segment_sums_exact(group, buffers):
    """Σx² per segment of each buffer, squares in the buffer's dtype, summed in float64."""
    out = []
    for buffer in buffers:
        sums = [float((piece * piece).astype(np.float64).sum()) for piece in
                (buffer[lo:hi] for lo, hi in zip(group.offsets[:-1], group.offsets[1:]))]
        out.append(np.array(sums))
    return out


class NumpyBackend:
    """Runs rules over flat NumPy buffers."""
    name = 'numpy'
    #: Norms are measured by segment reductions after the step, not inside it.
    sums_in_kernel = False

    def run(self, rule_name, group, arrays, per_segment, constants, sums=None):
        """Apply rule ``rule_name`` in place: ``arrays[0]`` and the states after
        ``arrays[1]`` are written (read-only inputs, which follow the states, are not)."""
        assert sums is None, 'the NumPy path sums no squares inside the step'
        scalars = [_as_scalar_or_elements(group, p) for p in per_segment]
        with np.errstate(divide='ignore', invalid='ignore', over='ignore'):
            results = RULES[rule_name](*arrays, *scalars, *constants)
        targets = ([arrays[0]] + list(arrays[2:]))[:len(results)]
        # A result may be an input buffer we are about to overwrite (DCASGD's previous
        # weight is the weight): copy such results first.
        results = [r.copy() if r is not t and any(r is a for a in targets) else r
                   for t, r in zip(targets, results)]
        for target, result in zip(targets, results):
            if result is not target:
                target[...] = result

    def segment_sums_of_squares(self, group, buffers):
        return segment_sums_exact(group, buffers)
