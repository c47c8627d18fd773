"""Element-wise operators of one array: math, activations, clip, casts and copies.

Each math operator is a formula and its derivative: ``forward(xp, x) -> y`` and
``grad(xp, x, y, g) -> dx`` (``None``: piecewise constant, zero gradient). As MXNet, the
result keeps the input's dtype: on integers the value is computed in floating point and
truncated (``sqrt`` of int32 4, 5 gives 2, 2).
"""
import numpy as np

from ..infer import same_shape
from ..registry import FLOATS, DType, Enum, Float, Op, add
from .binary import scalar_as

_LN2, _LN10 = np.log(2.0), np.log(10.0)
# MXNet multiplies by the single-precision constants, whatever the dtype.
_DEGREES = float(np.float32(180) / np.float32(np.pi))
_RADIANS = float(np.float32(np.pi) / np.float32(180))
_SQRT_PI = np.sqrt(np.pi)


def special(xp):
    """SciPy's special functions for ``xp``'s arrays (CuPy's on a GPU)."""
    if xp is np:
        import scipy.special
        return scipy.special
    import cupyx.scipy.special
    return cupyx.scipy.special


def _zero_grad(xp, x, y, g):
    return xp.zeros_like(g)


def _sigmoid(xp, x):
    # MXNet's float32 formula; exp() overflowing to inf correctly gives 0.
    return 1 / (1 + xp.exp(-x))


def _softrelu(xp, x):
    return xp.maximum(x, 0) + xp.log1p(xp.exp(-xp.abs(x)))


def _softrelu_grad(xp, x, y, g):
    z = xp.exp(-xp.abs(x))
    return g * xp.where(x >= 0, 1 / (1 + z), z / (1 + z))


def _round_half_away(xp, x):
    return xp.sign(x) * xp.floor(xp.abs(x) + 0.5)


def _round_half_down(xp, x):
    # MXNet's rint: the nearer integer, the lower one at a tie (-2.5 -> -3, 2.5 -> 2).
    low, high = xp.floor(x), xp.ceil(x)
    return xp.where(x - low <= high - x, low, high)


