"""The Recorder: rows and columns, sampling, trainer filtering, metrics, exports, summary."""
import json
import math
import os
import struct
import sys

import numpy as np
import pytest

import gluonedu as mx
from gluonedu import autograd, gluon, nd
from gluonedu.gluon import nn
from gluonedu.instrument import BUS, Recorder
from gluonedu.instrument.recorder import ALWAYS_KEPT, COLUMNS, Row

Trainer = gluon.Trainer


@pytest.fixture(autouse=True)
def clean_bus(monkeypatch):
    """Fresh parameter names, BUS.step restored, and no subscriber left behind."""
    monkeypatch.delenv('MXNET_UPDATE_ON_KVSTORE', raising=False)
    monkeypatch.setattr(BUS, 'step', 0)
    with mx.name.NameManager():
        yield
    leftover = BUS._subscriptions
    for sub in leftover:
        sub.remove()
    assert not leftover, "a test left a subscription on the bus"


def at_step(monkeypatch, step):
    monkeypatch.setattr(BUS, 'step', step)


def f32(values):
    return nd.array(np.asarray(values, dtype=np.float32))


# ------------------------------------------------------------------ rows and columns

def test_rows_from_synthetic_events(monkeypatch):
    with Recorder(norms=True) as rec:
        at_step(monkeypatch, 3)
        BUS.emit('lr', 'optimizer', param='fc_weight', context=mx.cpu(0), lr=0.5)
        BUS.emit('norm', 'optimizer', param='fc_weight', context='cpu(0)',
                 weight=2.0, grad=0.25, update=0.125)
        BUS.emit('kv_push', 'kvstore', param=0, bytes=16.0, devices=2.0)
        BUS.emit('step_end', 'trainer', batch_size=8.0, rescale=0.125)
    assert COLUMNS == ('step', 'event', 'source', 'param', 'context', 'name', 'value')
    assert rec.rows == [
        (3, 'lr', 'optimizer', 'fc_weight', 'cpu(0)', 'lr', 0.5),
        (3, 'norm', 'optimizer', 'fc_weight', 'cpu(0)', 'weight', 2.0),
        (3, 'norm', 'optimizer', 'fc_weight', 'cpu(0)', 'grad', 0.25),
        (3, 'norm', 'optimizer', 'fc_weight', 'cpu(0)', 'update', 0.125),
        (3, 'kv_push', 'kvstore', '0', None, 'bytes', 16.0),
        (3, 'kv_push', 'kvstore', '0', None, 'devices', 2.0),
        (3, 'step_end', 'trainer', None, None, 'batch_size', 8.0),
        (3, 'step_end', 'trainer', None, None, 'rescale', 0.125),
    ]
    row = rec.rows[0]
    assert isinstance(row, Row) and row._fields == COLUMNS
    assert (row.step, row.value) == (3, 0.5)
    assert isinstance(row.step, int) and isinstance(row.value, float)
    assert len(rec) == 8
    rec.rows.clear()   # a copy: the table itself is untouched
    assert len(rec) == 8


def test_norms_off_by_default_and_kinds_filter():
    with Recorder(kinds=['lr', 'norm'], norms=False) as rec:
        assert BUS.wants('lr') and not BUS.wants('wd') and not BUS.wants('norm')
        BUS.emit('lr', 'optimizer', param='w', lr=0.1)
        BUS.emit('wd', 'optimizer', param='w', wd=0.1)
        BUS.emit('norm', 'optimizer', param='w', grad=1.0)
    assert [r.event for r in rec.rows] == ['lr']
    with pytest.raises(ValueError, match='unknown event kinds'):
        Recorder(kinds=['learning_rate'])


def adam_run(monkeypatch, steps=3, norms=True):
    """An Adam Updater on one parameter, called ``steps`` times under a Recorder."""
    optimizer = mx.optimizer.create('adam', learning_rate=0.01, wd=0.001,
                                    param_idx2name={0: 'fc_weight'})
    updater = mx.optimizer.get_updater(optimizer)
    rng = np.random.RandomState(0)
    weight = f32(rng.randn(4, 3))
    with Recorder(norms=norms) as rec:
        for step in range(1, steps + 1):
            at_step(monkeypatch, step)
            updater(0, f32(rng.randn(4, 3)), weight)
    return rec, updater, weight


