"""Image transforms (``mx.gluon.data.vision.transforms``), as Blocks.

A transform is a Block called on one image, usually through a dataset::

    transformer = transforms.Compose([transforms.Resize(32),
                                      transforms.ToTensor(),
                                      transforms.Normalize(0.13, 0.31)])
    train = gluon.data.vision.FashionMNIST(train=True).transform_first(transformer)

Images are NDArrays of shape (H, W, C), pixels ``uint8`` 0..255 (as the datasets give
them); :class:`ToTensor` turns them into (C, H, W) float32 tensors in [0, 1], which
:class:`Normalize` expects. The geometric transforms resample with OpenCV's arithmetic
and give MXNet 1.9.1's pixels (see :mod:`gluonedu.image.interpolation`); the colour transforms follow MXNet's
kernels.

The random transforms draw from gluonedu's generator of ``cpu(0)``, so ``mx.random.seed``
makes a run of augmentations reproducible (MXNet draws them from its own generators,
Python's ``random`` or NumPy's global generator: the distributions are the same, the
draws are not).
"""
import numbers

import numpy as np

from ...block import Block, HybridBlock
from ...nn import HybridSequential, Sequential
from ....image.geometry import center_crop, generator, random_size_crop
from . import _image

__all__ = ['Compose', 'Cast', 'ToTensor', 'Normalize', 'RandomResizedCrop', 'CropResize',
           'CenterCrop', 'Resize', 'RandomFlipLeftRight', 'RandomFlipTopBottom',
           'RandomBrightness', 'RandomContrast', 'RandomSaturation', 'RandomHue',
           'RandomColorJitter', 'RandomLighting', 'RandomApply', 'Rotate', 'RandomRotation']


class Compose(Sequential):
    """Apply ``transforms`` one after the other.

    As in MXNet, consecutive HybridBlocks are grouped into one
    :class:`~gluonedu.gluon.nn.HybridSequential` (this shows in ``print(compose)``). MXNet
    also hybridizes each group; gluonedu's image transforms compute on NDArrays (there are
    no image operators for symbols yet), so the groups run imperatively, with the same
    results.
    """

    def __init__(self, transforms):
        super().__init__()
        run = []
        for transform in list(transforms) + [None]:
            if isinstance(transform, HybridBlock):
                run.append(transform)
                continue
            if len(run) == 1:
                self.add(run[0])
            elif len(run) > 1:
                group = HybridSequential()
                for block in run:
                    group.add(block)
                self.add(group)
            run = []
            if transform is not None:
                self.add(transform)


class Cast(HybridBlock):
    """Convert the input to ``dtype`` (default 'float32')."""

    def __init__(self, dtype='float32'):
        super().__init__()
        self._dtype = dtype

    def hybrid_forward(self, F, x):
        return F.cast(x, self._dtype)


class ToTensor(HybridBlock):
    """(H, W, C) pixels in [0, 255] -> (C, H, W) float32 in [0, 1] (batches
    (N, H, W, C) -> (N, C, H, W)): ``x / 255``, channels first."""

    def hybrid_forward(self, F, x):
        return _image.to_tensor(x)


class Normalize(HybridBlock):
    """``(x[c] − mean[c]) / std[c]`` for each channel c of a (C, H, W) or (N, C, H, W)
    tensor (1 or 3 channels).

    Parameters
    ----------
    mean, std : float or tuple of floats
        One value for all channels, or one per channel.
    """

    def __init__(self, mean=0.0, std=1.0):
        super().__init__()
        self._mean = mean
        self._std = std

    def hybrid_forward(self, F, x):
        return _image.normalize(x, self._mean, self._std)


def _pair(size):
    return (size, size) if isinstance(size, numbers.Number) else tuple(size)


def _check_single_image(x, what):
    if x.ndim != 3:
        raise ValueError("%s takes one image of shape (height, width, channels), got shape "
                         "%s" % (what, x.shape))


class RandomResizedCrop(Block):
    """Crop a random area of random aspect ratio and resize it to ``size``.

    The crop covers a fraction of the image area drawn from U[scale] and has an aspect
    ratio (width / height) drawn log-uniformly from ``ratio``; up to 10 draws are tried
    until one fits, else the center crop is used (as Inception's training).

    Parameters
    ----------
    size : int or (width, height)
    scale : (float, float), default (0.08, 1.0)
    ratio : (float, float), default (3/4, 4/3)
    interpolation : int, default 1 (bilinear); see :class:`Resize`.
    """

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0), interpolation=1):
        super().__init__()
        self._size = _pair(size)
        self._scale = (scale, 1.0) if isinstance(scale, numbers.Number) else scale
        self._ratio = ratio
        self._interpolation = interpolation

    def forward(self, x):
        _check_single_image(x, 'RandomResizedCrop')
        return random_size_crop(x, self._size, self._scale, self._ratio, self._interpolation)[0]


