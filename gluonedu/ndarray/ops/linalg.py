"""Matrix products: dot, batch_dot and khatri_rao.

Sparse inputs reach ``dot`` densified unless a storage-aware implementation is registered
(``compute_ex`` of the entry), as MXNet falls back to dense storage.
"""
import numpy as np

from ...base import MXNetError
from ..infer import forward_rule
from ..nn_ops.kernels.blas import threads_for
from ..registry import Bool, Enum, Int, Op, add, get
from .indexing import not_differentiable

def _check_float(env, name, array):
    """As MXNet: products of float32/float64 arrays (float16 too on a GPU)."""
    if array.dtype not in (np.float32, np.float64) and not (env.gpu and
                                                             array.dtype == np.float16):
        raise MXNetError('%s supports float32 and float64 inputs (and float16 on a GPU), '
                         'got %s; convert with .astype(\'float32\')' % (name, array.dtype))


_PRODUCT_PARAMS = (
    Bool('transpose_a', False, doc='Transpose the first operand first.'),
    Bool('transpose_b', False, doc='Transpose the second operand first.'),
    Enum('forward_stype', (None, 'csr', 'default', 'row_sparse'), None,
         doc='The storage type of the result (None: inferred).'))


def dot(env, lhs, rhs, transpose_a, transpose_b, forward_stype):
    """Dot product: sums over the last axis of ``lhs`` and the first axis of ``rhs``.

    ``transpose_a``/``transpose_b`` reverse the axes of that input first.
    """
    _check_float(env, 'dot', lhs)
    _check_no_vector_transpose(lhs.shape, rhs.shape, transpose_a, transpose_b)
    # As MXNet, an N-D input is seen as a matrix and that matrix is transposed: lhs is
    # (prod(shape[:-1]), shape[-1]), or (shape[0], prod(shape[1:])) before transpose_a;
    # rhs is (shape[0], prod(shape[1:])), or (prod(shape[:-1]), shape[-1]) before transpose_b.
    a, b = lhs, rhs
    a2 = a.reshape(a.shape[0], -1).T if transpose_a else a.reshape(-1, a.shape[-1])
    b2 = b.reshape(-1, b.shape[-1]).T if transpose_b else b.reshape(b.shape[0], -1)
    if a2.shape[1] != b2.shape[0]:
        raise MXNetError('dot: shapes %s and %s are not aligned (transpose_a=%s, '
                         'transpose_b=%s): %d != %d' % (a.shape, b.shape, transpose_a,
                                                        transpose_b, a2.shape[1], b2.shape[0]))
    out_shape = ((a.shape[1:] if transpose_a else a.shape[:-1])
                 + (b.shape[:-1] if transpose_b else b.shape[1:]))
    macs = a2.shape[0] * a2.shape[1] * b2.shape[1]
    with threads_for(env.xp, macs):
        y = (a2 @ b2).reshape(out_shape)

    def backward(g):
        g2 = g.reshape(a2.shape[0], b2.shape[1])
        with threads_for(env.xp, 2 * macs):
            ga, gb = g2 @ b2.T, a2.T @ g2
        return ((ga.T if transpose_a else ga).reshape(a.shape),
                (gb.T if transpose_b else gb).reshape(b.shape))
    return y, backward


def _check_no_vector_transpose(lhs_shape, rhs_shape, transpose_a, transpose_b):
    """As MXNet, the inner product of two vectors refuses ``transpose_a``/``transpose_b``."""
    if len(lhs_shape) == len(rhs_shape) == 1 and (transpose_a or transpose_b):
        raise MXNetError('dot: cannot transpose vectors (shapes %s and %s): leave '
                         'transpose_a and transpose_b False' % (lhs_shape, rhs_shape))


