"""KVStore.allreduce_flat: the flat buffers of several devices, reduced as pushpull of each
key would reduce them — same sums (the store's own order), same compression residuals,
same stored values, same events — and, with an optimizer on the store, the same update.
Then the Trainer: it hands its flat layout to the store from the first step on.
"""
import numpy as np
import pytest

import gluonedu as mx
from gluonedu import autograd, gluon, nd
from gluonedu.instrument.events import BUS
from gluonedu.optimizer.flat import FlatGroup, FlatReduction, sum_and_copy

SHAPES = [(3, 4), (5,), (2, 2, 3), (1,)]


def _arrays(rng, ctx):
    return [nd.array(rng.randn(*s), ctx=ctx) for s in SHAPES]


def _stores(kind, n_dev, compression=None, optimizer=None, fused=False):
    """(store for per-key pushpull, store for allreduce_flat), set up alike."""
    stores = []
    for _ in range(2):
        kv = mx.kv.create(kind)
        if compression:
            kv.set_gradient_compression(compression)
        if optimizer:
            kv.set_optimizer(mx.optimizer.create(*optimizer), fused=fused)
        init = _arrays(np.random.RandomState(0), mx.cpu(0))
        for k, value in enumerate(init):
            kv.init(k, value)
        stores.append(kv)
    return stores


def _devices(seed, n_dev):
    rng = np.random.RandomState(seed)
    return [(_arrays(rng, mx.cpu(d)), _arrays(rng, mx.cpu(d))) for d in range(n_dev)]


def _events(run):
    events = []
    sub = BUS.subscribe(events.append, kinds=['kv_push', 'kv_pull'])
    try:
        run()
    finally:
        sub.remove()
    return [(e.kind, e.param, dict(e.values)) for e in events]


CASES = [('device', 2, None), ('device', 3, None), ('local', 2, None), ('local', 5, None),
         ('device', 3, {'type': '2bit', 'threshold': 0.5})]


@pytest.mark.parametrize('kind,n_dev,compression', CASES,
                         ids=['%s-%d-%s' % (k, n, 'c' if c else 'dense') for k, n, c in CASES])
def test_allreduce_flat_equals_pushpull_of_each_key(kind, n_dev, compression):
    by_key, flat = _stores(kind, n_dev, compression)
    for step in range(3):
        devices = _devices(step, n_dev)
        grads_a = [[g.copy() for g in grads] for _, grads in devices]
        grads_b = [[g.copy() for g in grads] for _, grads in devices]
        groups = [FlatGroup(range(len(SHAPES)), [w.copy() for w in weights], grads)
                  for (weights, _), grads in zip(devices, grads_b)]
        want = _events(lambda: [by_key.pushpull(k, [g[k] for g in grads_a])
                                for k in range(len(SHAPES))])
        got = _events(lambda: flat.allreduce_flat(groups))
        assert got == want
        for a, b in zip(grads_a, groups):
            for x, y in zip(a, b.grads):
                np.testing.assert_array_equal(x.asnumpy(), y.asnumpy())
        for k, shape in enumerate(SHAPES):   # the stores keep the same values
            out_a, out_b = nd.zeros(shape), nd.zeros(shape)
            by_key.pull(k, out=out_a)
            flat.pull(k, out=out_b)
            np.testing.assert_array_equal(out_a.asnumpy(), out_b.asnumpy())
            if compression:
                for d in range(n_dev):
                    np.testing.assert_array_equal(
                        by_key.gradient_compression.residual(k, d).asnumpy(),
                        flat.gradient_compression.residual(k, d).asnumpy())
    # A push of one key afterwards continues from the residuals the flat pushes left.
    if compression:
        grads = [nd.ones(SHAPES[0], ctx=mx.cpu(d)) * 0.3 for d in range(n_dev)]
        by_key.pushpull(0, [g.copy() for g in grads])
        flat.pushpull(0, grads)
        for d in range(n_dev):
            np.testing.assert_array_equal(by_key.gradient_compression.residual(0, d).asnumpy(),
                                          flat.gradient_compression.residual(0, d).asnumpy())


