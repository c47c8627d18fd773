"""``mx.kv`` / ``mx.kvstore``: key-value stores that sum values across devices.

``create('local')`` or ``create('device')`` make a single-machine store
(:class:`KVStore`); ``create('nccl')`` one that sums across GPUs with NCCL; a class
registered with :meth:`KVStoreBase.register` is created by its lower-cased name
('teststore' is registered for tests). Distributed types ('dist_sync', ...) come with
the Ray-based implementation, not yet here.
"""
from .base import KVStoreBase, TestStore, create, BUILTIN_TYPES, DIST_TYPES
from .local import KVStore
from .compression import TwoBitCompression

__all__ = ['create', 'KVStore', 'KVStoreBase', 'TestStore', 'TwoBitCompression',
           'BUILTIN_TYPES', 'DIST_TYPES']
