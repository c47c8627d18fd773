"""A shared Ray cluster (GLUONEDU_RAY_ADDRESS, set for every kernel on a class's hub):
local_cluster and the launcher join it instead of starting their own, and say what to do
when it does not answer. Joining a running one is tried in tests/hub/test_hub_ray.py."""
import socket

import pytest

import gluonedu as mx
from gluonedu.base import MXNetError
from gluonedu.kvstore import launch, ray_cluster


def _closed_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]          # closed once the socket is


def test_the_shared_address_is_the_variable_outside_a_launchers_worker():
    assert ray_cluster.shared_address({'GLUONEDU_RAY_ADDRESS': '127.0.0.1:6380'}) == \
        '127.0.0.1:6380'
    assert ray_cluster.shared_address({}) is None
    assert ray_cluster.shared_address({'GLUONEDU_RAY_ADDRESS': ' '}) is None
    # In a launcher's worker the variable names that run's cluster, not a shared one.
    assert ray_cluster.shared_address({'GLUONEDU_RAY_ADDRESS': '127.0.0.1:6380',
                                       'GLUONEDU_DIST_GROUP': 'gluonedu-run-x'}) is None


def test_local_cluster_names_the_shared_cluster_that_does_not_answer(monkeypatch):
    pytest.importorskip('ray')
    address = '127.0.0.1:%d' % _closed_port()
    monkeypatch.setenv('GLUONEDU_RAY_ADDRESS', address)
    monkeypatch.delenv('GLUONEDU_DIST_GROUP', raising=False)
    with pytest.raises(MXNetError) as info:
        mx.kv.local_cluster(progress=False)
    assert 'GLUONEDU_RAY_ADDRESS=%s' % address in str(info.value)
    assert 'unset GLUONEDU_RAY_ADDRESS' in str(info.value)
    import ray
    assert not ray.is_initialized()           # no cluster of its own started instead


def test_the_launcher_joins_the_shared_cluster_by_default(monkeypatch, capsys):
    pytest.importorskip('ray')
    address = '127.0.0.1:%d' % _closed_port()
    monkeypatch.setenv('GLUONEDU_RAY_ADDRESS', address)
    monkeypatch.delenv('GLUONEDU_DIST_GROUP', raising=False)
    assert launch.main(['-n', '1', 'python', '-c', 'pass']) == 2
    err = capsys.readouterr().err
    assert 'joining the shared Ray cluster at %s' % address in err
    assert 'GLUONEDU_RAY_ADDRESS=%s names does not answer' % address in err
