"""The lazy row_sparse fast path (``_fused/run.LazyRun``) equals the reference Updater.

Random shapes, random sorted unique row subsets (empty and all rows included), several
steps, lr_mult/wd_mult, a scheduler, clipping, rescale_grad and weight decay; runs that
mix row_sparse and dense gradients (SGD's multi-tensor chunks included); float32 and
float16 multi_precision; the NumPy path always and numba when installed: weights,
states and update counts bit-identical to the reference. Then the cases the lazy path
declines (reference path, with the reason), a Trainer with a sparse Embedding, and the
instrumentation events.
"""
import numpy as np
import pytest

import gluonedu as mx
from gluonedu import autograd, gluon, nd
from gluonedu.gluon import nn
from gluonedu.instrument.events import BUS
from gluonedu.optimizer import Updater
from gluonedu.optimizer._fused import FusedUpdater, numba_available

BACKENDS = ['numpy', pytest.param('numba', marks=pytest.mark.skipif(
    not numba_available(),
    reason="numba is not installed (pip install 'gluonedu[fast]') or GLUONEDU_NUMBA=0"))]

# (shape, row_sparse gradient?) per parameter. With SGD's aggregate_num of 4 the chunks
# are [0..3] (holding row_sparse gradients: one-tensor kernels) and [4..7] (all dense).
PARAMS = [((9, 3), True), ((5,), False), ((12, 2, 2), True), ((1, 4), True),
          ((6, 5), False), ((3,), False), ((4, 1), False), ((2, 3), False)]
SPARSE = [i for i, (_, sparse) in enumerate(PARAMS) if sparse]

CASES = [
    ('sgd', dict(momentum=0.9, wd=1e-3)),
    ('sgd', dict(wd=1e-3, clip_gradient=0.5, rescale_grad=0.5)),
    ('sgd', dict(momentum=0.9, wd=1e-3, clip_gradient=0.3, aggregate_num=3)),
    ('sgd', dict(wd=1e-3, aggregate_num=0)),      # not aggregated: one index at a time
    ('ccsgd', dict(momentum=0.5, wd=2e-3)),
    ('nag', dict(wd=1e-3, clip_gradient=0.5)),    # momentum 0: sgd_update, lazy
    ('adam', dict(wd=1e-3)),
    ('adam', dict(wd=1e-3, clip_gradient=0.3, rescale_grad=2.0)),
    ('adagrad', dict(wd=1e-3)),                   # row_sparse parameters get wd_mult 0
    ('adagrad', dict(clip_gradient=0.5, rescale_grad=0.5)),
]
STEPS = 5


def _rows(rng, n, step, p):
    """Sorted unique row ids: empty, all rows or a random subset, varying by step."""
    mode = (step + p) % 4
    if mode == 1:
        return np.arange(n)
    if mode == 2:
        return np.zeros(0, dtype=np.int64)
    return np.sort(rng.choice(n, rng.randint(1, n + 1), replace=False))


def _grads(rng, step, dtype):
    grads = []
    for p, (shape, sparse) in enumerate(PARAMS):
        if not sparse:
            grads.append(nd.array(rng.randn(*shape), dtype=dtype))
            continue
        rows = _rows(rng, shape[0], step, p)
        values = rng.randn(len(rows), *shape[1:]).astype(dtype)
        grads.append(nd.sparse.row_sparse_array((values, rows), shape=shape, dtype=dtype))
    return grads


def _run(cls, name, kwargs, dtype=np.float32, backend=None, steps=STEPS):
    kwargs = dict(kwargs)
    aggregate_num = kwargs.pop('aggregate_num', None)
    rng = np.random.RandomState(0)
    weights = [nd.array(rng.randn(*shape), dtype=dtype) for shape, _ in PARAMS]
    sched = mx.lr_scheduler.FactorScheduler(step=3, factor=0.5, base_lr=0.05)
    opt = mx.optimizer.create(name, learning_rate=0.05, lr_scheduler=sched,
                              multi_precision=dtype == np.float16, **kwargs)
    if aggregate_num is not None:
        opt.aggregate_num = aggregate_num
    opt.set_lr_mult({1: 0.5, 3: 2.0, 4: 1.5})
    # AdaGrad has no weight decay on row_sparse gradients (the reference raises).
    opt.set_wd_mult({i: 0.0 for i in SPARSE} if name == 'adagrad' else {0: 0.0, 2: 3.0})
    updater = cls(opt, backend=backend) if cls is FusedUpdater else cls(opt)
    grads_rng = np.random.RandomState(1)
    paths = set()
    for step in range(steps):
        updater(list(range(len(PARAMS))), _grads(grads_rng, step, dtype), weights)
        paths.update(path for _, path in getattr(updater, 'last_paths', []))
    states = [a.asnumpy() for i in range(len(PARAMS))
              for _, a in opt.named_states(updater.states[i], weights[i])]
    return [w.asnumpy() for w in weights], states, paths, opt


