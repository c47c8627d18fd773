"""Matrix products for the fast kernels: thread count by size, and accumulation in place.

OpenBLAS splits even small products over all its threads. For the products of a small
network (LeNet on 8×8 digits: a few hundred thousand multiply-adds) starting and
joining the threads costs more than the arithmetic, and on a machine whose cores are
busy a thread that waits for a core stalls the whole product — ten times slower,
measured. So a kernel whose products add up to fewer than :data:`SINGLE_THREAD_BELOW`
multiply-adds runs them on one thread (:func:`threads_for`, through threadpoolctl's
handle on the BLAS library, if installed); larger ones use every BLAS thread, and the
tiniest (below :data:`ALREADY_SINGLE_BELOW`) are left alone: OpenBLAS keeps them on one
thread itself. The layer operators' products (FullyConnected, dot, batch_dot) go through
it as the convolution kernels' do.

:func:`accumulate` is ``c += a @ b`` in one BLAS call (GEMM with β = 1, through SciPy's
BLAS wrappers), without the temporary and the extra pass over ``c`` of NumPy's
``c += a @ b``.
"""
import contextlib
import importlib.util

import numpy as np

__all__ = ['threads_for', 'accumulate', 'can_accumulate', 'SINGLE_THREAD_BELOW',
           'ALREADY_SINGLE_BELOW']

#: Kernels with fewer multiply-adds than this run on one BLAS thread.
SINGLE_THREAD_BELOW = 1 << 23
#: Below this OpenBLAS runs a product on one thread by itself, and switching its thread
#: count (tens of microseconds through threadpoolctl) would cost more than the product
#: (benchmarks/small_products.py).
ALREADY_SINGLE_BELOW = 1 << 18

_HAS_SCIPY = importlib.util.find_spec('scipy') is not None
_blas_libraries = None


def _libraries():
    """threadpoolctl's controllers of the BLAS libraries (found once; [] without it).

    NumPy's and SciPy's (which :func:`accumulate` calls) are separate libraries: SciPy's
    is loaded first, so that both are found.
    """
    global _blas_libraries
    if _blas_libraries is None:
        _blas_libraries = []
        if importlib.util.find_spec('threadpoolctl') is not None:
            if _HAS_SCIPY:
                import scipy.linalg.blas  # noqa: F401  (loads SciPy's BLAS library)
            from threadpoolctl import ThreadpoolController
            _blas_libraries = ThreadpoolController().select(user_api='blas').lib_controllers
    return _blas_libraries


class _OneThread:
    """Runs its block with the ``switched`` BLAS libraries on one thread, then gives
    each its thread count back (also when the block raises)."""
    __slots__ = ('switched',)

    def __init__(self, switched):
        self.switched = switched   # [(library, its thread count)], none of them 1

    def __enter__(self):
        for lib, _ in self.switched:
            lib.set_num_threads(1)

    def __exit__(self, *exc):
        for lib, threads in self.switched:
            lib.set_num_threads(threads)


_AS_IS = contextlib.nullcontext()


def threads_for(xp, macs):
    """A context for a kernel of ``macs`` multiply-adds: one BLAS thread if it is small.

    Only libraries not on one thread already are switched (a switch costs about 2 µs,
    and a layer's products run twice per training iteration).
    """
    if (xp is not np or not ALREADY_SINGLE_BELOW <= macs < SINGLE_THREAD_BELOW or
            not _libraries()):
        return _AS_IS
    switched = [(lib, lib.num_threads) for lib in _libraries()]
    switched = [(lib, threads) for lib, threads in switched if threads != 1]
    return _OneThread(switched) if switched else _AS_IS


def can_accumulate(xp, dtype):
    """Whether :func:`accumulate` runs in place for arrays of ``dtype`` on ``xp``."""
    return xp is np and _HAS_SCIPY and np.dtype(dtype) in (np.float32, np.float64)


def accumulate(c, a, b):
    """``c += a @ b`` for 2-D NumPy arrays, ``c`` and ``a`` C-contiguous (see
    :func:`can_accumulate`); ``b`` C- or Fortran-contiguous (a transposed matrix)."""
    from scipy.linalg import blas as fblas
    gemm = fblas.sgemm if c.dtype == np.float32 else fblas.dgemm
    # In Fortran's column-major view a C-contiguous (m, n) array is its transpose:
    # cᵀ += bᵀ · aᵀ.
    if b.flags.c_contiguous:
        op_b, transpose_b = b.T, False
    else:
        op_b, transpose_b = b, True
    gemm(1.0, op_b, a.T, beta=1.0, c=c.T, overwrite_c=True, trans_a=transpose_b)
