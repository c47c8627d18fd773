"""The image operations behind ``gluon.data.vision.transforms`` (MXNet's ``nd.image``).

Images are NDArrays of shape (H, W, C) (``uint8`` pixels 0..255, or floats); tensors,
after :func:`to_tensor`, are (C, H, W) floats; a leading batch axis N is allowed where
MXNet allows it. Each function checks its input as MXNet 1.9.1 does and raises
MXNetError with MXNet's condition where MXNet does.

:func:`to_tensor`, :func:`normalize` and :func:`crop` are NDArray operations
(recorded by autograd). Resizing and the colour adjustments compute on the
host in NumPy, as MXNet computes them on the CPU, in float32 (``float`` in MXNet's
C++), then convert back to the image's dtype: ``uint8`` results are clipped to 0..255
and truncated, other integers truncated.
"""
import numpy as np

from .... import ndarray as nd
from ....ndarray import NDArray
from ....base import MXNetError
from ....image import interpolation

_F32 = np.float32
_GRAY = np.array([0.299, 0.587, 0.114], _F32)     # ITU-R 601 luma weights


def _check_array(x, what):
    if not isinstance(x, NDArray):
        raise NotImplementedError(
            '%s runs on NDArrays only: gluonedu has no image operators for symbols, so a '
            'Block using it cannot be hybridized. Call it without hybridize().' % what)


def _check_ndim(x, allowed, what):
    _check_array(x, what)
    if x.ndim not in allowed:
        raise MXNetError("%s: the input must have shape %s, but got %s"
                         % (what, ' or '.join(_LAYOUTS[n] for n in allowed), x.shape))


_LAYOUTS = {3: '(height, width, channels)', 4: '(N, height, width, channels)'}


def check_image(x, what):
    """MXNet's check of the colour and flip operators: one (H, W, C) image, C = 1 or 3."""
    _check_array(x, what)
    if x.ndim != 3:
        raise MXNetError("%s: the input image must have shape (height, width, channels), "
                         "but got %s" % (what, x.shape))
    if x.shape[2] not in (1, 3):
        raise MXNetError("%s: the last dimension of the input image must be the channel "
                         "dimension with either 1 or 3 elements, but got input with shape "
                         "%s" % (what, x.shape))


def from_host(values, like):
    """An NDArray of ``values`` on ``like``'s context, in ``values``' dtype."""
    return nd.array(values, ctx=like.context, dtype=values.dtype)


def c_cast(values, dtype):
    """Float results converted as a C cast: integers truncated (and wrapped around when
    out of range, as x86 does), floats rounded to ``dtype``."""
    dtype = np.dtype(dtype)
    if dtype.kind in 'iu':
        return np.trunc(values).astype(np.int64).astype(dtype)
    return values.astype(dtype)


def saturate(values, dtype):
    """Float results converted as MXNet's ``saturate_cast``: uint8 clipped to 0..255, then
    as :func:`c_cast`."""
    if np.dtype(dtype) == np.uint8:
        values = np.clip(values, 0, 255)
    return c_cast(values, dtype)


# ---------------------------------------------------------------------- layout and scale
def to_tensor(x):
    """(H, W, C) pixels 0..255 -> (C, H, W) float32 in [0, 1]; (N, H, W, C) -> (N, C, H, W).

    Each value is divided by 255 in the input's precision (float16 inputs round to
    float16 first, as MXNet), then stored as float32.
    """
    _check_ndim(x, (3, 4), 'ToTensor')
    dtype = np.dtype(x.dtype)
    if dtype == np.float16:
        scaled = (x.astype('float32') / 255).astype('float16').astype('float32')
    elif dtype == np.float64:
        scaled = (x / 255).astype('float32')
    else:
        scaled = x.astype('float32') / 255
    return scaled.transpose((2, 0, 1) if x.ndim == 3 else (0, 3, 1, 2))


def _per_channel(values, channels, name):
    values = tuple(values) if isinstance(values, (tuple, list)) else (values,)
    if len(values) not in (1, channels):
        raise MXNetError("Normalize: invalid %s %s for %d channels: give one value or one "
                         "per channel" % (name, values, channels))
    return values