def _assert_same_run(got, want):
    (got_w, got_s, _, got_opt), (want_w, want_s, _, want_opt) = got, want
    assert len(got_s) == len(want_s)
    for g, w in zip(got_w + got_s, want_w + want_s):
        np.testing.assert_array_equal(g, w)
    assert got_opt._index_update_count == want_opt._index_update_count
    assert got_opt.num_update == want_opt.num_update


@pytest.mark.parametrize('backend', BACKENDS)
@pytest.mark.parametrize('name,kwargs', CASES, ids=['%s-%d' % (c[0], i) for i, c in
                                                    enumerate(CASES)])
def test_lazy_equals_reference(backend, name, kwargs):
    got = _run(FusedUpdater, name, kwargs, backend=backend)
    assert got[2] == {'fused-lazy:' + backend}, got[2]
    _assert_same_run(got, _run(Updater, name, kwargs))


@pytest.mark.parametrize('backend', BACKENDS)
@pytest.mark.parametrize('name,kwargs', [('adam', dict(wd=1e-3, clip_gradient=0.3)),
                                         ('adagrad', dict(clip_gradient=0.5))])
def test_lazy_float16_multi_precision_equals_reference(backend, name, kwargs):
    """The rule runs on the float32 master copy; the float16 weight receives it whole."""
    got = _run(FusedUpdater, name, kwargs, np.float16, backend=backend)
    assert got[2] == {'fused-lazy:' + backend}, got[2]
    _assert_same_run(got, _run(Updater, name, kwargs, np.float16))


def test_untouched_rows_keep_their_values():
    """Rows absent from the gradient: weight and states not written (no decay)."""
    opt = mx.optimizer.create('adam', learning_rate=0.1, wd=0.1)
    updater = FusedUpdater(opt, backend='numpy')
    weight = nd.array(np.arange(12.).reshape(6, 2))
    updater(0, nd.array(np.random.RandomState(0).randn(6, 2)), weight)  # moments != 0
    before = [weight.asnumpy()] + [s.asnumpy() for s in updater.states[0]]
    grad = nd.sparse.row_sparse_array((np.ones((2, 2), np.float32), [1, 4]), shape=(6, 2))
    updater(0, grad, weight)
    after = [weight.asnumpy()] + [s.asnumpy() for s in updater.states[0]]
    untouched = [0, 2, 3, 5]
    for b, a in zip(before, after):
        np.testing.assert_array_equal(a[untouched], b[untouched])
        assert (a[[1, 4]] != b[[1, 4]]).all()


@pytest.mark.parametrize('backend', BACKENDS)
def test_unsorted_row_ids_take_the_array_path(backend):
    """numba's parallel row loop needs increasing row ids; it declines others (writing
    nothing) and the array path computes the reference's numbers."""
    from gluonedu.ndarray.sparse import RowSparseNDArray

    def run(cls):
        opt = mx.optimizer.create('adam', learning_rate=0.1)
        updater = cls(opt, backend=backend) if cls is FusedUpdater else cls(opt)
        weight = nd.array(np.random.RandomState(0).randn(6, 2))
        values = np.random.RandomState(1).randn(3, 2).astype(np.float32)
        grad = RowSparseNDArray(values, np.array([4, 0, 2]), (6, 2), mx.cpu())
        for _ in range(2):
            updater(0, grad, weight)
        return [weight.asnumpy()] + [s.asnumpy() for s in updater.states[0]]
    for got, want in zip(run(FusedUpdater), run(Updater)):
        np.testing.assert_array_equal(got, want)


