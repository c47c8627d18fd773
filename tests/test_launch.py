"""python -m gluonedu.launch: bad input fails fast; a killed worker stops the run; two
launches at once each start a Ray cluster of their own and finish."""
import os
import re
import signal
import subprocess
import sys
import time

import pytest

from gluonedu.kvstore import launch, ray_cluster

SCRIPT = os.path.join(os.path.dirname(__file__), 'launch_worker_script.py')


def test_zero_workers_fail_fast_with_a_clear_message(capsys):
    start = time.monotonic()
    assert launch.main(['-n', '0', 'python', SCRIPT]) == 2
    assert '-n must be at least 1' in capsys.readouterr().err
    assert time.monotonic() - start < 5


def test_missing_command_is_refused(capsys):
    assert launch.main(['-n', '2']) == 2
    assert 'give the command' in capsys.readouterr().err


def test_unreachable_address_fails_fast_with_a_clear_message(capsys):
    pytest.importorskip('ray')
    start = time.monotonic()
    assert launch.main(['-n', '1', '--address', '127.0.0.1:1', 'python', SCRIPT]) == 2
    err = capsys.readouterr().err
    assert 'no Ray cluster answers at 127.0.0.1:1' in err and 'ray start --head' in err
    assert time.monotonic() - start < 5
    assert launch.main(['-n', '1', '--address', 'not-an-address', 'python', SCRIPT]) == 2
    assert 'HOST:PORT' in capsys.readouterr().err


def test_a_killed_worker_fails_the_run_and_stops_the_others(ray_cluster):
    env = dict(os.environ, KILL_RANK='1', STEPS='50')
    start = time.monotonic()
    proc = subprocess.run([sys.executable, '-m', 'gluonedu.launch', '-n', '2',
                           '--address', ray_cluster.address, 'python', SCRIPT],
                          env=env, capture_output=True, text=True, timeout=120)
    elapsed = time.monotonic() - start
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0, out
    # every line a worker printed carries its rank
    assert '[0] step 0 sum 2' in out and '[1] step 1 sum 2' in out, out
    assert 'worker 1 was killed by signal SIGKILL' in out, out
    # worker 0 stopped with an error naming the cause, not by the launcher's grace kill
    assert 'DistAborted' in out and 'worker 0 stops: worker 1 was killed' in out, out
    assert 'did not stop within' not in out, out
    assert 'rank 0 of 2 done' not in out
    assert elapsed < 60, elapsed


def test_two_launches_at_once_each_run_on_a_cluster_of_their_own(short_temp_dir, tmp_path):
    """Two students on one server: both launches start a local Ray cluster at the same
    moment (their starts take turns) and both runs finish correctly; nothing of either
    cluster is left in the temp dir they share."""
    pytest.importorskip('ray', reason="the launcher needs the 'dist' extra (ray)")
    env = dict(os.environ, TMPDIR=short_temp_dir, STEPS='3')
    logs = [tmp_path / ('launch%d.log' % i) for i in range(2)]
    start = time.monotonic()
    procs = []
    for log in logs:
        with log.open('w') as out:
            procs.append(subprocess.Popen([sys.executable, '-m', 'gluonedu.launch', '-n', '2',
                                           'python', SCRIPT], env=env, stdout=out,
                                          stderr=subprocess.STDOUT, start_new_session=True))
    took = [None, None]
    try:
        while None in took and time.monotonic() - start < 600:
            for i, proc in enumerate(procs):
                if took[i] is None and proc.poll() is not None:
                    took[i] = time.monotonic() - start
            time.sleep(0.2)
    finally:
        for proc in procs:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
    outs = [log.read_text() for log in logs]
    addresses = []
    for proc, out in zip(procs, outs):
        assert proc.returncode == 0, out
        for rank in (0, 1):   # each step's sum counts both workers' pushes
            assert '[%d] step 2 sum 2' % rank in out, out
            assert '[%d] rank %d of 2 done' % (rank, rank) in out, out
        addresses += re.findall(r'Ray is running at (\S+) \(took', out)
    assert len(set(addresses)) == 2, outs     # two clusters, each on ports of its own
    assert os.listdir(short_temp_dir) == [ray_cluster.START_LOCK_NAME], outs
    print('two launches at once: finished after %.1f s and %.1f s' % tuple(sorted(took)))
