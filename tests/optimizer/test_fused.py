"""The fused fast paths equal the readable reference optimizers.

Every optimizer with a fused kernel, on random inputs over several steps, float32 and
float16 with multi_precision, with lr_mult/wd_mult and an lr scheduler: the
FusedUpdater (NumPy flat path always; numba when installed) against the reference
Updater. Where the math runs in the same order the results are bit-identical; the
numba LAMB/LARS trust ratios sum their norms in another order (rtol 1e-6). Each run
starts from ``mx.random.seed(0)``, so that SGLD draws the same noise on both paths.
SGLD's and LBSGD's own corner cases are in test_fused_sgld_lbsgd.py.
"""
import numpy as np
import pytest

import gluonedu as mx
from gluonedu import nd
from gluonedu.optimizer import Updater
from gluonedu.optimizer._fused import FusedUpdater, numba_available
from gluonedu.optimizer.fastpath import has_fast_path

BACKENDS = ['numpy', pytest.param('numba', marks=pytest.mark.skipif(
    not numba_available(),
    reason="numba is not installed (pip install 'gluonedu[fast]') or GLUONEDU_NUMBA=0"))]

CASES = [
    ('sgd', dict(momentum=0.9, wd=1e-3)),
    ('sgd', dict(wd=1e-3, clip_gradient=0.5)),
    ('nag', dict(momentum=0.9, wd=1e-3, clip_gradient=0.5)),
    ('nag', dict(wd=1e-3)),
    ('lars', dict(momentum=0.9, wd=1e-3)),
    ('signum', dict(wd=1e-3, wd_lh=1e-3)),
    ('signum', dict(momentum=0.0, wd=1e-3, clip_gradient=0.5)),
    ('dcasgd', dict(momentum=0.9, wd=1e-3)),
    ('dcasgd', dict(wd=1e-3, clip_gradient=0.5)),
    ('sgld', dict(wd=1e-3)),
    ('sgld', dict(wd=1e-3, clip_gradient=0.5)),
    # LBSGD over 4 calls: steps on calls 2 and 4 (linear warmup over 3 sums) ...
    ('lbsgd', dict(momentum=0.9, wd=1e-3, batch_scale=2, warmup_epochs=1,
                   updates_per_epoch=3)),
    # ... on call 1 (num_cums starts at begin_epoch * updates_per_epoch + 1 = 3), no momentum
    ('lbsgd', dict(wd=1e-3, clip_gradient=0.5, batch_scale=3, warmup_strategy='power2',
                   warmup_epochs=2, updates_per_epoch=2, begin_epoch=1)),
    ('lbsgd', dict(momentum=0.9, wd=1e-3, batch_scale=2, warmup_strategy='lars')),
    ('lbsgd', dict(momentum=0.5, warmup_strategy='sqrt', warmup_epochs=1,
                   updates_per_epoch=8)),
    ('adam', dict(wd=1e-3)),
    ('adam', dict(clip_gradient=0.3)),
    ('adamw', dict(wd=1e-2)),
    ('adamw', dict(wd=1e-2, clip_gradient=0.3, correct_bias=False, epsilon=1e-8)),
    ('adamax', dict(wd=1e-3, clip_gradient=0.5)),
    ('nadam', dict(wd=1e-3)),
    ('lamb', dict(wd=1e-3, lower_bound=0.1, upper_bound=10.)),
    ('lamb', dict(bias_correction=False, clip_gradient=0.5)),
    ('rmsprop', dict(wd=1e-3, clip_gradient=0.5)),
    ('rmsprop', dict(centered=True, clip_weights=0.5)),
    ('adagrad', dict(wd=1e-3)),
    ('adadelta', dict(wd=1e-3, clip_gradient=0.5)),
    ('ftml', dict(wd=1e-3)),
    ('ftrl', dict(wd=1e-3, clip_gradient=0.5)),
]
SHAPES = [(6, 5), (5,), (3, 2, 4), (1,), (40000,), (7, 3)]  # one spans two chunks
LOOSE = {'lamb', 'lars'}  # trust ratios from reordered sums under numba


def _run(updater_cls, name, kwargs, dtype, multi_precision, steps=4, backend=None,
         scheduler=False):
    mx.random.seed(0)   # SGLD's noise: the same draws on every path
    rng = np.random.RandomState(0)
    weights = [nd.array(rng.randn(*s), dtype=dtype) for s in SHAPES]
    sched = mx.lr_scheduler.FactorScheduler(step=2, factor=0.5, base_lr=0.05) \
        if scheduler else None
    opt = mx.optimizer.create(name, learning_rate=0.05, multi_precision=multi_precision,
                              lr_scheduler=sched, **kwargs)
    opt.set_lr_mult({1: 0.5, 3: 2.0})
    opt.set_wd_mult({0: 0.0, 2: 3.0})
    updater = updater_cls(opt, backend=backend) if updater_cls is FusedUpdater \
        else updater_cls(opt)
    grads_rng = np.random.RandomState(1)
    for _ in range(steps):
        grads = [nd.array(grads_rng.randn(*s), dtype=dtype) for s in SHAPES]
        updater(list(range(len(SHAPES))), grads, weights)
    states = [a.asnumpy() for i in range(len(SHAPES))
              for _, a in opt.named_states(updater.states[i], weights[i])]
    return [w.asnumpy() for w in weights], states, updater, opt


def _assert_same(name, backend, got, want):
    for g, w in zip(got, want):
        if name in LOOSE and backend == 'numba':
            np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-7)
        else:
            np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize('backend', BACKENDS)
