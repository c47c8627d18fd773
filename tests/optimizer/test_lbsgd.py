"""LBSGD: gradient accumulation, warmup strategies, lr read before counting, sparse rows."""
import math

import numpy as np
import pytest

import gluonedu as mx
from gluonedu import nd

from optimizer_cases import assert_list_call_equals_single_calls, random_problem


def lbsgd_reference(weight, grads, lr=0.01, momentum=0., wd=0., batch_scale=1,
                    warmup_strategy='linear', warmup_epochs=5, updates_per_epoch=32,
                    begin_epoch=0):
    """LBSGD in float64 NumPy, as documented (fixed lr, no clipping)."""
    w = weight.astype(np.float64)
    mom = np.zeros_like(w)
    total = np.zeros_like(w)
    count = begin_epoch * updates_per_epoch
    nwup = warmup_epochs * updates_per_epoch
    for g in grads:
        total = total + g
        count += 1
        if count % batch_scale:
            continue
        g = total / batch_scale
        total = np.zeros_like(w)
        if warmup_strategy == 'lars':
            w2, g2 = (w * w).sum(), (g * g).sum()
            mult = min(max(math.sqrt(w2 / (g2 + wd * w2 + 1e-18)), 0.01), 100)
        elif count >= nwup:
            mult = batch_scale
        elif nwup <= 1:
            mult = 1.0
        else:
            frac = {'linear': count / nwup, 'power2': (count / nwup) ** 2,
                    'sqrt': math.sqrt(count / nwup)}[warmup_strategy]
            mult = 1 + (batch_scale - 1) * frac
        step_lr = lr * mult
        mom = momentum * mom - step_lr * wd * w - step_lr * g
        w = w + mom
    return w



@pytest.mark.parametrize('strategy', ['linear', 'power2', 'sqrt', 'lars'])
@pytest.mark.parametrize('kwargs', [
    {'batch_scale': 2, 'warmup_epochs': 2, 'updates_per_epoch': 2},
    {'batch_scale': 3, 'warmup_epochs': 2, 'updates_per_epoch': 2, 'begin_epoch': 1,
     'momentum': 0.9, 'wd': 0.1},
    {'batch_scale': 1, 'momentum': 0.5, 'wd': 0.01},
])
def test_matches_float64_reference(strategy, kwargs):
    weight, grads = random_problem()
    opt = mx.optimizer.LBSGD(learning_rate=0.1, warmup_strategy=strategy, **kwargs)
    w = nd.array(weight)
    state = opt.create_state(0, w)
    for g in grads:
        opt.update(0, w, nd.array(g), state)
    w_ref = lbsgd_reference(weight, grads, lr=0.1, warmup_strategy=strategy, **kwargs)
    np.testing.assert_allclose(w.asnumpy(), w_ref, rtol=1e-5, atol=1e-6)


def test_weight_unchanged_while_accumulating():
    weight, grads = random_problem()
    opt = mx.optimizer.LBSGD(learning_rate=0.1, batch_scale=3)
    w = nd.array(weight)
    for g in grads[:2]:
        opt.update(0, w, nd.array(g), None)
        np.testing.assert_array_equal(w.asnumpy(), weight)
    assert opt.cumgrads[0]['num_cums'] == 2
    opt.update(0, w, nd.array(grads[2]), None)
    assert not np.array_equal(w.asnumpy(), weight)
    assert opt.cumgrads[0]['cum_grad'] == 0 and opt.cumgrads[0]['num_cums'] == 3


def test_reused_gradient_buffer_is_not_double_counted():
    # MXNet keeps a reference to the first gradient (docs/divergences.md); we copy it.
    weight, grads = random_problem()
    opt = mx.optimizer.LBSGD(learning_rate=0.1, batch_scale=2, warmup_epochs=0)
    w = nd.array(weight)
    buffer = nd.array(grads[0])
    opt.update(0, w, buffer, None)
    buffer[:] = grads[1]
    opt.update(0, w, buffer, None)
    expected = weight - 0.1 * 2 * (grads[0] + grads[1]) / 2
    np.testing.assert_allclose(w.asnumpy(), expected, rtol=1e-6, atol=1e-6)


