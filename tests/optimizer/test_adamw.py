"""AdamW: the documented update rule, decoupled decay vs Adam's L2, bad input, schedules.

Parity with MXNet 1.9.1's ``adamw_update`` operator is in
tests/parity/optimizer/test_adamw_parity.py.
"""
import math

import numpy as np
import pytest

import gluonedu as mx

from optimizer_cases import random_problem, run


def adamw_reference(weight, grads, lr=0.001, beta1=0.9, beta2=0.999, epsilon=1e-6, wd=0.,
                    rescale_grad=1., clip_gradient=None, correct_bias=True):
    """AdamW in float64 NumPy, as documented."""
    w = weight.astype(np.float64)
    m, v = np.zeros_like(w), np.zeros_like(w)
    for t, g in enumerate(grads, start=1):
        g = g.astype(np.float64) * rescale_grad
        if clip_gradient is not None:
            g = np.clip(g, -clip_gradient, clip_gradient)
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g ** 2
        c_t = math.sqrt(1 - beta2 ** t) / (1 - beta1 ** t) if correct_bias else 1.0
        w = w - lr * (c_t * m / (np.sqrt(v) + epsilon) + wd * w)
    return w, m, v


@pytest.mark.parametrize('kwargs', [
    {},
    {'learning_rate': 0.05, 'wd': 0.1},
    {'learning_rate': 0.05, 'clip_gradient': 0.3, 'wd': 0.01},
    {'learning_rate': 0.05, 'rescale_grad': 0.25, 'wd': 0.05, 'clip_gradient': 0.4},
    {'learning_rate': 0.02, 'beta1': 0.5, 'beta2': 0.9, 'epsilon': 1e-4, 'wd': 0.2},
    {'learning_rate': 0.02, 'wd': 0.1, 'correct_bias': False},
])
def test_adamw_follows_the_documented_formula_over_several_steps(kwargs):
    weight, grads = random_problem()
    w, (mean, var) = run(mx.optimizer.AdamW(**kwargs), weight, grads)
    ref_kwargs = dict(kwargs)
    ref_kwargs['lr'] = ref_kwargs.pop('learning_rate', 0.001)
    ref_w, ref_m, ref_v = adamw_reference(weight, grads, **ref_kwargs)
    np.testing.assert_allclose(w.asnumpy(), ref_w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(mean.asnumpy(), ref_m, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(var.asnumpy(), ref_v, rtol=1e-4, atol=1e-7)


def test_the_decay_is_lr_times_wd_whatever_the_gradient():
    """Decoupled: with no gradient the weight shrinks by (1 - lr*wd) per step, from the
    first step (not scaled by the bias correction); Adam's L2 term instead goes through
    the normalisation and moves every coordinate by about lr, big or small."""
    weight = np.array([4.0, 0.01], dtype=np.float32)
    zeros = [np.zeros(2, dtype=np.float32)] * 3
    w, _ = run(mx.optimizer.AdamW(learning_rate=0.1, wd=0.5), weight, zeros)
    np.testing.assert_allclose(w.asnumpy(), weight * (1 - 0.1 * 0.5) ** 3, rtol=1e-6)
    adam_w, _ = run(mx.optimizer.Adam(learning_rate=0.1, wd=0.5), weight, zeros[:1])
    np.testing.assert_allclose(weight - adam_w.asnumpy(), [0.1, 0.1], rtol=1e-3)


def test_the_decay_does_not_reach_the_moments_or_the_clip():
    weight, grads = random_problem(2)
    _, (m_decayed, v_decayed) = run(mx.optimizer.AdamW(wd=0.5, clip_gradient=0.2),
                                    weight, grads)
    _, (m_plain, v_plain) = run(mx.optimizer.AdamW(wd=0.0, clip_gradient=0.2), weight, grads)
    np.testing.assert_array_equal(m_decayed.asnumpy(), m_plain.asnumpy())
    np.testing.assert_array_equal(v_decayed.asnumpy(), v_plain.asnumpy())


@pytest.mark.parametrize('scale', [0.0, math.nan, math.inf, -math.inf])
def test_a_rescale_grad_of_zero_or_not_finite_skips_the_step_but_counts_it(scale):
    weight, grads = random_problem(3)
    opt = mx.optimizer.AdamW(learning_rate=0.1, wd=0.1, rescale_grad=scale)
    w, (mean, var) = run(opt, weight, grads[:2])
    np.testing.assert_array_equal(w.asnumpy(), weight)
    assert not mean.asnumpy().any() and not var.asnumpy().any()
    assert opt.num_update == 2


@pytest.mark.parametrize('kwargs,name', [
    ({'wd': -0.1}, 'wd'), ({'beta1': 1.0}, 'beta1'), ({'beta1': -0.1}, 'beta1'),
    ({'beta2': 1.5}, 'beta2'), ({'epsilon': -1e-8}, 'epsilon'),
    ({'learning_rate': -0.1}, 'learning_rate'), ({'wd': 'a lot'}, 'wd'),
])
def test_bad_hyperparameters_raise_value_error_naming_them(kwargs, name):
    with pytest.raises(ValueError, match='^%s ' % name):
        mx.optimizer.create('adamw', **kwargs)


def test_registered_as_adamw_with_mxnet_2_defaults():
    opt = mx.optimizer.create('adamw')
    assert type(opt) is mx.optimizer.AdamW
    assert (opt.learning_rate, opt.beta1, opt.beta2, opt.epsilon, opt.wd,
            opt.correct_bias) == (0.001, 0.9, 0.999, 1e-6, 0.0, True)
    assert opt.momentum_hyperparameter() == 'beta1'


def test_one_cycle_drives_beta1():
    schedule = mx.lr_scheduler.OneCycleScheduler(max_lr=0.01, total_steps=10)
    opt = mx.optimizer.AdamW(learning_rate=0.01, lr_scheduler=schedule, beta1=0.5)
    weight, grads = random_problem(4)
    seen = []
    w = mx.nd.array(weight)
    state = opt.create_state(0, w)
    for g in grads:
        opt.update(0, w, mx.nd.array(g), state)
        seen.append((opt.learning_rate, opt.beta1))
    assert seen == [(schedule(n), schedule.momentum_at(n)) for n in range(1, len(grads) + 1)]
    assert opt.bias_correction(3) == pytest.approx(
        math.sqrt(1 - 0.999 ** 3) / (1 - schedule.momentum_at(6) ** 3))
