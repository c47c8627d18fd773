"""What MXNet's optimizer kernels share, written once for the readable updates and the fast path.

MXNet 1.9.1 runs each optimizer through C++ kernels; to give their numbers to the last
bit, gluonedu follows three of their conventions:

* **scalars**: a kernel's hyperparameters (lr, wd, momentum, rescale_grad, ...) are
  parsed as float32 numbers and then used in the precision the kernel computes in —
  :func:`kernel_scalars`;
* **clipping**: the Python optimizers pass ``clip_gradient`` to a kernel only when it is
  set, and the kernels clip only for a bound > 0 — :func:`kernel_clip` (None: off);
* **lazy rows**: with a row_sparse gradient, only the rows it holds are read and
  written — :func:`lazy_rows`.

The fast path's rules (one element at a time, see :mod:`.fastpath`) clip with
:func:`clipped`, and receive a clip bound of -1
(:data:`CLIP_OFF`) for "no clipping": :func:`clip_constant` turns either convention into
that constant.
"""
import numpy as np

__all__ = ['kernel_scalars', 'kernel_clip', 'lazy_rows', 'clipped', 'clip_constant',
           'CLIP_OFF', 'negative_clip_refusal']

#: A rule's clip bound meaning "do not clip".
CLIP_OFF = np.float32(-1)


def kernel_scalars(dtype, *values):
    """``values`` as a kernel computing in ``dtype`` sees them: rounded to float32 (MXNet
    parses operator parameters as float32), then cast to ``dtype``."""
    kind = np.dtype(dtype).type
    return [kind(np.float32(v)) for v in values]


def kernel_clip(clip_gradient, dtype=None):
    """The clip bound a kernel applies, or None when clipping is off.

    MXNet passes ``clip_gradient`` to its kernels only when it is truthy, and the kernels
    clip only for a bound > 0: so None, 0 and negative bounds all mean "no clipping".
    With ``dtype``, the bound is given as :func:`kernel_scalars` gives scalars.
    """
    if clip_gradient is None or not clip_gradient > 0:
        return None
    return clip_gradient if dtype is None else kernel_scalars(dtype, clip_gradient)[0]


def clip_constant(clip_gradient, kernel=True):
    """A rule's float32 clip bound, :data:`CLIP_OFF` for "no clipping".

    ``kernel``: MXNet's kernel convention (:func:`kernel_clip`); else the Python
    optimizers' (clip whenever a bound is set; a negative one makes the reference raise,
    so the fast path declines it first).
    """
    bound = kernel_clip(clip_gradient) if kernel else clip_gradient
    return CLIP_OFF if bound is None else np.float32(bound)


def negative_clip_refusal(clip_gradient):
    """Why the fast path declines a negative ``clip_gradient`` of an optimizer that clips
    whenever a bound is set (the reference raises; the fast path lets it), else None."""
    if clip_gradient is not None and clip_gradient < 0:
        return 'a negative clip_gradient (the reference raises)'
    return None


def clipped(x, bound):
    """``clip(x, -bound, bound)``, spelled so that it works on arrays and, compiled by
    numba, on single elements."""
    return np.minimum(np.maximum(x, -bound), bound)


def lazy_rows(update_rows, grad, *arrays):
    """Apply ``update_rows(rows_of_arrays..., grad_rows)`` to the rows of a row-sparse grad.

    The touched rows of each array are copied out, updated, and written back; rows not
    in ``grad.indices`` are not read or written. An array may be None (left out).
    """
    rows = grad.indices
    row_views = [a[rows] if a is not None else None for a in arrays]
    update_rows(*row_views, grad.data)
    for array, updated in zip(arrays, row_views):
        if array is not None:
            array[rows] = updated
