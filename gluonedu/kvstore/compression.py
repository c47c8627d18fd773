"""2-bit gradient compression with error feedback, exactly as MXNet 1.9.1 does it.

Each device quantises its gradient before sending it to the store. For a threshold
``t`` > 0 and a residual ``r`` kept per (key, device), every element goes through::

    r += g
    q  = +t   if r >= t
         -t   if r <= -t
          0   otherwise
    r -= q            # the part not sent is remembered and sent later

Only ``q`` travels: three states fit in 2 bits, so 16 values pack into one 4-byte word
(``ceil(n / 16) * 4`` bytes instead of ``n * itemsize``). The store dequantises each
device's ``q`` and sums them; that sum is the merged gradient. Only pushes are
compressed, never pulls.

As in MXNet, the residuals belong to the *position* of a value in a push (position i is
device i of the usual ``[ctx0, ctx1, ...]`` gradient list), and only float32 dense
gradients can be compressed.
"""
import math
import numbers

import numpy as np

from .. import _backend
from ..base import MXNetError
from ..ndarray import NDArray

__all__ = ['TwoBitCompression', 'create_compression', 'compressed_nbytes']

#: Bytes of one packed word holding 16 two-bit values.
_WORD_BYTES = 4
_VALUES_PER_WORD = 16


def compressed_nbytes(num_elements):
    """Bytes that ``num_elements`` 2-bit values occupy: 16 per 4-byte word, rounded up."""
    return int(math.ceil(num_elements / _VALUES_PER_WORD)) * _WORD_BYTES


class TwoBitCompression:
    """2-bit quantisation with a per-(key, position) residual.

    Parameters
    ----------
    threshold : float, default 0.5
        Elements whose accumulated residual reaches ``threshold`` are sent as
        ``+threshold``; those reaching ``-threshold`` as ``-threshold``; the rest as 0.
    """
    type = '2bit'

    def __init__(self, threshold=0.5):
        self.threshold = _parse_threshold(threshold)
        self._residuals = {}   # (key, position) -> NDArray on the pushing device
        self._flat = {}        # (keys, position) -> (flat residual buffer, its views)

    def get_params(self):
        """The parameters as ``set_gradient_compression`` takes them."""
        return {'type': self.type, 'threshold': self.threshold}

    def set_params(self, threshold=0.5):
        """Change the threshold; residuals accumulated so far are kept (as MXNet)."""
        self.threshold = _parse_threshold(threshold)

    def residual(self, key, position):
        """The residual of ``key`` at push position ``position`` (None before its first push)."""
        return self._residuals.get((key, position))

    def residuals(self, key):
        """All residuals of ``key``, in push-position order."""
        found = sorted((pos, arr) for (k, pos), arr in self._residuals.items() if k == key)
        return [arr for _, arr in found]

    def quantize(self, key, position, grad):
        """The dequantised 2-bit value of ``grad`` (an NDArray on grad's device).

        Updates the residual of (key, position) in place. The result holds only
        ``+t``, ``-t`` and ``0``: exactly what the receiving side reconstructs.
        """
        _check_compressible(key, grad)
        residual = self._residuals.get((key, position))
        if residual is None or residual.shape != grad.shape or residual.context != grad.context:
            residual = grad.zeros_like()
            self._residuals[(key, position)] = residual
        return NDArray(self._quantized(residual.handle, grad.handle,
                                       _backend.array_module(grad.context)), grad.context)

    def quantize_flat(self, keys, position, grad, shapes):
        """:meth:`quantize` of a flat gradient holding ``keys``' values end to end.

        ``grad``: a flat NDArray; ``shapes``: each key's shape. The numbers are those of
        quantising key by key (the rule is element-wise); the residuals stay per (key,
        position) — views of one flat buffer — so :meth:`residual` and pushes of single
        keys see them. Returns the dequantised flat array (NumPy or CuPy).
        """
        _check_compressible(keys, grad)
        buffer = self._flat_residual(tuple(keys), position, grad, shapes)
        return self._quantized(buffer, grad.handle, _backend.array_module(grad.context))

    def _flat_residual(self, keys, position, grad, shapes):
        """The flat residual buffer of ``keys`` at ``position``; every key's residual is
        (made) a view of it, values kept."""
        buffer, views = self._flat.get((keys, position), (None, None))
        if buffer is None or buffer.shape != grad.shape or views[0].context != grad.context:
            buffer = _backend.array_module(grad.context).zeros(grad.shape, dtype=np.float32)
            views, start = [], 0
            for shape in shapes:
                size = int(np.prod(shape))
                views.append(NDArray(buffer[start:start + size].reshape(shape), grad.context))
                start += size
            self._flat[(keys, position)] = (buffer, views)
        for key, view in zip(keys, views):
            held = self._residuals.get((key, position))
            if held is not view:
                if held is not None and held.shape == view.shape:
                    view[:] = held.as_in_context(view.context)
                self._residuals[(key, position)] = view
        return buffer

    def _quantized(self, r, g, xp):
        """``r += g``; the 2-bit value of ``r``, which is taken off ``r``."""
        t = np.float32(self.threshold)
        r += g
        sent = xp.where(r >= t, t, xp.where(r <= -t, -t, np.float32(0))).astype(np.float32)
        r -= sent
        return sent

    def residual_norm(self, key):
        """L2 norm over all of ``key``'s residuals (every position together), as a float."""
        total = 0.0
        for arr in self.residuals(key):
            flat = arr.handle.reshape(-1).astype(np.float64)
            total += float(flat @ flat)
        return math.sqrt(total)