def test_real_updater_lr_and_state_norms(monkeypatch):
    rec, updater, weight = adam_run(monkeypatch)
    lr_rows = [r for r in rec.rows if r.event == 'lr']
    assert [(r.step, r.source, r.param, r.context, r.name) for r in lr_rows] == [
        (s, 'optimizer', 'fc_weight', 'cpu(0)', 'lr') for s in (1, 2, 3)]
    assert all(r.value == pytest.approx(0.01) for r in lr_rows)
    assert [r.value for r in rec.rows if r.event == 'wd'] == pytest.approx([0.001] * 3)

    state_rows = [r for r in rec.rows if r.event == 'state_norm']
    assert [(r.step, r.name) for r in state_rows] == [
        (s, n) for s in (1, 2, 3) for n in ('mean', 'var')]
    mean, var = (s.asnumpy().astype(np.float64) for s in updater.states[0])
    last = {r.name: r.value for r in state_rows if r.step == 3}
    assert last['mean'] == pytest.approx(np.linalg.norm(mean), rel=1e-12)
    assert last['var'] == pytest.approx(np.linalg.norm(var), rel=1e-12)
    assert {r.name for r in rec.rows if r.event == 'norm'} == {'weight', 'grad', 'update'}
    last_weight = [r.value for r in rec.rows if r.event == 'norm' and r.name == 'weight'][-1]
    assert last_weight == pytest.approx(np.linalg.norm(weight.asnumpy().astype(np.float64)))


def test_only_the_requested_norms_are_computed(monkeypatch):
    rec, _, _ = adam_run(monkeypatch, steps=2, norms=['grad', 'var'])
    assert {(r.event, r.name) for r in rec.rows if r.event in ('norm', 'state_norm')} == {
        ('norm', 'grad'), ('state_norm', 'var')}
    with pytest.raises(TypeError, match='norms must'):
        Recorder(norms=3)
    with Recorder(norms='grad') as rec:   # one name is a list of one
        assert rec.norms == ['grad'] and BUS.wants_norm('grad')


# ------------------------------------------------------------------ sampling

def test_every_keeps_sampled_steps_and_the_rare_events(monkeypatch):
    assert ALWAYS_KEPT == {'metric', 'stale_grad', 'overflow'}
    with Recorder(every=3) as rec:
        for step in range(7):
            at_step(monkeypatch, step)
            BUS.emit('lr', 'optimizer', param='w', lr=0.1)
            BUS.emit('stale_grad', 'trainer', param='w', context='cpu(0)', skipped=1.0)
            BUS.emit('metric', 'user', loss=1.0 / (step + 1))
        BUS.emit('overflow', 'loss_scaler', loss_scale=1024.0)   # at step 6
        rec.log('accuracy', 0.5, step=5)
    steps = lambda event: [r.step for r in rec.rows if r.event == event]
    assert steps('lr') == [0, 3, 6]
    assert steps('stale_grad') == list(range(7))
    assert steps('metric') == list(range(7)) + [5]
    assert steps('overflow') == [6]
    with pytest.raises(ValueError, match='every must be'):
        Recorder(every=0)


def test_norms_are_not_computed_between_sampled_steps(monkeypatch):
    with Recorder(every=2, norms=True, kinds=['norm']) as rec:
        for step in (1, 2, 3):
            at_step(monkeypatch, step)
            BUS.emit('step_begin', 'trainer', batch_size=1.0, rescale=1.0)
            assert BUS.wants('norm') == (step % 2 == 0)
            assert BUS.wants_norm('grad') == (step % 2 == 0)
    assert rec.rows == []   # step_begin was only listened to, not recorded


