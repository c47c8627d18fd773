"""Matrix products for the fast kernels, on one BLAS thread when they are small.

OpenBLAS splits even small products over all its threads. For the products of a small
network (LeNet on 8×8 digits: a few hundred thousand multiply-adds) starting and
joining the threads costs more than the arithmetic, and on a machine whose cores are
busy a thread that waits for a core stalls the whole product — ten times slower,
measured. So products below :data:`SINGLE_THREAD_BELOW` multiply-adds run on one
thread (through threadpoolctl, if installed); larger ones use every BLAS thread.
"""
import contextlib
import importlib.util

import numpy as np

__all__ = ['matmul', 'SINGLE_THREAD_BELOW']

#: Products with fewer multiply-adds than this run on one BLAS thread.
SINGLE_THREAD_BELOW = 1 << 23

_controller = None


def _one_thread():
    """A context in which NumPy's BLAS uses one thread (a no-op without threadpoolctl)."""
    global _controller
    if _controller is None:
        if importlib.util.find_spec('threadpoolctl') is None:
            _controller = False
        else:
            from threadpoolctl import ThreadpoolController
            _controller = ThreadpoolController()
    if _controller is False:
        return contextlib.nullcontext()
    return _controller.limit(limits=1, user_api='blas')


def matmul(xp, a, b):
    """``a @ b`` (stacks of matrices allowed), single-threaded when small."""
    if xp is not np or a.size * b.shape[-1] >= SINGLE_THREAD_BELOW:
        return xp.matmul(a, b)
    with _one_thread():
        return a @ b
