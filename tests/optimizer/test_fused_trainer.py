"""Trainer(fused=True) — the default — gives the numbers and events of fused=False.

Through a real Trainer: one and two contexts (the flat all-reduce), parameters replaced
with set_data / cast / reset_ctx between steps, state files, and instrumentation events;
then 1, 2 and 4 contexts, 'device' and 'local' stores, updates on the store or not, 2-bit
compression and float16 multi_precision: bit for bit the reference's numbers, the
fused kernels running on the Trainer's flat buffers and on the store's.
"""
import numpy as np
import pytest

import gluonedu as mx
from gluonedu import autograd, gluon, nd
from gluonedu.gluon import nn
from gluonedu.instrument.events import BUS
from gluonedu.optimizer import Updater
from gluonedu.optimizer._fused import FusedUpdater


@pytest.fixture(autouse=True)
def fresh_names():
    with mx.name.NameManager():
        yield


def _net(ctx, seed=0):
    net = nn.HybridSequential()
    net.add(nn.Dense(8, in_units=5, activation='relu'), nn.Dense(3, in_units=8))
    net.initialize(ctx=ctx)
    rng = np.random.RandomState(seed)
    for p in net.collect_params().values():
        p.set_data(nd.array(rng.randn(*p.shape) * 0.3))
    return net


def _train(fused, ctx, optimizer='adam', steps=4, between=None, optimizer_params=None,
           **trainer_kw):
    net = _net(ctx)
    trainer = gluon.Trainer(net.collect_params(), optimizer,
                            optimizer_params or {'learning_rate': 0.05, 'wd': 1e-3},
                            fused=fused, **trainer_kw)
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    rng = np.random.RandomState(1)
    for step in range(steps):
        x = rng.randn(4 * len(ctx), 5).astype(np.float32)
        y = rng.randint(0, 3, 4 * len(ctx)).astype(np.float32)
        with autograd.record():
            losses = [loss_fn(net(nd.array(x[i::len(ctx)], ctx=c)), nd.array(y[i::len(ctx)], ctx=c))
                      for i, c in enumerate(ctx)]
        autograd.backward(losses)
        trainer.step(4 * len(ctx))
        if between is not None:
            between(step, net, trainer)
    return net, trainer


def _weights(net):
    return [p.data(p.list_ctx()[0]).asnumpy() for p in net.collect_params().values()]


@pytest.mark.parametrize('optimizer', ['adam', 'sgd', 'lamb', 'rmsprop'])
@pytest.mark.parametrize('n_ctx', [1, 2])
def test_trainer_fused_equals_reference(optimizer, n_ctx):
    ctx = [mx.cpu(i) for i in range(n_ctx)]
    kw = {'update_on_kvstore': False} if n_ctx > 1 else {}
    fused_net, fused_trainer = _train(True, ctx, optimizer, **kw)
    ref_net, _ = _train(False, ctx, optimizer, **kw)
    for got, want in zip(_weights(fused_net), _weights(ref_net)):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
    assert all(p.startswith('fused:') for u in fused_trainer._updaters
               for _, p in u.last_paths)


def test_adamw_takes_its_fast_path_with_the_reference_numbers():
    """AdamW's fast path (the recipe of docs/fused.md): bit for bit the readable update."""
    fused_net, fused_trainer = _train(True, [mx.cpu(0)], 'adamw')
    ref_net, _ = _train(False, [mx.cpu(0)], 'adamw')
    for got, want in zip(_weights(fused_net), _weights(ref_net)):
        np.testing.assert_array_equal(got, want)
    paths = fused_trainer._updaters[0].last_paths
    assert paths and all(p.startswith('fused:') for _, p in paths)


@pytest.mark.parametrize('optimizer,momentum', [('sgd', 'momentum'), ('nag', 'momentum'),
                                                ('lars', 'momentum'), ('adam', 'beta1')])
def test_one_cycle_momentum_reaches_the_fused_path_as_the_reference(optimizer, momentum):
    """With a one-cycle schedule, the fused kernels see the scheduled momentum (or beta1)
    at every step, as the readable update does; and it matters to the result."""
    def params(cycle):
        schedule = mx.lr_scheduler.OneCycleScheduler(max_lr=0.05, total_steps=6,
                                                     base_momentum=0.5, max_momentum=0.95,
                                                     cycle_momentum=cycle)
        return {'learning_rate': 0.05, 'wd': 1e-3, 'lr_scheduler': schedule, momentum: 0.95}
    seen = []
    fused_net, fused_trainer = _train(
        True, [mx.cpu(0)], optimizer, steps=5, optimizer_params=params(True),
        between=lambda step, net, trainer: seen.append(getattr(trainer.optimizer, momentum)))
    ref_net, _ = _train(False, [mx.cpu(0)], optimizer, steps=5, optimizer_params=params(True))
    for got, want in zip(_weights(fused_net), _weights(ref_net)):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
    assert all(p.startswith('fused:') for _, p in fused_trainer._updaters[0].last_paths)
    schedule = params(True)['lr_scheduler']
    assert seen == [schedule.momentum_at(n) for n in range(1, 6)]
    assert min(seen) < 0.6 and seen[-1] > 0.85
    constant_net, _ = _train(True, [mx.cpu(0)], optimizer, steps=5,
                             optimizer_params=params(False))
    assert not np.allclose(_weights(fused_net)[0], _weights(constant_net)[0])


