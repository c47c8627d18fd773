"""Trainer states and a SymbolBlock loaded from files (notebook 14, exercise 3).

A SymbolBlock's Parameters declare no shape (None, as in MXNet 1.9.1: the shapes come with
the loaded data), so load_states checks the saved shapes against the loaded data's.
"""
import numpy as np
import pytest

import gluonedu as mx
from gluonedu import autograd, gluon, nd
from gluonedu.gluon import nn


def _trained(tmp_path, hidden, steps=3):
    mx.random.seed(0)
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Dense(hidden, activation='relu'), nn.Dense(2))
    net.initialize()
    net.hybridize()
    trainer = gluon.Trainer(net.collect_params(), 'adam', {'learning_rate': 0.01})
    x = nd.array(np.random.default_rng(0).normal(size=(4, 5)))
    for _ in range(steps):
        with autograd.record():
            loss = (net(x) ** 2).sum()
        loss.backward()
        trainer.step(4)
    prefix = str(tmp_path / ('net%d' % hidden))
    net.export(prefix, epoch=1)
    trainer.save_states(prefix + '.states')
    return net, trainer, x, prefix


def test_a_symbolblock_resumes_a_run_bit_for_bit(tmp_path):
    net, trainer, x, prefix = _trained(tmp_path, hidden=3)
    loaded = gluon.SymbolBlock.imports(prefix + '-symbol.json', ['data'], prefix + '-0001.params')
    assert all(p.shape is None for p in loaded.collect_params().values())   # as MXNet
    resumed = gluon.Trainer(loaded.collect_params(), 'adam', {'learning_rate': 0.01})
    resumed.load_states(prefix + '.states')
    for _ in range(3):
        for model, model_trainer in ((net, trainer), (loaded, resumed)):
            with autograd.record():
                loss = (model(x) ** 2).sum()
            loss.backward()
            model_trainer.step(4)
    for a, b in zip(net.collect_params().values(), loaded.collect_params().values()):
        assert np.array_equal(a.data().asnumpy(), b.data().asnumpy())


def test_states_of_other_shapes_are_refused_by_a_symbolblock(tmp_path):
    _, _, _, prefix = _trained(tmp_path, hidden=3)
    _, _, _, other = _trained(tmp_path, hidden=4)
    loaded = gluon.SymbolBlock.imports(prefix + '-symbol.json', ['data'], prefix + '-0001.params')
    trainer = gluon.Trainer(loaded.collect_params(), 'adam', {'learning_rate': 0.01})
    with pytest.raises(mx.MXNetError, match='was saved with shape'):
        trainer.load_states(other + '.states')
