"""LARS: the layer-wise learning rate, momentum correction, wd_mult, lazy rows, float16."""
import numpy as np
import pytest

import gluonedu as mx
from gluonedu import nd

from optimizer_cases import STEPS, random_problem


def lars_reference(weight, grads, lrs, momentum=0., eta=0.001, eps=0., wd=0., rescale_grad=1.,
                   clip_gradient=None, use_lars=True):
    """LARS in float64 NumPy; ``lrs[t]`` is step t's lr, momentum correction included via
    ``momentum * lrs[t] / lrs[t-1]``."""
    w = weight.astype(np.float64)
    mom = np.zeros_like(w)
    prev_lr = lrs[0]
    for lr, g in zip(lrs, grads):
        g = g.astype(np.float64)
        w_norm, g_norm = np.linalg.norm(w), np.linalg.norm(g * rescale_grad)
        layer_lr = lr * eta * w_norm / (g_norm + wd * w_norm + eps) \
            if use_lars and w_norm > 0 and g_norm > 0 else lr
        g = g * rescale_grad
        if clip_gradient is not None:
            g = np.clip(g, -clip_gradient, clip_gradient)
        mom = momentum * (lr / prev_lr) * mom - layer_lr * wd * w - layer_lr * g
        w = w + mom
        prev_lr = lr
    return w



@pytest.mark.parametrize('kwargs', [
    {'eta': 0.5},
    {'eta': 0.5, 'momentum': 0.9, 'wd': 0.1, 'eps': 1e-3},
    {'eta': 0.2, 'momentum': 0.5, 'clip_gradient': 0.3, 'rescale_grad': 0.5, 'wd': 0.01},
])
def test_matches_float64_reference(kwargs):
    weight, grads = random_problem()
    opt = mx.optimizer.LARS(learning_rate=0.1, **kwargs)
    w = nd.array(weight)
    state = opt.create_state(0, w)
    for g in grads:
        opt.update(0, w, nd.array(g), state)
    w_ref = lars_reference(weight, grads, [0.1] * STEPS, **kwargs)
    np.testing.assert_allclose(w.asnumpy(), w_ref, rtol=1e-4, atol=1e-5)


def test_momentum_correction_follows_the_scheduler():
    weight, grads = random_problem()
    sched = mx.lr_scheduler.FactorScheduler(step=2, factor=0.5, base_lr=0.1)
    opt = mx.optimizer.LARS(momentum=0.9, eta=0.5, lr_scheduler=sched)
    w = nd.array(weight)
    state = opt.create_state(0, w)
    for g in grads:
        opt.update(0, w, nd.array(g), state)
    lrs = [0.1, 0.1, 0.05, 0.05, 0.025, 0.025]   # FactorScheduler at num_update 1..6
    np.testing.assert_allclose(w.asnumpy(), lars_reference(weight, grads, lrs, momentum=0.9,
                                                           eta=0.5), rtol=1e-4, atol=1e-5)
    uncorrected = mx.optimizer.LARS(momentum=0.9, eta=0.5, momentum_correction=False,
                                    lr_scheduler=mx.lr_scheduler.FactorScheduler(
                                        step=2, factor=0.5, base_lr=0.1))
    w2 = nd.array(weight)
    state2 = uncorrected.create_state(0, w2)
    for g in grads:
        uncorrected.update(0, w2, nd.array(g), state2)
    assert not np.allclose(w.asnumpy(), w2.asnumpy())


def test_bias_gamma_beta_keep_plain_lr_and_only_weights_decay():
    names = {0: 'fc_weight', 1: 'fc_bias', 2: 'bn_gamma'}
    opt = mx.optimizer.LARS(learning_rate=0.1, eta=0.5, wd=0.1, param_idx2name=names)
    assert opt._get_wds([0, 1, 2]) == [0.1, 0.0, 0.0]   # unlike the base class, gamma gets 0
    weight, grads = random_problem()
    w = nd.array(weight[0])
    opt.update(1, w, nd.array(grads[0][0]), None)
    plain = weight[0].astype(np.float64) - 0.1 * grads[0][0]
    np.testing.assert_allclose(w.asnumpy(), plain, rtol=1e-6)


def test_defaults_state_and_aggregation():
    opt = mx.optimizer.create('lars')
    assert (opt.momentum, opt.eta, opt.eps, opt.lazy_update) == (0.0, 0.001, 0, True)
    assert opt.momentum_correction and opt.aggregate_num == 4
    assert opt.create_state(0, nd.zeros((2,))) is None
    mom = mx.optimizer.LARS(momentum=0.9).create_state(0, nd.zeros((2, 3)))
    assert mom.shape == (2, 3)


