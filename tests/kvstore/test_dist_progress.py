"""local_cluster says what it is doing: starting Ray, and each run's workers."""
import re
import types

import pytest

from gluonedu.kvstore import dist_cluster


@pytest.fixture
def ray_not_started(monkeypatch):
    """Ray stubbed out: not initialised; 'starting' it records the call."""
    started = []
    fake = types.SimpleNamespace(is_initialized=lambda: False)
    monkeypatch.setattr(dist_cluster, 'import_ray', lambda: fake)
    monkeypatch.setattr(dist_cluster, 'start_local_ray',
                        lambda num_cpus=None, report=None: started.append(num_cpus)
                        or '127.0.0.1:1')
    return started


def test_starting_ray_prints_a_line_at_once_and_one_when_it_is_up(ray_not_started, capsys):
    cluster = dist_cluster.local_cluster(num_cpus=3)
    lines = capsys.readouterr().out.splitlines()
    assert ray_not_started == [3] and cluster.progress
    assert lines[0] == 'local_cluster: starting Ray on this machine; this takes 10-30 s ...'
    assert re.fullmatch(r'local_cluster: Ray is running \(took \d+\.\d s\)', lines[1])
    assert len(lines) == 2


def test_progress_false_prints_nothing(ray_not_started, capsys):
    cluster = dist_cluster.local_cluster(progress=False)
    assert ray_not_started == [None] and not cluster.progress
    assert capsys.readouterr().out == ''


def _rank():
    import gluonedu as mx
    return mx.kv.create('dist_sync').rank


def test_a_run_prints_when_its_workers_start_and_finish(ray_cluster, monkeypatch, capsys):
    monkeypatch.setattr(ray_cluster, 'progress', True)
    assert ray_cluster.run(_rank, num_workers=2) == [0, 1]
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == 'run: starting 2 worker(s) of _rank() and 1 server(s) ...'
    assert re.fullmatch(r'run: 2 worker\(s\) finished \(took \d+\.\d s\)', lines[1])
    assert len(lines) == 2
    monkeypatch.setattr(ray_cluster, 'progress', False)
    assert ray_cluster.run(_rank, num_workers=2) == [0, 1]
    assert capsys.readouterr().out == ''
