"""Classic MXNet 1.x Gluon tutorial code, run unchanged on gluonedu.

Each test is a small script written the way MXNet's "Crash course" / "Straight Dope"
(d2l.ai's MXNet edition) tutorials write it — ``import gluonedu as mx`` is the only
change — and asserts what the tutorial shows (the loss falls, the accuracy beats
chance, ...). To add a tutorial pattern, add a test function in the same style; the
data fixtures at the top give small data sets in the original file formats.
"""
import random

import numpy as np
import pytest

import vision_files

import gluonedu as mx
from gluonedu import autograd, gluon, nd
from gluonedu.gluon import nn
from gluonedu.gluon.data.vision import transforms

NUM_CLASSES = 10


def _prototype_images(n, seed):
    """(images, labels): each class is a fixed random 28x28 pattern plus noise, so a
    linear model can learn it in a few epochs."""
    rng = np.random.RandomState(seed)
    prototypes = np.random.RandomState(0).rand(NUM_CLASSES, 28, 28) * 255
    labels = rng.randint(0, NUM_CLASSES, n)
    images = 0.6 * prototypes[labels] + 0.4 * rng.rand(n, 28, 28) * 255
    return images.astype(np.uint8), labels


@pytest.fixture(scope='module')
def fashion_mnist_root(tmp_path_factory):
    """A Fashion-MNIST folder (the four idx .gz files) of 600 training and 200 test images."""
    root = str(tmp_path_factory.mktemp('fashion-mnist'))
    vision_files.write_mnist(root, *_prototype_images(600, seed=1), train=True)
    vision_files.write_mnist(root, *_prototype_images(200, seed=2), train=False)
    return root


def evaluate_accuracy(data_iterator, net, ctx=mx.cpu()):
    """The tutorials' evaluation helper, verbatim in their style."""
    acc = mx.metric.Accuracy()
    for data, label in data_iterator:
        data = data.as_in_context(ctx)
        label = label.as_in_context(ctx)
        output = net(data)
        predictions = nd.argmax(output, axis=1)
        acc.update(preds=predictions, labels=label)
    return acc.get()[1]


def test_softmax_regression_with_metric_and_vision_transforms(fashion_mnist_root):
    """Gluon softmax regression on Fashion-MNIST (d2l.ai 3.7 / MXNet's crash course)."""
    mx.random.seed(42)
    batch_size = 64
    transformer = transforms.Compose([transforms.ToTensor(), transforms.Normalize(0.13, 0.31)])
    mnist_train = gluon.data.vision.FashionMNIST(root=fashion_mnist_root, train=True)
    mnist_test = gluon.data.vision.FashionMNIST(root=fashion_mnist_root, train=False)
    X, y = mnist_train[0]
    assert X.shape == (28, 28, 1) and X.dtype == np.uint8 and y.dtype == np.int32

    train_data = gluon.data.DataLoader(mnist_train.transform_first(transformer),
                                       batch_size=batch_size, shuffle=True, num_workers=0)
    test_data = gluon.data.DataLoader(mnist_test.transform_first(transformer),
                                      batch_size=batch_size, shuffle=False)

    net = nn.Sequential()
    with net.name_scope():
        net.add(nn.Dense(10))
    net.initialize(mx.init.Normal(sigma=0.01))
    softmax_cross_entropy = gluon.loss.SoftmaxCrossEntropyLoss()
    trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1})

    metric = mx.metric.Accuracy()
    losses, accuracies = [], []
    for epoch in range(4):
        metric.reset()
        cumulative_loss = 0
        for data, label in train_data:
            with autograd.record():
                output = net(data)
                loss = softmax_cross_entropy(output, label)
            loss.backward()
            trainer.step(data.shape[0])
            cumulative_loss += nd.sum(loss).asscalar()
            metric.update([label], [output])
        name, train_acc = metric.get()
        assert name == 'accuracy'
        losses.append(cumulative_loss / len(mnist_train))
        accuracies.append(train_acc)
    test_acc = evaluate_accuracy(test_data, net)

    assert losses[-1] < 0.5 * losses[0]
    assert accuracies[-1] > accuracies[0]
    assert test_acc > 0.8 > 1.0 / NUM_CLASSES


