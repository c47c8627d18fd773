"""Random sampling operators, drawn from the seeded generator of the result's context.

Three families, as MXNet's: ``_random_<dist>`` takes the distribution's parameters as
numbers and a ``shape``; ``_sample_<dist>`` takes them as arrays and draws ``shape``
samples for each element (result shape ``params.shape + shape``); ``_random_<dist>_like``
draws one sample per element of its input, in its shape and dtype. ``nd.random.uniform``
and friends pick one of them by their arguments' types. Sampling has no gradient, except
the log-probabilities of ``_sample_multinomial(get_prob=True)``.
"""
import numpy as np

from ...base import MXNetError
from ..infer import dtype_param, forward_rule, from_shape_param, like_first, same_shape
from ..registry import (FLOATS, Bool, DType, Float, Int, Op, Shape, Str, add, check_size,
                        numpy_dtype)
from .init import _checked_shape

_FLOAT_DTYPES = ('None', 'float16', 'float32', 'float64')


class _Real(Float):
    """A distribution parameter: MXNet declares it ``float``, gluonedu keeps the double (the
    streams differ from MXNet's anyway, and the fused SGLD update scales its normals by the
    exact ``sqrt(lr)``, as the reference must)."""

    def __init__(self, name, default, doc=''):
        super().__init__(name, default, single=True, doc=doc)
        self.single = False  # parse without rounding; the type text stays 'float'


def _generator(env):
    from ..random import random_state  # the generators sit above the operators
    return random_state(env.ctx)


def _integers(gen, low, high, size):
    if isinstance(gen, np.random.Generator):
        return gen.integers(low, high, size=size)
    return gen.randint(low, high, size=size)  # CuPy's RandomState


def _check(condition, message, *args):
    if not condition:
        raise MXNetError(message % args)


def _generalized_negative_binomial(gen, size, mu, alpha):
    """Poisson samples whose rate is Gamma(1/alpha, alpha·mu): mean mu, variance
    mu + alpha·mu² (alpha = 0: Poisson(mu))."""
    alpha = np.asarray(alpha, dtype=np.float64)
    safe = np.where(alpha > 0, alpha, 1.0)
    rate = np.where(alpha > 0, gen.gamma(1 / safe, safe * mu, size=size), mu)
    return gen.poisson(rate)


#: name: (parameter declarations, checks(**params), draw(gen, size, **params))
_DISTRIBUTIONS = {
    'uniform': (
        [_Real('low', 0.0, doc='Lower bound (included).'),
         _Real('high', 1.0, doc='Upper bound (excluded).')],
        lambda low, high: _check(np.all(high >= low), 'uniform: low must not exceed high'),
        lambda gen, size, low, high: gen.uniform(low, high, size=size)),
    'normal': (
        [_Real('loc', 0.0, doc='The mean.'),
         _Real('scale', 1.0, doc='The standard deviation.')],
        # MXNet refuses scale 0; gluonedu draws loc (SGLD with lr_mult=0 freezes a weight)
        lambda loc, scale: _check(np.all(scale >= 0), 'normal: scale must not be negative'),
        lambda gen, size, loc, scale: gen.normal(loc, scale, size=size)),
    'gamma': (
        [_Real('alpha', 1.0, doc='The shape.'),
         _Real('beta', 1.0, doc='The scale.')],
        lambda alpha, beta: _check(np.all(alpha > 0) and np.all(beta > 0),
                                   'gamma: alpha and beta must be positive'),
        lambda gen, size, alpha, beta: gen.gamma(alpha, beta, size=size)),
    'exponential': (
        [_Real('lam', 1.0, doc='The rate λ (mean 1/λ).')],
        lambda lam: _check(np.all(lam > 0), 'exponential: lam must be positive'),
        lambda gen, size, lam: gen.exponential(1 / np.asarray(lam, dtype=np.float64),
                                               size=size)),
    'poisson': (
        [_Real('lam', 1.0, doc='The rate λ (the mean).')],
        lambda lam: _check(np.all(lam >= 0), 'poisson: lam must not be negative'),
        lambda gen, size, lam: gen.poisson(lam, size=size)),
    'negative_binomial': (
        [Int('k', 1, doc='The number of successes to wait for.'),
         _Real('p', 1.0, doc='The success probability of each trial.')],
        lambda k, p: _check(np.all(k > 0) and np.all((0 < p) & (p <= 1)),
                            'negative_binomial: k must be positive and p in (0, 1]'),
        lambda gen, size, k, p: gen.negative_binomial(k, p, size=size)),
    'generalized_negative_binomial': (
        [_Real('mu', 1.0, doc='The mean.'),
         _Real('alpha', 1.0, doc='The dispersion.')],
        lambda mu, alpha: _check(np.all(mu >= 0) and np.all(alpha >= 0),
                                 'generalized_negative_binomial: mu and alpha must not be '
                                 'negative'),
        _generalized_negative_binomial),
}


