"""Nadam: the documented update rule, the shared momentum schedule, states, lists, float16."""
import numpy as np
import pytest

import gluonedu as mx
from gluonedu import nd

from optimizer_cases import STEPS, random_problem


class NadamReference:
    """Nadam in float64 NumPy, as documented; ``m_schedule`` is shared by all weights."""

    def __init__(self, lr=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, schedule_decay=0.004,
                 wd=0., rescale_grad=1., clip_gradient=None):
        self.__dict__.update(lr=lr, beta1=beta1, beta2=beta2, epsilon=epsilon, wd=wd,
                             schedule_decay=schedule_decay, rescale_grad=rescale_grad,
                             clip_gradient=clip_gradient)
        self.m_schedule = 1.
        self.t = {}

    def step(self, index, w, g, m, v):
        t = self.t[index] = self.t.get(index, 0) + 1
        g = g.astype(np.float64) * self.rescale_grad + self.wd * w
        if self.clip_gradient is not None:
            g = np.clip(g, -self.clip_gradient, self.clip_gradient)
        mu_t = self.beta1 * (1 - 0.5 * 0.96 ** (t * self.schedule_decay))
        mu_next = self.beta1 * (1 - 0.5 * 0.96 ** ((t + 1) * self.schedule_decay))
        self.m_schedule *= mu_t
        m = self.beta1 * m + (1 - self.beta1) * g
        v = self.beta2 * v + (1 - self.beta2) * g ** 2
        g_hat = g / (1 - self.m_schedule)
        m_hat = m / (1 - self.m_schedule * mu_next)
        v_hat = v / (1 - self.beta2 ** t)
        m_bar = (1 - mu_t) * g_hat + mu_next * m_hat
        return w - self.lr * m_bar / (np.sqrt(v_hat) + self.epsilon), m, v



def run_reference(ref, weight, grads, index=0):
    w = weight.astype(np.float64)
    m, v = np.zeros_like(w), np.zeros_like(w)
    for g in grads:
        w, m, v = ref.step(index, w, g, m, v)
    return w, m, v


@pytest.mark.parametrize('kwargs', [
    {},
    {'learning_rate': 0.05, 'wd': 0.1},
    {'learning_rate': 0.05, 'clip_gradient': 0.3},
    {'learning_rate': 0.05, 'rescale_grad': 0.25, 'wd': 0.05, 'clip_gradient': 0.4},
    {'learning_rate': 0.02, 'beta1': 0.5, 'beta2': 0.9, 'epsilon': 1e-4,
     'schedule_decay': 0.05},
])
def test_nadam_follows_the_documented_formula_over_several_steps(kwargs):
    weight, grads = random_problem()
    opt = mx.optimizer.Nadam(**kwargs)
    w = nd.array(weight)
    mean, var = opt.create_state(0, w)
    for g in grads:
        opt.update(0, w, nd.array(g), (mean, var))
    ref_kwargs = dict(kwargs)
    ref_kwargs['lr'] = ref_kwargs.pop('learning_rate', 0.001)
    ref = NadamReference(**ref_kwargs)
    ref_w, ref_m, ref_v = run_reference(ref, weight, grads)
    np.testing.assert_allclose(w.asnumpy(), ref_w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(mean.asnumpy(), ref_m, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(var.asnumpy(), ref_v, rtol=1e-4, atol=1e-7)
    assert opt.m_schedule == pytest.approx(ref.m_schedule, rel=1e-12)


def test_the_momentum_schedule_is_one_number_shared_by_all_weights():
    """As MXNet: each update of any index advances ``m_schedule``."""
    (w0, g0), (w1, g1) = random_problem(1, (4, 2)), random_problem(2, (3,))
    opt = mx.optimizer.Nadam(learning_rate=0.01)
    ws = [nd.array(w0), nd.array(w1)]
    states = [opt.create_state(i, w) for i, w in enumerate(ws)]
    ref = NadamReference(lr=0.01)
    refs = [[w.astype(np.float64), np.zeros(w.shape), np.zeros(w.shape)] for w in (w0, w1)]
    for step in range(STEPS):
        for i, grads in enumerate((g0, g1)):
            opt.update(i, ws[i], nd.array(grads[step]), states[i])
            refs[i] = list(ref.step(i, *[refs[i][0], grads[step], refs[i][1], refs[i][2]]))
    for w, r in zip(ws, refs):
        np.testing.assert_allclose(w.asnumpy(), r[0], rtol=1e-5, atol=1e-6)
    mu = [0.9 * (1 - 0.5 * 0.96 ** (t * 0.004)) for t in range(1, STEPS + 1)]
    assert opt.m_schedule == pytest.approx(np.prod(np.square(mu)), rel=1e-12)


def test_lr_scheduler_and_lr_mult_set_the_step_size():
    weight, grads = random_problem(3)
    scheduler = mx.lr_scheduler.FactorScheduler(step=2, factor=0.5, base_lr=0.04)
    opt = mx.optimizer.Nadam(learning_rate=0.04, lr_scheduler=scheduler)
    opt.set_lr_mult({0: 0.5})
    w = nd.array(weight)
    state = opt.create_state(0, w)
    ref = NadamReference()
    rw, rm, rv = weight.astype(np.float64), np.zeros(weight.shape), np.zeros(weight.shape)
    for t, g in enumerate(grads, start=1):
        opt.update(0, w, nd.array(g), state)
        ref.lr = 0.04 * 0.5 ** ((t - 1) // 2) * 0.5
        rw, rm, rv = ref.step(0, rw, g, rm, rv)
        np.testing.assert_allclose(w.asnumpy(), rw, rtol=1e-5, atol=1e-6)


def test_state_is_mean_and_var_like_the_weight():
    opt = mx.optimizer.Nadam()
    assert opt.m_schedule == 1.
    mean, var = opt.create_state(0, nd.ones((2, 3), dtype='float16'))
    for s in (mean, var):
        assert s.shape == (2, 3) and s.dtype == np.float16 and not s.asnumpy().any()


@pytest.mark.parametrize('name,value', [('beta1', 1.0), ('beta1', -0.1), ('beta2', 1.0),
                                        ('epsilon', -1e-8), ('learning_rate', -0.1),
                                        ('schedule_decay', 'fast')])
def test_undefined_hyperparameters_are_rejected(name, value):
    with pytest.raises(ValueError, match=name):
        mx.optimizer.Nadam(**{name: value})


def test_multi_precision_keeps_a_float32_master_copy():
    weight, grads = random_problem(7)
    opt = mx.optimizer.Nadam(learning_rate=0.01, multi_precision=True)
    w16 = nd.array(weight, dtype='float16')
    state = opt.create_state_multi_precision(0, w16)
    master, (mean, var) = state
    assert master.dtype == np.float32 and var.dtype == np.float32
    for g in grads:
        opt.update_multi_precision(0, w16, nd.array(g, dtype='float16'), state)
    np.testing.assert_array_equal(w16.asnumpy(), master.asnumpy().astype(np.float16))
    ref_w, _, _ = run_reference(NadamReference(lr=0.01), weight.astype(np.float16),
                                [g.astype(np.float16) for g in grads])
    np.testing.assert_allclose(master.asnumpy(), ref_w, rtol=1e-5, atol=1e-6)


def test_registered_under_its_name():
    opt = mx.optimizer.create('nadam', schedule_decay=0.01)
    assert isinstance(opt, mx.optimizer.Nadam)
    assert (opt.lr, opt.beta1, opt.beta2, opt.epsilon, opt.schedule_decay) == \
        (0.001, 0.9, 0.999, 1e-8, 0.01)
