"""The GPU path: each kernel as a CuPy ElementwiseKernel over flat buffers.

Each :class:`~gluonedu.optimizer.fastpath.Kernel`'s rule is translated into CUDA C by
:mod:`.cuda_source` (the same operations in the same order, the same names): the rule
and its helpers become ``__device__`` functions in the kernel's preamble, and the body
calls the rule on one element. The kernels are compiled with ``--fmad=false`` so that
no multiply-add is contracted: every float32 operation is rounded as NumPy rounds it.
Per-parameter scalars (lr, wd, ...) are read from small per-segment arrays through a
per-element segment id (built once per group); constants are kernel arguments.

Everything here needs CuPy and a GPU; nothing is imported until a fused step runs on a
``gpu(i)`` context.
"""
import numpy as np

from .cuda_source import cuda_source

__all__ = ['CupyBackend', 'kernel_source']


def kernel_source(kernel):
    """(in_params, out_params, body, preamble) of ``kernel``'s ElementwiseKernel, by its
    names: the per-parameter scalars are loaded by segment, then the rule is called."""
    preamble, call = cuda_source(kernel)
    reads = [n for n in kernel.arrays if n not in kernel.writes]
    in_params = ', '.join(['float32 %s' % x for x in reads] + ['int32 seg_id'] +
                          ['raw float32 %s_seg' % p for p in kernel.per_parameter] +
                          ['float32 %s' % c for c in kernel.constants])
    out_params = ', '.join('float32 %s' % w for w in kernel.writes)
    loads = ''.join('const float %s = %s_seg[seg_id];\n' % (p, p)
                    for p in kernel.per_parameter)
    return in_params, out_params, loads + call, preamble


class CupyBackend:
    """Runs kernels as CuPy ElementwiseKernels over flat float32 buffers on a GPU."""
    name = 'cupy'
    #: Norms are measured by segment reductions after the step, not inside it.
    sums_in_kernel = False

    def __init__(self):
        import cupy
        self.cupy = cupy
        self._kernels = {}

    def _kernel(self, kernel):
        if kernel.name not in self._kernels:
            in_params, out_params, body, preamble = kernel_source(kernel)
            self._kernels[kernel.name] = self.cupy.ElementwiseKernel(
                in_params, out_params, body, 'gluonedu_' + kernel.name, preamble=preamble,
                options=('--fmad=false',))
        return self._kernels[kernel.name]

    def takes_sum(self, store_sum, run):
        """False: a store's sum is written into the gradient buffer before the step."""
        return False

    def run(self, kernel, run, arrays, per_parameter, constants, sums=None):
        assert sums is None, 'the CuPy kernels sum no squares inside the step'
        cp = self.cupy
        named = dict(zip(kernel.arrays, arrays))
        reads = [named[n] for n in kernel.arrays if n not in kernel.writes]
        per_parameter = [cp.asarray(np.asarray(p, dtype=np.float32)) for p in per_parameter]
        self._kernel(kernel)(*reads, run.segment_ids(), *per_parameter,
                             *[np.float32(c) for c in constants],
                             *[named[n] for n in kernel.writes])

    def segment_sums_of_squares(self, run, buffers):
        """Σx² per segment (float32 squares summed in float64), on the GPU."""
        cp = self.cupy
        ids = run.segment_ids()
        out = []
        for buffer in buffers:
            squares = (buffer * buffer).astype(cp.float64)
            sums = cp.zeros(len(run.sizes), dtype=cp.float64)
            cp.add.at(sums, ids, squares)
            out.append(cp.asnumpy(sums))
        return out
