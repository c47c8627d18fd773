"""``mx.image``: read, resize, crop and augment images, as MXNet 1.9.1's ``mxnet.image``.

Images are NDArrays of shape (height, width, channels), ``uint8`` pixels 0..255 in RGB
order as :func:`imdecode` and :func:`imread` give them; sizes are (width, height).

=======================  =============================================================
module                   what it holds
=======================  =============================================================
:mod:`.codec`            :func:`imdecode`, :func:`imread` (Pillow, converted as OpenCV)
:mod:`.interpolation`    OpenCV 3.4.2's ``cv::resize`` in NumPy, each interpolation's
                         formula
:mod:`.geometry`         :func:`imresize`, :func:`resize_short`, the crops,
                         :func:`scale_down`
:mod:`.color`            :func:`color_normalize`
:mod:`.augmenters`       the augmenters and :func:`CreateAugmenter`
:mod:`.iterator`         :class:`ImageIter`, batches from a folder and a ``.lst`` file
=======================  =============================================================
"""
from .augmenters import *  # noqa: F401,F403
from .augmenters import __all__ as _augmenters_all
from .codec import imdecode, imread
from .color import color_normalize
from .geometry import (center_crop, fixed_crop, imresize, random_crop, random_size_crop,
                       resize_short, scale_down)
from .iterator import ImageIter

__all__ = ['imdecode', 'imread', 'imresize', 'resize_short', 'fixed_crop', 'random_crop',
           'center_crop', 'random_size_crop', 'scale_down', 'color_normalize',
           'ImageIter'] + list(_augmenters_all)
