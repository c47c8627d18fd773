"""Batched factorizations and what follows from them (LAPACK): potrf, potri, gelqf, syevd,
inverse, det, slogdet, sumlogdiag.

A symmetric input is read from its lower triangle (potrf, syevd), as MXNet's kernels do.
The gradients are those of Seeger et al., "Auto-Differentiating Linear Algebra" (2017),
which MXNet implements; ``copyltu(M)`` is the symmetric matrix of M's lower triangle.
"""
from numpy.linalg import LinAlgError   # CuPy raises NumPy's too

from ...base import MXNetError
from .linalg_common import T, batch_result, check_matrices, check_square, declare, \
    solve_triangular


def _copyltu(xp, m):
    """The symmetric matrix whose lower triangle is ``m``'s."""
    return xp.tril(m) + T(xp.tril(m, -1))


def _diag_embed(xp, values):
    """Stack of diagonal matrices with ``values`` (..., n) on their diagonals."""
    n = values.shape[-1]
    out = xp.zeros(values.shape + (n,), dtype=values.dtype)
    out[..., xp.arange(n), xp.arange(n)] = values
    return out


def _inverse(xp, name, a):
    try:
        return xp.linalg.inv(a)
    except LinAlgError:
        raise MXNetError('%s: a matrix of the input is singular (not invertible)'
                         % name) from None


def _zeros_if_none(xp, grad, like):
    return xp.zeros_like(like) if grad is None else grad


def _vector_as_row(forward):
    """The operator ``forward`` seeing a 1-D input (n,) as one row (1, n), as MXNet's potrf
    and potri do (so a one-element array is a 1x1 matrix)."""
    def run(env, A):
        if A.ndim != 1:
            return forward(env, A)
        y, backward = forward(env, A.reshape(1, -1))
        return y.reshape(A.shape), lambda g: (backward(g.reshape(1, -1))[0].reshape(A.shape),)
    run.__doc__ = forward.__doc__
    return run


@_vector_as_row
def potrf(env, A):
    """The Cholesky factor L (lower triangular) of each symmetric positive-definite
    matrix: A = L L^T."""
    xp = env.xp
    check_square('linalg_potrf', A)
    try:
        L = xp.linalg.cholesky(A)
    except LinAlgError:
        raise MXNetError('linalg_potrf: a matrix of the input is not symmetric positive '
                         'definite, so it has no Cholesky factor') from None

    def backward(g):
        # dA = 1/2 L^-T copyltu(L^T dL) L^-1, symmetric
        L_inv = _inverse(xp, 'linalg_potrf', L)
        return 0.5 * (T(L_inv) @ _copyltu(xp, T(L) @ xp.tril(g)) @ L_inv),
    return L, backward


@_vector_as_row
def potri(env, A):
    """The inverse (L L^T)^-1 of the matrix whose Cholesky factor is the lower triangle L
    of A (what potrf gives)."""
    xp = env.xp
    check_square('linalg_potri', A)
    L = xp.tril(A)
    L_inv = _inverse(xp, 'linalg_potri', L)
    y = T(L_inv) @ L_inv

    def backward(g):
        return xp.tril(-(y @ (g + T(g)) @ y @ L)),
    return y, backward


def gelqf(env, A):
    """The LQ factorization A = L Q of each (m, n) matrix with m <= n: Q (m, n) with
    orthonormal rows, L (m, m) lower triangular. Returns (Q, L)."""
    xp = env.xp
    check_matrices('linalg_gelqf', A)
    if A.shape[-2] > A.shape[-1]:
        raise MXNetError('linalg_gelqf: matrices of shape %s have more rows than columns; '
                         'transpose them first' % (A.shape[-2:],))
    q, r = xp.linalg.qr(T(A))       # A^T = q r  <=>  A = r^T q^T
    Q, L = T(q).copy(), T(r).copy()

    def backward(grads):
        gQ, gL = _zeros_if_none(xp, grads[0], Q), _zeros_if_none(xp, grads[1], L)
        # dA = L^-T (dQ + copyltu(M) Q),  M = L^T dL - dQ Q^T
        m = T(L) @ gL - gQ @ T(Q)
        return solve_triangular(xp, T(L), gQ + _copyltu(xp, m) @ Q, lower=False),
    return [Q, L], backward


