"""The executor of the fast paths: flat buffers and fused kernels.

The readable optimizers (``gluonedu/optimizer/<name>.py``) are the reference: each
updates one parameter at a time, in formulas you can read. Each also declares, in its
own file, its fast path (:mod:`gluonedu.optimizer.fastpath`): element-wise kernels with
named arguments and a ``fused_step``. This package runs them over all parameters of a
(context, dtype) group at once:

* :mod:`.updater` — :class:`FusedUpdater`, the Updater the Trainer (and, with updates on
  the store, the KVStore) uses by default: which runs take the fast path, their flat
  buffers (:mod:`gluonedu.optimizer.flat`: handed over by the Trainer or the KVStore, or
  its own);
* :mod:`.run` — what ``fused_step(run)`` works on: the flat buffers (one kernel call, one
  pass) or, for row_sparse gradients, the rows of each parameter; every kernel argument
  bound by name;
* backends that run a kernel: :mod:`.numba_backend` (compiled, parallel, cached;
  optional: ``pip install gluonedu[fast]``), :mod:`.numpy_backend` (the rule on whole
  arrays; always available) and :mod:`.cupy_backend` (GPU: the rule translated into
  CUDA C by :mod:`.cuda_source`);
* :mod:`.norms` — the norms a Recorder asks for, measured on the flat buffers.

``gluon.Trainer(..., fused=False)`` uses the reference Updater instead, so a class can
step through the per-parameter code; tests (tests/optimizer/test_fused*.py) hold every
fast path equal to the reference on random inputs.
"""
from ..._numba import available as numba_available
from .updater import FusedUpdater, backend_name, fast_path_refusal

__all__ = ['FusedUpdater', 'backend_name', 'fast_path_refusal', 'numba_available']
