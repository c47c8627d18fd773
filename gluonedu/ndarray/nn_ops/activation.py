"""``nd.LeakyReLU``: the ReLU family with a parameter or a fixed shape for x < 0.

    leaky   y = x if x > 0 else slope·x
    prelu   y = x if x > 0 else γ·x             γ learned: one value, or one per channel
    elu     y = x if x > 0 else slope·(eˣ − 1)
    selu    y = λ·(x if x > 0 else α·(eˣ − 1))  λ ≈ 1.0507, α ≈ 1.6733 (Klambauer)
    gelu    y = x·Φ(x) = ½·x·(1 + erf(x/√2))   (Hendrycks & Gimpel)
    rrelu   y = x if x > 0 else a·x             a ~ U(lower_bound, upper_bound) per element
                                                in training, (lower + upper)/2 otherwise

As MXNet, 'rrelu' returns two arrays: the output and the slopes ``a`` it used.
"""
import math

import numpy as np

from ... import _backend
from ...base import MXNetError
from .common import check_inputs, float_dtype, record, shape_text, tracked
from .declare import OpDef, Param
from .. import _graph
from .. import random as _random
from ..ndarray import NDArray

__all__ = ['LeakyReLU', 'SELU_ALPHA', 'SELU_LAMBDA']

#: SELU's constants (Klambauer et al., 2017), as MXNet's kernel uses them.
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_LAMBDA = 1.0507009873554804934193349852946

LEAKY_RELU = OpDef('LeakyReLU', inputs=('data', 'gamma'),
                   drop_inputs=lambda p: () if p['act_type'] == 'prelu' else ('gamma',), params=(
    Param('act_type', 'enum', 'leaky', 'Which function.',
          choices=('elu', 'gelu', 'leaky', 'prelu', 'rrelu', 'selu')),
    Param('slope', 'float', 0.25, "The slope of 'leaky', the α of 'elu'."),
    Param('lower_bound', 'float', 0.125, "Smallest random slope of 'rrelu'."),
    Param('upper_bound', 'float', 0.334, "Largest random slope of 'rrelu'.")))


def _erf(xp, x):
    """The error function on NumPy (SciPy) or CuPy arrays."""
    if xp is np:
        from scipy.special import erf
    else:
        from cupyx.scipy.special import erf
    return erf(x)


def _elementwise(op, data, forward, grad):
    """An element-wise activation: ``forward(xp, x) -> y``, ``grad(xp, x, y, dy) -> dx``."""
    xp, x = data._xp, data._data
    with _backend.device_scope(data._ctx), np.errstate(over='ignore'):
        y = forward(xp, x)

    def backward(dy):
        with _backend.device_scope(data._ctx), np.errstate(over='ignore'):
            return (grad(xp, x, y, dy),)
    return record(y, data, (data,), backward, op)


def _prelu(data, gamma):
    """y = x if x > 0 else γ·x, γ one value or one per channel (axis 1)."""
    if gamma is None:
        raise MXNetError("LeakyReLU(act_type='prelu') needs the gamma input")
    check_inputs('LeakyReLU', (data, gamma))
    xp, x = data._xp, data._data
    if gamma.ndim != 1 or (gamma.shape[0] != 1 and
                           (x.ndim < 2 or gamma.shape[0] != x.shape[1])):
        raise MXNetError("LeakyReLU: prelu's gamma of shape %s must hold one slope or one per "
                         "channel of data shape %s" % (shape_text(gamma.shape),
                                                       shape_text(x.shape)))
    shape = (1, -1) + (1,) * (x.ndim - 2) if gamma.shape[0] > 1 else (1,) * x.ndim
    with _backend.device_scope(data._ctx):
        g = gamma._data.reshape(shape)
        positive = x > 0
        y = xp.where(positive, x, g * x)

    def backward(dy):
        with _backend.device_scope(data._ctx):
            dx = xp.where(positive, dy, g * dy)
            dgamma = None
            if tracked(gamma):
                axes = tuple(i for i, n in enumerate(shape) if n == 1)
                dgamma = xp.where(positive, 0, x * dy).sum(axis=axes).reshape(gamma.shape)
            return dx, dgamma
    return record(y, data, (data, gamma), backward, 'LeakyReLU')


def _rrelu(data, lower, upper):
    """Randomized leaky ReLU: ``[output, slopes]``."""
    xp, x = data._xp, data._data
    if _graph.STATE.training:
        slopes = _random.uniform(lower, upper, shape=x.shape, ctx=data._ctx,
                                 dtype=data.dtype)._data
    else:
        slopes = xp.full(x.shape, (lower + upper) / 2, dtype=x.dtype)
    with _backend.device_scope(data._ctx):
        positive = x > 0
        y = xp.where(positive, x, slopes * x)

    def backward(dy):
        with _backend.device_scope(data._ctx):
            return (xp.where(positive, dy, slopes * dy),)
    return [record(y, data, (data,), backward, 'LeakyReLU'), NDArray(slopes, data._ctx)]


def _leaky_relu(params, data=None, gamma=None):
    """The ReLU family: 'leaky', 'prelu', 'elu', 'selu', 'gelu' and 'rrelu'."""
    if data is None:
        raise MXNetError("LeakyReLU needs the data input")
    check_inputs('LeakyReLU', (data,))
    float_dtype('LeakyReLU', data)
    act, slope = params.act_type, params.slope
    if act == 'prelu':
        return _prelu(data, gamma)
    if act == 'rrelu':
        return _rrelu(data, params.lower_bound, params.upper_bound)
    if act == 'leaky':
        return _elementwise('LeakyReLU', data, lambda xp, x: xp.where(x > 0, x, slope * x),
                            lambda xp, x, y, dy: xp.where(x > 0, dy, slope * dy))
    if act == 'elu':
        return _elementwise('LeakyReLU', data,
                            lambda xp, x: xp.where(x > 0, x, slope * xp.expm1(x)),
                            lambda xp, x, y, dy: xp.where(x > 0, dy, (y + slope) * dy))
    if act == 'selu':
        # as MXNet's kernel: single-precision constants, arithmetic in the data's dtype
        lam, alpha = (data._data.dtype.type(np.float32(c)) for c in (SELU_LAMBDA, SELU_ALPHA))
        return _elementwise(
            'LeakyReLU', data,
            lambda xp, x: lam * xp.where(x > 0, x, alpha * xp.expm1(x)),
            lambda xp, x, y, dy: xp.where(x > 0, lam * dy, (y + alpha * lam) * dy))
    return _elementwise('LeakyReLU', data, _gelu,
                        lambda xp, x, y, dy: _gelu_grad(xp, x) * dy)


# GELU x·Φ(x), Φ(x) = ½(1 + erf(x/√2)), Φ'(x) = e^(−x²/2)/√(2π), in the data's dtype;
# float16 is computed in single precision and rounded back, as MXNet's kernel does.
# (float64: full precision, where MXNet computes in single, docs/divergences.md; float32's
# last bits can differ from MXNet's oneDNN kernel.)
def _gelu(xp, x):
    z = x.astype(np.float32) if x.dtype == np.float16 else x
    return (0.5 * z * (1 + _erf(xp, z / math.sqrt(2)))).astype(x.dtype, copy=False)


def _gelu_grad(xp, x):
    z = x.astype(np.float32) if x.dtype == np.float16 else x
    grad = 0.5 * (1 + _erf(xp, z / math.sqrt(2))) + z * xp.exp(-0.5 * z * z) / math.sqrt(
        2 * math.pi)
    return grad.astype(x.dtype, copy=False)


LeakyReLU = LEAKY_RELU.function(_leaky_relu)
