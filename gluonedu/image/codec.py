"""Decoding image files into (H, W, C) uint8 NDArrays: ``mx.image.imdecode`` and ``imread``.

MXNet decodes with OpenCV 3.4.2 (libpng, libjpeg); gluonedu decodes with Pillow and
converts the pixels as OpenCV does, so the arrays are MXNet 1.9.1's:

* colour (``flag`` 1): RGB, or BGR with ``to_rgb=False``; an alpha channel is dropped,
  gray and palette images are expanded to three channels, 16-bit PNGs keep the high
  byte of each value, CMYK JPEGs are converted with OpenCV's formula
  ``R = K − (255 − C) · K >> 8`` (on the stored, Adobe-inverted values);
* gray (``flag`` 0), shape (H, W, 1), by format as OpenCV's decoders make it:

  ====  ==============================================================================
  JPEG  libjpeg's luma channel (Y of YCbCr), decoded directly
  PNG   libpng's ``(9797 R + 19234 G + 3737 B) >> 15`` (15-bit fixed point, truncated;
        16-bit images ``(… + 16384) >> 15`` then the high byte)
  BMP,  OpenCV's ``(4899 R + 9617 G + 1868 B + 8192) >> 14`` (14-bit, rounded)
  TIFF
  ====  ==============================================================================

The formats are those MXNet's OpenCV reads: PNG, JPEG, BMP and TIFF (GIF, WebP and the
others raise MXNetError, as in MXNet). EXIF orientation is not applied (MXNet does not
apply it either). Bytes that do not decode raise MXNetError; a file that cannot be read
raises MXNetError naming it.
"""
import io

import numpy as np

from .. import ndarray as nd
from ..base import MXNetError
from ..ndarray import NDArray
from .output import as_result

__all__ = ['imdecode', 'imread']

FORMATS = ('PNG', 'JPEG', 'BMP', 'TIFF')
_SIXTEEN_BIT_GRAY = ('I;16', 'I;16B', 'I;16L', 'I')


def imdecode(buf, flag=1, to_rgb=True, out=None):
    """Decode an encoded image (the bytes of a PNG, JPEG, BMP or TIFF file).

    Parameters
    ----------
    buf : bytes, bytearray, numpy.ndarray or NDArray
        The file's bytes (an NDArray must be uint8).
    flag : int, default 1
        1 (or more) for a colour image (H, W, 3), 0 for a gray one (H, W, 1).
    to_rgb : bool, default True
        Channels in RGB order; False gives OpenCV's BGR.
    out : NDArray, optional
        A uint8 array of the image's shape to write the pixels into.

    Returns
    -------
    NDArray
        uint8 pixels, on cpu(0) (on ``buf``'s context for an NDArray).
    """
    if isinstance(buf, NDArray):
        if np.dtype(buf.dtype) != np.uint8:
            raise MXNetError('imdecode: an NDArray buffer must be uint8 (the bytes of the file), '
                             'got %s' % np.dtype(buf.dtype).name)
        data, ctx = buf.asnumpy().tobytes(), buf.context
    elif isinstance(buf, (bytes, bytearray, np.ndarray)):
        data, ctx = bytes(np.frombuffer(buf, dtype=np.uint8)), None
    else:
        raise ValueError('imdecode: buf must be bytes, bytearray or numpy.ndarray, got %s; '
                         'encode a str to bytes first' % type(buf).__name__)
    _check_options(flag, to_rgb, 'imdecode')
    pixels = decode(data, flag, to_rgb, 'the image buffer')
    return as_result(pixels, ctx, out, 'imdecode')


def imread(filename, flag=1, to_rgb=True, out=None):
    """Read and decode an image file (PNG, JPEG, BMP or TIFF); see :func:`imdecode`.

    A file that is missing, unreadable or not a decodable image raises MXNetError
    naming it.
    """
    _check_options(flag, to_rgb, 'imread')
    try:
        with open(filename, 'rb') as stream:
            data = stream.read()
    except OSError as err:
        raise MXNetError('imread: cannot read %s: %s' % (filename, err.strerror or err)) \
            from None
    return as_result(decode(data, flag, to_rgb, filename), None, out, 'imread')


def _check_options(flag, to_rgb, what):
    if isinstance(flag, bool) or not isinstance(flag, (int, np.integer)) or flag < 0:
        raise MXNetError('%s: flag must be 0 (gray) or 1 (colour), got %r' % (what, flag))
    if to_rgb not in (0, 1):     # True and False too
        raise MXNetError('%s: to_rgb must be True or False, got %r' % (what, to_rgb))


