"""Signum (momentum > 0) and signSGD (momentum == 0): rules, states, lists, float16."""
import numpy as np
import pytest

import gluonedu as mx
from gluonedu import nd

from optimizer_cases import random_problem, run


def signum_reference(weight, grads, lr=0.01, momentum=0.9, wd=0., wd_lh=0., rescale_grad=1.,
                     clip_gradient=None):
    """Signum / signSGD in float64 NumPy as documented (``mom`` stored negated, as MXNet)."""
    w = weight.astype(np.float64)
    mom = np.zeros_like(w)
    for g in grads:
        s = g.astype(np.float64) * rescale_grad
        if clip_gradient is not None:
            s = np.clip(s, -clip_gradient, clip_gradient)
        if momentum > 0:
            mom = momentum * mom - (1 - momentum) * (s + wd * w)
            w = (1 - lr * wd_lh) * w + lr * np.sign(mom)
        else:
            w = (1 - lr * (wd + wd_lh)) * w - lr * np.sign(s)
    return w, mom



@pytest.mark.parametrize('kwargs', [
    {},
    {'learning_rate': 0.1, 'wd': 0.05},
    {'learning_rate': 0.1, 'momentum': 0.5, 'wd_lh': 0.01},
    {'learning_rate': 0.1, 'wd': 0.05, 'wd_lh': 0.02, 'clip_gradient': 0.3},
    {'learning_rate': 0.1, 'rescale_grad': 0.25, 'wd': 0.01},
    {'learning_rate': 0.1, 'momentum': 0.0},
    {'learning_rate': 0.1, 'momentum': 0.0, 'wd': 0.05, 'clip_gradient': 0.3},
    {'learning_rate': 0.1, 'momentum': 0.0, 'wd': 0.05, 'wd_lh': 0.02},
])
def test_signum_follows_the_documented_formula_over_several_steps(kwargs):
    weight, grads = random_problem()
    w, state = run(mx.optimizer.Signum(**kwargs), weight, grads)
    ref = dict(kwargs)
    ref['lr'] = ref.pop('learning_rate', 0.01)
    ref_w, ref_mom = signum_reference(weight, grads, **ref)
    np.testing.assert_allclose(w.asnumpy(), ref_w, rtol=1e-5, atol=1e-6)
    if kwargs.get('momentum', 0.9):
        np.testing.assert_allclose(state.asnumpy(), ref_mom, rtol=1e-5, atol=1e-6)
    else:
        assert state is None


def test_signsgd_decays_the_weight_outside_the_sign():
    # One step, a tiny gradient: the sign is +-1 whatever wd, and the weight shrinks by lr*wd.
    opt = mx.optimizer.Signum(learning_rate=0.1, momentum=0.0, wd=0.5)
    w = nd.array([2.0, -2.0])
    opt.update(0, w, nd.array([1e-3, 1e-3]), None)
    np.testing.assert_allclose(w.asnumpy(), [0.95 * 2 - 0.1, 0.95 * -2 - 0.1], rtol=1e-6)


def test_defaults_and_state_layout():
    opt = mx.optimizer.Signum()
    assert (opt.learning_rate, opt.momentum, opt.wd_lh) == (0.01, 0.9, 0.0)
    mom = opt.create_state(0, nd.ones((2, 3)))
    assert mom.shape == (2, 3) and mom.dtype == np.float32
    assert mx.optimizer.Signum(momentum=0).create_state(0, nd.ones((2,))) is None


@pytest.mark.parametrize('kwargs, name', [({'momentum': -0.1}, 'momentum'),
                                          ({'learning_rate': -1}, 'learning_rate')])
def test_invalid_hyperparameters_raise_value_error_naming_them(kwargs, name):
    with pytest.raises(ValueError, match=name):
        mx.optimizer.Signum(**kwargs)


def test_multi_precision_uses_the_generic_master_copy():
    weight, grads = random_problem()
    grads16 = [g.astype(np.float16) for g in grads]
    opt = mx.optimizer.Signum(learning_rate=0.1, wd=0.01, multi_precision=True)
    w16, (master, mom) = run(opt, weight, grads16, dtype='float16')
    assert master.dtype == np.float32 and mom.dtype == np.float32
    ref_w, _ = signum_reference(weight.astype(np.float16), grads16, lr=0.1, wd=0.01)
    np.testing.assert_allclose(master.asnumpy(), ref_w, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(w16.asnumpy(), master.asnumpy().astype(np.float16))


def test_sparse_gradient_gives_the_dense_result():
    weight, grads = random_problem()
    rows = np.array([0, 4])
    opt = mx.optimizer.Signum(learning_rate=0.1, wd=0.1)
    w = nd.array(weight)
    state = opt.create_state(0, w)
    for g in grads:
        opt.update(0, w, nd.sparse.row_sparse_array((g[rows], rows), shape=g.shape), state)
    dense = [g * np.isin(np.arange(5), rows)[:, None] for g in grads]
    np.testing.assert_allclose(w.asnumpy(), signum_reference(weight, dense, lr=0.1, wd=0.1)[0],
                               rtol=1e-5, atol=1e-6)


def test_list_calls_equal_single_calls():
    weight, grads = random_problem()
    a, b = mx.optimizer.Signum(learning_rate=0.1), mx.optimizer.Signum(learning_rate=0.1)
    wa = [nd.array(weight), nd.array(weight * 2)]
    wb = [nd.array(weight), nd.array(weight * 2)]
    sa = [a.create_state(i, w) for i, w in enumerate(wa)]
    sb = [b.create_state(i, w) for i, w in enumerate(wb)]
    for g in grads:
        for i in range(2):
            a.update(i, wa[i], nd.array(g), sa[i])
        b.update([0, 1], wb, [nd.array(g), nd.array(g)], sb)
    for x, y in zip(wa, wb):
        np.testing.assert_array_equal(x.asnumpy(), y.asnumpy())
