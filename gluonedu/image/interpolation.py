"""OpenCV 3.4.2's ``cv::resize`` in NumPy: the resampling behind MXNet 1.9.1's image resize.

MXNet's ``mx.image.imresize`` (and through it the crops, the augmenters and the
``Resize``, ``CenterCrop``, ``CropResize`` and ``RandomResizedCrop`` transforms) calls
OpenCV. To give MXNet's pixels, this module follows OpenCV's arithmetic step by step,
including its fixed-point paths for 8-bit images and the order of its float additions;
on the cases of tests/parity/vision/test_vision_parity.py the results are bit-identical.

Interpolation codes (OpenCV's):

====  =========  =========================================================================
code  name       what OpenCV does
====  =========  =========================================================================
0     nearest    source pixel ``floor(d · src/dst)``
1     bilinear   2×2 taps at ``(d + 0.5) · src/dst − 0.5``; an exact 2× shrink is done
                 by the area path
2     bicubic    4×4 taps, Keys' kernel with a = −0.75
3     area       shrinking: the average over each destination pixel's footprint (a fast
                 block mean for integer factors); enlarging: bilinear with area weights
4     lanczos4   8×8 taps, windowed sinc
====  =========  =========================================================================

For ``uint8`` images the weights are 11-bit fixed point (``round(w · 2048)``): rows are
resampled horizontally in integers, then vertically with rounding, as OpenCV's SSE2
kernels do. ``float32`` and ``float64`` images are resampled in their own precision.
Borders replicate the edge pixels.
"""
import math

import numpy as np

from ..base import MXNetError

__all__ = ['resize', 'INTERPOLATIONS']

INTERPOLATIONS = {0: 'nearest', 1: 'bilinear', 2: 'bicubic', 3: 'area', 4: 'lanczos4'}
SUPPORTED_DTYPES = (np.uint8, np.float32, np.float64)

_COEF_BITS = 11
_COEF_SCALE = 1 << _COEF_BITS          # OpenCV's INTER_RESIZE_COEF_SCALE
_F32 = np.float32
_EPS = np.finfo(np.float64).eps        # DBL_EPSILON


def resize(image, width, height, interp=1):
    """``image`` (H, W, C) resampled to (height, width, C), as ``cv::resize`` does."""
    if interp not in INTERPOLATIONS:
        raise MXNetError("Unknown interpolation method %r: use 0 (nearest), 1 (bilinear), "
                         "2 (bicubic), 3 (area) or 4 (lanczos4)" % (interp,))
    if image.dtype.type not in SUPPORTED_DTYPES:
        raise MXNetError("resizing an image of dtype %s is not supported (OpenCV resizes "
                         "uint8, float32 and float64 images): convert it with astype first"
                         % image.dtype)
    src_h, src_w, channels = image.shape
    if min(src_h, src_w, width, height) <= 0:
        raise MXNetError("cannot resize an image of size %dx%d to %dx%d: sizes must be "
                         "positive" % (src_w, src_h, width, height))
    if interp == 0:
        return image[_nearest_index(src_h, height)][:, _nearest_index(src_w, width)]
    scale_x, scale_y = _scale(src_w, width), _scale(src_h, height)
    whole_x, whole_y = round(scale_x), round(scale_y)
    integer_factors = abs(scale_x - whole_x) < _EPS and abs(scale_y - whole_y) < _EPS
    area_mode = False
    if interp == 3:
        if scale_x >= 1 and scale_y >= 1:
            if integer_factors:
                return _area_fast(image, width, height, whole_x, whole_y)
            return _area_general(image, width, height)
        kind, area_mode = 'linear', True       # enlarging: bilinear with area weights
    elif interp == 1 and integer_factors and whole_x == 2 and whole_y == 2:
        return _area_fast(image, width, height, 2, 2)   # OpenCV: the same result, faster
    else:
        kind = {1: 'linear', 2: 'cubic', 4: 'lanczos'}[interp]
    x_index, x_weight = _taps(src_w, width, kind, area_mode, clamp_weights=True)
    y_index, y_weight = _taps(src_h, height, kind, area_mode, clamp_weights=False)
    if image.dtype == np.uint8:
        return _separable_uint8(image, x_index, x_weight, y_index, y_weight, kind)
    rows = _weighted_sum(image, x_index, x_weight, axis=1)
    return _weighted_sum(rows, y_index, y_weight, axis=0).astype(image.dtype, copy=False)


def _scale(src, dst):
    # OpenCV derives the scale as 1 / (dst / src), which can differ from src / dst in the
    # last bit; the tap positions depend on it.
    return 1.0 / (dst / src)


def _nearest_index(src, dst):
    """Nearest: destination pixel d reads source pixel ``min(floor(d · src/dst), src − 1)``
    (no half-pixel shift)."""
    return np.minimum(np.floor(np.arange(dst) * _scale(src, dst)).astype(np.int64), src - 1)