def _check_compressible(key, grad):
    if grad.stype != 'default':
        raise MXNetError(
            "2-bit gradient compression needs dense gradients, but key %r received a %s "
            "array. Push dense gradients, or create the store without compression "
            "(MXNet 1.9.1 would quantise the stored rows as if they were the first rows)."
            % (key, grad.stype))
    if np.dtype(grad.dtype) != np.float32:
        raise MXNetError(
            "2-bit gradient compression supports float32 gradients only, but key %r "
            "received %s. Cast the gradient with .astype('float32') or drop compression."
            % (key, np.dtype(grad.dtype).name))


_TYPES = {'2bit': TwoBitCompression}


def _parse_threshold(threshold):
    if isinstance(threshold, str):
        try:
            threshold = float(threshold)
        except ValueError:
            raise MXNetError("the 2-bit compression threshold must be a float, got %r"
                             % (threshold,)) from None
    if not isinstance(threshold, numbers.Real):
        raise MXNetError("the 2-bit compression threshold must be a float, got %r" % (threshold,))
    if not threshold > 0:
        raise MXNetError("the 2-bit compression threshold must be greater than 0, got %r"
                         % (threshold,))
    return float(threshold)


def create_compression(compression_params):
    """A compression object from ``{'type': '2bit', 'threshold': t}`` (threshold optional).

    As MXNet: ``type`` is required and must be '2bit' (case-sensitive); the threshold
    defaults to 0.5, may be a number or a numeric string, and must be positive; other
    keys are ignored.
    """
    if not isinstance(compression_params, dict):
        raise AssertionError("compression_params must be a dict such as "
                             "{'type': '2bit', 'threshold': 0.5}, got %r"
                             % (type(compression_params).__name__,))
    if 'type' not in compression_params:
        raise MXNetError("compression_params needs a 'type'; the only type is '2bit', e.g. "
                         "{'type': '2bit', 'threshold': 0.5}")
    kind = str(compression_params['type'])
    if kind not in _TYPES:
        raise MXNetError("unknown gradient compression type %r; the only type is '2bit'"
                         % (kind,))
    return _TYPES[kind](compression_params.get('threshold', 0.5))
