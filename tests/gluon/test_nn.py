"""gluon.nn layers: numbers against NumPy formulas, names and reprs as MXNet 1.9.1."""
import numpy as np
import pytest

import gluonedu as mx
from gluonedu import autograd, nd
from gluonedu.gluon import nn


@pytest.fixture(autouse=True)
def fresh_names():
    """Automatic names count per thread; a fresh NameManager makes them start at 0."""
    with mx.name.NameManager():
        yield


def _rand(*shape, seed=0):
    return np.random.RandomState(seed).uniform(-1, 1, size=shape).astype(np.float32)


# ---------------------------------------------------------------------- Dense
def test_dense_forward_is_x_wt_plus_b():
    dense = nn.Dense(4, in_units=3)
    dense.initialize(mx.init.Normal())
    dense.bias.set_data(nd.array(_rand(4, seed=1)))
    x = _rand(5, 3, seed=2)
    w, b = dense.weight.data().asnumpy(), dense.bias.data().asnumpy()
    np.testing.assert_allclose(dense(nd.array(x)).asnumpy(), x @ w.T + b, rtol=1e-6)


def test_dense_activation_flatten_and_no_bias():
    dense = nn.Dense(2, activation='relu', use_bias=False)
    dense.initialize()
    x = _rand(3, 2, 2)
    out = dense(nd.array(x)).asnumpy()
    w = dense.weight.data().asnumpy()
    assert dense.bias is None
    assert list(dense.params.keys()) == ['dense0_weight']
    np.testing.assert_allclose(out, np.maximum(x.reshape(3, 4) @ w.T, 0), rtol=1e-6)

    last_axis = nn.Dense(5, flatten=False)
    last_axis.initialize()
    out = last_axis(nd.array(x))
    assert out.shape == (3, 2, 5)
    assert last_axis.weight.shape == (5, 2)
    w, b = last_axis.weight.data().asnumpy(), last_axis.bias.data().asnumpy()
    np.testing.assert_allclose(out.asnumpy(), x @ w.T + b, rtol=1e-6)


def test_dense_initializers_and_dtype():
    dense = nn.Dense(3, in_units=2, dtype='float64', weight_initializer='ones',
                     bias_initializer=mx.init.Constant(0.5))
    dense.initialize()
    assert np.dtype(dense.weight.dtype) == np.float64
    out = dense(nd.ones((1, 2), dtype='float64'))
    assert out.dtype == np.float64
    np.testing.assert_array_equal(out.asnumpy(), np.full((1, 3), 2.5))


def test_dense_gradients():
    dense = nn.Dense(2, in_units=3)
    dense.initialize()
    x = _rand(4, 3)
    with autograd.record():
        out = dense(nd.array(x))
    out.backward()
    np.testing.assert_allclose(dense.weight.grad().asnumpy(), np.ones((4, 2)).T @ x, rtol=1e-6)
    np.testing.assert_allclose(dense.bias.grad().asnumpy(), np.full(2, 4.0))


def test_dense_repr():
    assert repr(nn.Dense(10, activation='relu')) == 'Dense(None -> 10, Activation(relu))'
    assert repr(nn.Dense(10, in_units=64)) == 'Dense(64 -> 10, linear)'


# ---------------------------------------------------------------------- containers
def test_sequential_add_len_getitem_and_slices():
    net = nn.Sequential()
    with net.name_scope():
        net.add(nn.Dense(4, in_units=3), nn.Activation('tanh'))
        net.add(nn.Dense(2, in_units=4))
    assert len(net) == 3
    assert isinstance(net[1], nn.Activation)
    assert net[-1] is net._children['2']
    head = net[1:]
    assert type(head) is nn.Sequential
    assert head.prefix == net.prefix
    assert len(head) == 2 and head[1] is net[2]              # children are shared
    net.initialize()
    x = nd.array(_rand(2, 3))
    np.testing.assert_array_equal(net(x).asnumpy(), head(net[0](x)).asnumpy())