#: name: (forward, grad, doc, quiet) — the formulas Activation and the operators share.
FORMULAS = {
    'abs': (lambda xp, x: xp.abs(x), lambda xp, x, y, g: g * xp.sign(x), 'abs(x); gradient sign(x).',
            False),
    'sign': (lambda xp, x: xp.sign(x), None, 'sign(x); gradient 0.', False),
    'sqrt': (lambda xp, x: xp.sqrt(x), lambda xp, x, y, g: g / (2 * y),
             '√x; gradient 1 / (2√x).', True),
    'rsqrt': (lambda xp, x: 1 / xp.sqrt(x), lambda xp, x, y, g: -0.5 * g * y * y * y,
              '1/√x; gradient -y³/2.', True),
    'cbrt': (lambda xp, x: xp.cbrt(x), lambda xp, x, y, g: g / (3 * y * y),
             '∛x; gradient 1 / (3 y²).', True),
    'square': (lambda xp, x: x * x, lambda xp, x, y, g: 2 * g * x, 'x²; gradient 2x.', False),
    'exp': (lambda xp, x: xp.exp(x), lambda xp, x, y, g: g * y, 'eˣ; gradient eˣ.', False),
    'expm1': (lambda xp, x: xp.expm1(x), lambda xp, x, y, g: g * (y + 1),
              'eˣ - 1; gradient eˣ.', False),
    'log': (lambda xp, x: xp.log(x), lambda xp, x, y, g: g / x, 'ln x; gradient 1/x.', True),
    'log1p': (lambda xp, x: xp.log1p(x), lambda xp, x, y, g: g / (1 + x),
              'ln(1 + x); gradient 1/(1 + x).', True),
    'log2': (lambda xp, x: xp.log2(x), lambda xp, x, y, g: g / (x * _LN2),
             'log₂ x; gradient 1/(x ln 2).', True),
    'log10': (lambda xp, x: xp.log10(x), lambda xp, x, y, g: g / (x * _LN10),
              'log₁₀ x; gradient 1/(x ln 10).', True),
    'negative': (lambda xp, x: -x, lambda xp, x, y, g: -g, '-x.', False),
    'reciprocal': (lambda xp, x: 1 / x, lambda xp, x, y, g: -g * y * y,
                   '1/x; gradient -1/x².', True),
    'sin': (lambda xp, x: xp.sin(x), lambda xp, x, y, g: g * xp.cos(x),
            'sin x; gradient cos x.', True),
    'cos': (lambda xp, x: xp.cos(x), lambda xp, x, y, g: -g * xp.sin(x),
            'cos x; gradient -sin x.', True),
    'floor': (lambda xp, x: xp.floor(x), None, '⌊x⌋; gradient 0.', False),
    'ceil': (lambda xp, x: xp.ceil(x), None, '⌈x⌉; gradient 0.', False),
    'round': (_round_half_away, None, 'x rounded half away from zero (as MXNet); gradient 0.',
              False),
    'trunc': (lambda xp, x: xp.trunc(x), None, 'x rounded towards zero; gradient 0.', False),
    'relu': (lambda xp, x: xp.maximum(x, 0), lambda xp, x, y, g: g * (x > 0),
             'max(x, 0); gradient 1 where x > 0.', False),
    'sigmoid': (_sigmoid, lambda xp, x, y, g: g * y * (1 - y),
                '1 / (1 + e⁻ˣ); gradient y(1 - y).', True),
    'tanh': (lambda xp, x: xp.tanh(x), lambda xp, x, y, g: g * (1 - y * y),
             'tanh x; gradient 1 - y².', False),
    'softsign': (lambda xp, x: x / (1 + xp.abs(x)),
                 lambda xp, x, y, g: g / ((1 + xp.abs(x)) ** 2),
                 'x / (1 + abs(x)); gradient 1 / (1 + abs(x))².', False),
    'softrelu': (_softrelu, _softrelu_grad, 'ln(1 + eˣ), computed stably; gradient sigmoid(x).',
                 True),
    'tan': (lambda xp, x: xp.tan(x), lambda xp, x, y, g: g * (1 + y * y),
            'tan x; gradient 1 + tan² x.', True),
    'arcsin': (lambda xp, x: xp.arcsin(x), lambda xp, x, y, g: g / xp.sqrt(1 - x * x),
               'arcsin x (x in [-1, 1]); gradient 1/√(1 - x²).', True),
    'arccos': (lambda xp, x: xp.arccos(x), lambda xp, x, y, g: -g / xp.sqrt(1 - x * x),
               'arccos x (x in [-1, 1]); gradient -1/√(1 - x²).', True),
    'arctan': (lambda xp, x: xp.arctan(x), lambda xp, x, y, g: g / (1 + x * x),
               'arctan x; gradient 1/(1 + x²).', False),
    'sinh': (lambda xp, x: xp.sinh(x), lambda xp, x, y, g: g * xp.cosh(x),
             'sinh x; gradient cosh x.', False),
    'cosh': (lambda xp, x: xp.cosh(x), lambda xp, x, y, g: g * xp.sinh(x),
             'cosh x; gradient sinh x.', False),
    'arcsinh': (lambda xp, x: xp.arcsinh(x), lambda xp, x, y, g: g / xp.sqrt(x * x + 1),
                'arcsinh x; gradient 1/√(x² + 1).', False),
    'arccosh': (lambda xp, x: xp.arccosh(x), lambda xp, x, y, g: g / xp.sqrt(x * x - 1),
                'arccosh x (x >= 1); gradient 1/√(x² - 1).', True),
    'arctanh': (lambda xp, x: xp.arctanh(x), lambda xp, x, y, g: g / (1 - x * x),
                'arctanh x (x in (-1, 1)); gradient 1/(1 - x²).', True),
    'degrees': (lambda xp, x: x * _DEGREES, lambda xp, x, y, g: g * _DEGREES,
                'x radians in degrees: x·180/π.', False),
    'radians': (lambda xp, x: x * _RADIANS, lambda xp, x, y, g: g * _RADIANS,
                'x degrees in radians: x·π/180.', False),
    'rint': (_round_half_down, None,
             'x rounded to the nearer integer, the lower one at a tie (as MXNet); gradient 0.',
             False),
    'fix': (lambda xp, x: xp.fix(x), None, 'x rounded towards zero; gradient 0.', False),
    'rcbrt': (lambda xp, x: 1 / xp.cbrt(x), lambda xp, x, y, g: -g * y / (3 * x),
              '1/∛x; gradient -1/(3 x∛x).', True),
    'erf': (lambda xp, x: special(xp).erf(x),
            lambda xp, x, y, g: g * (2 / _SQRT_PI) * xp.exp(-x * x),
            'The error function; gradient 2/√π · e^(-x²).', False),
    'erfinv': (lambda xp, x: special(xp).erfinv(x),
               lambda xp, x, y, g: g * (_SQRT_PI / 2) * xp.exp(y * y),
               'The inverse error function (x in (-1, 1)); gradient √π/2 · e^(y²).', True),
    'gamma': (lambda xp, x: special(xp).gamma(x),
              lambda xp, x, y, g: g * y * special(xp).digamma(x),
              'Γ(x); gradient Γ(x)·ψ(x).', True),
    'gammaln': (lambda xp, x: special(xp).gammaln(x),
                lambda xp, x, y, g: g * special(xp).digamma(x),
                'ln abs(Γ(x)); gradient ψ(x).', True),
    'logical_not': (lambda xp, x: x == 0, None, '1 where x is 0, else 0; gradient 0.', False),
}


def _unary_forward(forward, grad):
    def compute(env, x):
        xp = env.xp
        # As MXNet: float16 math runs in float32, rounded once at the end.
        y = forward(xp, x.astype(np.float32) if x.dtype == np.float16 else x)
        if y.dtype != x.dtype:
            y = y.astype(x.dtype)
        return y, lambda g: ((grad or _zero_grad)(xp, x, y, g),)
    return compute