def test_mlp_with_dropout(fashion_mnist_root):
    """A multilayer perceptron with dropout (d2l.ai 4.6), evaluated with evaluate_accuracy."""
    mx.random.seed(7)
    ctx = mx.cpu()
    to_float = lambda data, label: (data.astype(np.float32) / 255, label)   # noqa: E731
    train_data = gluon.data.DataLoader(
        gluon.data.vision.FashionMNIST(fashion_mnist_root, train=True, transform=to_float),
        batch_size=50, shuffle=True)
    test_data = gluon.data.DataLoader(
        gluon.data.vision.FashionMNIST(fashion_mnist_root, train=False, transform=to_float),
        batch_size=50, shuffle=False)

    net = nn.Sequential()
    with net.name_scope():
        net.add(nn.Flatten())
        net.add(nn.Dense(128, activation='relu'))
        net.add(nn.Dropout(0.5))
        net.add(nn.Dense(10))
    net.initialize(mx.init.Xavier(), ctx=ctx)
    trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.05,
                                                          'momentum': 0.9})
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()

    before = evaluate_accuracy(test_data, net, ctx)
    for epoch in range(3):
        for data, label in train_data:
            data, label = data.as_in_context(ctx), label.as_in_context(ctx)
            with autograd.record():
                loss = loss_fn(net(data), label)
            loss.backward()
            trainer.step(data.shape[0])
    after = evaluate_accuracy(test_data, net, ctx)
    assert after > 0.8 and after > before + 0.3

    # Dropout is active while recording for training, and off for prediction.
    sample = next(iter(test_data))[0]
    with autograd.record():
        first, second = net(sample), net(sample)
    assert not np.allclose(first.asnumpy(), second.asnumpy())
    np.testing.assert_array_equal(net(sample).asnumpy(), net(sample).asnumpy())


def test_training_on_two_contexts_with_a_kvstore(fashion_mnist_root):
    """Data-parallel training over two devices through a KVStore (the "multiple GPUs"
    tutorial, d2l.ai 12.6, with cpu(0) and cpu(1) as the devices)."""
    mx.random.seed(3)
    ctx = [mx.cpu(0), mx.cpu(1)]
    transformer = transforms.ToTensor()
    train_data = gluon.data.DataLoader(
        gluon.data.vision.FashionMNIST(fashion_mnist_root).transform_first(transformer),
        batch_size=64, shuffle=True, last_batch='discard')
    test_data = gluon.data.DataLoader(
        gluon.data.vision.FashionMNIST(fashion_mnist_root, train=False)
        .transform_first(transformer), batch_size=64)

    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Dense(64, activation='relu'), nn.Dense(10))
    net.initialize(mx.init.Xavier(magnitude=2.24), ctx=ctx)
    net.hybridize()
    kv = mx.kv.create('device')
    trainer = gluon.Trainer(net.collect_params(), 'adam', {'learning_rate': 0.01}, kvstore=kv)
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    metric = mx.metric.Accuracy()

    epoch_losses = []
    for epoch in range(3):
        metric.reset()
        total = 0.0
        for data, label in train_data:
            data_parts = gluon.utils.split_and_load(data, ctx)
            label_parts = gluon.utils.split_and_load(label, ctx)
            with autograd.record():
                outputs = [net(x) for x in data_parts]
                losses = [loss_fn(out, y) for out, y in zip(outputs, label_parts)]
            for loss in losses:
                loss.backward()
            trainer.step(data.shape[0])
            metric.update(label_parts, outputs)
            total += sum(loss.sum().asscalar() for loss in losses)
        epoch_losses.append(total)

    assert epoch_losses[-1] < 0.5 * epoch_losses[0]
    assert metric.get()[1] > 0.8
    for param in net.collect_params().values():        # every device holds the same weights
        first, second = (param.data(c).asnumpy() for c in ctx)
        np.testing.assert_array_equal(first, second)
    assert evaluate_accuracy(test_data, net, ctx[1]) > 0.8


