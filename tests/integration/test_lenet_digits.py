"""LeNet on the 8×8 digits reaches ≥ 97 % held-out accuracy (seeded, about 10 s).

The zoo's LeNet with 3×3 kernels (8×8 → 4×4 → 2×2 feature maps), standardized pixels,
SGD with momentum 0.9 and a learning rate halved every 300 steps, 12 epochs of 1438
images; 359 images held out. BLAS runs on one thread here: the dense layers' small
matrix products stall when the test shares two busy cores (see
gluonedu/ndarray/nn_ops/kernels/blas.py).
"""
import pytest

import gluonedu as mx
from gluonedu import autograd, gluon, nd
from gluonedu.gluon.model_zoo import vision


def _train_lenet(epochs=12, seed=0):
    (X_train, y_train), (X_test, y_test) = mx.data.digits(test_size=0.2, flatten=False,
                                                          seed=0)
    mean, std = X_train.mean(), X_train.std()
    mx.random.seed(seed)
    net = vision.LeNet(kernel_size=3, padding=1)
    net.initialize(mx.init.Xavier())
    schedule = mx.lr_scheduler.FactorScheduler(step=300, factor=0.5, base_lr=0.05)
    trainer = gluon.Trainer(net.collect_params(), 'sgd',
                            {'learning_rate': 0.05, 'momentum': 0.9, 'lr_scheduler': schedule})
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    loader = gluon.data.DataLoader(gluon.data.ArrayDataset((X_train - mean) / std, y_train),
                                   batch_size=32, shuffle=True)
    for _ in range(epochs):
        for x, y in loader:
            with autograd.record():
                loss = loss_fn(net(x), y)
            loss.backward()
            trainer.step(x.shape[0])
    predictions = net(nd.array((X_test - mean) / std)).argmax(axis=1).asnumpy()
    return float((predictions == y_test).mean())


def test_lenet_reaches_97_percent_on_held_out_digits():
    threadpoolctl = pytest.importorskip('threadpoolctl')
    with threadpoolctl.threadpool_limits(1, user_api='blas'):
        accuracy = _train_lenet()
    assert accuracy >= 0.97, 'held-out accuracy %.3f' % accuracy
