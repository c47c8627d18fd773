"""Trainer(..., nonfinite=...): NaN/±Inf gradients are seen without any listener -- a
warning naming each parameter once ('warn', the default), FloatingPointError before the
update ('raise'), or nothing ('ignore') -- on every update path, and not for a step
contrib.amp skips. MXNet's numbers and types beside it:
tests/parity/trainer/test_nonfinite_parity.py.
"""
import warnings

import numpy as np
import pytest

import gluonedu as mx
from gluonedu import autograd, gluon, nd
from gluonedu.contrib import amp
from gluonedu.gluon import Trainer, nn, trainer_nonfinite


@pytest.fixture(autouse=True)
def fresh_names(monkeypatch):
    monkeypatch.delenv('MXNET_UPDATE_ON_KVSTORE', raising=False)
    with mx.name.NameManager():
        yield


def mlp(contexts):
    net = nn.Sequential()
    net.add(nn.Dense(4, activation='relu', in_units=3), nn.Dense(2, in_units=4))
    mx.random.seed(0)
    net.initialize(mx.init.Xavier(), ctx=contexts)
    return net


def backward(net, contexts, poison=None, seed=0):
    """Forward and backward on a fixed batch split over ``contexts``; then, if ``poison``
    is (parameter, value), write value into one entry of that parameter's gradients."""
    x = nd.array(np.random.RandomState(seed).randn(4, 3).astype(np.float32))
    with autograd.record():
        losses = [(net(part) ** 2).sum() for part in gluon.utils.split_and_load(x, contexts)]
    autograd.backward(losses)
    if poison is not None:
        param, value = poison
        for grad in param.list_grad():
            grad[0] = value


def weights(net):
    return [p.data().asnumpy().copy() for p in net.collect_params().values()]


# The update paths: one context (fused and the reference), two contexts with the
# all-reduce and local updates, two contexts with the store running the optimizer.
PATHS = {'one context': dict(contexts=1),
         'reference': dict(contexts=1, fused=False),
         'two contexts': dict(contexts=2, update_on_kvstore=False),
         'on the store': dict(contexts=2, update_on_kvstore=True),
         'on the store, reference': dict(contexts=2, update_on_kvstore=True, fused=False)}


def setup(path, **trainer_kwargs):
    kwargs = dict(PATHS[path])
    contexts = [mx.cpu(i) for i in range(kwargs.pop('contexts'))]
    net = mlp(contexts)
    trainer = Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1, 'momentum': 0.9},
                      kvstore='device', **kwargs, **trainer_kwargs)
    return net, trainer, contexts


@pytest.mark.parametrize('path', PATHS)
def test_a_nan_gradient_is_named_once_with_its_step(path):
    net, trainer, contexts = setup(path)
    first = net[0].weight
    backward(net, contexts)
    trainer.step(4)                                      # step 1: finite, no warning
    backward(net, contexts, poison=(first, np.nan))
    with pytest.warns(RuntimeWarning) as seen:
        trainer.step(4)                                  # step 2
    (warning,) = seen
    message = str(warning.message)
    assert message.startswith('Gradient') and '`%s`' % first.name in message
    assert 'at step 2' in message and 'lower it' in message and 'clip' in message
    assert warning.filename == __file__                  # points at the step() call
    assert np.isnan(first.data().asnumpy()).any()        # the step was made, as in MXNet
    # step 3: the NaN has spread to every gradient; only the others are named now
    backward(net, contexts)
    with pytest.warns(RuntimeWarning) as seen:
        trainer.step(4)
    message = str(seen[0].message)
    assert 'at step 3' in message and '`%s`' % first.name not in message
    assert all('`%s`' % p.name in message
               for p in net.collect_params().values() if p is not first)
    backward(net, contexts)                              # step 4: everything named already
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        trainer.step(4)


@pytest.mark.parametrize('path', ['one context', 'reference', 'two contexts'])
def test_update_after_allreduce_is_checked_too(path):
    net, trainer, contexts = setup(path)
    backward(net, contexts, poison=(net[1].bias, -np.inf))
    trainer.allreduce_grads()
    with pytest.warns(RuntimeWarning, match='`%s`' % net[1].bias.name) as seen:
        trainer.update(4)
    assert seen[0].filename == __file__


