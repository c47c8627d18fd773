"""``nd.LRN``: local response normalization across channels (Krizhevsky, Sutskever &
Hinton, 2012, "ImageNet classification with deep convolutional neural networks", §3.3).

For data ``(N, C, H, W)`` each value is divided by a power of the sum of squares of the
``n = nsize`` channels around it (at the same position)::

    S_c = Σ_{|c' − c| ≤ h} x_{c'}²        h = ⌊(n − 1)/2⌋, channels outside [0, C) are 0
    y_c = x_c · (k + α/n · S_c)^(−β)

and, with ``D_c = k + α/n · S_c`` and the same window sum ``Σ_h``,

    dx_c = g_c · D_c^(−β) − (2αβ/n) · x_c · Σ_h(g · x · D^(−β−1))_c

As MXNet 1.9.1's CPU operator, the data must be float32, 4-D or 2-D ``(N, C)`` (one pixel
per channel), and an even ``nsize`` spans the same channels as ``nsize − 1``, divided by
``nsize``.
"""
import numpy as np

from ... import _backend
from ...base import MXNetError
from .common import check_inputs, record, shape_text
from .declare import OpDef, Param, REQUIRED

__all__ = ['LRN']

# MXNet's LRN keeps its normalizer D as a hidden second output.
LRN_OP = OpDef('LRN', inputs=('data',), hidden_outputs=1,
               shapes=lambda params, data: {'out': data}, params=(
    Param('alpha', 'float', 1e-4, 'The scale α of the sum of squares.'),
    Param('beta', 'float', 0.75, 'The exponent β.'),
    Param('knorm', 'float', 2.0, 'The constant k added to the scaled sum.'),
    Param('nsize', 'count', REQUIRED, 'How many neighbouring channels the sum spans.')))


def _window_sum(xp, a, half):
    """``Σ_{|c' − c| ≤ half} a_{c'}`` along the channel axis (1), zeros beyond the edges."""
    padded = xp.pad(a, ((0, 0), (half, half), (0, 0), (0, 0)))
    channels = a.shape[1]
    return sum(padded[:, offset:offset + channels] for offset in range(2 * half + 1))


def _lrn(params, data=None):
    """Divide each value by (k + α/n · the sum of squares of its n neighbouring channels)^β."""
    op = 'LRN'
    check_inputs(op, (data,))
    if data.ndim not in (2, 4):
        raise MXNetError("LRN needs 4-D data (batch, channel, height, width) or 2-D (batch, "
                         "channel), got shape %s" % shape_text(data.shape))
    if data.dtype != np.float32:
        raise MXNetError("LRN works on float32 data (as MXNet 1.9.1), got %s; convert with "
                         ".astype('float32')" % np.dtype(data.dtype).name)
    if params.nsize < 1:
        raise MXNetError("LRN: nsize must be at least 1, got %d" % params.nsize)
    xp, x = data._xp, data._data.reshape(data.shape[:2] + (-1, 1))  # 2-D: one pixel
    f32 = np.float32
    half, scale = (params.nsize - 1) // 2, f32(params.alpha / params.nsize)
    # as MXNet, a negative k or α gives NaN (a fractional power of a negative), silently
    with _backend.device_scope(data._ctx), np.errstate(invalid='ignore', divide='ignore'):
        norm = f32(params.knorm) + scale * _window_sum(xp, x * x, half)
        y = x * norm ** f32(-params.beta)
        result = y.reshape(data.shape)

    def backward(grad):
        with _backend.device_scope(data._ctx):
            grad = grad.reshape(x.shape)
            through_norm = _window_sum(xp, grad * y / norm, half)
            return ((grad * norm ** f32(-params.beta)
                     - f32(2 * params.beta) * scale * x * through_norm).reshape(data.shape),)
    return record(result, data, (data,), backward, op)


LRN = LRN_OP.function(_lrn)
