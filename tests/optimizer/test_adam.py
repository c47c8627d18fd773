"""Adam: the documented update rule, lazy row-sparse updates, states, lists, float16."""
import math

import numpy as np
import pytest

import gluonedu as mx
from gluonedu import nd

from optimizer_cases import random_problem, run


def adam_reference(weight, grads, lr=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, wd=0.,
                   rescale_grad=1., clip_gradient=None, rows=None):
    """Adam in float64 NumPy, as documented; ``rows`` lists the rows updated at each step."""
    w = weight.astype(np.float64)
    m, v = np.zeros_like(w), np.zeros_like(w)
    for t, g in enumerate(grads, start=1):
        touched = slice(None) if rows is None else rows[t - 1]
        g = g.astype(np.float64)[touched] * rescale_grad + wd * w[touched]
        if clip_gradient is not None:
            g = np.clip(g, -clip_gradient, clip_gradient)
        m[touched] = beta1 * m[touched] + (1 - beta1) * g
        v[touched] = beta2 * v[touched] + (1 - beta2) * g ** 2
        lr_t = lr * math.sqrt(1 - beta2 ** t) / (1 - beta1 ** t)
        w[touched] = w[touched] - lr_t * m[touched] / (np.sqrt(v[touched]) + epsilon)
    return w, m, v