def test_a_momentum_schedule_over_unequal_update_counts_takes_the_reference():
    """Parameter 1 counted ahead of parameter 0: num_update moves between them, so each
    sees another momentum; one kernel call cannot give that, the reference path can."""
    def run(updater_class):
        schedule = mx.lr_scheduler.OneCycleScheduler(max_lr=0.1, total_steps=8)
        updater = updater_class(mx.optimizer.create('adam', lr_scheduler=schedule,
                                                    learning_rate=0.1))
        weights = [nd.ones((3,)), nd.ones((2,))]
        for _ in range(3):
            updater([1], [nd.ones((2,))], [weights[1]])
        updater([0, 1], [nd.ones((3,)), nd.ones((2,))], weights)
        return updater, [w.asnumpy() for w in weights]
    (fused, got), (_, want) = run(FusedUpdater), run(Updater)
    assert fused.last_paths == [((0, 1), 'reference: a momentum schedule, and update counts '
                                 'that move num_update within the run (its parameters see '
                                 'different momenta)')]
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_replaced_parameters_keep_working():
    """set_data writes into the views; cast and reset_ctx make new arrays: rebuilt."""
    def between(step, net, trainer):
        params = list(net.collect_params().values())
        if step == 0:
            params[0].set_data(params[0].data() * 0.5)
        if step == 1:
            params[1].reset_ctx(mx.cpu(0))
        if step == 2:
            net.cast('float64')
            net.cast('float32')
    fused_net, _ = _train(True, [mx.cpu(0)], 'adam', steps=5, between=between)
    ref_net, _ = _train(False, [mx.cpu(0)], 'adam', steps=5, between=between)
    for got, want in zip(_weights(fused_net), _weights(ref_net)):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


def test_state_files_round_trip(tmp_path):
    path = str(tmp_path / 'trainer.states')

    def save_then_load(step, net, trainer):
        if step == 1:
            trainer.save_states(path)
            trainer.load_states(path)
    fused_net, _ = _train(True, [mx.cpu(0)], 'adam', between=save_then_load)
    ref_net, _ = _train(False, [mx.cpu(0)], 'adam', between=save_then_load)
    for got, want in zip(_weights(fused_net), _weights(ref_net)):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


def test_events_are_those_of_the_reference():
    def record(fused):
        events = []
        sub = BUS.subscribe(events.append, norms=True)
        try:
            with mx.name.NameManager():  # the same parameter names in both runs
                _train(fused, [mx.cpu(0), mx.cpu(1)], 'adam', steps=2,
                       update_on_kvstore=False)
        finally:
            sub.remove()
        return [(e.kind, e.step, e.source, e.param, e.context, sorted(e.values)) for e in events], \
            [list(e.values.values()) for e in events]
    (fused_meta, fused_values), (ref_meta, ref_values) = record(True), record(False)
    assert fused_meta == ref_meta
    for got, want in zip(fused_values, ref_values):
        np.testing.assert_allclose(got, want, rtol=1e-6)


def _run_mlp(fused, n_ctx, kvstore, update_on_kvstore, compression, dtype, optimizer):
    ctx = [mx.cpu(i) for i in range(n_ctx)]
    net = _net(ctx)
    net.cast(dtype)
    params = {'learning_rate': 0.05, 'wd': 1e-3, 'multi_precision': dtype == 'float16'}
    if optimizer == 'sgd':
        params['momentum'] = 0.9
    trainer = gluon.Trainer(net.collect_params(), optimizer, params, kvstore=kvstore,
                            update_on_kvstore=update_on_kvstore, fused=fused,
                            compression_params=compression)
    loss_fn = gluon.loss.L2Loss()
    rng = np.random.RandomState(1)
    for _ in range(3):
        x = rng.randn(2 * n_ctx, 5).astype(dtype)
        y = rng.randn(2 * n_ctx, 3).astype(dtype)
        with autograd.record():
            losses = [loss_fn(net(nd.array(x[i::n_ctx], ctx=c, dtype=dtype)),
                              nd.array(y[i::n_ctx], ctx=c, dtype=dtype))
                      for i, c in enumerate(ctx)]
        autograd.backward(losses)
        trainer.step(2 * n_ctx)
    weights = [p.data(c).asnumpy() for p in net.collect_params().values() for c in ctx]
    return weights, trainer


TWO_BIT = {'type': '2bit', 'threshold': 0.05}
STORE_CASES = [(1, 'device', None, None, 'float32'), (2, 'device', None, None, 'float32'),
               (2, 'device', True, TWO_BIT, 'float32'), (2, 'local', False, None, 'float32'),
               (2, 'device', True, None, 'float16'), (2, 'device', False, None, 'float16'),
               (4, 'local', True, None, 'float32'), (4, 'device', False, TWO_BIT, 'float32'),
               (4, 'local', False, None, 'float32')]


@pytest.mark.parametrize('optimizer', ['adam', 'sgd', 'adamw'])
@pytest.mark.parametrize('n_ctx,kvstore,uok,compression,dtype', STORE_CASES,
                         ids=['%dctx-%s-uok%s-%s-%s' % (n, kv, u, 'c' if c else 'dense', d)
                              for n, kv, u, c, d in STORE_CASES])
def test_fused_on_flat_buffers_and_on_the_store_equals_reference(n_ctx, kvstore, uok,
                                                                 compression, dtype, optimizer):
    got, trainer = _run_mlp(True, n_ctx, kvstore, uok, compression, dtype, optimizer)
    want, _ = _run_mlp(False, n_ctx, kvstore, uok, compression, dtype, optimizer)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    store = trainer._kvstore
    paths = [p for u in trainer._updaters for _, p in u.last_paths]
    if store is not None and trainer._update_on_kvstore:
        paths = [p for _, p in store._updater.last_paths]
    assert paths and all(p.startswith('fused:') for p in paths), paths
