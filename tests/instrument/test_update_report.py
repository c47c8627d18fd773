"""An update's report: one record per update for a sink, the same events for a callback,
made from the numbers the step used, and nothing measured when nobody listens."""
import warnings

import numpy as np
import pytest

import gluonedu as mx
from gluonedu import autograd, gluon, nd
from gluonedu.instrument import Recorder, subscribe
from gluonedu.instrument.events import BUS
from gluonedu.optimizer import reporting


@pytest.fixture(autouse=True)
def fresh_names():
    with mx.name.NameManager():
        yield


def _trainer(fused, optimizer='adam', **params):
    mx.random.seed(3)
    net = gluon.nn.Sequential()
    net.add(gluon.nn.Dense(6, in_units=4), gluon.nn.Dense(2, in_units=6))
    net.initialize(mx.init.Xavier())
    params.setdefault('learning_rate', 0.01)
    return net, gluon.Trainer(net.collect_params(), optimizer, params, fused=fused)


def _step(net, trainer, seed=0, poison=False):
    x = nd.array(np.random.default_rng(seed).standard_normal((5, 4)))
    with autograd.record():
        loss = net(x).sum()
    loss.backward()
    if poison:
        grad = trainer._params[0].grad()
        values = grad.asnumpy()
        values.flat[:2] = [np.nan, np.inf]
        grad[:] = values
    trainer.step(5)


@pytest.mark.parametrize('fused', [True, False])
def test_a_sink_gets_one_record_per_update_and_a_callback_the_same_events(fused):
    net, trainer = _trainer(fused)
    records, events = [], []
    with subscribe(None, sink=records.append, norms=True), \
            subscribe(events.append, norms=True):
        _step(net, trainer)
    kinds = [record[1] for record in records]
    assert kinds == ['step_begin', None, 'step_end']   # None: the update's report
    step, _, source, report = records[1]
    assert (step, source) == (trainer._num_steps, 'optimizer')
    assert report.kinds == ('lr', 'wd', 'norm', 'state_norm')   # no non-finite gradient
    from_report = [(kind, param, context, dict(values)) for kind in report.kinds
                   for param, context, values in report.entries(kind)]
    from_events = [(e.kind, e.param, e.context, dict(e.values)) for e in events
                   if e.source == 'optimizer']
    assert from_report == from_events
    names = [p.name for p in trainer._params]
    assert [param for kind, param, _, _ in from_report if kind == 'lr'] == names


@pytest.mark.parametrize('fused', [True, False])
def test_the_lr_reported_is_the_one_the_step_used(fused):
    schedule = mx.lr_scheduler.FactorScheduler(step=1, factor=0.5, base_lr=0.08)
    net, trainer = _trainer(fused, 'sgd', learning_rate=0.08, lr_scheduler=schedule)
    trainer._params[1].lr_mult = 3.0
    with Recorder(trainer, kinds=['lr']) as rec:
        for step in range(4):
            _step(net, trainer, step)
    lrs = {}
    for row in rec.rows:
        lrs.setdefault(row.param, []).append(row.value)
    # the scheduler halves the lr at every update count past the first
    expected = [0.08, 0.04, 0.02, 0.01]
    for index, param in enumerate(trainer._params):
        mult = 3.0 if index == 1 else 1.0
        np.testing.assert_allclose(lrs[param.name], [lr * mult for lr in expected])


@pytest.mark.parametrize('fused', [True, False])
def test_an_update_nobody_listens_to_measures_nothing(fused, monkeypatch):
    net, trainer = _trainer(fused)
    measured = []
    monkeypatch.setattr(mx.optimizer.updater, 'UpdateReport',
                        lambda *args, **kw: measured.append(args))
    monkeypatch.setattr(mx.optimizer.updater, 'report_clip',
                        lambda *args, **kw: measured.append(args))
    with Recorder(trainer, kinds=['metric']) as rec:
        assert BUS.active and not reporting.interest().any
        _step(net, trainer)
        rec.log('loss', 1.0)
    assert measured == []
    assert [r.event for r in rec.rows] == ['metric']


def test_the_interest_is_worked_out_again_when_the_subscribers_change():
    with subscribe(print, kinds=['lr']) as sub:
        first = reporting.interest()
        assert first.kinds == ('lr',) and first.request is None and first.any
        assert reporting.interest() is first   # kept while nothing changed
        sub.norms = ['grad']
        assert reporting.interest().kinds == ('lr',)
    with subscribe(print, kinds=['norm', 'nonfinite'], norms=['grad']):
        now = reporting.interest()
        assert now.kinds == ('norm', 'nonfinite')
        assert now.request.param == ('grad',) and now.request.nonfinite