def normalize(x, mean, std):
    """``(x[c] − mean[c]) / std[c]`` per channel of a (C, H, W) or (N, C, H, W) tensor.

    ``mean`` and ``std`` are numbers or sequences of one value per channel; C must be
    1 or 3 (MXNet's limit). The arithmetic is that of MXNet's kernel: the values
    are float32; integer tensors are computed in float32 and truncated, float16 ones
    rounded to float16 after each operation, float64 ones computed in float64.
    """
    _check_ndim_tensor(x)
    channels = x.shape[0] if x.ndim == 3 else x.shape[1]
    if channels not in (1, 3):
        raise MXNetError("Normalize: the channel dimension of the input tensor must have 1 "
                         "or 3 elements, but got input with shape %s" % (x.shape,))
    mean = _per_channel(mean, channels, 'mean')
    std = _per_channel(std, channels, 'std')
    dtype = np.dtype(x.dtype)
    work = np.float64 if dtype == np.float64 else np.float32
    shape = (-1, 1, 1) if x.ndim == 3 else (1, -1, 1, 1)
    mean = nd.array(np.array(mean, _F32).astype(work).reshape(shape), ctx=x.context, dtype=work)
    std = nd.array(np.array(std, _F32).astype(work).reshape(shape), ctx=x.context, dtype=work)
    centered = nd.broadcast_sub(x.astype(work), mean)
    if dtype == np.float16:            # MXNet's half type rounds after each operation
        centered = centered.astype('float16').astype(work)
    out = nd.broadcast_div(centered, std)
    if dtype.kind in 'iu':
        return from_host(c_cast(out.asnumpy(), dtype), x)
    return out.astype(dtype)


def _check_ndim_tensor(x):
    _check_array(x, 'Normalize')
    if x.ndim not in (3, 4):
        raise MXNetError("Normalize: the input tensor must have shape (channels, height, "
                         "width) or (N, channels, height, width), but got %s" % (x.shape,))


# ---------------------------------------------------------------------- geometry
def resize(x, size, keep_ratio=False, interp=1):
    """An (H, W, C) image or (N, H, W, C) batch resized with OpenCV's ``cv::resize``.

    ``size`` is ``(width, height)``, or one number: both sides, or with ``keep_ratio``
    the shorter side (the longer one scaled in proportion, rounded down).
    """
    _check_ndim(x, (3, 4), 'Resize')
    height, width = x.shape[-3], x.shape[-2]
    new_w, new_h = _target_size(size, keep_ratio, height, width)
    pixels = x.asnumpy()
    if x.ndim == 3:
        out = interpolation.resize(pixels, new_w, new_h, interp)
    else:
        out = np.stack([interpolation.resize(image, new_w, new_h, interp) for image in pixels])
    return from_host(out, x)


def _target_size(size, keep_ratio, height, width):
    sizes = tuple(size) if isinstance(size, (tuple, list)) else (size,)
    if len(sizes) not in (1, 2):
        raise MXNetError("Resize: size must be one number or (width, height), got %r"
                         % (size,))
    if any(int(s) <= 0 for s in sizes):
        raise MXNetError("Resize: sizes must be greater than 0, got %r" % (size,))
    if len(sizes) == 2:
        return int(sizes[0]), int(sizes[1])
    side = int(sizes[0])
    if not keep_ratio:
        return side, side
    if height > width:
        return side, height * side // width
    return width * side // height, side


def crop(x, x0, y0, width, height):
    """The region of ``width`` × ``height`` pixels at column ``x0``, row ``y0`` of an
    (H, W, C) image or an (N, H, W, C) batch."""
    _check_ndim(x, (3, 4), 'crop')
    image_h, image_w = x.shape[-3], x.shape[-2]
    for name, value in (('x', x0), ('y', y0), ('width', width), ('height', height)):
        if value < 0 or (value == 0 and name in ('width', 'height')):
            raise MXNetError("crop: %s must be %s, got %d"
                             % (name, 'positive' if name in ('width', 'height')
                                else 'non-negative', value))
    if x0 + width > image_w:
        raise MXNetError("crop: x + width should not be greater than input width: %d + %d > "
                         "%d" % (x0, width, image_w))
    if y0 + height > image_h:
        raise MXNetError("crop: y + height should not be greater than input height: %d + %d "
                         "> %d" % (y0, height, image_h))
    if x.ndim == 3:
        return x[y0:y0 + height, x0:x0 + width]
    return x[:, y0:y0 + height, x0:x0 + width]


