"""gluon.Trainer: construction rules, the store rules, step/allreduce/update, stale
gradients (and their events), sparse paths, deferred initialisation, state files and
data parallelism. Numbers against MXNet itself are in tests/parity/trainer/test_trainer_parity.py.
"""
import os
import subprocess
import sys
import textwrap
import warnings
import zipfile

import numpy as np
import pytest

import gluonedu as mx
from gluonedu import autograd, gluon, nd
from gluonedu.base import MXNetError
from gluonedu.gluon import Parameter, ParameterDict, Trainer, nn
from gluonedu.instrument.events import BUS

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(autouse=True)
def fresh_names(monkeypatch):
    monkeypatch.delenv('MXNET_UPDATE_ON_KVSTORE', raising=False)
    with mx.name.NameManager():
        yield


def ctxs(n):
    return [mx.cpu(i) for i in range(n)]


def dense(ctx=None, units=2, in_units=3, seed=0):
    """A Dense layer with fixed weights on ``ctx`` (one or several contexts)."""
    net = nn.Dense(units, in_units=in_units)
    net.initialize(ctx=ctx)
    rng = np.random.RandomState(seed)
    net.weight.set_data(nd.array(rng.randn(units, in_units).astype(np.float32)))
    net.bias.set_data(nd.array(rng.randn(units).astype(np.float32)))
    return net


def backward(net, contexts, batch=4, in_units=3, seed=1):
    """Forward + backward of a sum loss over ``batch`` rows split across ``contexts``."""
    x = nd.array(np.random.RandomState(seed).randn(batch, in_units).astype(np.float32))
    parts = gluon.utils.split_and_load(x, contexts)
    with autograd.record():
        losses = [(net(part) ** 2).sum() for part in parts]
    for loss in losses:
        loss.backward()


def weights(net):
    return {k: p.data().asnumpy().copy() for k, p in net.collect_params().items()}


# ------------------------------------------------------------------ construction

def test_params_as_list_dict_and_parameterdict():
    net = dense()
    params = net.collect_params()
    assert isinstance(params, ParameterDict)
    by_dict = Trainer(params, 'sgd')
    assert [p.name for p in by_dict._params] == sorted(params.keys())
    reversed_dict = {k: params[k] for k in sorted(params.keys(), reverse=True)}
    assert [p.name for p in Trainer(reversed_dict, 'sgd')._params] == sorted(params.keys())
    as_list = [net.weight, net.bias]
    assert Trainer(as_list, 'sgd')._params == as_list
    assert Trainer(tuple(as_list), 'sgd')._param2idx == {net.weight.name: 0, net.bias.name: 1}
    assert net.weight._trainer is not None


def test_non_parameters_are_refused_with_value_error():
    with pytest.raises(ValueError, match='list or dict of Parameters'):
        Trainer([dense().weight, nd.ones((2,))], 'sgd')
    with pytest.raises(ValueError, match='list or dict of Parameters'):
        Trainer(dense().weight, 'sgd')


def test_optimizer_by_name_or_instance():
    net = dense()
    trainer = Trainer(net.collect_params(), 'SGD', {'learning_rate': 0.5, 'momentum': 0.9})
    assert type(trainer.optimizer).__name__ == 'SGD'
    assert trainer.optimizer.momentum == 0.9
    assert trainer.optimizer.param_dict[0] is trainer._params[0]
    adam = mx.optimizer.Adam(learning_rate=0.01)
    trainer = Trainer(net.collect_params(), adam)
    assert trainer.optimizer is adam
    assert set(adam.param_dict) == {0, 1}
    assert Trainer(net.collect_params(), adam, {}).optimizer is adam


def test_optimizer_params_with_an_instance_is_an_assertion_error():
    with pytest.raises(AssertionError, match='optimizer_params must be None'):
        Trainer(dense().collect_params(), mx.optimizer.SGD(), {'learning_rate': 1.0})


def test_parameters_on_different_contexts_are_refused():
    a, b = dense(ctx=mx.cpu(0)), dense(ctx=[mx.cpu(0), mx.cpu(1)])
    with pytest.raises(AssertionError, match='same set of contexts'):
        Trainer([a.weight, b.weight], 'sgd')


def test_one_updater_per_context():
    trainer = Trainer(dense(ctx=ctxs(3)).collect_params(), 'sgd')
    assert len(trainer._updaters) == 3
    assert all(u.optimizer is trainer.optimizer for u in trainer._updaters)


# ------------------------------------------------------------------ learning rate

def test_learning_rate_property_and_setter():
    trainer = Trainer(dense().collect_params(), 'sgd', {'learning_rate': 0.25})
    assert trainer.learning_rate == 0.25
    trainer.set_learning_rate(0.125)
    assert trainer.learning_rate == 0.125 and trainer.optimizer.lr == 0.125


def test_set_learning_rate_with_a_scheduler_raises_user_warning():
    sched = mx.lr_scheduler.FactorScheduler(step=2, factor=0.5, base_lr=1.0)
    trainer = Trainer(dense().collect_params(), 'sgd', {'lr_scheduler': sched})
    assert trainer.learning_rate == 1.0
    with pytest.raises(UserWarning, match='LRScheduler'):
        trainer.set_learning_rate(0.1)


# ------------------------------------------------------------------ one step

