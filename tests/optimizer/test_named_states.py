"""The step's bookkeeping (``Optimizer.begin_step``) and named optimizer states.

``begin_step`` gives what MXNet's per-parameter calls (``_update_count``, ``_get_lr``,
``_get_wd``) give, for one index and for lists counted one by one or call by call.
States are NamedTuples that unpack like MXNet's tuples; their fields name the arrays
for instrumentation, and they survive state files — also files written before states
had names (``data/states_before_names-*.states``, written by gluonedu at commit 86e8717
with :func:`_train` below).
"""
import os

import numpy as np
import pytest

import gluonedu as mx
from gluonedu import autograd, gluon, nd
from gluonedu.gluon import nn
from gluonedu.optimizer import StepScalars, MultiPrecisionState
from gluonedu.optimizer.adam import AdamState

DATA = os.path.join(os.path.dirname(__file__), 'data')


def _optimizer(scheduler=True, **kwargs):
    sched = mx.lr_scheduler.FactorScheduler(step=3, factor=0.5, base_lr=0.1) \
        if scheduler else None
    opt = mx.optimizer.SGD(learning_rate=0.1, lr_scheduler=sched, wd=0.01, **kwargs)
    opt.set_lr_mult({1: 0.5, 'b': 3.0})
    opt.set_wd_mult({2: 0.0})
    return opt


def _by_hand(opt, indices, per_call, lr_before_count=False):
    """What MXNet's own calls give, call by call."""
    lrs, wds, ts = [], [], []
    for start in range(0, len(indices), per_call):
        call = indices[start:start + per_call]
        if lr_before_count:
            for i in call:
                lrs.append(opt._get_lr(i))
                opt._update_count(i)
        else:
            opt._update_count(call)
            lrs.extend(opt._get_lrs(call))
        wds.extend(opt._get_wds(call))
        ts.extend(opt._index_update_count[i] for i in call)
    return lrs, wds, ts


@pytest.mark.parametrize('per_call', [1, 2, 4])
@pytest.mark.parametrize('lr_before_count', [False, True])
def test_begin_step_gives_what_mxnets_calls_give(per_call, lr_before_count):
    rng = np.random.RandomState(0)
    mine, theirs = _optimizer(), _optimizer()
    for _ in range(8):   # uneven counts: some indices join late, some skip steps
        indices = sorted(rng.choice([0, 1, 2, 'b', 5], rng.randint(1, 6), replace=False),
                         key=str)
        step = mine.begin_step(indices, per_call=per_call, lr_before_count=lr_before_count)
        lrs, wds, ts = _by_hand(theirs, indices, per_call, lr_before_count)
        assert isinstance(step, StepScalars)
        assert step.lr.tolist() == lrs and step.wd.tolist() == wds and step.t.tolist() == ts
        assert mine.num_update == theirs.num_update
    assert mine._index_update_count == theirs._index_update_count


def test_begin_step_of_one_index_gives_numbers():
    opt = _optimizer(scheduler=False)
    lr, wd, t = opt.begin_step(1)
    assert (lr, wd, t) == (0.1 * 0.5, 0.01, 1)
    assert isinstance(lr, float) and isinstance(t, int)
    assert opt.begin_step(1).t == 2 and opt.num_update == 2


def test_states_are_named_tuples_that_unpack_like_mxnets():
    opt = mx.optimizer.Adam()
    w = nd.ones((2, 3))
    state = opt.create_state(0, w)
    assert isinstance(state, AdamState) and state._fields == ('mean', 'var')
    mean, var = state
    assert mean is state.mean and var is state[1]
    assert [name for name, _ in opt.named_states(state)] == ['mean', 'var']
    # A state of one array stays that array (as MXNet's), named by the state type.
    sgd = mx.optimizer.SGD(momentum=0.9)
    momentum = sgd.create_state(0, w)
    assert isinstance(momentum, nd.NDArray)
    assert sgd.named_states(momentum) == [('momentum', momentum)]