# ---------------------------------------------------------------------- colour
def _kernel_input(values, kind=None):
    """The values as MXNet's kernel reads them: as float32, except that contrast reads
    float64 images in float64."""
    if kind == 'contrast' and values.dtype == np.float64:
        return values
    return values.astype(_F32)


def _brightness(pixels, alpha):
    return pixels * _F32(alpha)


def _contrast(pixels, alpha):
    """``x · alpha + (1 − alpha) · mean gray``: pulls the image towards its mean
    brightness (gray = 0.299 R + 0.587 G + 0.114 B, or the one channel)."""
    weighted = pixels * _GRAY.astype(pixels.dtype) if pixels.shape[2] == 3 else pixels
    gray_mean = _float32_running_sum(weighted.reshape(-1)) / _F32(pixels.shape[0]
                                                                  * pixels.shape[1])
    beta = (_F32(1) - _F32(alpha)) * gray_mean
    return (pixels * _F32(alpha) + beta).astype(_F32)


def _float32_running_sum(values):
    """``values`` added one by one into a float32, as MXNet's contrast kernel does."""
    if values.dtype == _F32:
        return np.cumsum(values, dtype=_F32)[-1] if values.size else _F32(0)
    total = _F32(0)
    for value in values.tolist():          # float64 terms: each sum rounded once
        total = _F32(float(total) + value)
    return total


def _gray(pixels):
    return (pixels[..., 0] * _GRAY[0] + pixels[..., 1] * _GRAY[1]) + pixels[..., 2] * _GRAY[2]


def _saturation(pixels, alpha):
    """``x · alpha + (1 − alpha) · gray`` per pixel: 0 gives gray, 1 the image, more
    exaggerates the colours. One-channel images are returned unchanged."""
    if pixels.shape[2] == 1:
        return pixels
    return (_gray(pixels) * (_F32(1) - _F32(alpha)))[..., None] + pixels * _F32(alpha)


def _hue(pixels, alpha):
    """Each pixel's hue turned by ``alpha`` · 360 degrees in HLS space (OpenCV's
    RGB<->HLS conversion, in float32). One-channel images are returned unchanged."""
    if pixels.shape[2] == 1:
        return pixels
    h, lightness, s = _rgb_to_hls(pixels / _F32(255))
    return _hls_to_rgb(h + _F32(alpha) * _F32(360), lightness, s) * _F32(255)


def _rgb_to_hls(rgb):
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    vmax = np.maximum(np.maximum(r, g), b)
    vmin = np.minimum(np.minimum(r, g), b)
    diff = vmax - vmin
    lightness = (vmax + vmin) * _F32(0.5)
    colour = diff > np.finfo(_F32).eps
    safe = np.where(colour, diff, _F32(1))
    s = np.where(lightness < 0.5, safe / np.where(colour, vmax + vmin, 1),
                 safe / np.where(colour, _F32(2) - vmax - vmin, 1))
    step = _F32(60) / safe
    h = np.where(vmax == r, (g - b) * step,
                 np.where(vmax == g, (b - r) * step + _F32(120), (r - g) * step + _F32(240)))
    h = np.where(h < 0, h + _F32(360), h)
    return (np.where(colour, h, _F32(0)), lightness, np.where(colour, s, _F32(0)))


# For each 60-degree sector of hue: which of (p2, p1, rising, falling) is B, G, R.
_HLS_SECTORS = np.array([[1, 3, 0], [1, 0, 2], [3, 0, 1], [0, 2, 1], [0, 1, 3], [2, 1, 0]])


