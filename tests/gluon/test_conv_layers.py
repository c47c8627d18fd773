"""Convolution, pooling and normalization layers in training: deferred shapes, BatchNorm's
running statistics and the Trainer, wd_mult=0 for gamma/beta, the Recorder and plots,
HybridConcurrent, and the model zoo's pretrained weights (on disk only)."""
import os

import numpy as np
import pytest

import gluonedu as mx
from gluonedu import autograd, gluon, nd
from gluonedu.base import MXNetError
from gluonedu.gluon import nn
from gluonedu.gluon.contrib.nn import Concurrent, HybridConcurrent, Identity
from gluonedu.gluon.model_zoo import vision
from gluonedu.instrument import Recorder


def _small_cnn():
    net = nn.HybridSequential(prefix='cnn_')
    with net.name_scope():
        net.add(nn.Conv2D(4, 3, padding=1, use_bias=False), nn.BatchNorm(),
                nn.Activation('relu'), nn.MaxPool2D(), nn.Flatten(), nn.Dense(3))
    return net


def _batch(seed=0, n=8):
    rng = np.random.RandomState(seed)
    return nd.array(rng.standard_normal((n, 2, 6, 6))), nd.array(rng.randint(0, 3, n))


# ---------------------------------------------------------------------- layers
def test_deferred_in_channels_are_taken_from_the_first_input():
    net = _small_cnn()
    params = net.collect_params()
    assert params['cnn_conv0_weight'].shape == (4, 0, 3, 3)
    assert params['cnn_batchnorm0_gamma'].shape == (0,)
    net.initialize()
    net(_batch()[0])
    assert params['cnn_conv0_weight'].shape == (4, 2, 3, 3)
    assert params['cnn_batchnorm0_running_var'].shape == (4,)
    assert params['cnn_dense0_weight'].shape == (3, 36)


@pytest.mark.parametrize('make,message', [
    (lambda: nn.Conv2D(4, (3, 3, 3)), 'kernel_size must be a number or a list of 2 ints'),
    (lambda: nn.Conv1D(4, 3, layout='NWC'), "Only supports 'NCW' layout"),
    (lambda: nn.MaxPool2D(layout='NCW'), 'Only NCHW and NHWC layouts'),
    (lambda: nn.ReflectionPad2D((1, 2)), 'padding'),
])
def test_bad_layer_arguments_assert_as_mxnet(make, message):
    with pytest.raises(AssertionError, match=message):
        make()


def test_channel_mismatch_names_the_shapes():
    conv = nn.Conv2D(4, 3, in_channels=3)
    conv.initialize()
    with pytest.raises(MXNetError, match=r'weight has shape \(4, 3, 3, 3\), expected '
                                         r'\(4, 2, 3, 3\)'):
        conv(nd.ones((1, 2, 5, 5)))


def test_concurrent_containers_concatenate_their_children():
    x = _batch()[0]
    for container in (HybridConcurrent(axis=1), Concurrent(axis=1)):
        with container.name_scope():
            container.add(nn.Conv2D(3, 1), Identity(), nn.Conv2D(5, 3, padding=1))
        container.initialize()
        y = container(x)
        assert y.shape == (8, 10, 6, 6)
        np.testing.assert_array_equal(y[:, 3:5].asnumpy(), x.asnumpy())


# ---------------------------------------------------------------------- BatchNorm + Trainer
@pytest.mark.parametrize('fused', [True, False])
def test_trainer_leaves_running_statistics_to_batch_norm(fused):
    net = _small_cnn()
    net.initialize(mx.init.Xavier())
    params = net.collect_params()
    trainer = gluon.Trainer(params, 'sgd', {'learning_rate': 0.5, 'momentum': 0.9},
                            fused=fused)
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    expected_mean = np.zeros(4)
    for step in range(3):
        x, y = _batch(step)
        with autograd.record():
            features = net[0](x)  # the convolution's output: what BatchNorm normalizes
            loss = loss_fn(net(x), y)
        loss.backward()
        expected_mean = 0.9 * expected_mean + 0.1 * features.asnumpy().mean(axis=(0, 2, 3))
        trainer.step(x.shape[0])
    running = params['cnn_batchnorm0_running_mean']
    assert running.grad_req == 'null'
    np.testing.assert_allclose(running.data().asnumpy(), expected_mean, rtol=1e-4, atol=1e-6)


