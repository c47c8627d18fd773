"""``mx.gluon.model_zoo.vision``: image classification networks, as MXNet 1.9.1 builds them.

AlexNet, VGG 11/13/16/19 (with and without BatchNorm), ResNet v1/v2 18–152, MobileNet
v1/v2, SqueezeNet 1.0/1.1, DenseNet 121–201 and Inception v3 have MXNet's layers and
parameter names, so weights saved from one load into the other. :class:`LeNet` is
gluonedu's own (MXNet's zoo has none): LeCun et al.'s small network for digit images,
the one the curriculum trains on the 8×8 digits.

``get_model(name, pretrained=False, classes=1000, ctx=cpu(), root=...)`` makes any of
them by name.
"""
from .alexnet import *  # noqa: F401,F403
from .densenet import *  # noqa: F401,F403
from .inception import *  # noqa: F401,F403
from .lenet import *  # noqa: F401,F403
from .mobilenet import *  # noqa: F401,F403
from .resnet import *  # noqa: F401,F403
from .squeezenet import *  # noqa: F401,F403
from .vgg import *  # noqa: F401,F403

_MODELS = {
    'resnet18_v1': resnet18_v1, 'resnet34_v1': resnet34_v1, 'resnet50_v1': resnet50_v1,
    'resnet101_v1': resnet101_v1, 'resnet152_v1': resnet152_v1,
    'resnet18_v2': resnet18_v2, 'resnet34_v2': resnet34_v2, 'resnet50_v2': resnet50_v2,
    'resnet101_v2': resnet101_v2, 'resnet152_v2': resnet152_v2,
    'vgg11': vgg11, 'vgg13': vgg13, 'vgg16': vgg16, 'vgg19': vgg19,
    'vgg11_bn': vgg11_bn, 'vgg13_bn': vgg13_bn, 'vgg16_bn': vgg16_bn, 'vgg19_bn': vgg19_bn,
    'alexnet': alexnet, 'densenet121': densenet121, 'densenet161': densenet161,
    'densenet169': densenet169, 'densenet201': densenet201,
    'squeezenet1.0': squeezenet1_0, 'squeezenet1.1': squeezenet1_1, 'inceptionv3': inception_v3,
    'mobilenet1.0': mobilenet1_0, 'mobilenet0.75': mobilenet0_75, 'mobilenet0.5': mobilenet0_5,
    'mobilenet0.25': mobilenet0_25, 'mobilenetv2_1.0': mobilenet_v2_1_0,
    'mobilenetv2_0.75': mobilenet_v2_0_75, 'mobilenetv2_0.5': mobilenet_v2_0_5,
    'mobilenetv2_0.25': mobilenet_v2_0_25, 'lenet': lenet,
}


def get_model(name, **kwargs):
    """The model called ``name`` (case-insensitive), made with ``kwargs``.

    Parameters
    ----------
    name : str
        e.g. 'resnet18_v1', 'vgg16_bn', 'mobilenetv2_1.0', 'lenet'.
    pretrained : bool, default False
        Load weights from MXNet's model store on disk (see :mod:`..model_store`).
    classes : int, default 1000
        Number of classes of the output layer.
    ctx : Context, default cpu()
        Where to load the pretrained weights.
    root : str, default '$MXNET_HOME/models'
        The model store.
    """
    name = name.lower()
    if name not in _MODELS:
        raise ValueError('Model %s is not supported. Available options are\n\t%s'
                         % (name, '\n\t'.join(sorted(_MODELS))))
    return _MODELS[name](**kwargs)