def test_metrics_as_tutorials_report_them(fashion_mnist_root):
    """A CompositeEvalMetric of accuracy, top-k accuracy and cross-entropy over an epoch,
    reset between epochs, as MXNet's fit loops log them."""
    mx.random.seed(5)
    train = gluon.data.vision.FashionMNIST(fashion_mnist_root).transform_first(
        transforms.ToTensor())
    loader = gluon.data.DataLoader(train, batch_size=100, shuffle=True)
    net = nn.Dense(10)
    net.initialize(mx.init.Xavier())
    trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.5})
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    metrics = mx.metric.create(['acc', mx.metric.TopKAccuracy(top_k=3), 'ce'])
    history = []
    for epoch in range(3):
        metrics.reset()
        for data, label in loader:
            with autograd.record():
                output = net(data)
                loss = loss_fn(output, label)
            loss.backward()
            trainer.step(data.shape[0])
            metrics.update([label], [nd.softmax(output)])
        history.append(dict(metrics.get_name_value()))
    assert list(history[0]) == ['accuracy', 'top_k_accuracy_3', 'cross-entropy']
    assert history[-1]['cross-entropy'] < history[0]['cross-entropy']
    assert history[-1]['top_k_accuracy_3'] >= history[-1]['accuracy'] > 0.8


# ---------------------------------------------------------------------- sparse
# After MXNet's "Sparse NDArrays with Gluon" and "RowSparseNDArray" tutorials and its
# contrib SparseEmbedding: CSR features, row_sparse weights pulled with
# row_sparse_data() inside autograd.record(), lazy updates through a kvstore.

def test_sparse_embedding_trained_with_row_sparse_data_inside_record():
    class SparseEmbedding(gluon.Block):
        """An embedding whose table is row_sparse: each batch pulls only its rows."""

        def __init__(self, input_dim, output_dim, **kwargs):
            super(SparseEmbedding, self).__init__(**kwargs)
            self._kwargs = {'input_dim': input_dim, 'output_dim': output_dim,
                            'dtype': 'float32', 'sparse_grad': True}
            with self.name_scope():
                self.weight = self.params.get('weight', shape=(input_dim, output_dim),
                                              init=mx.init.Normal(0.1),
                                              stype='row_sparse', grad_stype='row_sparse')

        def forward(self, x):
            weight = self.weight.row_sparse_data(x)
            return nd.Embedding(x, weight, name='fwd', **self._kwargs)

    mx.random.seed(42)
    np.random.seed(42)
    vocab, dim = 50, 4
    targets = nd.array(np.random.randn(vocab, dim))     # the embedding each word should learn
    ctx = [mx.cpu(0), mx.cpu(1)]
    net = SparseEmbedding(vocab, dim)
    net.initialize(ctx=ctx)
    trainer = gluon.Trainer(net.collect_params(), 'adam', {'learning_rate': 0.1},
                            kvstore='device')
    loss_fn = gluon.loss.L2Loss()

    def epoch_loss():
        ids = nd.arange(vocab)
        with autograd.predict_mode():
            return loss_fn(net(ids), targets).mean().asscalar()

    before = epoch_loss()
    first_table = net.weight.row_sparse_data(nd.arange(vocab)).asnumpy()
    for step in range(60):
        words = np.random.randint(0, vocab, size=(2, 8))
        losses = []
        with autograd.record():
            for i, c in enumerate(ctx):
                ids = nd.array(words[i], ctx=c)
                losses.append(loss_fn(net(ids), targets.as_in_context(c)[ids]))
        autograd.backward(losses)
        assert net.weight.grad(ctx[0]).stype == 'row_sparse'
        trainer.step(16)
        if step == 0:   # lazy Adam: the rows no device looked up did not move
            table = net.weight.row_sparse_data(nd.arange(vocab)).asnumpy()
            untouched = sorted(set(range(vocab)) - set(words.ravel().tolist()))
            np.testing.assert_array_equal(table[untouched], first_table[untouched])
            assert not np.allclose(table[words[0]], first_table[words[0]])
    copies = [w.asnumpy() for w in net.weight.list_row_sparse_data(nd.arange(vocab))]
    np.testing.assert_array_equal(copies[0], copies[1])
    assert epoch_loss() < 0.2 * before


