"""``nd.Convolution`` and ``nd.Deconvolution`` (1-D, 2-D, 3-D), with their gradients.

Shapes, for ``G = num_group`` groups and a kernel ``K`` (one entry per spatial axis)::

    Convolution    data (N, C, *S)  weight (F, C/G, *K)  bias (F,)  ->  (N, F, *out)
                   out = ⌊(S + 2·pad − dilate·(K − 1) − 1) / stride⌋ + 1
    Deconvolution  data (N, C, *S)  weight (C, F/G, *K)  bias (F,)  ->  (N, F, *out)
                   out = (S − 1)·stride − 2·pad + dilate·(K − 1) + 1 + adj

with ``F = num_filter``; channel-last layouts ('NWC', 'NHWC', 'NDHWC') move ``C`` (and
the weight's input channels) to the last axis. Deconvolution is the convolution's input
gradient — the same kernels run in the other direction (:mod:`.kernels`).

:func:`convolution_shapes` and :func:`deconvolution_shapes` are the shape inference of
each operator (they also serve Gluon's deferred initialisation): given the data shape
(0 for an unknown size) they return every input's and the output's shape, or raise
:class:`~gluonedu.base.MXNetError` naming the shapes that do not fit.
"""
from ... import _backend
from ...base import MXNetError
from . import kernels
from .common import (check_inputs, check_shape, channel_last, from_channel_first, record,
                     shape_text, spatial_layout, spatial_tuple, to_channel_first, tracked)
from .declare import OpDef, Param, REQUIRED

__all__ = ['Convolution', 'Deconvolution', 'convolution_shapes', 'deconvolution_shapes']

_LAYOUTS = (None, 'NCDHW', 'NCHW', 'NCW', 'NDHWC', 'NHWC')
_CUDNN_TUNE = (None, 'fastest', 'limited_workspace', 'off')


def _common_params(workspace, no_bias):
    return (
        Param('kernel', 'shape', REQUIRED, 'Kernel size, one entry per spatial axis.'),
        Param('stride', 'shape', (), 'Step between windows; () means 1 on every axis.'),
        Param('dilate', 'shape', (), 'Spacing of kernel taps; () means 1.'),
        Param('pad', 'shape', (), 'Zeros added on both sides of each axis; () means 0.'),
        Param('num_filter', 'count', REQUIRED, 'Number of output channels.'),
        Param('num_group', 'count', 1, 'Channel groups convolved separately.'),
        Param('workspace', 'long_count', workspace, 'Scratch memory limit in MB (unused '
              'here).'),
        Param('no_bias', 'bool', no_bias, 'Whether there is no bias input.'),
        Param('cudnn_tune', 'enum', None, 'cuDNN algorithm choice (unused here).',
              choices=_CUDNN_TUNE),
        Param('cudnn_off', 'bool', False, 'Turn cuDNN off (unused here).'),
        Param('layout', 'enum', None, "Data layout; None means 'NCW'/'NCHW'/'NCDHW'.",
              choices=_LAYOUTS))


def _no_bias(params):
    return ('bias',) if params['no_bias'] else ()


CONVOLUTION = OpDef('Convolution', inputs=('data', 'weight', 'bias'),
                    params=_common_params(1024, False), drop_inputs=_no_bias,
                    shapes=lambda params, data: convolution_shapes(params, data))

_DECONV_PARAMS = _common_params(512, True)
DECONVOLUTION = OpDef('Deconvolution', inputs=('data', 'weight', 'bias'),
                      shapes=lambda params, data: deconvolution_shapes(params, data),
                      drop_inputs=_no_bias, params=_DECONV_PARAMS[:4] + (
                          Param('adj', 'shape', (), 'Extra rows/columns at the end of '
                                'the output (each below its stride).'),
                          Param('target_shape', 'shape', (), 'Output spatial shape; sets '
                                'pad and adj when given.')) + _DECONV_PARAMS[4:])


class _Geometry:
    """A convolution's per-axis numbers: kernel, stride, pad, dilate (all tuples)."""

    def __init__(self, op, params, data_ndim):
        self.kernel = params.kernel
        nd = len(self.kernel)
        if not 1 <= nd <= 3:
            raise MXNetError("%s: kernel=%s has %d dimensions; 1-D, 2-D and 3-D "
                             "convolutions are supported" % (op, shape_text(self.kernel), nd))
        if data_ndim != nd + 2:
            raise MXNetError("%s: a %d-D kernel %s needs %d-D data (batch, channel and %d "
                             "spatial axes), got %d-D data"
                             % (op, nd, shape_text(self.kernel), nd + 2, nd, data_ndim))
        spatial_layout(op, params.layout, data_ndim, _LAYOUTS)
        self.stride = spatial_tuple(op, 'stride', params.stride, nd, 1)
        self.dilate = spatial_tuple(op, 'dilate', params.dilate, nd, 1)
        self.pad = spatial_tuple(op, 'pad', params.pad, nd, 0)
        if min(self.kernel + self.stride + self.dilate) < 1 or min(self.pad) < 0:
            raise MXNetError("%s: kernel, stride and dilate must be positive and pad "
                             "non-negative, got kernel=%s stride=%s dilate=%s pad=%s"
                             % (op, self.kernel, self.stride, self.dilate, self.pad))
        if params.num_filter < 1 or params.num_group < 1 or \
                params.num_filter % params.num_group:
            raise MXNetError("%s: num_filter=%d must be a positive multiple of num_group=%d"
                             % (op, params.num_filter, params.num_group))

    def dilated_kernel(self):
        return tuple(d * (k - 1) + 1 for k, d in zip(self.kernel, self.dilate))


