"""SGD and ccSGD: the documented rule, lazy rows, states, lists, float16, aggregation."""
import warnings

import numpy as np
import pytest

import gluonedu as mx
from gluonedu import nd

from optimizer_cases import STEPS, random_problem, run


def sgd_reference(weight, grads, lr=0.01, momentum=0., wd=0., rescale_grad=1.,
                  clip_gradient=None, rows=None, lrs=None):
    """SGD in float64 NumPy as documented; ``rows[t]`` are the rows updated at step t,
    ``lrs[t]`` the learning rate of step t (default: ``lr`` throughout)."""
    w = weight.astype(np.float64)
    mom = np.zeros_like(w)
    for t, g in enumerate(grads):
        step_lr = lr if lrs is None else lrs[t]
        touched = slice(None) if rows is None else rows[t]
        g = g.astype(np.float64)[touched] * rescale_grad
        if clip_gradient is not None:
            g = np.clip(g, -clip_gradient, clip_gradient)
        mom[touched] = momentum * mom[touched] - step_lr * wd * w[touched] - step_lr * g
        w[touched] = w[touched] + mom[touched]
    return w, mom



CONFIGS = [
    {},
    {'learning_rate': 0.1, 'momentum': 0.9},
    {'learning_rate': 0.1, 'wd': 0.05},
    {'learning_rate': 0.1, 'momentum': 0.9, 'wd': 0.05},
    {'learning_rate': 0.1, 'momentum': 0.5, 'clip_gradient': 0.3},
    {'learning_rate': 0.1, 'momentum': 0.9, 'rescale_grad': 0.25, 'wd': 0.01,
     'clip_gradient': 0.2},
]


def _ref_kwargs(kwargs):
    ref = dict(kwargs)
    ref['lr'] = ref.pop('learning_rate', 0.01)
    return ref


@pytest.mark.parametrize('kwargs', CONFIGS)
def test_sgd_follows_the_documented_formula_over_several_steps(kwargs):
    weight, grads = random_problem()
    w, state = run(mx.optimizer.SGD(**kwargs), weight, grads)
    ref_w, ref_mom = sgd_reference(weight, grads, **_ref_kwargs(kwargs))
    np.testing.assert_allclose(w.asnumpy(), ref_w, rtol=1e-5, atol=1e-6)
    if kwargs.get('momentum'):
        np.testing.assert_allclose(state.asnumpy(), ref_mom, rtol=1e-5, atol=1e-6)
    else:
        assert state is None


def test_clip_gradient_of_zero_or_below_means_no_clipping_as_mxnet():
    weight, grads = random_problem()
    for bound in (0, -1.0):
        w, _ = run(mx.optimizer.SGD(learning_rate=0.1, clip_gradient=bound), weight, grads)
        np.testing.assert_allclose(w.asnumpy(), sgd_reference(weight, grads, lr=0.1)[0],
                                   rtol=1e-5, atol=1e-6)


def test_lr_scheduler_sets_the_rate_of_each_step():
    weight, grads = random_problem()
    sched = mx.lr_scheduler.FactorScheduler(step=2, factor=0.5, base_lr=0.1)
    w, _ = run(mx.optimizer.SGD(momentum=0.9, lr_scheduler=sched), weight, grads)
    # FactorScheduler drops the rate after every 2 updates: steps 1..6 -> .1 .1 .05 .05 .025 .025
    lrs = [0.1, 0.1, 0.05, 0.05, 0.025, 0.025]
    ref_w, _ = sgd_reference(weight, grads, momentum=0.9, lrs=lrs)
    np.testing.assert_allclose(w.asnumpy(), ref_w, rtol=1e-5, atol=1e-6)


