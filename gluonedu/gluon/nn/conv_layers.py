"""Convolution and pooling layers: Conv1D/2D/3D, their transposes, max/avg/global pooling,
ReflectionPad2D.

Names, arguments and defaults are MXNet 1.9.1's. A convolution's ``weight`` has shape
``(channels, in_channels/groups, *kernel_size)`` (``(in_channels, channels/groups, ...)``
for the transposed ones; channel-last layouts put the input channels last), its
``bias`` ``(channels,)``. With ``in_channels=0`` (the default) the input channels are
taken from the first input: initialisation is deferred until then, as in MXNet.
"""
from ... import ndarray as nd
from ...base import numeric_types
from ...ndarray.nn_ops import convolution_shapes, deconvolution_shapes
from ..block import HybridBlock
from .activations import Activation

__all__ = ['Conv1D', 'Conv2D', 'Conv3D', 'Conv1DTranspose', 'Conv2DTranspose',
           'Conv3DTranspose', 'MaxPool1D', 'MaxPool2D', 'MaxPool3D', 'AvgPool1D', 'AvgPool2D',
           'AvgPool3D', 'GlobalMaxPool1D', 'GlobalMaxPool2D', 'GlobalMaxPool3D',
           'GlobalAvgPool1D', 'GlobalAvgPool2D', 'GlobalAvgPool3D', 'ReflectionPad2D']


def _tuple(value, n):
    """A number repeated ``n`` times; a sequence as given (kept as MXNet keeps it)."""
    return (value,) * n if isinstance(value, numeric_types) else value


class _Conv(HybridBlock):
    """What every convolution layer shares: the operator's arguments, weight and bias.

    Parameters
    ----------
    channels : int
        Output channels (the operator's ``num_filter``).
    kernel_size, strides, padding, dilation : tuple of int
        One entry per spatial axis (``padding``: zeros on both sides).
    groups : int
        Channel groups: each output channel sees the input channels of its group.
    layout : str
        'NCW', 'NCHW', 'NCDHW' (channels first) or the channel-last variants.
    in_channels : int, default 0
        Input channels; 0 defers initialisation to the first forward pass.
    activation : str, optional
        Applied to the output (see :class:`Activation`).
    use_bias : bool
    weight_initializer, bias_initializer : Initializer or str
    """

    def __init__(self, channels, kernel_size, strides, padding, dilation, groups, layout,
                 in_channels=0, activation=None, use_bias=True, weight_initializer=None,
                 bias_initializer='zeros', op_name='Convolution', adj=None, prefix=None,
                 params=None):
        super().__init__(prefix=prefix, params=params)
        with self.name_scope():
            self._channels = channels
            self._in_channels = in_channels
            n = len(kernel_size)
            self._op_name = op_name
            self._kwargs = {'kernel': kernel_size, 'stride': _tuple(strides, n),
                            'dilate': _tuple(dilation, n), 'pad': _tuple(padding, n),
                            'num_filter': channels, 'num_group': groups,
                            'no_bias': not use_bias, 'layout': layout}
            if adj is not None:
                self._kwargs['adj'] = adj
            shapes = self._shapes(in_channels)
            self.weight = self.params.get('weight', shape=shapes['weight'],
                                          init=weight_initializer, allow_deferred_init=True)
            if use_bias:
                self.bias = self.params.get('bias', shape=shapes['bias'],
                                            init=bias_initializer, allow_deferred_init=True)
            else:
                self.bias = None
            self.act = Activation(activation, prefix=activation + '_') if activation else None

    def _shapes(self, in_channels, data_shape=None):
        """The operator's shape inference for ``in_channels`` (data sizes unknown: 0)."""
        declaration = getattr(nd, self._op_name).declaration
        params = declaration.parse(self._kwargs)
        if data_shape is None:
            layout = self._kwargs['layout']
            data_shape = [0] * len(layout)
            data_shape[layout.find('N')] = 1
            data_shape[layout.find('C')] = in_channels
        infer = convolution_shapes if self._op_name == 'Convolution' else deconvolution_shapes
        return infer(params, tuple(data_shape))

    def hybrid_forward(self, F, x, weight, bias=None):
        op = getattr(F, self._op_name)
        if bias is None:
            out = op(x, weight, name='fwd', **self._kwargs)
        else:
            out = op(x, weight, bias, name='fwd', **self._kwargs)
        return self.act(out) if self.act is not None else out

    def _alias(self):
        return 'conv'

    def __repr__(self):
        kw = self._kwargs
        n = len(kw['kernel'])
        text = '%s(%s -> %s, kernel_size=%s, stride=%s' % (
            self.__class__.__name__, self.weight.shape[1] if self.weight.shape[1] else None,
            self.weight.shape[0], kw['kernel'], kw['stride'])
        if kw['pad'] != (0,) * n:
            text += ', padding=%s' % (kw['pad'],)
        if kw['dilate'] != (1,) * n:
            text += ', dilation=%s' % (kw['dilate'],)
        if kw['num_group'] != 1:
            text += ', groups=%s' % kw['num_group']
        if self.bias is None:
            text += ', bias=False'
        if self.act:
            text += ', %s' % self.act
        return text + ')'