def test_step_rescales_by_batch_size_and_applies_sgd():
    net = dense()
    before = weights(net)
    trainer = Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1})
    backward(net, [mx.cpu()], batch=4)
    grads = {k: p.grad().asnumpy().copy() for k, p in net.collect_params().items()}
    trainer.step(4)
    assert trainer.optimizer.rescale_grad == 0.25
    for k, w in weights(net).items():
        np.testing.assert_allclose(w, before[k] - 0.1 * grads[k] / 4, rtol=1e-6)
    # A custom rescale_grad is the scale batch_size divides.
    trainer = Trainer(net.collect_params(), 'sgd', {'rescale_grad': 2.0})
    backward(net, [mx.cpu()])
    trainer.step(8)
    assert trainer.optimizer.rescale_grad == 0.25


def test_single_context_uses_no_store():
    for kvstore in ('device', 'local'):
        net = dense()
        trainer = Trainer(net.collect_params(), 'sgd', kvstore=kvstore)
        backward(net, [mx.cpu()])
        trainer.step(1)
        assert trainer._kv_initialized
        assert trainer._kvstore is None and trainer._update_on_kvstore is None
    net = dense()
    # MXNet raises AttributeError here (a bug); without a store the request is moot.
    trainer = Trainer(net.collect_params(), 'sgd', update_on_kvstore=True)
    backward(net, [mx.cpu()])
    trainer.step(1)
    assert trainer._kvstore is None


def test_allreduce_then_update_equals_step():
    nets = [dense(ctx=[mx.cpu()]) for _ in range(2)]
    t_step = Trainer(nets[0].collect_params(), 'sgd', {'learning_rate': 0.1, 'momentum': 0.9})
    t_split = Trainer(nets[1].collect_params(), 'sgd', {'learning_rate': 0.1, 'momentum': 0.9})
    for seed in range(3):
        backward(nets[0], [mx.cpu()], seed=seed)
        t_step.step(4)
        backward(nets[1], [mx.cpu()], seed=seed)
        t_split.allreduce_grads()
        t_split.update(4)
    for k, w in weights(nets[0]).items():
        np.testing.assert_array_equal(w, weights(nets[1])[k.replace('dense0', 'dense1')])


def test_grad_req_null_is_skipped():
    net = dense()
    net.bias.grad_req = 'null'
    bias = net.bias.data().asnumpy().copy()
    trainer = Trainer(net.collect_params(), 'sgd', {'learning_rate': 1.0})
    for _ in range(2):
        backward(net, [mx.cpu()])
        trainer.step(1)  # the bias has no gradient, and no stale-gradient error either
    np.testing.assert_array_equal(net.bias.data().asnumpy(), bias)
    assert set(trainer._updaters[0].states) == {1}   # index 0 (the bias) never updated


# ------------------------------------------------------------------ stale gradients