@pytest.mark.parametrize('kwargs, name', [
    ({'momentum': -0.1}, 'momentum'), ({'eta': -1}, 'eta'), ({'eps': -1e-3}, 'eps'),
])
def test_invalid_hyperparameters(kwargs, name):
    with pytest.raises(ValueError, match=name):
        mx.optimizer.LARS(**kwargs)


@pytest.mark.parametrize('momentum', [0.0, 0.9])
def test_lazy_update_touches_only_gradient_rows(momentum):
    weight, grads = random_problem()
    rows = [1, 3]
    opt = mx.optimizer.LARS(learning_rate=0.1, eta=0.5, momentum=momentum, wd=0.1)
    w = nd.array(weight)
    state = opt.create_state(0, w)
    opt.update(0, w, nd.sparse.row_sparse_array((grads[0][rows], rows), shape=weight.shape),
               state)
    after = w.asnumpy()
    np.testing.assert_array_equal(after[[0, 2, 4]], weight[[0, 2, 4]])
    # The trust ratio uses the whole weight; the rows then step as SGD.
    layer_lr = 0.1 * 0.5 * np.linalg.norm(weight) / (np.linalg.norm(grads[0][rows]) +
                                                     0.1 * np.linalg.norm(weight))
    expected = weight[rows] - layer_lr * (0.1 * weight[rows] + grads[0][rows])
    np.testing.assert_allclose(after[rows], expected, rtol=1e-5, atol=1e-6)


def test_non_lazy_sparse_update_equals_dense():
    weight, grads = random_problem()
    rows = [1, 3]
    dense = np.zeros_like(weight)
    dense[rows] = grads[0][rows]
    a = mx.optimizer.LARS(eta=0.5, momentum=0.9, wd=0.1, lazy_update=False)
    b = mx.optimizer.LARS(eta=0.5, momentum=0.9, wd=0.1)
    wa, wb = nd.array(weight), nd.array(weight)
    a.update(0, wa, nd.sparse.row_sparse_array((grads[0][rows], rows), shape=weight.shape),
             a.create_state(0, wa))
    b.update(0, wb, nd.array(dense), b.create_state(0, wb))
    np.testing.assert_allclose(wa.asnumpy(), wb.asnumpy(), rtol=1e-6, atol=1e-7)


def test_list_call_reads_lr_once_per_call():
    # Momentum correction compares consecutive calls: a list call is one call.
    weight, grads = random_problem()
    make = lambda: mx.optimizer.LARS(momentum=0.9, eta=0.5, lr_scheduler=  # noqa: E731
                                     mx.lr_scheduler.FactorScheduler(step=2, factor=0.5,
                                                                     base_lr=0.1))
    multi, updater_opt = make(), make()
    updater = mx.optimizer.get_updater(updater_opt)
    wm = [nd.array(weight), nd.array(-weight)]
    wu = [nd.array(weight), nd.array(-weight)]
    sm = [multi.create_state(i, w) for i, w in enumerate(wm)]
    for g in grads:
        multi.update([0, 1], wm, [nd.array(g), nd.array(g)], sm)
        updater([0, 1], [nd.array(g), nd.array(g)], wu)
    for a, b in zip(wm, wu):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    assert multi.last_lr == multi.cur_lr == 0.025


def test_multi_precision_layout_and_master_copy():
    weight, grads = random_problem()
    opt = mx.optimizer.LARS(learning_rate=0.1, eta=0.5, momentum=0.9, multi_precision=True)
    w = nd.array(weight, dtype='float16')
    state = opt.create_state_multi_precision(0, w)
    mom, master = state          # LARS's own order: (momentum, weight_fp32)
    assert mom.dtype == master.dtype == np.float32
    for g in grads:
        opt.update_multi_precision(0, w, nd.array(g, dtype='float16'), state)
    np.testing.assert_array_equal(w.asnumpy(), master.asnumpy().astype(np.float16))
    w_ref = lars_reference(weight.astype(np.float16), [g.astype(np.float16) for g in grads],
                           [0.1] * STEPS, momentum=0.9, eta=0.5)
    np.testing.assert_allclose(master.asnumpy(), w_ref, rtol=1e-2, atol=1e-3)