def _cubic_weights(x):
    """Bicubic: the weights of the taps at distances 1 + x, x, 1 − x, 2 − x from the
    position, Keys' kernel with a = −0.75 in float32::

        w(t) = (a + 2)|t|³ − (a + 3)|t|² + 1        for |t| ≤ 1
        w(t) = a|t|³ − 5a|t|² + 8a|t| − 4a          for 1 < |t| < 2

    the last weight taken as 1 minus the other three, as OpenCV does.
    """
    a = _F32(-0.75)
    x1 = x + _F32(1)
    w0 = ((a * x1 - _F32(5) * a) * x1 + _F32(8) * a) * x1 - _F32(4) * a
    w1 = ((a + _F32(2)) * x - (a + _F32(3))) * x * x + _F32(1)
    y = _F32(1) - x
    w2 = ((a + _F32(2)) * y - (a + _F32(3))) * y * y + _F32(1)
    return np.stack([w0, w1, w2, _F32(1) - w0 - w1 - w2], -1)


_S45 = 0.70710678118654752440084436210485
_LANCZOS_CS = ((1, 0), (-_S45, -_S45), (0, 1), (_S45, -_S45), (-1, 0), (_S45, _S45), (0, -1),
               (-_S45, _S45))


def _lanczos_weights(xs):
    """Lanczos-4: the 8 taps at distances t = x + 3 − i (i = 0..7) weigh
    ``sinc(t) · sinc(t / 4)`` (computed as OpenCV does, with the sines of the 8 taps from
    one rotation), normalised to sum to 1."""
    out = np.zeros(xs.shape + (8,), _F32)
    for n, x in enumerate(xs):
        if x < np.finfo(_F32).eps:
            out[n, 3] = 1
            continue
        y0 = -float(x + _F32(3)) * math.pi * 0.25
        s0, c0 = math.sin(y0), math.cos(y0)
        total = _F32(0)
        for i, (cs, cc) in enumerate(_LANCZOS_CS):
            y = -float(x + _F32(3) - _F32(i)) * math.pi * 0.25
            out[n, i] = (cs * s0 + cc * c0) / (y * y)
            total = _F32(total + out[n, i])
        out[n] *= _F32(1) / total
    return out


def _taps(src, dst, kind, area_mode, clamp_weights):
    """Source indices (dst, taps), clamped to the image, and float32 weights (dst, taps).

    Destination pixel d sits at ``x = (d + 0.5) · src/dst − 0.5`` in the source (pixel
    centres aligned); with ``x0 = floor(x)``, ``f = x − x0``, bilinear reads
    ``(1 − f) · p[x0] + f · p[x0 + 1]``, bicubic the 4 taps from x0 − 1, Lanczos the 8
    from x0 − 3. In ``area_mode`` (area enlarging) ``x0 = floor(d · src/dst)`` and
    ``f = (d + 1) − (x0 + 1) · dst/src`` (0 if negative, else its fractional part).

    Horizontally OpenCV pins bilinear taps that fall off the image to the edge pixel
    with weight (1, 0) (``clamp_weights``); vertically it keeps the weights and only
    clamps the rows read.
    """
    d = np.arange(dst)
    if area_mode:
        first = np.floor(d * _scale(src, dst)).astype(np.int64)
        frac = ((d + 1) - (first + 1) * (dst / src)).astype(_F32)
        frac = np.where(frac <= 0, _F32(0), frac - np.floor(frac)).astype(_F32)
    else:
        pos = ((d + 0.5) * _scale(src, dst) - 0.5).astype(_F32)
        first = np.floor(pos).astype(np.int64)
        frac = (pos - first.astype(_F32)).astype(_F32)
    if kind == 'linear':
        if clamp_weights:
            low, high = first < 0, first >= src - 1
            frac[low | high] = 0
            first = np.clip(first, 0, src - 1)
        weights = np.stack([_F32(1) - frac, frac], -1)
    elif kind == 'cubic':
        weights, first = _cubic_weights(frac), first - 1
    else:
        weights, first = _lanczos_weights(frac), first - 3
    index = np.clip(first[:, None] + np.arange(weights.shape[1]), 0, src - 1)
    return index, weights.astype(_F32)


def _weighted_sum(data, index, weight, axis):
    """``Σ_j data[index[:, j]] · weight[:, j]`` along ``axis``, added left to right in
    the dtype of ``weight`` and ``data`` (the order decides the last bits)."""
    shape = [1] * data.ndim
    shape[axis] = -1
    total = None
    for j in range(index.shape[1]):
        term = np.take(data, index[:, j], axis=axis) * weight[:, j].reshape(shape)
        total = term if total is None else total + term
    return total


