"""``nd.ROIPooling``: max pooling of regions of interest to a fixed size (Girshick, 2015,
"Fast R-CNN", §2.1).

Each row of ``rois`` is ``(batch_index, x1, y1, x2, y2)`` in image coordinates; scaled by
``spatial_scale`` and rounded, it names a box of the feature map ``data[batch_index]``
(corners included). The box is cut into ``pooled_size = (PH, PW)`` bins; bin ``(i, j)``
spans the rows ``⌊i·h/PH⌋ … ⌈(i + 1)·h/PH⌉ − 1`` of the box (``h`` its height, at least 1)
and likewise the columns, clipped to the feature map; each output is the maximum of its
bin, or 0 for a bin that lies outside the map or a row whose batch index is negative.
The gradient flows to the maximum of each bin (the first one, on ties); ``rois`` receives
none.
"""
import math

import numpy as np

from ... import _backend
from ...base import MXNetError
from .common import check_inputs, float_dtype, record, shape_text
from .declare import OpDef, REQUIRED
from ..registry import Float, Shape

__all__ = ['ROIPooling']

# MXNet keeps the position of each maximum as a hidden second output.
ROI_POOLING = OpDef('ROIPooling', inputs=('data', 'rois'), hidden_outputs=1, params=(
    Shape('pooled_size', REQUIRED, doc='The output size (height, width) of every region.'),
    Float('spatial_scale', REQUIRED, low=0.0, high=1.0, single=True,
          doc='Feature-map size over image size (1 / the network\'s total stride).')))


def _round_half_away(value):
    """C's ``round``: halves go away from zero."""
    return int(math.floor(abs(value) + 0.5)) * (1 if value >= 0 else -1)


def _bins(start, size, bins, limit):
    """``[(begin, end)]`` of each bin of a box side of ``size`` starting at ``start``."""
    step = size / bins
    return [(min(max(math.floor(k * step) + start, 0), limit),
             min(max(math.ceil((k + 1) * step) + start, 0), limit)) for k in range(bins)]


def _roi_pooling(params, data=None, rois=None):
    """Max-pool every region of interest to ``pooled_size`` bins."""
    op = 'ROIPooling'
    check_inputs(op, (data, rois))
    float_dtype(op, data)
    pooled = params.pooled_size
    if len(pooled) != 2 or min(pooled) < 1:
        raise MXNetError("ROIPooling: pooled_size=%s must be two positive sizes (height, "
                         "width)" % shape_text(pooled))
    if data.ndim != 4:
        raise MXNetError("ROIPooling: data must be a 4-D feature map (batch, channel, height, "
                         "width), got shape %s" % shape_text(data.shape))
    if rois.ndim != 2 or rois.shape[1] != 5:
        raise MXNetError("ROIPooling: rois must be (regions, 5) rows of (batch_index, x1, y1, "
                         "x2, y2), got shape %s" % shape_text(rois.shape))
    xp, x = data._xp, data._data
    batch, channels, height, width = x.shape
    boxes = _backend.to_host(rois._data).astype(np.float64)
    out = xp.zeros((len(boxes), channels) + tuple(pooled), dtype=x.dtype)
    winners = []            # (region, bin row, bin column, the bin's flat argmax per channel)
    scale = params.spatial_scale
    with _backend.device_scope(data._ctx):
        for r, (index, x1, y1, x2, y2) in enumerate(boxes):
            if index < 0:
                continue
            if index >= batch:
                raise MXNetError("ROIPooling: region %d names batch index %d of a batch of %d"
                                 % (r, int(index), batch))
            top, left = _round_half_away(y1 * scale), _round_half_away(x1 * scale)
            rows = max(_round_half_away(y2 * scale) - top + 1, 1)
            cols = max(_round_half_away(x2 * scale) - left + 1, 1)
            for i, (r0, r1) in enumerate(_bins(top, rows, pooled[0], height)):
                for j, (c0, c1) in enumerate(_bins(left, cols, pooled[1], width)):
                    if r1 <= r0 or c1 <= c0:
                        continue
                    window = x[int(index), :, r0:r1, c0:c1].reshape(channels, -1)
                    best = window.argmax(axis=1)
                    out[r, :, i, j] = window[xp.arange(channels), best]
                    winners.append((r, i, j, int(index), r0, r1, c0, c1, best))

    def backward(grad):
        with _backend.device_scope(data._ctx):
            d_data = xp.zeros_like(x)
            for r, i, j, index, r0, r1, c0, c1, best in winners:
                d_window = d_data[index, :, r0:r1, c0:c1].reshape(channels, -1)
                d_window[xp.arange(channels), best] += grad[r, :, i, j]
                d_data[index, :, r0:r1, c0:c1] = d_window.reshape(channels, r1 - r0, c1 - c0)
            return d_data, xp.zeros_like(rois._data)
    return record(out, data, (data, rois), backward, op)


ROIPooling = ROI_POOLING.function(_roi_pooling)
