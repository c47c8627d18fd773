"""DenseNet (Huang et al., 2017): every layer of a block sees the concatenation of all
earlier layers' outputs (a HybridConcurrent of the identity and the new features)."""
from ... import nn
from ...block import HybridBlock
from ...contrib.nn import HybridConcurrent, Identity
from ..model_store import load_pretrained

__all__ = ['DenseNet', 'densenet121', 'densenet161', 'densenet169', 'densenet201']


def _dense_layer(growth_rate, bn_size, dropout):
    """BN-ReLU-1×1 conv (bn_size·growth), BN-ReLU-3×3 conv (growth), appended to the input."""
    new_features = nn.HybridSequential(prefix='')
    new_features.add(nn.BatchNorm(), nn.Activation('relu'),
                     nn.Conv2D(bn_size * growth_rate, kernel_size=1, use_bias=False),
                     nn.BatchNorm(), nn.Activation('relu'),
                     nn.Conv2D(growth_rate, kernel_size=3, padding=1, use_bias=False))
    if dropout:
        new_features.add(nn.Dropout(dropout))
    out = HybridConcurrent(axis=1, prefix='')
    out.add(Identity(), new_features)
    return out


def _dense_block(num_layers, bn_size, growth_rate, dropout, stage_index):
    out = nn.HybridSequential(prefix='stage%d_' % stage_index)
    with out.name_scope():
        for _ in range(num_layers):
            out.add(_dense_layer(growth_rate, bn_size, dropout))
    return out


def _transition(num_output_features):
    """BN-ReLU-1×1 conv halving the channels, then 2×2 average pooling."""
    out = nn.HybridSequential(prefix='')
    out.add(nn.BatchNorm(), nn.Activation('relu'),
            nn.Conv2D(num_output_features, kernel_size=1, use_bias=False),
            nn.AvgPool2D(pool_size=2, strides=2))
    return out


class DenseNet(HybridBlock):
    """DenseNet.

    Parameters
    ----------
    num_init_features : int
        Channels of the first convolution.
    growth_rate : int
        Channels each dense layer adds.
    block_config : list of int
        Layers in each dense block.
    bn_size : int, default 4
        Bottleneck width, in multiples of growth_rate.
    dropout : float, default 0
    classes : int, default 1000
    """

    def __init__(self, num_init_features, growth_rate, block_config, bn_size=4, dropout=0,
                 classes=1000, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix='')
            self.features.add(nn.Conv2D(num_init_features, kernel_size=7, strides=2, padding=3,
                                        use_bias=False),
                              nn.BatchNorm(), nn.Activation('relu'),
                              nn.MaxPool2D(pool_size=3, strides=2, padding=1))
            num_features = num_init_features
            for i, num_layers in enumerate(block_config):
                self.features.add(_dense_block(num_layers, bn_size, growth_rate, dropout, i + 1))
                num_features += num_layers * growth_rate
                if i != len(block_config) - 1:
                    num_features //= 2
                    self.features.add(_transition(num_features))
            self.features.add(nn.BatchNorm(), nn.Activation('relu'), nn.AvgPool2D(pool_size=7),
                              nn.Flatten())
            self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


#: depth -> (num_init_features, growth_rate, block_config)
densenet_spec = {121: (64, 32, [6, 12, 24, 16]), 161: (96, 48, [6, 12, 36, 24]),
                 169: (64, 32, [6, 12, 32, 32]), 201: (64, 32, [6, 12, 48, 32])}


def get_densenet(num_layers, pretrained=False, ctx=None, root=None, **kwargs):
    """DenseNet with ``num_layers`` (121, 161, 169 or 201) layers."""
    num_init_features, growth_rate, block_config = densenet_spec[num_layers]
    net = DenseNet(num_init_features, growth_rate, block_config, **kwargs)
    if pretrained:
        load_pretrained(net, 'densenet%d' % num_layers, root, ctx)
    return net


def _variant(num_layers):
    """The named constructor of one depth, e.g. ``densenet121(**kwargs)``."""
    def make(**kwargs):
        return get_densenet(num_layers, **kwargs)
    make.__name__ = make.__qualname__ = 'densenet%d' % num_layers
    make.__doc__ = 'DenseNet-%d: ``get_densenet(%d, **kwargs)``.' % (num_layers, num_layers)
    return make


densenet121, densenet161, densenet169, densenet201 = (
    _variant(n) for n in (121, 161, 169, 201))
