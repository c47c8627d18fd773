"""Fast paths for the optimizers: flat multi-tensor buffers and fused kernels.

The readable optimizers (``gluonedu/optimizer/<name>.py``) are the reference: each
updates one parameter at a time, in formulas you can read. This package applies the
*same* arithmetic to all parameters of a (context, dtype) group at once:

* :mod:`.flat` — the group's weights, gradients and states laid end to end in one
  buffer each; every parameter's NDArrays become views of them;
* :mod:`.rules` — one element-wise function per optimizer, the reference's operations
  in the reference's order (the table of kernels);
* :mod:`.specs` — per optimizer: which rule, which state arrays, and the per-parameter
  scalars (lr × lr_mult after the scheduler, wd × wd_mult, Adam's bias correction, ...);
* backends that run a rule over the buffers: :mod:`.numba_backend` (compiled, parallel,
  cached; optional: ``pip install gluonedu[fast]``), :mod:`.numpy_backend` (the rule
  on whole arrays; always available) and :mod:`.cupy_kernels` (GPU);
* :mod:`.lazy` — row_sparse gradients (sparse Embeddings): only the rows present are
  updated, in place, by the same rules (numba loop over rows; NumPy/CuPy fancy indexing);
* :mod:`.updater` — :class:`FusedUpdater`, the Updater the Trainer uses by default.

``gluon.Trainer(..., fused=False)`` uses the reference Updater instead, so a class can
step through the per-parameter code; tests (tests/optimizer/test_fused*.py) hold every
fast path equal to the reference on random inputs.
"""
from .numba_backend import available as numba_available
from .updater import FusedUpdater, backend_name, fast_path_refusal
from .specs import SPECS, spec_for

__all__ = ['FusedUpdater', 'backend_name', 'fast_path_refusal', 'numba_available', 'SPECS',
           'spec_for']