@pytest.mark.parametrize('name,kwargs', CASES, ids=['%s-%d' % (c[0], i) for i, c in
                                                    enumerate(CASES)])
@pytest.mark.parametrize('dtype,mp', [(np.float32, False), (np.float16, True)],
                         ids=['float32', 'float16-mp'])
def test_fused_equals_reference(backend, name, kwargs, dtype, mp):
    scheduler = name not in ('adadelta',)
    want_w, want_s, _, want_opt = _run(Updater, name, kwargs, dtype, mp, scheduler=scheduler)
    got_w, got_s, updater, got_opt = _run(FusedUpdater, name, kwargs, dtype, mp,
                                          backend=backend, scheduler=scheduler)
    assert all(path.startswith('fused:' + backend) for _, path in updater.last_paths), \
        updater.last_paths
    _assert_same(name, backend, got_w, want_w)
    _assert_same(name, backend, got_s, want_s)
    assert got_opt._index_update_count == want_opt._index_update_count
    assert got_opt.num_update == want_opt.num_update


@pytest.mark.parametrize('backend', BACKENDS)
def test_sgd_chunks_count_like_the_reference(backend, monkeypatch):
    """SGD counts a chunk of aggregate_num parameters before reading lrs; uneven counts
    (a parameter that joined later) make that visible through the scheduler."""
    def run(cls):
        sched = mx.lr_scheduler.FactorScheduler(step=1, factor=0.5, base_lr=0.1)
        opt = mx.optimizer.create('sgd', momentum=0.9, lr_scheduler=sched)
        updater = cls(opt, backend=backend) if cls is FusedUpdater else cls(opt)
        rng = np.random.RandomState(0)
        weights = [nd.array(rng.randn(4)) for _ in range(7)]
        for step in range(4):
            indices = list(range(7)) if step else [5, 6]
            updater(indices, [nd.array(rng.randn(4)) for _ in indices],
                    [weights[i] for i in indices])
        return [w.asnumpy() for w in weights]
    for got, want in zip(run(FusedUpdater), run(Updater)):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize('backend', BACKENDS)
def test_row_sparse_takes_the_reference_path(backend):
    """Row_sparse cases the lazy path declines run the reference code (and say so in
    last_paths); the lazy fast path itself is tested in test_fused_lazy.py."""
    def run(cls):
        opt = mx.optimizer.create('adam', learning_rate=0.1, lazy_update=False)
        updater = cls(opt, backend=backend) if cls is FusedUpdater else cls(opt)
        rng = np.random.RandomState(0)
        weights = [nd.array(rng.randn(6, 3)), nd.array(rng.randn(4))]
        for _ in range(3):
            rows = nd.array(rng.randn(2, 3))
            sparse = nd.sparse.row_sparse_array((rows, nd.array([1, 4], dtype='int64')),
                                                shape=(6, 3))
            updater([0, 1], [sparse, nd.array(rng.randn(4))], weights)
        return [w.asnumpy() for w in weights], updater
    (got, updater), (want, _) = run(FusedUpdater), run(Updater)
    assert updater.last_paths == [((0, 1), 'reference: lazy_update=False (a row_sparse '
                                           'gradient then counts as dense)')]
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_optimizers_without_kernels_run_the_reference():
    opt = mx.optimizer.create('test')
    updater = FusedUpdater(opt)
    updater([0], [nd.ones((3,))], [nd.zeros((3,))])
    assert updater.last_paths == [((0,), 'reference: Test has no fused kernel')]
    assert not has_fast_path(opt)


def test_every_built_in_optimizer_but_test_has_a_fused_kernel():
    built_in = {name: cls for name, cls in mx.optimizer.Optimizer.opt_registry.items()
                if cls.__module__.startswith('gluonedu.optimizer.')}
    assert {name for name, cls in built_in.items() if 'fused_step' not in vars(cls)} == {'test'}


def test_float16_without_multi_precision_runs_the_reference():
    opt = mx.optimizer.create('sgd', momentum=0.9)
    updater = FusedUpdater(opt, backend='numpy')
    with pytest.warns(UserWarning, match='float16'):
        updater([0], [nd.ones((3,), dtype='float16')], [nd.zeros((3,), dtype='float16')])
    assert updater.last_paths == [((0,), 'reference: float16 without multi_precision')]


def test_weights_become_views_of_one_buffer():
    opt = mx.optimizer.create('adam')
    updater = FusedUpdater(opt, backend='numpy')
    weights = [nd.ones((2, 3)), nd.ones((4,))]
    updater([0, 1], [nd.ones((2, 3)), nd.ones((4,))], weights)
    (run,) = updater.flat_runs()
    assert run.group.weight.size == 10
    assert all(np.shares_memory(w._data, run.group.weight) for w in weights)
    mean, var = updater.states[1]
    assert np.shares_memory(mean._data, run.state_buffers['mean'])


def test_csr_gradients_take_the_reference_path():
    def run(cls):
        opt = mx.optimizer.create('sgd', learning_rate=0.1, momentum=0.9, wd=1e-3)
        updater = cls(opt, backend='numpy') if cls is FusedUpdater else cls(opt)
        weight = nd.array(np.arange(12.).reshape(3, 4))
        dense = np.zeros((3, 4), dtype=np.float32)
        dense[[0, 2], [1, 3]] = [0.5, -1.0]
        for _ in range(2):
            updater(0, nd.array(dense).tostype('csr'), weight)
        return weight.asnumpy(), updater
    (got, updater), (want, _) = run(FusedUpdater), run(Updater)
    assert updater.last_paths == [((0,), 'reference: csr gradients (the reference updates '
                                         'them as dense arrays)')]
    np.testing.assert_array_equal(got, want)
