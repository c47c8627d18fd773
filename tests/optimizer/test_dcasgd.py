"""DCASGD: the delay-compensated rule, with and without momentum; states, lists, float16."""
import numpy as np
import pytest

import gluonedu as mx
from gluonedu import nd

from optimizer_cases import random_problem, run


def dcasgd_reference(weight, grads, lr=0.01, momentum=0., lamda=0.04, wd=0., rescale_grad=1.,
                     clip_gradient=None):
    """DCASGD in float64 NumPy as documented."""
    w = weight.astype(np.float64)
    prev = w.copy()
    mom = np.zeros_like(w)
    for g in grads:
        g = g.astype(np.float64) * rescale_grad
        if clip_gradient is not None:
            g = np.clip(g, -clip_gradient, clip_gradient)
        mom = momentum * mom - lr * (g + wd * w + lamda * g * g * (w - prev))
        prev = w.copy()
        w = w + mom
    return w, mom, prev



@pytest.mark.parametrize('kwargs', [
    {},
    {'learning_rate': 0.1, 'wd': 0.05, 'lamda': 0.5},
    {'learning_rate': 0.1, 'clip_gradient': 0.3, 'rescale_grad': 2.0},
    {'learning_rate': 0.1, 'momentum': 0.9},            # crashes in MXNet 1.9.1
    {'learning_rate': 0.1, 'momentum': 0.5, 'wd': 0.01, 'lamda': 1.0},
])
def test_dcasgd_follows_the_documented_formula_over_several_steps(kwargs):
    weight, grads = random_problem()
    w, (mom, prev) = run(mx.optimizer.DCASGD(**kwargs), weight, grads)
    ref = dict(kwargs)
    ref['lr'] = ref.pop('learning_rate', 0.01)
    ref_w, ref_mom, ref_prev = dcasgd_reference(weight, grads, **ref)
    np.testing.assert_allclose(w.asnumpy(), ref_w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(prev.asnumpy(), ref_prev, rtol=1e-5, atol=1e-6)
    if kwargs.get('momentum'):
        np.testing.assert_allclose(mom.asnumpy(), ref_mom, rtol=1e-5, atol=1e-6)
    else:
        assert mom is None


def test_state_layout():
    w = nd.array([[1.0, 2.0]])
    mom, prev = mx.optimizer.DCASGD().create_state(0, w)
    assert mom is None
    np.testing.assert_array_equal(prev.asnumpy(), w.asnumpy())
    prev[:] = 5
    assert w.asnumpy()[0, 0] == 1.0        # a copy, not an alias
    mom, prev = mx.optimizer.DCASGD(momentum=0.9).create_state(0, w)
    assert mom.shape == w.shape and float(mom.abs().sum().asscalar()) == 0
    opt = mx.optimizer.DCASGD()
    assert (opt.momentum, opt.lamda, opt.weight_previous) == (0.0, 0.04, {})


@pytest.mark.parametrize('kwargs, name', [({'momentum': -0.1}, 'momentum'),
                                          ({'learning_rate': -1}, 'learning_rate')])
def test_invalid_hyperparameters_raise_value_error_naming_them(kwargs, name):
    with pytest.raises(ValueError, match=name):
        mx.optimizer.DCASGD(**kwargs)


def test_multi_precision_keeps_a_float32_master_copy():
    weight, grads = random_problem()
    grads16 = [g.astype(np.float16) for g in grads]
    opt = mx.optimizer.DCASGD(learning_rate=0.1, momentum=0.9, multi_precision=True)
    w16, (master, (mom, prev)) = run(opt, weight, grads16, dtype='float16')
    assert master.dtype == mom.dtype == prev.dtype == np.float32
    ref_w, _, _ = dcasgd_reference(weight.astype(np.float16), grads16, lr=0.1, momentum=0.9)
    np.testing.assert_allclose(master.asnumpy(), ref_w, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(w16.asnumpy(), master.asnumpy().astype(np.float16))


def test_sparse_gradient_gives_the_dense_result_and_lists_equal_singles():
    weight, grads = random_problem()
    rows = np.array([0, 3])
    opt_a, opt_b = mx.optimizer.DCASGD(learning_rate=0.1), mx.optimizer.DCASGD(learning_rate=0.1)
    wa, wb = nd.array(weight), nd.array(weight)
    sa, sb = opt_a.create_state(0, wa), opt_b.create_state(0, wb)
    for g in grads:
        dense = g * np.isin(np.arange(5), rows)[:, None]
        opt_a.update(0, wa, nd.sparse.row_sparse_array((g[rows], rows), shape=g.shape), sa)
        opt_b.update([0], [wb], [nd.array(dense)], [sb])
    np.testing.assert_allclose(wa.asnumpy(), wb.asnumpy(), rtol=1e-6, atol=1e-7)