def _update_both(by_key, flat, seed, n_dev):
    """One step of updates on both stores: pushpull key by key, and allreduce_flat; the
    devices' weights must come out the same."""
    devices = _devices(seed, n_dev)
    weights_a = [[w.copy() for w in weights] for weights, _ in devices]
    groups = [FlatGroup(range(len(SHAPES)), [w.copy() for w in weights],
                        [g.copy() for g in grads]) for weights, grads in devices]
    for k in range(len(SHAPES)):
        by_key.pushpull(k, [grads[k] for _, grads in devices], out=[w[k] for w in weights_a])
    flat.allreduce_flat(groups, update=True)
    for a, b in zip(weights_a, groups):
        for x, y in zip(a, b.weights):
            np.testing.assert_array_equal(x.asnumpy(), y.asnumpy())


@pytest.mark.parametrize('fused', [True, False])
@pytest.mark.parametrize('kind', ['device', 'local'])
def test_allreduce_flat_with_an_optimizer_on_the_store_updates_as_pushpull(kind, fused):
    optimizer = ('adam', )
    by_key, flat = _stores(kind, 2, optimizer=optimizer, fused=fused)
    for step in range(3):
        _update_both(by_key, flat, step, 2)
    assert flat.optimizer.num_update == by_key.optimizer.num_update == 3


ONE_PASS_CASES = [('device', 2, None), ('device', 3, None), ('local', 2, None),
                  ('local', 3, None), ('device', 2, {'type': '2bit', 'threshold': 0.5})]


@pytest.mark.parametrize('optimizer,in_pass', [(('adam',), True),
                                               (('sgd', 0.1, 0.9), True),
                                               (('lamb',), False)])
@pytest.mark.parametrize('kind,n_dev,compression', ONE_PASS_CASES,
                         ids=['%s-%d-%s' % (k, n, 'c' if c else 'dense')
                              for k, n, c in ONE_PASS_CASES])
def test_reduce_update_and_broadcast_in_one_pass_update_as_pushpull(
        kind, n_dev, compression, optimizer, in_pass, monkeypatch):
    """With a FusedUpdater on the store, the update's own pass sums the devices' gradients
    and writes every device's weights (a FlatReduction) where the store sums left to
    right and the step is one kernel; the numbers are those of pushpull, key by key."""
    name, *args = optimizer
    make = (lambda: mx.optimizer.create(name, learning_rate=args[0], momentum=args[1])) \
        if args else (lambda: mx.optimizer.create(name))
    by_key, flat = _stores(kind, n_dev, compression)
    by_key.set_optimizer(make())
    flat.set_optimizer(make(), fused=True)
    reductions = []
    original = FlatReduction.__init__

    def recording(self, *a, **kw):
        original(self, *a, **kw)
        reductions.append(self)
    monkeypatch.setattr(FlatReduction, '__init__', recording)
    for step in range(3):
        _update_both(by_key, flat, step, n_dev)
    sums_left_to_right = kind == 'device' or compression or n_dev <= 2
    assert len(reductions) == (3 if sums_left_to_right else 0)
    numba = flat._updater.last_paths[0][1] == 'fused:numba'
    for reduction in reductions:
        assert reduction.copied
        assert reduction.consumed == (in_pass and numba)
        assert reduction.summed == (not (in_pass and numba))


def test_a_reduction_the_pass_cannot_take_is_summed_by_the_store_first():
    """The NumPy backend sums nothing in its pass: the store's own sum runs, then the
    kernel, then the copies — the same numbers."""
    from gluonedu.optimizer._fused import FusedUpdater
    by_key, flat = _stores('device', 2)
    by_key.set_optimizer(mx.optimizer.create('adam'))
    flat.set_optimizer(mx.optimizer.create('adam'), fused=True)
    flat._set_updater(FusedUpdater(flat.optimizer, backend='numpy'))
    _update_both(by_key, flat, 0, 2)
    assert flat._updater.last_paths[0][1] == 'fused:numpy'


