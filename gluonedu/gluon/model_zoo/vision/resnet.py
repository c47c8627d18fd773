"""ResNet v1 (He et al., 2015) and v2 (He et al., 2016, "identity mappings"), 18–152 layers.

v1 adds the shortcut, then applies ReLU; v2 normalizes and activates *before* each
convolution ("pre-activation"), keeping the shortcut path an identity.
"""
from ... import nn
from ...block import HybridBlock
from ..model_store import load_pretrained

__all__ = ['ResNetV1', 'ResNetV2', 'BasicBlockV1', 'BasicBlockV2', 'BottleneckV1',
           'BottleneckV2', 'resnet18_v1', 'resnet34_v1', 'resnet50_v1', 'resnet101_v1',
           'resnet152_v1', 'resnet18_v2', 'resnet34_v2', 'resnet50_v2', 'resnet101_v2',
           'resnet152_v2', 'get_resnet']


def _conv3x3(channels, stride, in_channels):
    return nn.Conv2D(channels, kernel_size=3, strides=stride, padding=1, use_bias=False,
                     in_channels=in_channels)


def _projection(channels, stride, in_channels, batch_norm):
    """The 1×1 convolution that reshapes the shortcut when the block changes shape."""
    conv = nn.Conv2D(channels, kernel_size=1, strides=stride, use_bias=False,
                     in_channels=in_channels)
    if not batch_norm:
        return conv
    shortcut = nn.HybridSequential(prefix='')
    shortcut.add(conv, nn.BatchNorm())
    return shortcut


class BasicBlockV1(HybridBlock):
    """Two 3×3 convolutions with BatchNorm; ``relu(body(x) + shortcut(x))``.

    Parameters
    ----------
    channels : int
    stride : int
    downsample : bool, default False
        Project the shortcut with a strided 1×1 convolution (when the shape changes).
    in_channels : int, default 0
    """

    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self.body = nn.HybridSequential(prefix='')
        self.body.add(_conv3x3(channels, stride, in_channels), nn.BatchNorm(),
                      nn.Activation('relu'), _conv3x3(channels, 1, channels), nn.BatchNorm())
        self.downsample = (_projection(channels, stride, in_channels, True) if downsample
                           else None)

    def hybrid_forward(self, F, x):
        residual = self.downsample(x) if self.downsample else x
        return F.Activation(residual + self.body(x), act_type='relu')


