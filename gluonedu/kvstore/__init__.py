"""``mx.kv`` / ``mx.kvstore``: key-value stores that sum values across devices.

``create('local')`` or ``create('device')`` make a single-machine store
(:class:`KVStore`); ``create('nccl')`` one that sums across GPUs with NCCL; a class
registered with :meth:`KVStoreBase.register` is created by its lower-cased name
('teststore' is registered for tests). The distributed types ('dist_sync',
'dist_device_sync', 'dist_async') run on Ray, imported only when one is created:
see :mod:`gluonedu.kvstore.dist`, :func:`local_cluster` (run workers from a notebook),
:class:`StalenessSimulation` (a deterministic, in-process simulation of async workers)
and ``python -m gluonedu.launch``.
"""
from .base import KVStoreBase, TestStore
from .factory import create, BUILTIN_TYPES, DIST_TYPES
from .local import KVStore
from .compression import TwoBitCompression
from .dist_sim import StalenessSimulation
from .ray_cluster import watch_launcher as _watch_launcher

_watch_launcher()   # a worker started by python -m gluonedu.launch stops when it is gone


def local_cluster(num_cpus=None, progress=True):
    """Start (or reuse) a Ray cluster on this machine to run workers from a notebook.

    With ``progress`` it says what it is doing while Ray starts and while workers run.
    See :mod:`gluonedu.kvstore.dist_cluster`; Ray is imported only when this is called.
    """
    from .dist_cluster import local_cluster as _local_cluster
    return _local_cluster(num_cpus=num_cpus, progress=progress)


__all__ = ['create', 'KVStore', 'KVStoreBase', 'TestStore', 'TwoBitCompression',
           'BUILTIN_TYPES', 'DIST_TYPES', 'local_cluster', 'StalenessSimulation']
