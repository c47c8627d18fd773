"""FTML: the documented rule (weight decay inside the clip), states, lists, float16."""
import numpy as np
import pytest

import gluonedu as mx
from gluonedu import nd

from optimizer_cases import assert_list_call_equals_single_calls, random_problem


def ftml_reference(weight, grads, lr=0.01, beta1=0.6, beta2=0.999, epsilon=1e-8, wd=0.,
                   rescale_grad=1., clip_gradient=None):
    """FTML in float64 NumPy, as MXNet's kernel computes it."""
    w = weight.astype(np.float64)
    d = np.zeros_like(w)
    v = np.zeros_like(w)
    z = np.zeros_like(w)
    for t, g in enumerate(grads, start=1):
        g = g.astype(np.float64) * rescale_grad + wd * w
        if clip_gradient is not None:
            g = np.clip(g, -clip_gradient, clip_gradient)
        v = beta2 * v + (1 - beta2) * g * g
        d_t = (1 - beta1 ** t) / lr * (np.sqrt(v / (1 - beta2 ** t)) + epsilon)
        z = beta1 * z + (1 - beta1) * g - (d_t - beta1 * d) * w
        d = d_t
        w = -z / d_t
    return w, (d, v, z)



@pytest.mark.parametrize('kwargs', [
    {},
    {'learning_rate': 0.05, 'wd': 0.1},
    {'learning_rate': 0.05, 'beta1': 0.3, 'beta2': 0.9, 'epsilon': 1e-3, 'wd': 0.5,
     'clip_gradient': 0.5, 'rescale_grad': 2.0},
])
def test_matches_float64_reference(kwargs):
    weight, grads = random_problem()
    opt = mx.optimizer.FTML(**kwargs)
    w = nd.array(weight)
    state = opt.create_state(0, w)
    for g in grads:
        opt.update(0, w, nd.array(g), state)
    ref = dict(kwargs)
    ref['lr'] = ref.pop('learning_rate', 0.01)
    w_ref, states_ref = ftml_reference(weight, grads, **ref)
    np.testing.assert_allclose(w.asnumpy(), w_ref, rtol=1e-4, atol=1e-5)
    for s, s_ref in zip(state, states_ref):
        np.testing.assert_allclose(s.asnumpy(), s_ref, rtol=1e-4, atol=1e-5)


def test_weight_decay_is_clipped_with_the_gradient():
    # A huge wd, clipped: the rule sees at most clip_gradient per coordinate.
    weight = np.full((3,), 2.0, dtype=np.float32)
    grad = np.zeros((3,), dtype=np.float32)
    opt = mx.optimizer.FTML(learning_rate=0.1, wd=100.0, clip_gradient=0.5)
    w = nd.array(weight)
    opt.update(0, w, nd.array(grad), opt.create_state(0, w))
    w_ref, _ = ftml_reference(weight, [grad], lr=0.1, wd=100.0, clip_gradient=0.5)
    np.testing.assert_allclose(w.asnumpy(), w_ref, rtol=1e-5)


def test_defaults_and_state_layout():
    opt = mx.optimizer.create('ftml')
    assert (opt.beta1, opt.beta2, opt.epsilon) == (0.6, 0.999, 1e-8)
    state = opt.create_state(0, nd.zeros((2, 3)))
    assert isinstance(state, tuple) and len(state) == 3
    assert all(s.shape == (2, 3) and s.dtype == np.float32 for s in state)


@pytest.mark.parametrize('kwargs, name', [
    ({'beta1': 1.0}, 'beta1'), ({'beta1': -0.1}, 'beta1'), ({'beta2': 1.5}, 'beta2'),
    ({'epsilon': -1e-8}, 'epsilon'), ({'learning_rate': -0.1}, 'learning_rate'),
    # the update divides by the learning rate: 0 would make every weight NaN
    ({'learning_rate': 0}, 'learning_rate'),
])
def test_invalid_hyperparameters(kwargs, name):
    with pytest.raises(ValueError, match=name):
        mx.optimizer.FTML(**kwargs)


def test_row_sparse_gradient_counts_as_dense():
    weight, grads = random_problem()
    rows = [0, 2]
    dense = np.zeros_like(weight)
    dense[rows] = grads[0][rows]
    a, b = mx.optimizer.FTML(wd=0.1), mx.optimizer.FTML(wd=0.1)
    wa, wb = nd.array(weight), nd.array(weight)
    a.update(0, wa, nd.sparse.row_sparse_array((grads[0][rows], rows), shape=weight.shape),
             a.create_state(0, wa))
    b.update(0, wb, nd.array(dense), b.create_state(0, wb))
    np.testing.assert_array_equal(wa.asnumpy(), wb.asnumpy())


def test_list_call_equals_single_calls():
    weight, grads = random_problem()
    assert_list_call_equals_single_calls(
        lambda: mx.optimizer.FTML(),
        [weight, -weight], grads)


def test_multi_precision_keeps_float32_master():
    weight, grads = random_problem()
    opt = mx.optimizer.FTML(multi_precision=True)
    w = nd.array(weight, dtype='float16')
    state = opt.create_state_multi_precision(0, w)
    master, inner = state
    assert master.dtype == np.float32 and len(inner) == 3
    for g in grads:
        opt.update_multi_precision(0, w, nd.array(g, dtype='float16'), state)
    np.testing.assert_array_equal(w.asnumpy(), master.asnumpy().astype(np.float16))
    w_ref, _ = ftml_reference(weight.astype(np.float16), [g.astype(np.float16) for g in grads])
    np.testing.assert_allclose(master.asnumpy(), w_ref, rtol=1e-4, atol=1e-5)