@pytest.mark.parametrize('name', ['adam', 'sgd', 'lamb', 'rmsprop', 'adagrad'])
def test_multi_precision_states_name_the_master_copy(name):
    opt = mx.optimizer.create(name, multi_precision=True, momentum=0.9) if name == 'sgd' \
        else mx.optimizer.create(name, multi_precision=True)
    state = opt.create_state_multi_precision(0, nd.ones((3,), dtype='float16'))
    names = [n for n, _ in opt.named_states(state)]
    assert names[0] == 'weight_fp32'
    if name != 'sgd':   # SGD keeps MXNet's own layout: (momentum, weight_fp32)
        assert isinstance(state, MultiPrecisionState)
    inner = opt.create_state(0, nd.ones((3,)))
    assert names[1:] == [n for n, _ in opt.named_states(inner)]


@pytest.mark.parametrize('name,kwargs', [('adam', {}), ('rmsprop', {'centered': True}),
                                         ('sgd', {'momentum': 0.9, 'multi_precision': True}),
                                         ('dcasgd', {'momentum': 0.9}), ('ftml', {})])
def test_named_states_survive_get_and_set_states(name, kwargs):
    dtype = 'float16' if kwargs.get('multi_precision') else 'float32'
    updater = mx.optimizer.get_updater(mx.optimizer.create(name, **kwargs))
    updater(0, nd.ones((2, 2), dtype=dtype), nd.ones((2, 2), dtype=dtype))
    restored = mx.optimizer.get_updater(mx.optimizer.create(name, **kwargs))
    restored.set_states(updater.get_states())
    assert type(restored.states[0]) is type(updater.states[0])
    assert [n for n, _ in restored.optimizer.named_states(restored.states[0])] == \
        [n for n, _ in updater.optimizer.named_states(updater.states[0])]


def test_a_state_type_this_process_does_not_know_comes_back_named():
    from collections import namedtuple
    from gluonedu.optimizer.serialization import dumps_states, loads_states
    Custom = namedtuple('CustomState', ['slow', 'fast'])
    states, _ = loads_states(dumps_states({0: Custom(nd.ones((2,)), nd.zeros((2,)))}))
    assert states[0]._fields == ('slow', 'fast')
    assert states[0].slow.asnumpy().tolist() == [1, 1]


# ---------------------------------------------------------------------------- old files
CASES = {'adam': ('adam', {'learning_rate': 0.01, 'wd': 1e-3}, 'float32'),
         'sgd-fp16': ('sgd', {'learning_rate': 0.1, 'momentum': 0.9, 'multi_precision': True},
                      'float16'),
         'rmsprop-centered': ('rmsprop', {'learning_rate': 0.01, 'centered': True}, 'float32')}


def _train(name, steps, fused=True, load_after=None):
    """The fixture files' training (``load_after``: load its file after that many steps)."""
    optimizer, params, dtype = CASES[name]
    with mx.name.NameManager():
        net = nn.HybridSequential()
        net.add(nn.Dense(4, in_units=3, activation='relu'), nn.Dense(2, in_units=4))
        net.initialize()
        rng = np.random.RandomState(0)
        for p in net.collect_params().values():
            p.set_data(nd.array(rng.randn(*p.shape) * 0.5))
        net.cast(dtype)
    trainer = gluon.Trainer(net.collect_params(), optimizer, dict(params), fused=fused)
    rng = np.random.RandomState(1)
    for step in range(steps):
        x = nd.array(rng.randn(5, 3), dtype=dtype)
        y = nd.array(rng.randn(5, 2), dtype=dtype)
        with autograd.record():
            loss = gluon.loss.L2Loss()(net(x), y)
        loss.backward()
        trainer.step(5)
        if step + 1 == load_after:
            trainer.load_states(os.path.join(DATA, 'states_before_names-%s.states' % name))
    return net, trainer


@pytest.mark.parametrize('fused', [True, False])
@pytest.mark.parametrize('name', sorted(CASES))
def test_state_files_from_before_named_states_still_load(name, fused):
    loaded_net, trainer = _train(name, 6, fused=fused, load_after=3)
    straight_net, reference = _train(name, 6, fused=fused)
    for got, want in zip(loaded_net.collect_params().values(),
                         straight_net.collect_params().values()):
        np.testing.assert_array_equal(got.data().asnumpy(), want.data().asnumpy())
    updater, expected = trainer._updaters[0], reference._updaters[0]
    for index, state in updater.states.items():
        assert type(state) is type(expected.states[index])
        assert [n for n, _ in trainer.optimizer.named_states(state)] == \
            [n for n, _ in reference.optimizer.named_states(expected.states[index])]