class BottleneckV1(HybridBlock):
    """1×1 (reduce to channels/4), 3×3, 1×1 (expand) convolutions; parameters as
    :class:`BasicBlockV1`."""

    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self.body = nn.HybridSequential(prefix='')
        self.body.add(nn.Conv2D(channels // 4, kernel_size=1, strides=stride), nn.BatchNorm(),
                      nn.Activation('relu'), _conv3x3(channels // 4, 1, channels // 4),
                      nn.BatchNorm(), nn.Activation('relu'),
                      nn.Conv2D(channels, kernel_size=1, strides=1), nn.BatchNorm())
        self.downsample = (_projection(channels, stride, in_channels, True) if downsample
                           else None)

    def hybrid_forward(self, F, x):
        residual = self.downsample(x) if self.downsample else x
        return F.Activation(self.body(x) + residual, act_type='relu')


def _pre_activation(block, F, x):
    """``(relu(bn1(x)), shortcut)`` of a v2 block: the shortcut is ``x`` itself, or its
    projection of the *activated* ``x`` when the block changes shape."""
    activated = F.Activation(block.bn1(x), act_type='relu')
    return activated, (block.downsample(activated) if block.downsample else x)


class BasicBlockV2(HybridBlock):
    """Pre-activation basic block: ``x + conv(relu(bn(conv(relu(bn(x))))))``; parameters
    as :class:`BasicBlockV1`."""

    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self.bn1 = nn.BatchNorm()
        self.conv1 = _conv3x3(channels, stride, in_channels)
        self.bn2 = nn.BatchNorm()
        self.conv2 = _conv3x3(channels, 1, channels)
        self.downsample = (_projection(channels, stride, in_channels, False) if downsample
                           else None)

    def hybrid_forward(self, F, x):
        x, residual = _pre_activation(self, F, x)
        x = self.conv1(x)
        x = self.conv2(F.Activation(self.bn2(x), act_type='relu'))
        return x + residual


class BottleneckV2(HybridBlock):
    """Pre-activation bottleneck block; parameters as :class:`BasicBlockV1`."""

    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self.bn1 = nn.BatchNorm()
        self.conv1 = nn.Conv2D(channels // 4, kernel_size=1, strides=1, use_bias=False)
        self.bn2 = nn.BatchNorm()
        self.conv2 = _conv3x3(channels // 4, stride, channels // 4)
        self.bn3 = nn.BatchNorm()
        self.conv3 = nn.Conv2D(channels, kernel_size=1, strides=1, use_bias=False)
        self.downsample = (_projection(channels, stride, in_channels, False) if downsample
                           else None)

    def hybrid_forward(self, F, x):
        x, residual = _pre_activation(self, F, x)
        x = self.conv1(x)
        x = self.conv2(F.Activation(self.bn2(x), act_type='relu'))
        x = self.conv3(F.Activation(self.bn3(x), act_type='relu'))
        return x + residual


def _stage(block, num_blocks, channels, stride, index, in_channels):
    """``num_blocks`` blocks; the first may change the stride and the channels."""
    stage = nn.HybridSequential(prefix='stage%d_' % index)
    with stage.name_scope():
        stage.add(block(channels, stride, channels != in_channels, in_channels=in_channels,
                        prefix=''))
        for _ in range(num_blocks - 1):
            stage.add(block(channels, 1, False, in_channels=channels, prefix=''))
    return stage


def _stem(features, channels, thumbnail):
    """The first layers: a 3×3 convolution (``thumbnail``, small images) or 7×7/2 + pool."""
    if thumbnail:
        features.add(_conv3x3(channels, 1, 0))
    else:
        features.add(nn.Conv2D(channels, 7, 2, 3, use_bias=False), nn.BatchNorm(),
                     nn.Activation('relu'), nn.MaxPool2D(3, 2, 1))


class ResNetV1(HybridBlock):
    """ResNet v1.

    Parameters
    ----------
    block : class
        BasicBlockV1 or BottleneckV1.
    layers : list of int
        Blocks in each of the 4 stages.
    channels : list of int
        Channels of the stem and of each stage (one more entry than ``layers``).
    classes : int, default 1000
    thumbnail : bool, default False
        A 3×3 stem without pooling, for small images (CIFAR).
    """

    def __init__(self, block, layers, channels, classes=1000, thumbnail=False, **kwargs):
        super().__init__(**kwargs)
        assert len(layers) == len(channels) - 1
        with self.name_scope():
            self.features = nn.HybridSequential(prefix='')
            _stem(self.features, channels[0], thumbnail)
            for i, num_blocks in enumerate(layers):
                self.features.add(_stage(block, num_blocks, channels[i + 1], 1 if i == 0 else 2,
                                         i + 1, channels[i]))
            self.features.add(nn.GlobalAvgPool2D())
            self.output = nn.Dense(classes, in_units=channels[-1])

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


class ResNetV2(HybridBlock):
    """ResNet v2 (pre-activation); parameters as :class:`ResNetV1` (blocks BasicBlockV2,
    BottleneckV2). The input is first normalized by a BatchNorm without scale or shift."""

    def __init__(self, block, layers, channels, classes=1000, thumbnail=False, **kwargs):
        super().__init__(**kwargs)
        assert len(layers) == len(channels) - 1
        with self.name_scope():
            self.features = nn.HybridSequential(prefix='')
            self.features.add(nn.BatchNorm(scale=False, center=False))
            _stem(self.features, channels[0], thumbnail)
            in_channels = channels[0]
            for i, num_blocks in enumerate(layers):
                self.features.add(_stage(block, num_blocks, channels[i + 1], 1 if i == 0 else 2,
                                         i + 1, in_channels))
                in_channels = channels[i + 1]
            self.features.add(nn.BatchNorm(), nn.Activation('relu'), nn.GlobalAvgPool2D(),
                              nn.Flatten())
            self.output = nn.Dense(classes, in_units=in_channels)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


#: depth -> (block type, blocks per stage, channels of the stem and the stages)
resnet_spec = {18: ('basic_block', [2, 2, 2, 2], [64, 64, 128, 256, 512]),
               34: ('basic_block', [3, 4, 6, 3], [64, 64, 128, 256, 512]),
               50: ('bottle_neck', [3, 4, 6, 3], [64, 256, 512, 1024, 2048]),
               101: ('bottle_neck', [3, 4, 23, 3], [64, 256, 512, 1024, 2048]),
               152: ('bottle_neck', [3, 8, 36, 3], [64, 256, 512, 1024, 2048])}
resnet_net_versions = [ResNetV1, ResNetV2]
resnet_block_versions = [{'basic_block': BasicBlockV1, 'bottle_neck': BottleneckV1},
                         {'basic_block': BasicBlockV2, 'bottle_neck': BottleneckV2}]


def get_resnet(version, num_layers, pretrained=False, ctx=None, root=None, **kwargs):
    """ResNet ``version`` (1 or 2) with ``num_layers`` (18, 34, 50, 101 or 152) layers."""
    assert num_layers in resnet_spec, "Invalid number of layers: %d. Options are %s" % (
        num_layers, sorted(resnet_spec))
    assert 1 <= version <= 2, "Invalid resnet version: %d. Options are 1 and 2." % version
    block_type, layers, channels = resnet_spec[num_layers]
    net = resnet_net_versions[version - 1](resnet_block_versions[version - 1][block_type],
                                           layers, channels, **kwargs)
    if pretrained:
        load_pretrained(net, 'resnet%d_v%d' % (num_layers, version), root, ctx)
    return net


def _variant(version, num_layers):
    """The named constructor of one depth and version, e.g. ``resnet18_v1(**kwargs)``."""
    def make(**kwargs):
        return get_resnet(version, num_layers, **kwargs)
    make.__name__ = make.__qualname__ = 'resnet%d_v%d' % (num_layers, version)
    make.__doc__ = 'ResNet-%d v%d: ``get_resnet(%d, %d, **kwargs)``.' % (
        num_layers, version, version, num_layers)
    return make


resnet18_v1, resnet34_v1, resnet50_v1, resnet101_v1, resnet152_v1 = (
    _variant(1, n) for n in (18, 34, 50, 101, 152))
resnet18_v2, resnet34_v2, resnet50_v2, resnet101_v2, resnet152_v2 = (
    _variant(2, n) for n in (18, 34, 50, 101, 152))
