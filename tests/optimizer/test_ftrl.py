"""Ftrl: the documented rule, states, lazy rows of row-sparse weights, lists, float16."""
import numpy as np
import pytest

import gluonedu as mx
from gluonedu import nd

from optimizer_cases import assert_list_call_equals_single_calls, random_problem


def ftrl_reference(weight, grads, lr=0.1, lamda1=0.01, beta=1., wd=0., rescale_grad=1.,
                   clip_gradient=None):
    """FTRL-Proximal in float64 NumPy, as documented."""
    w = weight.astype(np.float64)
    z = np.zeros_like(w)
    n = np.zeros_like(w)
    for g in grads:
        g = g.astype(np.float64) * rescale_grad
        if clip_gradient is not None:
            g = np.clip(g, -clip_gradient, clip_gradient)
        z += g - (np.sqrt(n + g * g) - np.sqrt(n)) * w / lr
        n += g * g
        w = (np.sign(z) * lamda1 - z) / ((beta + np.sqrt(n)) / lr + wd) * (np.abs(z) > lamda1)
    return w, z, n



@pytest.mark.parametrize('kwargs', [
    {},
    {'lamda1': 0.3, 'beta': 0.5, 'wd': 0.1},
    {'learning_rate': 0.05, 'rescale_grad': 0.5, 'clip_gradient': 0.4, 'wd': 0.01},
])
def test_matches_float64_reference(kwargs):
    weight, grads = random_problem()
    opt = mx.optimizer.Ftrl(**kwargs)
    w = nd.array(weight)
    state = opt.create_state(0, w)
    for g in grads:
        opt.update(0, w, nd.array(g), state)
    ref = dict(kwargs)
    ref['lr'] = ref.pop('learning_rate', 0.1)
    w_ref, z_ref, n_ref = ftrl_reference(weight, grads, **ref)
    np.testing.assert_allclose(w.asnumpy(), w_ref, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(state[0].asnumpy(), z_ref, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(state[1].asnumpy(), n_ref, rtol=1e-4, atol=1e-5)


def test_large_l1_makes_weights_exactly_zero():
    weight, grads = random_problem()
    opt = mx.optimizer.Ftrl(lamda1=100.0)
    w = nd.array(weight)
    opt.update(0, w, nd.array(grads[0]), opt.create_state(0, w))
    assert np.all(w.asnumpy() == 0)


def test_defaults_and_state_layout():
    opt = mx.optimizer.create('ftrl')
    assert (opt.lamda1, opt.beta, opt.learning_rate) == (0.01, 1, 0.1)
    z, n = opt.create_state(0, nd.zeros((2, 3)))
    assert z.shape == n.shape == (2, 3) and z.dtype == np.float32
    assert z.stype == 'default'


@pytest.mark.parametrize('kwargs, name', [
    ({'lamda1': -0.1}, 'lamda1'), ({'beta': -1}, 'beta'), ({'learning_rate': 0}, 'learning_rate'),
])
def test_invalid_hyperparameters(kwargs, name):
    with pytest.raises(ValueError, match=name):
        mx.optimizer.Ftrl(**kwargs)


def test_row_sparse_weight_updates_only_gradient_rows():
    weight, grads = random_problem()
    opt = mx.optimizer.Ftrl(wd=0.1)
    w = nd.array(weight).tostype('row_sparse')
    state = opt.create_state(0, w)
    assert state[0].stype == 'row_sparse'
    rows = [1, 3]
    g = nd.sparse.row_sparse_array((grads[0][rows], rows), shape=weight.shape)
    opt.update(0, w, g, state)
    after = w.asnumpy()
    untouched = [0, 2, 4]
    np.testing.assert_array_equal(after[untouched], weight[untouched])
    w_ref, _, _ = ftrl_reference(weight[rows], [grads[0][rows]], wd=0.1)
    np.testing.assert_allclose(after[rows], w_ref, rtol=1e-5, atol=1e-6)
    assert np.all(state[1].asnumpy()[untouched] == 0)


def test_dense_weight_with_row_sparse_gradient_is_a_dense_update():
    # As MXNet (its kernel falls back to dense): every row is recomputed.
    weight, grads = random_problem()
    rows = [1, 3]
    dense_grad = np.zeros_like(weight)
    dense_grad[rows] = grads[0][rows]
    opt = mx.optimizer.Ftrl()
    w = nd.array(weight)
    opt.update(0, w, nd.sparse.row_sparse_array((grads[0][rows], rows), shape=weight.shape),
               opt.create_state(0, w))
    w_ref, _, _ = ftrl_reference(weight, [dense_grad])
    np.testing.assert_allclose(w.asnumpy(), w_ref, rtol=1e-5, atol=1e-6)


def test_list_call_equals_single_calls():
    weight, grads = random_problem()
    assert_list_call_equals_single_calls(
        lambda: mx.optimizer.Ftrl(wd=0.1),
        [weight, weight * 2], grads)


def test_multi_precision_keeps_float32_master():
    weight, grads = random_problem()
    opt = mx.optimizer.Ftrl(multi_precision=True)
    w = nd.array(weight, dtype='float16')
    state = opt.create_state_multi_precision(0, w)
    master, (z, n) = state
    assert master.dtype == np.float32 and z.dtype == np.float32
    for g in grads:
        opt.update_multi_precision(0, w, nd.array(g, dtype='float16'), state)
    np.testing.assert_array_equal(w.asnumpy(), master.asnumpy().astype(np.float16))
    w_ref, _, _ = ftrl_reference(weight.astype(np.float16), [g.astype(np.float16) for g in grads])
    np.testing.assert_allclose(master.asnumpy(), w_ref, rtol=1e-4, atol=1e-5)
