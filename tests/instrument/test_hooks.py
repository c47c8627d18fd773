"""The training machinery's hook points, observed through a real Trainer."""
import numpy as np
import pytest

import gluonedu as mx
from gluonedu import autograd, gluon, nd
from gluonedu.contrib import amp
from gluonedu.instrument import BUS, subscribe


@pytest.fixture(autouse=True)
def fresh_names():
    with mx.name.NameManager():
        yield


def _mlp(ctx, in_units=4, unused_branch=False):
    class Net(gluon.Block):
        def __init__(self):
            super().__init__()
            with self.name_scope():
                self.hidden = gluon.nn.Dense(3, in_units=in_units)
                self.out = gluon.nn.Dense(2, in_units=3)
                if unused_branch:
                    self.spare = gluon.nn.Dense(2, in_units=3)

        def forward(self, x):
            return self.out(nd.relu(self.hidden(x)))

    net = Net()
    net.initialize(mx.init.Xavier(), ctx=ctx)
    return net


def _step(net, trainer, ctx_list, batch=8, ignore_stale_grad=False, seed=0):
    rng = np.random.default_rng(seed)
    x = nd.array(rng.standard_normal((batch, 4)))
    y = nd.array(rng.integers(0, 2, batch))
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    xs = gluon.utils.split_and_load(x, ctx_list)
    ys = gluon.utils.split_and_load(y, ctx_list)
    with autograd.record():
        losses = [loss_fn(net(a), b) for a, b in zip(xs, ys)]
    autograd.backward(losses)
    trainer.step(batch, ignore_stale_grad=ignore_stale_grad)


def test_recorded_lr_is_schedule_times_lr_mult():
    net = _mlp(mx.cpu())
    net.out.weight.lr_mult = 2.0
    schedule = mx.lr_scheduler.FactorScheduler(step=2, factor=0.5, base_lr=0.1)
    trainer = gluon.Trainer(net.collect_params(), 'sgd', {'lr_scheduler': schedule})
    events = []
    reference = mx.lr_scheduler.FactorScheduler(step=2, factor=0.5, base_lr=0.1)
    with subscribe(events.append, kinds=['lr']):
        for seed in range(5):
            _step(net, trainer, [mx.cpu()], seed=seed)
    by_param = {}
    for e in events:
        by_param.setdefault(e.param, []).append((e.step, e.values['lr']))
    expected = [reference(n) for n in range(1, 6)]
    assert [lr for _, lr in by_param['net0_dense0_weight']] == pytest.approx(expected)
    assert [lr for _, lr in by_param['net0_dense1_weight']] == pytest.approx(
        [2 * lr for lr in expected])
    assert [step for step, _ in by_param['net0_dense0_weight']] == [1, 2, 3, 4, 5]


def test_adam_state_norms_equal_numpy_norms_of_the_states():
    net = _mlp(mx.cpu())
    trainer = gluon.Trainer(net.collect_params(), 'adam', {'learning_rate': 0.01})
    events = []
    with subscribe(events.append, kinds=['state_norm', 'norm'], norms=True):
        for seed in range(3):
            _step(net, trainer, [mx.cpu()], seed=seed)
    last = {e.param: e.values for e in events if e.kind == 'state_norm'}
    states = trainer._updaters[0].states
    for index, param in enumerate(trainer._params):
        mean, var = states[index]
        assert last[param.name]['mean'] == pytest.approx(np.linalg.norm(mean.asnumpy()))
        assert last[param.name]['var'] == pytest.approx(np.linalg.norm(var.asnumpy()))
    norms = [e.values for e in events if e.kind == 'norm']
    assert {'weight', 'grad', 'update'} <= set(norms[-1])
    assert all(v['update'] > 0 for v in norms)


def test_unused_branch_gives_raised_then_skipped_stale_events():
    net = _mlp(mx.cpu(), unused_branch=True)
    trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1})
    events = []
    with subscribe(events.append, kinds=['stale_grad']):
        with pytest.raises(UserWarning, match='has not been updated by backward'):
            _step(net, trainer, [mx.cpu()])
        spare_before = net.spare.weight.data().asnumpy()
        _step(net, trainer, [mx.cpu()], ignore_stale_grad=True)
    raised = [e for e in events if 'raised' in e.values]
    skipped = [e for e in events if 'skipped' in e.values]
    assert raised and raised[0].param == 'net0_dense2_bias'  # sorted names: bias first
    assert {e.param for e in skipped} == {'net0_dense2_weight', 'net0_dense2_bias'}
    np.testing.assert_array_equal(net.spare.weight.data().asnumpy(), spare_before)


def test_two_bit_push_events_report_a_sixteenth_of_the_bytes():
    ctx = [mx.cpu(0), mx.cpu(1)]
    net = _mlp(ctx)
    trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1},
                            kvstore='device', update_on_kvstore=False,
                            compression_params={'type': '2bit', 'threshold': 0.01})
    events = []
    with subscribe(events.append, kinds=['kv_push']):
        _step(net, trainer, ctx)
    assert events
    for e in events:
        assert e.values['devices'] == 2
        dense = e.values['bytes']
        assert e.values['compressed_bytes'] == 4 * np.ceil(dense / 4 / 16)
        assert e.values['residual_norm'] >= 0


def test_clip_global_norm_reports_the_clipping():
    events = []
    grads = [nd.ones((4,)) * 3, nd.ones((9,)) * 4]
    with subscribe(events.append, kinds=['clip']):
        total = gluon.utils.clip_global_norm(grads, max_norm=1.0)
    (event,) = events
    assert event.values['total_norm'] == pytest.approx(total)
    assert event.values['scale'] == pytest.approx(1.0 / total, rel=1e-5)


@pytest.mark.filterwarnings('ignore:invalid value encountered')
def test_loss_scaler_overflow_skips_the_step_and_is_reported():
    net = _mlp(mx.cpu())
    trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1})
    amp.init()
    amp.init_trainer(trainer)
    before = net.hidden.weight.data().asnumpy()
    x = nd.array(np.full((2, 4), np.inf))
    events = []
    with subscribe(events.append, kinds=['overflow']):
        with autograd.record():
            loss = net(x).sum()
            with amp.scale_loss(loss, trainer) as scaled:
                autograd.backward(scaled)
        trainer.step(2)
    np.testing.assert_array_equal(net.hidden.weight.data().asnumpy(), before)
    assert [e.values['loss_scale'] for e in events] == [2.0 ** 16]
    assert trainer.loss_scaler.loss_scale == 2.0 ** 16  # halves from the next step on


def test_no_subscriber_means_no_event_is_built(monkeypatch):
    net = _mlp([mx.cpu(0), mx.cpu(1)])
    trainer = gluon.Trainer(net.collect_params(), 'adam', kvstore='device',
                            compression_params={'type': '2bit', 'threshold': 0.01})
    assert not BUS.active

    def forbidden(*args, **kwargs):
        raise AssertionError('built an event nobody listens to')
    monkeypatch.setattr(BUS, 'emit', forbidden)
    monkeypatch.setattr(BUS, 'wants', forbidden)
    monkeypatch.setattr(BUS, 'wants_norm', forbidden)
    _step(net, trainer, [mx.cpu(0), mx.cpu(1)])
    gluon.utils.clip_global_norm([nd.ones(3)], 1.0)
