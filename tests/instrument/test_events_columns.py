"""What the bus keeps for speed: its subscribers' wants as sets (kept current when a
subscription changes its norms), and batches handed over as columns (Columns)."""
import numpy as np
import pytest

from gluonedu.instrument import Event, EventBus
from gluonedu.instrument.events import Columns, Labels


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


def test_columns_are_the_sequence_of_their_entries():
    entries = Columns(Labels(['w', 'b'], ['cpu(0)', 'cpu(1)']), ['lr'], [[0.1, 0.2]])
    expected = [('w', 'cpu(0)', {'lr': 0.1}), ('b', 'cpu(1)', {'lr': 0.2})]
    assert len(entries) == 2 and list(entries) == expected
    assert entries[1] == expected[1] and entries[-1] == expected[1]
    assert entries[:1] == expected[:1]
    with pytest.raises(IndexError):
        entries[2]


def test_columns_with_several_names_give_one_dictionary_per_entry():
    table = np.array([[1.0, 2.0], [3.0, 4.0]])
    entries = Columns(Labels(['w', 'b'], [None, None]), ['weight', 'grad'], table.T)
    assert list(entries) == [('w', None, {'weight': 1.0, 'grad': 2.0}),
                             ('b', None, {'weight': 3.0, 'grad': 4.0})]
    assert entries[1] == ('b', None, {'weight': 3.0, 'grad': 4.0})
    with pytest.raises(ValueError, match='2 names for 1 columns'):
        Columns(Labels(['w'], [None]), ['weight', 'grad'], [[1.0]])


def test_a_single_event_reaches_a_sink_as_a_record_of_one_entry(bus):
    records = []
    bus.subscribe(None, sink=records.append)
    bus.emit('step_begin', 'trainer', batch_size=4.0, rescale=0.25)
    bus.emit('lr', 'optimizer', param=3, context='cpu(0)', step=7, lr=0.1)
    assert [(s, k, src, list(e)) for s, k, src, e in records] == [
        (0, 'step_begin', 'trainer', [(None, None, {'batch_size': 4.0, 'rescale': 0.25})]),
        (7, 'lr', 'optimizer', [('3', 'cpu(0)', {'lr': 0.1})])]


def test_a_subscriber_needs_a_callback_or_a_sink(bus):
    with pytest.raises(TypeError, match='callback'):
        bus.subscribe(None)


class _Report:
    """A report of two kinds, as an optimizer update hands one over."""
    kinds = ('lr', 'wd')

    def entries(self, kind):
        return Columns(Labels(['w'], ['cpu(0)']), [kind], [[0.5 if kind == 'lr' else 0.0]])


def test_a_report_reaches_a_sink_whole_and_a_callback_as_events_of_the_kinds_it_wants(bus):
    records, events = [], []
    bus.subscribe(None, sink=records.append, kinds=['lr'])
    bus.subscribe(events.append, kinds=['wd'])
    report = _Report()
    bus.emit_report('optimizer', report, step=4)
    assert records == [(4, None, 'optimizer', report)]
    assert events == [Event('wd', 4, 'optimizer', 'w', 'cpu(0)', {'wd': 0.0})]


def test_columns_reach_every_kind_of_subscriber_as_the_same_events(bus):
    one_by_one, batches = [], []
    bus.subscribe(one_by_one.append)
    bus.subscribe(None, sink=batches.append)
    bus.step = 3
    bus.emit_batch('wd', 'optimizer', Columns(Labels(['w', 'b'], ['cpu(0)'] * 2), ['wd'],
                                              [[0.0, 1e-4]]))
    assert one_by_one == [Event('wd', 3, 'optimizer', 'w', 'cpu(0)', {'wd': 0.0}),
                          Event('wd', 3, 'optimizer', 'b', 'cpu(0)', {'wd': 1e-4})]
    (step, kind, source, entries), = batches
    assert (kind, step, source) == ('wd', 3, 'optimizer')
    assert list(entries) == [(e.param, e.context, e.values) for e in one_by_one]


def test_an_unwanted_kind_reaches_nobody(bus):
    got = []
    bus.subscribe(got.append, kinds=['lr'])
    bus.emit_batch('wd', 'optimizer', Columns(Labels(['w'], ['cpu(0)']), ['wd'], [[0.0]]))
    bus.emit_batch('norm', 'optimizer', [('w', 'cpu(0)', {'grad': 1.0})])
    assert got == []
