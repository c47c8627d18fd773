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
from gluonedu.optimizer.flat import (CPU_REDUCER, LEFT_TO_RIGHT, FlatGroup, StoreSum,
                                     sum_in_order)

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
    """With a FusedUpdater on the store, the store declares its sum (a StoreSum: the
    devices' gradients, its order, the devices' weights); the update's own pass sums
    them and writes every device's weights where the order is left to right and the
    step is one numba kernel, else the declared sum is written first; the numbers are
    those of pushpull, key by key."""
    from gluonedu.optimizer._fused import numba_backend
    name, *args = optimizer
    make = (lambda: mx.optimizer.create(name, learning_rate=args[0], momentum=args[1])) \
        if args else (lambda: mx.optimizer.create(name))
    by_key, flat = _stores(kind, n_dev, compression)
    by_key.set_optimizer(make())
    flat.set_optimizer(make(), fused=True)
    summed_first, taken = [], []
    monkeypatch.setattr(StoreSum, 'sum_into', lambda self, out, real=StoreSum.sum_into:
                        summed_first.append(self) or real(self, out))
    real_run = numba_backend.NumbaBackend.run

    def run(backend, *a, store_sum=None, **kw):
        if store_sum is not None:
            taken.append(store_sum)
        return real_run(backend, *a, store_sum=store_sum, **kw)
    monkeypatch.setattr(numba_backend.NumbaBackend, 'run', run)
    for step in range(3):
        _update_both(by_key, flat, step, n_dev)
    left_to_right = kind == 'device' or compression or n_dev <= 2
    numba = flat._updater.last_paths[0][1] == 'fused:numba'
    one_pass = in_pass and numba and left_to_right
    assert len(taken) == (3 if one_pass else 0)
    assert len(summed_first) == (0 if one_pass else 3)
    for store_sum in taken + summed_first:
        assert store_sum.left_to_right == bool(left_to_right)
        assert store_sum.order == (LEFT_TO_RIGHT if kind == 'device' or compression
                                   else CPU_REDUCER)
        assert len(store_sum.parts) == len(store_sum.copies) == n_dev


def test_a_sum_the_pass_cannot_take_is_written_first():
    """The NumPy backend sums nothing in its pass: the declared sum is written into the
    gradient buffer, then the kernel runs, then the copies — the same numbers."""
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


def _parts(dtype, n_parts, size=1000):
    rng = np.random.RandomState(n_parts)
    return [(rng.randn(size) * 10 ** rng.uniform(-3, 3, size)).astype(dtype)
            for _ in range(n_parts)]


@pytest.mark.parametrize('n_parts', [2, 3, 5, 6, 9])
def test_sum_in_order_adds_as_the_store_declares(n_parts):
    parts = _parts(np.float32, n_parts)
    left = parts[0].copy()
    for part in parts[1:]:
        left += part
    # MXNet's CPU reducer: the first part, plus each group of four summed on its own
    cpu = parts[0].copy()
    for start in range(1, n_parts, 4):
        group = parts[start:start + 4]
        partial = group[0].copy()
        for part in group[1:]:
            partial += part
        cpu += partial
    np.testing.assert_array_equal(sum_in_order(parts, LEFT_TO_RIGHT), left)
    np.testing.assert_array_equal(sum_in_order(parts, CPU_REDUCER), cpu)
    out = parts[0].copy()
    assert sum_in_order([out] + parts[1:], CPU_REDUCER, out=out) is out
    np.testing.assert_array_equal(out, cpu)
    assert StoreSum(parts, CPU_REDUCER, []).left_to_right == (n_parts <= 2)
    with pytest.raises(ValueError, match='LEFT_TO_RIGHT'):
        StoreSum(parts, 'right to left', [])


@pytest.mark.parametrize('numba', [True, False])
@pytest.mark.parametrize('dtype', [np.float32, np.float64, np.float16])
@pytest.mark.parametrize('n_parts', [2, 3])
def test_an_all_reduce_writes_the_declared_sum_in_every_buffer(dtype, n_parts, numba,
                                                               monkeypatch):
    """StoreSum.write: numba's one pass and the NumPy path give the bits of the declared
    sum, also where a part is also a copy (as a device's gradient is)."""
    from gluonedu import _numba
    if numba and not _numba.available():
        pytest.skip('numba is not installed')
    if not numba:
        monkeypatch.setattr(_numba, 'available', lambda: False)
    group = FlatGroup(range(2), [nd.zeros((700,)), nd.zeros((300,))],
                      [nd.zeros((700,)), nd.zeros((300,))])
    parts = _parts(dtype, n_parts)
    want = sum_in_order(parts, LEFT_TO_RIGHT)
    store = np.empty(1000, dtype=dtype)
    copies = [store] + parts
    StoreSum(list(parts), LEFT_TO_RIGHT, copies).write(group)
    for copy in copies:
        np.testing.assert_array_equal(copy, want)


