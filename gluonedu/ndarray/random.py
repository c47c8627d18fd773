"""Seeded random sampling on every context (``mx.nd.random``).

Each context has its own generator. ``seed(s)`` re-seeds all of them, deriving each
context's stream from ``s`` and the device, so a seeded run reproduces exactly.

The samplers are MXNet's: ``uniform(low, high, shape)`` with numbers draws from one
distribution (the ``_random_uniform`` operator); with NDArrays ``low`` and ``high`` it
draws ``shape`` samples for each of their elements (``_sample_uniform``).
"""
import numbers

import numpy as np

from .. import _backend
from ..context import current_context
from .ndarray import NDArray, _as_ctx
from .registry import invoke

__all__ = ['seed', 'random_state', 'uniform', 'normal', 'randn', 'randint', 'exponential',
           'gamma', 'poisson', 'negative_binomial', 'generalized_negative_binomial',
           'multinomial', 'shuffle', 'uniform_like', 'normal_like', 'exponential_like',
           'gamma_like', 'poisson_like', 'negative_binomial_like',
           'generalized_negative_binomial_like']

_generators = {}
_base_seed = [None]
_NUMBERS = (numbers.Number, np.generic)


class _Unset:
    """A keyword left out (MXNet's ``_Null``): the operator's default applies."""

    def __repr__(self):
        return '_Null'


_Null = _Unset()


def seed(seed_state, ctx='all'):
    """Seed the generators of all contexts (``ctx='all'``) or of one context."""
    if not isinstance(seed_state, numbers.Integral):
        raise ValueError("seed_state must be an int, got %r" % (seed_state,))
    if ctx == 'all':
        _base_seed[0] = int(seed_state)
        _generators.clear()
    else:
        ctx = _as_ctx(ctx)
        _generators[ctx] = _make_generator(ctx, int(seed_state))


def _make_generator(ctx, seed_value):
    entropy = [seed_value, ctx.device_typeid, ctx.device_id] if seed_value is not None else None
    if ctx.device_type == 'gpu':
        cupy = _backend.cupy_or_raise(ctx.device_id)
        with cupy.cuda.Device(ctx.device_id):
            return cupy.random.RandomState(np.random.SeedSequence(entropy).generate_state(1)[0])
    return np.random.default_rng(np.random.SeedSequence(entropy))


def random_state(ctx):
    """The generator of ``ctx`` (a NumPy Generator, or a CuPy RandomState on GPU)."""
    ctx = _as_ctx(ctx)
    gen = _generators.get(ctx)
    if gen is None:
        gen = _generators[ctx] = _make_generator(ctx, _base_seed[0])
    return gen


def _given(**kwargs):
    return {k: v for k, v in kwargs.items() if v is not _Null}


def _draw(dist, params, shape, dtype, ctx, out, kwargs):
    """MXNet's choice: numbers -> ``_random_<dist>``, NDArrays -> ``_sample_<dist>``."""
    if isinstance(params[0], NDArray):
        if not all(isinstance(p, NDArray) for p in params[1:]):
            raise TypeError('%s: the distribution parameters must all be NDArrays or all be '
                            'numbers, got %s' % (dist, [type(p).__name__ for p in params]))
        return invoke('_sample_' + dist, *params, out=out,
                      **_given(shape=shape, dtype=dtype), **kwargs)
    if isinstance(params[0], _NUMBERS):
        if not all(isinstance(p, _NUMBERS) for p in params[1:]):
            raise TypeError('%s: the distribution parameters must all be NDArrays or all be '
                            'numbers, got %s' % (dist, [type(p).__name__ for p in params]))
        if shape is _Null and out is None:
            shape = 1
        return invoke('_random_' + dist, *params, ctx=ctx or current_context(), out=out,
                      **_given(shape=shape, dtype=dtype), **kwargs)
    raise ValueError('%s: the distribution parameters must be NDArrays or numbers, got %s'
                     % (dist, type(params[0]).__name__))


