"""``nd.UpSampling`` (nearest, bilinear) and ``nd.pad``/``nd.Pad`` (constant, edge, reflect).

Nearest upsampling repeats each value ``scale``×``scale`` times; with several inputs,
each is repeated up to the first one's size × ``scale`` and the results are concatenated
along the channels (``multi_input_mode='concat'``) or added (``'sum'``). Bilinear
upsampling is a depthwise Deconvolution with the given (usually bilinear) weight, of
kernel ``2·scale − scale % 2``, stride ``scale`` and pad ``⌈(scale − 1)/2⌉``, as MXNet.

``pad`` pads the spatial axes of 4-D or 5-D data: with ``constant_value``, with copies
of the edge, or with the reflection of the data at its edge (not repeating it). Every
padded position is a copy of one input position, so the gradient adds each output
gradient back onto the position it was copied from.
"""
import math

import numpy as np

from ... import _backend
from ...base import MXNetError
from .common import check_inputs, record, shape_text
from .convolution import Deconvolution
from .declare import OpDef, Param, REQUIRED

__all__ = ['UpSampling', 'pad', 'Pad']

UP_SAMPLING = OpDef('UpSampling', inputs=('*data',), params=(
    Param('scale', 'int', REQUIRED, 'Upsampling factor of the (first) input.'),
    Param('num_filter', 'int', 0, "Channels of 'bilinear' (its depthwise weight)."),
    Param('sample_type', 'enum', REQUIRED, 'How new values are made.',
          choices=('bilinear', 'nearest')),
    Param('multi_input_mode', 'enum', 'concat', "How 'nearest' combines several inputs.",
          choices=('concat', 'sum')),
    Param('num_args', 'int', REQUIRED, 'Number of inputs (set from the arrays given).'),
    Param('workspace', 'long_count', 512, 'Scratch memory limit in MB (unused here).')))

PAD = OpDef('Pad', inputs=('data',), aliases=('pad',), params=(
    Param('mode', 'enum', REQUIRED, 'What fills the padding.',
          choices=('constant', 'edge', 'reflect')),
    Param('pad_width', 'shape', REQUIRED, '(before, after) for every axis, flattened; the '
          'first four (batch and channel) must be 0.'),
    Param('constant_value', 'double', 0.0, "The value of mode 'constant'.")))


# ---------------------------------------------------------------------- UpSampling
def _repeat(xp, x, factors):
    """Nearest-neighbour upsampling of the spatial axes by integer ``factors``."""
    for axis, f in enumerate(factors, start=2):
        if f > 1:
            x = xp.repeat(x, f, axis=axis)
    return x


