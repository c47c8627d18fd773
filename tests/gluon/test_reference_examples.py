"""The examples of gluon-package-api.txt that need no Trainer, run as written.

(The training-loop example needs gluon.Trainer and is exercised with the Trainer.
SymbolBlock needs symbolic graphs, which gluonedu does not have.)
"""
import numpy as np
import pytest

import gluonedu as mx
from gluonedu import autograd, gluon


@pytest.fixture(autouse=True)
def fresh_names():
    with mx.name.NameManager():
        yield


def test_simple_easy_to_understand_code_example():
    num_outputs = 10
    net = gluon.nn.Sequential()
    with net.name_scope():
        net.add(gluon.nn.Dense(256, activation="relu"))  # 1st layer (256 nodes)
        net.add(gluon.nn.Dense(256, activation="relu"))  # 2nd hidden layer
        net.add(gluon.nn.Dense(num_outputs))
    net.initialize()
    out = net(mx.nd.ones((4, 20)))
    assert out.shape == (4, num_outputs)
    assert list(net.collect_params().keys()) == [
        'sequential0_dense0_weight', 'sequential0_dense0_bias',
        'sequential0_dense1_weight', 'sequential0_dense1_bias',
        'sequential0_dense2_weight', 'sequential0_dense2_bias']


def test_high_performance_hybridize_example():
    from gluonedu.gluon import nn
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Dense(256, activation="relu"))
        net.add(nn.Dense(128, activation="relu"))
        net.add(nn.Dense(2))
    net.initialize()
    x = mx.nd.random.normal(shape=(3, 5))
    before = net(x).asnumpy()
    net.hybridize()
    np.testing.assert_array_equal(net(x).asnumpy(), before)


def test_sequential_docstring_examples():
    from gluonedu.gluon import nn
    net = nn.Sequential()
    with net.name_scope():
        net.add(nn.Dense(10, activation='relu'))
        net.add(nn.Dense(20))
    hnet = nn.HybridSequential()
    with hnet.name_scope():
        hnet.add(nn.Dense(10, activation='relu'))
        hnet.add(nn.Dense(20))
    hnet.hybridize()
    for model in (net, hnet):
        model.initialize()
        assert model(mx.nd.ones((2, 3))).shape == (2, 20)


def test_dynamic_graph_example_recurses_over_a_tree():
    # "Dynamic Graphs": the forward pass follows the structure of its input.
    class Tree:
        def __init__(self, *children):
            self.children = children

    class TreeNet(gluon.Block):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.cell = gluon.nn.Dense(4, in_units=4)

        def forward(self, F, inputs, tree):
            children_outputs = [self.forward(F, inputs, child) for child in tree.children]
            total = sum(children_outputs) if children_outputs else inputs
            return F.tanh(self.cell(total))

    net = TreeNet()
    net.initialize()
    x = mx.nd.ones((1, 4))
    x.attach_grad()
    with autograd.record():
        y = net.forward(mx.nd, x, Tree(Tree(), Tree(Tree())))
    y.backward()
    assert y.shape == (1, 4) and x.grad.shape == (1, 4)
    assert np.abs(net.cell.weight.grad().asnumpy()).sum() > 0


def test_split_and_clip_utilities_from_the_reference():
    data = mx.nd.arange(12).reshape((6, 2))
    slices = gluon.utils.split_data(data, 3)
    assert [s.shape for s in slices] == [(2, 2)] * 3
    loaded = gluon.utils.split_and_load(data, [mx.cpu(0), mx.cpu(1)])
    assert [s.context for s in loaded] == [mx.cpu(0), mx.cpu(1)]
    arrays = [mx.nd.ones((3,)) * 3, mx.nd.ones((4,)) * 4]
    total = gluon.utils.clip_global_norm(arrays, max_norm=1.0)
    assert np.isclose(total, np.sqrt(9 * 3 + 16 * 4))
    assert np.isclose(np.sqrt(sum((a.asnumpy() ** 2).sum() for a in arrays)), 1.0, rtol=1e-5)