def syevd(env, A):
    """The eigendecomposition U A = diag(lam) U of each symmetric matrix (read from its
    lower triangle): the rows of U are the eigenvectors, lam ascending. Each row of U is
    signed so that its entry of largest magnitude is positive (MXNet's convention).
    Returns (U, lam)."""
    xp = env.xp
    check_square('linalg_syevd', A)
    lam, vectors = xp.linalg.eigh(A)
    U = T(vectors)
    largest = xp.take_along_axis(U, xp.abs(U).argmax(axis=-1)[..., None], axis=-1)
    U = U * xp.where(largest < 0, -1, 1).astype(U.dtype)

    def backward(grads):
        gU, glam = _zeros_if_none(xp, grads[0], U), _zeros_if_none(xp, grads[1], lam)
        # dA = sym(U^T (diag(dlam) + F o (U dU^T)) U),  F_ij = 1 / (lam_j - lam_i), i != j
        gaps = lam[..., None, :] - lam[..., :, None]
        off_diagonal = ~xp.eye(lam.shape[-1], dtype=bool)
        F = xp.where(off_diagonal, 1 / xp.where(off_diagonal, gaps, 1), 0)
        inner = _diag_embed(xp, glam) + F * (U @ T(gU))
        full = T(U) @ inner @ U
        return 0.5 * (full + T(full)),
    return [U, lam], backward


def inverse(env, A):
    """The inverse of each square matrix."""
    xp = env.xp
    check_square('linalg_inverse', A)
    y = _inverse(xp, 'linalg_inverse', A)

    def backward(g):
        return -(T(y) @ g @ T(y)),
    return y, backward


def det(env, A):
    """The determinant of each square matrix: shape (batch...), (1,) for one matrix."""
    xp = env.xp
    check_square('linalg_det', A)
    d = xp.linalg.det(A)

    def backward(g):
        # d det(A) / dA = det(A) A^-T
        scale = (g.reshape(d.shape) * d)[..., None, None]
        return scale * T(_inverse(xp, 'linalg_det', A)),
    return batch_result(d), backward


def slogdet(env, A):
    """The sign and the log of the absolute determinant of each square matrix.
    Returns (sign, logabsdet)."""
    xp = env.xp
    check_square('linalg_slogdet', A)
    sign, logabsdet = xp.linalg.slogdet(A)

    def backward(grads):
        if grads[1] is None:
            return xp.zeros_like(A),
        # d log|det(A)| / dA = A^-T; the sign is piecewise constant
        scale = grads[1].reshape(logabsdet.shape)[..., None, None]
        return scale * T(_inverse(xp, 'linalg_slogdet', A)),
    return [batch_result(sign), batch_result(logabsdet)], backward


def sumlogdiag(env, A):
    """The sum of the logs of the diagonal of each square matrix (log det of a Cholesky
    factor); NaN where a diagonal entry is negative."""
    xp = env.xp
    check_square('linalg_sumlogdiag', A)
    diagonal = xp.diagonal(A, 0, -2, -1)
    y = xp.log(diagonal).sum(axis=-1)

    def backward(g):
        return _diag_embed(xp, g.reshape(y.shape)[..., None] / diagonal),
    return batch_result(y), backward


declare('potrf', potrf)
declare('potri', potri)
declare('gelqf', gelqf, num_outputs=2)
declare('syevd', syevd, num_outputs=2, alias=False)   # MXNet has no linalg_syevd
declare('inverse', inverse)
declare('det', det)
declare('slogdet', slogdet, num_outputs=2, quiet=True)
declare('sumlogdiag', sumlogdiag, quiet=True)