def _separable_uint8(image, x_index, x_weight, y_index, y_weight, kind):
    ax = np.rint(x_weight * _COEF_SCALE).astype(np.int64)
    ay = np.rint(y_weight * _COEF_SCALE).astype(np.int64)
    rows = _weighted_sum(image.astype(np.int64), x_index, ax, axis=1)
    if kind == 'linear':
        # SSE2 kernel: each product keeps its top bits, (S >> 4) · b >> 16, then >> 2.
        r0, r1 = rows[y_index[:, 0]], rows[y_index[:, 1]]
        b0, b1 = ay[:, 0].reshape(-1, 1, 1), ay[:, 1].reshape(-1, 1, 1)
        out = ((((r0 >> 4) * b0) >> 16) + (((r1 >> 4) * b1) >> 16) + 2) >> 2
    else:
        exact = (_weighted_sum(rows, y_index, ay, axis=0) + (1 << 21)) >> 22
        if kind == 'cubic':
            # SSE2 kernel, on all but the last (width · channels) % 8 values of a row:
            # float weights scaled by 2^-22, rounded to nearest.
            scaled = (ay.astype(_F32) * _F32(1.0 / (_COEF_SCALE * _COEF_SCALE))).astype(_F32)
            vector = np.rint(_weighted_sum(rows.astype(_F32), y_index, scaled, axis=0))
            width, channels = rows.shape[1], rows.shape[2]
            position = np.arange(width * channels).reshape(1, width, channels)
            exact = np.where(position < (width * channels) // 8 * 8, vector, exact)
        out = exact
    return np.clip(out, 0, 255).astype(np.uint8)


def _area_fast(image, width, height, factor_x, factor_y):
    """Area, shrinking by whole factors: the mean of each factor_y × factor_x block, summed
    in OpenCV's order, times ``1 / (factor_x · factor_y)``, rounded to nearest for uint8."""
    channels = image.shape[2]
    acc = np.int64 if image.dtype == np.uint8 else image.dtype.type
    blocks = image[:height * factor_y, :width * factor_x].astype(acc).reshape(
        height, factor_y, width, factor_x, channels)
    cells = [blocks[:, i, :, j] for i in range(factor_y) for j in range(factor_x)]
    if factor_x == factor_y == 2:
        return _area_half(image.dtype, cells, width, channels)
    total = acc(0)
    for k in range(0, len(cells) - len(cells) % 4, 4):    # OpenCV unrolls by four
        total = total + (((cells[k] + cells[k + 1]) + cells[k + 2]) + cells[k + 3])
    for cell in cells[len(cells) - len(cells) % 4:]:
        total = total + cell
    scale = _F32(1.0 / (factor_x * factor_y))
    if image.dtype == np.uint8:
        return np.clip(np.rint(total.astype(_F32) * scale), 0, 255).astype(np.uint8)
    return (total * acc(scale)).astype(image.dtype)


def _area_half(dtype, cells, width, channels):
    """2×2 block means, with the roundings of OpenCV's SSE2 kernels and scalar loops."""
    a, b, c, d = cells
    if dtype == np.uint8:
        total = ((a + b) + c) + d
        if channels == 2:                      # no vector kernel: round half to even
            return np.clip(np.rint(total.astype(_F32) * _F32(0.25)), 0, 255).astype(np.uint8)
        return ((total + 2) >> 2).astype(np.uint8)
    sequential = (((a + b) + c) + d) * dtype.type(0.25)
    if dtype != np.float32 or channels not in (1, 4):
        return sequential
    pairwise = ((a + b) + (c + d)) * _F32(0.25)
    if channels == 4:
        return pairwise
    # One channel: the vector kernel covers whole groups of four destination pixels.
    return np.where(np.arange(width).reshape(1, width, 1) < width // 4 * 4, pairwise,
                    sequential)


def _area_table(src, dst):
    """Per destination index: source indices and the fractions of their cell covered."""
    scale = _scale(src, dst)
    entries = []
    for d in range(dst):
        start = d * scale
        end = start + scale
        cell = min(scale, src - start)
        first, last = math.ceil(start), math.floor(end)
        last = min(last, src - 1)
        first = min(first, last)
        taps = []
        if first - start > 1e-3:
            taps.append((first - 1, (first - start) / cell))
        taps.extend((s, 1.0 / cell) for s in range(first, last))
        if end - last > 1e-3:
            taps.append((last, min(min(end - last, 1.), cell) / cell))
        entries.append(taps)
    width = max(len(taps) for taps in entries)
    index = np.zeros((dst, width), np.int64)
    weight = np.zeros((dst, width), _F32)      # padding taps add 0 · pixel 0
    for d, taps in enumerate(entries):
        for j, (s, w) in enumerate(taps):
            index[d, j], weight[d, j] = s, w
    return index, weight


def _area_general(image, width, height):
    """Area, shrinking by other factors: destination pixel d covers source
    [d · s, (d + 1) · s) with s = src/dst; each source pixel weighs the part of it
    covered, divided by s (rows, then columns, in float32; uint8 rounded to nearest)."""
    acc = np.float64 if image.dtype == np.float64 else _F32
    x_index, x_weight = _area_table(image.shape[1], width)
    y_index, y_weight = _area_table(image.shape[0], height)
    rows = _weighted_sum(image.astype(acc), x_index, x_weight.astype(acc), axis=1)
    out = _weighted_sum(rows, y_index, y_weight.astype(acc), axis=0)
    if image.dtype == np.uint8:
        return np.clip(np.rint(out), 0, 255).astype(np.uint8)
    return out.astype(image.dtype)