class Branchy(gluon.Block):
    """A model whose second branch is never used: its gradients go stale."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.used = nn.Dense(2, in_units=3)
            self.unused = nn.Dense(2, in_units=3)

    def forward(self, x):
        return self.used(x)


def test_an_optimizer_keyword_of_another_framework_names_mxnets_at_construction():
    with pytest.raises(TypeError, match=r"'lr' \(did you mean 'learning_rate'\?\)"):
        Trainer(dense().collect_params(), 'sgd', {'lr': 0.1})


def test_a_step_without_backward_says_to_run_backward_before_ignore_stale_grad():
    net = dense()
    trainer = Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1})
    with pytest.raises(UserWarning) as info:
        trainer.step(1)
    message = str(info.value)
    # The usual cause first; ignore_stale_grad=True, which would hide it, last.
    assert message.index('autograd.record()') < message.index('loss.backward()') < \
        message.index('ignore_stale_grad=True')


def test_stale_gradients_raise_then_are_skipped_with_events():
    net = Branchy(prefix='branchy_')
    net.initialize()
    trainer = Trainer(net.collect_params(), 'sgd', {'learning_rate': 1.0})
    before = weights(net)
    events = []
    with BUS.subscribe(events.append, kinds=['stale_grad', 'step_begin', 'step_end']):
        backward(net, [mx.cpu()])
        with pytest.raises(UserWarning, match='has not been updated by backward'):
            trainer.step(1)
        raised = [e for e in events if e.kind == 'stale_grad']
        assert [(e.param, e.context, e.values) for e in raised] == [
            ('branchy_dense1_bias', 'cpu(0)', {'raised': 1.0})]
        assert raised[0].source == 'trainer'
        events.clear()
        # (As in MXNet, the failed step already cleared the used branch's fresh marks.)
        backward(net, [mx.cpu()])
        trainer.step(1, ignore_stale_grad=True)
    skipped = [(e.param, e.context, e.values) for e in events if e.kind == 'stale_grad']
    assert skipped == [('branchy_dense1_bias', 'cpu(0)', {'skipped': 1.0}),
                       ('branchy_dense1_weight', 'cpu(0)', {'skipped': 1.0})]
    assert [e.kind for e in events if e.kind != 'stale_grad'] == ['step_begin', 'step_end']
    after = weights(net)
    for name in ('branchy_dense1_weight', 'branchy_dense1_bias'):
        np.testing.assert_array_equal(after[name], before[name])   # skipped exactly these
    for name in ('branchy_dense0_weight', 'branchy_dense0_bias'):
        assert not np.array_equal(after[name], before[name])      # and updated the rest
    # Only the updated copies had their fresh mark reset (as MXNet).
    assert not net.used.weight.data()._fresh_grad
    # The used branch is stale now too, until the next backward.
    with pytest.raises(UserWarning, match='branchy_dense0_bias'):
        trainer.step(1)


def test_stale_gradient_check_covers_every_context():
    net = dense(ctx=ctxs(2))
    trainer = Trainer(net.collect_params(), 'sgd', kvstore=None)
    x = nd.ones((2, 3), ctx=mx.cpu(0))
    with autograd.record():
        loss = net(x).sum()          # only cpu(0)'s copies get a gradient
    loss.backward()
    with pytest.raises(UserWarning, match=r'cpu\(1\)'):
        trainer.step(2)


def test_step_events_and_bus_step():
    net = dense()
    trainer = Trainer(net.collect_params(), 'sgd')
    events = []
    with BUS.subscribe(events.append, kinds=['step_begin', 'step_end']):
        for _ in range(2):
            backward(net, [mx.cpu()])
            trainer.step(4)
    assert [(e.kind, e.step, e.source, e.values) for e in events] == [
        ('step_begin', 1, 'trainer', {'batch_size': 4.0, 'rescale': 0.25}),
        ('step_end', 1, 'trainer', {'batch_size': 4.0, 'rescale': 0.25}),
        ('step_begin', 2, 'trainer', {'batch_size': 4.0, 'rescale': 0.25}),
        ('step_end', 2, 'trainer', {'batch_size': 4.0, 'rescale': 0.25})]
    assert BUS.step == 2



def test_a_step_nobody_heard_begin_emits_no_step_end():
    late, subscriptions = [], []

    class Subscribing(mx.lr_scheduler.LRScheduler):
        """Subscribes a listener when the optimizer first reads the lr (mid-step)."""
        def __call__(self, num_update):
            if not subscriptions:
                subscriptions.append(BUS.subscribe(late.append,
                                                   kinds=['step_begin', 'step_end']))
            return self.base_lr
    net = dense()
    trainer = Trainer(net.collect_params(), 'sgd',
                      {'lr_scheduler': Subscribing(base_lr=0.1)})
    try:
        for _ in range(2):
            backward(net, [mx.cpu()])
            trainer.step(4)
    finally:
        subscriptions[0].remove()
    assert [(e.kind, e.step) for e in late] == [('step_begin', 2), ('step_end', 2)]

# ------------------------------------------------------------------ the store rules

def test_two_contexts_create_a_store_and_update_on_it():
    net = dense(ctx=ctxs(2))
    trainer = Trainer(net.collect_params(), 'sgd')
    backward(net, ctxs(2))
    trainer.step(4)
    assert trainer._kvstore is not None and trainer._kvstore.type == 'device'
    assert trainer._update_on_kvstore is True
    assert trainer._distributed is False
    w0, w1 = net.weight.list_data()
    np.testing.assert_array_equal(w0.asnumpy(), w1.asnumpy())
    with pytest.raises(AssertionError, match='allreduce_grads'):
        trainer.allreduce_grads()
    with pytest.raises(AssertionError, match='update'):
        trainer.update(4)


@pytest.mark.parametrize('env, arg, expected', [
    ('0', None, False), ('1', None, True), ('0', True, True), ('1', False, False)])
def test_update_on_kvstore_env_var_and_argument(monkeypatch, env, arg, expected):
    monkeypatch.setenv('MXNET_UPDATE_ON_KVSTORE', env)
    net = dense(ctx=ctxs(2))
    trainer = Trainer(net.collect_params(), 'sgd', update_on_kvstore=arg)
    backward(net, ctxs(2))
    trainer.step(4)
    assert trainer._update_on_kvstore is expected


def test_big_parameters_on_a_local_store_update_locally(monkeypatch):
    import gluonedu.gluon.trainer as trainer_module
    monkeypatch.setattr(trainer_module, '_LOCAL_UPDATE_MAX_SIZE', 5)
    net = dense(ctx=ctxs(2))  # the weight has 6 elements
    trainer = Trainer(net.collect_params(), 'sgd', kvstore='local')
    backward(net, ctxs(2))
    trainer.step(4)
    assert trainer._kvstore.type == 'local' and trainer._update_on_kvstore is False


def test_kvstore_instance_is_used_even_on_one_context():
    kv = mx.kv.create('device')
    net = dense()
    trainer = Trainer(net.collect_params(), 'sgd', kvstore=kv)
    backward(net, [mx.cpu()])
    trainer.step(1)
    assert trainer._kvstore is kv and trainer._update_on_kvstore is True


def test_kvstore_of_a_wrong_type_is_a_type_error():
    net = dense(ctx=ctxs(2))
    trainer = Trainer(net.collect_params(), 'sgd', kvstore=5)
    backward(net, ctxs(2))
    with pytest.raises(TypeError, match='kvstore must be'):
        trainer.step(1)


def test_compression_params_reach_the_store():
    net = dense(ctx=ctxs(2))
    trainer = Trainer(net.collect_params(), 'sgd',
                      compression_params={'type': '2bit', 'threshold': 0.5})
    backward(net, ctxs(2))
    trainer.step(4)
    assert trainer._kvstore is not None
    compression = getattr(trainer._kvstore, '_compression_params', None) or \
        getattr(trainer._kvstore, '_compression', None)
    assert compression is not None


def test_reset_kvstore_after_set_data_on_the_store():
    net = dense(ctx=ctxs(2))
    trainer = Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.0})
    backward(net, ctxs(2))
    trainer.step(4)
    assert trainer._kv_initialized and not trainer._params_to_init
    net.weight.set_data(nd.ones((2, 3)))   # the store's copy is stale now: reset it
    assert not trainer._kv_initialized and len(trainer._params_to_init) == 2
    backward(net, ctxs(2))
    trainer.step(4)   # lr 0: the weights stay what set_data put there
    for w in net.weight.list_data():
        np.testing.assert_array_equal(w.asnumpy(), np.ones((2, 3)))


def test_deferred_parameters_join_the_store_on_first_use():
    net = nn.Dense(2)  # in_units unknown until the first forward pass
    net.initialize(ctx=ctxs(2))
    trainer = Trainer(net.collect_params(), 'sgd')
    assert len(trainer._params_to_init) == 2
    backward(net, ctxs(2))
    trainer.step(4)
    assert trainer._params_to_init == []
    w0, w1 = net.weight.list_data()
    np.testing.assert_array_equal(w0.asnumpy(), w1.asnumpy())


def test_sparse_gradients_update_off_the_store():
    net = nn.Embedding(10, 3, sparse_grad=True)
    net.initialize(ctx=ctxs(2))
    trainer = Trainer(net.collect_params(), 'sgd', {'learning_rate': 1.0})
    x = gluon.utils.split_and_load(nd.array([1, 2, 2, 5]), ctxs(2))
    before = net.weight.data(mx.cpu(0)).asnumpy().copy()
    with autograd.record():
        losses = [net(part).sum() for part in x]
    for loss in losses:
        loss.backward()
    trainer.step(1)
    assert trainer._kvstore is not None and trainer._update_on_kvstore is False
    after = net.weight.data(mx.cpu(0)).asnumpy()
    expected = before.copy()
    for row, count in ((1, 1), (2, 2), (5, 1)):
        expected[row] -= count
    np.testing.assert_allclose(after, expected, rtol=1e-6)
    np.testing.assert_array_equal(after, net.weight.data(mx.cpu(1)).asnumpy())


def test_sparse_weights_live_on_the_store():
    def sparse_weight():
        weight = Parameter('emb_weight', shape=(6, 2), stype='row_sparse',
                           grad_stype='row_sparse')
        weight.initialize(init=mx.init.One(), ctx=ctxs(2))
        return weight
    with pytest.raises(ValueError, match='sparse weights'):
        Trainer([sparse_weight()], 'sgd', update_on_kvstore=False)._init_kvstore()
    shared = sparse_weight()
    Trainer([shared], 'sgd')
    with pytest.raises(RuntimeError, match='one Trainer only'):
        Trainer([shared], 'adam')
    weight = sparse_weight()
    # (FTRL: gluonedu's SGD does not update row_sparse weights yet; MXNet's does.)
    trainer = Trainer([weight], 'ftrl', {'learning_rate': 1.0})
    rows = nd.array([0, 3], dtype='int64')
    pulled = weight.row_sparse_data(rows)
    assert trainer._update_on_kvstore is True
    np.testing.assert_array_equal(pulled.asnumpy()[[0, 3]], np.ones((2, 2)))
    for data, grad in zip(weight._data, weight.list_grad()):
        grad[:] = nd.sparse.row_sparse_array(
            (nd.ones((1, 2), ctx=grad.ctx), nd.array([3], dtype='int64', ctx=grad.ctx)),
            shape=(6, 2), ctx=grad.ctx)
        data._fresh_grad = True   # as backward would mark it
    trainer.step(1)
    assert isinstance(trainer._kvstore._updater, mx.optimizer.Updater)
    full = weight._reduce().asnumpy()
    assert not np.allclose(full[3], 1.0)                   # the pushed row was updated
    np.testing.assert_array_equal(np.delete(full, 3, axis=0), np.ones((5, 2)))  # lazily
    for ctx in ctxs(2):
        pulled = weight.row_sparse_data(nd.array([3], dtype='int64', ctx=ctx))
        np.testing.assert_array_equal(pulled.asnumpy()[3], full[3])


# ------------------------------------------------------------------ data parallelism

def test_data_parallel_over_four_cpus_matches_one_device():
    rng = np.random.RandomState(3)
    data = rng.randn(5, 16, 3).astype(np.float32)

    def train(contexts, **kwargs):
        net = dense(ctx=contexts, seed=7)
        trainer = Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.05, 'momentum': 0.9},
                          **kwargs)
        for batch in data:
            parts = gluon.utils.split_and_load(nd.array(batch), contexts)
            with autograd.record():
                losses = [(net(p) ** 2).sum() for p in parts]
            for loss in losses:
                loss.backward()
            trainer.step(batch.shape[0])
        return net

    single = train([mx.cpu(0)])
    for uok in (True, False):
        parallel = train(ctxs(4), update_on_kvstore=uok)
        for p_single, p_par in zip(single.collect_params().values(),
                                   parallel.collect_params().values()):
            for copy in p_par.list_data():
                np.testing.assert_allclose(copy.asnumpy(), p_single.data().asnumpy(),
                                           rtol=1e-5, atol=1e-6)


def test_package_api_training_loop_example_runs_unchanged():
    num_outputs = 3
    net = gluon.nn.Sequential()
    with net.name_scope():
        net.add(gluon.nn.Dense(16, activation="relu"))
        net.add(gluon.nn.Dense(num_outputs))
    net.initialize()
    softmax_cross_entropy = gluon.loss.SoftmaxCrossEntropyLoss()
    trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1})
    rng = np.random.RandomState(0)
    X = rng.randn(32, 4).astype(np.float32)
    Y = (X[:, 0] > 0).astype(np.float32) + (X[:, 1] > 0)
    train_data = gluon.data.DataLoader(gluon.data.ArrayDataset(X, Y), batch_size=8)
    first = None
    epochs = 10
    for e in range(epochs):
        for i, (data, label) in enumerate(train_data):
            with autograd.record():
                output = net(data)  # the forward iteration
                loss = softmax_cross_entropy(output, label)
                loss.backward()
            trainer.step(data.shape[0])
            first = loss.mean().asscalar() if first is None else first
    assert loss.mean().asscalar() < first


# ------------------------------------------------------------------ state files

def train_steps(net, trainer, steps, seed=0):
    for s in range(steps):
        backward(net, [mx.cpu()], seed=seed + s)
        trainer.step(4)


def adam_trainer(net):
    return Trainer(net.collect_params(), 'adam', {'learning_rate': 0.01, 'wd': 0.01})


def test_save_and_load_states_roundtrip(tmp_path):
    net = dense()
    trainer = adam_trainer(net)
    train_steps(net, trainer, 3)
    fname = str(tmp_path / 'trainer.states')
    trainer.save_states(fname)
    assert zipfile.is_zipfile(fname)
    assert os.listdir(tmp_path) == ['trainer.states']   # the temp file was renamed away
    fresh = Trainer(net.collect_params(), 'adam', {'learning_rate': 99.0})
    fresh.load_states(fname)
    assert fresh.learning_rate == 0.01 and fresh.optimizer.wd == 0.01
    assert fresh.optimizer.num_update == trainer.optimizer.num_update == 3
    assert fresh.optimizer.param_dict[0] is fresh._params[0]
    assert fresh._num_steps == 3
    for idx, state in trainer._updaters[0].states.items():
        for mine, theirs in zip(state, fresh._updaters[0].states[idx]):
            np.testing.assert_array_equal(mine.asnumpy(), theirs.asnumpy())


def test_saved_trainer_continues_bit_identically_in_a_fresh_process(tmp_path):
    net = dense()
    sched = mx.lr_scheduler.FactorScheduler(step=2, factor=0.5, base_lr=0.02)
    trainer = Trainer(net.collect_params(), 'adam',
                      {'lr_scheduler': sched, 'learning_rate': 0.02, 'wd': 0.01})
    train_steps(net, trainer, 3)
    net.save_parameters(str(tmp_path / 'net.params'))
    trainer.save_states(str(tmp_path / 'trainer.states'))
    train_steps(net, trainer, 3, seed=3)
    script = textwrap.dedent('''
        import sys, numpy as np
        sys.path.insert(0, %r)
        import gluonedu as mx
        from gluonedu import autograd, gluon, nd
        net = gluon.nn.Dense(2, in_units=3)
        net.load_parameters(%r)
        trainer = gluon.Trainer(net.collect_params(), 'adam', {'learning_rate': 5.0})
        trainer.load_states(%r)
        for s in range(3, 6):
            x = nd.array(np.random.RandomState(s).randn(4, 3).astype(np.float32))
            with autograd.record():
                loss = (net(x) ** 2).sum()
            loss.backward()
            trainer.step(4)
        np.save(%r, net.weight.data().asnumpy())
        np.save(%r, net.bias.data().asnumpy())
    ''' % (REPO, str(tmp_path / 'net.params'), str(tmp_path / 'trainer.states'),
           str(tmp_path / 'w.npy'), str(tmp_path / 'b.npy')))
    proc = subprocess.run([sys.executable, '-c', script], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    np.testing.assert_array_equal(np.load(tmp_path / 'w.npy'), net.weight.data().asnumpy())
    np.testing.assert_array_equal(np.load(tmp_path / 'b.npy'), net.bias.data().asnumpy())


def _state_snapshot(trainer):
    return (trainer.optimizer, trainer.optimizer.lr, trainer.optimizer.num_update,
            {i: [a.asnumpy().copy() for a in s] for i, s in trainer._updaters[0].states.items()},
            trainer._num_steps)


def _assert_unchanged(trainer, snapshot):
    opt, lr, num_update, states, steps = snapshot
    assert trainer.optimizer is opt and opt.lr == lr and opt.num_update == num_update
    assert trainer._num_steps == steps
    assert set(trainer._updaters[0].states) == set(states)
    for i, arrays in states.items():
        for mine, saved in zip(trainer._updaters[0].states[i], arrays):
            np.testing.assert_array_equal(mine.asnumpy(), saved)


def _good_file(tmp_path):
    net = dense()
    trainer = adam_trainer(net)
    train_steps(net, trainer, 2)
    fname = tmp_path / 'good.states'
    trainer.save_states(str(fname))
    return fname


def _rewrite_json(src, dst, edit):
    import json
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, 'w') as zout:
        for item in zin.namelist():
            payload = zin.read(item)
            if item == 'states.json':
                document = json.loads(payload)
                edit(document)
                payload = json.dumps(document).encode()
            zout.writestr(item, payload)


def _damaged_files(tmp_path):
    good = _good_file(tmp_path)
    raw = good.read_bytes()
    files = {}
    files['truncated'] = raw[:len(raw) // 2]
    flipped = bytearray(raw)
    npy_at = raw.index(b'NUMPY') + 200
    flipped[npy_at] ^= 0xFF   # inside an array: the ZIP checksum catches it
    files['tampered'] = bytes(flipped)
    files['foreign'] = b'\x80\x04\x95 this is a pickle, not trainer states'
    files['empty'] = b''
    np.savez(tmp_path / 'other.npz', a=np.ones(3))
    files['other_npz'] = (tmp_path / 'other.npz').read_bytes()
    for name, edit in {
            'wrong_version': lambda d: d.update(version=99),
            'no_optimizer': lambda d: d.update(optimizer=None),
            'unknown_optimizer': lambda d: d['optimizer'].update(optimizer='nosuchopt'),
            'missing_states': lambda d: d.pop('states'),
            'too_many_params': lambda d: d['extra']['params'].append(
                dict(d['extra']['params'][0])),
            'wrong_shape': lambda d: d['extra']['params'][1].update(shape=[3, 2]),
            'wrong_dtype': lambda d: d['extra']['params'][0].update(dtype='float16'),
            'beta1_out_of_range': lambda d: d['optimizer']['attrs'].update(beta1=2.0),
            'negative_lr': lambda d: d['optimizer']['attrs'].update(lr=-1.0),
            'negative_steps': lambda d: d['extra'].update(steps=-1),
            'steps_not_a_count': lambda d: d['extra'].update(steps='many'),
            'adam_state_of_one_array': lambda d: [
                state.update(tuple=state['tuple'][:1], fields=['mean'])
                for _, state in d['states']['dict']],
            'another_optimizers_state': lambda d: [
                state.update(type='DCASGDState', fields=['momentum', 'previous_weight'])
                for _, state in d['states']['dict']],
    }.items():
        _rewrite_json(good, tmp_path / (name + '.states'), edit)
        files[name] = (tmp_path / (name + '.states')).read_bytes()
    return files


def test_damaged_or_foreign_states_raise_and_change_nothing(tmp_path):
    net = dense(seed=5)
    trainer = Trainer(net.collect_params(), 'adam', {'learning_rate': 0.5})
    train_steps(net, trainer, 1)
    snapshot = _state_snapshot(trainer)
    for name, payload in _damaged_files(tmp_path).items():
        fname = tmp_path / ('bad_' + name)
        fname.write_bytes(payload)
        with pytest.raises(MXNetError, match='cannot load trainer states') as info:
            trainer.load_states(str(fname))
        assert 'Nothing was changed' in str(info.value), name
        _assert_unchanged(trainer, snapshot)


def test_states_of_another_model_are_refused(tmp_path):
    fname = str(_good_file(tmp_path))
    bigger = dense(units=4)
    trainer = adam_trainer(bigger)
    with pytest.raises(MXNetError, match='shape'):
        trainer.load_states(fname)
    three = dense()
    extra = Parameter('extra', shape=(2,))
    extra.initialize()
    trainer = Trainer([three.bias, three.weight, extra], 'adam')
    with pytest.raises(MXNetError, match='3'):
        trainer.load_states(fname)


def test_states_move_between_store_and_local_updates(tmp_path):
    net = dense(ctx=ctxs(2))
    on_store = Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1, 'momentum': 0.9})
    backward(net, ctxs(2))
    on_store.step(4)
    assert on_store._update_on_kvstore
    fname = str(tmp_path / 'store.states')
    on_store.save_states(fname)
    local = Trainer(net.collect_params(), 'sgd', update_on_kvstore=False)
    local.load_states(fname)
    assert local.optimizer.momentum == 0.9 and local.learning_rate == 0.1
    assert set(local._updaters[1].states) == {0, 1}
    fname2 = str(tmp_path / 'local.states')
    local.save_states(fname2)
    again = Trainer(net.collect_params(), 'sgd')
    again.load_states(fname2)
    assert again._update_on_kvstore and again.optimizer.momentum == 0.9


def test_loaded_states_give_each_device_its_own_buffers(tmp_path):
    """Loaded on two devices (local updates), the states are equal but not shared: each
    device's updater updates its own, and both use the one loaded optimizer."""
    net = dense(ctx=ctxs(2))
    trainer = Trainer(net.collect_params(), 'adam', update_on_kvstore=False)
    backward(net, ctxs(2))
    trainer.step(4)
    fname = str(tmp_path / 'local.states')
    trainer.save_states(fname)
    fresh = Trainer(net.collect_params(), 'adam', update_on_kvstore=False)
    fresh.load_states(fname)
    first, second = fresh._updaters
    assert first.optimizer is second.optimizer is fresh.optimizer
    for index, state in first.states.items():
        for mine, other in zip(state, second.states[index]):
            np.testing.assert_array_equal(mine.asnumpy(), other.asnumpy())
            mine[:] = 0
            assert np.any(other.asnumpy() != 0)