def test_every_with_a_real_trainer(monkeypatch):
    net, trainer = dense_trainer()
    with Recorder(trainer, every=2, norms=True) as rec:
        train(net, trainer, steps=5)
    assert sorted({r.step for r in rec.rows if r.event == 'norm'}) == [2, 4]
    assert sorted({r.step for r in rec.rows}) == [2, 4]


# ------------------------------------------------------------------ filtering by trainer

class StubParam:
    def __init__(self, name):
        self.name = name


class StubTrainer:
    """What the Recorder relies on: ``params``, in KVStore-key order."""

    def __init__(self, *names):
        self.params = [StubParam(n) for n in names]


def test_trainer_filter_with_a_stub():
    trainer = StubTrainer('a_bias', 'a_weight')
    with Recorder(trainer) as rec:
        BUS.emit('lr', 'optimizer', param='a_weight', lr=0.1)
        BUS.emit('lr', 'optimizer', param='b_weight', lr=0.2)      # another trainer's
        BUS.emit('kv_push', 'kvstore', param=1, bytes=24.0)          # key 1 is a_weight
        BUS.emit('kv_pull', 'kvstore', param=7, bytes=8.0)           # no such index
        BUS.emit('stale_grad', 'trainer', param='b_bias', skipped=1.0)
        BUS.emit('step_begin', 'trainer', batch_size=1.0, rescale=1.0)
        BUS.emit('schedule', 'scheduler', lr=0.1)
    assert [(r.event, r.param, r.name) for r in rec.rows] == [
        ('lr', 'a_weight', 'lr'), ('kv_push', 'a_weight', 'bytes'),
        ('step_begin', None, 'batch_size'), ('step_begin', None, 'rescale'),
        ('schedule', None, 'lr')]
    with pytest.raises(TypeError, match='gluon.Trainer'):
        Recorder(trainer=object())


@pytest.mark.parametrize('fused', [True, False])
def test_the_schedule_is_recorded_once_per_step(fused):
    sched = mx.lr_scheduler.FactorScheduler(step=2, factor=0.5, base_lr=0.1)
    net = nn.Dense(2, in_units=3)
    net.initialize(ctx=[mx.cpu(0), mx.cpu(1)])
    trainer = Trainer(net.collect_params(), 'sgd', {'lr_scheduler': sched},
                      update_on_kvstore=False, fused=fused)
    with Recorder(trainer, kinds=['schedule']) as rec:
        for _ in range(5):
            with autograd.record():
                losses = [net(mx.nd.ones((1, 3), ctx=c)).sum() for c in net.weight.list_ctx()]
            autograd.backward(losses)
            trainer.step(1)
    reference = mx.lr_scheduler.FactorScheduler(step=2, factor=0.5, base_lr=0.1)
    assert [(r.step, r.source, r.name, r.value) for r in rec.rows] == [
        (n, 'scheduler', 'lr', reference(n)) for n in range(1, 6)]


def dense_trainer(prefix=None, ctx=None, optimizer='sgd', **kwargs):
    net = nn.Dense(2, in_units=3, prefix=prefix)
    net.initialize(ctx=ctx)
    rng = np.random.RandomState(0)
    net.weight.set_data(f32(rng.randn(2, 3)))
    net.bias.set_data(f32(rng.randn(2)))
    params = {'learning_rate': 0.1, 'momentum': 0.9} if optimizer == 'sgd' else {}
    return net, Trainer(net.collect_params(), optimizer, params, **kwargs)


def train(net, trainer, steps, ctxs=None, rec=None):
    ctxs = ctxs or [mx.cpu()]
    rng = np.random.RandomState(1)
    for _ in range(steps):
        losses = []
        for ctx in ctxs:
            x = nd.array(rng.randn(4, 3).astype(np.float32), ctx=ctx)
            with autograd.record():
                loss = (net(x) ** 2).mean()
            loss.backward()
            losses.append(loss.asnumpy())
        trainer.step(1)
        if rec is not None:
            rec.log('loss', np.mean(losses))