def test_sequential_forward_chains_children():
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Dense(4, in_units=3, activation='relu'), nn.Dense(2, in_units=4))
    net.initialize()
    x = _rand(5, 3)
    w0, b0 = net[0].weight.data().asnumpy(), net[0].bias.data().asnumpy()
    w1, b1 = net[1].weight.data().asnumpy(), net[1].bias.data().asnumpy()
    expected = np.maximum(x @ w0.T + b0, 0) @ w1.T + b1
    np.testing.assert_allclose(net(nd.array(x)).asnumpy(), expected, rtol=1e-5)
    assert type(net[:1]) is nn.HybridSequential


def test_sequential_repr():
    net = nn.Sequential()
    with net.name_scope():
        net.add(nn.Dense(4, in_units=3), nn.Dropout(0.5), nn.Flatten())
    assert repr(net) == ('Sequential(\n'
                         '  (0): Dense(3 -> 4, linear)\n'
                         '  (1): Dropout(p = 0.5, axes=())\n'
                         '  (2): Flatten\n'
                         ')')


# ---------------------------------------------------------------------- activations
@pytest.mark.parametrize('act, fn', [
    ('relu', lambda x: np.maximum(x, 0)),
    ('sigmoid', lambda x: 1 / (1 + np.exp(-x))),
    ('tanh', np.tanh),
    ('softrelu', lambda x: np.log1p(np.exp(x))),
    ('softsign', lambda x: x / (1 + np.abs(x))),
])
def test_activation(act, fn):
    layer = nn.Activation(act)
    assert layer.prefix == act + '0_'
    assert repr(layer) == 'Activation(%s)' % act
    x = _rand(3, 4)
    np.testing.assert_allclose(layer(nd.array(x)).asnumpy(), fn(x), rtol=1e-5, atol=1e-7)


def test_leaky_relu_elu_selu_swish():
    x = _rand(4, 5)
    np.testing.assert_allclose(nn.LeakyReLU(0.1)(nd.array(x)).asnumpy(),
                               np.where(x > 0, x, 0.1 * x), rtol=1e-6)
    assert repr(nn.LeakyReLU(0.1)) == 'LeakyReLU(0.1)'
    with pytest.raises(AssertionError, match='no less than 0'):
        nn.LeakyReLU(-0.1)
    np.testing.assert_allclose(nn.ELU(0.5)(nd.array(x)).asnumpy(),
                               np.where(x > 0, x, 0.5 * np.expm1(x)), rtol=1e-6)
    alpha, scale = 1.6732632423543772, 1.0507009873554805
    np.testing.assert_allclose(nn.SELU()(nd.array(x)).asnumpy(),
                               scale * np.where(x > 0, x, alpha * np.expm1(x)), rtol=1e-6)
    np.testing.assert_allclose(nn.Swish(2.0)(nd.array(x)).asnumpy(),
                               x / (1 + np.exp(-2 * x)), rtol=1e-6)


def test_prelu_per_channel():
    layer = nn.PReLU(in_channels=3)
    layer.initialize()
    assert layer.alpha.name == 'prelu0_alpha'
    x = _rand(2, 3, 4)
    np.testing.assert_allclose(layer(nd.array(x)).asnumpy(), np.where(x > 0, x, 0.25 * x),
                               rtol=1e-6)
    with autograd.record():
        out = layer(nd.array(x))
    out.backward()
    expected = np.where(x > 0, 0, x).sum(axis=(0, 2))
    np.testing.assert_allclose(layer.alpha.grad().asnumpy(), expected, rtol=1e-5)