def test_damaged_states_leave_a_store_trainer_unchanged(tmp_path):
    net = dense(ctx=ctxs(2))
    trainer = Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1, 'momentum': 0.9})
    backward(net, ctxs(2))
    trainer.step(4)
    updater = trainer._kvstore._updater
    states = {i: s.asnumpy().copy() for i, s in updater.states.items()}
    optimizer = trainer.optimizer
    bad = tmp_path / 'bad.states'
    bad.write_bytes(_damaged_files(tmp_path)['wrong_shape'])
    with pytest.raises(MXNetError, match='shape'):
        trainer.load_states(str(bad))
    assert trainer.optimizer is optimizer and trainer._kvstore._updater.optimizer is optimizer
    for i, s in trainer._kvstore._updater.states.items():
        np.testing.assert_array_equal(s.asnumpy(), states[i])


# ------------------------------------------------------------------ custom and dist stores

def _custom_store(store_type, optimizer_capable):

    class FakeStore(mx.kv.TestStore):
        """A TestStore posing as another type (the dist paths keep MXNet's rules)."""
        optimizer = None

        @property
        def type(self):
            return store_type

        @staticmethod
        def is_capable(capability):
            return optimizer_capable

        def set_optimizer(self, optimizer):
            self.optimizer = optimizer

    return FakeStore()


