"""SGLD: the deterministic half-step exactly (with a seeded noise replay) and the noise's
statistics."""
import math

import numpy as np
import pytest

import gluonedu as mx
from gluonedu import nd

from optimizer_cases import random_problem



@pytest.mark.parametrize('kwargs', [
    {},
    {'learning_rate': 0.1, 'wd': 0.05},
    {'learning_rate': 0.1, 'clip_gradient': 0.3, 'rescale_grad': 2.0},
])
def test_each_step_is_the_half_gradient_step_plus_the_seeded_noise(kwargs):
    weight, grads = random_problem()
    lr = kwargs.get('learning_rate', 0.01)
    wd = kwargs.get('wd', 0.0)
    opt = mx.optimizer.SGLD(**kwargs)
    w = nd.array(weight)
    assert opt.create_state(0, w) is None
    expected = weight.astype(np.float64)
    for step, g in enumerate(grads):
        mx.random.seed(100 + step)
        opt.update(0, w, nd.array(g), None)
        # Replay the generator: the same seed gives the noise the update drew.
        mx.random.seed(100 + step)
        noise = nd.random.normal(0, math.sqrt(lr), shape=w.shape, dtype=w.dtype,
                                 ctx=w.context).asnumpy()
        s = g * kwargs.get('rescale_grad', 1.0)
        if 'clip_gradient' in kwargs:
            s = np.clip(s, -kwargs['clip_gradient'], kwargs['clip_gradient'])
        expected = expected - lr / 2 * (s + wd * expected) + noise
        np.testing.assert_allclose(w.asnumpy(), expected, rtol=1e-5, atol=1e-6)


def test_without_gradient_the_change_is_gaussian_noise_of_variance_lr():
    mx.random.seed(7)
    lr = 0.04
    opt = mx.optimizer.SGLD(learning_rate=lr)
    w = nd.zeros((200, 100))
    opt.update(0, w, nd.zeros((200, 100)), None)
    change = w.asnumpy().ravel()
    assert abs(change.mean()) < 4 * math.sqrt(lr) / math.sqrt(change.size)
    assert abs(change.std() / math.sqrt(lr) - 1) < 0.02


def test_the_same_seed_gives_the_same_run():
    weight, grads = random_problem()
    runs = []
    for _ in range(2):
        mx.random.seed(3)
        w = nd.array(weight)
        opt = mx.optimizer.SGLD(learning_rate=0.1)
        for g in grads:
            opt.update(0, w, nd.array(g), None)
        runs.append(w.asnumpy())
    np.testing.assert_array_equal(*runs)


def test_the_noise_matches_the_weight_dtype_and_multi_precision_keeps_a_master_copy():
    opt = mx.optimizer.SGLD(learning_rate=0.1, multi_precision=True)
    w = nd.ones((3,), dtype='float16')
    master, inner = opt.create_state_multi_precision(0, w)
    assert master.dtype == np.float32 and inner is None
    opt.update_multi_precision(0, w, nd.ones((3,), dtype='float16'), (master, inner))
    assert w.dtype == np.float16
    np.testing.assert_array_equal(w.asnumpy(), master.asnumpy().astype(np.float16))


def test_sparse_gradients_and_lists():
    weight, grads = random_problem()
    rows = np.array([1, 2])
    sparse = nd.sparse.row_sparse_array((grads[0][rows], rows), shape=grads[0].shape)
    dense = nd.array(grads[0] * np.isin(np.arange(5), rows)[:, None])
    results = []
    for g in (sparse, dense):
        mx.random.seed(0)
        w = nd.array(weight)
        mx.optimizer.SGLD(learning_rate=0.1).update([0], [w], [g], [None])
        results.append(w.asnumpy())
    np.testing.assert_array_equal(*results)


def test_negative_learning_rate_is_rejected():
    with pytest.raises(ValueError, match='learning_rate'):
        mx.optimizer.SGLD(learning_rate=-0.1)
