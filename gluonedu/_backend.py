"""Which array library holds a context's data: NumPy for CPU, CuPy for GPU.

Numeric code asks this module for the array module (``xp``) of a context instead of
importing NumPy directly, so one code path serves both devices.
"""
import contextlib

import numpy

from .base import MXNetError

_cupy = None
_cupy_error = None


def import_cupy():
    """The CuPy module, or None if it cannot be imported (:func:`cupy_import_error` says
    why); tried once."""
    global _cupy, _cupy_error
    if _cupy is None and _cupy_error is None:
        try:
            import cupy  # noqa: F401  (optional dependency)
            _cupy = cupy
        except Exception as err:  # ImportError, or a CUDA runtime that fails to load
            _cupy_error = err
    return _cupy


def cupy_import_error():
    """Why CuPy could not be imported (an exception), or None."""
    import_cupy()
    return _cupy_error


def cupy_or_raise(device_id=0):
    """Return the CuPy module, or raise MXNetError saying what is missing."""
    cupy = import_cupy()
    if cupy is None:
        raise MXNetError("gpu(%d) needs CuPy, which could not be imported (%s). Install it with "
                         "`pip install -e '.[gpu]'` on a machine with an NVIDIA GPU, or use "
                         "mx.cpu()." % (device_id, _cupy_error))
    count = gpu_count()
    if device_id >= count:
        raise MXNetError("gpu(%d) does not exist: CuPy sees %d GPU(s). Use a device id below %d, "
                         "or mx.cpu()." % (device_id, count, max(count, 1) if count else 0))
    return cupy


def gpu_count():
    """Number of GPUs CuPy can use (0 without CuPy or without a driver)."""
    cupy = import_cupy()
    if cupy is None:
        return 0
    try:
        return cupy.cuda.runtime.getDeviceCount()
    except Exception:  # no driver / no device
        return 0


def array_module(ctx):
    """The array module (numpy or cupy) that holds data on ``ctx``."""
    if ctx.device_type == 'gpu':
        return cupy_or_raise(ctx.device_id)
    return numpy


def device_scope(ctx):
    """A context manager making ``ctx``'s GPU current; a no-op on CPU."""
    if ctx.device_type == 'gpu':
        return cupy_or_raise(ctx.device_id).cuda.Device(ctx.device_id)
    return contextlib.nullcontext()


def to_host(array):
    """A NumPy copy (or view, on CPU) of a NumPy or CuPy array."""
    if isinstance(array, numpy.ndarray):
        return array
    return array.get()
