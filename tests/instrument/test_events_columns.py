"""What the bus keeps for speed: its subscribers' wants as sets (kept current when a
subscription changes its norms), and batches handed over as columns (OneValueEach)."""
import pytest

from gluonedu.instrument import Event, EventBus
from gluonedu.instrument.events import OneValueEach


@pytest.fixture
def bus():
    """A private bus, so these tests neither see nor disturb the process-wide one."""
    return EventBus()


def test_changing_a_subscriptions_norms_changes_what_the_bus_wants(bus):
    sub = bus.subscribe(lambda event: None, norms=False)
    assert bus.wants('lr') and not bus.wants('norm') and not bus.wants_norm('grad')
    sub.norms = ['grad']
    assert bus.wants('norm') and bus.wants('state_norm')
    assert bus.wants_norm('grad') and not bus.wants_norm('weight')
    sub.norms = True
    assert bus.wants_norm('weight')
    sub.norms = False
    assert not bus.wants('norm') and not bus.wants_norm('grad')
    sub.remove()
    assert not bus.wants('lr')


def test_kinds_wanted_are_the_union_of_the_subscribers(bus):
    first = bus.subscribe(lambda event: None, kinds=['lr'])
    second = bus.subscribe(lambda event: None, kinds=['wd', 'norm'], norms=['grad'])
    assert bus.wants('lr') and bus.wants('wd') and bus.wants('norm')
    assert not bus.wants('kv_push') and not bus.wants('state_norm')
    second.remove()
    assert bus.wants('lr') and not bus.wants('wd') and not bus.wants('norm')
    first.remove()
    assert not bus.wants('lr')


def test_one_value_each_is_the_sequence_of_its_entries():
    entries = OneValueEach(['w', 'b'], ['cpu(0)', 'cpu(1)'], 'lr', [0.1, 0.2])
    expected = [('w', 'cpu(0)', {'lr': 0.1}), ('b', 'cpu(1)', {'lr': 0.2})]
    assert len(entries) == 2 and list(entries) == expected
    assert entries[1] == expected[1] and entries[-1] == expected[1]
    assert entries[:1] == expected[:1]


def test_columns_reach_every_kind_of_subscriber_as_the_same_events(bus):
    one_by_one, batches = [], []
    bus.subscribe(one_by_one.append)
    bus.subscribe(None, on_batch=lambda *batch: batches.append(batch))
    bus.step = 3
    bus.emit_batch('wd', 'optimizer', OneValueEach(['w', 'b'], ['cpu(0)'] * 2, 'wd',
                                                   [0.0, 1e-4]))
    assert one_by_one == [Event('wd', 3, 'optimizer', 'w', 'cpu(0)', {'wd': 0.0}),
                          Event('wd', 3, 'optimizer', 'b', 'cpu(0)', {'wd': 1e-4})]
    (kind, step, source, entries), = batches
    assert (kind, step, source) == ('wd', 3, 'optimizer')
    assert list(entries) == [(e.param, e.context, e.values) for e in one_by_one]


def test_an_unwanted_kind_reaches_nobody(bus):
    got = []
    bus.subscribe(got.append, kinds=['lr'])
    bus.emit_batch('wd', 'optimizer', OneValueEach(['w'], ['cpu(0)'], 'wd', [0.0]))
    bus.emit_batch('norm', 'optimizer', [('w', 'cpu(0)', {'grad': 1.0})])
    assert got == []
