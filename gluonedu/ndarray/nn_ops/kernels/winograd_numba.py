"""The tile transforms of :mod:`.conv_winograd`, compiled with numba (imported only when
it is used).

Tensors of tiles have shape ``(4, 4, C, N, tiles_h, tiles_w)``: entry ``[a, b, c, n, i, j]``
is element ``(a, b)`` of the transformed tile at tile position ``(i, j)`` of channel ``c``
of sample ``n``; reshaped to ``(16, C, T)`` they are the right operands of the batched
products. Each transform is a product by a small matrix along the rows of a tile, then
along its columns; the loops below spell out the matrices' entries (0 and ±1, so the
products are additions) and run the innermost loop along a row of the image, where NumPy
arrays are contiguous, so that the compiler vectorises it.

The arithmetic stays in the data's dtype: a constant like ``2`` would turn float32
arithmetic into float64 in numba, and there is none here.
"""
import numba
import numpy as np


@numba.njit(cache=True)
def data_tiles(x, pad_h, pad_w, out, sample):
    """``out[:, :, c, sample + n, i, j] = Bᵀ·d·B`` for the 4×4 window ``d`` of zero-padded
    ``x[n]`` at (2i, 2j) (rows of Bᵀ: d0 − d2, d1 + d2, d2 − d1, d1 − d3)."""
    batch, channels, height, width = x.shape
    tiles_h, tiles_w = out.shape[4], out.shape[5]
    span = 2 * tiles_w + 2                 # padded columns the tiles of a row read
    rows = np.zeros((4, span), x.dtype)    # Bᵀ·(4 input rows), zero-padded
    zero = np.zeros(width, x.dtype)
    first, last = max(0, -pad_w), min(width, span - pad_w)
    for n in range(batch):
        for c in range(channels):
            for i in range(tiles_h):
                top = 2 * i - pad_h
                r0 = x[n, c, top] if 0 <= top < height else zero
                r1 = x[n, c, top + 1] if 0 <= top + 1 < height else zero
                r2 = x[n, c, top + 2] if 0 <= top + 2 < height else zero
                r3 = x[n, c, top + 3] if 0 <= top + 3 < height else zero
                for w in range(first, last):
                    rows[0, w + pad_w] = r0[w] - r2[w]
                    rows[1, w + pad_w] = r1[w] + r2[w]
                    rows[2, w + pad_w] = r2[w] - r1[w]
                    rows[3, w + pad_w] = r1[w] - r3[w]
                for a in range(4):
                    for j in range(tiles_w):
                        d0, d1 = rows[a, 2 * j], rows[a, 2 * j + 1]
                        d2, d3 = rows[a, 2 * j + 2], rows[a, 2 * j + 3]
                        out[a, 0, c, sample + n, i, j] = d0 - d2
                        out[a, 1, c, sample + n, i, j] = d1 + d2
                        out[a, 2, c, sample + n, i, j] = d2 - d1
                        out[a, 3, c, sample + n, i, j] = d1 - d3


@numba.njit(cache=True)
def gradient_tiles(dy, out):
    """``out[:, :, o, n, i, j] = A·g·Aᵀ`` for the 2×2 block ``g`` of ``dy`` at (2i, 2j),
    zero beyond its edge (rows of A: g0, g0 + g1, g0 − g1, −g1)."""
    batch, channels, height, width = dy.shape
    tiles_h, tiles_w = out.shape[4], out.shape[5]
    rows = np.zeros((4, 2 * tiles_w), dy.dtype)  # A·(2 gradient rows), zero-padded
    zero = np.zeros(width, dy.dtype)
    for n in range(batch):
        for o in range(channels):
            for i in range(tiles_h):
                g0 = dy[n, o, 2 * i]
                g1 = dy[n, o, 2 * i + 1] if 2 * i + 1 < height else zero
                for w in range(width):
                    rows[0, w] = g0[w]
                    rows[1, w] = g0[w] + g1[w]
                    rows[2, w] = g0[w] - g1[w]
                    rows[3, w] = -g1[w]
                for a in range(4):
                    for j in range(tiles_w):
                        e0, e1 = rows[a, 2 * j], rows[a, 2 * j + 1]
                        out[a, 0, o, n, i, j] = e0
                        out[a, 1, o, n, i, j] = e0 + e1
                        out[a, 2, o, n, i, j] = e0 - e1
                        out[a, 3, o, n, i, j] = -e1


@numba.njit(cache=True)
def output_tiles(m, out):
    """``out[n, o, 2i:2i+2, 2j:2j+2] = Aᵀ·m[:, :, o, n, i, j]·A``, cut at ``out``'s edge
    (rows of Aᵀ: m0 + m1 + m2, m1 − m2 − m3)."""
    channels, batch, tiles_h, tiles_w = m.shape[2:]
    height, width = out.shape[2], out.shape[3]
    half = np.empty((2, 4, tiles_w), out.dtype)  # Aᵀ·(the tiles of a row)
    whole = width // 2                            # tiles with both columns inside
    for o in range(channels):
        for n in range(batch):
            for i in range(tiles_h):
                for b in range(4):
                    for j in range(tiles_w):
                        m0, m1 = m[0, b, o, n, i, j], m[1, b, o, n, i, j]
                        m2, m3 = m[2, b, o, n, i, j], m[3, b, o, n, i, j]
                        half[0, b, j] = m0 + m1 + m2
                        half[1, b, j] = m1 - m2 - m3
                for r in range(2):
                    if 2 * i + r < height:
                        row = out[n, o, 2 * i + r]
                        for j in range(whole):
                            h0, h1 = half[r, 0, j], half[r, 1, j]
                            h2, h3 = half[r, 2, j], half[r, 3, j]
                            row[2 * j] = h0 + h1 + h2
                            row[2 * j + 1] = h1 - h2 - h3
                        if whole < tiles_w:
                            row[2 * whole] = half[r, 0, whole] + half[r, 1, whole] + \
                                half[r, 2, whole]
