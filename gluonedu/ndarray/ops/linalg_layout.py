"""Moving between matrices and their diagonals or triangles: extractdiag, makediag,
extracttrian, maketrian (batched over the leading axes).

``offset`` picks a diagonal: 0 the main one, k > 0 the k-th above it, k < 0 below. A
triangle is the lower one for ``offset < 0`` (or 0 with ``lower``), the upper one
otherwise; MXNet packs a lower triangle row by row and an upper one column by column
(the transpose's lower triangle, row by row).
"""
from ...base import MXNetError
from ..registry import Bool, Int
from .linalg_common import T, check_square, declare

_OFFSET = Int('offset', 0, doc='The diagonal: 0 the main one, > 0 above it, < 0 below.')
_LOWER = Bool('lower', True, doc='With offset 0: the lower triangle (else the upper one).')


def _check_offset(name, n, offset):
    if abs(offset) >= n:
        raise MXNetError('%s: offset %d leaves nothing of a %dx%d matrix: use |offset| < %d'
                         % (name, offset, n, n, n))


def _diagonal_index(xp, size, offset):
    """(rows, columns) of the ``size`` entries of diagonal ``offset``."""
    steps = xp.arange(size)
    return steps + max(-offset, 0), steps + max(offset, 0)


def extractdiag(env, A, offset):
    """Diagonal ``offset`` of each square matrix."""
    xp = env.xp
    check_square('linalg_extractdiag', A)
    n = A.shape[-1]
    _check_offset('linalg_extractdiag', n, offset)
    rows, columns = _diagonal_index(xp, n - abs(offset), offset)

    def backward(g):
        grad = xp.zeros_like(A)
        grad[..., rows, columns] = g
        return grad,
    return A[..., rows, columns], backward


def makediag(env, A, offset):
    """Square matrices with the vectors of A (last axis) on diagonal ``offset``."""
    xp = env.xp
    if A.ndim < 1:
        raise MXNetError('linalg_makediag: the input needs at least one dimension')
    size = A.shape[-1]
    n = size + abs(offset)
    rows, columns = _diagonal_index(xp, size, offset)
    y = xp.zeros(A.shape[:-1] + (n, n), dtype=A.dtype)
    y[..., rows, columns] = A

    def backward(g):
        return g[..., rows, columns].copy(),
    return y, backward


def _triangle_index(xp, n, offset, lower):
    """(upper, rows, columns): the entries of the triangle in MXNet's packing order, as
    the lower triangle (diagonal -|offset|) of the matrix, or of its transpose (upper)."""
    upper = offset > 0 or (offset == 0 and not lower)
    rows, columns = xp.tril_indices(n, -abs(offset))
    return upper, rows, columns


def extracttrian(env, A, offset, lower):
    """The triangle of each square matrix from diagonal ``offset`` on, as a vector."""
    xp = env.xp
    check_square('linalg_extracttrian', A)
    n = A.shape[-1]
    _check_offset('linalg_extracttrian', n, offset)
    upper, rows, columns = _triangle_index(xp, n, offset, lower)
    oriented = T(A) if upper else A

    def backward(g):
        grad = xp.zeros_like(A)
        (T(grad) if upper else grad)[..., rows, columns] = g
        return grad,
    return oriented[..., rows, columns], backward


def maketrian(env, A, offset, lower):
    """Triangular matrices from the packed triangles of A (last axis, the order of
    extracttrian), zeros elsewhere."""
    xp = env.xp
    if A.ndim < 1:
        raise MXNetError('linalg_maketrian: the input needs at least one dimension')
    packed = A.shape[-1]
    m = int(((8 * packed + 1) ** 0.5 - 1) / 2)
    if m * (m + 1) // 2 != packed:
        raise MXNetError('linalg_maketrian: the last axis has %d entries, which is no '
                         'triangle m (m + 1) / 2' % packed)
    n = m + abs(offset)
    upper, rows, columns = _triangle_index(xp, n, offset, lower)
    y = xp.zeros(A.shape[:-1] + (n, n), dtype=A.dtype)
    (T(y) if upper else y)[..., rows, columns] = A

    def backward(g):
        return (T(g) if upper else g)[..., rows, columns].copy(),
    return y, backward


declare('extractdiag', extractdiag, params=(_OFFSET,))
declare('makediag', makediag, params=(_OFFSET,))
declare('extracttrian', extracttrian, params=(_OFFSET, _LOWER))
declare('maketrian', maketrian, params=(_OFFSET, _LOWER))