#: The input names of _sample_<dist> where they differ from _random_<dist>'s parameters.
_SAMPLE_INPUTS = {'normal': ('mu', 'sigma')}


def _float_dtype(dtype):
    return np.dtype(np.float32) if dtype == 'None' else numpy_dtype(dtype)


def _random(name, checks, draw):
    def forward(env, shape, ctx, dtype, **dist):
        size = _checked_shape('_random_' + name, shape)
        checks(**dist)
        values = draw(_generator(env), size, **dist)
        return env.xp.asarray(values).astype(_float_dtype(dtype)), None
    forward.__doc__ = 'Samples of the %s distribution, of ``shape``.' % name.replace('_', ' ')
    return forward


def _sample(name, checks, draw, param_names):
    def forward(env, *params, shape, dtype):
        first = params[0]
        if any(p.shape != first.shape for p in params[1:]):
            raise MXNetError('_sample_%s: the parameter arrays need one shape, got %s'
                             % (name, [p.shape for p in params]))
        checks(**dict(zip(param_names, params)))
        size = first.shape + _samples_shape(name, shape)
        check_size('_sample_' + name, int(np.prod(size, dtype=object)))
        spread = [p.reshape(first.shape + (1,) * len(shape)).astype(np.float64)
                  if p.dtype.kind == 'f' else p.reshape(first.shape + (1,) * len(shape))
                  for p in params]
        values = draw(_generator(env), size, **dict(zip(param_names, spread)))
        out = _float_dtype(dtype)
        return env.xp.asarray(values).astype(out), None
    forward.__doc__ = ('Samples of the %s distribution for each element of its parameter '
                       'arrays: ``shape`` more axes.' % name.replace('_', ' '))
    return forward


def _like(name, checks, draw):
    def forward(env, data, **dist):
        checks(**dist)
        return env.xp.asarray(draw(_generator(env), data.shape, **dist)).astype(data.dtype), None
    forward.__doc__ = ('Samples of the %s distribution in the shape, dtype and context of '
                       '``data``.' % name.replace('_', ' '))
    return forward


def _samples_shape(name, shape):
    """``shape``, the samples per element of _sample_<name>: as MXNet, no axis of size 0."""
    if any(n <= 0 for n in shape):
        raise MXNetError('_sample_%s: shape=%s: every axis of the samples needs a positive '
                         'size (leave shape out for one sample per element)'
                         % (name, tuple(shape)))
    return tuple(shape)


def _sample_shapes(in_shapes, out_shapes, params):
    """Parameter arrays of one shape; ``shape`` more axes of samples."""
    ins, _ = same_shape(in_shapes, [], params)
    if ins[0] is None:
        return ins, out_shapes
    return ins, [ins[0] + tuple(params['shape'])]


for _name, (_params, _checks, _draw) in _DISTRIBUTIONS.items():
    _aliases = {'uniform': ('random_uniform', 'uniform'),
                'normal': ('normal', 'random_normal')}.get(_name, ('random_' + _name,))
    add(Op('_random_' + _name, _random(_name, _checks, _draw), (), aliases=_aliases,
           from_out=True, infer_shape=from_shape_param, infer_type=dtype_param('float32'),
           params=_params + [
               Shape('shape', None, accepts_none=True, doc='The shape of the result.'),
               Str('ctx', '', doc='Its context ("": the current one).'),
               DType('dtype', _FLOAT_DTYPES, 'None', doc='Its dtype (None: float32).')]))
    _names = [p.name for p in _params]
    add(Op('_sample_' + _name, _sample(_name, _checks, _draw, _names),
           _SAMPLE_INPUTS.get(_name, tuple(_names)), from_out=True,
           infer_shape=_sample_shapes, infer_type=dtype_param(None),
           aliases=('sample_' + _name,), params=[
               Shape('shape', (), doc='The samples drawn per element.'),
               DType('dtype', _FLOAT_DTYPES, 'None',
                     doc='The dtype of the result (None: float32).')]))
    add(Op('_random_%s_like' % _name, _like(_name, _checks, _draw), ('data',),
           dtypes=FLOATS, params=_params, infer_shape=like_first))