@pytest.mark.parametrize('kwargs', [
    {},
    {'learning_rate': 0.05, 'wd': 0.1},
    {'learning_rate': 0.05, 'clip_gradient': 0.3},
    {'learning_rate': 0.05, 'rescale_grad': 0.25, 'wd': 0.05, 'clip_gradient': 0.4},
    {'learning_rate': 0.02, 'beta1': 0.5, 'beta2': 0.9, 'epsilon': 1e-4},
])
def test_adam_follows_the_documented_formula_over_several_steps(kwargs):
    weight, grads = random_problem()
    w, (mean, var) = run(mx.optimizer.Adam(**kwargs), weight, grads)
    ref_kwargs = dict(kwargs)
    ref_kwargs.setdefault('learning_rate', 0.001)
    ref_kwargs['lr'] = ref_kwargs.pop('learning_rate')
    ref_w, ref_m, ref_v = adam_reference(weight, grads, **ref_kwargs)
    np.testing.assert_allclose(w.asnumpy(), ref_w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(mean.asnumpy(), ref_m, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(var.asnumpy(), ref_v, rtol=1e-4, atol=1e-7)


def test_weight_decay_joins_the_gradient_before_clipping():
    # With a huge wd the clipped gradient saturates: every coordinate moves by lr_1 = lr.
    weight = np.array([1., -1.], dtype=np.float32)
    opt = mx.optimizer.Adam(learning_rate=0.1, wd=100., clip_gradient=0.5)
    w, _ = run(opt, weight, [np.zeros(2, dtype=np.float32)])
    np.testing.assert_allclose(w.asnumpy(), [0.9, -0.9], rtol=1e-6)


def test_lr_scheduler_and_lr_mult_set_the_step_size():
    weight, grads = random_problem(1)
    scheduler = mx.lr_scheduler.FactorScheduler(step=2, factor=0.5, base_lr=0.04)
    # As in MXNet, Adam's default learning_rate (0.001) would override the scheduler's
    # base_lr, so pass the same value.
    opt = mx.optimizer.Adam(learning_rate=0.04, lr_scheduler=scheduler,
                            param_idx2name={0: 'fc_weight'}, wd=0.1)
    opt.set_lr_mult({'fc_weight': 0.5})
    w = nd.array(weight)
    state = opt.create_state(0, w)
    ref = weight.astype(np.float64)
    m, v = np.zeros_like(ref), np.zeros_like(ref)
    for t, g in enumerate(grads, start=1):
        opt.update(0, w, nd.array(g), state)
        lr = 0.04 * 0.5 ** ((t - 1) // 2) * 0.5   # FactorScheduler, then lr_mult
        g = g + 0.1 * ref
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g ** 2
        ref = ref - lr * math.sqrt(1 - 0.999 ** t) / (1 - 0.9 ** t) * m / (np.sqrt(v) + 1e-8)
        np.testing.assert_allclose(w.asnumpy(), ref, rtol=1e-5, atol=1e-6)


def test_state_is_mean_and_var_like_the_weight():
    opt = mx.optimizer.Adam()
    weight = nd.ones((4, 2), dtype='float16')
    mean, var = opt.create_state(0, weight)
    for s in (mean, var):
        assert s.shape == (4, 2) and s.dtype == np.float16 and s.stype == 'default'
        assert not s.asnumpy().any()


@pytest.mark.parametrize('name,value', [('beta1', 1.0), ('beta1', -0.1), ('beta2', 1.0),
                                        ('beta2', 1.5), ('epsilon', -1e-8),
                                        ('learning_rate', -0.1)])
def test_undefined_hyperparameters_are_rejected(name, value):
    with pytest.raises(ValueError, match=name):
        mx.optimizer.Adam(**{name: value})


def test_zero_betas_are_accepted():
    mx.optimizer.Adam(beta1=0., beta2=0.)


def sparse_problem():
    rs = np.random.RandomState(2)
    weight = rs.uniform(-1, 1, (6, 3)).astype(np.float32)
    rows = [np.array([0, 2, 5]), np.array([1, 2]), np.array([4])]
    grads = [rs.normal(0, 1, (6, 3)).astype(np.float32) for _ in rows]
    return weight, grads, rows


def row_sparse(g, rows):
    return nd.sparse.row_sparse_array((g[rows], rows), shape=g.shape)


def test_lazy_update_touches_only_the_gradient_rows():
    weight, grads, rows = sparse_problem()
    opt = mx.optimizer.Adam(learning_rate=0.05, wd=0.1)
    w = nd.array(weight)
    mean, var = opt.create_state(0, w)
    for g, r in zip(grads, rows):
        opt.update(0, w, row_sparse(g, r), (mean, var))
    ref_w, ref_m, ref_v = adam_reference(weight, grads, lr=0.05, wd=0.1, rows=rows)
    np.testing.assert_allclose(w.asnumpy(), ref_w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(mean.asnumpy(), ref_m, rtol=1e-5, atol=1e-6)
    # Row 3 never had a gradient: weight unchanged (no decay either), moments still zero.
    np.testing.assert_array_equal(w.asnumpy()[3], weight[3])
    assert not mean.asnumpy()[3].any() and not var.asnumpy()[3].any()


def test_multi_precision_keeps_a_float32_master_copy():
    weight, grads = random_problem(5)
    opt = mx.optimizer.Adam(learning_rate=0.01, multi_precision=True)
    w16 = nd.array(weight, dtype='float16')
    state = opt.create_state_multi_precision(0, w16)
    master, (mean, var) = state
    assert master.dtype == np.float32 and mean.dtype == np.float32
    for g in grads:
        opt.update_multi_precision(0, w16, nd.array(g, dtype='float16'), state)
    assert w16.dtype == np.float16
    np.testing.assert_array_equal(w16.asnumpy(), master.asnumpy().astype(np.float16))
    ref_w, _, _ = adam_reference(weight.astype(np.float16),
                                 [g.astype(np.float16) for g in grads], lr=0.01)
    np.testing.assert_allclose(master.asnumpy(), ref_w, rtol=1e-5, atol=1e-6)


def test_registered_under_its_name():
    opt = mx.optimizer.create('adam', learning_rate=0.1, beta1=0.8)
    assert isinstance(opt, mx.optimizer.Adam)
    assert (opt.lr, opt.beta1, opt.beta2, opt.epsilon, opt.lazy_update) == (0.1, 0.8, 0.999,
                                                                           1e-8, True)
