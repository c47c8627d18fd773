"""Seeded random sampling on every context (``mx.nd.random``).

Each context has its own generator. ``seed(s)`` re-seeds all of them, deriving each
context's stream from ``s`` and the device, so a seeded run reproduces exactly.
"""
import numbers

import numpy as np

from .. import _backend
from ..base import normalize_dtype
from .ndarray import NDArray, _as_ctx, _host_shape

__all__ = ['seed', 'uniform', 'normal', 'randn', 'randint', 'shuffle', 'random_state']

_generators = {}
_base_seed = [None]


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


def _sample(draw, shape, dtype, ctx, out):
    if out is not None:
        shape, dtype, ctx = out.shape, out.dtype, out.ctx
    ctx = _as_ctx(ctx)
    shape = (1,) if shape is None else _host_shape(shape)
    with _backend.device_scope(ctx):
        values = draw(random_state(ctx), shape).astype(normalize_dtype(dtype))
    result = NDArray(values, ctx)
    if out is not None:
        out[:] = result
        return out
    return result


def uniform(low=0, high=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples from U[low, high)."""
    return _sample(lambda g, s: g.uniform(low, high, size=s), shape, dtype, ctx, out)


def normal(loc=0, scale=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples from N(loc, scale²)."""
    return _sample(lambda g, s: g.normal(loc, scale, size=s), shape, dtype, ctx, out)


def randn(*shape, loc=0, scale=1, dtype=None, ctx=None, **kwargs):
    """Samples from N(loc, scale²) of the given shape."""
    return normal(loc, scale, shape=shape or None, dtype=dtype, ctx=ctx)


def randint(low, high, shape=None, dtype='int32', ctx=None, out=None, **kwargs):
    """Integers drawn uniformly from [low, high)."""
    def draw(gen, s):
        if isinstance(gen, np.random.Generator):
            return gen.integers(low, high, size=s)
        return gen.randint(low, high, size=s)
    return _sample(draw, shape, dtype, ctx, out)


def shuffle(data, **kwargs):
    """A copy of ``data`` with its first axis randomly permuted."""
    gen = random_state(data.ctx)
    with _backend.device_scope(data.ctx):
        order = gen.permutation(data.shape[0])
        return NDArray(data._data[order], data.ctx)
