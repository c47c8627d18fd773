"""Adamax: the documented update rule, states, validation, lists, float16, sparse grads."""
import numpy as np
import pytest

import gluonedu as mx
from gluonedu import nd

from optimizer_cases import random_problem, run


def adamax_reference(weight, grads, lr=0.002, beta1=0.9, beta2=0.999, wd=0.,
                     rescale_grad=1., clip_gradient=None, lr_of_step=None):
    """Adamax in float64 NumPy, as documented."""
    w = weight.astype(np.float64)
    m, u = np.zeros_like(w), np.zeros_like(w)
    for t, g in enumerate(grads, start=1):
        g = g.astype(np.float64) * rescale_grad + wd * w
        if clip_gradient is not None:
            g = np.clip(g, -clip_gradient, clip_gradient)
        m = beta1 * m + (1 - beta1) * g
        u = np.maximum(beta2 * u, np.abs(g))
        step_lr = lr if lr_of_step is None else lr_of_step(t)
        w = w - step_lr / (1 - beta1 ** t) * m / u
    return w, m, u



@pytest.mark.parametrize('kwargs', [
    {},
    {'learning_rate': 0.05, 'wd': 0.1},
    {'learning_rate': 0.05, 'clip_gradient': 0.3},
    {'learning_rate': 0.05, 'rescale_grad': 0.25, 'wd': 0.05, 'clip_gradient': 0.4},
    {'learning_rate': 0.02, 'beta1': 0.5, 'beta2': 0.8},
    {'learning_rate': 0.02, 'beta2': 1.0},
])
def test_adamax_follows_the_documented_formula_over_several_steps(kwargs):
    weight, grads = random_problem()
    w, (mean, inf_norm) = run(mx.optimizer.Adamax(**kwargs), weight, grads)
    ref_kwargs = dict(kwargs)
    ref_kwargs['lr'] = ref_kwargs.pop('learning_rate', 0.002)
    ref_w, ref_m, ref_u = adamax_reference(weight, grads, **ref_kwargs)
    np.testing.assert_allclose(w.asnumpy(), ref_w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(mean.asnumpy(), ref_m, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(inf_norm.asnumpy(), ref_u, rtol=1e-5, atol=1e-6)


def test_lr_scheduler_and_lr_mult_set_the_step_size():
    weight, grads = random_problem(1)
    scheduler = mx.lr_scheduler.FactorScheduler(step=2, factor=0.5, base_lr=0.04)
    opt = mx.optimizer.Adamax(learning_rate=0.04, lr_scheduler=scheduler)
    opt.set_lr_mult({0: 0.5})
    w, _ = run(opt, weight, grads)
    ref_w, _, _ = adamax_reference(weight, grads,
                                   lr_of_step=lambda t: 0.04 * 0.5 ** ((t - 1) // 2) * 0.5)
    np.testing.assert_allclose(w.asnumpy(), ref_w, rtol=1e-5, atol=1e-6)


def test_bias_names_get_no_weight_decay():
    weight, grads = random_problem(2, (4,))
    opt = mx.optimizer.Adamax(learning_rate=0.01, wd=0.5, param_idx2name={0: 'fc_bias'})
    w, _ = run(opt, weight, grads)
    ref_w, _, _ = adamax_reference(weight, grads, lr=0.01, wd=0.)
    np.testing.assert_allclose(w.asnumpy(), ref_w, rtol=1e-5, atol=1e-6)


def test_state_is_mean_and_infinity_norm_like_the_weight():
    mean, inf_norm = mx.optimizer.Adamax().create_state(0, nd.ones((3, 2), dtype='float16'))
    for s in (mean, inf_norm):
        assert s.shape == (3, 2) and s.dtype == np.float16 and not s.asnumpy().any()


@pytest.mark.parametrize('name,value', [('beta1', 1.0), ('beta1', -0.5), ('beta2', 1.01),
                                        ('beta2', -0.1), ('learning_rate', -1.)])
def test_undefined_hyperparameters_are_rejected(name, value):
    with pytest.raises(ValueError, match=name):
        mx.optimizer.Adamax(**{name: value})


def test_multi_precision_keeps_a_float32_master_copy():
    weight, grads = random_problem(6)
    opt = mx.optimizer.Adamax(learning_rate=0.01, multi_precision=True)
    w16, (master, (mean, _)) = run(opt, weight, grads, dtype='float16')
    assert master.dtype == np.float32 and mean.dtype == np.float32
    np.testing.assert_array_equal(w16.asnumpy(), master.asnumpy().astype(np.float16))
    ref_w, _, _ = adamax_reference(weight.astype(np.float16),
                                   [g.astype(np.float16) for g in grads], lr=0.01)
    np.testing.assert_allclose(master.asnumpy(), ref_w, rtol=1e-5, atol=1e-6)


def test_registered_under_its_name():
    opt = mx.optimizer.create('adamax')
    assert isinstance(opt, mx.optimizer.Adamax)
    assert (opt.lr, opt.beta1, opt.beta2) == (0.002, 0.9, 0.999)
