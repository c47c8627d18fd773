"""numba, the optional compiler of the CPU fast paths: one policy for every kernel.

The optimizer's fused steps (:mod:`gluonedu.optimizer._fused.numba_backend`) and the
layers' kernels (:mod:`gluonedu.ndarray.nn_ops.kernels`) follow these rules, from here:

* **Whether**: numba is installed (``pip install gluonedu[fast]``; looked up cheaply
  when this module is imported, imported itself only when a kernel first runs) and not
  turned off with ``GLUONEDU_NUMBA=0`` (read at each call, so a test or a notebook can
  switch it). Without it every kernel has a NumPy path that gives the same numbers.
* **Where compiled kernels are cached**: ``$NUMBA_CACHE_DIR`` if set (numba's own
  variable), else inside the virtual environment (``<sys.prefix>/var/numba-cache``) when
  writable, else ``<temp>/gluonedu-numba-cache-<uid>`` — never in ``$HOME`` nor in the
  package's folders. :func:`load` points numba's cache there (``numba.config.CACHE_DIR``,
  before any kernel module is compiled): nothing is written to ``os.environ``, so child
  processes and other programs are left as they were.
* **On how many threads**: a parallel loop over fewer than :data:`PARALLEL_MIN`
  elements runs on one thread (waking a second costs more than it saves there, and
  milliseconds a step on a busy 2-core machine), a larger one on all of numba's.
"""
import importlib
import importlib.util
import os
import sys
import tempfile
import threading

__all__ = ['available', 'cache_dir', 'load', 'kernels', 'use_threads', 'forget_thread_setting',
           'PARALLEL_MIN']

_INSTALLED = importlib.util.find_spec('numba') is not None   # looked up once, cheaply

#: Parallel loops over fewer elements than this run on one thread.
PARALLEL_MIN = 1 << 22

_THREADS_SET = threading.local()   # .count: the thread count this thread last set


def available():
    """Whether numba is installed and not turned off with ``GLUONEDU_NUMBA=0``."""
    return _INSTALLED and os.environ.get('GLUONEDU_NUMBA', '1') != '0'


def cache_dir():
    """Where compiled kernels are cached (see the module's docstring)."""
    if os.environ.get('NUMBA_CACHE_DIR'):
        return os.environ['NUMBA_CACHE_DIR']
    in_venv = os.path.join(sys.prefix, 'var', 'numba-cache')
    try:
        os.makedirs(in_venv, exist_ok=True)
        if os.access(in_venv, os.W_OK):
            return in_venv
    except OSError:
        pass
    return os.path.join(tempfile.gettempdir(), 'gluonedu-numba-cache-%s' % os.getuid())


def load():
    """The ``numba`` module, its cache pointed at :func:`cache_dir`.

    Call it before importing or generating a module of ``cache=True`` kernels: numba
    picks a function's cache location when the function is defined.
    """
    import numba
    if not numba.config.CACHE_DIR:
        numba.config.CACHE_DIR = cache_dir()
    return numba


def kernels(module_name):
    """Import the module ``module_name`` of ``cache=True`` kernels, after :func:`load`."""
    load()
    return importlib.import_module(module_name)


def use_threads(size):
    """Have the next parallel loop, over ``size`` elements, run on one thread below
    :data:`PARALLEL_MIN`, else on all of numba's threads.

    numba's thread count belongs to the calling thread, and setting it takes a lock
    (several µs, a few % of a small model's step): it is set only when this thread's
    last setting differs. A count set with ``numba.set_num_threads`` in between is
    kept until the next loop of the other size.
    """
    import numba
    threads = 1 if size < PARALLEL_MIN else numba.config.NUMBA_NUM_THREADS
    if getattr(_THREADS_SET, 'count', None) != threads:
        numba.set_num_threads(threads)
        _THREADS_SET.count = threads


def forget_thread_setting():
    """Forget what this thread set (after code that changed numba's count itself)."""
    vars(_THREADS_SET).clear()