def test_learning_rate_is_read_before_counting():
    sched = mx.lr_scheduler.FactorScheduler(step=1, factor=0.5, base_lr=1.0)
    opt = mx.optimizer.LBSGD(lr_scheduler=sched, warmup_epochs=0)
    w = nd.zeros((1,))
    opt.update(0, w, nd.ones((1,)), None)     # lr(num_update=0) = 1.0
    opt.update(0, w, nd.ones((1,)), None)     # lr(num_update=1) = 1.0 (step=1: decays after 1)
    opt.update(0, w, nd.ones((1,)), None)     # lr(num_update=2) = 0.5
    np.testing.assert_allclose(w.asnumpy(), [-2.5])


def test_defaults_and_validation():
    opt = mx.optimizer.create('lbsgd')
    assert (opt.momentum, opt.warmup_strategy, opt.warmup_epochs, opt.batch_scale,
            opt.updates_per_epoch, opt.init_updates, opt.num_epochs) == \
        (0.0, 'linear', 5, 1, 32, 0, 60)
    assert opt.create_state(0, nd.zeros((2,))) is None
    with pytest.raises(ValueError, match='batch_scale'):
        mx.optimizer.LBSGD(batch_scale=0)
    with pytest.raises(ValueError, match='momentum'):
        mx.optimizer.LBSGD(momentum=-0.5)
    with pytest.warns(UserWarning, match='warmup_strategy'):
        mx.optimizer.LBSGD(warmup_strategy='cosine')


def test_row_sparse_gradients_update_only_their_rows():
    weight, grads = random_problem()
    opt = mx.optimizer.LBSGD(learning_rate=0.1, momentum=0.9, wd=0.1, batch_scale=2,
                             warmup_epochs=0)
    w = nd.array(weight)
    state = opt.create_state(0, w)
    for rows, g in (([0], grads[0]), ([2], grads[1])):
        opt.update(0, w, nd.sparse.row_sparse_array((g[rows], rows), shape=weight.shape), state)
    after = w.asnumpy()
    np.testing.assert_array_equal(after[[1, 3]], weight[[1, 3]])
    dense = np.zeros_like(weight)
    dense[0], dense[2] = grads[0][0], grads[1][2]
    expected = weight - 0.2 * (0.1 * weight + dense / 2)
    np.testing.assert_allclose(after[[0, 2]], expected[[0, 2]], rtol=1e-5, atol=1e-6)


def test_list_call_equals_single_calls():
    weight, grads = random_problem()
    assert_list_call_equals_single_calls(
        lambda: mx.optimizer.LBSGD(learning_rate=0.1, momentum=0.9, batch_scale=2),
        [weight, -weight], grads)


def test_multi_precision_layouts():
    weight, grads = random_problem()
    opt = mx.optimizer.LBSGD(learning_rate=0.1, momentum=0.9, multi_precision=True)
    w16 = nd.array(weight, dtype='float16')
    # Through the Updater: the base class's (weight_fp32, momentum).
    master, mom = opt.create_state_multi_precision(0, w16)
    assert master.dtype == mom.dtype == np.float32
    # Directly: MXNet's own (momentum, weight_fp32), which update() also accepts.
    own = opt.create_state(1, w16)
    assert own[0].dtype == own[1].dtype == np.float32 and own[1].shape == weight.shape
    w16b = nd.array(weight, dtype='float16')
    for g in grads:
        opt.update_multi_precision(0, w16, nd.array(g, dtype='float16'), (master, mom))
        opt.update(1, w16b, nd.array(g, dtype='float16'), own)
    np.testing.assert_array_equal(w16.asnumpy(), master.asnumpy().astype(np.float16))
    np.testing.assert_array_equal(master.asnumpy(), own[1].asnumpy())
    np.testing.assert_array_equal(w16.asnumpy(), w16b.asnumpy())
    w_ref = lbsgd_reference(weight.astype(np.float16), [g.astype(np.float16) for g in grads],
                            lr=0.1, momentum=0.9)
    np.testing.assert_allclose(master.asnumpy(), w_ref, rtol=1e-4, atol=1e-5)
