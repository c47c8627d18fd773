"""Spatial transformers (Jaderberg, Simonyan, Zisserman & Kavukcuoglu, 2015, "Spatial
transformer networks"): ``nd.GridGenerator``, ``nd.BilinearSampler`` and
``nd.SpatialTransformer``, which is the two in a row.

A *grid* ``(N, 2, H', W')`` says, for every output position, where to read the input:
channel 0 holds ``x``, channel 1 holds ``y``, both normalized so that −1 is the first
pixel and 1 the last. The generator makes one:

    affine   grid[n, :, i, j] = θ_n · (x_j, y_i, 1)ᵀ      θ_n = data[n] as a 2×3 matrix,
             x_j = −1 + 2j/(W' − 1),  y_i = −1 + 2i/(H' − 1)     (target_shape = (H', W'))
    warp     grid = (pixel position + flow) / ((size − 1)/2) − 1     (flow in pixels)

and the sampler reads ``data (N, C, H, W)`` there, interpolating bilinearly between the
four pixels around ``(x, y) = ((x̂ + 1)(W − 1)/2, (ŷ + 1)(H − 1)/2)``; pixels outside the
image count as 0::

    out[n, c, i, j] = Σ_{corners (p, q)} (1 − |x − q|)(1 − |y − p|) · data[n, c, p, q]

Its gradient flows to the data (each corner receives its weight times the output
gradient) and to the grid (the weights' slopes: ∂out/∂x = Σ_p (1 − |y − p|)(data[p, x₀ + 1]
− data[p, x₀]), scaled by (W − 1)/2), and from the grid on to θ or the flow.
"""
import numpy as np

from ... import _backend
from ...base import MXNetError
from .common import check_inputs, float_dtype, record, shape_text, tracked
from .declare import OpDef, Param, REQUIRED

__all__ = ['GridGenerator', 'BilinearSampler', 'SpatialTransformer']

_TARGET_SHAPE = Param('target_shape', 'shape', (0, 0), 'The output size (H, W); needed by '
                      'the affine transform.')
_CUDNN_OFF = Param('cudnn_off', 'bool_or_none', None, 'Turn cuDNN off (unused here).')

# MXNet's three keep scratch grids as hidden outputs.
GRID_GENERATOR = OpDef('GridGenerator', inputs=('data',), hidden_outputs=1, params=(
    Param('transform_type', 'enum', REQUIRED, 'affine: data is (N, 6), one 2×3 matrix per '
          'sample; warp: data is an optical flow (N, 2, H, W) in pixels.',
          choices=('affine', 'warp')),
    _TARGET_SHAPE))

BILINEAR_SAMPLER = OpDef('BilinearSampler', inputs=('data', 'grid'), hidden_outputs=1,
                         params=(_CUDNN_OFF,))

SPATIAL_TRANSFORMER = OpDef('SpatialTransformer', inputs=('data', 'loc'), hidden_outputs=2,
                            params=(
    _TARGET_SHAPE,
    Param('transform_type', 'enum', REQUIRED, 'The transform: affine (loc is (N, 6)).',
          choices=('affine',)),
    Param('sampler_type', 'enum', REQUIRED, 'The interpolation: bilinear.',
          choices=('bilinear',)),
    _CUDNN_OFF))


# ---------------------------------------------------------------------- grids
def _target_size(op, target_shape):
    if len(target_shape) != 2 or min(target_shape) < 1:
        raise MXNetError("%s: target_shape=%s must give the output's height and width (both "
                         "positive) for the affine transform" % (op, shape_text(target_shape)))
    return target_shape


def _normalized_positions(xp, size, dtype):
    """−1 + 2k/(size − 1) for k = 0 … size − 1 (NaN for a size of 1, as MXNet)."""
    with np.errstate(divide='ignore', invalid='ignore'):
        return (-1 + xp.arange(size, dtype=dtype) * dtype.type(2) / dtype.type(size - 1))


def _target_points(xp, height, width, dtype):
    """The homogeneous target positions (x_j, y_i, 1) as a (3, H·W) matrix, row-major."""
    x = _normalized_positions(xp, width, dtype)
    y = _normalized_positions(xp, height, dtype)
    return xp.stack([xp.tile(x, height), xp.repeat(y, width),
                     xp.ones(height * width, dtype=dtype)])