def test_trainer_filter_with_real_trainers():
    net_a, trainer_a = dense_trainer('a_', ctx=[mx.cpu(0), mx.cpu(1)])
    net_b, trainer_b = dense_trainer('b_')
    with Recorder(trainer_a) as rec_a, Recorder() as rec_all:
        train(net_a, trainer_a, 2, ctxs=[mx.cpu(0), mx.cpu(1)])
        train(net_b, trainer_b, 1)
    params_a = {r.param for r in rec_a.rows if r.param is not None}
    assert params_a == {'a_weight', 'a_bias'}
    # The store's keys are the trainer's parameter indices; rec_a names them.
    assert {(r.event, r.param) for r in rec_a.rows if r.source == 'kvstore'} >= {
        ('kv_push', 'a_weight'), ('kv_push', 'a_bias')}
    assert {r.param for r in rec_all.rows if r.source == 'kvstore'} == {'0', '1'}
    assert {'b_weight', 'b_bias'} <= {r.param for r in rec_all.rows}
    # Step-wide events of both trainers pass (events cannot tell trainers apart); each
    # trainer counts its own steps, so trainer_b's first step is step 1 again.
    assert [r.step for r in rec_a.rows if r.event == 'step_end' and r.name == 'rescale'] == [1, 2, 1]


# ------------------------------------------------------------------ metrics

def test_log_and_log_metric(monkeypatch):
    at_step(monkeypatch, 4)
    with Recorder(kinds=['lr']) as rec:     # metric rows are kept whatever kinds say
        rec.log('loss', nd.array([0.5]))
        rec.log('loss', np.float32(0.25), step=9)
        rec.log_metric('accuracy', 0.75)
        rec.log_metric(loss=0.125, accuracy=0.875, step=10)
    rec.log('late', 1)                       # also after detaching
    assert rec.rows == [
        (4, 'metric', 'user', None, None, 'loss', 0.5),
        (9, 'metric', 'user', None, None, 'loss', 0.25),
        (4, 'metric', 'user', None, None, 'accuracy', 0.75),
        (10, 'metric', 'user', None, None, 'loss', 0.125),
        (10, 'metric', 'user', None, None, 'accuracy', 0.875),
        (4, 'metric', 'user', None, None, 'late', 1.0),
    ]
    with pytest.raises(ValueError, match=r'one number.*loss.mean\(\)'):
        rec.log('loss', np.ones(3))
    with pytest.raises(TypeError, match='needs a value'):
        rec.log_metric('loss')
    with pytest.raises(TypeError, match='needs something to log'):
        rec.log_metric()
    with pytest.raises(TypeError, match='name must be'):
        rec.log(3, 0.5)


def test_series(monkeypatch):
    rec, _, _ = adam_run(monkeypatch, steps=3)
    steps, lrs = rec.series('lr', 'lr')
    assert steps.dtype == np.int64 and lrs.dtype == np.float64
    assert steps.tolist() == [1, 2, 3] and lrs == pytest.approx([0.01] * 3)
    steps, means = rec.series('state_norm', 'mean', param='fc_weight', context='cpu(0)')
    assert len(means) == 3 and np.all(means > 0)
    with pytest.raises(ValueError, match=r"recorded names are 'mean', 'var'"):
        rec.series('state_norm', 'momentum')
    with pytest.raises(ValueError, match='unknown event kind'):
        rec.series('lrs', 'lr')
    with pytest.raises(ValueError, match="param='fc_bias'"):
        rec.series('lr', 'lr', param='fc_bias')
    empty = rec.series('metric', 'loss')        # nothing logged yet: empty arrays
    assert [a.size for a in empty] == [0, 0]
    rec.log('loss', 1.0)
    with Recorder() as two:
        BUS.emit('lr', 'optimizer', param='a', lr=0.1)
        BUS.emit('lr', 'optimizer', param='b', lr=0.2)
    with pytest.raises(ValueError, match=r"several params \('a', 'b'\); pass param="):
        two.series('lr', 'lr')


# ------------------------------------------------------------------ lifetime

