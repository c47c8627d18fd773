"""Augmenters: callables that turn one (H, W, C) image into another, and
:func:`CreateAugmenter`, the list ``ImageIter`` applies by default.

Each augmenter keeps its arguments (``dumps()`` gives them as JSON, as in MXNet). The
geometric ones resize with OpenCV's arithmetic (:mod:`.geometry`); :class:`CastAug`
turns the uint8 pixels into float32, after which the colour augmenters and
:class:`ColorNormalizeAug` compute in place on the NDArray. The random ones draw from
gluonedu's generator of ``cpu(0)`` (``mx.random.seed``), where MXNet draws from Python's
``random`` and NumPy's global generator.
"""
import json

import numpy as np

from .. import ndarray as nd
from ..ndarray import NDArray
from .color import color_normalize
from .geometry import (center_crop, generator, imresize, pick_interp, random_crop,
                       random_size_crop, resize_short)

__all__ = ['Augmenter', 'SequentialAug', 'RandomOrderAug', 'ResizeAug', 'ForceResizeAug',
           'RandomCropAug', 'RandomSizedCropAug', 'CenterCropAug', 'BrightnessJitterAug',
           'ContrastJitterAug', 'SaturationJitterAug', 'HueJitterAug', 'ColorJitterAug',
           'LightingAug', 'ColorNormalizeAug', 'RandomGrayAug', 'HorizontalFlipAug', 'CastAug',
           'CreateAugmenter']

_GRAY = [[[0.299, 0.587, 0.114]]]    # ITU-R 601 luma weights, as MXNet's jitters use them


class Augmenter:
    """The base augmenter: keeps its keyword arguments for :meth:`dumps`."""

    def __init__(self, **kwargs):
        self._kwargs = {name: value.asnumpy().tolist() if isinstance(value, NDArray)
                        else value.tolist() if isinstance(value, np.ndarray) else value
                        for name, value in kwargs.items()}

    def dumps(self):
        """The augmenter as a JSON string: ``["<class name, lower case>", {arguments}]``."""
        return json.dumps([self.__class__.__name__.lower(), self._kwargs])

    def __call__(self, src):
        raise NotImplementedError('%s must define __call__(src), returning the augmented '
                                  'image' % self.__class__.__name__)


class SequentialAug(Augmenter):
    """Apply the augmenters ``ts`` one after the other."""

    def __init__(self, ts):
        super().__init__()
        self.ts = ts

    def dumps(self):
        """``["sequentialaug", [each augmenter's dumps()]]`` (a list, not a string)."""
        return [self.__class__.__name__.lower(), [t.dumps() for t in self.ts]]

    def __call__(self, src):
        for aug in self.ts:
            src = aug(src)
        return src


class RandomOrderAug(SequentialAug):
    """Apply the augmenters ``ts`` in a random order (shuffled in place at each call)."""

    def __call__(self, src):
        order = generator().permutation(len(self.ts))
        self.ts[:] = [self.ts[i] for i in order]
        return super().__call__(src)


class ResizeAug(Augmenter):
    """Resize the shorter side to ``size``, keeping the aspect ratio (:func:`resize_short`)."""

    def __init__(self, size, interp=2):
        super().__init__(size=size, interp=interp)
        self.size = size
        self.interp = interp

    def __call__(self, src):
        return resize_short(src, self.size, self.interp)


class ForceResizeAug(Augmenter):
    """Resize to ``size`` = (width, height), whatever the aspect ratio."""

    def __init__(self, size, interp=2):
        super().__init__(size=size, interp=interp)
        self.size = size
        self.interp = interp

    def __call__(self, src):
        sizes = (src.shape[0], src.shape[1], self.size[1], self.size[0])
        return imresize(src, self.size[0], self.size[1], interp=pick_interp(self.interp, sizes))


class RandomCropAug(Augmenter):
    """Crop ``size`` = (width, height) at a random place (:func:`random_crop`)."""

    def __init__(self, size, interp=2):
        super().__init__(size=size, interp=interp)
        self.size = size
        self.interp = interp

    def __call__(self, src):
        return random_crop(src, self.size, self.interp)[0]


class RandomSizedCropAug(Augmenter):
    """Crop a random area and aspect ratio, resized to ``size`` (:func:`random_size_crop`)."""

    def __init__(self, size, area, ratio, interp=2):
        super().__init__(size=size, area=area, ratio=ratio, interp=interp)
        self.size = size
        self.area = area
        self.ratio = ratio
        self.interp = interp

    def __call__(self, src):
        return random_size_crop(src, self.size, self.area, self.ratio, self.interp)[0]


