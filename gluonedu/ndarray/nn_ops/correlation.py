"""``nd.Correlation``: the correlation layer of FlowNet (Dosovitskiy, Fischer, Ilg et al.,
2015, "FlowNet: learning optical flow with convolutional networks", §3).

It compares patches of two feature maps ``f₁, f₂`` (N, C, H, W), both padded by
``pad_size``: for each output position (every ``stride1``-th patch of ``f₁``) and each
displacement ``(dy, dx)`` in ``{−d, …, d}²`` quantized by ``stride2`` (``d =
max_displacement``), one output channel holds::

    c(x₁, d) = 1/(K²·C) · Σ_{o ∈ K×K patch} Σ_c  f₁(x₁ + o)·f₂(x₁ + d + o)       is_multiply
                                                 |f₁(x₁ + o) − f₂(x₁ + d + o)|  otherwise

with ``K = kernel_size`` (odd). Patch ``(i, j)`` starts at row ``i·stride1 + d`` and
column ``j·stride1 + d`` of the padded map, and there are ``⌈(H + 2·pad − 2·(d + (K −
1)/2)) / stride1⌉`` rows of them (columns likewise). The output is ``(N, G², rows,
columns)`` with ``G = 2⌊d / stride2⌋ + 1``, displacements ordered row by row.
"""
import math

from ... import _backend
from ...base import MXNetError
from .common import check_inputs, float_dtype, record, shape_text
from .declare import OpDef, Param

__all__ = ['Correlation']

# MXNet keeps the two padded inputs as hidden outputs.
CORRELATION = OpDef('Correlation', inputs=('data1', 'data2'), hidden_outputs=2, params=(
    Param('kernel_size', 'count', 1, 'Patch size K (odd).'),
    Param('max_displacement', 'count', 1, 'Largest displacement d compared.'),
    Param('stride1', 'count', 1, 'Step between the patches of data1.'),
    Param('stride2', 'count', 1, 'Step between the displacements compared.'),
    Param('pad_size', 'count', 0, 'Zeros added around both inputs.'),
    Param('is_multiply', 'bool', True, 'Multiply the patches (or take the absolute difference).')))


class _Layout:
    """Where the patches and displacements lie, from the parameters and the data shape."""

    def __init__(self, params, shape):
        if params.kernel_size % 2 == 0:
            raise MXNetError("Correlation: kernel_size=%d must be odd" % params.kernel_size)
        if params.stride2 < 1:
            raise MXNetError("Correlation: stride2 must be at least 1")
        self.kernel, self.step = params.kernel_size, params.stride1
        self.reach = params.max_displacement
        border = self.reach + (self.kernel - 1) // 2
        padded = [n + 2 * params.pad_size for n in shape[2:]]
        self.rows, self.cols = (math.ceil((n - 2 * border) / self.step) if self.step else 0
                                for n in padded)
        if self.rows < 1 or self.cols < 1:
            raise MXNetError("Correlation: the patches and displacements do not fit in data "
                             "of shape %s with pad_size=%d, kernel_size=%d, max_displacement="
                             "%d, stride1=%d" % (shape_text(shape), params.pad_size,
                                                 self.kernel, self.reach, self.step))
        radius = self.reach // params.stride2
        self.displacements = [(dy * params.stride2, dx * params.stride2)
                              for dy in range(-radius, radius + 1)
                              for dx in range(-radius, radius + 1)]

    def patch_offsets(self):
        return [(h, w) for h in range(self.kernel) for w in range(self.kernel)]

    def window(self, row, col):
        """The (rows, columns) slices of the patch element at offset (row, col) from
        every patch's start."""
        start_r, start_c = self.reach + row, self.reach + col
        return (slice(start_r, start_r + self.step * (self.rows - 1) + 1, self.step),
                slice(start_c, start_c + self.step * (self.cols - 1) + 1, self.step))


def _correlation(params, data1=None, data2=None):
    """Compare every patch of data1 with the displaced patches of data2 (FlowNet)."""
    op = 'Correlation'
    check_inputs(op, (data1, data2))
    float_dtype(op, data1)
    if data1.ndim != 4 or data1.shape != data2.shape:
        raise MXNetError("Correlation: data1 and data2 must be 4-D feature maps of one shape, "
                         "got %s and %s" % (shape_text(data1.shape), shape_text(data2.shape)))
    layout = _Layout(params, data1.shape)
    xp, pad = data1._xp, params.pad_size
    widths = ((0, 0), (0, 0), (pad, pad), (pad, pad))
    count = data1._data.dtype.type(layout.kernel ** 2 * data1.shape[1])
    with _backend.device_scope(data1._ctx):
        a, b = xp.pad(data1._data, widths), xp.pad(data2._data, widths)
        pairs = []       # (output channel, slices into a, slices into b)
        for channel, (dy, dx) in enumerate(layout.displacements):
            for h, w in layout.patch_offsets():
                pairs.append((channel, layout.window(h, w), layout.window(h + dy, w + dx)))
        out = xp.zeros((a.shape[0], len(layout.displacements), layout.rows, layout.cols),
                       dtype=a.dtype)
        for channel, in_a, in_b in pairs:
            p1, p2 = a[(Ellipsis,) + in_a], b[(Ellipsis,) + in_b]
            out[:, channel] += (p1 * p2 if params.is_multiply else abs(p1 - p2)).sum(axis=1)
        out /= count

    def backward(grad):
        with _backend.device_scope(data1._ctx):
            d_a, d_b = xp.zeros_like(a), xp.zeros_like(b)
            for channel, in_a, in_b in pairs:
                g = grad[:, channel:channel + 1] / count
                p1, p2 = a[(Ellipsis,) + in_a], b[(Ellipsis,) + in_b]
                if params.is_multiply:
                    d_a[(Ellipsis,) + in_a] += g * p2
                    d_b[(Ellipsis,) + in_b] += g * p1
                else:
                    slope = g * xp.sign(p1 - p2)
                    d_a[(Ellipsis,) + in_a] += slope
                    d_b[(Ellipsis,) + in_b] -= slope
            height, width = data1.shape[2:]
            crop = (Ellipsis, slice(pad, pad + height), slice(pad, pad + width))
            return d_a[crop], d_b[crop]
    return record(out, data1, (data1, data2), backward, op)


Correlation = CORRELATION.function(_correlation)