def test_a_store_without_optimizer_support_updates_locally():
    store = _custom_store('teststore', optimizer_capable=False)
    net = dense(ctx=ctxs(2))
    with pytest.raises(ValueError, match='update_on_kvstore=False'):
        Trainer(net.collect_params(), 'sgd', kvstore=store, update_on_kvstore=True).step(1)
    net = dense(ctx=ctxs(2))
    trainer = Trainer(net.collect_params(), 'sgd', kvstore=mx.kv.create('teststore'))
    backward(net, ctxs(2))
    trainer.step(4)
    assert trainer._update_on_kvstore is False
    w0, w1 = net.weight.list_data()
    np.testing.assert_array_equal(w0.asnumpy(), w1.asnumpy())


def test_async_store_refuses_update_on_kvstore_false():
    net = dense(ctx=ctxs(2))
    trainer = Trainer(net.collect_params(), 'sgd', update_on_kvstore=False,
                      kvstore=_custom_store('dist_async', optimizer_capable=True))
    backward(net, ctxs(2))
    with pytest.raises(ValueError, match='async'):
        trainer.step(4)
    net = dense(ctx=ctxs(2))
    trainer = Trainer(net.collect_params(), 'sgd',
                      kvstore=_custom_store('dist_async', optimizer_capable=True))
    trainer._init_kvstore()
    assert trainer._update_on_kvstore is True and trainer._distributed is True
    with pytest.raises(RuntimeError, match='distributed'):
        trainer._reset_kvstore()


