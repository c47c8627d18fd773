"""NAG: the kernel's rule, plain SGD without momentum, states, lists, float16."""
import numpy as np
import pytest

import gluonedu as mx
from gluonedu import nd

from optimizer_cases import STEPS, random_problem, run


def nag_reference(weight, grads, lr=0.01, momentum=0., wd=0., rescale_grad=1.,
                  clip_gradient=None, rows=None):
    """NAG in float64 NumPy, as MXNet 1.9.1 computes it (momentum decays with the new weight).

    Without momentum it is SGD; ``rows[t]`` then limits step t to those rows (lazy).
    """
    w = weight.astype(np.float64)
    mom = np.zeros_like(w)
    for t, g in enumerate(grads):
        touched = slice(None) if rows is None else rows[t]
        s = g.astype(np.float64)[touched] * rescale_grad
        if clip_gradient is not None:
            s = np.clip(s, -clip_gradient, clip_gradient)
        old = w[touched]
        d = s + wd * old
        new = old + momentum * (momentum * mom[touched] - lr * d) - lr * d
        mom[touched] = momentum * mom[touched] - lr * (s + wd * new)
        w[touched] = new
    return w, mom



@pytest.mark.parametrize('kwargs', [
    {},
    {'learning_rate': 0.1, 'momentum': 0.9},
    {'learning_rate': 0.1, 'wd': 0.05},
    {'learning_rate': 0.1, 'momentum': 0.9, 'wd': 0.05},
    {'learning_rate': 0.1, 'momentum': 0.5, 'clip_gradient': 0.3, 'wd': 0.02},
    {'learning_rate': 0.1, 'momentum': 0.9, 'rescale_grad': 0.25, 'wd': 0.01},
])
def test_nag_follows_the_kernel_formula_over_several_steps(kwargs):
    weight, grads = random_problem()
    w, state = run(mx.optimizer.NAG(**kwargs), weight, grads)
    ref = dict(kwargs)
    ref['lr'] = ref.pop('learning_rate', 0.01)
    ref_w, ref_mom = nag_reference(weight, grads, **ref)
    np.testing.assert_allclose(w.asnumpy(), ref_w, rtol=1e-5, atol=1e-6)
    if kwargs.get('momentum'):
        np.testing.assert_allclose(state.asnumpy(), ref_mom, rtol=1e-5, atol=1e-6)
    else:
        assert state is None


def test_without_weight_decay_it_is_textbook_nesterov():
    # MXNet's docstring: state = momentum*state + g; w -= lr * (g + momentum*state).
    weight, grads = random_problem()
    w, _ = run(mx.optimizer.NAG(learning_rate=0.1, momentum=0.9), weight, grads)
    ref, state = weight.astype(np.float64), np.zeros(weight.shape)
    for g in grads:
        state = 0.9 * state + g
        ref = ref - 0.1 * (g + 0.9 * state)
    np.testing.assert_allclose(w.asnumpy(), ref, rtol=1e-5, atol=1e-6)


