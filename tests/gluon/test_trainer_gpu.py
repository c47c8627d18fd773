"""Training on a GPU (CuPy) gives the numbers training on the CPU gives.

The same small network is trained on ``gpu(0)`` and on ``cpu(0)`` from the same
weights and data; the weights, optimizer states, instrumentation and saved states must
agree. The GPU step runs the fused CuPy kernels, the CPU step the readable reference.
Forward/backward on the GPU sums matrix products in cuBLAS's order, so after a few
steps the weights agree to float32 rounding, not bit for bit.

Every test is skipped, naming why, where CuPy or a CUDA GPU is missing.
"""
import numpy as np
import pytest

import gluonedu as mx
from gluonedu import autograd, gluon, nd
from gluonedu.instrument import Recorder

pytestmark = pytest.mark.skipif(mx.num_gpus() < 1,
                                reason='needs a CUDA GPU with CuPy (none here)')

OPTIMIZERS = [
    ('sgd', dict(momentum=0.9, wd=1e-3)),
    ('nag', dict(momentum=0.9, clip_gradient=0.5)),
    ('adam', dict(wd=1e-3)),
    ('adamw', dict(wd=1e-2)),
    ('rmsprop', dict(centered=True)),
    ('adagrad', dict()),
    ('lamb', dict(wd=1e-3)),
    ('ftrl', dict()),
    ('nadam', dict(wd=1e-3)),
]   # no sign-based rule (Signum): a gradient near 0 may take either sign on either device
STEPS = 4


def _net(ctx, dtype='float32'):
    with mx.name.NameManager():
        net = gluon.nn.HybridSequential()
        net.add(gluon.nn.Dense(16, activation='relu', in_units=8),
                gluon.nn.Dense(3, in_units=16))
    net.initialize(mx.init.Xavier(), ctx=ctx)
    rng = np.random.RandomState(0)
    for param in net.collect_params().values():   # identical start on every device
        param.set_data(nd.array(rng.uniform(-0.5, 0.5, param.shape)))
    if dtype != 'float32':
        net.cast(dtype)
    return net


def _batches(dtype='float32'):
    rng = np.random.RandomState(1)
    return [(rng.randn(32, 8).astype(dtype), rng.randint(0, 3, 32)) for _ in range(STEPS)]


def _train(ctx, optimizer, options, dtype='float32', **trainer_args):
    net = _net(ctx, dtype)
    trainer = gluon.Trainer(net.collect_params(), optimizer,
                            dict(learning_rate=0.05, **options), **trainer_args)
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    for x, y in _batches(dtype):
        with autograd.record():
            loss = loss_fn(net(nd.array(x, ctx=ctx, dtype=dtype)), nd.array(y, ctx=ctx))
        loss.backward()
        trainer.step(32)
    return net, trainer


def _weights(net):
    return [p.data().asnumpy().astype(np.float64) for p in net.collect_params().values()]


@pytest.mark.parametrize('optimizer,options', OPTIMIZERS, ids=[o for o, _ in OPTIMIZERS])
def test_training_on_gpu_equals_training_on_cpu(optimizer, options):
    gpu_net, gpu_trainer = _train(mx.gpu(0), optimizer, options)
    cpu_net, _ = _train(mx.cpu(0), optimizer, options, fused=False)
    for name, got, want in zip(gpu_net.collect_params(), _weights(gpu_net),
                               _weights(cpu_net)):
        np.testing.assert_allclose(got, want, rtol=2e-4, atol=2e-5, err_msg=name)
    for param in gpu_net.collect_params().values():
        assert param.data().context == mx.gpu(0)
    assert gpu_trainer.optimizer.num_update == STEPS


def test_float16_with_multi_precision_on_gpu():
    gpu_net, _ = _train(mx.gpu(0), 'adam', {'multi_precision': True}, dtype='float16')
    cpu_net, _ = _train(mx.cpu(0), 'adam', {'multi_precision': True}, dtype='float16',
                        fused=False)
    for got, want in zip(_weights(gpu_net), _weights(cpu_net)):
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=2e-3, atol=2e-3)
    for param in gpu_net.collect_params().values():
        assert param.data().dtype == np.float16