class CropResize(HybridBlock):
    """Crop the ``width`` × ``height`` region at column ``x``, row ``y``, and optionally
    resize it to ``size`` ((width, height) or one number for both).

    Works on (H, W, C) images and (N, H, W, C) batches. ``interpolation`` defaults to
    bilinear (MXNet 1.9.1 documents that but fails on its default None).
    """

    def __init__(self, x, y, width, height, size=None, interpolation=None):
        super().__init__()
        self._x = x
        self._y = y
        self._width = width
        self._height = height
        self._size = size
        self._interpolation = 1 if interpolation is None else interpolation

    def hybrid_forward(self, F, x):
        out = _image.crop(x, self._x, self._y, self._width, self._height)
        if self._size:
            out = _image.resize(out, self._size, False, self._interpolation)
        return out


class CenterCrop(Block):
    """Crop the center of an (H, W, C) image to ``size`` ((width, height) or one number).

    An image smaller than ``size`` is cropped to the largest region of ``size``'s
    aspect ratio and enlarged.

    Parameters
    ----------
    size : int or (width, height)
    interpolation : int, default 1 (bilinear); see :class:`Resize`.
    """

    def __init__(self, size, interpolation=1):
        super().__init__()
        self._size = _pair(size)
        self._interpolation = interpolation

    def forward(self, x):
        _check_single_image(x, 'CenterCrop')
        return center_crop(x, self._size, self._interpolation)[0]


class Resize(HybridBlock):
    """Resize an (H, W, C) image or an (N, H, W, C) batch (before :class:`ToTensor`).

    Parameters
    ----------
    size : int or (width, height)
        One number resizes both sides to it, or with ``keep_ratio`` the shorter side
        (the longer one in proportion, rounded down).
    keep_ratio : bool, default False
    interpolation : int, default 1
        OpenCV's codes: 0 nearest, 1 bilinear, 2 bicubic, 3 area, 4 lanczos4.
        ``uint8``, ``float32`` and ``float64`` images can be resized.
    """

    def __init__(self, size, keep_ratio=False, interpolation=1):
        super().__init__()
        self._keep = keep_ratio
        self._size = size
        self._interpolation = interpolation

    def hybrid_forward(self, F, x):
        return _image.resize(x, self._size, self._keep, self._interpolation)


class RandomFlipLeftRight(HybridBlock):
    """Mirror an (H, W, C) image left to right with probability 0.5."""

    def hybrid_forward(self, F, x):
        _image.check_image(x, 'RandomFlipLeftRight')
        return F.flip(x, axis=1) if generator().random() < 0.5 else x.copy()


class RandomFlipTopBottom(HybridBlock):
    """Mirror an (H, W, C) image top to bottom with probability 0.5."""

    def hybrid_forward(self, F, x):
        _image.check_image(x, 'RandomFlipTopBottom')
        return F.flip(x, axis=0) if generator().random() < 0.5 else x.copy()


class _RandomAdjustment(HybridBlock):
    """Scale one colour property by a factor drawn from U[max(0, 1 − amount), 1 + amount]."""

    _kind = None

    def __init__(self, amount):
        super().__init__()
        self._args = (max(0, 1 - amount), 1 + amount)

    def hybrid_forward(self, F, x):
        alpha = float(np.float32(generator().uniform(*self._args)))
        return _image.adjust(x, [(self._kind, alpha)], type(self).__name__)


class RandomBrightness(_RandomAdjustment):
    """Multiply an (H, W, C) image by a factor drawn from
    U[max(0, 1 − brightness), 1 + brightness]."""

    _kind = 'brightness'

    def __init__(self, brightness):
        super().__init__(brightness)


class RandomContrast(_RandomAdjustment):
    """Blend an (H, W, C) image with its mean gray level: ``x·a + (1 − a)·mean gray``,
    ``a`` drawn from U[max(0, 1 − contrast), 1 + contrast]."""

    _kind = 'contrast'

    def __init__(self, contrast):
        super().__init__(contrast)


class RandomSaturation(_RandomAdjustment):
    """Blend each pixel with its gray value: ``x·a + (1 − a)·gray`` with
    gray = 0.299 R + 0.587 G + 0.114 B, ``a`` drawn from
    U[max(0, 1 − saturation), 1 + saturation]."""

    _kind = 'saturation'

    def __init__(self, saturation):
        super().__init__(saturation)


