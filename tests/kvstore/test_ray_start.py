"""Starting a local Ray cluster: a node that misses Ray's startup deadline once is retried."""
import os
import sys
import types

import pytest

from gluonedu.kvstore import ray_cluster

TIMEOUT = ("The current node timed out during startup. This could happen because some of "
           "the raylet failed to startup or the GCS has become overloaded.")


def _fake_ray(failures, error=TIMEOUT):
    """A stand-in for the ray module whose init fails ``failures`` times, then succeeds."""
    calls = {'init': [], 'shutdown': 0}

    def init(**kwargs):
        calls['init'].append(kwargs['_temp_dir'])
        if len(calls['init']) <= failures:
            raise Exception(error)

    def shutdown():
        calls['shutdown'] += 1
    fake = types.SimpleNamespace(
        init=init, shutdown=shutdown, is_initialized=lambda: False,
        get_runtime_context=lambda: types.SimpleNamespace(gcs_address='127.0.0.1:1234'))
    return fake, calls


@pytest.fixture
def fake_ray(monkeypatch):
    def install(failures, error=TIMEOUT):
        fake, calls = _fake_ray(failures, error)
        monkeypatch.setitem(sys.modules, 'ray', fake)
        monkeypatch.setattr(ray_cluster, 'import_ray', lambda: fake)
        for name in ray_cluster._AUTH_VARS:
            monkeypatch.delenv(name, raising=False)
        return calls
    yield install
    ray_cluster._LOCAL.clear()


def test_a_startup_timeout_is_retried_on_a_fresh_node(fake_ray):
    calls = fake_ray(failures=1)
    assert ray_cluster.start_local_ray() == '127.0.0.1:1234'
    first, second = calls['init']
    assert first != second and not os.path.exists(first)   # the failed node's files are gone
    ray_cluster.stop_local_ray()
    assert not os.path.exists(second)
    assert 'RAY_AUTH_TOKEN' not in os.environ


def test_the_last_timeout_is_raised(fake_ray):
    calls = fake_ray(failures=ray_cluster.START_ATTEMPTS)
    with pytest.raises(Exception, match='timed out during startup'):
        ray_cluster.start_local_ray()
    assert len(calls['init']) == ray_cluster.START_ATTEMPTS
    assert not any(os.path.exists(d) for d in calls['init'])
    assert 'RAY_AUTH_TOKEN' not in os.environ


def test_other_start_errors_are_not_retried(fake_ray):
    calls = fake_ray(failures=1, error='address already in use')
    with pytest.raises(Exception, match='address already in use'):
        ray_cluster.start_local_ray()
    assert len(calls['init']) == 1
