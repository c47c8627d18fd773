"""Starting a local Ray cluster: a node that misses Ray's startup deadline is ended and
retried; clusters starting on one machine at once take turns, saying so.

Ray is stood in for (no Ray process starts here); another process's start is a process
holding the start lock.
"""
import os
import subprocess
import sys
import tempfile
import time
import types

import pytest

from gluonedu.base import MXNetError
from gluonedu.kvstore import ray_cluster

TIMEOUT = ("The current node timed out during startup. This could happen because some of "
           "the raylet failed to startup or the GCS has become overloaded.")


def _fake_ray(failures, error=TIMEOUT, spawn=False):
    """A stand-in for the ray module whose init fails ``failures`` times, then succeeds;
    with ``spawn``, each init first starts a process of the node (one that names the
    node's directory, as Ray's processes do)."""
    calls = {'init': [], 'address': [], 'shutdown': 0, 'spawned': []}

    def init(**kwargs):
        calls['init'].append(kwargs['_temp_dir'])
        calls['address'].append(kwargs.get('address'))
        if spawn:
            proc = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)',
                                     '--temp-dir=' + kwargs['_temp_dir']])
            calls['spawned'].append(proc)
        if len(calls['init']) <= failures:
            raise error if isinstance(error, type) else Exception(error)

    def shutdown():
        calls['shutdown'] += 1
    fake = types.SimpleNamespace(
        init=init, shutdown=shutdown, is_initialized=lambda: False,
        get_runtime_context=lambda: types.SimpleNamespace(gcs_address='127.0.0.1:1234'))
    return fake, calls


@pytest.fixture
def own_temp_dir(monkeypatch, tmp_path):
    """The system temp dir (start lock, Ray's directories) is tmp_path for this test."""
    monkeypatch.setattr(tempfile, 'tempdir', str(tmp_path))
    return tmp_path


@pytest.fixture
def fake_ray(monkeypatch, own_temp_dir):
    """Installs a stand-in for ray; the start lock and Ray's directories go to the
    test's own temp dir (not the machine's, where a real start may hold the lock)."""
    spawned = []

    def install(failures, error=TIMEOUT, spawn=False):
        fake, calls = _fake_ray(failures, error, spawn)
        spawned.append(calls['spawned'])
        monkeypatch.setitem(sys.modules, 'ray', fake)
        monkeypatch.setattr(ray_cluster, 'import_ray', lambda: fake)
        # The real cluster of this test session (if one runs) keeps what it set up.
        monkeypatch.setattr(ray_cluster, '_LOCAL', {})
        for name in ray_cluster._AUTH_VARS:
            monkeypatch.delenv(name, raising=False)
        return calls
    yield install
    for proc in (p for calls in spawned for p in calls):
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_a_startup_timeout_is_retried_on_a_fresh_node(fake_ray):
    calls = fake_ray(failures=1)
    assert ray_cluster.start_local_ray() == '127.0.0.1:1234'
    first, second = calls['init']
    assert first != second and not os.path.exists(first)   # the failed node's files are gone
    ray_cluster.stop_local_ray()
    assert not os.path.exists(second)
    assert 'RAY_AUTH_TOKEN' not in os.environ


def test_the_last_timeout_fails_the_start_saying_why(fake_ray):
    calls = fake_ray(failures=ray_cluster.START_ATTEMPTS)
    with pytest.raises(MXNetError) as err:
        ray_cluster.start_local_ray()
    message = str(err.value)
    assert message.startswith('Ray did not start on this machine: %d node(s) in '
                              % ray_cluster.START_ATTEMPTS), message
    assert "missed Ray's start-up deadline" in message and TIMEOUT in message, message
    assert ray_cluster.ENV_START_TIMEOUT not in message   # more time would not have helped
    assert len(calls['init']) == ray_cluster.START_ATTEMPTS


def test_no_fresh_node_is_tried_once_the_start_timeout_is_spent(fake_ray, monkeypatch):
    calls = fake_ray(failures=ray_cluster.START_ATTEMPTS)
    monkeypatch.setenv(ray_cluster.ENV_START_TIMEOUT, '0.001')
    with pytest.raises(MXNetError) as err:
        ray_cluster.start_local_ray()
    message = str(err.value)
    assert message.startswith('Ray did not start on this machine: 1 node(s) in '), message
    assert 'give it more than 0 s with %s=SECONDS' % ray_cluster.ENV_START_TIMEOUT in message
    assert len(calls['init']) == 1
    assert not any(os.path.exists(d) for d in calls['init'])
    assert 'RAY_AUTH_TOKEN' not in os.environ


