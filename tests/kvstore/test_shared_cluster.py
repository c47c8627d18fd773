"""A shared Ray cluster (GLUONEDU_RAY_ADDRESS, set for every kernel on a class's hub):
local_cluster and the launcher join it instead of starting their own, and say what to do
when it does not answer. Joining a running one is tried in tests/hub/test_hub_ray.py."""
import os
import socket
import subprocess
import sys
import textwrap

import pytest

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


def test_local_cluster_names_the_shared_cluster_that_does_not_answer():
    """In a fresh process, as a student's kernel (a process of the test run may already
    be connected to a cluster of its own, which local_cluster would use)."""
    pytest.importorskip('ray')
    address = '127.0.0.1:%d' % _closed_port()
    script = textwrap.dedent('''
        import ray
        import gluonedu as mx
        try:
            mx.kv.local_cluster(progress=False)
        except mx.MXNetError as error:
            print(repr(str(error)))
        else:
            print('no error')
        print(ray.is_initialized())
    ''')
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(('RAY_', 'GLUONEDU_DIST_'))}
    env['GLUONEDU_RAY_ADDRESS'] = address
    out = subprocess.run([sys.executable, '-c', script], env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    message, initialized = out.stdout.strip().splitlines()[-2:]
    assert 'GLUONEDU_RAY_ADDRESS=%s' % address in message
    assert 'unset GLUONEDU_RAY_ADDRESS' in message
    assert initialized == 'False'             # no cluster of its own started instead


def test_the_launcher_joins_the_shared_cluster_by_default(monkeypatch, capsys):
    pytest.importorskip('ray')
    address = '127.0.0.1:%d' % _closed_port()
    monkeypatch.setenv('GLUONEDU_RAY_ADDRESS', address)
    monkeypatch.delenv('GLUONEDU_DIST_GROUP', raising=False)
    assert launch.main(['-n', '1', 'python', '-c', 'pass']) == 2
    err = capsys.readouterr().err
    assert 'joining the shared Ray cluster at %s' % address in err
    assert 'GLUONEDU_RAY_ADDRESS=%s names does not answer' % address in err
