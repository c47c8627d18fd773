"""SyncBatchNorm: a batch split over CPU contexts is normalized as one batch, its slices
meet as they are called, and what cannot work says what to do."""
import numpy as np
import pytest

import gluonedu as mx
from gluonedu import autograd, gluon
from gluonedu.gluon.contrib.nn import SyncBatchNorm

CTXS = [mx.cpu(0), mx.cpu(1)]


def _batch(shape=(8, 3, 5), seed=0):
    return mx.nd.array(np.random.RandomState(seed).normal(1, 2, size=shape))


def _sync_layer(**kwargs):
    layer = SyncBatchNorm(in_channels=3, num_devices=len(CTXS), **kwargs)
    layer.initialize(ctx=CTXS)
    return layer


def _run_slices(layer, batch):
    slices = gluon.utils.split_and_load(batch, CTXS)
    for x in slices:
        x.attach_grad()
    with autograd.record():
        outputs = [layer(x) for x in slices]
        losses = [(y * y * y).sum() for y in outputs]
    autograd.backward(losses)
    return slices, outputs


def test_the_slices_are_normalized_as_the_whole_batch():
    batch = _batch()
    whole = batch.copy()
    whole.attach_grad()
    reference = gluon.nn.BatchNorm(in_channels=3)
    reference.initialize()
    with autograd.record():
        loss = (reference(whole) ** 3).sum()
    loss.backward()
    layer = _sync_layer()
    slices, outputs = _run_slices(layer, batch)

    def joined(arrays):
        return np.concatenate([a.asnumpy() for a in arrays])
    with autograd.record():
        expected = reference(whole)
    np.testing.assert_allclose(joined(outputs), expected.asnumpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(joined([x.grad for x in slices]), whole.grad.asnumpy(),
                               rtol=1e-3, atol=1e-4)
    np.testing.assert_allclose(sum(g.asnumpy() for g in layer.gamma.list_grad()),
                               reference.gamma.grad().asnumpy(), rtol=1e-4, atol=1e-4)
    for ctx in CTXS:
        np.testing.assert_allclose(layer.running_var.data(ctx).asnumpy(),
                                   reference.running_var.data().asnumpy(), rtol=1e-5)


def test_an_output_read_before_the_last_slice_says_what_to_do():
    layer = _sync_layer()
    first, second = gluon.utils.split_and_load(_batch(), CTXS)
    with autograd.record():
        early = layer(first)
        with pytest.raises(mx.MXNetError, match='call the layer on every'):
            early.asnumpy()
    with pytest.raises(mx.MXNetError, match='dropped'):
        early.asnumpy()
    # The dropped slice does not leak into the next batch.
    slices, outputs = _run_slices(layer, _batch(seed=1))
    assert np.isfinite(outputs[0].asnumpy()).all()


def test_a_net_runs_layer_by_layer_over_the_slices_and_trains():
    net = gluon.nn.Sequential()
    net.add(gluon.nn.Conv2D(4, 3), SyncBatchNorm(num_devices=2), gluon.nn.Activation('relu'),
            gluon.nn.Dense(2))
    net.initialize(ctx=CTXS)
    trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1})
    xs = gluon.utils.split_and_load(_batch((4, 1, 6, 6)), CTXS)
    with autograd.record():
        for layer in net:
            xs = [layer(x) for x in xs]
        losses = [(y * y).sum() for y in xs]
    autograd.backward(losses)
    trainer.step(4)
    bn = net[1]
    np.testing.assert_allclose(bn.gamma.data(CTXS[0]).asnumpy(),
                               bn.gamma.data(CTXS[1]).asnumpy())
    assert bn.gamma.shape == (4,)


def test_one_backward_per_device_gives_the_gradients_of_one_backward_of_all():
    grads = []
    for per_device in (False, True):
        layer = _sync_layer()
        slices = gluon.utils.split_and_load(_batch(), CTXS)
        for x in slices:
            x.attach_grad()
        with autograd.record():
            outputs = [layer(x) for x in slices]
            losses = [(y ** 3).sum() for y in outputs]
        if per_device:
            losses[0].backward()
            assert not slices[0].grad.asnumpy().any()  # waits for the other device's
            losses[1].backward()
        else:
            autograd.backward(losses)
        grads.append([x.grad.asnumpy() for x in slices] +
                     [g.asnumpy() for g in layer.gamma.list_grad()])
    for joint, separate in zip(*grads):
        np.testing.assert_allclose(separate, joint, rtol=1e-6)