def test_sparse_linear_model_on_csr_features():
    num_samples, num_features = 400, 10000
    np.random.seed(0)
    mx.random.seed(0)
    data = mx.test_utils.rand_ndarray((num_samples, num_features), stype='csr', density=0.002)
    label = data.sum(axis=1) > data.sum(axis=1).mean()

    def get_nbytes(array):
        # (The tutorial writes np.dtype(a), which NumPy 2 no longer accepts for an
        # object whose .dtype is a type, as MXNet's NDArray.dtype is.)
        fn = lambda a: a.size * np.dtype(a.dtype).itemsize  # noqa: E731
        if isinstance(array, mx.ndarray.sparse.CSRNDArray):
            return fn(array.data) + fn(array.indices) + fn(array.indptr)
        elif isinstance(array, mx.ndarray.sparse.RowSparseNDArray):
            return fn(array.data) + fn(array.indices)
        return fn(array)

    assert get_nbytes(data) < get_nbytes(data.tostype('default')) / 100

    class FullyConnectedSparse(mx.gluon.HybridBlock):
        def __init__(self, in_units, units, weight_grad_stype='default'):
            super(FullyConnectedSparse, self).__init__()
            with self.name_scope():
                self._units = units
                self.weight = self.params.get('weight', shape=(in_units, units),
                                              init=None, allow_deferred_init=True,
                                              dtype='float32', stype='default',
                                              grad_stype=weight_grad_stype)
                self.bias = self.params.get('bias', shape=(units),
                                            init='zeros', allow_deferred_init=True,
                                            dtype='float32', stype='default',
                                            grad_stype='default')

        def hybrid_forward(self, F, x, weight, bias):
            return F.sparse.dot(x, weight) + bias

    net = mx.gluon.nn.Sequential()
    net.add(FullyConnectedSparse(in_units=num_features, units=8,
                                 weight_grad_stype='row_sparse'),
            mx.gluon.nn.Activation('sigmoid'),
            mx.gluon.nn.Dense(in_units=8, units=1))
    net.initialize(mx.init.Xavier())
    trainer = mx.gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 1.0})
    loss_fn = mx.gluon.loss.SigmoidBinaryCrossEntropyLoss()

    def accuracy():
        prediction = net(data).reshape(-1) > 0
        return (prediction == label).mean().asscalar()

    batch_size, losses = 40, []
    for epoch in range(15):
        total = 0.0
        for start in range(0, num_samples, batch_size):
            batch = data[start:start + batch_size]
            target = label[start:start + batch_size]
            with mx.autograd.record():
                loss = loss_fn(net(batch), target)
            loss.backward()
            trainer.step(batch.shape[0])
            total += loss.mean().asscalar()
        losses.append(total)
    grad = net[0].weight.grad()
    assert grad.stype == 'row_sparse'
    assert get_nbytes(grad) < get_nbytes(net[0].weight.data()) / 10
    assert losses[-1] < 0.8 * losses[0]
    assert accuracy() > 0.8


# ---------------------------------------------------------------------- linear models from scratch
def synthetic_regression(num_examples=1000, true_w=(2, -3.4), true_b=4.2, noise=0.01):
    """d2l's synthetic data: y = Xw + b + noise."""
    true_w = nd.array(true_w)
    features = nd.random.normal(scale=1, shape=(num_examples, len(true_w)))
    labels = nd.dot(features, true_w) + true_b
    labels += nd.random.normal(scale=noise, shape=labels.shape)
    return features, labels


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
