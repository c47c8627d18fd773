"""What every optimizer promises, checked alike for each registered one.

Formula-specific checks live in test_<optimizer>.py; these are the shared contract:
lists equal single calls, a row-sparse gradient (lazy updates off) acts as its dense
form, float16 weights with multi_precision keep a float32 master copy, states are
reported under their own names, and saved states (with the optimizer) resume a run
exactly.
"""
import warnings

import numpy as np
import pytest

import gluonedu as mx
from gluonedu import nd

# Hyperparameters that exercise each optimizer's options.
SETTINGS = {
    'sgd': dict(momentum=0.9), 'ccsgd': dict(momentum=0.9), 'nag': dict(momentum=0.9),
    'signum': dict(momentum=0.9, learning_rate=0.01), 'sgld': dict(learning_rate=0.01),
    'dcasgd': dict(momentum=0.9), 'test': dict(), 'adam': dict(), 'adamw': dict(wd=0.1),
    'adamax': dict(),
    'nadam': dict(), 'adagrad': dict(), 'adadelta': dict(), 'rmsprop': dict(centered=True),
    'ftrl': dict(), 'ftml': dict(), 'lars': dict(momentum=0.9), 'lbsgd': dict(momentum=0.9),
    'lamb': dict(),
}
STEPS = 4


def test_every_registered_optimizer_is_covered():
    assert set(SETTINGS) == set(mx.optimizer.Optimizer.opt_registry)


def _make(name, **extra):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)
        return mx.optimizer.create(name, **dict(SETTINGS[name], **extra))


def _problem(seed, shape):
    rng = np.random.default_rng(seed)
    weight = rng.uniform(-1, 1, shape).astype(np.float32)
    grads = [rng.standard_normal(shape).astype(np.float32) for _ in range(STEPS)]
    return weight, grads


@pytest.mark.parametrize('name', sorted(SETTINGS))
def test_a_list_call_equals_single_calls(name):
    problems = [_problem(1, (4, 3)), _problem(2, (5,))]
    single, listed = _make(name, wd=0.01), _make(name, wd=0.01)
    ws = [nd.array(w) for w, _ in problems]
    wl = [nd.array(w) for w, _ in problems]
    ss = [single.create_state(i, w) for i, w in enumerate(ws)]
    sl = [listed.create_state(i, w) for i, w in enumerate(wl)]
    for step in range(STEPS):
        grads = [nd.array(g[step]) for _, g in problems]
        mx.random.seed(step)  # SGLD draws noise: the same draws in the same order
        for i in range(2):
            single.update(i, ws[i], grads[i], ss[i])
        mx.random.seed(step)
        listed.update([0, 1], wl, grads, sl)
    for a, b in zip(ws, wl):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())


@pytest.mark.parametrize('name', sorted(SETTINGS))
def test_a_row_sparse_gradient_acts_as_its_dense_form_without_lazy_updates(name):
    weight, grads = _problem(3, (6, 2))
    rows = np.array([1, 4])
    extra = {'lazy_update': False} if name in ('sgd', 'ccsgd', 'adam', 'lars') else {}
    sparse_opt, dense_opt = _make(name, **extra), _make(name, **extra)
    ws, wd = nd.array(weight), nd.array(weight)
    ss, sd = sparse_opt.create_state(0, ws), dense_opt.create_state(0, wd)
    for step, g in enumerate(grads):
        dense = np.zeros_like(g)
        dense[rows] = g[rows]
        mx.random.seed(step)
        sparse_opt.update(0, ws, nd.sparse.row_sparse_array((g[rows], rows), shape=g.shape), ss)
        mx.random.seed(step)
        dense_opt.update(0, wd, nd.array(dense), sd)
    np.testing.assert_allclose(ws.asnumpy(), wd.asnumpy(), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize('name', sorted(SETTINGS))
def test_float16_with_multi_precision_keeps_a_float32_master_copy(name):
    weight, grads = _problem(4, (3, 4))
    opt = _make(name, multi_precision=True)
    w16 = nd.array(weight, dtype='float16')
    state = opt.create_state_multi_precision(0, w16)
    named = dict(opt.named_states(state, w16))
    master = named['weight_fp32']
    assert master.dtype == np.float32
    for step, g in enumerate(grads):
        mx.random.seed(step)
        opt.update_multi_precision(0, w16, nd.array(g, dtype='float16'), state)
    assert w16.dtype == np.float16
    np.testing.assert_array_equal(w16.asnumpy(), master.asnumpy().astype(np.float16))
    assert not np.array_equal(master.asnumpy(), weight.astype(np.float16).astype(np.float32))


@pytest.mark.parametrize('name', sorted(SETTINGS))
def test_float16_without_multi_precision_warns(name):
    opt = _make(name)
    with pytest.warns(UserWarning, match='multi_precision'):
        opt.create_state_multi_precision(0, nd.zeros((2,), dtype='float16'))


@pytest.mark.parametrize('name', sorted(SETTINGS))
def test_states_are_reported_under_their_own_names(name):
    opt = _make(name)
    w = nd.ones((3,))
    named = opt.named_states(opt.create_state_multi_precision(0, w), w)
    assert all(not n.startswith('state') or n == 'state' for n, _ in named)
    assert all(a.shape == w.shape for _, a in named)


@pytest.mark.parametrize('name', sorted(SETTINGS))
def test_saved_states_resume_the_run_exactly(name):
    """Two steps, save (states and optimizer), two more: the same as four steps straight."""
    weight, grads = _problem(5, (3, 2))

    def steps(updater, w, gs, first):
        for step, g in enumerate(gs, start=first):
            mx.random.seed(step)
            updater(0, nd.array(g), w)

    straight, w_straight = mx.optimizer.get_updater(_make(name)), nd.array(weight)
    steps(straight, w_straight, grads, 0)
    first, w = mx.optimizer.get_updater(_make(name)), nd.array(weight)
    steps(first, w, grads[:2], 0)
    resumed = mx.optimizer.get_updater(_make(name, learning_rate=0.5))
    resumed.set_states(first.get_states(dump_optimizer=True))
    assert type(resumed.optimizer) is type(first.optimizer)
    steps(resumed, w, grads[2:], 2)
    np.testing.assert_array_equal(w.asnumpy(), w_straight.asnumpy())
