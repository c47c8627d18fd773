"""python -m gluonedu.launch: bad input fails fast; a killed worker stops the run."""
import os
import subprocess
import sys
import time

import pytest

from gluonedu.kvstore import launch

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
