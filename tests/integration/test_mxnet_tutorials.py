"""MXNet 1.x Gluon tutorial patterns run unchanged on gluonedu.

Each test is a small, realistic script in the style of the classic MXNet/Gluon course
material (d2l.ai's MXNet edition, the Gluon crash course), written as a student would type
it — ``from gluonedu import nd, autograd`` standing in for ``from mxnet import ...`` — and
asserts what the tutorial shows: that the model converges. One section per pattern.
"""
import random

import numpy as np

import gluonedu as mx
from gluonedu import autograd, gluon, nd


def synthetic_regression(num_examples=1000, true_w=(2, -3.4), true_b=4.2, noise=0.01):
    """d2l's synthetic data: y = Xw + b + noise."""
    true_w = nd.array(true_w)
    features = nd.random.normal(scale=1, shape=(num_examples, len(true_w)))
    labels = nd.dot(features, true_w) + true_b
    labels += nd.random.normal(scale=noise, shape=labels.shape)
    return features, labels


# ---------------------------------------------------------------------- linear regression
def test_linear_regression_from_scratch_converges():
    """d2l 3.2: a data_iter over ``features.take(j)``, hand-written SGD."""
    mx.random.seed(0)
    random.seed(0)
    features, labels = synthetic_regression()

    def data_iter(batch_size, features, labels):
        num_examples = len(features)
        indices = list(range(num_examples))
        random.shuffle(indices)  # the examples are read in random order
        for i in range(0, num_examples, batch_size):
            j = nd.array(indices[i: min(i + batch_size, num_examples)])
            yield features.take(j), labels.take(j)  # take returns the rows at j

    w = nd.random.normal(scale=0.01, shape=(2, 1))
    b = nd.zeros(shape=(1,))
    w.attach_grad()
    b.attach_grad()

    def linreg(X, w, b):
        return nd.dot(X, w) + b

    def squared_loss(y_hat, y):
        return (y_hat - y.reshape(y_hat.shape)) ** 2 / 2

    def sgd(params, lr, batch_size):
        for param in params:
            param[:] = param - lr * param.grad / batch_size

    lr, num_epochs, batch_size = 0.03, 3, 10
    losses = []
    for epoch in range(num_epochs):
        for X, y in data_iter(batch_size, features, labels):
            with autograd.record():
                l = squared_loss(linreg(X, w, b), y)  # noqa: E741 (d2l's name)
            l.backward()
            sgd([w, b], lr, batch_size)
        losses.append(squared_loss(linreg(features, w, b), labels).mean().asscalar())
    assert losses[-1] < 1e-4 < losses[0] * 10
    np.testing.assert_allclose(w.reshape((2,)).asnumpy(), [2, -3.4], atol=5e-3)
    np.testing.assert_allclose(b.asscalar(), 4.2, atol=5e-3)


# ---------------------------------------------------------------------- optimizer from scratch
def test_momentum_written_from_scratch_converges_and_equals_mxnets_sgd():
    """d2l 11.6: momentum on states held in NDArrays (``v[:] = momentum * v + p.grad``)."""
    mx.random.seed(1)
    features, labels = synthetic_regression(num_examples=500)
    batch_size, hyperparams = 50, {'lr': 0.05, 'momentum': 0.5}

    def init_momentum_states(feature_dim):
        return nd.zeros((feature_dim, 1)), nd.zeros(1)

    def sgd_momentum(params, states, hyperparams):
        for p, v in zip(params, states):
            v[:] = hyperparams['momentum'] * v + p.grad
            p[:] -= hyperparams['lr'] * v

    def train(update, params):
        losses = []
        for epoch in range(4):
            for i in range(0, len(features), batch_size):
                X, y = features[i:i + batch_size], labels[i:i + batch_size]
                with autograd.record():
                    l = ((nd.dot(X, params[0]) + params[1] - y.reshape((-1, 1))) ** 2).mean()
                l.backward()
                update()
            losses.append(((nd.dot(features, params[0]) + params[1]
                            - labels.reshape((-1, 1))) ** 2).mean().asscalar())
        return losses

    w, b = nd.zeros((2, 1)), nd.zeros(1)
    w.attach_grad()
    b.attach_grad()
    states = init_momentum_states(2)
    losses = train(lambda: sgd_momentum([w, b], states, hyperparams), [w, b])
    assert losses[-1] < 1e-3 and losses[-1] < losses[0] / 100

    # The same rule as MXNet's SGD with momentum (mom = m·mom - lr·g; w += mom).
    w2, b2 = nd.zeros((2, 1)), nd.zeros(1)
    w2.attach_grad()
    b2.attach_grad()
    updater = mx.optimizer.get_updater(mx.optimizer.SGD(learning_rate=hyperparams['lr'],
                                                        momentum=hyperparams['momentum']))

    def reference_step():
        updater(0, w2.grad, w2)
        updater(1, b2.grad, b2)
    train(reference_step, [w2, b2])
    np.testing.assert_allclose(w.asnumpy(), w2.asnumpy(), rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(b.asnumpy(), b2.asnumpy(), rtol=1e-4, atol=1e-6)


def test_gluon_linear_regression_with_array_dataset_converges():
    """d2l 3.3: the concise version with gluon.data, nn.Dense and a Trainer."""
    mx.random.seed(2)
    features, labels = synthetic_regression()
    data_iter = gluon.data.DataLoader(gluon.data.ArrayDataset(features, labels),
                                      batch_size=10, shuffle=True)
    net = gluon.nn.Sequential()
    net.add(gluon.nn.Dense(1))
    net.initialize(mx.init.Normal(sigma=0.01))
    loss = gluon.loss.L2Loss()
    trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.03})
    for epoch in range(3):
        for X, y in data_iter:
            with autograd.record():
                l = loss(net(X), y)  # noqa: E741 (d2l's name)
            l.backward()
            trainer.step(10)
    assert loss(net(features), labels).mean().asscalar() < 1e-4
    np.testing.assert_allclose(net[0].weight.data().asnumpy().ravel(), [2, -3.4], atol=5e-3)