def test_a_backward_that_misses_a_device_is_reported_with_the_next_batch():
    layer = _sync_layer()
    slices = gluon.utils.split_and_load(_batch(), CTXS)
    for x in slices:
        x.attach_grad()
    with autograd.record():
        outputs = [layer(x) for x in slices]
    outputs[0].backward()
    with pytest.warns(RuntimeWarning, match='reached the outputs of 1 of its 2 parts'):
        with autograd.record():
            [layer(x) for x in slices]


def test_prediction_uses_the_running_statistics_of_each_device_at_once():
    layer = _sync_layer()
    x = _batch().as_in_context(CTXS[1])
    expected = (x.asnumpy() - 0) / np.sqrt(1 + 1e-5)
    np.testing.assert_allclose(layer(x).asnumpy(), expected, rtol=1e-6)


def test_one_device_hybridizes_and_more_do_not():
    batch = _batch()
    single = SyncBatchNorm(num_devices=1)
    single.initialize()
    with autograd.record():
        imperative = single(batch).asnumpy()
    single.hybridize()
    with autograd.record():
        np.testing.assert_allclose(single(batch).asnumpy(), imperative, rtol=1e-4, atol=1e-5)
    layer = _sync_layer()
    layer.hybridize()
    with pytest.raises(mx.MXNetError, match='cannot be hybridized'):
        layer(batch.as_in_context(CTXS[0]))


def test_num_devices_must_count_devices():
    for bad in (0, -1, 1.5, True, '2'):
        with pytest.raises(ValueError, match='num_devices'):
            SyncBatchNorm(num_devices=bad)
    with pytest.warns(UserWarning, match='num_devices'):
        layer = SyncBatchNorm()
    assert 'ndev=%d' % max(mx.num_gpus(), 1) in repr(layer)


def test_parts_of_different_batches_do_not_mix():
    layer = _sync_layer()
    with autograd.record():
        layer(_batch((4, 3, 5)).as_in_context(CTXS[0]))
        with pytest.raises(mx.MXNetError, match='differ in their batch size only'):
            layer(_batch((4, 3, 6)).as_in_context(CTXS[1]))


class _Residual(gluon.nn.Block):
    """conv → norm, added to the input: the norm's output meets a raw operation."""

    def __init__(self, norm):
        super().__init__()
        self.conv = gluon.nn.Conv2D(2, 3, padding=1, in_channels=2)
        self.norm = norm

    def forward(self, x):
        return mx.nd.relu(x + self.norm(self.conv(x)))


def test_one_thread_per_device_waits_for_the_others_as_mxnet():
    from concurrent.futures import ThreadPoolExecutor
    batch = _batch((4, 2, 5, 5))
    reference = _Residual(gluon.nn.BatchNorm(in_channels=2))
    reference.initialize()
    whole = batch.copy()
    with autograd.record():
        loss = (reference(whole) ** 2).sum()
    loss.backward()
    net = _Residual(SyncBatchNorm(in_channels=2, num_devices=2))
    net.initialize(ctx=CTXS)
    net.conv.weight.set_data(reference.conv.weight.data())

    def device_step(x):
        with autograd.record():
            device_loss = (net(x) ** 2).sum()
        device_loss.backward()
        return device_loss.asscalar()

    with ThreadPoolExecutor(len(CTXS)) as pool:
        losses = list(pool.map(device_step, gluon.utils.split_and_load(batch, CTXS)))
    np.testing.assert_allclose(sum(losses), loss.asscalar(), rtol=1e-5)
    np.testing.assert_allclose(sum(g.asnumpy() for g in net.conv.weight.list_grad()),
                               reference.conv.weight.grad().asnumpy(), rtol=1e-4, atol=1e-4)