def test_batch_size_change_under_a_distributed_store_is_refused():
    net = dense(ctx=ctxs(2))
    store = _custom_store('dist_sync', optimizer_capable=True)
    trainer = Trainer(net.collect_params(), 'sgd', kvstore=store)
    backward(net, ctxs(2))
    trainer.step(4)
    assert store.optimizer is trainer.optimizer
    backward(net, ctxs(2))
    with pytest.raises(UserWarning, match='batch_size'):
        trainer.step(8)


def test_sparse_gradients_need_a_kvstore_class_store():
    net = nn.Embedding(10, 3, sparse_grad=True)
    net.initialize(ctx=ctxs(2))
    trainer = Trainer(net.collect_params(), 'sgd',
                      kvstore=_custom_store('teststore', optimizer_capable=False))
    with pytest.raises(ValueError, match='sparse gradients'):
        trainer._init_kvstore()


def test_a_step_that_raises_is_not_counted():
    with mx.name.NameManager():
        used, unused = gluon.nn.Dense(1, in_units=2), gluon.nn.Dense(1, in_units=2)
    params = gluon.ParameterDict()
    params.update(used.collect_params())
    params.update(unused.collect_params())
    params.initialize()
    trainer = gluon.Trainer(params, 'sgd', {'learning_rate': 0.1})
    for expected in (1, 2):
        with mx.autograd.record():
            loss = used(mx.nd.ones((1, 2))).sum()
        loss.backward()
        with pytest.raises(UserWarning, match='has not been updated'):
            trainer.step(1)
        assert trainer._num_steps == expected - 1
        trainer.step(1, ignore_stale_grad=True)
        assert trainer._num_steps == expected


