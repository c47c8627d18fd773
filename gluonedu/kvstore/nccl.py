"""The 'nccl' store: sums across GPUs with NVIDIA's NCCL, through CuPy.

It behaves as the 'device' store (each key lives on the GPU it was initialised on,
an optimizer can run on the store) but the sum of a push is an NCCL reduction onto
that GPU. As in MXNet, it takes dense GPU arrays only and no gradient compression.
Creating it needs CuPy with NCCL support and at least one GPU; otherwise ``create``
raises an MXNetError naming what is missing.
"""
import numpy as np

from .. import _backend
from ..base import MXNetError
from ..ndarray import NDArray
from .base import KVStoreBase
from .local import KVStore

__all__ = ['NCCLKVStore', 'nccl_module']

_NCCL_DTYPES = {'float16': 'NCCL_FLOAT16', 'float32': 'NCCL_FLOAT32', 'float64': 'NCCL_FLOAT64',
                'int32': 'NCCL_INT32', 'int64': 'NCCL_INT64'}


def nccl_module():
    """CuPy's NCCL bindings, or an MXNetError saying what is missing."""
    cupy = _backend.import_cupy()
    if cupy is None:
        raise MXNetError("kvstore 'nccl' needs CuPy, which could not be imported (%s); "
                         "install CuPy on a machine with NVIDIA GPUs, or use kvstore='device'"
                         % (_backend.cupy_import_error(),))
    try:
        from cupy.cuda import nccl
    except Exception as err:  # CuPy built without NCCL, or libnccl missing
        raise MXNetError("kvstore 'nccl' needs NCCL, but this CuPy has no NCCL support (%s); "
                         "install NCCL (e.g. `pip install nvidia-nccl-cu12`) or use "
                         "kvstore='device'" % (err,)) from None
    if not getattr(nccl, 'available', True):
        raise MXNetError("kvstore 'nccl' needs NCCL, but CuPy reports it unavailable; install "
                         "NCCL or use kvstore='device'")
    if _backend.gpu_count() == 0:
        raise MXNetError("kvstore 'nccl' needs a GPU, but CuPy sees none; use kvstore='local' "
                         "or 'device' on CPU contexts")
    return nccl


class NCCLKVStore(KVStore):
    """A single-machine store that sums GPU arrays with NCCL (``mx.kv.create('nccl')``)."""

    def __init__(self):
        self._nccl = nccl_module()
        super().__init__('nccl')
        self._sums_on_device = True
        self._comms = {}   # tuple of device ids -> list of communicators

    def _home(self, value):
        self._check_gpu(value, 'init')
        return value.context

    @staticmethod
    def _check_gpu(value, what):
        if value.context.device_type != 'gpu':
            raise MXNetError("kvstore 'nccl' works on GPU contexts only, but %s got an array "
                             "on %s; use kvstore='device' or 'local' for CPU arrays"
                             % (what, value.context))
        if value.stype != 'default':
            raise MXNetError("kvstore 'nccl' does not support %s arrays; use kvstore='device'"
                             % value.stype)

    def _communicators(self, device_ids):
        comms = self._comms.get(device_ids)
        if comms is None:
            comms = self._nccl.NcclCommunicator.initAll(list(device_ids))
            self._comms[device_ids] = comms
        return comms

    def _merge(self, key, values):
        stored = self._stored(key)
        for v in values:
            self._check_gpu(v, 'push')
            if v.shape != stored.shape:
                raise MXNetError("push to key %r: a value of shape %s does not match the "
                                 "stored shape %s" % (key, v.shape, stored.shape))
        home = stored.context
        dtype = np.dtype(stored.dtype)
        device_ids = tuple(v.context.device_id for v in values)
        if (len(set(device_ids)) != len(device_ids) or home.device_id not in device_ids
                or dtype.name not in _NCCL_DTYPES):
            # NCCL needs one rank per GPU, the root among them, and a dtype it knows;
            # otherwise sum as 'device' does.
            return super()._merge(key, values)
        cupy = _backend.cupy_or_raise(home.device_id)
        sends = []
        for v in values:
            with _backend.device_scope(v.context):
                sends.append(cupy.ascontiguousarray(v.handle.astype(dtype, copy=False)))
        with _backend.device_scope(home):
            result = cupy.empty(stored.shape, dtype=dtype)
        root = device_ids.index(home.device_id)
        nccl = self._nccl
        nccl_dtype = getattr(nccl, _NCCL_DTYPES[dtype.name])
        comms = self._communicators(device_ids)
        nccl.groupStart()
        for rank, (comm, send) in enumerate(zip(comms, sends)):
            with cupy.cuda.Device(device_ids[rank]):
                recv = result.data.ptr if rank == root else send.data.ptr
                comm.reduce(send.data.ptr, recv, send.size, nccl_dtype, nccl.NCCL_SUM, root,
                            cupy.cuda.get_current_stream().ptr)
        nccl.groupEnd()
        for device_id in device_ids:
            with cupy.cuda.Device(device_id):
                cupy.cuda.get_current_stream().synchronize()
        return NDArray(result, home)

    def allreduce_flat(self, groups, update=False):
        """As ``KVStore.allreduce_flat``, key by key: NCCL reduces each key's arrays."""
        KVStoreBase.allreduce_flat(self, groups, update)

    def set_gradient_compression(self, compression_params):
        raise MXNetError("gradient compression is not supported for a 'nccl' kvstore; use "
                         "kvstore='device' to compress gradients")