def test_detach_stops_recording_and_keeps_rows():
    rec = Recorder()
    assert rec.attached and BUS.active
    BUS.emit('lr', 'optimizer', param='w', lr=0.1)
    rec.detach()
    rec.detach()   # idempotent
    assert not rec.attached and not BUS.active
    BUS.emit('lr', 'optimizer', param='w', lr=0.2)
    assert [r.value for r in rec.rows] == [0.1]
    assert repr(rec) == '<Recorder: 1 rows, every=1, detached>'


def test_context_manager_detaches_even_on_error():
    with pytest.raises(RuntimeError):
        with Recorder() as rec:
            BUS.emit('wd', 'optimizer', param='w', wd=0.0)
            raise RuntimeError('training failed')
    assert not rec.attached and not BUS.active and len(rec) == 1
    rec.clear()
    assert len(rec) == 0


# ------------------------------------------------------------------ exports

def mixed_recorder(monkeypatch):
    """A recorder with every column type exercised: None, ints, floats, nan and inf."""
    with Recorder(norms=True) as rec:
        at_step(monkeypatch, 1)
        BUS.emit('lr', 'optimizer', param='fc_weight', context='cpu(0)', lr=0.1)
        BUS.emit('norm', 'optimizer', param='fc_weight', context='cpu(0)',
                 grad=float('nan'), weight=float('inf'), update=1 / 3)
        BUS.emit('kv_push', 'kvstore', param=0, bytes=12.0, devices=2.0)
        rec.log('loss', 2.302585092994046)
    return rec


def same_rows(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert x[:-1] == y[:-1]
        assert x[-1] == y[-1] or (math.isnan(x[-1]) and math.isnan(y[-1]))


def test_csv_roundtrip_is_atomic(monkeypatch, tmp_path):
    rec = mixed_recorder(monkeypatch)
    path = tmp_path / 'run.csv'
    assert rec.to_csv(path) == path
    assert os.listdir(tmp_path) == ['run.csv']   # no temp file left behind
    lines = path.read_text().splitlines()
    assert lines[0] == 'step,event,source,param,context,name,value'
    assert lines[1] == '1,lr,optimizer,fc_weight,cpu(0),lr,0.1'
    assert lines[-1] == '1,metric,user,,,loss,2.302585092994046'
    back = Recorder.from_csv(path)
    same_rows(back.rows, rec.rows)
    assert not back.attached
    (tmp_path / 'other.csv').write_text('a,b\n1,2\n')
    with pytest.raises(ValueError, match='not a Recorder CSV'):
        Recorder.from_csv(tmp_path / 'other.csv')


def test_jsonl_roundtrip_is_atomic(monkeypatch, tmp_path):
    rec = mixed_recorder(monkeypatch)
    path = str(tmp_path / 'run.jsonl')
    rec.to_jsonl(path)
    rec.to_jsonl(path)   # overwriting is atomic too
    assert os.listdir(tmp_path) == ['run.jsonl']
    with open(path) as f:
        first = json.loads(f.readline())
    assert first == {'step': 1, 'event': 'lr', 'source': 'optimizer', 'param': 'fc_weight',
                     'context': 'cpu(0)', 'name': 'lr', 'value': 0.1}
    same_rows(Recorder.from_jsonl(path).rows, rec.rows)


def test_a_failed_write_leaves_the_old_file(monkeypatch, tmp_path):
    rec = mixed_recorder(monkeypatch)
    path = tmp_path / 'run.csv'
    path.write_text('old')
    monkeypatch.setattr(os, 'fsync', lambda fd: (_ for _ in ()).throw(OSError('disk full')))
    with pytest.raises(OSError, match='disk full'):
        rec.to_csv(path)
    assert path.read_text() == 'old' and os.listdir(tmp_path) == ['run.csv']


def test_to_pandas_columns_and_dtypes(monkeypatch):
    pd = pytest.importorskip('pandas', reason='pandas is not installed (pip install pandas, '
                                              "or the notebook extra: pip install -e '.[notebook]')")
    rec = mixed_recorder(monkeypatch)
    frame = rec.to_pandas()
    assert list(frame.columns) == list(COLUMNS)
    assert frame['step'].dtype == np.int64 and frame['value'].dtype == np.float64
    for column in ('event', 'source', 'param', 'context', 'name'):
        assert pd.api.types.is_string_dtype(frame[column]) or frame[column].dtype == object
    assert len(frame) == len(rec)
    assert frame['param'].isna().tolist() == [r.param is None for r in rec.rows]
    assert frame.loc[0, 'value'] == 0.1
    with Recorder() as nothing:
        empty = nothing.to_pandas()
    assert list(empty.columns) == list(COLUMNS) and empty['step'].dtype == np.int64


def test_to_pandas_without_pandas_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, 'pandas', None)   # import pandas now fails
    with Recorder() as rec:
        with pytest.raises(ImportError, match='pip install pandas'):
            rec.to_pandas()


