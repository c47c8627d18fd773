"""Batched matrix products (BLAS level 3): gemm, gemm2, syrk, trmm, trsm.

``op(X)`` is ``X`` or its transpose (``transpose_a``, ``transpose_b``, ``transpose``); a
triangular operand uses only its ``lower`` (or upper) triangle; ``rightside`` multiplies
(or solves) from the right.
"""
from ...base import MXNetError
from ..registry import Bool, Float, Int
from .linalg_common import (T, check_batches, check_matrices, check_square, declare,
                            solve_triangular, triangle)

_TRANSPOSES = (Bool('transpose_a', False, doc='Use the transpose of A.'),
               Bool('transpose_b', False, doc='Use the transpose of B.'))
_ALPHA = Float('alpha', 1.0, doc='The factor of the product.')
_ROW_AXIS = Int('axis', -2, doc="The axis of the matrices' rows (the columns are the last "
                                'axis); the other axes are the batch.')
_TRIANGULAR = (Bool('transpose', False, doc='Use the transpose of the triangle of A.'),
               Bool('rightside', False, doc='Multiply (solve) from the right: B op(A).'),
               Bool('lower', True, doc='A is lower triangular (else upper).'),
               _ALPHA)


def _row_axis(name, ndim, axis):
    """MXNet's ``axis`` made non-negative: any axis but the last (the columns)."""
    row = axis + ndim if axis < 0 else axis
    if not 0 <= row < ndim - 1:
        raise MXNetError('%s: axis=%d is no row axis of %d-dimensional inputs: use an axis '
                         'before the last one' % (name, axis, ndim))
    return row


def _product(env, name, a, b, transpose_a, transpose_b, alpha, axis):
    """alpha op(A) op(B) with the rows on ``axis``: (result, its backward to (gA, gB))."""
    xp = env.xp
    check_matrices(name, a, b)
    row = _row_axis(name, a.ndim, axis)
    a, b = xp.moveaxis(a, row, -2), xp.moveaxis(b, row, -2)
    check_batches(name, a, b)
    op_a = T(a) if transpose_a else a
    op_b = T(b) if transpose_b else b
    if op_a.shape[-1] != op_b.shape[-2]:
        raise MXNetError('%s: op(A) of shape %s and op(B) of shape %s cannot be multiplied '
                         '(transpose_a=%s, transpose_b=%s)' % (
                             name, op_a.shape[-2:], op_b.shape[-2:], transpose_a, transpose_b))
    y = alpha * (op_a @ op_b)

    def backward(g):
        g = xp.moveaxis(g, row, -2)
        grad_op_a, grad_op_b = alpha * (g @ T(op_b)), alpha * (T(op_a) @ g)
        grad_a = T(grad_op_a) if transpose_a else grad_op_a
        grad_b = T(grad_op_b) if transpose_b else grad_op_b
        return xp.moveaxis(grad_a, -2, row), xp.moveaxis(grad_b, -2, row)
    return xp.moveaxis(y, -2, row), backward


def gemm2(env, A, B, transpose_a, transpose_b, alpha, axis):
    """alpha * op(A) @ op(B), batched."""
    return _product(env, 'linalg_gemm2', A, B, transpose_a, transpose_b, alpha, axis)


def gemm(env, A, B, C, transpose_a, transpose_b, alpha, beta, axis):
    """alpha * op(A) @ op(B) + beta * C, batched."""
    y, product_backward = _product(env, 'linalg_gemm', A, B, transpose_a, transpose_b,
                                   alpha, axis)
    if C.shape != y.shape:
        raise MXNetError('linalg_gemm: C has shape %s, the product op(A) op(B) %s'
                         % (C.shape, y.shape))

    def backward(g):
        return product_backward(g) + (beta * g,)
    return y + beta * C, backward


