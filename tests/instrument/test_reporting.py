"""gluonedu.optimizer.reporting: the norms an update reports equal NumPy's, on both paths."""
import numpy as np
import pytest

import gluonedu as mx
from gluonedu import autograd, gluon, nd
from gluonedu.instrument import subscribe


@pytest.fixture(autouse=True)
def fresh_names():
    with mx.name.NameManager():
        yield


@pytest.mark.parametrize('fused', [False, True])
def test_weight_grad_update_and_state_norms_equal_numpy(fused):
    mx.random.seed(1)
    net = gluon.nn.Sequential()
    net.add(gluon.nn.Dense(7, in_units=5), gluon.nn.Dense(3, in_units=7))
    net.initialize(mx.init.Xavier())
    trainer = gluon.Trainer(net.collect_params(), 'sgd',
                            {'learning_rate': 0.1, 'momentum': 0.9}, fused=fused)
    rng = np.random.default_rng(1)
    for step in range(3):
        before = {p.name: p.data().asnumpy() for p in trainer._params}
        with autograd.record():
            loss = net(nd.array(rng.standard_normal((4, 5)))).sum()
        loss.backward()
        grads = {p.name: p.grad().asnumpy() for p in trainer._params}
        events = []
        with subscribe(events.append, kinds=['norm', 'state_norm'], norms=True):
            trainer.step(4)
        norms = {e.param: e.values for e in events if e.kind == 'norm'}
        states = {e.param: e.values for e in events if e.kind == 'state_norm'}
        assert set(norms) == set(states) == set(before)
        for index, param in enumerate(trainer._params):
            after = param.data().asnumpy()
            got = norms[param.name]
            assert list(got) == ['weight', 'grad', 'update']
            assert got['weight'] == pytest.approx(np.linalg.norm(after.astype(np.float64)),
                                                  rel=1e-12)
            assert got['grad'] == pytest.approx(
                np.linalg.norm(grads[param.name].astype(np.float64)), rel=1e-12)
            assert got['update'] == pytest.approx(np.linalg.norm(
                after.astype(np.float64) - before[param.name]), rel=1e-12)
            momentum = trainer._updaters[0].states[index]
            assert states[param.name] == {'momentum': pytest.approx(
                np.linalg.norm(momentum.asnumpy().astype(np.float64)), rel=1e-12)}


def test_only_the_norms_asked_for_are_computed():
    net = gluon.nn.Dense(2, in_units=3)
    net.initialize()
    trainer = gluon.Trainer(net.collect_params(), 'adam')
    with autograd.record():
        loss = net(nd.ones((2, 3))).sum()
    loss.backward()
    events = []
    with subscribe(events.append, norms=['grad', 'var']):
        trainer.step(2)
    assert {tuple(e.values) for e in events if e.kind == 'norm'} == {('grad',)}
    assert {tuple(e.values) for e in events if e.kind == 'state_norm'} == {('var',)}


def test_row_sparse_gradient_norm_is_that_of_its_stored_rows():
    embedding = gluon.nn.Embedding(10, 4, sparse_grad=True)
    embedding.initialize()
    trainer = gluon.Trainer(embedding.collect_params(), 'sgd', {'learning_rate': 0.5})
    with autograd.record():
        loss = embedding(nd.array([1, 3, 3])).sum()
    loss.backward()
    stored = embedding.weight.grad().data.asnumpy()
    before = embedding.weight.data().asnumpy()
    events = []
    with subscribe(events.append, kinds=['norm'], norms=True):
        trainer.step(1)
    (event,) = events
    assert event.values['grad'] == pytest.approx(np.linalg.norm(stored), rel=1e-6)
    assert event.values['update'] == pytest.approx(
        np.linalg.norm(embedding.weight.data().asnumpy() - before), rel=1e-6)
