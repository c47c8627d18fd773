"""MobileNet (Howard et al., 2017) and MobileNetV2 (Sandler et al., 2018).

Both replace full 3×3 convolutions by depthwise ones (``groups = channels``: each
channel filtered on its own) followed by 1×1 convolutions that mix the channels.
V2 wraps them in inverted residual blocks with a linear (no ReLU) bottleneck.
"""
from ... import nn
from ...block import HybridBlock
from ..model_store import load_pretrained

__all__ = ['MobileNet', 'MobileNetV2', 'mobilenet1_0', 'mobilenet_v2_1_0', 'mobilenet0_75',
           'mobilenet_v2_0_75', 'mobilenet0_5', 'mobilenet_v2_0_5', 'mobilenet0_25',
           'mobilenet_v2_0_25', 'get_mobilenet', 'get_mobilenet_v2']


class RELU6(HybridBlock):
    """min(max(x, 0), 6)."""

    def hybrid_forward(self, F, x):
        return F.clip(x, 0, 6)


def _add_conv(out, channels=1, kernel=1, stride=1, pad=0, num_group=1, active=True,
              relu6=False):
    """Convolution (no bias), BatchNorm and (unless ``active=False``) ReLU or ReLU6."""
    out.add(nn.Conv2D(channels, kernel, stride, pad, groups=num_group, use_bias=False))
    out.add(nn.BatchNorm(scale=True))
    if active:
        out.add(RELU6() if relu6 else nn.Activation('relu'))


def _add_conv_dw(out, dw_channels, channels, stride, relu6=False):
    """A depthwise 3×3 convolution, then a pointwise 1×1 one."""
    _add_conv(out, channels=dw_channels, kernel=3, stride=stride, pad=1, num_group=dw_channels,
              relu6=relu6)
    _add_conv(out, channels=channels, relu6=relu6)


class LinearBottleneck(HybridBlock):
    """MobileNetV2's inverted residual: expand ×t (1×1), depthwise 3×3, project (1×1, linear);
    plus the input when the shape is unchanged.

    Parameters
    ----------
    in_channels, channels : int
    t : int
        Expansion factor.
    stride : int
    """

    def __init__(self, in_channels, channels, t, stride, **kwargs):
        super().__init__(**kwargs)
        self.use_shortcut = stride == 1 and in_channels == channels
        with self.name_scope():
            self.out = nn.HybridSequential()
            _add_conv(self.out, in_channels * t, relu6=True)
            _add_conv(self.out, in_channels * t, kernel=3, stride=stride, pad=1,
                      num_group=in_channels * t, relu6=True)
            _add_conv(self.out, channels, active=False, relu6=True)

    def hybrid_forward(self, F, x):
        out = self.out(x)
        return F.elemwise_add(out, x) if self.use_shortcut else out


class MobileNet(HybridBlock):
    """MobileNet v1.

    Parameters
    ----------
    multiplier : float, default 1.0
        Width multiplier: every layer's channels are scaled by it.
    classes : int, default 1000
    """

    def __init__(self, multiplier=1.0, classes=1000, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix='')
            with self.features.name_scope():
                _add_conv(self.features, channels=int(32 * multiplier), kernel=3, pad=1,
                          stride=2)
                dw_channels = [int(c * multiplier)
                               for c in [32, 64] + [128] * 2 + [256] * 2 + [512] * 6 + [1024]]
                channels = [int(c * multiplier)
                            for c in [64] + [128] * 2 + [256] * 2 + [512] * 6 + [1024] * 2]
                strides = [1, 2] * 3 + [1] * 5 + [2, 1]
                for dwc, c, s in zip(dw_channels, channels, strides):
                    _add_conv_dw(self.features, dw_channels=dwc, channels=c, stride=s)
                self.features.add(nn.GlobalAvgPool2D(), nn.Flatten())
            self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


class MobileNetV2(HybridBlock):
    """MobileNet v2; parameters as :class:`MobileNet`."""

    def __init__(self, multiplier=1.0, classes=1000, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix='features_')
            with self.features.name_scope():
                _add_conv(self.features, int(32 * multiplier), kernel=3, stride=2, pad=1,
                          relu6=True)
                in_channels_group = [int(c * multiplier) for c in
                                     [32] + [16] + [24] * 2 + [32] * 3 + [64] * 4 + [96] * 3
                                     + [160] * 3]
                channels_group = [int(c * multiplier) for c in
                                  [16] + [24] * 2 + [32] * 3 + [64] * 4 + [96] * 3 + [160] * 3
                                  + [320]]
                ts = [1] + [6] * 16
                strides = [1, 2] * 2 + [1, 1, 2] + [1] * 6 + [2] + [1] * 3
                for in_c, c, t, s in zip(in_channels_group, channels_group, ts, strides):
                    self.features.add(LinearBottleneck(in_channels=in_c, channels=c, t=t,
                                                       stride=s))
                last_channels = int(1280 * multiplier) if multiplier > 1.0 else 1280
                _add_conv(self.features, last_channels, relu6=True)
                self.features.add(nn.GlobalAvgPool2D())
            self.output = nn.HybridSequential(prefix='output_')
            with self.output.name_scope():
                self.output.add(nn.Conv2D(classes, 1, use_bias=False, prefix='pred_'),
                                nn.Flatten())

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def _suffix(multiplier):
    """The multiplier as the model store spells it: '1.0', '0.75', '0.5', '0.25'."""
    text = '%.2f' % multiplier
    return text[:-1] if text in ('1.00', '0.50') else text


def get_mobilenet(multiplier, pretrained=False, ctx=None, root=None, **kwargs):
    """MobileNet v1 with width ``multiplier``."""
    net = MobileNet(multiplier, **kwargs)
    if pretrained:
        load_pretrained(net, 'mobilenet%s' % _suffix(multiplier), root, ctx)
    return net


def get_mobilenet_v2(multiplier, pretrained=False, ctx=None, root=None, **kwargs):
    """MobileNet v2 with width ``multiplier``."""
    net = MobileNetV2(multiplier, **kwargs)
    if pretrained:
        load_pretrained(net, 'mobilenetv2_%s' % _suffix(multiplier), root, ctx)
    return net


def _variant(get, multiplier, name):
    """The named constructor of one width, e.g. ``mobilenet_v2_0_5(**kwargs)``."""
    def make(**kwargs):
        return get(multiplier, **kwargs)
    make.__name__ = make.__qualname__ = name
    make.__doc__ = 'Width %s: ``%s(%s, **kwargs)``.' % (multiplier, get.__name__, multiplier)
    return make


mobilenet1_0, mobilenet0_75, mobilenet0_5, mobilenet0_25 = (
    _variant(get_mobilenet, m, 'mobilenet' + s) for m, s in
    ((1.0, '1_0'), (0.75, '0_75'), (0.5, '0_5'), (0.25, '0_25')))
mobilenet_v2_1_0, mobilenet_v2_0_75, mobilenet_v2_0_5, mobilenet_v2_0_25 = (
    _variant(get_mobilenet_v2, m, 'mobilenet_v2_' + s) for m, s in
    ((1.0, '1_0'), (0.75, '0_75'), (0.5, '0_5'), (0.25, '0_25')))