declare('gemm2', gemm2, ('A', 'B'), params=_TRANSPOSES + (_ALPHA, _ROW_AXIS))
declare('gemm', gemm, ('A', 'B', 'C'), params=_TRANSPOSES + (
    _ALPHA, Float('beta', 1.0, doc='The factor of C.'), _ROW_AXIS))


def syrk(env, A, transpose, alpha):
    """alpha * A @ A^T (or alpha * A^T @ A with ``transpose``), batched."""
    check_matrices('linalg_syrk', A)
    op_a = T(A) if transpose else A
    y = alpha * (op_a @ T(op_a))

    def backward(g):
        grad_op_a = alpha * ((g + T(g)) @ op_a)
        return (T(grad_op_a) if transpose else grad_op_a),
    return y, backward


declare('syrk', syrk, params=(Bool('transpose', False, doc='Compute A^T A instead.'),
                              _ALPHA))


def _check_triangular(name, A, B, rightside):
    """MXNetError unless A is a stack of square matrices that fits B from the side."""
    check_square(name, A)
    check_matrices(name, B)
    check_batches(name, A, B)
    n = B.shape[-1] if rightside else B.shape[-2]
    if A.shape[-1] != n:
        raise MXNetError('%s: A of shape %s does not fit B of shape %s from the %s'
                         % (name, A.shape[-2:], B.shape[-2:],
                            'right' if rightside else 'left'))


def _op_triangle(xp, A, transpose, lower):
    """op(the triangle of A)."""
    tri = triangle(xp, A, lower)
    return T(tri) if transpose else tri


def _triangle_grad(xp, grad_op_t, transpose, lower):
    """The gradient of A from that of op(triangle of A): only the triangle is used."""
    return triangle(xp, T(grad_op_t) if transpose else grad_op_t, lower)


def trmm(env, A, B, transpose, rightside, lower, alpha):
    """alpha * op(A) @ B (or alpha * B @ op(A) with ``rightside``), A triangular."""
    xp = env.xp
    _check_triangular('linalg_trmm', A, B, rightside)
    m = _op_triangle(xp, A, transpose, lower)
    y = alpha * (B @ m if rightside else m @ B)

    def backward(g):
        if rightside:
            grad_m, grad_b = alpha * (T(B) @ g), alpha * (g @ T(m))
        else:
            grad_m, grad_b = alpha * (g @ T(B)), alpha * (T(m) @ g)
        return _triangle_grad(xp, grad_m, transpose, lower), grad_b
    return y, backward


def trsm(env, A, B, transpose, rightside, lower, alpha):
    """X = alpha * op(A)^-1 @ B (or alpha * B @ op(A)^-1 with ``rightside``), A triangular:
    the solution of op(A) X = alpha B (X op(A) = alpha B)."""
    xp = env.xp
    _check_triangular('linalg_trsm', A, B, rightside)
    m = _op_triangle(xp, A, transpose, lower)
    m_lower = lower != transpose   # op(A) is lower triangular

    def solve_left(t, t_lower, rhs):          # t^-1 rhs
        return solve_triangular(xp, t, rhs, t_lower)

    def solve_right(t, t_lower, rhs):         # rhs t^-1 = (t^-T rhs^T)^T
        return T(solve_triangular(xp, T(t), T(rhs), not t_lower))

    solve = solve_right if rightside else solve_left
    x = solve(m, m_lower, alpha * B)

    def backward(g):
        # X = alpha op(A)^-1 B: the adjoint solve gives B's gradient, and
        # d op(A) = -op(A)^-T g X^T (left) or -X^T g op(A)^-T (right)
        if rightside:
            y = solve_right(T(m), not m_lower, g)
            grad_m = -(T(x) @ y)
        else:
            y = solve_left(T(m), not m_lower, g)
            grad_m = -(y @ T(x))
        return _triangle_grad(xp, grad_m, transpose, lower), alpha * y
    return x, backward


declare('trmm', trmm, ('A', 'B'), params=_TRIANGULAR)
declare('trsm', trsm, ('A', 'B'), params=_TRIANGULAR, quiet=True)
