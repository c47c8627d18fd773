"""RMSProp: both documented update rules, weight clipping, states, lists, float16."""
import numpy as np
import pytest

import gluonedu as mx
from gluonedu import nd

from optimizer_cases import random_problem, run


def rmsprop_reference(weight, grads, lr=0.001, gamma1=0.9, gamma2=0.9, epsilon=1e-8,
                      centered=False, clip_weights=None, wd=0., rescale_grad=1.,
                      clip_gradient=None, lr_of_step=None):
    """RMSProp (plain or centered) in float64 NumPy, as documented."""
    w = weight.astype(np.float64)
    n, g_avg, delta = np.zeros_like(w), np.zeros_like(w), np.zeros_like(w)
    for t, g in enumerate(grads, start=1):
        step_lr = lr if lr_of_step is None else lr_of_step(t)
        g = g.astype(np.float64) * rescale_grad + wd * w
        if clip_gradient is not None:
            g = np.clip(g, -clip_gradient, clip_gradient)
        n = (1 - gamma1) * g ** 2 + gamma1 * n
        if centered:
            g_avg = (1 - gamma1) * g + gamma1 * g_avg
            delta = gamma2 * delta - step_lr * g / np.sqrt(n - g_avg ** 2 + epsilon)
            w = w + delta
        else:
            w = w - step_lr * g / np.sqrt(n + epsilon)
        if clip_weights is not None:
            w = np.clip(w, -clip_weights, clip_weights)
    return w, (n, g_avg, delta) if centered else (n,)



CASES = [
    {},
    {'learning_rate': 0.05, 'wd': 0.1},
    {'learning_rate': 0.05, 'clip_gradient': 0.3},
    {'learning_rate': 0.05, 'rescale_grad': 0.25, 'wd': 0.05, 'clip_gradient': 0.4},
    {'learning_rate': 0.02, 'gamma1': 0.5, 'gamma2': 0.7, 'epsilon': 1e-4},
    {'learning_rate': 0.1, 'clip_weights': 0.5},
]


@pytest.mark.parametrize('centered', [False, True])
@pytest.mark.parametrize('kwargs', CASES)
def test_rmsprop_follows_the_documented_formula_over_several_steps(kwargs, centered):
    weight, grads = random_problem()
    w, state = run(mx.optimizer.RMSProp(centered=centered, **kwargs), weight, grads)
    ref_kwargs = dict(kwargs)
    ref_kwargs['lr'] = ref_kwargs.pop('learning_rate', 0.001)
    ref_w, ref_state = rmsprop_reference(weight, grads, centered=centered, **ref_kwargs)
    np.testing.assert_allclose(w.asnumpy(), ref_w, rtol=1e-5, atol=1e-6)
    assert len(state) == len(ref_state)
    for ours, ref in zip(state, ref_state):
        np.testing.assert_allclose(ours.asnumpy(), ref, rtol=1e-4, atol=1e-6)


def test_clip_weights_bounds_the_weights():
    weight, grads = random_problem(1)
    w, _ = run(mx.optimizer.RMSProp(learning_rate=1., clip_weights=0.2), weight, grads)
    assert np.abs(w.asnumpy()).max() <= 0.2 + 1e-7


@pytest.mark.parametrize('bound', [0, -1])
def test_non_positive_clip_bounds_mean_no_clipping_as_in_mxnet_kernels(bound):
    weight, grads = random_problem(2)
    clipped, _ = run(mx.optimizer.RMSProp(learning_rate=0.1, clip_weights=bound,
                                          clip_gradient=bound), weight, grads)
    plain, _ = run(mx.optimizer.RMSProp(learning_rate=0.1), weight, grads)
    np.testing.assert_array_equal(clipped.asnumpy(), plain.asnumpy())


def test_lr_scheduler_and_lr_mult_set_the_step_size():
    weight, grads = random_problem(3)
    scheduler = mx.lr_scheduler.FactorScheduler(step=2, factor=0.5, base_lr=0.04)
    opt = mx.optimizer.RMSProp(learning_rate=0.04, lr_scheduler=scheduler,
                               param_idx2name={0: 'fc_weight'})
    opt.set_lr_mult({'fc_weight': 0.5})
    w, _ = run(opt, weight, grads)
    ref_w, _ = rmsprop_reference(weight, grads,
                                 lr_of_step=lambda t: 0.04 * 0.5 ** ((t - 1) // 2) * 0.5)
    np.testing.assert_allclose(w.asnumpy(), ref_w, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize('centered,size', [(False, 1), (True, 3)])
def test_state_layout(centered, size):
    state = mx.optimizer.RMSProp(centered=centered).create_state(0, nd.ones((2, 2)))
    assert isinstance(state, tuple) and len(state) == size
    for s in state:
        assert s.shape == (2, 2) and s.dtype == np.float32 and not s.asnumpy().any()


@pytest.mark.parametrize('name,value', [('gamma1', 1.5), ('gamma1', -0.1), ('gamma2', 2.),
                                        ('epsilon', -1e-8), ('learning_rate', -0.1)])
def test_undefined_hyperparameters_are_rejected(name, value):
    with pytest.raises(ValueError, match=name):
        mx.optimizer.RMSProp(**{name: value})


@pytest.mark.parametrize('centered', [False, True])
def test_multi_precision_keeps_a_float32_master_copy(centered):
    weight, grads = random_problem(7)
    opt = mx.optimizer.RMSProp(learning_rate=0.01, centered=centered, multi_precision=True)
    w16, (master, inner) = run(opt, weight, grads, dtype='float16')
    assert master.dtype == np.float32 and all(s.dtype == np.float32 for s in inner)
    np.testing.assert_array_equal(w16.asnumpy(), master.asnumpy().astype(np.float16))
    ref_w, _ = rmsprop_reference(weight.astype(np.float16),
                                 [g.astype(np.float16) for g in grads], lr=0.01,
                                 centered=centered)
    np.testing.assert_allclose(master.asnumpy(), ref_w, rtol=1e-5, atol=1e-6)


def test_registered_under_its_name():
    opt = mx.optimizer.create('rmsprop', centered=True, clip_weights=1.)
    assert isinstance(opt, mx.optimizer.RMSProp)
    assert (opt.lr, opt.gamma1, opt.gamma2, opt.epsilon, opt.centered, opt.clip_weights) == \
        (0.001, 0.9, 0.9, 1e-8, True, 1.)
