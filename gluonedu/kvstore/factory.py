"""``create(name)``: a key-value store by name.

``create`` looks ``name`` up in the registry of custom stores first (classes decorated
with :meth:`~gluonedu.kvstore.base.KVStoreBase.register`, by lower-cased class name) and
then among the built-in types: 'local', 'device' (and MXNet's older aliases
'local_update_cpu', 'local_allreduce_cpu', 'local_allreduce_device'), 'nccl' on GPUs,
and the distributed types (:data:`DIST_TYPES`, on Ray; Ray is imported only when one is
created). It sits above the stores it makes, so that none of them imports it.
"""
from .base import KVStoreBase

__all__ = ['create', 'BUILTIN_TYPES', 'DIST_TYPES']

#: Single-machine store types this package implements (name -> summation style).
BUILTIN_TYPES = ('local', 'device', 'nccl', 'local_update_cpu', 'local_allreduce_cpu',
                 'local_allreduce_device')
#: MXNet's distributed types, implemented on Ray (gluonedu.kvstore.dist).
DIST_TYPES = ('dist_sync', 'dist_async', 'dist_sync_device', 'dist_device_sync',
              'dist_async_device', 'dist_device_async', 'dist')


def create(name='local'):
    """Create a key-value store.

    Parameters
    ----------
    name : str, default 'local'
        'local': sums pushed values in CPU memory and runs the optimizer there.
        'device': sums on the devices the values come from (on CPU contexts this is
        'local' by another route: the same sums, the same numbers).
        'nccl': sums across GPUs with NCCL (needs CuPy with NCCL and GPU values).
        A registered custom store's lower-cased class name (see ``KVStoreBase.register``).
        'dist_sync', 'dist_device_sync', 'dist_async' (and MXNet's spellings
        'dist_sync_device', 'dist_async_device', 'dist_device_async', 'dist'): a
        distributed store on Ray (``pip install 'gluonedu[dist]'``), created inside a
        worker started by ``python -m gluonedu.launch`` or ``local_cluster().run``; see
        :mod:`gluonedu.kvstore.dist`.

    Returns
    -------
    KVStoreBase
    """
    if not isinstance(name, str):
        raise TypeError("the kvstore name must be a string such as 'local' or 'device', "
                        "got %r" % (name,))
    name = name.lower()
    if name in KVStoreBase.kv_registry:
        return KVStoreBase.kv_registry[name]()
    if name == 'nccl':
        from .nccl import NCCLKVStore
        return NCCLKVStore()
    if name in BUILTIN_TYPES:
        from .local import KVStore
        return KVStore(name)
    if name in DIST_TYPES:
        # Ray is imported only here: the single-machine stores do not need it.
        from .dist import create_dist
        return create_dist(name)
    valid = sorted(set(BUILTIN_TYPES) | set(DIST_TYPES) | set(KVStoreBase.kv_registry))
    raise ValueError("unknown kvstore type %r; the valid types are: %s"
                     % (name, ', '.join(valid)))
