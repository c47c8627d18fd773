"""im2col and col2im for 2-D convolutions, compiled with numba (imported only when it is
used, by :mod:`.conv_fast`).

``cols`` has shape ``(N·OH·OW, G, KH·KW·C/G)``: row ``(n, oh, ow)``, group ``g``, column
``(kh, kw, c)`` holds ``x[n, g·C/G + c, oh·sh + kh·dh − ph, ow·sw + kw·dw − pw]``, 0
where that falls in the padding. Reading the channel-first data directly saves NumPy's
padded channel-last copy and its strided gather; col2im adds the columns back onto a
channel-first gradient the same way, in one pass.
"""
import numba


@numba.njit(cache=True)
def col2im_2d(dcols, kernel_h, kernel_w, stride_h, stride_w, pad_h, pad_w, dilate_h,
              dilate_w, out_h, out_w, dx):
    """Add each column of ``dcols`` onto the position of ``dx`` (N, C, H, W, zeroed by
    the caller) that im2col took it from."""
    batch, channels, height, width = dx.shape
    groups = dcols.shape[1]
    per_group = channels // groups
    m = 0
    for n in range(batch):
        for oh in range(out_h):
            for ow in range(out_w):
                for g in range(groups):
                    j = 0
                    for kh in range(kernel_h):
                        ih = oh * stride_h + kh * dilate_h - pad_h
                        for kw in range(kernel_w):
                            iw = ow * stride_w + kw * dilate_w - pad_w
                            if 0 <= ih < height and 0 <= iw < width:
                                for c in range(per_group):
                                    dx[n, g * per_group + c, ih, iw] += dcols[m, g, j + c]
                            j += per_group
                m += 1
