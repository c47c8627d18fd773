"""AdaGrad: the documented update rule, the lazy row-sparse path, states, lists, float16."""
import numpy as np
import pytest

import gluonedu as mx
from gluonedu import nd

from optimizer_cases import random_problem, run


def adagrad_reference(weight, grads, lr=0.01, eps=1e-7, wd=0., rescale_grad=1.,
                      clip_gradient=None, rows=None, lr_of_step=None):
    """AdaGrad in float64 NumPy, as documented; ``rows`` lists the rows updated per step."""
    w = weight.astype(np.float64)
    history = np.zeros_like(w)
    for t, g in enumerate(grads, start=1):
        touched = slice(None) if rows is None else rows[t - 1]
        g = g.astype(np.float64)[touched] * rescale_grad
        if clip_gradient is not None:
            g = np.clip(g, -clip_gradient, clip_gradient)
        history[touched] += g ** 2
        step_lr = lr if lr_of_step is None else lr_of_step(t)
        w[touched] = w[touched] - step_lr * (g / np.sqrt(history[touched] + eps)
                                             + wd * w[touched])
    return w, history



@pytest.mark.parametrize('kwargs', [
    {},
    {'learning_rate': 0.1, 'wd': 0.1},
    {'learning_rate': 0.1, 'clip_gradient': 0.3},
    {'learning_rate': 0.1, 'rescale_grad': 0.25, 'wd': 0.05, 'clip_gradient': 0.4},
    {'learning_rate': 0.1, 'eps': 1e-2},
])
def test_adagrad_follows_the_documented_formula_over_several_steps(kwargs):
    weight, grads = random_problem()
    w, history = run(mx.optimizer.AdaGrad(**kwargs), weight, grads)
    ref_kwargs = dict(kwargs)
    ref_kwargs['lr'] = ref_kwargs.pop('learning_rate', 0.01)
    ref_w, ref_h = adagrad_reference(weight, grads, **ref_kwargs)
    np.testing.assert_allclose(w.asnumpy(), ref_w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(history.asnumpy(), ref_h, rtol=1e-5, atol=1e-6)


def test_lr_scheduler_and_lr_mult_set_the_step_size():
    weight, grads = random_problem(1)
    scheduler = mx.lr_scheduler.FactorScheduler(step=2, factor=0.5, base_lr=0.2)
    opt = mx.optimizer.AdaGrad(lr_scheduler=scheduler, param_idx2name={0: 'fc_weight'})
    opt.set_lr_mult({'fc_weight': 0.5})
    w, _ = run(opt, weight, grads)
    ref_w, _ = adagrad_reference(weight, grads,
                                 lr_of_step=lambda t: 0.2 * 0.5 ** ((t - 1) // 2) * 0.5)
    np.testing.assert_allclose(w.asnumpy(), ref_w, rtol=1e-5, atol=1e-6)


def test_state_is_a_float32_history():
    history = mx.optimizer.AdaGrad().create_state(0, nd.ones((3, 2), dtype='float64'))
    assert history.shape == (3, 2) and history.dtype == np.float32
    assert history.stype == 'default' and not history.asnumpy().any()


@pytest.mark.parametrize('name,value', [('eps', -1e-7), ('learning_rate', -0.1)])
def test_undefined_hyperparameters_are_rejected(name, value):
    with pytest.raises(ValueError, match=name):
        mx.optimizer.AdaGrad(**{name: value})


def sparse_problem():
    rs = np.random.RandomState(2)
    weight = rs.uniform(-1, 1, (6, 3)).astype(np.float32)
    rows = [np.array([0, 2, 5]), np.array([1, 2]), np.array([4])]
    grads = [rs.normal(0, 1, (6, 3)).astype(np.float32) for _ in rows]
    return weight, grads, rows


def test_row_sparse_gradients_update_only_their_rows():
    weight, grads, rows = sparse_problem()
    opt = mx.optimizer.AdaGrad(learning_rate=0.1, rescale_grad=0.5, clip_gradient=0.4)
    w = nd.array(weight)
    history = opt.create_state(0, w)
    for g, r in zip(grads, rows):
        opt.update(0, w, nd.sparse.row_sparse_array((g[r], r), shape=g.shape), history)
    ref_w, ref_h = adagrad_reference(weight, grads, lr=0.1, rescale_grad=0.5,
                                     clip_gradient=0.4, rows=rows)
    np.testing.assert_allclose(w.asnumpy(), ref_w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(history.asnumpy(), ref_h, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(w.asnumpy()[3], weight[3])
    assert not history.asnumpy()[3].any()


def test_row_sparse_gradients_refuse_weight_decay_as_mxnet():
    opt = mx.optimizer.AdaGrad(wd=0.1)
    w = nd.ones((4, 2))
    grad = nd.sparse.row_sparse_array((np.ones((1, 2), dtype=np.float32), [1]), shape=(4, 2))
    with pytest.raises(ValueError, match='wd'):
        opt.update(0, w, grad, opt.create_state(0, w))
    # A bias (wd_mult 0) is fine.
    opt = mx.optimizer.AdaGrad(wd=0.1, param_idx2name={0: 'fc_bias'})
    opt.update(0, w, grad, opt.create_state(0, w))


def test_multi_precision_keeps_a_float32_master_copy():
    weight, grads = random_problem(5)
    opt = mx.optimizer.AdaGrad(learning_rate=0.1, multi_precision=True)
    w16, (master, history) = run(opt, weight, grads, dtype='float16')
    assert master.dtype == np.float32 and history.dtype == np.float32
    np.testing.assert_array_equal(w16.asnumpy(), master.asnumpy().astype(np.float16))
    ref_w, _ = adagrad_reference(weight.astype(np.float16),
                                 [g.astype(np.float16) for g in grads], lr=0.1)
    np.testing.assert_allclose(master.asnumpy(), ref_w, rtol=1e-5, atol=1e-6)


def test_registered_under_its_name():
    opt = mx.optimizer.create('adagrad', eps=1e-6)
    assert isinstance(opt, mx.optimizer.AdaGrad)
    assert (opt.lr, opt.float_stable_eps) == (0.01, 1e-6)
