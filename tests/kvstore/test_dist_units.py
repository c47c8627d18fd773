"""Distributed-store pieces that need no cluster: server logic, wire format, simulation."""
import asyncio

import numpy as np
import pytest

import gluonedu as mx
from gluonedu.base import MXNetError
from gluonedu.kvstore.dist_server import KVServer
from gluonedu.kvstore.wire import DistAborted, pack_2bit, unpack_2bit


def test_unknown_store_type_lists_the_valid_ones():
    with pytest.raises(ValueError) as info:
        mx.kv.create('dist_bogus')
    message = str(info.value)
    for name in ('local', 'device', 'dist_sync', 'dist_device_sync', 'dist_async'):
        assert name in message


def test_a_dist_store_outside_a_worker_says_how_to_start_workers(monkeypatch):
    monkeypatch.delenv('GLUONEDU_DIST_GROUP', raising=False)
    with pytest.raises(MXNetError, match='python -m gluonedu.launch'):
        mx.kv.create('dist_sync')


def test_two_bit_wire_format_round_trips():
    t = 0.5
    sent = np.array([t, -t, 0, 0, t] * 7, dtype=np.float32)   # 35 values: 3 words
    words = pack_2bit(sent)
    assert words.dtype == np.uint32 and words.size == 3
    np.testing.assert_array_equal(unpack_2bit(words, sent.size, t), sent)


async def _server(num_workers, sync):
    server = KVServer(0, num_workers, timeout=5)
    await server.set_mode(sync)
    return server


def test_sync_server_applies_a_round_once_all_workers_pushed():
    async def scenario():
        server = await _server(3, True)
        await server.init('0', 0, np.zeros(2, np.float32))
        pushes = [server.push('0', rank, ('dense', np.full(2, rank + 1.0, np.float32)))
                  for rank in (2, 0, 1)]
        answers = await asyncio.gather(*pushes)
        value, version = await server.pull('0')
        return answers, value, version
    answers, value, version = asyncio.run(scenario())
    assert answers == [(1, 0)] * 3
    np.testing.assert_array_equal(value, [6.0, 6.0])
    assert version == 1


def test_async_server_reports_how_many_updates_a_push_missed():
    async def scenario():
        server = await _server(2, False)
        await server.init('0', 0, np.zeros(2, np.float32))
        with pytest.raises(MXNetError, match='set_optimizer'):
            await server.push('0', 0, ('dense', np.ones(2, np.float32)), 0)
        await server.set_optimizer(mx.optimizer.SGD(learning_rate=1.0))
        first = await server.push('0', 0, ('dense', np.ones(2, np.float32)), 0)
        second = await server.push('0', 1, ('dense', np.ones(2, np.float32)), 0)
        third = await server.push('0', 0, ('dense', np.ones(2, np.float32)), 1)
        return first, second, third, await server.pull('0')
    first, second, third, (value, version) = asyncio.run(scenario())
    assert (first, second, third) == ((1, 0), (2, 1), (3, 1))
    np.testing.assert_allclose(value, [-3.0, -3.0])
    assert version == 3


def test_abort_wakes_a_waiting_push_with_the_reason():
    async def scenario():
        server = await _server(2, True)
        await server.init('0', 0, np.zeros(2, np.float32))
        waiting = asyncio.ensure_future(server.push('0', 0, ('dense', np.ones(2, np.float32))))
        await asyncio.sleep(0)
        await server.abort('worker 1 was killed by signal SIGKILL')
        with pytest.raises(DistAborted, match='worker 1 was killed'):
            await waiting
        with pytest.raises(DistAborted):
            await server.pull('0')
    asyncio.run(scenario())


def test_staleness_simulation_is_deterministic_and_grows_with_workers():
    def mean_staleness(n):
        pushes = mx.kv.StalenessSimulation(n, steps=40, seed=1).schedule()
        return np.mean([p.staleness for p in pushes])
    a = mx.kv.StalenessSimulation(3, steps=10, seed=5).schedule()
    b = mx.kv.StalenessSimulation(3, steps=10, seed=5).schedule()
    assert a == b and len(a) == 30
    assert [p.version for p in a] == list(range(1, 31))
    assert 0 < mean_staleness(2) < mean_staleness(4) < mean_staleness(8)
    # equally fast workers: each push misses about num_workers - 1 others
    assert abs(mean_staleness(4) - 3) < 0.5


def test_simulated_async_training_emits_staleness_and_learns():
    from gluonedu import autograd, gluon
    from gluonedu.gluon import nn
    X, y = mx.data.digits()
    mx.random.seed(0)
    net = nn.Dense(10, in_units=64)
    net.initialize(mx.init.Xavier())
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()

    def grad_fn(worker, step):
        rows = slice((step * 4 + worker) * 32 % 1600, (step * 4 + worker) * 32 % 1600 + 32)
        with autograd.record():
            loss = loss_fn(net(mx.nd.array(X[rows])), mx.nd.array(y[rows]))
        loss.backward()
        return loss.mean().asscalar()
    sim = mx.kv.StalenessSimulation(4, steps=15, seed=0)
    with mx.instrument.Recorder(kinds=['staleness']) as rec:
        history = sim.train(net.collect_params(), grad_fn,
                            mx.optimizer.SGD(learning_rate=0.5, rescale_grad=1 / 32))
    assert len(history) == 60 and len(rec) == 60
    assert {r.context for r in rec.rows} == {'worker0', 'worker1', 'worker2', 'worker3'}
    assert [r.value for r in rec.rows] == [float(p.staleness) for p, _ in history]
    assert np.mean([l for _, l in history[-8:]]) < np.mean([l for _, l in history[:8]]) / 2


def test_a_batch_of_sync_pushes_waits_for_each_round_side_by_side():
    async def scenario():
        server = await _server(2, True)
        for shard in ('a', 'b'):
            await server.init(shard, shard, np.zeros(2, np.float32))
        # rank 0 batches both keys; rank 1 pushes them one call at a time, in the other
        # order: neither waits for a key the other has not pushed yet
        batch = asyncio.ensure_future(server.pushpull_many(
            0, [('a', ('dense', np.ones(2, np.float32)), None),
                ('b', ('dense', np.full(2, 10, np.float32)), None)]))
        await server.push('b', 1, ('dense', np.full(2, 20, np.float32)))
        await server.push('a', 1, ('dense', np.full(2, 2, np.float32)))
        answers = await batch
        # a bad request fails the batch, once the good one's round is complete
        failing = asyncio.ensure_future(server.push_many(
            0, [('a', ('dense', np.ones(2, np.float32)), None),
                ('nope', ('dense', np.ones(2, np.float32)), None)]))
        await server.push('a', 1, ('dense', np.ones(2, np.float32)))
        with pytest.raises(MXNetError, match='not initialised'):
            await failing
        return answers, await server.pull_many(['a', 'b'])
    answers, pulled = asyncio.run(scenario())
    assert [pushed for pushed, _ in answers] == [(1, 0), (1, 0)]
    np.testing.assert_array_equal(answers[0][1][0], [3, 3])
    np.testing.assert_array_equal(answers[1][1][0], [30, 30])
    np.testing.assert_array_equal(pulled[0][0], [2, 2])
    assert [version for _, version in pulled] == [2, 1]