def uniform(low=0, high=1, shape=_Null, dtype=_Null, ctx=None, out=None, **kwargs):
    """Samples from U[low, high)."""
    return _draw('uniform', [low, high], shape, dtype, ctx, out, kwargs)


def normal(loc=0, scale=1, shape=_Null, dtype=_Null, ctx=None, out=None, **kwargs):
    """Samples from N(loc, scale²)."""
    return _draw('normal', [loc, scale], shape, dtype, ctx, out, kwargs)


def randn(*shape, **kwargs):
    """Samples from N(loc, scale²) (keywords ``loc``, ``scale``) of the given shape."""
    loc, scale = kwargs.pop('loc', 0), kwargs.pop('scale', 1)
    dtype, ctx, out = kwargs.pop('dtype', _Null), kwargs.pop('ctx', None), kwargs.pop('out', None)
    return _draw('normal', [loc, scale], shape, dtype, ctx, out, kwargs)


def randint(low, high, shape=_Null, dtype=_Null, ctx=None, out=None, **kwargs):
    """Integers drawn uniformly from [low, high) (int32 unless ``dtype``)."""
    if not isinstance(low, _NUMBERS):
        raise ValueError('randint: low and high must be numbers, got %s' % type(low).__name__)
    if shape is _Null and out is None:
        shape = 1
    return invoke('_random_randint', low, high, ctx=ctx or current_context(), out=out,
                  **_given(shape=shape, dtype=dtype), **kwargs)


def exponential(scale=1, shape=_Null, dtype=_Null, ctx=None, out=None, **kwargs):
    """Samples from the exponential distribution of mean ``scale`` (rate 1/scale)."""
    return _draw('exponential', [1.0 / scale], shape, dtype, ctx, out, kwargs)


def gamma(alpha=1, beta=1, shape=_Null, dtype=_Null, ctx=None, out=None, **kwargs):
    """Samples from the gamma distribution of shape ``alpha`` and scale ``beta``."""
    return _draw('gamma', [alpha, beta], shape, dtype, ctx, out, kwargs)


def poisson(lam=1, shape=_Null, dtype=_Null, ctx=None, out=None, **kwargs):
    """Samples from the Poisson distribution of rate ``lam``."""
    return _draw('poisson', [lam], shape, dtype, ctx, out, kwargs)


def negative_binomial(k=1, p=1, shape=_Null, dtype=_Null, ctx=None, out=None, **kwargs):
    """Failures before the ``k``-th success, each trial succeeding with probability ``p``."""
    return _draw('negative_binomial', [k, p], shape, dtype, ctx, out, kwargs)


def generalized_negative_binomial(mu=1, alpha=1, shape=_Null, dtype=_Null, ctx=None, out=None,
                                  **kwargs):
    """Counts of mean ``mu`` and variance mu + alpha·mu² (a gamma-Poisson mixture)."""
    return _draw('generalized_negative_binomial', [mu, alpha], shape, dtype, ctx, out, kwargs)


def multinomial(data, shape=_Null, get_prob=False, out=None, dtype='int32', **kwargs):
    """Category ids drawn from each row of probabilities ``data``; with ``get_prob`` also
    their log-probabilities."""
    return invoke('_sample_multinomial', data, out=out, get_prob=get_prob, dtype=dtype,
                  **_given(shape=shape), **kwargs)


def shuffle(data, **kwargs):
    """A copy of ``data`` with its first axis randomly permuted."""
    return invoke('_shuffle', data, **kwargs)


def _like(dist):
    def sampler(data=None, out=None, name=None, **params):
        return invoke('_random_%s_like' % dist, data, out=out, **params)
    sampler.__name__ = dist + '_like'
    sampler.__doc__ = ('Samples of the %s distribution in the shape, dtype and context of '
                       '``data``.' % dist.replace('_', ' '))
    return sampler


uniform_like = _like('uniform')
normal_like = _like('normal')
exponential_like = _like('exponential')
gamma_like = _like('gamma')
poisson_like = _like('poisson')
negative_binomial_like = _like('negative_binomial')
generalized_negative_binomial_like = _like('generalized_negative_binomial')