def test_wd_mult_zero_keeps_weight_decay_off_gamma_and_beta():
    net = _small_cnn()
    net.initialize(mx.init.Xavier())
    x, _ = _batch()
    net(x)
    params = net.collect_params()
    params.setattr('grad_req', 'write')  # (running stats stay 'null': not differentiable)
    net.collect_params('.*gamma|.*beta').setattr('wd_mult', 0.0)
    before = {name: p.data().asnumpy().copy() for name, p in params.items()}
    trainer = gluon.Trainer(params, 'sgd', {'learning_rate': 0.1, 'wd': 0.5})
    with autograd.record():
        loss = 0 * net(x).sum()  # zero gradients: only weight decay moves the weights
    loss.backward()
    trainer.step(1)
    weight = 'cnn_conv0_weight'
    np.testing.assert_allclose(params[weight].data().asnumpy(), before[weight] * (1 - 0.05),
                               rtol=1e-6)
    for name in ('cnn_batchnorm0_gamma', 'cnn_batchnorm0_beta'):
        np.testing.assert_array_equal(params[name].data().asnumpy(), before[name])


def test_recorder_sees_gamma_and_beta_and_not_the_running_statistics():
    net = _small_cnn()
    net.initialize(mx.init.Xavier())
    net.collect_params('.*gamma|.*beta').setattr('wd_mult', 0.0)
    trainer = gluon.Trainer(net.collect_params(), 'adam', {'learning_rate': 0.01, 'wd': 1e-3})
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    with Recorder(trainer, norms=True) as rec:
        for step in range(2):
            x, y = _batch(step)
            with autograd.record():
                loss = loss_fn(net(x), y)
            loss.backward()
            trainer.step(x.shape[0])
    rows = rec.rows
    params_seen = {r.param for r in rows if r.event == 'norm'}
    assert {'cnn_batchnorm0_gamma', 'cnn_batchnorm0_beta', 'cnn_conv0_weight'} <= params_seen
    assert not any('running' in str(r.param) for r in rows)
    wd = {r.param: r.value for r in rows if r.event == 'wd'}
    assert wd['cnn_batchnorm0_gamma'] == wd['cnn_batchnorm0_beta'] == 0.0
    assert wd['cnn_conv0_weight'] == pytest.approx(1e-3)
    _, lr = rec.series('lr', 'lr', param='cnn_batchnorm0_gamma')
    np.testing.assert_allclose(lr, 0.01)
    figure = mx.viz.plot_norms(rec, which=('weight', 'grad'))
    labels = [line.get_label() for ax in figure.axes for line in ax.get_lines()]
    assert any('gamma' in label for label in labels)
    assert not any('running' in label for label in labels)


# ---------------------------------------------------------------------- model zoo
def test_get_model_names_and_unknown_model():
    net = vision.get_model('ResNet18_V1', classes=7)
    assert isinstance(net, vision.ResNetV1)
    with pytest.raises(ValueError, match='resnet18_v1'):
        vision.get_model('resnet19')


def test_pretrained_weights_are_never_downloaded(tmp_path):
    with pytest.raises(MXNetError, match='never downloads.*resnet18_v1-a0666292.params'):
        vision.resnet18_v1(pretrained=True, root=str(tmp_path))
    with pytest.raises(ValueError, match='lenet'):
        vision.lenet(pretrained=True, root=str(tmp_path))


def test_pretrained_weights_in_the_model_store_layout_are_loaded(tmp_path, monkeypatch):
    monkeypatch.setenv('MXNET_HOME', str(tmp_path))
    source = vision.mobilenet0_25(classes=5)
    source.initialize(mx.init.Xavier())
    source(nd.ones((1, 3, 32, 32)))
    os.makedirs(tmp_path / 'models')
    source.save_parameters(str(tmp_path / 'models' / 'mobilenet0.25-9f83e440.params'))
    loaded = vision.get_model('mobilenet0.25', classes=5, pretrained=True)
    for (_, a), (_, b) in zip(sorted(source.collect_params().items()),
                              sorted(loaded.collect_params().items())):
        np.testing.assert_array_equal(a.data().asnumpy(), b.data().asnumpy())


def test_a_damaged_weights_file_raises_a_clear_error(tmp_path):
    path = tmp_path / 'alexnet-44335d1f.params'
    path.write_bytes(b'\x12\x01\x00\x00\x00\x00\x00\x00' + bytes(64))  # MXNet's list magic
    with pytest.raises(MXNetError, match='alexnet-44335d1f.params'):
        vision.alexnet(pretrained=True, root=str(tmp_path))