# ------------------------------------------------------------------ public views

@pytest.mark.parametrize('fused', [True, False])
@pytest.mark.parametrize('update_on_kvstore', [True, False])
def test_kvstore_and_update_on_kvstore_are_decided_on_the_first_step(update_on_kvstore, fused):
    net = dense(ctx=ctxs(2))
    trainer = Trainer(net.collect_params(), 'sgd', update_on_kvstore=update_on_kvstore,
                      fused=fused)
    assert trainer.kvstore is None and trainer.update_on_kvstore is None
    backward(net, ctxs(2))
    trainer.step(4)
    assert trainer.kvstore.type == 'device'
    assert trainer.update_on_kvstore is update_on_kvstore
    one = dense()
    single = Trainer(one.collect_params(), 'sgd')
    backward(one, [mx.cpu()])
    single.step(4)
    assert single.kvstore is None and single.update_on_kvstore is None   # nothing to reduce
    store = mx.kv.create('local')
    assert Trainer(dense().collect_params(), 'sgd', kvstore=store).kvstore is None
    with pytest.raises(AttributeError):
        trainer.kvstore = store                                            # read-only


def _adam_by_hand(grads, lr=0.1, beta1=0.9, beta2=0.999):
    mean = var = 0
    for g in grads:
        mean = beta1 * mean + (1 - beta1) * g
        var = beta2 * var + (1 - beta2) * g * g
    return mean, var