def _split_data_shape(params, data_shape):
    """(batch, channels, spatial sizes) of data in ``params.layout``."""
    if channel_last(params.layout):
        return data_shape[0], data_shape[-1], tuple(data_shape[1:-1])
    return data_shape[0], data_shape[1], tuple(data_shape[2:])


def _join(params, batch, channels, spatial):
    if channel_last(params.layout):
        return (batch,) + tuple(spatial) + (channels,)
    return (batch, channels) + tuple(spatial)


def _check_channels(op, channels, groups, data_shape):
    if channels and channels % groups:
        raise MXNetError("%s: the data's %d channels (shape %s) cannot be split into "
                         "num_group=%d groups" % (op, channels, shape_text(data_shape), groups))


def convolution_shapes(params, data_shape):
    """``{'weight', 'bias', 'out'}`` shapes of a Convolution on data of ``data_shape``.

    Unknown sizes are 0 (Gluon's deferred ``in_channels``): they give 0 in the shapes
    that depend on them. ``'bias'`` is None when ``params.no_bias``.
    """
    op = 'Convolution'
    geo = _Geometry(op, params, len(data_shape))
    batch, channels, spatial = _split_data_shape(params, data_shape)
    _check_channels(op, channels, params.num_group, data_shape)
    out = []
    for n, k, s, p in zip(spatial, geo.dilated_kernel(), geo.stride, geo.pad):
        if n and k > n + 2 * p:
            raise MXNetError("%s: the kernel %s (dilated to %s) is larger than the padded "
                             "input: data shape %s, pad %s" % (op, shape_text(geo.kernel),
                                                               shape_text(geo.dilated_kernel()),
                                                               shape_text(data_shape),
                                                               shape_text(geo.pad)))
        out.append((n + 2 * p - k) // s + 1 if n else 0)
    return {'weight': _join(params, params.num_filter, channels // params.num_group,
                            geo.kernel),
            'bias': None if params.no_bias else (params.num_filter,),
            'out': _join(params, batch, params.num_filter, out)}


def _deconv_padding(params, geo, spatial):
    """(pad, adj) of a Deconvolution: from ``target_shape`` when it is given (as MXNet)."""
    nd = len(geo.kernel)
    if not params.target_shape:
        adj = spatial_tuple('Deconvolution', 'adj', params.adj, nd, 0)
        for a, s in zip(adj, geo.stride):
            if not 0 <= a < s:
                raise MXNetError("Deconvolution: adj=%s must be below the stride %s on every "
                                 "axis" % (shape_text(adj), shape_text(geo.stride)))
        return geo.pad, adj
    target = spatial_tuple('Deconvolution', 'target_shape', params.target_shape, nd, 0)
    pad, adj = [], []
    for n, k, s, t in zip(spatial, geo.dilated_kernel(), geo.stride, target):
        total = s * (n - 1) + k - t  # rows to remove from the full output
        if n and total < 0:
            raise MXNetError("Deconvolution: target_shape %s is larger than the full output "
                             "%d of input size %d" % (shape_text(target), s * (n - 1) + k, n))
        pad.append((total + 1) // 2)
        adj.append(total % 2)
    return tuple(pad), tuple(adj)


def deconvolution_shapes(params, data_shape):
    """``{'weight', 'bias', 'out'}`` shapes of a Deconvolution (see convolution_shapes)."""
    op = 'Deconvolution'
    geo = _Geometry(op, params, len(data_shape))
    batch, channels, spatial = _split_data_shape(params, data_shape)
    _check_channels(op, channels, params.num_group, data_shape)
    pad, adj = _deconv_padding(params, geo, spatial)
    out = []
    for n, k, s, p, a in zip(spatial, geo.dilated_kernel(), geo.stride, pad, adj):
        size = (n - 1) * s - 2 * p + k + a
        if n and size < 1:
            raise MXNetError("Deconvolution: the output would be empty (size %d) for data "
                             "shape %s with pad %s" % (size, shape_text(data_shape), pad))
        out.append(size if n else 0)
    return {'weight': _join(params, channels, params.num_filter // params.num_group,
                            geo.kernel),
            'bias': None if params.no_bias else (params.num_filter,),
            'out': _join(params, batch, params.num_filter, out)}


def _bound_inputs(op, params, data, weight, bias):
    if data is None or weight is None:
        raise MXNetError("%s needs the data and weight inputs" % op)
    if not params.no_bias and bias is None:
        raise MXNetError("%s: no bias given but no_bias=False; pass a bias of shape "
                         "(num_filter,) or set no_bias=True" % op)
    inputs = (data, weight) if params.no_bias else (data, weight, bias)
    check_inputs(op, inputs)
    return inputs


def _run(op, params, inputs, shapes, forward_fn, data_grad_fn, weight_grad_fn):
    """Shared body of both operators: shape checks, layout, kernels, bias, gradients.

    The three functions get channel-first arrays and the kernel module:
    ``forward_fn(conv, x, w)`` gives ``(y, kept)``, ``data_grad_fn(conv, dy, w, x_shape)``
    and ``weight_grad_fn(conv, x, dy, w_shape, kept)``.
    """
    data, weight = inputs[:2]
    bias = inputs[2] if len(inputs) == 3 else None
    check_shape(op, 'weight', weight.shape, shapes['weight'])
    if bias is not None:
        check_shape(op, 'bias', bias.shape, shapes['bias'])
    xp, layout = data._xp, params.layout
    conv = kernels.get('conv')
    x = to_channel_first(xp, data._data, layout)
    w = to_channel_first(xp, weight._data, layout)  # (F, *K, C) -> (F, C, *K) likewise
    with _backend.device_scope(data._ctx):
        y, kept = forward_fn(conv, x, w)
        if bias is not None:
            y += bias._data.reshape((1, -1) + (1,) * (y.ndim - 2))
        result = from_channel_first(xp, y, layout)

    def backward(grad):
        g = to_channel_first(xp, grad, layout)
        with _backend.device_scope(data._ctx):
            grads = [from_channel_first(xp, data_grad_fn(conv, g, w, x.shape), layout)
                     if tracked(data) else None,
                     from_channel_first(xp, weight_grad_fn(conv, x, g, w.shape, kept), layout)
                     if tracked(weight) else None]
            if bias is not None:
                grads.append(g.sum(axis=(0,) + tuple(range(2, g.ndim))))
        return tuple(grads)
    return record(result, data, inputs, backward, op)


def _convolution(params, data=None, weight=None, bias=None):
    """Convolution over the spatial axes, in groups, optionally strided, padded, dilated.

    ``y[n, f, i] = bias[f] + Σ_c Σ_k weight[f, c, k] · pad(data)[n, c, i·stride +
    k·dilate]``, summing over the input channels ``c`` of output channel ``f``'s group.
    """
    inputs = _bound_inputs('Convolution', params, data, weight, bias)
    shapes = convolution_shapes(params, data.shape)
    geo = _Geometry('Convolution', params, data.ndim)
    xp = data._xp
    args = (geo.stride, geo.pad, geo.dilate, params.num_group)
    return _run('Convolution', params, inputs, shapes,
                lambda conv, x, w: conv.forward_keeping(xp, x, w, *args),
                lambda conv, dy, w, x_shape: conv.backward_data(xp, dy, w, x_shape, *args),
                lambda conv, x, dy, w_shape, kept: conv.backward_weight(xp, x, dy, w_shape,
                                                                        *args, kept))


def _deconvolution(params, data=None, weight=None, bias=None):
    """Transposed convolution: the gradient of Convolution with respect to its data.

    Each input position scatters ``weight[c, f, k] · data[n, c, i]`` to output position
    ``i·stride + k·dilate − pad``; ``adj`` (or ``target_shape``) adds rows at the end.
    """
    inputs = _bound_inputs('Deconvolution', params, data, weight, bias)
    shapes = deconvolution_shapes(params, data.shape)
    geo = _Geometry('Deconvolution', params, data.ndim)
    pad, _ = _deconv_padding(params, geo, _split_data_shape(params, data.shape)[2])
    out_spatial = _split_data_shape(params, shapes['out'])[2]
    xp = data._xp
    args = (geo.stride, pad, geo.dilate, params.num_group)

    # With J the convolution by w: y = Jᵀ·x, so dx = J·dy and dw = J's weight gradient
    # for "input" dy and "output gradient" x.
    return _run('Deconvolution', params, inputs, shapes,
                lambda conv, x, w: (conv.backward_data(
                    xp, x, w, (x.shape[0], params.num_filter) + out_spatial, *args), None),
                lambda conv, dy, w, x_shape: conv.forward(xp, dy, w, *args),
                lambda conv, x, dy, w_shape, kept: conv.backward_weight(xp, dy, x, w_shape,
                                                                        *args))


Convolution = CONVOLUTION.function(_convolution)
Deconvolution = DECONVOLUTION.function(_deconvolution)
