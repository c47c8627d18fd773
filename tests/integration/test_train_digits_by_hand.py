"""An MLP learns the 8×8 digits with a hand-written SGD loop (no Trainer).

The loop is the one a class writes before meeting the Trainer: forward under
autograd.record(), backward, then ``w[:] = w - lr * grad`` for every Parameter.
"""
import numpy as np

import gluonedu as mx
from gluonedu import autograd, gluon, nd
from gluonedu.gluon import nn


def _accuracy(net, X, y):
    predicted = net(nd.array(X)).argmax(axis=1).asnumpy()
    return float((predicted == y).mean())


def _train(ctx_list, epochs=12, batch_size=32, lr=0.3):
    mx.random.seed(7)
    (X_train, y_train), (X_test, y_test) = mx.data.digits(test_size=0.25, seed=0)
    with mx.name.NameManager():
        net = nn.Sequential()
        with net.name_scope():
            net.add(nn.Dense(64, activation='relu'), nn.Dense(10))
    net.initialize(mx.init.Xavier(), ctx=ctx_list)
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    loader = gluon.data.DataLoader(gluon.data.ArrayDataset(X_train, y_train),
                                   batch_size=batch_size, shuffle=True, last_batch='discard')
    params = list(net.collect_params().values())
    losses = []
    for _ in range(epochs):
        epoch_loss = 0.0
        for data, label in loader:
            parts = zip(gluon.utils.split_and_load(data, ctx_list),
                        gluon.utils.split_and_load(label, ctx_list))
            with autograd.record():
                batch_losses = [loss_fn(net(x), y) for x, y in parts]
            autograd.backward(batch_losses)
            epoch_loss += sum(l.sum().asscalar() for l in batch_losses)
            for p in params:
                # Sum the per-device gradients, step once, copy the result to every device.
                grad = sum(g.asnumpy() for g in p.list_grad()) / batch_size
                new = p.data(ctx_list[0]).asnumpy() - lr * grad
                for w in p.list_data():
                    w[:] = new
        losses.append(epoch_loss / len(X_train))
    return net, losses, _accuracy(net, X_test, y_test)


def test_mlp_reaches_95_percent_on_held_out_digits():
    net, losses, accuracy = _train([mx.cpu(0)])
    assert losses[-1] < losses[0] / 4
    assert accuracy >= 0.95, accuracy


def test_two_devices_train_the_same_model_as_one():
    _, losses_one, acc_one = _train([mx.cpu(0)], epochs=2)
    _, losses_two, acc_two = _train([mx.cpu(0), mx.cpu(1)], epochs=2)
    np.testing.assert_allclose(losses_two, losses_one, rtol=1e-4)
    assert abs(acc_one - acc_two) < 0.01