@forward_rule
def _dot_shape(in_shapes, params):
    """lhs's axes but the contracted one, then rhs's (each seen as a matrix, as dot)."""
    a, b = in_shapes
    ta, tb = params['transpose_a'], params['transpose_b']
    _check_no_vector_transpose(a, b, ta, tb)
    if (a[0] if ta else a[-1]) != (b[-1] if tb else b[0]):
        raise MXNetError('dot: shapes %s and %s are not aligned (transpose_a=%s, '
                         'transpose_b=%s)' % (a, b, ta, tb))
    return [(a[1:] if ta else a[:-1]) + (b[:-1] if tb else b[1:])]


def dot_storage(inputs, params):
    """``dot`` of sparse inputs: a csr input goes to :func:`gluonedu.ndarray.sparse.dot`
    (MXNet's storage rules), row_sparse ones are made dense."""
    from .. import sparse  # sparse storage builds on the operators
    if any(x.stype == 'csr' for x in inputs):
        return sparse.dot(*inputs, **params)
    return get('dot').run([x.tostype('default') for x in inputs], params)


add(Op('dot', dot, ('lhs', 'rhs'), params=_PRODUCT_PARAMS, infer_shape=_dot_shape,
       compute_ex=dot_storage))


def batch_dot(env, lhs, rhs, transpose_a, transpose_b, forward_stype):
    """Batched matrix product: (..., n, k) by (..., k, m) -> (..., n, m), the leading
    (batch) axes equal, at least one of them."""
    _check_float(env, 'batch_dot', lhs)
    if lhs.ndim < 3 or lhs.ndim != rhs.ndim:
        raise MXNetError('batch_dot needs two inputs of the same number of dimensions, at '
                         'least 3, got shapes %s and %s' % (lhs.shape, rhs.shape))
    a = lhs.swapaxes(-1, -2) if transpose_a else lhs
    b = rhs.swapaxes(-1, -2) if transpose_b else rhs
    if a.shape[:-2] != b.shape[:-2] or a.shape[-1] != b.shape[-2]:
        raise MXNetError('batch_dot: shapes %s and %s are not aligned (transpose_a=%s, '
                         'transpose_b=%s)' % (lhs.shape, rhs.shape, transpose_a, transpose_b))
    macs = a.size * b.shape[-1]
    with threads_for(env.xp, macs):
        y = a @ b

    def backward(g):
        with threads_for(env.xp, 2 * macs):
            ga = g @ b.swapaxes(-1, -2)
            gb = a.swapaxes(-1, -2) @ g
        return ((ga.swapaxes(-1, -2) if transpose_a else ga),
                (gb.swapaxes(-1, -2) if transpose_b else gb))
    return y, backward


@forward_rule
def _batch_dot_shape(in_shapes, params):
    """(..., n, k) by (..., k, m) -> (..., n, m)."""
    a, b = in_shapes
    if params['transpose_a']:
        a = a[:-2] + (a[-1], a[-2])
    if params['transpose_b']:
        b = b[:-2] + (b[-1], b[-2])
    if len(a) < 3 or a[:-2] != b[:-2] or a[-1] != b[-2]:
        raise MXNetError('batch_dot: shapes %s and %s are not aligned' % in_shapes)
    return [a[:-1] + b[-1:]]


add(Op('batch_dot', batch_dot, ('lhs', 'rhs'), params=_PRODUCT_PARAMS,
       infer_shape=_batch_dot_shape))


def khatri_rao(env, *args, num_args):
    """The column-wise Kronecker product of matrices (m_i, n): (m_1·m_2·…, n), column j
    the Kronecker product of the inputs' columns j."""
    for a in args:
        if a.ndim != 2 or a.shape[1] != args[0].shape[1]:
            raise MXNetError('khatri_rao takes matrices of one number of columns, got shapes '
                             '%s' % ', '.join(str(x.shape) for x in args))
    y = args[0]
    for a in args[1:]:
        y = (y[:, None, :] * a[None, :, :]).reshape(-1, y.shape[1])
    return y.copy(), not_differentiable('khatri_rao')


add(Op('khatri_rao', khatri_rao, ('*args',), dtypes=('float32', 'float64'), params=[
    Int('num_args', low=1, doc='The number of matrices (set from the call).')]))