def test_other_start_errors_are_not_retried(fake_ray):
    calls = fake_ray(failures=1, error='address already in use')
    with pytest.raises(Exception, match='address already in use'):
        ray_cluster.start_local_ray()
    assert len(calls['init']) == 1


# ------------------------------------------------------------ clusters starting at once
HOLD_LOCK = '''
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o666)
fcntl.flock(fd, fcntl.LOCK_EX)
os.ftruncate(fd, 0)
os.pwrite(fd, str(os.getpid()).encode(), 0)
print('holding', flush=True)
time.sleep(float(sys.argv[2]))
'''


def _hold_start_lock(temp_dir, seconds):
    """Another process that is 'starting a cluster' for ``seconds``."""
    holder = subprocess.Popen([sys.executable, '-c', HOLD_LOCK,
                               str(temp_dir / ray_cluster.START_LOCK_NAME), str(seconds)],
                              stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == 'holding'
    return holder


@pytest.mark.skipif(sys.platform == 'win32', reason='starts take turns through flock (POSIX)')
def test_a_start_waits_for_another_one_on_the_machine_and_says_so(fake_ray, own_temp_dir):
    calls = fake_ray(failures=0)
    holder = _hold_start_lock(own_temp_dir, 1.5)
    said = []
    start = time.monotonic()
    assert ray_cluster.start_local_ray(report=said.append) == '127.0.0.1:1234'
    waited = time.monotonic() - start
    holder.wait()
    assert waited > 1.0, waited
    assert said[0] == ('another Ray cluster on this machine is starting (process %d); '
                       'waiting for it ...' % holder.pid)
    assert said[1].startswith('waited ') and said[1].endswith(' s for other starts; starting Ray')
    assert len(said) == 2
    assert len(calls['init']) == 1 and calls['address'] == ['local']  # never RAY_ADDRESS's
    ray_cluster.stop_local_ray()
    assert os.listdir(own_temp_dir) == [ray_cluster.START_LOCK_NAME]


@pytest.mark.skipif(sys.platform == 'win32', reason='starts take turns through flock (POSIX)')
def test_a_start_that_waits_too_long_fails_naming_what_it_waited_for(fake_ray, own_temp_dir,
                                                                     monkeypatch):
    calls = fake_ray(failures=0)
    monkeypatch.setenv(ray_cluster.ENV_START_TIMEOUT, '1')
    holder = _hold_start_lock(own_temp_dir, 30)
    start = time.monotonic()
    try:
        with pytest.raises(MXNetError) as err:
            ray_cluster.start_local_ray()
    finally:
        holder.kill()
        holder.wait()
    assert time.monotonic() - start < 5
    message = str(err.value)
    assert 'Ray did not start within 1 s' in message, message
    assert 'another Ray cluster on this machine (process %d) was starting' % holder.pid \
        in message, message
    assert ray_cluster.ENV_START_TIMEOUT in message, message
    assert calls['init'] == [] and 'RAY_AUTH_TOKEN' not in os.environ
    assert os.listdir(own_temp_dir) == [ray_cluster.START_LOCK_NAME]


def test_a_node_that_missed_the_deadline_is_ended_processes_and_files(fake_ray,
                                                                      own_temp_dir):
    """Ray leaves a node that failed to start running (its GCS, dashboard, monitors):
    each process started for it (here one per try, naming the node's directory) ends
    before the next try, and the running node's at stop_local_ray."""
    calls = fake_ray(failures=1, spawn=True)
    said = []
    ray_cluster.start_local_ray(report=said.append)
    failed, running = calls['spawned']
    assert failed.wait(timeout=10) is not None      # ended, not left running
    assert running.poll() is None
    assert said == ["Ray's node missed its start-up deadline (this machine is busy); "
                    "trying a fresh one (try 2 of 3) ..."]
    ray_cluster.stop_local_ray()
    assert running.wait(timeout=10) is not None
    assert os.listdir(own_temp_dir) == [ray_cluster.START_LOCK_NAME]


def test_an_interrupted_start_ends_the_node_it_was_starting(fake_ray, own_temp_dir):
    """Ctrl-C in a notebook, or a launcher's stop signal, while ray.init runs."""
    calls = fake_ray(failures=1, error=KeyboardInterrupt, spawn=True)
    with pytest.raises(KeyboardInterrupt):
        ray_cluster.start_local_ray()
    assert calls['spawned'][0].wait(timeout=10) is not None
    assert len(calls['init']) == 1 and 'RAY_AUTH_TOKEN' not in os.environ
    assert os.listdir(own_temp_dir) == [ray_cluster.START_LOCK_NAME]