def decode(data, flag, to_rgb, source):
    """The uint8 pixels (H, W, 3) (flag ≥ 1) or (H, W, 1) (flag 0) of an encoded image;
    ``source`` names it in errors."""
    from PIL import Image, UnidentifiedImageError   # Pillow comes with matplotlib
    try:
        with Image.open(io.BytesIO(data)) as img:
            if img.format not in FORMATS:
                raise MXNetError('cannot decode %s: %s images are not supported; MXNet reads '
                                 '%s' % (source, img.format, ', '.join(FORMATS)))
            if flag == 0:
                return _gray(img)[:, :, None]
            rgb = _colour(img)
    except Image.DecompressionBombError as err:    # refused from its header, undecoded
        raise MXNetError('%s is too large to decode safely (%s); if it is genuine, raise '
                         'PIL.Image.MAX_IMAGE_PIXELS' % (source, err)) from None
    except UnidentifiedImageError:
        raise MXNetError('cannot decode %s: it is not a %s image' % (source, ', '.join(FORMATS)))\
            from None
    except (OSError, SyntaxError, ValueError) as err:   # damaged or truncated
        raise MXNetError('cannot decode %s: %s' % (source, err)) from None
    return rgb if to_rgb else rgb[:, :, ::-1]


def _colour(img):
    if img.mode == 'CMYK':
        return _cmyk_to_rgb(img)
    if img.mode in _SIXTEEN_BIT_GRAY:
        return np.repeat(_high_byte(img)[:, :, None], 3, axis=2)
    return np.asarray(img.convert('RGB'), dtype=np.uint8)


def _gray(img):
    if img.mode == 'L':
        return np.asarray(img, dtype=np.uint8)
    if img.mode in _SIXTEEN_BIT_GRAY:
        return _high_byte(img)
    if img.mode == 'LA':
        return np.asarray(img, dtype=np.uint8)[:, :, 0]
    if img.mode == 'CMYK':
        return _opencv_gray(_cmyk_to_rgb(img))
    if img.format == 'JPEG':
        img.draft('L', img.size)        # libjpeg decodes the luma channel only
        return np.asarray(img.convert('L'), dtype=np.uint8)
    if img.format == 'PNG':
        return _libpng_gray(np.asarray(img.convert('RGB'), dtype=np.uint8),
                            sixteen_bit=_png_bit_depth(img) == 16)
    return _opencv_gray(np.asarray(img.convert('RGB'), dtype=np.uint8))


def _high_byte(img):
    return (np.asarray(img).astype(np.uint32) >> 8).astype(np.uint8)


def _png_bit_depth(img):
    rawmode = img.tile[0].args if img.tile else ''
    return 16 if isinstance(rawmode, str) and rawmode.endswith(';16B') else 8


def _cmyk_to_rgb(img):
    """OpenCV's CMYK to RGB, ``K − (255 − C) · K >> 8`` per channel, on the values as
    stored (Pillow un-inverts Adobe's inverted CMYK; OpenCV reads them as stored)."""
    cmyk = np.asarray(img, dtype=np.int64)
    if 'adobe' in img.info:
        cmyk = 255 - cmyk
    k = cmyk[..., 3:]
    return (k - (((255 - cmyk[..., :3]) * k) >> 8)).astype(np.uint8)


def _libpng_gray(rgb, sixteen_bit=False):
    """libpng's ``rgb_to_gray`` with OpenCV's weights 0.299, 0.587 (15-bit fixed point,
    truncated; gray pixels kept as they are).

    For 16-bit images libpng weighs the 16-bit values and rounds; Pillow gives only
    their high bytes, so the result can be one level off MXNet's.
    """
    r, g, b = (rgb[..., i].astype(np.uint32) for i in range(3))
    if sixteen_bit:
        r, g, b = (c * 257 for c in (r, g, b))
        gray = ((r * 9797 + g * 19234 + b * 3737 + 16384) >> 15) >> 8
    else:
        gray = (r * 9797 + g * 19234 + b * 3737) >> 15
    return np.where((r == g) & (r == b), rgb[..., 0], gray.astype(np.uint8))


def _opencv_gray(rgb):
    """OpenCV's own RGB to gray, ``(4899 R + 9617 G + 1868 B + 8192) >> 14``."""
    r, g, b = (rgb[..., i].astype(np.uint32) for i in range(3))
    return ((r * 4899 + g * 9617 + b * 1868 + 8192) >> 14).astype(np.uint8)