def _check_affine(op, what, theta):
    if theta.ndim != 2 or theta.shape[1] != 6:
        raise MXNetError("%s: %s must be (batch, 6), one 2×3 affine matrix per sample, got "
                         "shape %s" % (op, what, shape_text(theta.shape)))


def _affine_grid(xp, theta, target_shape):
    """(grid (N, 2, H, W), backward ``d grid -> d θ``) of the affine transforms θ (N, 6)."""
    height, width = target_shape
    points = _target_points(xp, height, width, theta.dtype)
    matrices = theta.reshape(-1, 2, 3)
    grid = (matrices @ points).reshape(-1, 2, height, width)

    def backward(grad):
        return (grad.reshape(-1, 2, height * width) @ points.T).reshape(theta.shape)
    return grid, backward


def _warp_grid(xp, flow):
    """The grid of an optical flow (N, 2, H, W) given in pixels."""
    height, width = flow.shape[2:]
    dtype = flow.dtype.type
    with np.errstate(divide='ignore', invalid='ignore'):
        half = xp.array([(width - 1) / 2, (height - 1) / 2], dtype=flow.dtype).reshape(2, 1, 1)
        pixels = xp.stack([xp.tile(xp.arange(width, dtype=flow.dtype), (height, 1)),
                           xp.arange(height, dtype=flow.dtype)[:, None].repeat(width, 1)])
        return (flow + pixels) / half - dtype(1), half


def _grid_generator(params, data=None):
    """A sampling grid: from one affine matrix per sample, or from an optical flow."""
    op = 'GridGenerator'
    check_inputs(op, (data,))
    xp, x = data._xp, data._data
    if params.transform_type == 'affine':
        _check_affine(op, 'data', x)
        target = _target_size(op, params.target_shape)
    elif x.ndim != 4 or x.shape[1] != 2:
        raise MXNetError("GridGenerator: a warp's data must be an optical flow (batch, 2, "
                         "height, width), got shape %s" % shape_text(x.shape))
    if x.dtype != np.float32:
        raise MXNetError("GridGenerator works on float32 data (as MXNet 1.9.1), got %s; "
                         "convert with .astype('float32')" % x.dtype)
    with _backend.device_scope(data._ctx):
        if params.transform_type == 'affine':
            grid, backward = _affine_grid(xp, x, target)
        else:
            grid, half = _warp_grid(xp, x)

            def backward(grad):
                return grad / half
    return record(grid, data, (data,), lambda grad: (backward(grad),), op)


# ---------------------------------------------------------------------- sampling
def _check_sampler_inputs(op, data, grid):
    if data.ndim != 4:
        raise MXNetError("%s: data must be 4-D (batch, channel, height, width), got shape %s"
                         % (op, shape_text(data.shape)))
    if grid.ndim != 4 or grid.shape[1] != 2 or grid.shape[0] != data.shape[0]:
        raise MXNetError("%s: the grid must be (batch=%d, 2, height, width), got shape %s"
                         % (op, data.shape[0], shape_text(grid.shape)))


def _corners(xp, data, grid):
    """The four pixels around each of the (N, H', W') grid points, as ``(dy, dx, wy, wx,
    rows, cols, inside)``: the corner's offset from the top-left one, its weights along y
    and x, its (clipped) position and whether it lies inside the image."""
    _, _, height, width = data.shape
    dtype = data.dtype.type
    x = (grid[:, 0] + dtype(1)) * dtype((width - 1) / 2)
    y = (grid[:, 1] + dtype(1)) * dtype((height - 1) / 2)
    x0, y0 = xp.floor(x), xp.floor(y)
    fx, fy = x - x0, y - y0          # the weight of the right and the lower neighbour
    x0, y0 = x0.astype(np.int64), y0.astype(np.int64)
    corners = []
    for dy, wy in ((0, 1 - fy), (1, fy)):
        for dx, wx in ((0, 1 - fx), (1, fx)):
            rows, cols = y0 + dy, x0 + dx
            inside = (rows >= 0) & (rows < height) & (cols >= 0) & (cols < width)
            corners.append((dy, dx, wy, wx, xp.clip(rows, 0, height - 1),
                            xp.clip(cols, 0, width - 1), inside))
    return corners


