"""Resizing and cropping (H, W, C) images: ``mx.image.imresize``, ``resize_short``, the crops.

An image is an NDArray of shape (height, width, channels), ``uint8`` pixels as
:func:`~gluonedu.image.imdecode` gives them (``float32`` and ``float64`` images can be
resized too). Sizes are given as (width, height), as in MXNet and OpenCV; crop rectangles as
(x0, y0, width, height), x0 the column and y0 the row of the top-left corner.

Resizing follows OpenCV 3.4.2's ``cv::resize`` (see :mod:`.interpolation`), so the
pixels are MXNet 1.9.1's. The random crops draw from gluonedu's generator of ``cpu(0)``,
so ``mx.random.seed`` makes them reproducible (MXNet draws from Python's ``random``: the
distributions are the same, the draws are not).
"""
import numbers

import numpy as np

from ..base import MXNetError
from ..context import cpu
from ..ndarray import NDArray
from ..ndarray.random import random_state
from . import interpolation
from .output import as_result

__all__ = ['imresize', 'resize_short', 'fixed_crop', 'random_crop', 'center_crop',
           'random_size_crop', 'scale_down']

#: The interpolation codes of the cropping and resizing functions: OpenCV's 0..4, plus
#: 9 (chosen by the direction of the resize) and 10 (one of 0..4 at random).
AUTO_INTERP, RANDOM_INTERP = 9, 10


def generator():
    """Augmentation runs on the host: its draws come from cpu(0)'s seeded generator."""
    return random_state(cpu())


def pick_interp(interp, sizes=()):
    """The OpenCV interpolation (0..4) that ``interp`` stands for.

    9 picks by the direction of the resize, ``sizes`` = (old_height, old_width,
    new_height, new_width): bicubic (2) to enlarge both sides, area (3) to shrink both,
    bilinear (1) otherwise, and bicubic without ``sizes``. 10 picks one of 0..4 at
    random. Anything else but 0..4 raises ValueError.
    """
    if interp == AUTO_INTERP:
        if not sizes:
            return 2
        old_h, old_w, new_h, new_w = sizes
        if new_h > old_h and new_w > old_w:
            return 2
        if new_h < old_h and new_w < old_w:
            return 3
        return 1
    if interp == RANDOM_INTERP:
        return int(generator().integers(0, 5))
    if interp not in interpolation.INTERPOLATIONS:
        raise ValueError('Unknown interp method %r: use 0 (nearest), 1 (bilinear), '
                         '2 (bicubic), 3 (area), 4 (lanczos4), 9 (by the direction of the '
                         'resize) or 10 (one of 0-4 at random)' % (interp,))
    return interp


def _check_image(src, what):
    if not isinstance(src, NDArray):
        raise AssertionError('%s: src must be an NDArray of shape (height, width, channels), '
                             'got %s; convert it with mx.nd.array(..., dtype=\'uint8\')'
                             % (what, type(src).__name__))
    if src.ndim != 3:
        raise MXNetError('%s: src must have shape (height, width, channels), got %s; add a '
                         'channel axis to a gray image with expand_dims(axis=2)'
                         % (what, src.shape))