def _sized(name, value, ndim):
    """An int or a tuple as ``ndim`` ints; AssertionError (as MXNet) for a wrong length."""
    value = _tuple(value, ndim)
    assert len(value) == ndim, "%s must be a number or a list of %d ints" % (name, ndim)
    return value


def _check_layout(layout, allowed):
    assert layout in allowed, "Only supports %s layout for now" % ' and '.join(
        "'%s'" % a for a in allowed)


class _ConvTranspose(_Conv):
    """A transposed convolution ("deconvolution"): the gradient of a convolution with
    respect to its input, upsampling by ``strides``.

    ``output_padding`` adds rows at the end of each axis (below the stride); the output
    size is ``(n − 1)·stride − 2·padding + dilation·(kernel − 1) + 1 + output_padding``.
    """

    def __init__(self, channels, kernel_size, strides, padding, output_padding, dilation,
                 groups, layout, **kwargs):
        ndim = len(kernel_size)
        output_padding = _sized('output_padding', output_padding, ndim)
        super().__init__(channels, kernel_size, strides, padding, dilation, groups, layout,
                         op_name='Deconvolution', adj=output_padding, **kwargs)
        self.outpad = output_padding


class Conv1D(_Conv):
    """1-D convolution (over time): data (N, C, W) -> (N, channels, W_out)."""

    def __init__(self, channels, kernel_size, strides=1, padding=0, dilation=1, groups=1,
                 layout='NCW', activation=None, use_bias=True, weight_initializer=None,
                 bias_initializer='zeros', in_channels=0, **kwargs):
        _check_layout(layout, ('NCW',))
        super().__init__(channels, _sized('kernel_size', kernel_size, 1), strides, padding,
                         dilation, groups, layout, in_channels, activation, use_bias,
                         weight_initializer, bias_initializer, **kwargs)


class Conv2D(_Conv):
    """2-D convolution (over images): data (N, C, H, W) -> (N, channels, H_out, W_out).

    ``H_out = ⌊(H + 2·padding − dilation·(kernel − 1) − 1) / stride⌋ + 1``, likewise W.
    """

    def __init__(self, channels, kernel_size, strides=(1, 1), padding=(0, 0),
                 dilation=(1, 1), groups=1, layout='NCHW', activation=None, use_bias=True,
                 weight_initializer=None, bias_initializer='zeros', in_channels=0, **kwargs):
        _check_layout(layout, ('NCHW', 'NHWC'))
        super().__init__(channels, _sized('kernel_size', kernel_size, 2), strides, padding,
                         dilation, groups, layout, in_channels, activation, use_bias,
                         weight_initializer, bias_initializer, **kwargs)


class Conv3D(_Conv):
    """3-D convolution (over volumes): data (N, C, D, H, W) -> (N, channels, ...)."""

    def __init__(self, channels, kernel_size, strides=(1, 1, 1), padding=(0, 0, 0),
                 dilation=(1, 1, 1), groups=1, layout='NCDHW', activation=None, use_bias=True,
                 weight_initializer=None, bias_initializer='zeros', in_channels=0, **kwargs):
        _check_layout(layout, ('NCDHW', 'NDHWC'))
        super().__init__(channels, _sized('kernel_size', kernel_size, 3), strides, padding,
                         dilation, groups, layout, in_channels, activation, use_bias,
                         weight_initializer, bias_initializer, **kwargs)


class Conv1DTranspose(_ConvTranspose):
    """Transposed 1-D convolution: data (N, C, W) -> (N, channels, W_out)."""

    def __init__(self, channels, kernel_size, strides=1, padding=0, output_padding=0,
                 dilation=1, groups=1, layout='NCW', activation=None, use_bias=True,
                 weight_initializer=None, bias_initializer='zeros', in_channels=0, **kwargs):
        _check_layout(layout, ('NCW',))
        super().__init__(channels, _sized('kernel_size', kernel_size, 1), strides, padding,
                         output_padding, dilation, groups, layout, in_channels=in_channels,
                         activation=activation, use_bias=use_bias,
                         weight_initializer=weight_initializer,
                         bias_initializer=bias_initializer, **kwargs)