def _gather(xp, data, rows, cols, inside):
    """data[n, :, rows, cols] as (N, C, H', W'), 0 where the pixel is outside."""
    batch = xp.arange(data.shape[0])[:, None, None]
    values = data[batch, :, rows, cols]                 # (N, H', W', C)
    return xp.moveaxis(values * inside[..., None], -1, 1)


def _bilinear_sample(xp, data, grid):
    """(out (N, C, H', W'), backward ``d out -> (d data, d grid)``)."""
    corners = _corners(xp, data, grid)
    values = [_gather(xp, data, rows, cols, inside)
              for _, _, _, _, rows, cols, inside in corners]
    out = sum((wy * wx)[:, None] * v for (_, _, wy, wx, *_), v in zip(corners, values))

    def backward(grad):
        d_data = xp.zeros_like(data)
        batch = xp.arange(data.shape[0])[:, None, None]
        channels_last = xp.moveaxis(grad, 1, -1)        # (N, H', W', C)
        d_x = xp.zeros_like(grid[:, 0])
        d_y = xp.zeros_like(grid[:, 1])
        for (dy, dx, wy, wx, rows, cols, inside), v in zip(corners, values):
            weight = (wy * wx * inside)[..., None]
            xp.add.at(d_data, (batch, slice(None), rows, cols), channels_last * weight)
            seen = (grad * v).sum(axis=1)                # Σ_c g · corner value
            d_x += seen * wy * (1 if dx else -1)
            d_y += seen * wx * (1 if dy else -1)
        _, _, height, width = data.shape
        dtype = data.dtype.type
        d_grid = xp.stack([d_x * dtype((width - 1) / 2), d_y * dtype((height - 1) / 2)], 1)
        return d_data, d_grid
    return out, backward


def _bilinear_sampler(params, data=None, grid=None):
    """Read ``data`` at the grid's positions, interpolating bilinearly (zeros outside)."""
    op = 'BilinearSampler'
    check_inputs(op, (data, grid))
    _check_sampler_inputs(op, data, grid)
    float_dtype(op, data)
    xp = data._xp
    with _backend.device_scope(data._ctx):
        out, backward = _bilinear_sample(xp, data._data, grid._data)

    def grads(grad):
        with _backend.device_scope(data._ctx):
            return backward(grad)
    return record(out, data, (data, grid), grads, op)


def _spatial_transformer(params, data=None, loc=None):
    """Warp ``data`` by one affine transform per sample (``loc``, (N, 6)) onto a
    ``target_shape`` output: GridGenerator then BilinearSampler."""
    op = 'SpatialTransformer'
    check_inputs(op, (data, loc))
    if data.ndim != 4:
        raise MXNetError("SpatialTransformer: data must be 4-D (batch, channel, height, "
                         "width), got shape %s" % shape_text(data.shape))
    _check_affine(op, 'loc', loc._data)
    if loc.shape[0] != data.shape[0]:
        raise MXNetError("SpatialTransformer: loc has %d rows for a batch of %d"
                         % (loc.shape[0], data.shape[0]))
    target = _target_size(op, params.target_shape)
    float_dtype(op, data)
    if data.dtype == np.float16 and data.context.device_type == 'cpu':
        raise MXNetError("SpatialTransformer: float16 is not supported on the CPU (as in "
                         "MXNet 1.9.1); use float32")
    xp = data._xp
    with _backend.device_scope(data._ctx):
        grid, grid_backward = _affine_grid(xp, loc._data, target)
        out, sample_backward = _bilinear_sample(xp, data._data, grid)

    def backward(grad):
        with _backend.device_scope(data._ctx):
            d_data, d_grid = sample_backward(grad)
            return d_data, grid_backward(d_grid) if tracked(loc) else None
    return record(out, data, (data, loc), backward, op)


GridGenerator = GRID_GENERATOR.function(_grid_generator)
BilinearSampler = BILINEAR_SAMPLER.function(_bilinear_sampler)
SpatialTransformer = SPATIAL_TRANSFORMER.function(_spatial_transformer)
