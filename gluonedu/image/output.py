"""Host pixels handed back as NDArrays, or written into a caller's ``out`` array."""
import numpy as np

from .. import ndarray as nd
from ..base import MXNetError

__all__ = ['as_result']


def as_result(pixels, ctx, out, what):
    """``pixels`` (NumPy) as an NDArray on ``ctx`` (None: the default context), or copied
    into ``out`` when given, which must have their shape and dtype."""
    if out is None:
        return nd.array(pixels, ctx=ctx, dtype=pixels.dtype)
    if out.shape != pixels.shape or np.dtype(out.dtype) != pixels.dtype:
        raise MXNetError('%s: out has shape %s and dtype %s, but the result has shape %s and '
                         'dtype %s' % (what, out.shape, np.dtype(out.dtype).name, pixels.shape,
                                       pixels.dtype.name))
    out[:] = pixels
    return out