def _fold(xp, g, factors):
    """The gradient of :func:`_repeat`: sum each ``f``-block of every spatial axis."""
    shape = list(g.shape[:2])
    for n, f in zip(g.shape[2:], factors):
        shape += [n // f, f]
    return g.reshape(shape).sum(axis=tuple(range(3, len(shape), 2)))


def _nearest(params, arrays):
    first = arrays[0]
    out_spatial = tuple(n * params.scale for n in first.shape[2:])
    factors = []
    for arr in arrays:
        if arr.ndim != first.ndim or arr.shape[0] != first.shape[0] or \
                any(o % n for o, n in zip(out_spatial, arr.shape[2:])):
            raise MXNetError("UpSampling: input of shape %s cannot be upsampled by an integer "
                             "factor to the output size %s (the first input's size × scale)"
                             % (shape_text(arr.shape), shape_text(out_spatial)))
        factors.append(tuple(o // n for o, n in zip(out_spatial, arr.shape[2:])))
    if params.multi_input_mode == 'sum' and len({a.shape[1] for a in arrays}) > 1:
        raise MXNetError("UpSampling: multi_input_mode='sum' needs inputs with one number of "
                         "channels, got shapes %s" % [a.shape for a in arrays])
    xp = first._xp
    with _backend.device_scope(first._ctx):
        parts = [_repeat(xp, a._data, f) for a, f in zip(arrays, factors)]
        if params.multi_input_mode == 'sum':
            y = sum(parts[1:], parts[0])
        else:
            y = xp.concatenate(parts, axis=1) if len(parts) > 1 else parts[0]
    bounds = np.cumsum([a.shape[1] for a in arrays])[:-1]

    def backward(grad):
        with _backend.device_scope(first._ctx):
            pieces = ([grad] * len(arrays) if params.multi_input_mode == 'sum'
                      else xp.split(grad, bounds, axis=1))
            return tuple(_fold(xp, g, f) for g, f in zip(pieces, factors))
    return record(y, first, arrays, backward, 'UpSampling')


def _up_sampling(params, data):
    """Upsample the spatial axes by ``scale``: 'nearest' (any number of inputs) or
    'bilinear' (data and a depthwise weight, through Deconvolution)."""
    if not data:
        raise MXNetError("UpSampling needs at least one input array")
    check_inputs('UpSampling', data)
    if params.num_args and params.num_args != len(data):
        raise MXNetError("UpSampling: num_args=%d but %d arrays were given"
                         % (params.num_args, len(data)))
    if data[0].ndim != 4 or params.scale < 1:
        raise MXNetError("UpSampling needs 4-D (N, C, H, W) data and scale >= 1, got shape "
                         "%s and scale %d" % (shape_text(data[0].shape), params.scale))
    if params.sample_type == 'nearest':
        return _nearest(params, data)
    if len(data) != 2:
        raise MXNetError("UpSampling(sample_type='bilinear') takes the data and a weight, "
                         "got %d arrays" % len(data))
    s = params.scale
    kernel = 2 * s - s % 2
    return Deconvolution(data[0], data[1], kernel=(kernel, kernel), stride=(s, s),
                         pad=(math.ceil((s - 1) / 2),) * 2, num_filter=params.num_filter,
                         num_group=params.num_filter, no_bias=True)


# ---------------------------------------------------------------------- pad
def _source_index(mode, size, before, after):
    """For each padded position along one axis, the input position it copies (None: the
    constant)."""
    position = np.arange(-before, size + after)
    if mode == 'edge':
        return np.clip(position, 0, size - 1)
    reflected = np.abs(position)
    return np.where(reflected > size - 1, 2 * (size - 1) - reflected, reflected)


def _pad_widths(params, shape):
    widths = params.pad_width
    if len(shape) not in (4, 5):
        raise MXNetError("pad works on 4-D or 5-D data, got shape %s" % shape_text(shape))
    if len(widths) != 2 * len(shape):
        raise MXNetError("pad: pad_width=%s needs %d entries, (before, after) for each axis "
                         "of data shape %s" % (shape_text(widths), 2 * len(shape),
                                               shape_text(shape)))
    pairs = [(widths[2 * i], widths[2 * i + 1]) for i in range(len(shape))]
    if any(pairs[0] + pairs[1]) or min(widths) < 0:
        raise MXNetError("pad: pad_width=%s must be non-negative with zeros for the batch "
                         "and channel axes (the first four entries)" % shape_text(widths))
    if params.mode == 'reflect':
        for n, (b, a) in zip(shape, pairs):
            if b >= n or a >= n:
                raise MXNetError("pad: reflect padding %s must be smaller than the data size "
                                 "along each axis, data shape %s"
                                 % (shape_text(widths), shape_text(shape)))
    return pairs


def _pad(params, data=None):
    """Pad the spatial axes of 4-D or 5-D data: 'constant', 'edge' or 'reflect'."""
    if data is None:
        raise MXNetError("pad needs the data input")
    check_inputs('pad', (data,))
    pairs = _pad_widths(params, data.shape)
    xp, x = data._xp, data._data
    with _backend.device_scope(data._ctx):
        if params.mode == 'constant':
            y = xp.pad(x, pairs, mode='constant',
                       constant_values=x.dtype.type(params.constant_value))
        else:
            y = xp.pad(x, pairs, mode=params.mode)
    inner = tuple(slice(b, b + n) for (b, _), n in zip(pairs, x.shape))

    def backward(grad):
        if params.mode == 'constant':
            return (grad[inner],)
        with _backend.device_scope(data._ctx):
            for axis, ((before, after), n) in enumerate(zip(pairs, x.shape)):
                if before or after:
                    folded = xp.zeros(grad.shape[:axis] + (n,) + grad.shape[axis + 1:],
                                      dtype=grad.dtype)
                    index = xp.asarray(_source_index(params.mode, n, before, after))
                    xp.add.at(xp.moveaxis(folded, axis, 0), index, xp.moveaxis(grad, axis, 0))
                    grad = folded
            return (grad,)
    return record(y, data, (data,), backward, 'pad')


UpSampling = UP_SAMPLING.function(_up_sampling)
pad = PAD.function(_pad)
Pad = pad