class Conv2DTranspose(_ConvTranspose):
    """Transposed 2-D convolution: data (N, C, H, W) -> (N, channels, H_out, W_out)."""

    def __init__(self, channels, kernel_size, strides=(1, 1), padding=(0, 0),
                 output_padding=(0, 0), dilation=(1, 1), groups=1, layout='NCHW',
                 activation=None, use_bias=True, weight_initializer=None,
                 bias_initializer='zeros', in_channels=0, **kwargs):
        _check_layout(layout, ('NCHW', 'NHWC'))
        super().__init__(channels, _sized('kernel_size', kernel_size, 2), strides, padding,
                         output_padding, dilation, groups, layout, in_channels=in_channels,
                         activation=activation, use_bias=use_bias,
                         weight_initializer=weight_initializer,
                         bias_initializer=bias_initializer, **kwargs)


class Conv3DTranspose(_ConvTranspose):
    """Transposed 3-D convolution: data (N, C, D, H, W) -> (N, channels, ...)."""

    def __init__(self, channels, kernel_size, strides=(1, 1, 1), padding=(0, 0, 0),
                 output_padding=(0, 0, 0), dilation=(1, 1, 1), groups=1, layout='NCDHW',
                 activation=None, use_bias=True, weight_initializer=None,
                 bias_initializer='zeros', in_channels=0, **kwargs):
        _check_layout(layout, ('NCDHW', 'NDHWC'))
        super().__init__(channels, _sized('kernel_size', kernel_size, 3), strides, padding,
                         output_padding, dilation, groups, layout, in_channels=in_channels,
                         activation=activation, use_bias=use_bias,
                         weight_initializer=weight_initializer,
                         bias_initializer=bias_initializer, **kwargs)


# ---------------------------------------------------------------------- pooling
class _Pooling(HybridBlock):
    """What every pooling layer shares: the Pooling operator's arguments.

    ``strides=None`` means the pool size (non-overlapping windows); ``ceil_mode=True``
    rounds the output size up (MXNet's ``pooling_convention='full'``).
    """

    def __init__(self, pool_size, strides, padding, ceil_mode, global_pool, pool_type,
                 layout, count_include_pad=None, **kwargs):
        super().__init__(**kwargs)
        if strides is None:
            strides = pool_size
        self._kwargs = {'kernel': pool_size, 'stride': _tuple(strides, len(pool_size)),
                        'pad': _tuple(padding, len(pool_size)), 'global_pool': global_pool,
                        'pool_type': pool_type, 'layout': layout,
                        'pooling_convention': 'full' if ceil_mode else 'valid'}
        if count_include_pad is not None:
            self._kwargs['count_include_pad'] = count_include_pad

    def _alias(self):
        return 'pool'

    def hybrid_forward(self, F, x):
        return F.Pooling(x, name='fwd', **self._kwargs)

    def __repr__(self):
        kw = self._kwargs
        return ('%s(size=%s, stride=%s, padding=%s, ceil_mode=%s, global_pool=%s, '
                'pool_type=%s, layout=%s)'
                % (self.__class__.__name__, kw['kernel'], kw['stride'], kw['pad'],
                   kw['pooling_convention'] == 'full', kw['global_pool'], kw['pool_type'],
                   kw['layout']))


def _check_pool_layout(layout, ndim):
    allowed = {1: ('NCW', 'NWC'), 2: ('NCHW', 'NHWC'), 3: ('NCDHW', 'NDHWC')}[ndim]
    assert layout in allowed, "Only %s and %s layouts are valid for %dD Pooling" % (
        allowed + (ndim,))


class MaxPool1D(_Pooling):
    """Max pooling over time: (N, C, W) -> (N, C, ⌊(W + 2·padding − size)/strides⌋ + 1)."""

    def __init__(self, pool_size=2, strides=None, padding=0, layout='NCW', ceil_mode=False,
                 **kwargs):
        _check_pool_layout(layout, 1)
        super().__init__(_sized('pool_size', pool_size, 1), strides, padding, ceil_mode,
                         False, 'max', layout, **kwargs)


class MaxPool2D(_Pooling):
    """Max pooling over images: the largest value of each ``pool_size`` window."""

    def __init__(self, pool_size=(2, 2), strides=None, padding=0, layout='NCHW',
                 ceil_mode=False, **kwargs):
        _check_pool_layout(layout, 2)
        super().__init__(_sized('pool_size', pool_size, 2), strides, padding, ceil_mode,
                         False, 'max', layout, **kwargs)


class MaxPool3D(_Pooling):
    """Max pooling over volumes."""

    def __init__(self, pool_size=(2, 2, 2), strides=None, padding=0, ceil_mode=False,
                 layout='NCDHW', **kwargs):
        _check_pool_layout(layout, 3)
        super().__init__(_sized('pool_size', pool_size, 3), strides, padding, ceil_mode,
                         False, 'max', layout, **kwargs)