DECLINED = [
    ('sgd', dict(momentum=0.9, lazy_update=False), np.float32, 'lazy_update=False'),
    ('adam', dict(lazy_update=False), np.float32, 'lazy_update=False'),
    ('ftrl', dict(wd=1e-3), np.float32, 'Ftrl updates a dense weight densely'),
    ('sgd', dict(momentum=0.9), np.float16, 'float16 multi_precision SGD densifies'),
    ('nag', dict(momentum=0.9), np.float32, 'NAG with momentum'),
    ('nag', dict(), np.float16, 'float16 multi_precision NAG densifies'),
    ('lars', dict(momentum=0.9), np.float32, 'LARS has no lazy kernel'),
    ('rmsprop', dict(), np.float32, 'RMSProp has no lazy kernel'),
]


@pytest.mark.parametrize('name,kwargs,dtype,reason', DECLINED,
                         ids=['%s-%d' % (c[0], i) for i, c in enumerate(DECLINED)])
def test_declined_cases_run_the_reference(name, kwargs, dtype, reason):
    got = _run(FusedUpdater, name, kwargs, dtype, backend='numpy', steps=3)
    assert len(got[2]) == 1 and reason in got[2].pop()
    _assert_same_run(got, _run(Updater, name, kwargs, dtype, steps=3))


def test_adagrad_weight_decay_on_row_sparse_raises_as_the_reference():
    def step(cls):
        opt = mx.optimizer.create('adagrad', wd=0.1)
        grad = nd.sparse.row_sparse_array((np.ones((1, 2), np.float32), [0]), shape=(3, 2))
        with pytest.raises(ValueError, match='weight decay'):
            (cls(opt, backend='numpy') if cls is FusedUpdater else cls(opt))(
                0, grad, nd.ones((3, 2)))
        return opt._index_update_count
    assert step(FusedUpdater) == step(Updater) == {0: 1}


# ---------------------------------------------------------------------------- Trainer
def _embedding_net():
    net = nn.HybridSequential()
    net.add(nn.Embedding(50, 6, sparse_grad=True), nn.Dense(4, in_units=6, flatten=False))
    net.initialize()
    rng = np.random.RandomState(0)
    for p in net.collect_params().values():
        p.set_data(nd.array(rng.randn(*p.shape) * 0.3))
    return net


def _train_embedding(fused, optimizer, params, steps=4):
    with mx.name.NameManager():   # the same parameter names in both runs
        net = _embedding_net()
    dense_weight, = [p for name, p in net.collect_params().items()
                     if name.endswith('dense0_weight')]
    dense_weight.lr_mult = 0.5
    trainer = gluon.Trainer(net.collect_params(), optimizer, dict(params), fused=fused)
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    rng = np.random.RandomState(1)
    paths = set()
    for _ in range(steps):
        tokens = nd.array(rng.randint(0, 50, (8, 3)).astype(np.float32))
        labels = nd.array(rng.randint(0, 4, (8, 3)).astype(np.float32))
        with autograd.record():
            loss = loss_fn(net(tokens), labels)
        loss.backward()
        trainer.step(8)
        paths.update(p for u in trainer._updaters for _, p in getattr(u, 'last_paths', []))
    return [p.data().asnumpy() for p in net.collect_params().values()], paths


@pytest.mark.parametrize('optimizer,params', [
    ('adam', {'learning_rate': 0.05, 'wd': 1e-3}),
    ('sgd', {'learning_rate': 0.1, 'momentum': 0.9, 'wd': 1e-3}),
    ('sgd', {'learning_rate': 0.1, 'wd': 1e-3, 'clip_gradient': 0.1}),
    ('adagrad', {'learning_rate': 0.1}),
])
def test_trainer_with_sparse_embedding_equals_reference(optimizer, params):
    got, paths = _train_embedding(True, optimizer, params)
    want, _ = _train_embedding(False, optimizer, params)
    assert paths and all(p.startswith('fused-lazy:') for p in paths), paths
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_events_are_those_of_the_reference():
    def record(fused):
        events = []
        sub = BUS.subscribe(events.append, norms=True)
        try:
            _train_embedding(fused, 'adam', {'learning_rate': 0.05}, steps=2)
        finally:
            sub.remove()
        return [(e.kind, e.step, e.source, e.param, e.context, sorted(e.values))
                for e in events], [list(e.values.values()) for e in events]
    (fused_meta, fused_values), (ref_meta, ref_values) = record(True), record(False)
    assert fused_meta == ref_meta
    for got, want in zip(fused_values, ref_values):
        np.testing.assert_array_equal(got, want)