class CenterCropAug(Augmenter):
    """Crop ``size`` = (width, height) at the center (:func:`center_crop`)."""

    def __init__(self, size, interp=2):
        super().__init__(size=size, interp=interp)
        self.size = size
        self.interp = interp

    def __call__(self, src):
        return center_crop(src, self.size, self.interp)[0]


class BrightnessJitterAug(Augmenter):
    """``src · alpha``, alpha drawn from U(1 − brightness, 1 + brightness), in place."""

    def __init__(self, brightness):
        super().__init__(brightness=brightness)
        self.brightness = brightness

    def __call__(self, src):
        src *= 1.0 + generator().uniform(-self.brightness, self.brightness)
        return src


class ContrastJitterAug(Augmenter):
    """``src · alpha + (1 − alpha) · mean gray``, alpha from U(1 ± contrast), in place
    (gray = 0.299 R + 0.587 G + 0.114 B)."""

    def __init__(self, contrast):
        super().__init__(contrast=contrast)
        self.contrast = contrast
        self.coef = nd.array(_GRAY)

    def __call__(self, src):
        alpha = 1.0 + generator().uniform(-self.contrast, self.contrast)
        gray = src * self.coef
        gray = (3.0 * (1.0 - alpha) / gray.size) * nd.sum(gray)
        src *= alpha
        src += gray
        return src


class SaturationJitterAug(Augmenter):
    """``src · alpha + (1 − alpha) · gray`` per pixel, alpha from U(1 ± saturation), in
    place."""

    def __init__(self, saturation):
        super().__init__(saturation=saturation)
        self.saturation = saturation
        self.coef = nd.array(_GRAY)

    def __call__(self, src):
        alpha = 1.0 + generator().uniform(-self.saturation, self.saturation)
        gray = nd.sum(src * self.coef, axis=2, keepdims=True)
        gray *= 1.0 - alpha
        src *= alpha
        src += gray
        return src


class HueJitterAug(Augmenter):
    """Turn each pixel's hue by ``alpha · 180`` degrees, alpha from U(−hue, hue): a
    rotation of the (I, Q) plane of YIQ space, ``src · (YIQ⁻¹ · R(alpha) · YIQ)ᵀ``."""

    _TYIQ = np.array([[0.299, 0.587, 0.114], [0.596, -0.274, -0.321],
                      [0.211, -0.523, 0.311]])
    _ITYIQ = np.array([[1.0, 0.956, 0.621], [1.0, -0.272, -0.647], [1.0, -1.107, 1.705]])

    def __init__(self, hue):
        super().__init__(hue=hue)
        self.hue = hue

    def __call__(self, src):
        alpha = generator().uniform(-self.hue, self.hue)
        u, w = np.cos(alpha * np.pi), np.sin(alpha * np.pi)
        turn = np.array([[1.0, 0.0, 0.0], [0.0, u, -w], [0.0, w, u]])
        return nd.dot(src, nd.array(np.dot(np.dot(self._ITYIQ, turn), self._TYIQ).T))


class ColorJitterAug(RandomOrderAug):
    """Brightness, contrast and saturation jitter (those > 0), in a random order."""

    def __init__(self, brightness, contrast, saturation):
        jitters = [cls(amount) for cls, amount in ((BrightnessJitterAug, brightness),
                                                    (ContrastJitterAug, contrast),
                                                    (SaturationJitterAug, saturation))
                   if amount > 0]
        super().__init__(jitters)


class LightingAug(Augmenter):
    """AlexNet's PCA lighting noise: ``src + eigvec · (alpha ⊙ eigval)``, alpha drawn from
    N(0, alphastd²) per component, in place."""

    def __init__(self, alphastd, eigval, eigvec):
        super().__init__(alphastd=alphastd, eigval=eigval, eigvec=eigvec)
        self.alphastd = alphastd
        self.eigval = eigval
        self.eigvec = eigvec

    def __call__(self, src):
        alpha = generator().normal(0, self.alphastd, size=(3,))
        src += nd.array(np.dot(self.eigvec * alpha, self.eigval))
        return src


class ColorNormalizeAug(Augmenter):
    """``(src − mean) / std`` per channel, in place (:func:`color_normalize`)."""

    def __init__(self, mean, std):
        super().__init__(mean=mean, std=std)
        self.mean = mean if mean is None or isinstance(mean, NDArray) else nd.array(mean)
        self.std = std if std is None or isinstance(std, NDArray) else nd.array(std)

    def __call__(self, src):
        return color_normalize(src, self.mean, self.std)


