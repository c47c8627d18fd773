"""KVStore hook points: kv_push / kv_pull events, and their cost with nobody listening."""
import math

import numpy as np
import pytest

import gluonedu as mx
from gluonedu.instrument.events import BUS


@pytest.fixture
def recorded():
    got = []
    with BUS.subscribe(got.append, kinds=['kv_push', 'kv_pull']):
        yield got


@pytest.mark.parametrize('kind', ['local', 'device'])
def test_push_and_pull_events(kind, recorded):
    kv = mx.kv.create(kind)
    kv.init('w', mx.nd.zeros((4, 16)))
    kv.push('w', [mx.nd.ones((4, 16), ctx=mx.cpu(i)) for i in range(3)])
    kv.pull('w', out=[mx.nd.zeros((4, 16), ctx=mx.cpu(i)) for i in range(2)])
    push, pull = recorded
    assert (push.kind, push.source, push.param) == ('kv_push', 'kvstore', 'w')
    assert push.values == {'bytes': 256.0, 'devices': 3.0}
    assert (pull.kind, pull.param, pull.values) == ('kv_pull', 'w',
                                                    {'bytes': 256.0, 'devices': 2.0})


def test_pushpull_emits_one_event_per_key_and_direction(recorded):
    kv = mx.kv.create('device')
    kv.init([0, 1], [mx.nd.zeros(3), mx.nd.zeros(5)])
    kv.pushpull([0, 1], [[mx.nd.ones(3)], [mx.nd.ones(5)]])
    assert [(e.kind, e.param) for e in recorded] == [('kv_push', '0'), ('kv_push', '1'),
                                                     ('kv_pull', '0'), ('kv_pull', '1')]


def test_compressed_push_reports_a_sixteenth_of_the_bytes_and_the_residual(recorded):
    kv = mx.kv.create('device')
    kv.set_gradient_compression({'type': '2bit', 'threshold': 0.5})
    kv.init(0, mx.nd.zeros((8, 32)))
    g = np.full((8, 32), 0.3, np.float32)
    kv.push(0, [mx.nd.array(g), mx.nd.array(g, ctx=mx.cpu(1))])
    push = recorded[0]
    assert push.values['bytes'] == 8 * 32 * 4
    assert push.values['compressed_bytes'] == push.values['bytes'] / 16
    # each of the 2 x 256 residuals holds 0.3 after the first push
    assert math.isclose(push.values['residual_norm'], math.sqrt(512 * 0.3 ** 2), rel_tol=1e-6)


def test_row_sparse_pull_emits_the_rows_it_sends(recorded):
    kv = mx.kv.create('local')
    kv.init(0, mx.nd.sparse.row_sparse_array((np.ones((2, 3), np.float32), [0, 2]),
                                             shape=(4, 3)))
    kv.row_sparse_pull(0, out=mx.nd.sparse.zeros('row_sparse', (4, 3)),
                       row_ids=mx.nd.array([2]))
    assert recorded[0].values == {'bytes': 1 * 3 * 4 + 8, 'devices': 1.0}


def test_nobody_listening_builds_no_event(monkeypatch):
    assert not BUS.active

    def fail(*args, **kwargs):
        raise AssertionError('an event was built with nobody listening')
    monkeypatch.setattr(BUS, 'emit', fail)
    kv = mx.kv.create('device')
    kv.set_gradient_compression({'type': '2bit'})
    kv.init(0, mx.nd.zeros(4))
    kv.pushpull(0, [mx.nd.ones(4), mx.nd.ones(4, ctx=mx.cpu(1))])
    # a subscriber of other kinds does not make the store build kv events either
    with BUS.subscribe(lambda e: None, kinds=['lr']):
        kv.pushpull(0, mx.nd.ones(4))


def test_residual_norm_is_not_computed_without_a_kv_push_subscriber(monkeypatch):
    from gluonedu.kvstore.compression import TwoBitCompression

    def fail(self, key):
        raise AssertionError('residual norm computed for nobody')
    monkeypatch.setattr(TwoBitCompression, 'residual_norm', fail)
    kv = mx.kv.create('device')
    kv.set_gradient_compression({'type': '2bit'})
    kv.init(0, mx.nd.zeros(4))
    with BUS.subscribe(lambda e: None, kinds=['kv_pull']):
        kv.pushpull(0, mx.nd.ones(4))