class RandomHue(_RandomAdjustment):
    """Turn every pixel's hue by ``a`` · 360 degrees (in HLS space), ``a`` drawn from
    U[max(0, 1 − hue), 1 + hue]. One-channel images are unchanged."""

    _kind = 'hue'

    def __init__(self, hue):
        super().__init__(hue)


class RandomColorJitter(HybridBlock):
    """Jitter brightness, contrast, saturation and hue, in a random order.

    Each property whose amount is positive is adjusted once: brightness, contrast and
    saturation by a factor ``1 + U[−amount, amount]``, hue by ``U[−hue, hue]`` · 360
    degrees. With all amounts 0 the image is returned unchanged.
    """

    def __init__(self, brightness=0, contrast=0, saturation=0, hue=0):
        super().__init__()
        self._args = (brightness, contrast, saturation, hue)

    def hybrid_forward(self, F, x):
        gen = generator()
        steps = []
        for which in gen.permutation(4):
            amount = self._args[which]
            if amount > 0:
                jitter = float(np.float32(gen.uniform(-amount, amount)))
                kind = ('brightness', 'contrast', 'saturation', 'hue')[which]
                steps.append((kind, jitter if kind == 'hue' else 1.0 + jitter))
        return _image.adjust(x, steps, 'RandomColorJitter')


class RandomLighting(HybridBlock):
    """AlexNet's PCA lighting noise: add ``eigvec · (α ⊙ eigval)`` of ImageNet's RGB
    covariance to every pixel, α ~ N(0, alpha²) per component (Krizhevsky et al. 2012).
    One-channel images are unchanged."""

    def __init__(self, alpha):
        super().__init__()
        self._alpha = alpha

    def hybrid_forward(self, F, x):
        alpha = generator().normal(0, self._alpha, size=3).astype(np.float32)
        return _image.adjust_lighting(x, alpha)


class RandomApply(Sequential):
    """Apply ``transforms`` (a Block) with probability ``p``, else pass the input on."""

    def __init__(self, transforms, p=0.5):
        super().__init__()
        self.transforms = transforms
        self.p = p

    def forward(self, x):
        if self.p < generator().random():
            return x
        return self.transforms(x)


class Rotate(Block):
    """Turn a (C, H, W) float32 tensor, or an (N, C, H, W) batch, by ``rotation_degrees``
    about its center, keeping its shape (use it after :class:`ToTensor`).

    Parameters
    ----------
    rotation_degrees : float
    zoom_in : bool, default False
        Enlarge the result so that no empty (zero) corner shows.
    zoom_out : bool, default False
        Shrink the result so that the whole image shows.
    """

    def __init__(self, rotation_degrees, zoom_in=False, zoom_out=False):
        super().__init__()
        self._args = (rotation_degrees, zoom_in, zoom_out)

    def forward(self, x):
        if x.dtype is not np.float32:
            raise TypeError("This transformation only supports float32. Consider calling it "
                            "after ToTensor")
        return _image.rotate(x, *self._args)


class RandomRotation(Block):
    """With probability ``rotate_with_proba``, turn a float32 tensor (or each image of a
    batch) by an angle drawn from U[angle_limits] degrees; see :class:`Rotate`.

    Parameters
    ----------
    angle_limits : (float, float)
        The lower and upper angle, lower < upper.
    zoom_in, zoom_out : bool, default False
    rotate_with_proba : float, default 1.0
    """

    def __init__(self, angle_limits, zoom_in=False, zoom_out=False, rotate_with_proba=1.0):
        super().__init__()
        lower, upper = angle_limits
        if lower >= upper:
            raise ValueError("`angle_limits` must be an ordered tuple (lower, upper), got %r"
                             % (angle_limits,))
        if rotate_with_proba < 0 or rotate_with_proba > 1:
            raise ValueError("Probability of rotating the image should be between 0 and 1, "
                             "got %r" % (rotate_with_proba,))
        self._limits = (lower, upper)
        self._zoom = (zoom_in, zoom_out)
        self._rotate_with_proba = rotate_with_proba

    def forward(self, x):
        gen = generator()
        if gen.random() > self._rotate_with_proba:
            return x
        if x.dtype is not np.float32:
            raise TypeError("This transformation only supports float32. Consider calling it "
                            "after ToTensor")
        angles = gen.uniform(*self._limits, size=None if x.ndim == 3 else x.shape[0])
        return _image.rotate(x, angles if x.ndim != 3 else float(angles), *self._zoom)
