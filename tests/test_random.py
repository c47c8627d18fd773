"""Seeded sampling: reproducible per context, distinct streams per context."""
import numpy as np
import pytest

import gluonedu as mx
from gluonedu import nd


def draw(ctx=None):
    return mx.random.uniform(shape=(50,), ctx=ctx).asnumpy()


def test_seed_reproduces_exactly():
    mx.random.seed(42)
    first = [draw(), mx.random.normal(shape=(3, 3)).asnumpy()]
    mx.random.seed(42)
    second = [draw(), mx.random.normal(shape=(3, 3)).asnumpy()]
    for a, b in zip(first, second):
        assert np.array_equal(a, b)
    mx.random.seed(43)
    assert not np.array_equal(draw(), first[0])


def test_each_context_reproduces_its_own_stream():
    mx.random.seed(1)
    a0, a1 = draw(mx.cpu(0)), draw(mx.cpu(1))
    mx.random.seed(1)
    # interleaving the other context does not change this one's stream
    b1 = draw(mx.cpu(1))
    b0 = draw(mx.cpu(0))
    assert np.array_equal(a0, b0) and np.array_equal(a1, b1)


def test_different_contexts_get_different_streams():
    mx.random.seed(5)
    assert not np.array_equal(draw(mx.cpu(0)), draw(mx.cpu(1)))


def test_seeding_one_context_only():
    mx.random.seed(9)
    other = draw(mx.cpu(1))
    mx.random.seed(3, ctx=mx.cpu(0))
    a = draw(mx.cpu(0))
    mx.random.seed(3, ctx=mx.cpu(0))
    assert np.array_equal(a, draw(mx.cpu(0)))
    mx.random.seed(9)
    assert np.array_equal(other, draw(mx.cpu(1)))


def test_seed_needs_an_int():
    with pytest.raises(ValueError):
        mx.random.seed(1.5)


def test_uniform_range_shape_dtype_ctx():
    x = mx.random.uniform(-2, 3, shape=(1000,), dtype='float64', ctx=mx.cpu(2))
    assert x.shape == (1000,) and x.dtype == np.float64 and x.context == mx.cpu(2)
    values = x.asnumpy()
    assert values.min() >= -2 and values.max() < 3
    assert abs(values.mean() - 0.5) < 0.2
    assert mx.random.uniform().shape == (1,)
    assert nd.random.uniform(shape=(2, 3)).dtype == np.float32


def test_normal_moments():
    values = mx.random.normal(1.0, 2.0, shape=(20000,)).asnumpy()
    assert abs(values.mean() - 1.0) < 0.1 and abs(values.std() - 2.0) < 0.1
    assert mx.random.randn(2, 3).shape == (2, 3)
    assert nd.random_normal(shape=(4,)).shape == (4,)


def test_randint_range_and_dtype():
    x = mx.random.randint(3, 7, shape=(500,))
    assert x.dtype == np.int32
    values = x.asnumpy()
    assert values.min() == 3 and values.max() == 6


def test_sampling_into_out():
    out = nd.zeros((3, 4), dtype='float64')
    assert mx.random.uniform(5, 6, out=out) is out
    assert (out.asnumpy() >= 5).all() and out.dtype == np.float64


def test_shuffle_permutes_the_first_axis():
    x = nd.arange(20).reshape((10, 2))
    mx.random.seed(0)
    y = mx.random.shuffle(x)
    assert y.shape == (10, 2)
    rows = sorted(map(tuple, y.asnumpy().tolist()))
    assert rows == sorted(map(tuple, x.asnumpy().tolist()))
    assert not np.array_equal(y.asnumpy(), x.asnumpy())
    assert x.asnumpy()[:, 0].tolist() == list(range(0, 20, 2))  # the input is unchanged


def test_mx_random_is_mxnets_namespace():
    # as MXNet 1.9.1: mx.rnd is mx.random, whose samplers are nd.random's functions and
    # whose Context is the context class
    assert mx.rnd is mx.random and mx.random.Context is mx.Context
    for name in ('uniform', 'normal', 'randn', 'randint', 'shuffle', 'exponential', 'gamma',
                 'poisson', 'negative_binomial', 'generalized_negative_binomial',
                 'multinomial'):
        assert getattr(mx.random, name) is getattr(nd.random, name), name
    mx.random.seed(3)
    counts = mx.random.multinomial(nd.array([0.2, 0.8]), shape=4000).asnumpy()
    assert abs(counts.mean() - 0.8) < 0.03
    assert mx.random.poisson(4.0, shape=(2, 3)).shape == (2, 3)