def test_lr_mult_and_wd_mult_by_name_and_index():
    weight, grads = random_problem()
    opt = mx.optimizer.SGD(learning_rate=0.1, momentum=0.9, wd=0.1,
                           param_idx2name={0: 'dense0_weight', 1: 'dense0_bias'})
    opt.set_lr_mult({'dense0_weight': 0.5})
    w_weight, _ = run(opt, weight, grads, index=0)
    w_bias, _ = run(opt, weight, grads, index=1)   # a bias: wd_mult 0 by default
    np.testing.assert_allclose(w_weight.asnumpy(),
                               sgd_reference(weight, grads, lr=0.05, momentum=0.9, wd=0.1)[0],
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(w_bias.asnumpy(),
                               sgd_reference(weight, grads, lr=0.1, momentum=0.9, wd=0.0)[0],
                               rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize('kwargs, name', [
    ({'momentum': -0.1}, 'momentum'),
    ({'learning_rate': -1.0}, 'learning_rate'),
    ({'momentum': float('nan')}, 'momentum'),
])
def test_invalid_hyperparameters_raise_value_error_naming_them(kwargs, name):
    with pytest.raises(ValueError, match=name):
        mx.optimizer.SGD(**kwargs)


def test_momentum_of_one_or_zero_is_accepted_as_mxnet():
    assert mx.optimizer.SGD(momentum=0).momentum == 0
    assert mx.optimizer.SGD(momentum=1.0).momentum == 1.0


def test_state_layout():
    w = nd.ones((3, 2))
    assert mx.optimizer.SGD().create_state(0, w) is None
    mom = mx.optimizer.SGD(momentum=0.9).create_state(0, w)
    assert mom.shape == (3, 2) and mom.dtype == np.float32 and mom.stype == 'default'
    assert float(mom.abs().sum().asscalar()) == 0
    w16 = nd.ones((3, 2), dtype='float16')
    mom, master = mx.optimizer.SGD(momentum=0.9, multi_precision=True) \
        .create_state_multi_precision(0, w16)
    assert mom.dtype == np.float32 and master.dtype == np.float32
    none, master = mx.optimizer.SGD(multi_precision=True).create_state_multi_precision(0, w16)
    assert none is None and master.dtype == np.float32
    # float32 weights get the plain state even with multi_precision=True
    assert mx.optimizer.SGD(multi_precision=True).create_state_multi_precision(0, w) is None


def test_float16_without_multi_precision_warns():
    with pytest.warns(UserWarning, match='multi_precision'):
        mx.optimizer.SGD().create_state_multi_precision(0, nd.ones((2,), dtype='float16'))


@pytest.mark.parametrize('momentum', [0.0, 0.9])
def test_multi_precision_updates_a_float32_master_copy(momentum):
    weight, grads = random_problem()
    opt = mx.optimizer.SGD(learning_rate=0.1, momentum=momentum, wd=0.01, multi_precision=True)
    w16, (mom, master) = run(opt, weight, [g.astype(np.float16) for g in grads],
                             dtype='float16')
    ref_w, _ = sgd_reference(weight.astype(np.float16), [g.astype(np.float16) for g in grads],
                             lr=0.1, momentum=momentum, wd=0.01)
    np.testing.assert_allclose(master.asnumpy(), ref_w, rtol=1e-5, atol=1e-6)
    assert w16.dtype == np.float16
    np.testing.assert_array_equal(w16.asnumpy(), master.asnumpy().astype(np.float16))


def _row_sparse(g, rows):
    return nd.sparse.row_sparse_array((g[rows], rows), shape=g.shape)


@pytest.mark.parametrize('momentum', [0.0, 0.9])
def test_lazy_update_touches_only_the_gradient_rows(momentum):
    weight, grads = random_problem()
    rows = [np.array([0, 3]), np.array([1]), np.array([0, 4]), np.array([3]),
            np.array([0, 1, 2]), np.array([4])]
    opt = mx.optimizer.SGD(learning_rate=0.1, momentum=momentum, wd=0.1)
    w = nd.array(weight)
    state = opt.create_state(0, w)
    for g, r in zip(grads, rows):
        before = w.asnumpy().copy()
        opt.update(0, w, _row_sparse(g, r), state)
        untouched = np.setdiff1d(np.arange(5), r)
        np.testing.assert_array_equal(w.asnumpy()[untouched], before[untouched])
    ref_w, ref_mom = sgd_reference(weight, grads, lr=0.1, momentum=momentum, wd=0.1, rows=rows)
    np.testing.assert_allclose(w.asnumpy(), ref_w, rtol=1e-5, atol=1e-6)
    if momentum:
        np.testing.assert_allclose(state.asnumpy(), ref_mom, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize('momentum', [0.0, 0.9])
def test_without_lazy_update_a_sparse_gradient_gives_the_dense_result(momentum):
    weight, grads = random_problem()
    rows = np.array([1, 3])
    sparse_grads = [_row_sparse(g, rows) for g in grads]
    dense_grads = [g * np.isin(np.arange(5), rows)[:, None] for g in grads]
    opt = mx.optimizer.SGD(learning_rate=0.1, momentum=momentum, wd=0.1, lazy_update=False)
    w = nd.array(weight)
    state = opt.create_state(0, w)
    for g in sparse_grads:
        opt.update(0, w, g, state)
    ref_w, _ = sgd_reference(weight, dense_grads, lr=0.1, momentum=momentum, wd=0.1)
    np.testing.assert_allclose(w.asnumpy(), ref_w, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize('multi_precision', [False, True])
def test_list_calls_equal_single_calls(multi_precision):
    dtype = 'float16' if multi_precision else 'float32'
    rs = np.random.RandomState(1)
    shapes = [(4, 3), (5,), (2, 2, 2)]
    weights = [rs.normal(size=s) for s in shapes]
    grads = [[rs.normal(size=s) for s in shapes] for _ in range(STEPS)]
    kwargs = dict(learning_rate=0.1, momentum=0.9, wd=0.01, clip_gradient=0.5,
                  multi_precision=multi_precision)
    single, listed = mx.optimizer.SGD(**kwargs), mx.optimizer.SGD(**kwargs)
    ws1 = [nd.array(w, dtype=dtype) for w in weights]
    ws2 = [nd.array(w, dtype=dtype) for w in weights]
    st1 = [single.create_state_multi_precision(i, w) for i, w in enumerate(ws1)]
    st2 = [listed.create_state_multi_precision(i, w) for i, w in enumerate(ws2)]
    for gs in grads:
        for i, (w, g) in enumerate(zip(ws1, gs)):
            single.update_multi_precision(i, w, nd.array(g, dtype=dtype), st1[i])
        listed.update_multi_precision([0, 1, 2], ws2, [nd.array(g, dtype=dtype) for g in gs],
                                      st2)
    for a, b in zip(ws1, ws2):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    assert single._index_update_count == listed._index_update_count == {0: 6, 1: 6, 2: 6}


def test_a_list_counts_every_index_before_reading_the_learning_rate():
    # As MXNet's fused path: index 1 has run ahead; the list call first counts both
    # indices, so both use the rate at the new num_update.
    sched = mx.lr_scheduler.FactorScheduler(step=1, factor=0.5, base_lr=1.0)
    opt = mx.optimizer.SGD(lr_scheduler=sched)
    w0, w1 = nd.zeros((2,)), nd.zeros((2,))
    for _ in range(3):
        opt.update(1, w1, nd.ones((2,)), None)
    before = w0.asnumpy().copy()
    opt.update([0, 1], [w0, w1], [nd.ones((2,)), nd.ones((2,))], [None, None])
    assert opt.num_update == 4
    np.testing.assert_allclose(before - w0.asnumpy(), [0.125, 0.125])   # sched(4) = 1/8


def test_aggregate_num_comes_from_the_environment(monkeypatch):
    assert mx.optimizer.SGD().aggregate_num == 4
    monkeypatch.setenv('MXNET_OPTIMIZER_AGGREGATION_SIZE', '2')
    assert mx.optimizer.SGD().aggregate_num == 2


def test_updater_aggregates_and_matches_one_by_one(monkeypatch):
    rs = np.random.RandomState(2)
    weights = [rs.normal(size=(3,)) for _ in range(5)]
    grads = [rs.normal(size=(3,)) for _ in range(5)]
    results = []
    for size in ('0', '2'):
        monkeypatch.setenv('MXNET_OPTIMIZER_AGGREGATION_SIZE', size)
        updater = mx.optimizer.get_updater(mx.optimizer.SGD(learning_rate=0.1, momentum=0.9))
        ws = [nd.array(w) for w in weights]
        for _ in range(3):
            updater(list(range(5)), [nd.array(g) for g in grads], ws)
        results.append([w.asnumpy() for w in ws])
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)


def test_ccsgd_is_a_registered_alias_of_sgd_without_warning():
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        opt = mx.optimizer.create('ccsgd', learning_rate=0.1, momentum=0.9, wd=0.05)
    assert isinstance(opt, mx.optimizer.SGD) and type(opt).__name__ == 'ccSGD'
    weight, grads = random_problem()
    w, _ = run(opt, weight, grads)
    w_sgd, _ = run(mx.optimizer.SGD(learning_rate=0.1, momentum=0.9, wd=0.05), weight, grads)
    np.testing.assert_array_equal(w.asnumpy(), w_sgd.asnumpy())


@pytest.mark.parametrize('momentum', [0.0, 0.9])
def test_row_sparse_weight_gets_the_dense_lazy_result(momentum):
    # A row-sparse weight (e.g. an Embedding stored row-sparse on the store) is updated
    # only in the gradient's rows, exactly like a dense weight under lazy_update.
    rng = np.random.default_rng(3)
    w0 = rng.standard_normal((6, 3)).astype(np.float32)
    sparse_w = mx.nd.array(w0).tostype('row_sparse')
    dense_w = mx.nd.array(w0)
    updaters = [mx.optimizer.get_updater(mx.optimizer.create(
        'sgd', learning_rate=0.1, momentum=momentum, wd=0.01)) for _ in range(2)]
    for _ in range(3):
        rows = np.sort(rng.choice(6, 3, replace=False))
        grad = mx.nd.sparse.row_sparse_array(
            (rng.standard_normal((3, 3)).astype(np.float32), rows), shape=(6, 3))
        updaters[0](0, grad, sparse_w)
        updaters[1](0, grad, dense_w)
    assert sparse_w.stype == 'row_sparse'
    np.testing.assert_array_equal(sparse_w.asnumpy(), dense_w.asnumpy())