def _hls_to_rgb(h, lightness, s):
    p2 = np.where(lightness <= 0.5, lightness * (_F32(1) + s), lightness + s - lightness * s)
    p1 = _F32(2) * lightness - p2
    h = h * _F32(1 / 60.)              # OpenCV multiplies by the rounded reciprocal
    h = np.where(h < 0, h + _F32(6) * np.ceil(-h / _F32(6)), h)
    h = np.where(h >= 6, h - _F32(6) * np.floor(h / _F32(6)), h)
    sector = h.astype(np.int64)
    frac = h - sector.astype(_F32)
    table = np.stack([p2, p1, p1 + (p2 - p1) * (_F32(1) - frac), p1 + (p2 - p1) * frac], -1)
    order = _HLS_SECTORS[sector]
    b, g, r = (np.take_along_axis(table, order[..., k:k + 1], -1)[..., 0] for k in range(3))
    gray = s == 0
    return np.stack([np.where(gray, lightness, r), np.where(gray, lightness, g),
                     np.where(gray, lightness, b)], -1)


_ADJUSTMENTS = {'brightness': _brightness, 'contrast': _contrast, 'saturation': _saturation,
                'hue': _hue}


def adjust(x, steps, what):
    """Colour adjustments ``[(kind, alpha), ...]`` applied in order (``kind``: brightness,
    contrast, saturation or hue), each result converted to the image's dtype before the
    next, as MXNet's colour jitter writes each step to its output."""
    check_image(x, what)
    pixels = x.asnumpy()
    for kind, alpha in steps:
        pixels = saturate(_ADJUSTMENTS[kind](_kernel_input(pixels, kind), alpha), x.dtype)
    return from_host(pixels, x)


# AlexNet's PCA of ImageNet's RGB pixels: eigenvectors (columns) times eigenvalues.
_EIGVAL = np.array([55.46, 4.794, 1.148])
_EIGVEC = np.array([[-0.5675, 0.7192, 0.4009],
                    [-0.5808, -0.0045, -0.8140],
                    [-0.5836, -0.6948, 0.4203]])
_LIGHTING = (_EIGVEC * _EIGVAL).astype(_F32)


def adjust_lighting(x, alpha):
    """AlexNet's PCA lighting noise: every pixel plus ``eigvec · (alpha ⊙ eigval)``,
    ``alpha`` three numbers. One-channel images are returned unchanged."""
    check_image(x, 'RandomLighting')
    pixels = x.asnumpy().astype(_F32)
    if pixels.shape[2] == 3:
        a = np.asarray(alpha, _F32)
        # float32 scalars, added left to right as MXNet's kernel does
        shift = np.array([w[0] * a[0] + w[1] * a[1] + w[2] * a[2] for w in _LIGHTING], _F32)
        pixels = pixels + shift
    return from_host(saturate(pixels, x.dtype), x)


# ---------------------------------------------------------------------- rotation
def rotate(x, degrees, zoom_in=False, zoom_out=False):
    """A (C, H, W) float32 tensor, or an (N, C, H, W) batch, turned by ``degrees`` about its
    center (anticlockwise for positive angles; ``degrees`` one number, or one per image
    of a batch), keeping its shape; corners that come from outside the image are 0.

    ``zoom_in`` scales the result up until no such corner is left; ``zoom_out`` scales it
    down until the whole image shows. The arithmetic is MXNet's ``image.imrotate``: a
    float32 sampling grid rotated and normalised to [-1, 1], then ``BilinearSampler``.
    """
    if zoom_in and zoom_out:
        raise ValueError("`zoom_in` and `zoom_out` cannot be both True")
    if x.dtype is not np.float32:
        raise TypeError("Only `float32` images are supported by this function")
    single = x.ndim == 3
    if single and not isinstance(degrees, (int, float, np.number)):
        raise TypeError("When a single image is passed the rotation angle is required to be "
                        "a scalar.")
    if x.ndim not in (3, 4):
        raise ValueError("Only 3D and 4D are supported by this function")
    src = x.asnumpy()[None] if single else x.asnumpy()
    angles = np.full(len(src), degrees, _F32) if np.ndim(degrees) == 0 \
        else np.asarray(degrees, _F32).reshape(-1)
    if len(angles) != len(src):
        raise ValueError("The number of images must be equal to the number of rotation angles")
    out = _bilinear_sample(src, _rotation_grid(angles, src.shape[2], src.shape[3], zoom_in,
                                               zoom_out))
    return from_host(out[0] if single else out, x)