# ---------------------------------------------------------------------- other layers
def test_dropout_only_in_training():
    layer = nn.Dropout(0.5)
    assert repr(layer) == 'Dropout(p = 0.5, axes=())'
    x = nd.ones((100, 100))
    np.testing.assert_array_equal(layer(x).asnumpy(), x.asnumpy())
    with autograd.record():
        y = layer(x).asnumpy()
    assert set(np.unique(y)) <= {0.0, 2.0}
    assert 0.4 < (y == 0).mean() < 0.6
    with autograd.record():
        shared = nn.Dropout(0.5, axes=(1,))(x).asnumpy()
    assert (shared == shared[:, :1]).all()                     # one mask value per row
    with autograd.record():
        np.testing.assert_array_equal(nn.Dropout(0)(x).asnumpy(), x.asnumpy())


def test_embedding_lookup_and_dense_grad():
    layer = nn.Embedding(10, 4)
    assert repr(layer) == 'Embedding(10 -> 4, float32)'
    layer.initialize()
    ids = np.array([[1, 3], [3, 9]])
    weight = layer.weight.data().asnumpy()
    out = layer(nd.array(ids))
    assert out.shape == (2, 2, 4)
    np.testing.assert_array_equal(out.asnumpy(), weight[ids])
    with autograd.record():
        out = layer(nd.array(ids))
    out.backward()
    grad = layer.weight.grad()
    assert grad.stype == 'default'
    expected = np.zeros((10, 4))
    np.add.at(expected, ids.reshape(-1), 1.0)
    np.testing.assert_array_equal(grad.asnumpy(), expected)


def test_embedding_sparse_grad_is_row_sparse():
    layer = nn.Embedding(10, 4, sparse_grad=True)
    layer.initialize()
    assert layer.weight._grad_stype == 'row_sparse'
    ids = nd.array([[1, 3], [3, 9]])
    with autograd.record():
        out = layer(ids)
    out.backward()
    grad = layer.weight.grad()
    assert grad.stype == 'row_sparse'
    assert sorted(grad.indices.asnumpy().tolist()) == [1, 3, 9]
    expected = np.zeros((10, 4))
    expected[[1, 9]] = 1.0
    expected[3] = 2.0
    np.testing.assert_array_equal(grad.asnumpy(), expected)


def test_flatten():
    layer = nn.Flatten()
    assert repr(layer) == 'Flatten'
    assert layer(nd.ones((2, 3, 4))).shape == (2, 12)


def test_lambda_and_hybrid_lambda():
    x = _rand(2, 3)
    by_name = nn.Lambda('tanh')
    assert repr(by_name) == 'Lambda(tanh)'
    np.testing.assert_allclose(by_name(nd.array(x)).asnumpy(), np.tanh(x), rtol=1e-6)
    by_function = nn.Lambda(lambda a, b: a * b)
    assert repr(by_function) == 'Lambda(<lambda>)'
    np.testing.assert_allclose(by_function(nd.array(x), nd.array(x)).asnumpy(), x * x)
    hybrid = nn.HybridLambda(lambda F, v: F.LeakyReLU(v, slope=0.1))
    np.testing.assert_allclose(hybrid(nd.array(x)).asnumpy(), np.where(x > 0, x, 0.1 * x),
                               rtol=1e-6)
    assert repr(nn.HybridLambda('relu')) == 'HybridLambda(relu)'
    np.testing.assert_array_equal(nn.HybridLambda('relu')(nd.array(x)).asnumpy(),
                                  np.maximum(x, 0))
    with pytest.raises(AssertionError, match='not_an_op'):
        nn.Lambda('not_an_op')
    with pytest.raises(ValueError, match='Unrecognized function'):
        nn.HybridLambda(3)


def test_nn_exports_blocks():
    assert nn.Block is mx.gluon.Block and nn.HybridBlock is mx.gluon.HybridBlock
    for name in ['Sequential', 'HybridSequential', 'Dense', 'Dropout', 'Embedding', 'Flatten',
                 'Lambda', 'HybridLambda', 'Activation', 'LeakyReLU', 'PReLU', 'ELU', 'SELU',
                 'Swish']:
        assert hasattr(nn, name), name