@pytest.mark.parametrize('path', PATHS)
def test_raise_stops_before_the_update_and_leaves_no_trace(path):
    net, trainer, contexts = setup(path, nonfinite='raise')
    clean, clean_trainer, _ = setup(path)
    for step in range(3):
        backward(net, contexts, seed=step)
        trainer.step(4)
        backward(clean, contexts, seed=step)
        clean_trainer.step(4)
    before = weights(net)
    backward(net, contexts, poison=(net[0].bias, np.inf))
    with pytest.raises(FloatingPointError, match='not made') as raised:
        trainer.step(4)
    assert '`%s`' % net[0].bias.name in str(raised.value) and 'step 4' in str(raised.value)
    for now, then in zip(weights(net), before):
        np.testing.assert_array_equal(now, then)
    # the next batch trains on as if the poisoned one had never come (momentum included)
    for net_, trainer_ in ((net, trainer), (clean, clean_trainer)):
        backward(net_, contexts, seed=3)
        trainer_.step(4)
    for mine, theirs in zip(weights(net), weights(clean)):
        np.testing.assert_array_equal(mine, theirs)


def test_ignore_looks_at_nothing(monkeypatch):
    net, trainer, contexts = setup('one context', nonfinite='ignore')
    monkeypatch.setattr(trainer_nonfinite, 'all_finite', None)        # would fail if called
    monkeypatch.setattr(trainer_nonfinite, 'nonfinite_counts', None)
    backward(net, contexts, poison=(net[0].weight, np.nan))
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        trainer.step(4)


def test_finite_flat_buffers_are_not_counted_entry_by_entry(monkeypatch):
    # the fused Trainer's cost: one product per flat buffer, no per-gradient count
    net, trainer, contexts = setup('two contexts')

    def forbidden(arrays):
        raise AssertionError('counted finite gradients one by one')
    monkeypatch.setattr(trainer_nonfinite, 'nonfinite_counts', forbidden)
    backward(net, contexts)
    trainer.step(4)


def test_finite_gradients_whose_squares_overflow_are_not_reported():
    net, trainer, contexts = setup('one context')
    trainer.optimizer.set_learning_rate(0.0)
    backward(net, contexts, poison=(net[0].weight, 3e20))   # Σg² is inf in float32
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        trainer.step(4)


def test_a_step_amp_skips_is_not_reported():
    net, trainer, contexts = setup('one context', nonfinite='raise')
    amp.init()
    amp.init_trainer(trainer)
    before = weights(net)
    backward(net, contexts, poison=(net[0].weight, np.inf))
    trainer.step(4)          # the loss scaler skips it: nothing applied, nothing to say
    for now, then in zip(weights(net), before):
        np.testing.assert_array_equal(now, then)


def test_the_mode_is_checked_and_may_change_between_steps():
    net, trainer, contexts = setup('one context')
    assert trainer.nonfinite == 'warn'
    with pytest.raises(ValueError, match="'warn', 'raise', 'ignore'"):
        trainer.nonfinite = 'error'
    with pytest.raises(ValueError, match='nonfinite must be one of'):
        Trainer(net.collect_params(), 'sgd', nonfinite=True)
    with pytest.raises(TypeError):    # keyword only: MXNet's positional arguments unchanged
        Trainer(net.collect_params(), 'sgd', None, 'device', None, None, True, 'raise')
    trainer.nonfinite = 'raise'
    backward(net, contexts, poison=(net[0].weight, np.nan))
    with pytest.raises(FloatingPointError):
        trainer.step(4)


def test_a_message_lists_many_parameters_briefly():
    net = nn.Sequential()
    for _ in range(8):
        net.add(nn.Dense(2, in_units=2))
    net.initialize()
    trainer = Trainer(net.collect_params(), 'sgd')
    x = nd.array([[np.nan, 1.]])
    with autograd.record():
        loss = net(x).sum()
    loss.backward()
    with pytest.warns(RuntimeWarning) as seen:
        trainer.step(1)
    message = str(seen[0].message)
    # a NaN input: every weight's gradient is NaN (the biases' are not)
    assert message.startswith('Gradients of 8 Parameters hold NaN or infinite values '
                              'at step 1') and 'and 2 more' in message