def test_allreduce_flat_update_needs_an_optimizer():
    kv = mx.kv.create('device')
    kv.init(0, nd.zeros((2,)))
    group = FlatGroup([0], [nd.zeros((2,))], [nd.ones((2,))])
    with pytest.raises(AssertionError, match='set_optimizer'):
        kv.allreduce_flat([group], update=True)


def test_keys_the_store_cannot_lay_out_go_key_by_key():
    kv = mx.kv.create('device')
    kv.init(0, nd.ones((2,), ctx=mx.cpu(0)))
    kv.init(1, nd.ones((3,), ctx=mx.cpu(1)))   # another home context
    groups = [FlatGroup([0, 1], [nd.zeros((2,), ctx=c), nd.zeros((3,), ctx=c)],
                        [nd.ones((2,), ctx=c) * (d + 1), nd.ones((3,), ctx=c) * (d + 1)])
              for d, c in enumerate([mx.cpu(0), mx.cpu(1)])]
    kv.allreduce_flat(groups)
    for g in groups:
        assert g.grad.tolist() == [3.0] * 5


# ---------------------------------------------------------------------------- Trainer
@pytest.mark.parametrize('update_on_kvstore', [None, False])
def test_the_trainer_reduces_flat_from_the_first_step(update_on_kvstore, monkeypatch):
    calls = []
    original = mx.kv.KVStore.allreduce_flat

    def counting(self, groups, update=False):
        calls.append((tuple(g.context for g in groups), update))
        return original(self, groups, update)
    monkeypatch.setattr(mx.kv.KVStore, 'allreduce_flat', counting)
    monkeypatch.setattr(mx.kv.KVStore, 'pushpull', None)   # no key-by-key pushpull at all
    ctx = [mx.cpu(0), mx.cpu(1)]
    net = gluon.nn.Dense(3, in_units=4)
    net.initialize(ctx=ctx)
    trainer = gluon.Trainer(net.collect_params(), 'sgd', {'momentum': 0.9},
                            update_on_kvstore=update_on_kvstore)
    for step in range(2):
        with autograd.record():
            losses = [net(nd.ones((2, 4), ctx=c)).sum() for c in ctx]
        autograd.backward(losses)
        trainer.step(4)
    assert calls == [(tuple(ctx), update_on_kvstore is None)] * 2


@pytest.mark.parametrize('dtype', [np.float32, np.float64, np.float16])
@pytest.mark.parametrize('n_parts', [2, 3])
def test_sum_and_copy_is_the_left_to_right_sum_in_every_buffer(dtype, n_parts):
    rng = np.random.RandomState(n_parts)
    group = FlatGroup(range(2), [nd.zeros((700,)), nd.zeros((300,))],
                      [nd.zeros((700,)), nd.zeros((300,))])
    parts = [(rng.randn(1000) * 10 ** rng.uniform(-3, 3, 1000)).astype(dtype)
             for _ in range(n_parts)]
    want = parts[0].copy()
    for part in parts[1:]:
        want += part
    store = np.empty(1000, dtype=dtype)
    outs = [store] + parts   # the first part is also written, as a device's gradient is
    sum_and_copy(list(parts), outs, group)
    for out in outs:
        np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize('kind,n_dev,one_pass', [('local', 2, True), ('device', 3, True),
                                                  ('local', 3, False)])
def test_the_store_reduces_and_broadcasts_in_one_pass_where_it_sums_left_to_right(
        kind, n_dev, one_pass, monkeypatch):
    from gluonedu import _numba
    from gluonedu.optimizer._fused import numba_backend
    if not _numba.available():
        pytest.skip('numba is not installed: the NumPy path sums')
    calls = []
    real = numba_backend.sum_and_copy
    monkeypatch.setattr(numba_backend, 'sum_and_copy',
                        lambda *args: calls.append(len(args[0])) or real(*args))
    _, flat = _stores(kind, n_dev)
    devices = _devices(0, n_dev)
    groups = [FlatGroup(range(len(SHAPES)), weights, grads) for weights, grads in devices]
    flat.allreduce_flat(groups)
    # 'local' sums MXNet's CPU way (groups of four) beyond two devices: not left to right
    assert calls == ([n_dev] if one_pass else [])