class AvgPool1D(_Pooling):
    """Average pooling over time; ``count_include_pad`` counts the padding in the mean."""

    def __init__(self, pool_size=2, strides=None, padding=0, layout='NCW', ceil_mode=False,
                 count_include_pad=True, **kwargs):
        _check_pool_layout(layout, 1)
        super().__init__(_sized('pool_size', pool_size, 1), strides, padding, ceil_mode,
                         False, 'avg', layout, count_include_pad, **kwargs)


class AvgPool2D(_Pooling):
    """Average pooling over images; ``count_include_pad`` counts the padding in the mean."""

    def __init__(self, pool_size=(2, 2), strides=None, padding=0, ceil_mode=False,
                 layout='NCHW', count_include_pad=True, **kwargs):
        _check_pool_layout(layout, 2)
        super().__init__(_sized('pool_size', pool_size, 2), strides, padding, ceil_mode,
                         False, 'avg', layout, count_include_pad, **kwargs)


class AvgPool3D(_Pooling):
    """Average pooling over volumes; ``count_include_pad`` counts the padding in the mean."""

    def __init__(self, pool_size=(2, 2, 2), strides=None, padding=0, ceil_mode=False,
                 layout='NCDHW', count_include_pad=True, **kwargs):
        _check_pool_layout(layout, 3)
        super().__init__(_sized('pool_size', pool_size, 3), strides, padding, ceil_mode,
                         False, 'avg', layout, count_include_pad, **kwargs)


class _GlobalPooling(_Pooling):
    """Pools each channel's whole extent to one value: output (N, C, 1, ...)."""
    _ndim = None
    _pool_type = None

    def __init__(self, layout=None, **kwargs):
        ndim = self._ndim
        layout = layout or {1: 'NCW', 2: 'NCHW', 3: 'NCDHW'}[ndim]
        _check_pool_layout(layout, ndim)
        super().__init__((1,) * ndim, None, 0, True, True, self._pool_type, layout, **kwargs)


class GlobalMaxPool1D(_GlobalPooling):
    """Global max pooling over time: (N, C, W) -> (N, C, 1)."""
    _ndim, _pool_type = 1, 'max'

    def __init__(self, layout='NCW', **kwargs):
        super().__init__(layout, **kwargs)


class GlobalMaxPool2D(_GlobalPooling):
    """Global max pooling over images: (N, C, H, W) -> (N, C, 1, 1)."""
    _ndim, _pool_type = 2, 'max'

    def __init__(self, layout='NCHW', **kwargs):
        super().__init__(layout, **kwargs)


class GlobalMaxPool3D(_GlobalPooling):
    """Global max pooling over volumes: (N, C, D, H, W) -> (N, C, 1, 1, 1)."""
    _ndim, _pool_type = 3, 'max'

    def __init__(self, layout='NCDHW', **kwargs):
        super().__init__(layout, **kwargs)


class GlobalAvgPool1D(_GlobalPooling):
    """Global average pooling over time: (N, C, W) -> (N, C, 1)."""
    _ndim, _pool_type = 1, 'avg'

    def __init__(self, layout='NCW', **kwargs):
        super().__init__(layout, **kwargs)


class GlobalAvgPool2D(_GlobalPooling):
    """Global average pooling over images: (N, C, H, W) -> (N, C, 1, 1)."""
    _ndim, _pool_type = 2, 'avg'

    def __init__(self, layout='NCHW', **kwargs):
        super().__init__(layout, **kwargs)


class GlobalAvgPool3D(_GlobalPooling):
    """Global average pooling over volumes: (N, C, D, H, W) -> (N, C, 1, 1, 1)."""
    _ndim, _pool_type = 3, 'avg'

    def __init__(self, layout='NCDHW', **kwargs):
        super().__init__(layout, **kwargs)


class ReflectionPad2D(HybridBlock):
    """Pad the two spatial axes of (N, C, H, W) data with their reflection at the edges.

    Parameters
    ----------
    padding : int or tuple of 8 ints
        An int pads H and W by that much on both sides; a tuple is ``pad``'s
        ``pad_width`` (zeros for N and C).
    """

    def __init__(self, padding=0, **kwargs):
        super().__init__(**kwargs)
        if isinstance(padding, numeric_types):
            padding = (0, 0, 0, 0, padding, padding, padding, padding)
        assert len(padding) == 8, "padding must be an int or a tuple of 8 ints"
        self._padding = padding

    def hybrid_forward(self, F, x):
        return F.pad(x, mode='reflect', pad_width=self._padding)
