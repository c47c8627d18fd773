"""SGLD and LBSGD on the fast path: their corner cases, beyond test_fused.py's CASES.

SGLD's fused step must draw the reference's very noise (same generator, same order) and
leave the generator where the reference leaves it. LBSGD's must keep the optimizer's
accumulation bookkeeping (``cumgrads``) as the reference keeps it, so that the
reference path or a saved state can take over at any call, and must decline runs whose
parameters are at different points of their accumulation.
"""
import numpy as np
import pytest

import gluonedu as mx
from gluonedu import autograd, gluon, nd
from gluonedu.base import MXNetError
from gluonedu.optimizer import Updater
from gluonedu.optimizer._fused import FusedUpdater

from test_fused import BACKENDS, SHAPES
from test_fused_trainer import _net, _weights, fresh_names  # noqa: F401 (autouse fixture)

LBSGD = dict(learning_rate=0.05, momentum=0.9, wd=1e-3, batch_scale=3, warmup_epochs=1,
             updates_per_epoch=4)


def _weights_for(dtype=np.float32, ctx=None, shapes=SHAPES):
    rng = np.random.RandomState(0)
    return [nd.array(rng.randn(*s), dtype=dtype, ctx=ctx) for s in shapes]


def _grads(rng, dtype=np.float32, ctx=None, shapes=SHAPES):
    return [nd.array(rng.randn(*s), dtype=dtype, ctx=ctx) for s in shapes]


def _same_bookkeeping(got, want):
    assert got._index_update_count == want._index_update_count
    assert got.num_update == want.num_update
    assert got.lbmult == want.lbmult
    assert sorted(got.cumgrads) == sorted(want.cumgrads)
    for index, entry in want.cumgrads.items():
        mine = got.cumgrads[index]
        assert mine['num_cums'] == entry['num_cums']
        if isinstance(entry['cum_grad'], nd.NDArray):
            assert mine['cum_grad'].shape == entry['cum_grad'].shape
            np.testing.assert_array_equal(mine['cum_grad'].asnumpy(), entry['cum_grad'].asnumpy())
        else:
            assert mine['cum_grad'] == entry['cum_grad'] == 0


# ---------------------------------------------------------------------------- SGLD
@pytest.mark.parametrize('backend', BACKENDS)
def test_sgld_draws_the_reference_noise_and_leaves_the_generator_as_it_does(backend):
    def run(cls, seed, ctx):
        mx.random.seed(seed)
        opt = mx.optimizer.create('sgld', learning_rate=0.1, wd=1e-3)
        opt.set_lr_mult({2: 0.0, 4: 3.0})   # lr 0: no noise at all for parameter 2
        updater = cls(opt, backend=backend) if cls is FusedUpdater else cls(opt)
        weights, rng = _weights_for(ctx=ctx), np.random.RandomState(1)
        for _ in range(3):
            updater(list(range(len(SHAPES))), _grads(rng, ctx=ctx), weights)
        after = mx.nd.random.normal(shape=(4,), ctx=ctx).asnumpy()  # the generator's next draw
        return [w.asnumpy() for w in weights], after, updater
    for ctx in (mx.cpu(0), mx.cpu(1)):   # each context has its own generator
        (got, got_next, updater), (want, want_next, _) = run(FusedUpdater, 4, ctx), \
            run(Updater, 4, ctx)
        assert updater.last_paths == [(tuple(range(len(SHAPES))), 'fused:' + backend)]
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
        np.testing.assert_array_equal(got_next, want_next)
    other, _, _ = run(FusedUpdater, 5, mx.cpu(0))
    assert not np.array_equal(other[4], got[4])   # the noise is really there


