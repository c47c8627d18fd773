"""Atomic saves (gluonedu.files): temp file, fsync, rename, directory fsync, mode, cleanup."""
import os
import random
import signal
import stat
import subprocess
import sys
import time

import numpy as np
import pytest

import gluonedu as mx
from gluonedu import nd
from gluonedu.files import atomic_write


def _temps(folder):
    return sorted(name for name in os.listdir(folder) if name.endswith('.tmp'))


@pytest.fixture
def umask():
    """Set the process umask for one test (and restore it)."""
    old = os.umask(0o022)
    yield os.umask
    os.umask(old)


@pytest.mark.parametrize('mask, mode', [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_a_new_file_gets_the_umasks_mode_as_np_save_gives(tmp_path, umask, mask, mode):
    umask(mask)
    nd.save(str(tmp_path / 'w.params'), [nd.ones(2)])
    np.save(str(tmp_path / 'w.npy'), np.ones(2))
    assert stat.S_IMODE(os.stat(tmp_path / 'w.params').st_mode) == mode
    assert stat.S_IMODE(os.stat(tmp_path / 'w.npy').st_mode) == mode


def test_overwriting_keeps_the_files_mode(tmp_path, umask):
    fname = tmp_path / 'w.params'
    nd.save(str(fname), [nd.ones(2)])
    os.chmod(fname, 0o640)
    nd.save(str(fname), [nd.zeros(2)])
    assert stat.S_IMODE(os.stat(fname).st_mode) == 0o640


def test_the_file_and_then_its_directory_are_fsynced(tmp_path, monkeypatch):
    synced = []
    real_fsync = os.fsync

    def fsync(fd):
        synced.append('dir' if stat.S_ISDIR(os.fstat(fd).st_mode) else 'file')
        real_fsync(fd)
    monkeypatch.setattr(os, 'fsync', fsync)
    atomic_write(str(tmp_path / 'f'), lambda f: f.write(b'data'))
    assert synced == ['file', 'dir']


def _dead_pid():
    proc = subprocess.Popen([sys.executable, '-c', 'pass'])
    proc.wait()
    return proc.pid


def test_the_next_save_removes_temp_files_of_dead_writers_and_nothing_else(tmp_path):
    fname = tmp_path / 'w.params'
    dead, alive = _dead_pid(), os.getpid()
    leftover = '.w.params.gluonedu-partial-%d-0123456789abcdef.tmp' % dead
    running = '.w.params.gluonedu-partial-%d-0123456789abcdef.tmp' % alive
    strangers = ['.w.params.tmp', 'w.params.gluonedu-partial-%d-0123456789abcdef.tmp' % dead,
                 '.w.params.gluonedu-partial-%d-0123456789abcdef.tmp.keep' % dead,
                 '.other.gluonedu-partial-%d-0123456789abcdef.tmp' % dead,
                 '.w.params.gluonedu-partial-%d-xyz.tmp' % dead]
    for name in [leftover, running] + strangers:
        (tmp_path / name).write_bytes(b'x')
    nd.save(str(fname), [nd.ones(2)])
    assert sorted(os.listdir(tmp_path)) == sorted(['w.params', running] + strangers)


def test_a_long_name_still_gets_a_valid_temp_name(tmp_path):
    fname = tmp_path / ('w' * 250)
    nd.save(str(fname), [nd.ones(2)])
    assert nd.load(str(fname))[0].shape == (2,)
    assert os.listdir(tmp_path) == [fname.name]


def test_a_failed_write_keeps_the_old_file_and_no_temp(tmp_path):
    fname = tmp_path / 'f'
    fname.write_bytes(b'old')

    def write(f):
        f.write(b'partial')
        raise OSError('disk full')
    with pytest.raises(OSError):
        atomic_write(str(fname), write)
    assert fname.read_bytes() == b'old' and os.listdir(tmp_path) == ['f']


# --------------------------------------------------------------------------- kill test
KILLS = 50


def _save_forever(fname, seed):
    """In a forked child: save versions k = seed, seed+1, ... (each array filled with k)."""
    try:
        k = seed
        while True:
            nd.save(fname, {'w': nd.full((256, 1024), k), 'b': nd.full((7,), k)})
            k += 1
    finally:
        os._exit(0)


def test_sigkill_during_saves_never_tears_a_file_and_the_next_save_cleans_up(tmp_path):
    """50 SIGKILLs at random moments of a save loop: the file always loads whole (one
    version), and the next save leaves no temp file behind."""
    rng = random.Random(15)
    fname = str(tmp_path / 'w.params')
    nd.save(fname, {'w': nd.full((256, 1024), -1), 'b': nd.full((7,), -1)})
    left_behind = 0
    for kill in range(KILLS):
        pid = os.fork()
        if pid == 0:
            _save_forever(fname, 1000 * kill)
        time.sleep(rng.uniform(0.002, 0.06))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        left_behind += bool(_temps(tmp_path))
        loaded = nd.load(fname)  # never torn: one whole version
        w, b = loaded['w'].asnumpy(), loaded['b'].asnumpy()
        assert w.shape == (256, 1024) and (w == w.flat[0]).all() and (b == w.flat[0]).all()
        nd.save(fname, loaded)
        assert _temps(tmp_path) == []
    assert os.listdir(tmp_path) == ['w.params']
    # Most kills land during a save (each takes milliseconds): the cleanup was exercised.
    assert left_behind >= KILLS // 5, left_behind
    print('kill test: %d of %d SIGKILLs left a temp file; none survived the next save'
          % (left_behind, KILLS))


def test_a_kill_leaves_the_old_version_or_the_new_one_for_every_saver(tmp_path):
    """The same through the state writers: a Trainer's and a KVStore's state files."""
    from gluonedu import gluon
    net = gluon.nn.Dense(3, in_units=4)
    net.initialize(ctx=mx.cpu())
    trainer = gluon.Trainer(net.collect_params(), 'adam', {'learning_rate': 0.1})
    with mx.autograd.record():
        loss = net(nd.ones((2, 4))).sum()
    loss.backward()
    trainer.step(2)
    fname = str(tmp_path / 'trainer.states')
    trainer.save_states(fname)
    for kill in range(5):
        pid = os.fork()
        if pid == 0:
            try:
                while True:
                    trainer.save_states(fname)
            finally:
                os._exit(0)
        time.sleep(0.003 * (kill + 1))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        trainer.load_states(fname)
        trainer.save_states(fname)
        assert _temps(tmp_path) == []