def read_scalars(logdir):
    """(tag, step, value) of every scalar in the TensorBoard event files under ``logdir``."""
    from tensorboardX.proto import event_pb2
    out = []
    for name in sorted(os.listdir(logdir)):
        with open(os.path.join(logdir, name), 'rb') as f:
            data = f.read()
        pos = 0
        while pos < len(data):   # TFRecord: length, crc, payload, crc
            (length,) = struct.unpack('<Q', data[pos:pos + 8])
            event = event_pb2.Event.FromString(data[pos + 12:pos + 12 + length])
            pos += 12 + length + 4
            for value in event.summary.value:
                out.append((value.tag, event.step, value.simple_value))
    return out


def test_to_tensorboard(monkeypatch, tmp_path):
    pytest.importorskip('tensorboardX', reason="tensorboardX is not installed "
                                               "(pip install -e '.[tensorboard]')")
    with Recorder() as rec:
        for step, ctx in ((1, 'cpu(0)'), (1, 'cpu(1)'), (2, 'cpu(0)'), (2, 'cpu(1)')):
            at_step(monkeypatch, step)
            BUS.emit('lr', 'optimizer', param='fc_weight', context=ctx, lr=0.1 * step)
            BUS.emit('wd', 'optimizer', param='fc_weight', context='cpu(0)', wd=0.5)
        rec.log('loss', 0.25)
    logdir = tmp_path / 'tb'
    assert rec.to_tensorboard(logdir) == logdir
    scalars = read_scalars(logdir)
    assert sorted(set(tag for tag, _, _ in scalars)) == [
        'lr/fc_weight/lr/cpu_0', 'lr/fc_weight/lr/cpu_1', 'metric/loss', 'wd/fc_weight/wd']
    assert ('lr/fc_weight/lr/cpu_1', 2, pytest.approx(0.2)) in scalars
    assert ('metric/loss', 2, 0.25) in scalars
    assert len(scalars) == len(rec)


def test_to_tensorboard_without_tensorboardx_says_how_to_install(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, 'tensorboardX', None)
    with Recorder() as rec:
        with pytest.raises(ImportError, match=r"pip install 'tensorboardX>=2.6'"):
            rec.to_tensorboard(tmp_path)


# ------------------------------------------------------------------ summary

def test_summary_of_synthetic_events(monkeypatch):
    with Recorder(norms=True) as rec:
        for step in (1, 2):
            at_step(monkeypatch, step)
            BUS.emit('lr', 'optimizer', param='fc_weight', context='cpu(0)', lr=0.1 / step)
            BUS.emit('wd', 'optimizer', param='fc_weight', context='cpu(0)', wd=-0.0)
            BUS.emit('norm', 'optimizer', param='fc_weight', context='cpu(0)',
                     grad=1.23456789 * step)
            BUS.emit('state_norm', 'optimizer', param='fc_weight', context='cpu(0)',
                     momentum=0.000123456 * step)
            rec.log('loss', 2.0 / step)
        BUS.emit('stale_grad', 'trainer', param='head_bias', context='cpu(0)', skipped=1.0)
    assert rec.summary() == '\n'.join([
        'Recorder: 11 rows, steps 1-2, every 1',
        'rows per event kind:',
        '  lr          2',
        '  metric      2',
        '  norm        2',
        '  stale_grad  1',
        '  state_norm  2',
        '  wd          2',
        'last lr / wd per parameter:',
        '  fc_weight  lr 0.05  wd 0',
        'norms, first -> last:',
        '  fc_weight  grad              1.235 -> 2.469',
        '  fc_weight  momentum (state)  0.0001235 -> 0.0002469',
        'stale gradient events: 1',
        '  head_bias  cpu(0)  skipped 1',
        'metrics, first -> last:',
        '  loss  2 -> 1',
    ])
    assert Recorder.summary(Recorder._detached([])) == 'Recorder: 0 rows, every 1'


