"""Operators that write into a copy of an array: _slice_assign, _slice_assign_scalar
(``NDArray.slice_assign`` and ``slice_assign_scalar`` run them with ``out=self``),
fill_element_0index and _onehot_encode (``nd.onehot_encode``). MXNet registers no gradient
for any of them.
"""
import numpy as np

from ...base import MXNetError
from ..registry import Float, Op, Shape, add
from .indexing import not_differentiable, slice_key

_RANGE = (Shape('begin', none_items=True, doc='Start per axis (None: from the start).'),
          Shape('end', none_items=True, doc='Stop per axis, exclusive (None: to the end).'),
          Shape('step', (), none_items=True, accepts_none=True,
                doc='Step per axis (default 1).'))


def slice_assign(env, lhs, rhs, begin, end, step):
    """``lhs`` with ``lhs[begin:end:step] = rhs`` (rhs of the slice's shape; the bounds
    are clipped to each axis, as Python's slices)."""
    key = slice_key('slice_assign', lhs.shape, begin, end, step, check_begin=False)
    y = lhs.copy()
    if y[key].shape != rhs.shape:
        raise MXNetError('slice_assign: rhs has shape %s, the slice %s'
                         % (rhs.shape, y[key].shape))
    y[key] = rhs
    return y, not_differentiable('_slice_assign')


def slice_assign_scalar(env, data, scalar, begin, end, step):
    """``data`` with ``data[begin:end:step] = scalar`` (cast to data's dtype)."""
    key = slice_key('slice_assign_scalar', data.shape, begin, end, step,
                    check_begin=False)
    y = data.copy()
    y[key] = data.dtype.type(scalar)
    return y, not_differentiable('_slice_assign_scalar')


add(Op('_slice_assign', slice_assign, ('lhs', 'rhs'), aliases=('_crop_assign',),
       params=_RANGE))
add(Op('_slice_assign_scalar', slice_assign_scalar, aliases=('_crop_assign_scalar',),
       params=(Float('scalar', 0.0, doc='The value to write.'),) + _RANGE))


def _row_ids(name, matrix, ids):
    """One column id per row of ``matrix`` (int64; fractions truncated), each in range:
    MXNet writes an id outside the row into other rows' memory."""
    if matrix.ndim != 2 or ids.ndim != 1 or ids.shape[0] != matrix.shape[0]:
        raise MXNetError('%s takes a matrix (N, K) and N ids, got shapes %s and %s'
                         % (name, matrix.shape, ids.shape))
    columns = ids.astype(np.int64)
    if columns.size and (int(columns.min()) < 0 or int(columns.max()) >= matrix.shape[1]):
        raise MXNetError('%s: a column id is outside [0, %d); fix the ids'
                         % (name, matrix.shape[1]))
    return columns


def fill_element_0index(env, lhs, mhs, rhs):
    """``lhs`` with ``lhs[i, rhs[i]] = mhs[i]`` for each row i."""
    columns = _row_ids('fill_element_0index', lhs, rhs)
    if mhs.shape != rhs.shape:
        raise MXNetError('fill_element_0index: %d values for %d rows'
                         % (mhs.size, lhs.shape[0]))
    y = lhs.copy()
    y[env.xp.arange(lhs.shape[0]), columns] = mhs
    return y, not_differentiable('fill_element_0index')


def onehot_encode(env, lhs, rhs):
    """Rows of zeros of ``rhs``'s shape (N, K) with a 1 at column ``lhs[i]`` of row i."""
    xp = env.xp
    columns = _row_ids('onehot_encode', rhs, lhs)
    y = xp.zeros_like(rhs)
    y[xp.arange(rhs.shape[0]), columns] = 1
    return y, not_differentiable('_onehot_encode')


# MXNet's kernels of these two read every input as float32
add(Op('fill_element_0index', fill_element_0index, ('lhs', 'mhs', 'rhs'),
       dtypes=('float32',)))
add(Op('_onehot_encode', onehot_encode, ('lhs', 'rhs'), dtypes=('float32',)))
