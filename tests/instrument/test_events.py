"""The instrumentation bus: subscribing, removing, kinds and norm requests, emitting."""
import pytest

from gluonedu.instrument import BUS, KINDS, Event, EventBus, Subscription, subscribe
from gluonedu.instrument.events import NORM_KINDS


@pytest.fixture
def bus():
    """A private bus, so these tests neither see nor disturb the process-wide one."""
    return EventBus()


def test_subscribe_receives_events_until_removed(bus):
    got = []
    sub = bus.subscribe(got.append)
    assert isinstance(sub, Subscription) and bus.active
    bus.emit('lr', 'optimizer', param='w', context='cpu(0)', lr=0.1)
    sub.remove()
    sub.remove()  # idempotent
    bus.emit('lr', 'optimizer', param='w', lr=0.2)
    assert not bus.active
    assert got == [Event('lr', 0, 'optimizer', 'w', 'cpu(0)', {'lr': 0.1})]


def test_subscription_is_a_context_manager(bus):
    got = []
    with bus.subscribe(got.append) as sub:
        assert bus.active and sub.callback == got.append
        bus.emit('wd', 'optimizer', wd=0.0)
    assert not bus.active
    bus.emit('wd', 'optimizer', wd=1.0)
    assert [e.values for e in got] == [{'wd': 0.0}]


def test_kinds_filter_and_several_subscribers(bus):
    lrs, everything = [], []
    with bus.subscribe(lrs.append, kinds=['lr']), bus.subscribe(everything.append):
        bus.emit('lr', 'optimizer', lr=0.1)
        bus.emit('kv_push', 'kvstore', param=3, bytes=12.0, devices=2.0)
    assert [e.kind for e in lrs] == ['lr']
    assert [e.kind for e in everything] == ['lr', 'kv_push']
    # param and context are stored as text (a KVStore key 3 becomes '3').
    assert everything[1].param == '3' and everything[1].context is None


def test_unknown_kind_is_an_error_naming_the_kinds(bus):
    with pytest.raises(ValueError, match=r"unknown event kinds \['lrate'\].*step_begin"):
        bus.subscribe(print, kinds=['lr', 'lrate'])
    assert not bus.active


def test_step_comes_from_the_bus_unless_given(bus):
    got = []
    with bus.subscribe(got.append):
        bus.step = 7
        bus.emit('step_begin', 'trainer', batch_size=4.0, rescale=0.25)
        bus.emit('metric', 'user', step=3, loss=0.5)
    assert [e.step for e in got] == [7, 3]


def test_wants_and_wants_norm(bus):
    assert not bus.wants('lr') and not bus.wants_norm('grad')
    with bus.subscribe(print, kinds=['lr', 'norm']):
        assert bus.wants('lr') and not bus.wants('wd')
        # Norm kinds need an explicit request (norms=...), even when listed in kinds.
        assert not bus.wants('norm') and not bus.wants_norm('grad')
    with bus.subscribe(print, norms=['grad', 'mean']):
        assert bus.wants('norm') and bus.wants('state_norm')
        assert bus.wants_norm('grad') and bus.wants_norm('mean')
        assert not bus.wants_norm('weight')
    with bus.subscribe(print, norms=True):
        assert all(bus.wants_norm(n) for n in ('weight', 'grad', 'update', 'momentum'))
    assert not bus.wants('norm')


def test_norm_events_only_reach_subscribers_that_asked(bus):
    plain, normed = [], []
    with bus.subscribe(plain.append), bus.subscribe(normed.append, norms=True):
        for kind in NORM_KINDS:
            bus.emit(kind, 'optimizer', param='w', weight=1.0)
    assert plain == [] and [e.kind for e in normed] == list(NORM_KINDS)


def test_inactive_bus_costs_one_check(monkeypatch):
    """With nobody listening, a source's ``if BUS.active:`` is all an update costs."""
    import numpy as np
    import gluonedu as mx

    assert not BUS.active

    def fail(*args, **kwargs):
        raise AssertionError('the bus was consulted although nobody listens')

    for method in ('emit', 'wants', 'wants_norm'):
        monkeypatch.setattr(BUS, method, fail)
    updater = mx.optimizer.get_updater(mx.optimizer.create('adam'))
    weight = mx.nd.array(np.ones(3, dtype=np.float32))
    updater(0, mx.nd.array(np.full(3, 0.5, dtype=np.float32)), weight)
    assert not np.array_equal(weight.asnumpy(), np.ones(3))   # it did update


def test_module_level_bus_and_kinds():
    assert subscribe == BUS.subscribe
    assert 'metric' in KINDS and set(NORM_KINDS) <= set(KINDS)
    with subscribe(print, kinds=['metric']):
        assert BUS.active
    assert not BUS.active


def test_a_batch_reaches_plain_subscribers_as_single_events(bus):
    entries = [('w0', 'cpu(0)', {'lr': 0.1}), ('w1', 'cpu(0)', {'lr': 0.2})]
    one_by_one, batched = [], []
    with bus.subscribe(one_by_one.append):
        bus.emit_batch('lr', 'optimizer', entries, step=3)
    with bus.subscribe(batched.append):
        for param, context, values in entries:
            bus.emit('lr', 'optimizer', param, context, step=3, **values)
    assert one_by_one == batched
    assert [e.param for e in one_by_one] == ['w0', 'w1']


def test_a_sink_gets_one_call_per_batch_and_filters_still_apply(bus):
    records, single = [], []
    with bus.subscribe(single.append, sink=records.append), \
            bus.subscribe(single.append, kinds=['wd']):
        bus.emit_batch('lr', 'optimizer', [('w0', None, {'lr': 0.1})], step=1)
        bus.emit_batch('norm', 'optimizer', [('w0', None, {'grad': 1.0})], step=1)
    assert records == [(1, 'lr', 'optimizer', [('w0', None, {'lr': 0.1})])]
    assert single == []   # the sink took it; the other subscriber wants only 'wd'
