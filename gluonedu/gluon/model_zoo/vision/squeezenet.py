"""SqueezeNet 1.0 and 1.1 (Iandola et al., 2016): "fire" modules of 1×1 squeeze
convolutions feeding parallel 1×1 and 3×3 expand convolutions."""
from ... import nn
from ...block import HybridBlock
from ...contrib.nn import HybridConcurrent
from ..model_store import load_pretrained

__all__ = ['SqueezeNet', 'squeezenet1_0', 'squeezenet1_1']


def _fire_conv(channels, kernel_size, padding=0):
    out = nn.HybridSequential(prefix='')
    out.add(nn.Conv2D(channels, kernel_size, padding=padding), nn.Activation('relu'))
    return out


def _fire(squeeze_channels, expand1x1_channels, expand3x3_channels):
    """Squeeze to few channels, then expand through 1×1 and 3×3 paths, concatenated."""
    out = nn.HybridSequential(prefix='')
    out.add(_fire_conv(squeeze_channels, 1))
    paths = HybridConcurrent(axis=1, prefix='')
    paths.add(_fire_conv(expand1x1_channels, 1))
    paths.add(_fire_conv(expand3x3_channels, 3, 1))
    out.add(paths)
    return out


class SqueezeNet(HybridBlock):
    """SqueezeNet.

    Parameters
    ----------
    version : str
        '1.0' or '1.1' (fewer channels early: 2.4× less computation).
    classes : int, default 1000
    """

    def __init__(self, version, classes=1000, **kwargs):
        super().__init__(**kwargs)
        assert version in ['1.0', '1.1'], \
            "Unsupported SqueezeNet version %s: 1.0 or 1.1 expected" % version
        with self.name_scope():
            self.features = nn.HybridSequential(prefix='')
            pool = lambda: nn.MaxPool2D(pool_size=3, strides=2, ceil_mode=True)  # noqa: E731
            if version == '1.0':
                self.features.add(nn.Conv2D(96, kernel_size=7, strides=2), nn.Activation('relu'),
                                  pool(), _fire(16, 64, 64), _fire(16, 64, 64),
                                  _fire(32, 128, 128), pool(), _fire(32, 128, 128),
                                  _fire(48, 192, 192), _fire(48, 192, 192),
                                  _fire(64, 256, 256), pool(), _fire(64, 256, 256))
            else:
                self.features.add(nn.Conv2D(64, kernel_size=3, strides=2), nn.Activation('relu'),
                                  pool(), _fire(16, 64, 64), _fire(16, 64, 64), pool(),
                                  _fire(32, 128, 128), _fire(32, 128, 128), pool(),
                                  _fire(48, 192, 192), _fire(48, 192, 192),
                                  _fire(64, 256, 256), _fire(64, 256, 256))
            self.features.add(nn.Dropout(0.5))
            self.output = nn.HybridSequential(prefix='')
            self.output.add(nn.Conv2D(classes, kernel_size=1), nn.Activation('relu'),
                            nn.AvgPool2D(13), nn.Flatten())

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def get_squeezenet(version, pretrained=False, ctx=None, root=None, **kwargs):
    """SqueezeNet ``version`` ('1.0' or '1.1')."""
    net = SqueezeNet(version, **kwargs)
    if pretrained:
        load_pretrained(net, 'squeezenet%s' % version, root, ctx)
    return net


def squeezenet1_0(**kwargs):
    """SqueezeNet 1.0."""
    return get_squeezenet('1.0', **kwargs)


def squeezenet1_1(**kwargs):
    """SqueezeNet 1.1."""
    return get_squeezenet('1.1', **kwargs)
