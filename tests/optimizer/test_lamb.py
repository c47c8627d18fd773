"""LAMB: the documented two-phase rule, trust-ratio bounds, states, lists, float16."""
import numpy as np
import pytest

import gluonedu as mx
from gluonedu import nd

from optimizer_cases import random_problem


def lamb_reference(weight, grads, lr=0.001, beta1=0.9, beta2=0.999, epsilon=1e-6, wd=0.,
                   rescale_grad=1., clip_gradient=None, lower_bound=None, upper_bound=None,
                   bias_correction=True):
    """LAMB in float64 NumPy, as documented."""
    w = weight.astype(np.float64)
    mean = np.zeros_like(w)
    var = np.zeros_like(w)
    for t, g in enumerate(grads, start=1):
        g = g.astype(np.float64) * rescale_grad
        if clip_gradient is not None:
            g = np.clip(g, -clip_gradient, clip_gradient)
        mean = beta1 * mean + (1 - beta1) * g
        var = beta2 * var + (1 - beta2) * g * g
        if bias_correction:
            d = (mean / (1 - beta1 ** t)) / (np.sqrt(var / (1 - beta2 ** t)) + epsilon) + wd * w
        else:
            d = mean / (np.sqrt(var) + epsilon) + wd * w
        r1 = np.linalg.norm(w)
        if lower_bound:
            r1 = max(r1, lower_bound)
        if upper_bound:
            r1 = min(r1, upper_bound)
        r2 = np.linalg.norm(d)
        ratio = 1.0 if r1 == 0 or r2 == 0 else r1 / r2
        w = w - lr * ratio * d
    return w, (mean, var)



@pytest.mark.parametrize('kwargs', [
    {},
    {'learning_rate': 0.01, 'wd': 0.1},
    {'learning_rate': 0.01, 'bias_correction': False, 'wd': 0.1},
    {'learning_rate': 0.01, 'lower_bound': 3.0, 'upper_bound': 3.5},
    {'learning_rate': 0.01, 'upper_bound': 1.0, 'clip_gradient': 0.5, 'rescale_grad': 2.0},
])
def test_matches_float64_reference(kwargs):
    weight, grads = random_problem()
    opt = mx.optimizer.LAMB(**kwargs)
    w = nd.array(weight)
    state = opt.create_state(0, w)
    for g in grads:
        opt.update(0, w, nd.array(g), state)
    ref = dict(kwargs)
    ref['lr'] = ref.pop('learning_rate', 0.001)
    w_ref, (mean_ref, var_ref) = lamb_reference(weight, grads, **ref)
    np.testing.assert_allclose(w.asnumpy(), w_ref, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(state[0].asnumpy(), mean_ref, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(state[1].asnumpy(), var_ref, rtol=1e-5, atol=1e-6)


def test_zero_weight_uses_plain_learning_rate():
    grad = np.array([0.5, -0.5], dtype=np.float32)
    opt = mx.optimizer.LAMB(learning_rate=0.1)
    w = nd.zeros((2,))
    opt.update(0, w, nd.array(grad), opt.create_state(0, w))
    w_ref, _ = lamb_reference(np.zeros(2, np.float32), [grad], lr=0.1)
    np.testing.assert_allclose(w.asnumpy(), w_ref, rtol=1e-6)


def test_defaults_state_layout_and_aggregation(monkeypatch):
    opt = mx.optimizer.create('lamb')
    assert (opt.learning_rate, opt.beta1, opt.beta2, opt.epsilon) == (0.001, 0.9, 0.999, 1e-6)
    assert opt.aggregate_num == 45 and opt.bias_correction
    mean, var = opt.create_state(0, nd.zeros((2, 3)))
    assert mean.shape == var.shape == (2, 3)
    monkeypatch.setenv('MXNET_OPTIMIZER_AGGREGATION_SIZE', '100')
    assert mx.optimizer.LAMB().aggregate_num == 45
    monkeypatch.setenv('MXNET_OPTIMIZER_AGGREGATION_SIZE', '0')
    assert mx.optimizer.LAMB().aggregate_num == 1


@pytest.mark.parametrize('kwargs, name', [
    ({'beta1': 1.0}, 'beta1'), ({'beta2': -0.5}, 'beta2'), ({'epsilon': -1.0}, 'epsilon'),
    ({'lower_bound': -1.0}, 'lower_bound'), ({'lower_bound': 2.0, 'upper_bound': 1.0},
                                             'lower_bound'),
])
def test_invalid_hyperparameters(kwargs, name):
    with pytest.raises(ValueError, match=name):
        mx.optimizer.LAMB(**kwargs)


def test_list_call_and_updater_equal_single_calls():
    weight, grads = random_problem()
    single, multi = mx.optimizer.LAMB(wd=0.1), mx.optimizer.LAMB(wd=0.1)
    updater = mx.optimizer.get_updater(mx.optimizer.LAMB(wd=0.1))
    ws = [nd.array(weight), nd.array(weight[:2])]
    wm = [nd.array(weight), nd.array(weight[:2])]
    wu = [nd.array(weight), nd.array(weight[:2])]
    ss = [single.create_state(i, w) for i, w in enumerate(ws)]
    sm = [multi.create_state(i, w) for i, w in enumerate(wm)]
    for g in grads:
        gs = [g, g[:2]]
        for i in range(2):
            single.update(i, ws[i], nd.array(gs[i]), ss[i])
        multi.update([0, 1], wm, [nd.array(x) for x in gs], sm)
        updater([0, 1], [nd.array(x) for x in gs], wu)
    for a, b, c in zip(ws, wm, wu):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
        np.testing.assert_array_equal(a.asnumpy(), c.asnumpy())


def test_multi_precision_master_copy_is_updated():
    weight, grads = random_problem()
    opt = mx.optimizer.LAMB(learning_rate=0.01, multi_precision=True)
    w = nd.array(weight, dtype='float16')
    state = opt.create_state_multi_precision(0, w)
    master, (mean, var) = state
    assert master.dtype == mean.dtype == np.float32
    for g in grads:
        opt.update_multi_precision(0, w, nd.array(g, dtype='float16'), state)
    np.testing.assert_array_equal(w.asnumpy(), master.asnumpy().astype(np.float16))
    # Unlike MXNet's single-tensor path (docs/divergences.md), the master copy moves.
    w_ref, _ = lamb_reference(weight.astype(np.float16), [g.astype(np.float16) for g in grads],
                              lr=0.01)
    np.testing.assert_allclose(master.asnumpy(), w_ref, rtol=1e-3, atol=1e-4)
    assert np.abs(master.asnumpy() - weight).max() > 0.03


def test_row_sparse_gradient_counts_as_dense():
    weight, grads = random_problem()
    rows = [0, 2]
    dense = np.zeros_like(weight)
    dense[rows] = grads[0][rows]
    a, b = mx.optimizer.LAMB(wd=0.1), mx.optimizer.LAMB(wd=0.1)
    wa, wb = nd.array(weight), nd.array(weight)
    a.update(0, wa, nd.sparse.row_sparse_array((grads[0][rows], rows), shape=weight.shape),
             a.create_state(0, wa))
    b.update(0, wb, nd.array(dense), b.create_state(0, wb))
    np.testing.assert_array_equal(wa.asnumpy(), wb.asnumpy())
