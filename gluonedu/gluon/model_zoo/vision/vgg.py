"""VGG (Simonyan & Zisserman, 2014): stacks of 3×3 convolutions, optionally with BatchNorm."""
from .... import initializer
from ... import nn
from ...block import HybridBlock
from ..model_store import load_pretrained

__all__ = ['VGG', 'vgg11', 'vgg13', 'vgg16', 'vgg19', 'vgg11_bn', 'vgg13_bn', 'vgg16_bn',
           'vgg19_bn', 'get_vgg']

#: depth -> (convolutions per stage, channels per stage)
vgg_spec = {11: ([1, 1, 2, 2, 2], [64, 128, 256, 512, 512]),
            13: ([2, 2, 2, 2, 2], [64, 128, 256, 512, 512]),
            16: ([2, 2, 3, 3, 3], [64, 128, 256, 512, 512]),
            19: ([2, 2, 4, 4, 4], [64, 128, 256, 512, 512])}


class VGG(HybridBlock):
    """VGG: stages of 3×3 convolutions (each followed by max pooling), two dense layers.

    Parameters
    ----------
    layers : list of int
        Convolutions in each stage.
    filters : list of int
        Channels of each stage.
    classes : int, default 1000
    batch_norm : bool, default False
        A BatchNorm after every convolution.
    """

    def __init__(self, layers, filters, classes=1000, batch_norm=False, **kwargs):
        super().__init__(**kwargs)
        assert len(layers) == len(filters)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix='')
            for num, channels in zip(layers, filters):
                for _ in range(num):
                    self.features.add(nn.Conv2D(
                        channels, kernel_size=3, padding=1, bias_initializer='zeros',
                        weight_initializer=initializer.Xavier(rnd_type='gaussian',
                                                              factor_type='out', magnitude=2)))
                    if batch_norm:
                        self.features.add(nn.BatchNorm())
                    self.features.add(nn.Activation('relu'))
                self.features.add(nn.MaxPool2D(strides=2))
            for _ in range(2):
                self.features.add(nn.Dense(4096, activation='relu', weight_initializer='normal',
                                           bias_initializer='zeros'),
                                  nn.Dropout(rate=0.5))
            self.output = nn.Dense(classes, weight_initializer='normal',
                                   bias_initializer='zeros')

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def get_vgg(num_layers, pretrained=False, ctx=None, root=None, **kwargs):
    """VGG of depth ``num_layers`` (11, 13, 16 or 19); ``batch_norm=True`` for the _bn ones."""
    layers, filters = vgg_spec[num_layers]
    net = VGG(layers, filters, **kwargs)
    if pretrained:
        load_pretrained(net, 'vgg%d%s' % (num_layers, '_bn' if kwargs.get('batch_norm') else ''),
                        root, ctx)
    return net


def vgg11(**kwargs):
    """VGG-11."""
    return get_vgg(11, **kwargs)


def vgg13(**kwargs):
    """VGG-13."""
    return get_vgg(13, **kwargs)


def vgg16(**kwargs):
    """VGG-16."""
    return get_vgg(16, **kwargs)


def vgg19(**kwargs):
    """VGG-19."""
    return get_vgg(19, **kwargs)


def vgg11_bn(**kwargs):
    """VGG-11 with BatchNorm."""
    return get_vgg(11, batch_norm=True, **kwargs)


def vgg13_bn(**kwargs):
    """VGG-13 with BatchNorm."""
    return get_vgg(13, batch_norm=True, **kwargs)


def vgg16_bn(**kwargs):
    """VGG-16 with BatchNorm."""
    return get_vgg(16, batch_norm=True, **kwargs)


def vgg19_bn(**kwargs):
    """VGG-19 with BatchNorm."""
    return get_vgg(19, batch_norm=True, **kwargs)
