"""``nd.Pooling``: max, average, sum and Lp pooling over 1-D, 2-D and 3-D windows.

For data ``(N, C, *S)`` (channel-last layouts move ``C`` to the end), a ``kernel``-sized
window steps by ``stride`` over the input padded by ``pad`` on both sides; the output
size along each axis is

    valid:  ⌊(S + 2·pad − kernel) / stride⌋ + 1
    full:   ⌈(S + 2·pad − kernel) / stride⌉ + 1     (a last, partial window)

(MXNet's 'same' convention fails in MXNet 1.9.1's CPU operator; here it raises.)

``global_pool=True`` pools each channel's whole extent to one value. Average pooling
divides by the window size counted MXNet's way (see :mod:`.kernels.pool_reference`).
"""
import math

from ... import _backend
from ...base import MXNetError
from . import kernels
from .common import (check_inputs, float_dtype, from_channel_first, record, shape_text,
                     spatial_layout, spatial_tuple, to_channel_first)
from .declare import OpDef, Param

__all__ = ['Pooling', 'pooling_shape']

_LAYOUTS = (None, 'NCDHW', 'NCHW', 'NCW', 'NDHWC', 'NHWC', 'NWC')

# MXNet's CPU build (oneDNN) keeps max pooling's argmax as a hidden second output.
POOLING = OpDef('Pooling', inputs=('data',),
                shapes=lambda params, data: {'out': pooling_shape(params, data)},
                hidden_outputs=lambda p: 1 if p['pool_type'] == 'max' else 0, params=(
    Param('kernel', 'shape', (), 'Window size, one entry per spatial axis (ignored with '
          'global_pool).'),
    Param('pool_type', 'enum', 'max', 'What each window computes.',
          choices=('avg', 'lp', 'max', 'sum')),
    Param('global_pool', 'bool', False, 'Pool the whole spatial extent (output size 1).'),
    Param('cudnn_off', 'bool', False, 'Turn cuDNN off (unused here).'),
    Param('pooling_convention', 'enum', 'valid', 'How the output size is rounded.',
          choices=('full', 'same', 'valid')),
    Param('stride', 'shape', (), 'Step between windows; () means 1.'),
    Param('pad', 'shape', (), 'Padding on both sides of each axis; () means 0.'),
    Param('p_value', 'int_or_none', None, 'The p of Lp pooling (1, 2 or 3).'),
    Param('count_include_pad', 'bool_or_none', None, 'Whether average pooling counts the '
          'padding in its window size (None means True).'),
    Param('layout', 'enum', None, "Data layout; None means 'NCW'/'NCHW'/'NCDHW'.",
          choices=_LAYOUTS)))


def _window(params, data_shape):
    """(kernel, stride, pad, spatial sizes) of a Pooling on data of ``data_shape``."""
    op = 'Pooling'
    ndim = len(data_shape)
    spatial_layout(op, params.layout, ndim, _LAYOUTS)
    channel_last = params.layout is not None and params.layout.endswith('C')
    spatial = tuple(data_shape[1:-1] if channel_last else data_shape[2:])
    if params.global_pool:
        if not 3 <= ndim <= 5:
            raise MXNetError("Pooling: global pooling needs 3-D, 4-D or 5-D data, got shape "
                             "%s" % shape_text(data_shape))
        return spatial, (1,) * len(spatial), (0,) * len(spatial), spatial
    kernel = params.kernel
    if not 1 <= len(kernel) <= 3:
        raise MXNetError("Pooling: kernel=%s must have 1, 2 or 3 entries (or use "
                         "global_pool=True)" % shape_text(kernel))
    if ndim != len(kernel) + 2:
        raise MXNetError("Pooling: a %d-D kernel %s needs %d-D data (batch, channel and %d "
                         "spatial axes), got data of shape %s"
                         % (len(kernel), shape_text(kernel), len(kernel) + 2, len(kernel),
                            shape_text(data_shape)))
    stride = spatial_tuple(op, 'stride', params.stride, len(kernel), 1)
    pad = spatial_tuple(op, 'pad', params.pad, len(kernel), 0)
    if min(kernel + stride) < 1 or min(pad) < 0:
        raise MXNetError("Pooling: kernel and stride must be positive and pad non-negative, "
                         "got kernel=%s stride=%s pad=%s" % (kernel, stride, pad))
    for n, k, p in zip(spatial, kernel, pad):
        if n and k > n + 2 * p:
            raise MXNetError("Pooling: the kernel %s is larger than the padded input: data "
                             "shape %s, pad %s" % (shape_text(kernel), shape_text(data_shape),
                                                   shape_text(pad)))
    return kernel, stride, pad, spatial


def _out_size(params, kernel, stride, pad, spatial):
    if params.global_pool:
        return (1,) * len(spatial)
    if params.pooling_convention == 'same':
        # MXNet 1.9.1 accepts it for 1-D max pooling only, and its CPU operator then fails.
        raise MXNetError("Pooling: pooling_convention='same' is not supported; use 'valid' "
                         "or 'full' with an explicit pad")
    rounding = math.ceil if params.pooling_convention == 'full' else math.floor
    return tuple(int(rounding((n + 2 * p - k) / s)) + 1
                 for n, k, s, p in zip(spatial, kernel, stride, pad))


def pooling_shape(params, data_shape):
    """The output shape of a Pooling on data of ``data_shape`` (MXNetError if it fails)."""
    kernel, stride, pad, spatial = _window(params, data_shape)
    out = _out_size(params, kernel, stride, pad, spatial)
    if params.layout is not None and params.layout.endswith('C'):
        return (data_shape[0],) + out + (data_shape[-1],)
    return tuple(data_shape[:2]) + out


def _pooling(params, data=None):
    """Pool each channel over sliding windows: the max, the mean, the sum or the Lp norm."""
    if data is None:
        raise MXNetError("Pooling needs the data input")
    check_inputs('Pooling', (data,))
    float_dtype('Pooling', data)
    kernel, stride, pad, spatial = _window(params, data.shape)
    out_size = _out_size(params, kernel, stride, pad, spatial)
    if params.pool_type == 'lp' and params.p_value not in (1, 2, 3):
        raise MXNetError("Pooling: pool_type='lp' needs p_value 1, 2 or 3, got %s"
                         % (params.p_value,))
    include_pad = params.count_include_pad is not False
    xp, layout = data._xp, params.layout
    pool = kernels.get('pool')
    x = to_channel_first(xp, data._data, layout)
    with _backend.device_scope(data._ctx):
        y, saved = pool.forward(xp, x, kernel, stride, pad, out_size, params.pool_type,
                                include_pad, params.p_value)
        result = from_channel_first(xp, y, layout)

    def backward(grad):
        with _backend.device_scope(data._ctx):
            dx = pool.backward(xp, to_channel_first(xp, grad, layout), y, saved, x.shape,
                               kernel, stride, pad, params.pool_type, include_pad,
                               params.p_value)
            return (from_channel_first(xp, dx, layout),)
    return record(result, data, (data,), backward, 'Pooling')


Pooling = POOLING.function(_pooling)