def test_equal_wants_give_equal_bus_keys():
    with subscribe(print, kinds=['lr', 'norm'], norms=['grad', 'mean']):
        key = BUS.wants_key
    with subscribe(print, kinds=['norm', 'lr'], norms=('mean', 'grad')):
        assert BUS.wants_key == key
    with subscribe(print, kinds=['lr', 'norm'], norms=True):
        assert BUS.wants_key != key
    with subscribe(print, kinds=['lr', 'norm'], norms=['grad']):
        assert BUS.wants_key != key


def test_a_recorder_attached_again_finds_the_interest_and_the_flat_norms_it_left():
    """What a step keeps per request (the Interest, a flat run's norm buffers) is found
    again by the next Recorder that wants the same: attaching one costs no rebuild."""
    net, trainer = _trainer(True)
    with Recorder(trainer) as first:
        _step(net, trainer, 0)
        wanted = reporting.interest()
        run, = trainer._updaters[0].flat_runs()
        kept = run._norms_kept
    with Recorder(trainer) as second:
        _step(net, trainer, 1)
        assert reporting.interest() is wanted
        assert run._norms_kept is kept
    assert [r.event for r in first.rows] == [r.event for r in second.rows]
    with Recorder(trainer, norms=['grad']):
        assert reporting.interest() is not wanted


@pytest.mark.parametrize('fused', [True, False])
def test_a_sampling_recorder_keeps_nonfinite_rows_of_every_step(fused):
    net, trainer = _trainer(fused, 'sgd')
    with Recorder(trainer, every=2) as rec:
        _step(net, trainer, 0)                 # step 1: not sampled
        _step(net, trainer, 1, poison=True)    # step 2: sampled
        _step(net, trainer, 2, poison=True)    # step 3: not sampled, but non-finite
    steps = {(r.event, r.step) for r in rec.rows}
    assert ('lr', 2) in steps and ('lr', 1) not in steps and ('lr', 3) not in steps
    assert ('nonfinite', 2) in steps and ('nonfinite', 3) in steps
    first = trainer._params[0].name
    assert [(r.param, r.value) for r in rec.rows
            if r.event == 'nonfinite' and r.step == 2] == [(first, 2.0)]


@pytest.mark.parametrize('fused', [True, False])
def test_report_labels_are_the_names_at_step_time(fused):
    net, trainer = _trainer(fused)
    with Recorder(kinds=['lr']) as rec:
        _step(net, trainer)
        names = [p.name for p in trainer._params]
        trainer._optimizer.param_dict = {}    # a later Trainer would give it new ones
    assert [r.param for r in rec.rows] == names


def test_nonfinite_count_raises_no_warning_on_both_infinities():
    array = nd.array([1.0, np.inf, -np.inf, np.nan, 2.0])
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        assert reporting.nonfinite_count(array) == 3
        assert reporting.nonfinite_count(nd.array([1.0, 2.0])) == 0


@pytest.mark.parametrize('dtype', ['float16', 'float32', 'float64'])
def test_nonfinite_count_is_exact_where_squares_overflow(dtype):
    """Entries whose squares overflow are finite: they are not counted."""
    big = {'float16': 6e4, 'float32': 3e38, 'float64': 1e300}[dtype]
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        assert reporting.nonfinite_count(nd.array([big, -big, 1.0], dtype=dtype)) == 0
        assert reporting.nonfinite_count(nd.array([big, np.nan, -np.inf], dtype=dtype)) == 2
        assert reporting.nonfinite_count(nd.zeros((3, 0 + 2), dtype=dtype)) == 0


def test_an_optimizer_that_reads_its_lr_its_own_way_reports_it():
    """A user's optimizer written as in MXNet (``_update_count``, ``_get_lr``) logs
    nothing through begin_step: its lr and wd are read when the update is reported."""
    @mx.optimizer.register
    class PlainSGD(mx.optimizer.Optimizer):
        def create_state(self, index, weight):
            return None

        def update(self, index, weight, grad, state):
            self._update_count(index)
            weight[:] -= self._get_lr(index) * (grad * self.rescale_grad +
                                                self._get_wd(index) * weight)
    try:
        net, trainer = _trainer(False, 'plainsgd', learning_rate=0.25, wd=0.5)
        with Recorder(trainer) as rec:
            _step(net, trainer)
        lrs = {r.param: r.value for r in rec.rows if r.event == 'lr'}
        wds = {r.param: r.value for r in rec.rows if r.event == 'wd'}
        names = [p.name for p in trainer._params]
        assert lrs == dict.fromkeys(names, 0.25)
        assert wds == dict.fromkeys(names, 0.5)   # Gluon's Parameters: wd_mult 1
    finally:
        del mx.optimizer.Optimizer.opt_registry['plainsgd']