def randint(env, low, high, shape, ctx, dtype):
    """Integers drawn uniformly from [low, high)."""
    size = _checked_shape('_random_randint', shape)
    _check(high >= low, 'randint: low must not exceed high')
    values = _integers(_generator(env), low, high, size) if high > low else \
        np.full(size, low)
    return env.xp.asarray(values).astype('int32' if dtype == 'None' else dtype), None


add(Op('_random_randint', randint, (), aliases=('random_randint',), from_out=True,
       infer_shape=from_shape_param, infer_type=dtype_param('int32'), params=[
    Int('low', long=True, doc='The smallest value.'),
    Int('high', long=True, doc='One past the largest value.'),
    Shape('shape', None, accepts_none=True, doc='The shape of the result.'),
    Str('ctx', '', doc='Its context ("": the current one).'),
    DType('dtype', ('None', 'int32', 'int64'), 'None', doc='Its dtype (None: int32).')]))


def multinomial(env, data, shape, get_prob, dtype):
    """Category ids drawn from each row of probabilities ``data`` (..., k): ``shape``
    samples per row. With ``get_prob`` also their log-probabilities, whose gradient reaches
    ``data`` (for REINFORCE-style estimators).

    As MXNet: a uniform u is compared with the running sum of the row, and the id is the
    first whose sum exceeds u (k when none does: rows should sum to 1).
    """
    xp = env.xp
    if any(n < 0 for n in shape):
        raise MXNetError('_sample_multinomial: shape %s has a negative size' % (shape,))
    gen = _generator(env)
    k = data.shape[-1]
    batch = data.shape[:-1]
    rows = data.reshape((-1, k)).astype(np.float64)
    cum = xp.cumsum(rows, axis=1)
    count = int(np.prod(shape)) if shape else 1
    u = xp.asarray(gen.uniform(0, 1, size=(rows.shape[0], count)))
    beyond = u[:, :, None] < cum[:, None, :]
    ids = xp.where(beyond.any(axis=2), beyond.argmax(axis=2), k)
    out_shape = batch + tuple(shape)
    samples = ids.reshape(out_shape).astype(numpy_dtype(dtype))
    if not get_prob:
        return samples, None
    safe = xp.minimum(ids, k - 1)
    picked = xp.take_along_axis(rows, safe, axis=1)
    with np.errstate(divide='ignore'):
        log_prob = xp.log(xp.where(ids < k, picked, 0)).reshape(out_shape).astype(data.dtype)

    def backward(grads):
        g = grads[1]
        if g is None:
            return (None,)
        flat = xp.zeros(rows.shape, dtype=np.float64)
        contribution = g.reshape(rows.shape[0], count) / picked
        xp.add.at(flat, (xp.arange(rows.shape[0])[:, None], safe), contribution)
        return (flat.reshape(data.shape).astype(data.dtype),)
    return [samples, log_prob], backward


@forward_rule
def _multinomial_shapes(in_shapes, params):
    out = in_shapes[0][:-1] + tuple(params['shape'])
    return [out] * (2 if params['get_prob'] else 1)


def _multinomial_types(in_types, out_types, params):
    """The ids in ``dtype``, their log-probabilities in the input's dtype."""
    return in_types, [np.dtype(params['dtype']), in_types[0]][:len(out_types)]


add(Op('_sample_multinomial', multinomial, aliases=('sample_multinomial',), dtypes=FLOATS,
       infer_shape=_multinomial_shapes, infer_type=_multinomial_types,
       num_outputs=lambda p: 2 if p['get_prob'] else 1, params=[
           Shape('shape', (), doc='The samples drawn per row.'),
           Bool('get_prob', False, doc='Also return their log-probabilities.'),
           DType('dtype', ('float16', 'float32', 'float64', 'int32', 'uint8'), 'int32',
                 doc='The dtype of the ids.')]))


def shuffle(env, data):
    """``data`` with its first axis randomly permuted."""
    order = _generator(env).permutation(data.shape[0])
    return data[env.xp.asarray(order)], None


add(Op('_shuffle', shuffle, aliases=('shuffle',), infer_shape=like_first))
