"""2-D max pooling, compiled with numba (imported only when :mod:`.pool_fast` uses it).

The same rule as :mod:`.pool_reference`: each window of the input, padded with the
dtype's lowest value, gives its largest entry, and the gradient goes to the first
largest one in row-major order of the offsets (each entry is compared with ``>`` to
the largest so far, starting from the lowest value, as the reference does: a NaN or
-inf never wins).
``saved[n, c, oh, ow]`` is that entry's offset ``kh·KW + kw`` in its window, the same
index :mod:`.pool_fast`'s NumPy path keeps.
"""
import numba


@numba.njit(cache=True)
def max_pool_2d(x, kernel_h, kernel_w, stride_h, stride_w, pad_h, pad_w, lowest, y, saved):
    """Fill ``y`` and ``saved`` (both ``(N, C, OH, OW)``) from ``x`` (N, C, H, W)."""
    batch, channels, height, width = x.shape
    out_h, out_w = y.shape[2], y.shape[3]
    for n in range(batch):
        for c in range(channels):
            for oh in range(out_h):
                for ow in range(out_w):
                    best, where = lowest, 0
                    for kh in range(kernel_h):
                        ih = oh * stride_h + kh - pad_h
                        for kw in range(kernel_w):
                            iw = ow * stride_w + kw - pad_w
                            if 0 <= ih < height and 0 <= iw < width:
                                v = x[n, c, ih, iw]
                            else:
                                v = lowest
                            if v > best:
                                best, where = v, kh * kernel_w + kw
                    y[n, c, oh, ow] = best
                    saved[n, c, oh, ow] = where


@numba.njit(cache=True)
def max_pool_2d_backward(dy, saved, kernel_w, stride_h, stride_w, pad_h, pad_w, dx):
    """Add each ``dy`` onto the input entry that won its window (``dx`` zeroed)."""
    batch, channels, out_h, out_w = dy.shape
    height, width = dx.shape[2], dx.shape[3]
    for n in range(batch):
        for c in range(channels):
            for oh in range(out_h):
                for ow in range(out_w):
                    k = saved[n, c, oh, ow]
                    ih = oh * stride_h + k // kernel_w - pad_h
                    iw = ow * stride_w + k % kernel_w - pad_w
                    if 0 <= ih < height and 0 <= iw < width:
                        dx[n, c, ih, iw] += dy[n, c, oh, ow]
