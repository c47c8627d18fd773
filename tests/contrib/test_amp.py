"""Dynamic loss scaling: the scaled loss, the Trainer's unscaling, and the scale schedule."""
import numpy as np
import pytest

import gluonedu as mx
from gluonedu import autograd, gluon, nd
from gluonedu.contrib import amp


def _trainer():
    with mx.name.NameManager():
        net = gluon.nn.Dense(1, in_units=2)
    net.initialize(mx.init.One())
    return net, gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.5})


def test_scaled_loss_gives_the_unscaled_update():
    amp.init()
    net, trainer = _trainer()
    amp.init_trainer(trainer)
    x = nd.array([[1.0, 2.0]])
    with autograd.record():
        loss = net(x).sum()
        with amp.scale_loss(loss, trainer) as scaled:
            assert scaled.asscalar() == pytest.approx(loss.asscalar() * 2 ** 16)
            autograd.backward(scaled)
    trainer.step(1)
    # d(loss)/dw = x, so w = 1 - 0.5 * x despite the 2**16 scaling of the loss.
    np.testing.assert_allclose(net.weight.data().asnumpy(), [[0.5, 0.0]])


def test_unscale_divides_gradients_now():
    amp.init()
    net, trainer = _trainer()
    amp.init_trainer(trainer)
    with autograd.record():
        with amp.scale_loss(net(nd.array([[1.0, 1.0]])).sum(), trainer) as scaled:
            autograd.backward(scaled)
    amp.unscale(trainer)
    np.testing.assert_allclose(net.weight.grad().asnumpy(), [[1.0, 1.0]])
    assert trainer._scale == 1.0


def test_scale_halves_after_overflow_and_doubles_after_clean_run():
    scaler = amp.LossScaler()
    params = [gluon.Parameter('w', shape=(2,))]
    params[0].initialize()
    params[0].grad()[:] = np.inf
    assert scaler.has_overflow(params)
    params[0].grad()[:] = 0
    assert not scaler.has_overflow(params)
    assert scaler.loss_scale == 2.0 ** 15
    for _ in range(2000):
        scaler.has_overflow(params)
    assert scaler._next_loss_scale == 2.0 ** 16


def test_misuse_errors():
    net, trainer = _trainer()
    with pytest.raises(AssertionError, match='init_trainer'):
        with amp.scale_loss(nd.ones(1), trainer):
            pass
    with pytest.raises(TypeError, match='gluon.Trainer'):
        amp.init_trainer(mx.optimizer.create('sgd'))
    with pytest.raises(ValueError, match='float16'):
        amp.init('bfloat16')
