"""AdaDelta: the documented update rule, no learning rate, states, lists, float16."""
import numpy as np
import pytest

import gluonedu as mx
from gluonedu import nd

from optimizer_cases import random_problem, run


def adadelta_reference(weight, grads, rho=0.9, epsilon=1e-5, wd=0., rescale_grad=1.,
                       clip_gradient=None):
    """AdaDelta in float64 NumPy, as documented (and as MXNet computes it)."""
    w = weight.astype(np.float64)
    acc_g, acc_delta = np.zeros_like(w), np.zeros_like(w)
    for g in grads:
        g = g.astype(np.float64) * rescale_grad
        if clip_gradient is not None:
            g = np.clip(g, -clip_gradient, clip_gradient)
        acc_g = rho * acc_g + (1 - rho) * g ** 2
        delta = np.sqrt(acc_delta + epsilon) / np.sqrt(acc_g + epsilon) * g
        acc_delta = rho * acc_delta + (1 - rho) * delta ** 2
        w = w - (delta + wd * w)
    return w, acc_g, acc_delta



@pytest.mark.parametrize('kwargs', [
    {},
    {'wd': 0.1},
    {'clip_gradient': 0.3},
    {'rescale_grad': 0.25, 'wd': 0.05, 'clip_gradient': 0.4},
    {'rho': 0.5, 'epsilon': 1e-3},
])
def test_adadelta_follows_the_documented_formula_over_several_steps(kwargs):
    weight, grads = random_problem()
    w, (acc_g, acc_delta) = run(mx.optimizer.AdaDelta(**kwargs), weight, grads)
    ref_w, ref_g, ref_d = adadelta_reference(weight, grads, **kwargs)
    np.testing.assert_allclose(w.asnumpy(), ref_w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(acc_g.asnumpy(), ref_g, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(acc_delta.asnumpy(), ref_d, rtol=1e-4, atol=1e-8)


def test_the_learning_rate_is_not_used():
    weight, grads = random_problem(1)
    scheduler = mx.lr_scheduler.FactorScheduler(step=1, factor=0.1, base_lr=5.)
    opt = mx.optimizer.AdaDelta(lr_scheduler=scheduler, param_idx2name={0: 'fc_weight'})
    opt.set_lr_mult({'fc_weight': 7.})
    w, _ = run(opt, weight, grads)
    ref_w, _, _ = adadelta_reference(weight, grads)
    np.testing.assert_allclose(w.asnumpy(), ref_w, rtol=1e-5, atol=1e-6)


def test_wd_mult_scales_the_weight_decay():
    weight, grads = random_problem(2)
    opt = mx.optimizer.AdaDelta(wd=0.1)
    opt.set_wd_mult({0: 0.5})
    w, _ = run(opt, weight, grads)
    ref_w, _, _ = adadelta_reference(weight, grads, wd=0.05)
    np.testing.assert_allclose(w.asnumpy(), ref_w, rtol=1e-5, atol=1e-6)


def test_the_gradient_is_not_changed():
    """MXNet rescales the caller's gradient in place; we do not (docs/divergences.md)."""
    opt = mx.optimizer.AdaDelta(rescale_grad=0.5)
    w, grad = nd.ones(2), nd.array([1., -2.])
    opt.update(0, w, grad, opt.create_state(0, w))
    assert grad.asnumpy().tolist() == [1., -2.]


def test_state_is_two_float32_accumulators():
    acc_g, acc_delta = mx.optimizer.AdaDelta().create_state(0, nd.ones((3,), dtype='float64'))
    for s in (acc_g, acc_delta):
        assert s.shape == (3,) and s.dtype == np.float32 and not s.asnumpy().any()


@pytest.mark.parametrize('name,value', [('rho', 1.5), ('rho', -0.1), ('epsilon', -1e-5)])
def test_undefined_hyperparameters_are_rejected(name, value):
    with pytest.raises(ValueError, match=name):
        mx.optimizer.AdaDelta(**{name: value})


def test_multi_precision_keeps_a_float32_master_copy():
    weight, grads = random_problem(6)
    opt = mx.optimizer.AdaDelta(multi_precision=True)
    w16, (master, (acc_g, _)) = run(opt, weight, grads, dtype='float16')
    assert master.dtype == np.float32 and acc_g.dtype == np.float32
    np.testing.assert_array_equal(w16.asnumpy(), master.asnumpy().astype(np.float16))
    ref_w, _, _ = adadelta_reference(weight.astype(np.float16),
                                     [g.astype(np.float16) for g in grads])
    np.testing.assert_allclose(master.asnumpy(), ref_w, rtol=1e-5, atol=1e-6)


def test_registered_under_its_name():
    opt = mx.optimizer.create('adadelta', rho=0.8)
    assert isinstance(opt, mx.optimizer.AdaDelta)
    assert (opt.rho, opt.epsilon) == (0.8, 1e-5)