def test_store_runs_the_optimizer_on_gpu_arrays():
    """A 'device' store with update_on_kvstore runs the update where the weights live."""
    results = {}
    for ctx in (mx.gpu(0), mx.cpu(0)):
        kv = mx.kv.create('device')
        kv.set_optimizer(mx.optimizer.create('adam', learning_rate=0.1))
        kv.init(0, nd.ones((5, 4), ctx=ctx))
        rng = np.random.RandomState(2)
        out = nd.zeros((5, 4), ctx=ctx)
        for _ in range(3):
            kv.push(0, nd.array(rng.randn(5, 4), ctx=ctx))
            kv.pull(0, out=out)
        assert out.context == ctx
        results[str(ctx)] = out.asnumpy()
    np.testing.assert_allclose(results['gpu(0)'], results['cpu(0)'], rtol=1e-6, atol=1e-7)


def test_two_bit_compression_on_gpu_equals_cpu():
    results = {}
    for ctx in (mx.gpu(0), mx.cpu(0)):
        kv = mx.kv.create('device')
        kv.set_gradient_compression({'type': '2bit', 'threshold': 0.5})
        kv.init(0, nd.zeros((7, 9), ctx=ctx))
        rng = np.random.RandomState(3)
        out = nd.zeros((7, 9), ctx=ctx)
        pulled = []
        for _ in range(3):   # the residual carries over between pushes
            kv.push(0, nd.array(rng.randn(7, 9), ctx=ctx))
            kv.pull(0, out=out)
            pulled.append(out.asnumpy())
        results[str(ctx)] = pulled
    for got, want in zip(results['gpu(0)'], results['cpu(0)']):
        np.testing.assert_array_equal(got, want)


def test_recorder_reads_norms_and_nonfinite_counts_on_gpu():
    rows = {}
    for ctx, fused in ((mx.gpu(0), True), (mx.cpu(0), False)):
        net = _net(ctx)
        trainer = gluon.Trainer(net.collect_params(), 'sgd',
                                {'learning_rate': 0.1, 'momentum': 0.9}, fused=fused)
        x = nd.array(np.random.RandomState(4).randn(4, 8), ctx=ctx)
        with Recorder(trainer, norms=True) as rec:
            for poison in (False, True):
                with autograd.record():
                    loss = net(x).sum()
                loss.backward()
                if poison:
                    grad = net[1].bias.grad(ctx)
                    grad[:] = nd.array([np.nan, np.inf, 1.0], ctx=ctx)
                trainer.step(4)
        rows[str(ctx)] = rec.rows
    kinds = {r.event for r in rows['gpu(0)']}
    assert {'lr', 'norm', 'state_norm', 'nonfinite'} <= kinds, kinds
    nonfinite = [(r.param, r.value) for r in rows['gpu(0)'] if r.event == 'nonfinite']
    assert nonfinite == [(r.param, r.value) for r in rows['cpu(0)'] if r.event == 'nonfinite']
    assert [v for _, v in nonfinite] == [2]

    def norms(which):
        return {(r.step, r.event, r.name, r.param): r.value for r in rows[which]
                if r.event in ('norm', 'state_norm') and np.isfinite(r.value)}
    got, want = norms('gpu(0)'), norms('cpu(0)')
    assert got.keys() == want.keys()
    for key in want:
        np.testing.assert_allclose(got[key], want[key], rtol=1e-5, err_msg=str(key))


def test_states_saved_on_gpu_load_on_cpu(tmp_path):
    net, trainer = _train(mx.gpu(0), 'adam', {})
    path = str(tmp_path / 'adam.states')
    trainer.save_states(path)
    cpu_net = _net(mx.cpu(0))
    cpu_trainer = gluon.Trainer(cpu_net.collect_params(), 'adam', {'learning_rate': 0.05})
    cpu_trainer.load_states(path)
    assert cpu_trainer.optimizer.num_update == trainer.optimizer.num_update
    gpu_states = trainer._updaters[0].states
    cpu_states = cpu_trainer._updaters[0].states
    assert gpu_states.keys() == cpu_states.keys()
    for index in gpu_states:
        for got, want in zip(cpu_states[index], gpu_states[index]):
            np.testing.assert_array_equal(got.asnumpy(), want.asnumpy())
    with autograd.record():
        loss = cpu_net(nd.ones((2, 8))).sum()
    loss.backward()
    cpu_trainer.step(2)   # the states follow the weights onto the CPU
    for states in cpu_trainer._updaters[0].states.values():
        assert all(s.context == mx.cpu(0) for s in states)