def _check_size(name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise MXNetError('imresize: %s must be an int, got %r' % (name, value))
    if value < 1:
        raise MXNetError('imresize: %s must be at least 1, got %d' % (name, value))


def imresize(src, w, h, interp=1, out=None):
    """``src`` resized to ``w`` × ``h`` pixels with OpenCV's ``cv::resize``.

    Parameters
    ----------
    src : NDArray
        An image (height, width, channels) of dtype uint8, float32 or float64.
    w, h : int
        The new width and height, at least 1.
    interp : int, default 1
        0 nearest, 1 bilinear, 2 bicubic, 3 area, 4 Lanczos (over 8 × 8 pixels); the
        formulas are in :mod:`gluonedu.image.interpolation`. Unlike the crops, imresize
        takes no 9 or 10.
    out : NDArray, optional
        An array of shape (h, w, channels) and src's dtype to write the result into.

    Returns
    -------
    NDArray
        The resized image, on src's context.
    """
    _check_image(src, 'imresize')
    _check_size('w', w)
    _check_size('h', h)
    if interp not in interpolation.INTERPOLATIONS:
        raise MXNetError('imresize: unknown interpolation %r: use 0 (nearest), 1 (bilinear), '
                         '2 (bicubic), 3 (area) or 4 (lanczos4)' % (interp,))
    pixels = interpolation.resize(src.asnumpy(), w, h, interp)
    return as_result(pixels, src.context, out, 'imresize')


def resize_short(src, size, interp=2):
    """``src`` resized so that its shorter side is ``size``, keeping its aspect ratio.

    The longer side becomes ``size · long // short`` (rounded down); ``interp`` is one of
    0..4, 9 or 10 (see :func:`pick_interp`). Default: bicubic.
    """
    height, width, _ = src.shape
    if height > width:
        new_h, new_w = size * height // width, size
    else:
        new_h, new_w = size, size * width // height
    return imresize(src, new_w, new_h, interp=pick_interp(interp, (height, width, new_h, new_w)))


def fixed_crop(src, x0, y0, w, h, size=None, interp=2):
    """The ``w`` × ``h`` region of ``src`` at column ``x0``, row ``y0``, resized to
    ``size`` = (width, height) when given and different.

    Like a slice, a region reaching past the image's right or bottom edge is cut there.
    ``interp``: 0..4, 9 or 10 (see :func:`pick_interp`).
    """
    out = src[y0:y0 + h, x0:x0 + w]
    if out.size == 0:
        raise MXNetError('fixed_crop: the region x0=%d, y0=%d, w=%d, h=%d holds no pixel of '
                         'an image of width %d and height %d' % (x0, y0, w, h, src.shape[1],
                                                                 src.shape[0]))
    if size is not None and (w, h) != tuple(size):
        sizes = (h, w, size[1], size[0])
        out = imresize(out, size[0], size[1], interp=pick_interp(interp, sizes))
    return out


def scale_down(src_size, size):
    """``size`` = (w, h) shrunk, keeping its aspect ratio, until it fits in ``src_size``
    = (width, height); each side rounded down to an int."""
    w, h = size
    src_w, src_h = src_size
    if src_h < h:
        w, h = float(w * src_h) / h, src_h
    if src_w < w:
        w, h = src_w, float(h * src_w) / w
    return int(w), int(h)


def random_crop(src, size, interp=2):
    """A region of ``size`` = (width, height) at a uniformly random place in ``src``.

    An image smaller than ``size`` gives the largest region of ``size``'s aspect ratio
    (see :func:`scale_down`), enlarged to ``size``.

    Returns
    -------
    NDArray
        The crop, of ``size``.
    tuple
        (x0, y0, width, height) of the region in ``src``.
    """
    height, width, _ = src.shape
    new_w, new_h = scale_down((width, height), size)
    gen = generator()
    x0 = int(gen.integers(0, width - new_w + 1))
    y0 = int(gen.integers(0, height - new_h + 1))
    return fixed_crop(src, x0, y0, new_w, new_h, size, interp), (x0, y0, new_w, new_h)


def center_crop(src, size, interp=2):
    """The region of ``size`` = (width, height) at the center of ``src``.

    The corner is ``x0 = int((width − w) / 2)``, ``y0 = int((height − h) / 2)``. An image
    smaller than ``size`` gives the largest region of ``size``'s aspect ratio (see
    :func:`scale_down`), enlarged to ``size``.

    Returns
    -------
    NDArray
        The crop, of ``size``.
    tuple
        (x0, y0, width, height) of the region in ``src``.
    """
    height, width, _ = src.shape
    new_w, new_h = scale_down((width, height), size)
    x0, y0 = int((width - new_w) / 2), int((height - new_h) / 2)
    return fixed_crop(src, x0, y0, new_w, new_h, size, interp), (x0, y0, new_w, new_h)


def random_size_crop(src, size, area, ratio, interp=2):
    """A region of random area and aspect ratio, resized to ``size`` = (width, height).

    Up to 10 draws: the region's area is ``U(area) · width · height`` (``area`` a
    (min, max) pair, or one number: (area, 1.0)), its aspect ratio w / h is drawn
    log-uniformly from ``ratio`` = (min, max); the first region that fits is taken at a
    random place. When none fits, :func:`center_crop`.

    Returns
    -------
    NDArray
        The crop, of ``size``.
    tuple
        (x0, y0, width, height) of the region in ``src``.
    """
    height, width, _ = src.shape
    if isinstance(area, numbers.Number):
        area = (area, 1.0)
    gen = generator()
    log_ratio = (np.log(ratio[0]), np.log(ratio[1]))
    for _ in range(10):
        target_area = gen.uniform(area[0], area[1]) * height * width
        aspect = np.exp(gen.uniform(*log_ratio))
        new_w = int(round(np.sqrt(target_area * aspect)))
        new_h = int(round(np.sqrt(target_area / aspect)))
        if new_w <= width and new_h <= height:
            x0 = int(gen.integers(0, width - new_w + 1))
            y0 = int(gen.integers(0, height - new_h + 1))
            return fixed_crop(src, x0, y0, new_w, new_h, size, interp), (x0, y0, new_w, new_h)
    return center_crop(src, size, interp)