for _name, (_forward, _grad, _doc, _quiet) in FORMULAS.items():
    if _name != 'softrelu':  # softrelu is an act_type of Activation, not an operator
        add(Op(_name, _unary_forward(_forward, _grad), quiet=_quiet, doc=_doc,
               infer_shape=same_shape))


def activation(env, data, act_type):
    """Apply the activation ``act_type``: 'relu', 'sigmoid', 'tanh', 'softrelu' or 'softsign'."""
    forward, grad, _, _ = FORMULAS[act_type]
    return _unary_forward(forward, grad)(env, data)


add(Op('Activation', activation,
       params=[Enum('act_type', ('relu', 'sigmoid', 'softrelu', 'softsign', 'tanh'),
                    doc='The activation function.')],
       dtypes=FLOATS, quiet=True, infer_shape=same_shape))


def clip(env, data, a_min, a_max):
    """Limit each element to [a_min, a_max]; gradient 1 inside, 0 outside.

    As MXNet, with a_min > a_max every element becomes a_max, except those below a_min; on an
    integer array, a bound is compared as given and cast to the dtype (C++'s cast) where it
    replaces an element.
    """
    xp = env.xp
    lo, hi = scalar_as(data.dtype, a_min), scalar_as(data.dtype, a_max)
    if lo <= hi and data.dtype.kind == 'f':
        y = data.clip(lo, hi)
    else:
        y = xp.where(data > a_max, hi, xp.where(data < a_min, lo, data))
    return y, lambda g: (g * ((data >= lo) & (data <= hi)),)


add(Op('clip', clip, params=[Float('a_min', single=True, doc='Lower bound.'),
                             Float('a_max', single=True, doc='Upper bound.')],
       infer_shape=same_shape))

def hard_sigmoid(env, data, alpha, beta):
    """max(0, min(1, alpha·x + beta)); gradient alpha where 0 < alpha·x + beta < 1."""
    xp = env.xp
    a, b = scalar_as(data.dtype, alpha), scalar_as(data.dtype, beta)
    z = data * a + b
    y = xp.clip(z, 0, 1).astype(data.dtype, copy=False)
    return y, lambda g: (g * ((z > 0) & (z < 1)) * a,)


add(Op('hard_sigmoid', hard_sigmoid, quiet=True, dtypes=FLOATS, infer_shape=same_shape, params=[
    Float('alpha', 0.2, single=True, doc='The slope.'),
    Float('beta', 0.5, single=True, doc='The offset.')]))


def smooth_l1(env, data, scalar):
    """Huber-like: 0.5·(σx)² where abs(x) < 1/σ², else abs(x) - 0.5/σ² (σ = ``scalar``)."""
    xp = env.xp
    s2 = scalar_as(data.dtype, scalar * scalar)
    inside = xp.abs(data) < 1 / s2
    y = xp.where(inside, 0.5 * s2 * data * data, xp.abs(data) - 0.5 / s2).astype(data.dtype)
    return y, lambda g: (g * xp.where(inside, s2 * data, xp.sign(data)).astype(data.dtype),)


add(Op('smooth_l1', smooth_l1, quiet=True, infer_shape=same_shape,
       params=[Float('scalar', 1.0, single=True, doc='σ.')]))

_CAST_DTYPES = ('bfloat16', 'bool', 'float16', 'float32', 'float64', 'int32', 'int64', 'int8',
                'uint8')


def cast(env, data, dtype):
    """``data`` converted to ``dtype``; the gradient is converted back."""
    return data.astype(dtype), lambda g: (g.astype(data.dtype),)


add(Op('Cast', cast, params=[DType('dtype', _CAST_DTYPES, doc='The dtype to convert to.')],
       aliases=('cast',), infer_shape=same_shape))


def identity(env, data):
    """A copy of ``data`` (the gradient passes through)."""
    return data.copy(), lambda g: (g,)


add(Op('_copy', identity, aliases=('identity',), infer_shape=same_shape))


def stop_gradient(env, data):
    """The same values, with no gradient flowing back through."""
    return data.copy(), None


add(Op('BlockGrad', stop_gradient, aliases=('stop_gradient',), infer_shape=same_shape))


def _zeros_like_sparse(inputs, params):
    from .. import sparse
    data = inputs[0]
    return sparse.zeros(data.stype, data.shape, ctx=data.ctx, dtype=data.dtype)


def zeros_like(env, data):
    """Zeros of ``data``'s shape, dtype and context (and storage type)."""
    return env.xp.zeros_like(data), None


def ones_like(env, data):
    """Ones of ``data``'s shape, dtype and context."""
    return env.xp.ones_like(data), None


add(Op('zeros_like', zeros_like, compute_ex=_zeros_like_sparse, infer_shape=same_shape))
add(Op('ones_like', ones_like, infer_shape=same_shape))