def _f32(function, x):
    """``function`` of float32 values, correctly rounded to float32 (as C's cosf & co.)."""
    return function(x.astype(np.float64)).astype(_F32)


def _rotation_grid(angles, height, width, zoom_in, zoom_out):
    """The (N, 2, H, W) sampling grid (x then y, in [-1, 1]) of images turned by ``angles``."""
    rad = (angles * _F32(np.pi) / _F32(180)).reshape(-1, 1, 1)
    h_scale, w_scale = _F32((height - 1) / 2), _F32((width - 1) / 2)
    rows = np.repeat(np.arange(height, dtype=_F32).reshape(height, 1), width, 1) - h_scale
    cols = np.repeat(np.arange(width, dtype=_F32).reshape(1, width), height, 0) - w_scale
    cos, sin = _f32(np.cos, rad), _f32(np.sin, rad)
    with np.errstate(divide='ignore', invalid='ignore'):   # a 1-pixel side: as MXNet
        grid_x = (cols * cos - rows * sin) / w_scale
        grid_y = (cols * sin + rows * cos) / h_scale
    grid = np.stack([grid_x, grid_y], axis=1)
    if zoom_in or zoom_out:
        h, w = np.array([height], _F32), np.array([width], _F32)
        radius, corner = np.sqrt(h * h + w * w), _f32(np.arctan, h / w)
        turn = np.abs(rad)
        max_x = np.maximum(np.abs(radius * _f32(np.cos, corner + turn)),
                           np.abs(radius * _f32(np.cos, corner - turn)))
        max_y = np.maximum(np.abs(radius * _f32(np.sin, corner + turn)),
                           np.abs(radius * _f32(np.sin, corner - turn)))
        if zoom_out:
            scale = np.maximum(max_x / w, max_y / h)
        else:
            scale = np.minimum(w / max_x, h / max_y)
        grid = grid * scale[:, None]
    return grid.astype(_F32)


def _bilinear_sample(src, grid):
    """MXNet's ``BilinearSampler``: ``src`` (N, C, H, W) read at ``grid`` (N, 2, H', W')
    of normalised (x, y) positions, bilinearly, with zeros outside the image.

    As MXNet's CPU kernel: positions and weights in float32, the blend of the four taps
    in float64 (its ``1.0 - w`` terms are doubles), rounded to float32 at the end.
    """
    height, width = src.shape[2], src.shape[3]
    x = (grid[:, 0] + _F32(1)) * _F32(width - 1) / _F32(2)
    y = (grid[:, 1] + _F32(1)) * _F32(height - 1) / _F32(2)
    left, top = np.floor(x), np.floor(y)
    wx = (1.0 - (x - left).astype(np.float64)).astype(_F32)[..., None]   # left taps
    wy = (1.0 - (y - top).astype(np.float64)).astype(_F32)[..., None]    # top taps
    left, top = left.astype(np.int64), top.astype(np.int64)
    batch = np.arange(len(src)).reshape(-1, 1, 1)

    def tap(row, col):
        inside = (row >= 0) & (row < height) & (col >= 0) & (col < width)
        values = src[batch, :, np.clip(row, 0, height - 1), np.clip(col, 0, width - 1)]
        return np.where(inside[..., None], values, _F32(0))     # (N, H', W', C)

    wx64, wy64 = wx.astype(np.float64), wy.astype(np.float64)
    out = (((tap(top, left) * wy * wx).astype(np.float64)
            + (tap(top, left + 1) * wy).astype(np.float64) * (1.0 - wx64))
           + tap(top + 1, left) * (1.0 - wy64) * wx64
           + tap(top + 1, left + 1) * (1.0 - wy64) * (1.0 - wx64))
    return out.transpose(0, 3, 1, 2).astype(_F32)