class RandomGrayAug(Augmenter):
    """With probability ``p``, every channel becomes 0.21 R + 0.72 G + 0.07 B."""

    def __init__(self, p):
        super().__init__(p=p)
        self.p = p
        self.mat = nd.array([[0.21, 0.21, 0.21], [0.72, 0.72, 0.72], [0.07, 0.07, 0.07]])

    def __call__(self, src):
        if generator().random() < self.p:
            src = nd.dot(src, self.mat)
        return src


class HorizontalFlipAug(Augmenter):
    """With probability ``p``, mirror the image left to right."""

    def __init__(self, p):
        super().__init__(p=p)
        self.p = p

    def __call__(self, src):
        if generator().random() < self.p:
            src = nd.flip(src, axis=1)
        return src


class CastAug(Augmenter):
    """Convert the image to ``typ`` (float32)."""

    def __init__(self, typ='float32'):
        super().__init__(type=typ)
        self.typ = typ

    def __call__(self, src):
        return src.astype(self.typ)


#: ImageNet's RGB mean and standard deviation, the values of ``mean=True``, ``std=True``.
IMAGENET_MEAN = (123.68, 116.28, 103.53)
IMAGENET_STD = (58.395, 57.12, 57.375)
#: AlexNet's PCA of ImageNet's RGB pixels, for ``pca_noise``.
PCA_EIGVAL = np.array([55.46, 4.794, 1.148])
PCA_EIGVEC = np.array([[-0.5675, 0.7192, 0.4009],
                       [-0.5808, -0.0045, -0.8140],
                       [-0.5836, -0.6948, 0.4203]])


def CreateAugmenter(data_shape, resize=0, rand_crop=False, rand_resize=False,  # noqa: N802
                    rand_mirror=False, mean=None, std=None, brightness=0, contrast=0,
                    saturation=0, hue=0, pca_noise=0, rand_gray=0, inter_method=2):
    """The augmenter list of an ``ImageIter``, in the order they apply.

    Parameters
    ----------
    data_shape : tuple of int
        (channels, height, width) of the images produced.
    resize : int
        If > 0, first resize the shorter side to it.
    rand_crop : bool
        Crop at a random place (else at the center) to data_shape's width × height.
    rand_resize : bool
        Crop a random area (8 % to 100 %) and aspect ratio (3/4 to 4/3) instead; needs
        rand_crop.
    rand_mirror : bool
        Mirror left to right with probability 0.5.
    mean, std : True, numpy.ndarray or NDArray, optional
        Per-channel mean to subtract and standard deviation to divide by (1 or 3
        values); True means ImageNet's.
    brightness, contrast, saturation, hue : float
        Ranges of the colour jitters (0: none).
    pca_noise : float
        Standard deviation of AlexNet's PCA lighting noise (0: none).
    rand_gray : float
        Probability of turning the image gray (keeping three channels).
    inter_method : int
        Interpolation of the resizes: 0..4, 9 (by the direction of the resize) or 10
        (random); see :func:`gluonedu.image.geometry.pick_interp`.

    Returns
    -------
    list of Augmenter
    """
    auglist = []
    if resize > 0:
        auglist.append(ResizeAug(resize, inter_method))
    crop_size = (data_shape[2], data_shape[1])
    if rand_resize:
        if not rand_crop:
            raise AssertionError('CreateAugmenter: rand_resize needs rand_crop=True')
        auglist.append(RandomSizedCropAug(crop_size, 0.08, (3.0 / 4.0, 4.0 / 3.0),
                                          inter_method))
    elif rand_crop:
        auglist.append(RandomCropAug(crop_size, inter_method))
    else:
        auglist.append(CenterCropAug(crop_size, inter_method))
    if rand_mirror:
        auglist.append(HorizontalFlipAug(0.5))
    auglist.append(CastAug())
    if brightness or contrast or saturation:
        auglist.append(ColorJitterAug(brightness, contrast, saturation))
    if hue:
        auglist.append(HueJitterAug(hue))
    if pca_noise > 0:
        auglist.append(LightingAug(pca_noise, PCA_EIGVAL, PCA_EIGVEC))
    if rand_gray > 0:
        auglist.append(RandomGrayAug(rand_gray))
    mean = nd.array(IMAGENET_MEAN) if mean is True else _channel_values('mean', mean)
    std = nd.array(IMAGENET_STD) if std is True else _channel_values('std', std)
    if mean is not None or std is not None:
        auglist.append(ColorNormalizeAug(mean, std))
    return auglist


def _channel_values(name, values):
    if values is None:
        return None
    if not isinstance(values, (np.ndarray, NDArray)) or values.shape[0] not in (1, 3):
        raise AssertionError('CreateAugmenter: %s must be True, or a numpy array or NDArray '
                             'of 1 or 3 values (one per channel), got %r' % (name, values))
    return values
