"""What crosses the wire between a distributed store's workers and its servers.

Both sides import it: the worker (:mod:`gluonedu.kvstore.dist`) encodes what it sends,
the server (:mod:`gluonedu.kvstore.dist_server`) decodes it.

* 2-bit gradients travel packed, 16 codes to a uint32 word (:func:`pack_2bit`,
  :func:`unpack_2bit`);
* optimizer states travel as NumPy arrays (:func:`to_host` before the trip,
  :func:`to_device` after it), since an NDArray belongs to one process's devices;
* a stopped run reaches every worker as :class:`DistAborted`.
"""
import numpy as np

from ..base import MXNetError
from ..ndarray import NDArray

__all__ = ['DistAborted', 'pack_2bit', 'unpack_2bit', 'to_host', 'to_device']


class DistAborted(MXNetError):
    """The training run was stopped (a worker failed); raised to the other workers."""


_CODE_ZERO, _CODE_POS, _CODE_NEG = 0, 1, 2


def pack_2bit(sent):
    """Pack a quantised float32 array (values ``+t``, ``-t``, 0) into 2-bit codes.

    Returns a uint32 array of ``ceil(n / 16)`` words: element ``i`` occupies bits
    ``2*(i % 16)`` and up of word ``i // 16`` (0: zero, 1: ``+t``, 2: ``-t``).
    """
    flat = np.asarray(sent, dtype=np.float32).reshape(-1)
    codes = np.zeros(-(-flat.size // 16) * 16, dtype=np.uint32)
    codes[:flat.size][flat > 0] = _CODE_POS
    codes[:flat.size][flat < 0] = _CODE_NEG
    shifts = (2 * np.arange(16, dtype=np.uint32))
    return np.bitwise_or.reduce(codes.reshape(-1, 16) << shifts, axis=1).astype(np.uint32)


def unpack_2bit(words, size, threshold):
    """The float32 array of ``size`` elements that :func:`pack_2bit` packed."""
    shifts = (2 * np.arange(16, dtype=np.uint32))
    codes = ((np.asarray(words, dtype=np.uint32)[:, None] >> shifts) & 3).reshape(-1)[:size]
    t = np.float32(threshold)
    out = np.zeros(size, dtype=np.float32)
    out[codes == _CODE_POS] = t
    out[codes == _CODE_NEG] = -t
    return out


def to_host(state):
    """``state`` with every NDArray replaced by a NumPy copy (for the trip to a worker)."""
    if isinstance(state, NDArray):
        return state.asnumpy()
    if isinstance(state, (tuple, list)):
        items = [to_host(s) for s in state]
        return tuple(items) if isinstance(state, tuple) else items
    return state


def to_device(state, ctx):
    """``state`` with every NumPy array made an NDArray on ``ctx``."""
    if isinstance(state, np.ndarray):
        return NDArray(np.array(state, copy=True), ctx)
    if isinstance(state, (tuple, list)):
        items = [to_device(s, ctx) for s in state]
        return tuple(items) if isinstance(state, tuple) else items
    return state