def test_sgld_with_its_sampler_replaced_takes_the_reference_path(monkeypatch):
    import gluonedu.ndarray.random as nd_random

    def zeros(loc=0, scale=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
        return nd.zeros(shape, ctx=ctx, dtype=dtype)
    monkeypatch.setattr(nd_random, 'normal', zeros)
    opt = mx.optimizer.create('sgld', learning_rate=0.5)
    updater = FusedUpdater(opt)
    weight = nd.ones((3,))
    updater([0], [nd.ones((3,))], [weight])
    assert updater.last_paths[0][1].startswith('reference: SGLD._noise or mx.nd.random.normal')
    np.testing.assert_array_equal(weight.asnumpy(), np.full(3, 0.75, dtype=np.float32))


def test_sgld_with_a_negative_clip_gradient_runs_the_reference_as_mxnet():
    # MXNet 1.9.1 accepts clip(g, 1, -1) (every element above a_max becomes a_max); the
    # fused path leaves this case to the reference, so both give the same weights.
    weights = []
    for cls in (FusedUpdater, Updater):
        mx.random.seed(7)
        updater = cls(mx.optimizer.create('sgld', clip_gradient=-1.0))
        weight = nd.zeros((3,))
        updater([0], [nd.ones((3,))], [weight])
        weights.append(weight.asnumpy())
    np.testing.assert_array_equal(weights[0], weights[1])


# ---------------------------------------------------------------------------- LBSGD
def _lbsgd_run(cls, backend, calls, dtype=np.float32, **kwargs):
    """LBSGD over ``calls`` (lists of indices, one per call); weights after every call."""
    opt = mx.optimizer.create('lbsgd', **dict(LBSGD, multi_precision=dtype == np.float16,
                                              lr_scheduler=mx.lr_scheduler.FactorScheduler(
                                                  step=3, factor=0.5, base_lr=0.05),
                                              **kwargs))
    opt.set_lr_mult({1: 0.5})
    opt.set_wd_mult({2: 3.0})
    updater = cls(opt, backend=backend) if cls is FusedUpdater else cls(opt)
    weights, rng = _weights_for(dtype), np.random.RandomState(1)
    history, paths = [], []
    for indices in calls:
        grads = _grads(rng, dtype)
        updater(indices, [grads[i] for i in indices], [weights[i] for i in indices])
        history.append([w.asnumpy().copy() for w in weights])
        paths.append(list(updater.last_paths) if cls is FusedUpdater else None)
    return history, paths, opt


@pytest.mark.parametrize('backend', BACKENDS)
@pytest.mark.parametrize('strategy', ['linear', 'lars'])
@pytest.mark.parametrize('dtype', [np.float32, np.float16], ids=['float32', 'float16-mp'])
def test_lbsgd_over_several_sums_keeps_the_reference_bookkeeping(backend, strategy, dtype):
    calls = [list(range(len(SHAPES)))] * 7   # sums close on calls 3 and 6
    got, paths, got_opt = _lbsgd_run(FusedUpdater, backend, calls, dtype,
                                     warmup_strategy=strategy)
    want, _, want_opt = _lbsgd_run(Updater, backend, calls, dtype, warmup_strategy=strategy)
    assert all(p == 'fused:' + backend for call in paths for _, p in call), paths
    for g_call, w_call in zip(got, want):
        for g, w in zip(g_call, w_call):
            np.testing.assert_array_equal(g, w)
    _same_bookkeeping(got_opt, want_opt)


@pytest.mark.parametrize('backend', BACKENDS)
def test_lbsgd_parameters_out_of_step_take_the_reference_path(backend):
    """batch_scale=3. Parameter 5 joins on call 1 while the others' sums are open:
    declined. Parameter 4 joins on call 3 as the others start new sums: fused, with its
    own num_cums (so its own warmup multiplier). Parameter 5 comes back on call 7, in step
    again (its sum, left by the reference path, is copied into the flat buffer)."""
    base = [0, 1, 2, 3]
    calls = [base, base + [5], base] + [base + [4]] * 4 + [base + [4, 5]] * 2
    got, paths, got_opt = _lbsgd_run(FusedUpdater, backend, calls)
    want, _, want_opt = _lbsgd_run(Updater, backend, calls)
    assert paths[1] == [((0, 1, 2, 3, 5), 'reference: parameters at different points of their '
                         'gradient accumulation (batch_scale=3): some step or start a sum '
                         'while others do not')]
    assert [p for k, call in enumerate(paths) if k != 1 for _, p in call] == \
        ['fused:' + backend] * (len(calls) - 1)
    for g_call, w_call in zip(got, want):
        for g, w in zip(g_call, w_call):
            np.testing.assert_array_equal(g, w)
    _same_bookkeeping(got_opt, want_opt)


@pytest.mark.parametrize('backend', BACKENDS)
def test_lbsgd_switching_paths_in_the_middle_of_a_sum(backend):
    """Calls alternate between the fused and the reference Updater (same optimizer and
    states): each picks up the sum the other left in ``cumgrads``."""
    def run(alternate):
        opt = mx.optimizer.create('lbsgd', **LBSGD)
        fused = FusedUpdater(opt, backend=backend)
        reference = Updater(opt)
        reference.states, reference.states_synced = fused.states, fused.states_synced
        weights, rng = _weights_for(), np.random.RandomState(1)
        indices = list(range(len(SHAPES)))
        for call in range(8):
            updater = reference if (alternate and call % 2) or not alternate else fused
            updater(indices, _grads(rng), weights)
        return [w.asnumpy() for w in weights], opt
    (got, got_opt), (want, want_opt) = run(True), run(False)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    _same_bookkeeping(got_opt, want_opt)


@pytest.mark.parametrize('backend', BACKENDS)
def test_lbsgd_states_saved_in_the_middle_of_a_sum(backend):
    def run(cls, save_after):
        opt = mx.optimizer.create('lbsgd', **LBSGD)
        updater = cls(opt, backend=backend) if cls is FusedUpdater else cls(opt)
        weights, rng = _weights_for(), np.random.RandomState(1)
        indices = list(range(len(SHAPES)))
        for call in range(5):
            updater(indices, _grads(rng), weights)
            if call == save_after:   # a fresh updater and optimizer from the saved bytes
                blob = updater.get_states(dump_optimizer=True)
                updater = cls(mx.optimizer.create('sgd'), backend=backend) \
                    if cls is FusedUpdater else cls(mx.optimizer.create('sgd'))
                updater.set_states(blob)
        return [w.asnumpy() for w in weights], updater.optimizer
    want, want_opt = run(Updater, None)
    for save_after in (0, 1, 2):
        got, got_opt = run(FusedUpdater, save_after)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
        _same_bookkeeping(got_opt, want_opt)


def test_lbsgd_sums_across_two_contexts_fail_as_in_the_reference():
    """One optimizer, two contexts: a sum opened on cpu(0) cannot take cpu(1)'s gradient.
    The fused path declines it, so the reference raises as it does without fused."""
    for cls in (FusedUpdater, Updater):
        opt = mx.optimizer.create('lbsgd', batch_scale=2)
        first, second = cls(opt), cls(opt)
        first([0], [nd.ones((3,), ctx=mx.cpu(0))], [nd.zeros((3,), ctx=mx.cpu(0))])
        with pytest.raises(MXNetError, match='different contexts'):
            second([0], [nd.ones((3,), ctx=mx.cpu(1))], [nd.zeros((3,), ctx=mx.cpu(1))])
        if cls is FusedUpdater:
            assert second.last_paths[0][1].startswith('reference: an accumulated gradient')


# ---------------------------------------------------------------------------- Trainer
def _train(fused, ctx, optimizer, optimizer_params, steps=5):
    mx.random.seed(11)   # SGLD's noise (and nothing else here) comes from mx.random
    net = _net(ctx)
    trainer = gluon.Trainer(net.collect_params(), optimizer, dict(optimizer_params),
                            fused=fused,
                            **({'update_on_kvstore': False} if len(ctx) > 1 else {}))
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    rng = np.random.RandomState(1)
    paths = []
    for _ in range(steps):
        x = rng.randn(4 * len(ctx), 5).astype(np.float32)
        y = rng.randint(0, 3, 4 * len(ctx)).astype(np.float32)
        with autograd.record():
            losses = [loss_fn(net(nd.array(x[i::len(ctx)], ctx=c)),
                              nd.array(y[i::len(ctx)], ctx=c)) for i, c in enumerate(ctx)]
        autograd.backward(losses)
        trainer.step(4 * len(ctx))
        if fused:
            paths += [p for u in trainer._updaters for _, p in u.last_paths]
    return _weights(net), paths


@pytest.mark.parametrize('optimizer,params,n_ctx', [
    ('sgld', dict(learning_rate=0.01, wd=1e-3), 1),
    ('sgld', dict(learning_rate=0.01, wd=1e-3), 2),
    ('lbsgd', dict(learning_rate=0.05, wd=1e-3, momentum=0.9, batch_scale=2,
                   warmup_epochs=1, updates_per_epoch=3), 1),
    ('lbsgd', dict(learning_rate=0.05, warmup_strategy='lars'), 2),
])
def test_trainer_fused_equals_reference(optimizer, params, n_ctx):
    ctx = [mx.cpu(i) for i in range(n_ctx)]
    got, paths = _train(True, ctx, optimizer, params)
    want, _ = _train(False, ctx, optimizer, params)
    assert paths and all(p.startswith('fused:') for p in paths), paths
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