def recorded_run():
    """The same small training run, each time from scratch: (summary, rows)."""
    with mx.name.NameManager():
        net, trainer = dense_trainer(optimizer='adam')
        with Recorder(trainer, norms=True) as rec:
            train(net, trainer, steps=3, rec=rec)
    return rec


def test_summary_is_deterministic_for_a_real_run():
    first, second = recorded_run(), recorded_run()
    assert first.summary() == second.summary()
    text = first.summary()
    assert '0x' not in text and 'Recorder: ' in text
    for expected in ('dense0_weight  lr 0.001  wd 0', 'dense0_weight  mean (state)',
                     'dense0_weight  var (state)', 'dense0_weight  update',
                     'stale gradient events: 0', 'metrics, first -> last:'):
        assert expected in text, expected


def test_stale_gradients_of_an_unused_branch_are_recorded():
    class Branchy(gluon.Block):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.used = nn.Dense(2, in_units=3)
                self.unused = nn.Dense(2, in_units=3)

        def forward(self, x):
            return self.used(x)

    net = Branchy(prefix='branchy_')
    net.initialize()
    trainer = Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1})
    with Recorder(trainer) as rec:
        for _ in range(2):
            with autograd.record():
                loss = net(nd.ones((2, 3))).sum()
            loss.backward()
            trainer.step(1, ignore_stale_grad=True)
    stale = [(r.step, r.param, r.context, r.name, r.value)
             for r in rec.rows if r.event == 'stale_grad']
    assert stale == [(s, 'branchy_dense1_' + p, 'cpu(0)', 'skipped', 1.0)
                     for s in (1, 2) for p in ('bias', 'weight')]
    assert 'stale gradient events: 4\n  branchy_dense1_bias    cpu(0)  skipped 2' in rec.summary()


def test_batched_events_give_the_rows_single_events_give():
    entries = [('w0', 'cpu(0)', {'weight': 1.0, 'grad': 2.0}), ('w1', 'cpu(0)', {'weight': 3.0})]
    with Recorder(norms=True) as batched:
        BUS.emit_batch('norm', 'optimizer', entries, step=2)
    with Recorder(norms=True) as single:
        for param, context, values in entries:
            BUS.emit('norm', 'optimizer', param, context, step=2, **values)
    assert batched.rows == single.rows
    assert [(r.param, r.name, r.value) for r in batched.rows] == [
        ('w0', 'weight', 1.0), ('w0', 'grad', 2.0), ('w1', 'weight', 3.0)]


def test_rows_keep_the_order_of_events_and_logged_metrics():
    with Recorder() as rec:
        BUS.emit_batch('lr', 'optimizer', [('w0', None, {'lr': 0.1})], step=1)
        rec.log('loss', 2.0, step=1)
        assert [r.event for r in rec.rows] == ['lr', 'metric']   # readable at once
        BUS.emit('wd', 'optimizer', 'w0', None, step=2, wd=0.01)
        rec.log('loss', 1.5, step=2)
    assert [(r.step, r.event, r.value) for r in rec.rows] == [
        (1, 'lr', 0.1), (1, 'metric', 2.0), (2, 'wd', 0.01), (2, 'metric', 1.5)]
    assert len(rec) == 4 and rec.series('metric', 'loss')[1].tolist() == [2.0, 1.5]