@pytest.mark.parametrize('optimizer', [('adam',), ('sgd', 0.1, 0.9), ('rmsprop',)])
@pytest.mark.parametrize('order', [LEFT_TO_RIGHT, CPU_REDUCER])
def test_an_update_with_a_declared_sum_is_the_same_on_every_path(optimizer, order):
    """update_reduced: numba's one pass (the sum compiled into the kernel's loop), the
    NumPy backend and the reference Updater (the declared sum written first) leave the
    same bits in the weights, the states and the copies."""
    from gluonedu import _numba
    from gluonedu.optimizer import Updater
    from gluonedu.optimizer._fused import FusedUpdater
    name, *args = optimizer
    settings = dict(zip(('learning_rate', 'momentum'), args))
    backends = ['numba', 'numpy'] if _numba.available() else ['numpy']
    results = []
    for backend in backends + ['reference']:
        opt = mx.optimizer.create(name, **settings)
        updater = Updater(opt) if backend == 'reference' else FusedUpdater(opt, backend)
        rng = np.random.RandomState(0)
        group = FlatGroup(range(len(SHAPES)), _arrays(rng, mx.cpu(0)),
                          [nd.zeros(s) for s in SHAPES])
        if backend != 'reference':
            updater.use_flat_groups([group])
        copies = [np.zeros(group.size, np.float32) for _ in range(2)]
        for step in range(3):
            parts = [rng.randn(group.size).astype(np.float32) for _ in range(3)]
            updater.update_reduced(group, StoreSum(parts, order, copies))
            for copy in copies:
                np.testing.assert_array_equal(copy, group.weight)
        states = [a.asnumpy() for i in range(len(SHAPES))
                  for _, a in opt.named_states(updater.states[i])]
        results.append((group.weight.copy(), states))
        if backend != 'reference':
            assert updater.last_paths[0][1] == 'fused:' + backend
    for weight, states in results[1:]:
        np.testing.assert_array_equal(weight, results[0][0])
        for a, b in zip(states, results[0][1]):
            np.testing.assert_array_equal(a, b)


class _OverlappingStore(mx.kv.KVStoreBase):
    """A custom store whose pushpull takes many keys in one call (as the distributed
    stores, ``overlaps_keys``), summing left to right; it records its calls."""
    overlaps_keys = True

    def __init__(self):
        self.calls = []

    def pushpull(self, key, value, out=None, priority=0):
        self.calls.append(key)
        for values, outs in zip(value, value if out is None else out):
            total = values[0].copy()
            for v in values[1:]:
                total += v.as_in_context(total.context)
            for o in outs:
                o[:] = total


def test_the_base_allreduce_flat_is_a_pushpull_of_each_key():
    """KVStoreBase.allreduce_flat: a store that overlaps keys gets one pushpull of every
    key, a TestStore a pushpull per key; either way the sums of pushpull key by key."""
    devices = _devices(0, 3)
    want = [sum_in_order([grads[k].asnumpy() for _, grads in devices], LEFT_TO_RIGHT)
            for k in range(len(SHAPES))]
    for store in (_OverlappingStore(), mx.kv.create('teststore')):
        groups = [FlatGroup(range(len(SHAPES)), [w.copy() for w in weights],
                            [g.copy() for g in grads]) for weights, grads in devices]
        store.allreduce_flat(groups)
        for g in groups:
            for k, grad in enumerate(g.grads):
                np.testing.assert_array_equal(grad.asnumpy(), want[k])
    assert store.type == 'teststore'
    groups = [FlatGroup(range(len(SHAPES)), [w.copy() for w in weights],
                        [g.copy() for g in grads]) for weights, grads in devices]
    overlapping = _OverlappingStore()
    overlapping.allreduce_flat(groups, update=True)   # the weights receive the result
    assert overlapping.calls == [list(range(len(SHAPES)))]
    for g in groups:
        for k, weight in enumerate(g.weights):
            np.testing.assert_array_equal(weight.asnumpy(), want[k])


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
