"""3×3 stride-1 convolutions by Winograd's minimal filtering F(2×2, 3×3) (Lavin & Gray,
"Fast Algorithms for Convolutional Neural Networks", 2016).

Each 2×2 block of the output is computed from the 4×4 window ``d`` of padded input
under it, and the 3×3 kernel ``g``, as

    y = Aᵀ·[(G·g·Gᵀ) ⊙ (Bᵀ·d·B)]·A

with small constant matrices (below): 16 products per block and channel pair instead
of 36. Summed over the input channels, the elementwise product becomes, for each of the
16 entries ``(a, b)`` of the 4×4 tiles, one matrix product ``U[a, b] (O, C) · V[a, b]
(C, T)`` over the ``T`` tiles of the whole batch: 16 GEMMs with 2.25× fewer multiply-adds
than the direct convolution, plus the transforms of the data (``V``) and the output
(numba loops, :mod:`.winograd_numba`).

The gradients are the same algorithm: the input gradient is a convolution of ``dy``
(padded by ``2 − pad``) with the kernel flipped and its channel axes swapped; the
weight gradient, since ``y`` is linear in ``U``, is ``Gᵀ·[Σ_tiles (A·dy·Aᵀ) ⊙
(Bᵀ·d·B)]·G``, again 16 GEMMs (over the tiles).

The transforms' entries are 0, ±1 and ±½: the result differs from the direct sum by
rounding only (a few float32 ulps of the largest terms), which the tests bound.
"""
import numpy as np

from .... import _numba

__all__ = ['applies', 'forward', 'backward_data', 'backward_weight']

#: G: the kernel transform (4×3).
G = np.array([[1, 0, 0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0, 0, 1]])

#: Input channels from which the transforms pay for themselves (below this the
#: shifted-GEMM kernels of :mod:`.conv_fast` are faster).
WINOGRAD_FROM_CHANNELS = 16

#: Bytes of tiles handled at a time (a chunk of samples): small enough to stay in the
#: cache between the transforms and the products.
CHUNK_BYTES = 1 << 21


def applies(xp, x_dtype, kernel, stride, pad, dilate, groups, channels, filters):
    """Whether a convolution takes this path: numba present, NumPy float data, a 3×3
    kernel, stride and dilation 1, one group, pad at most 2, enough channels."""
    return (xp is np and np.dtype(x_dtype) in (np.float32, np.float64) and
            tuple(kernel) == (3, 3) and tuple(stride) == (1, 1) and
            tuple(dilate) == (1, 1) and groups == 1 and max(pad) <= 2 and
            min(channels, filters) >= WINOGRAD_FROM_CHANNELS and _numba.available())


def _loops():
    return _numba.kernels(__package__ + '.winograd_numba')


def _tiles(size):
    return (size + 1) // 2


def _chunks(x, out_size):
    """Slices of samples whose tiles take about :data:`CHUNK_BYTES`."""
    per_sample = 16 * x.shape[1] * _tiles(out_size[0]) * _tiles(out_size[1]) * x.itemsize
    step = max(1, CHUNK_BYTES // per_sample)
    return [slice(n, min(n + step, x.shape[0])) for n in range(0, x.shape[0], step)]


def _tile_array(x, out_size):
    """An empty ``(4, 4, C, N, tiles_h, tiles_w)`` array for the tiles of ``x``."""
    return np.empty((4, 4, x.shape[1], x.shape[0], _tiles(out_size[0]), _tiles(out_size[1])),
                    dtype=x.dtype)


def _flat(tiles, chunk=slice(None)):
    """The ``chunk`` of samples of a tile array as ``(16, channels, tiles)`` (a view)."""
    part = tiles[:, :, :, chunk]
    return part.reshape(16, part.shape[2], -1)


def _kernel_tiles(w):
    """``U = G·g·Gᵀ`` of each (output, input) channel pair, ``(16, O, C)``."""
    # two products along the kernel axes (a BLAS call each), like the weight gradient's
    rows = np.tensordot(G, w.astype(np.float64), axes=([1], [2]))   # (a, O, C, l)
    u = np.tensordot(rows, G, axes=([3], [1])).transpose(0, 3, 1, 2)  # (a, b, O, C)
    return np.ascontiguousarray(u.reshape(16, w.shape[0], w.shape[1]), dtype=w.dtype)


def _convolve(x, w, pad, out_size):
    """``(y, V)``: the convolution, and its data tiles.

    A chunk of samples at a time is transformed, multiplied and transformed back, so
    that its tiles are still in the cache for the products and the output transform.
    """
    x, u = np.ascontiguousarray(x), _kernel_tiles(w)
    v = _tile_array(x, out_size)
    y = np.empty((x.shape[0], w.shape[0]) + tuple(out_size), dtype=x.dtype)
    for chunk in _chunks(x, out_size):
        _loops().data_tiles(x[chunk], pad[0], pad[1], v, chunk.start)
        m = np.matmul(u, _flat(v, chunk))  # (16, O, tiles of the chunk)
        _loops().output_tiles(m.reshape((4, 4, w.shape[0], -1) + v.shape[4:]), y[chunk])
    return y, v


def forward(x, w, pad, out_size):
    """``(y, V)``: the convolution of ``x`` (N, C, H, W) with ``w`` (O, C, 3, 3), no bias,
    and the data tiles, which :func:`backward_weight` uses again."""
    return _convolve(x, w, pad, out_size)


def backward_data(dy, w, x_shape, pad):
    """The input gradient: ``dy`` convolved with the flipped, transposed kernel."""
    flipped = np.ascontiguousarray(w[:, :, ::-1, ::-1].transpose(1, 0, 2, 3))
    return _convolve(dy, flipped, (2 - pad[0], 2 - pad[1]), x_shape[2:])[0]


def backward_weight(x, dy, w_shape, pad, v=None):
    """The weight gradient ``Gᵀ·[Σ_tiles (A·dy·Aᵀ) ⊙ V]·G``, shape ``w_shape`` (``V``
    from :func:`forward`, or None to transform ``x`` again)."""
    out_size, dy = dy.shape[2:], np.ascontiguousarray(dy)
    if v is None:
        v = _tile_array(x, out_size)
        _loops().data_tiles(np.ascontiguousarray(x), pad[0], pad[1], v, 0)
    m = np.zeros((16, w_shape[0], w_shape[1]), dtype=dy.dtype)
    for chunk in _chunks(dy, out_size):
        g = _tile_array(dy[chunk], out_size)
        _loops().gradient_tiles(dy[chunk], g)
        m += np.matmul(_flat(g), _flat(v, chunk).transpose(0, 2, 1))  # (16, O, C)
    m = m.reshape((4, 4) + m.shape[1:]).astype(np.float64)
    # Gᵀ·m·G for every (o, c), as two products along the tile axes (a BLAS call each)
    rows = np.tensordot(G, m, axes=([0], [0]))                     # (k, b, O, C)
    dw = np.tensordot(rows, G, axes=([1], [0])).transpose(1, 2, 0, 3)  # (O, C, k, l)
    return np.ascontiguousarray(dw, dtype=dy.dtype)