def test_lr_scheduler_and_multipliers():
    weight, grads = random_problem()
    sched = mx.lr_scheduler.FactorScheduler(step=100, base_lr=0.2)
    opt = mx.optimizer.NAG(momentum=0.9, wd=0.1, lr_scheduler=sched,
                           param_idx2name={3: 'fc_bias'})
    opt.set_lr_mult({3: 0.5})
    w, _ = run(opt, weight, grads, index=3)
    ref_w, _ = nag_reference(weight, grads, lr=0.1, momentum=0.9, wd=0.0)
    np.testing.assert_allclose(w.asnumpy(), ref_w, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize('kwargs, name', [({'momentum': -0.5}, 'momentum'),
                                          ({'learning_rate': -0.1}, 'learning_rate')])
def test_invalid_hyperparameters_raise_value_error_naming_them(kwargs, name):
    with pytest.raises(ValueError, match=name):
        mx.optimizer.NAG(**kwargs)


def test_state_layout_and_multi_precision_master_copy():
    w = nd.ones((3, 2))
    assert mx.optimizer.NAG().create_state(0, w) is None
    assert mx.optimizer.NAG(momentum=0.9).create_state(0, w).shape == (3, 2)
    weight, grads = random_problem()
    opt = mx.optimizer.NAG(learning_rate=0.1, momentum=0.9, wd=0.01, multi_precision=True)
    grads16 = [g.astype(np.float16) for g in grads]
    w16, (mom, master) = run(opt, weight, grads16, dtype='float16')
    assert mom.dtype == np.float32 and master.dtype == np.float32 and w16.dtype == np.float16
    ref_w, ref_mom = nag_reference(weight.astype(np.float16), grads16, lr=0.1, momentum=0.9,
                                   wd=0.01)
    np.testing.assert_allclose(master.asnumpy(), ref_w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(mom.asnumpy(), ref_mom, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(w16.asnumpy(), master.asnumpy().astype(np.float16))
    none, master = mx.optimizer.NAG(multi_precision=True).create_state_multi_precision(
        0, nd.ones((2,), dtype='float16'))
    assert none is None and master.dtype == np.float32


def test_float16_without_multi_precision_warns():
    with pytest.warns(UserWarning, match='multi_precision'):
        mx.optimizer.NAG().create_state_multi_precision(0, nd.ones((2,), dtype='float16'))


def _row_sparse(g, rows):
    return nd.sparse.row_sparse_array((g[rows], rows), shape=g.shape)


def test_sparse_gradient_without_momentum_updates_only_its_rows():
    weight, grads = random_problem()
    rows = [np.array([0, 2]), np.array([4])] * 3
    opt = mx.optimizer.NAG(learning_rate=0.1, wd=0.1)
    w = nd.array(weight)
    for g, r in zip(grads, rows):
        opt.update(0, w, _row_sparse(g, r), None)
    np.testing.assert_array_equal(w.asnumpy()[[1, 3]], weight[[1, 3]])
    ref_w, _ = nag_reference(weight, grads, lr=0.1, wd=0.1, rows=rows)
    np.testing.assert_allclose(w.asnumpy(), ref_w, rtol=1e-5, atol=1e-6)


def test_sparse_gradient_with_momentum_gives_the_dense_result():
    weight, grads = random_problem()
    rows = np.array([1, 3])
    opt = mx.optimizer.NAG(learning_rate=0.1, momentum=0.9, wd=0.1)
    w = nd.array(weight)
    state = opt.create_state(0, w)
    for g in grads:
        opt.update(0, w, _row_sparse(g, rows), state)
    dense = [g * np.isin(np.arange(5), rows)[:, None] for g in grads]
    ref_w, _ = nag_reference(weight, dense, lr=0.1, momentum=0.9, wd=0.1)
    np.testing.assert_allclose(w.asnumpy(), ref_w, rtol=1e-5, atol=1e-6)


def test_list_calls_equal_single_calls():
    rs = np.random.RandomState(3)
    shapes = [(3, 2), (4,)]
    weights = [rs.normal(size=s) for s in shapes]
    grads = [[rs.normal(size=s) for s in shapes] for _ in range(STEPS)]
    a = mx.optimizer.NAG(learning_rate=0.1, momentum=0.9, wd=0.01)
    b = mx.optimizer.NAG(learning_rate=0.1, momentum=0.9, wd=0.01)
    wa, wb = [nd.array(w) for w in weights], [nd.array(w) for w in weights]
    sa = [a.create_state(i, w) for i, w in enumerate(wa)]
    sb = [b.create_state(i, w) for i, w in enumerate(wb)]
    for gs in grads:
        for i in range(2):
            a.update(i, wa[i], nd.array(gs[i]), sa[i])
        b.update([0, 1], wb, [nd.array(g) for g in gs], sb)
    for x, y in zip(wa, wb):
        np.testing.assert_array_equal(x.asnumpy(), y.asnumpy())