@pytest.mark.parametrize('fused', [True, False])
@pytest.mark.parametrize('update_on_kvstore', [True, False])
def test_optimizer_states_are_adams_running_averages(update_on_kvstore, fused):
    net = dense(ctx=ctxs(2))
    trainer = Trainer(net.collect_params(), 'adam', {'learning_rate': 0.1},
                      update_on_kvstore=update_on_kvstore, fused=fused)
    assert trainer.optimizer_states(net.weight) is None          # created by the first update
    grads = []
    for seed in range(3):
        backward(net, ctxs(2), seed=seed)
        summed = sum(g.asnumpy() for g in net.weight.list_grad())
        trainer.step(4)
        grads.append(summed / 4)
    mean, var = _adam_by_hand(grads)
    for ctx in (None, mx.cpu(0), mx.cpu(1)):
        states = trainer.optimizer_states(net.weight, ctx=ctx)
        assert sorted(states) == ['mean', 'var']
        np.testing.assert_allclose(states['mean'].asnumpy(), mean, rtol=1e-4, atol=1e-7)
        np.testing.assert_allclose(states['var'].asnumpy(), var, rtol=1e-4, atol=1e-9)
    if not update_on_kvstore:                    # each context's Updater holds its own copy
        assert trainer.optimizer_states(net.weight, mx.cpu(1))['mean'].context == mx.cpu(1)
    # copies: changing them changes nothing
    states = trainer.optimizer_states(net.bias.name)
    states['mean'][:] = 100
    assert np.abs(trainer.optimizer_states(net.bias)['mean'].asnumpy()).max() < 100


def test_optimizer_states_of_stateless_and_unused_parameters():
    net = dense()
    sgd = Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1})
    backward(net, [mx.cpu()])
    sgd.step(4)
    assert sgd.optimizer_states(net.weight) == {}                # plain SGD keeps nothing
    net = Branchy()
    net.initialize()
    momentum = Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1, 'momentum': 0.9})
    with autograd.record():
        loss = net(nd.ones((1, 3))).sum()
    loss.backward()
    momentum.step(1, ignore_stale_grad=True)
    assert momentum.optimizer_states(net.unused.weight) is None  # never updated: no state
    np.testing.assert_allclose(momentum.optimizer_states(net.used.bias)['momentum'].asnumpy(),
                               -0.1 * np.ones(2), rtol=1e-6)


def test_optimizer_states_refuse_foreign_parameters_and_contexts():
    net, other = dense(), dense()
    trainer = Trainer(net.collect_params(), 'adam')
    with pytest.raises(ValueError, match='not a parameter of this Trainer'):
        trainer.optimizer_states(other.weight)
    with pytest.raises(ValueError, match='not a parameter of this Trainer'):
        trainer.optimizer_states('no_such_weight')
    with pytest.raises(ValueError, match='lives on'):
        trainer.optimizer_states(net.weight, ctx=mx.cpu(3))


class _WithConstant(gluon.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.const = self.params.get_constant('const', [[1, 2], [3, 4]])

    def hybrid_forward(self, F, x, const):
        return x + const


@pytest.mark.parametrize('fused', [True, False])
@pytest.mark.parametrize('kvstore', ['device', None])
@pytest.mark.parametrize('hybridize', [False, True])
def test_a_constant_is_neither_stale_nor_updated(hybridize, kvstore, fused):
    """MXNet's test_constant: a step over a Block holding a Constant (grad_req 'null')
    warns of nothing and leaves the constant as it was."""
    block = _WithConstant()
    block.initialize()
    if hybridize:
        block.hybridize()
    trainer = Trainer(block.collect_params(), 'sgd', {'learning_rate': 1.0, 'momentum': 0.5},
                      kvstore=kvstore, fused=fused)
    x = nd.ones((2, 2))
    x.attach_grad()
    with autograd.record():
        y = block(x)
    y.backward()
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        trainer.step(1)
    np.testing.assert_array_equal(block.const.data().asnumpy(), [[1, 2], [3, 4]])
    np.testing.assert_array_equal(x.grad.asnumpy(), np.ones((2, 2)))


def test_a_constant_keeps_grad_req_null_when_asked_for_another():
    const = gluon.Constant('c', [1.0, 2.0])
    with pytest.warns(UserWarning, match='does not support grad_req'):
        const.grad_req = 'add'
    const.initialize()
    assert const.grad_req == 'null'
    with pytest.raises(RuntimeError, match="grad_req='null'"):
        const.grad()
