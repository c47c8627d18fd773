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


def _variant(num_layers, batch_norm):
    """The named constructor of one depth, e.g. ``vgg16_bn(**kwargs)``."""
    def make(**kwargs):
        if batch_norm:
            kwargs['batch_norm'] = True
        return get_vgg(num_layers, **kwargs)
    make.__name__ = make.__qualname__ = 'vgg%d%s' % (num_layers, '_bn' if batch_norm else '')
    make.__doc__ = 'VGG-%d%s: ``get_vgg(%d, **kwargs)``.' % (
        num_layers, ' with BatchNorm' if batch_norm else '', num_layers)
    return make


vgg11, vgg13, vgg16, vgg19 = (_variant(n, False) for n in (11, 13, 16, 19))
vgg11_bn, vgg13_bn, vgg16_bn, vgg19_bn = (_variant(n, True) for n in (11, 13, 16, 19))
