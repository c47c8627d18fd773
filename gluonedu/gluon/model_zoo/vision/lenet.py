"""LeNet (LeCun, Bottou, Bengio & Haffner, 1998), gluonedu's addition to the zoo.

Two convolution + pooling stages, then three dense layers: the network that read
handwritten digits. The defaults are d2l.ai's LeNet-5 for 28×28 images (5×5 kernels,
the first padded by 2, max pooling, ReLU); ``kernel_size=3, padding=1`` fits the
8×8 digits of ``mx.data.digits`` (8×8 → 4×4 → 2×2). ``batch_norm=True`` puts a
BatchNorm after every convolution and hidden dense layer (d2l's "LeNet with BatchNorm").
"""
from ... import nn
from ...block import HybridBlock
from ..model_store import load_pretrained

__all__ = ['LeNet', 'lenet']


class LeNet(HybridBlock):
    """LeNet-5: conv(6), pool, conv(16), pool, dense(120), dense(84), dense(classes).

    Parameters
    ----------
    classes : int, default 10
    kernel_size : int, default 5
    padding : int, default 2
        Padding of the first convolution (the second has ``padding - 2``, at least 0,
        so that 28×28 inputs give the classic 16×5×5 features).
    batch_norm : bool, default False
    activation : str, default 'relu'
        LeCun's original used 'sigmoid'/'tanh'.
    """

    def __init__(self, classes=10, kernel_size=5, padding=2, batch_norm=False,
                 activation='relu', **kwargs):
        super().__init__(**kwargs)
        second_padding = max(padding - 2, 0) if kernel_size == 5 else padding
        with self.name_scope():
            self.features = nn.HybridSequential(prefix='')
            with self.features.name_scope():
                for channels, pad in ((6, padding), (16, second_padding)):
                    self.features.add(nn.Conv2D(channels, kernel_size, padding=pad))
                    self._normalize_and_activate(batch_norm, activation)
                    self.features.add(nn.MaxPool2D(pool_size=2, strides=2))
                self.features.add(nn.Flatten())
                for units in (120, 84):
                    self.features.add(nn.Dense(units))
                    self._normalize_and_activate(batch_norm, activation)
            self.output = nn.Dense(classes)

    def _normalize_and_activate(self, batch_norm, activation):
        if batch_norm:
            self.features.add(nn.BatchNorm())
        self.features.add(nn.Activation(activation))

    def hybrid_forward(self, F, x):
        return self.output(self.features(x))


def lenet(pretrained=False, ctx=None, root=None, **kwargs):
    """LeNet (no pretrained weights exist: ``pretrained=True`` raises)."""
    net = LeNet(**kwargs)
    if pretrained:
        load_pretrained(net, 'lenet', root, ctx)
    return net
