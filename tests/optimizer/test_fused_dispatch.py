"""What a fused step does around its kernel on every call: per-count formulas, the
backend chosen per device type, numba's thread count."""
import math

import numpy as np
import pytest

import gluonedu as mx
from gluonedu import nd
from gluonedu.optimizer._fused import FusedUpdater, numba_available
from gluonedu.optimizer.fastpath import per_t

needs_numba = pytest.mark.skipif(
    not numba_available(),
    reason="numba is not installed (pip install 'gluonedu[fast]') or GLUONEDU_NUMBA=0")


def adam_correction(t):
    return math.sqrt(1. - 0.999 ** t) / (1. - 0.9 ** t)


@pytest.mark.parametrize('counts', [[3, 3, 3, 3], [1, 4, 2, 4, 1], [7], []])
def test_per_t_is_the_formula_per_entry_called_once_per_count(counts):
    calls = []

    def formula(t):
        calls.append(t)
        return adam_correction(t)

    values = per_t(np.array(counts, dtype=np.int64), formula)
    assert values.dtype == np.float64 and values.shape == (len(counts),)
    assert values.tolist() == [adam_correction(t) for t in counts]   # bit for bit
    assert calls == sorted(set(counts))          # each distinct count once, ascending
    assert all(type(t) is int for t in calls)    # Python ints, as the reference's


def test_per_t_keeps_the_formula_type():
    values = per_t(np.array([2, 2]), lambda t: np.float32(1.) / np.float32(t))
    assert values.dtype == np.float32 and values.tolist() == [0.5, 0.5]


def _step(updater, weights, grads):
    updater(list(range(len(weights))), grads, weights)


def test_the_backend_is_chosen_once_per_device_type(monkeypatch):
    monkeypatch.setenv('GLUONEDU_FUSED_BACKEND', 'numpy')
    updater = FusedUpdater(mx.optimizer.create('adam'))
    weights, grads = [nd.ones((3, 4))], [nd.ones((3, 4))]
    _step(updater, weights, grads)
    assert updater.last_paths[0][1] == 'fused:numpy'
    # The environment is read when the updater first runs on a device type: a Trainer
    # made after the change takes it, this one keeps its backend.
    monkeypatch.setenv('GLUONEDU_FUSED_BACKEND', 'numba' if numba_available() else 'numpy')
    _step(updater, weights, grads)
    assert updater.last_paths[0][1] == 'fused:numpy'
    if numba_available():
        fresh = FusedUpdater(mx.optimizer.create('adam'))
        _step(fresh, [nd.ones((3, 4))], [nd.ones((3, 4))])
        assert fresh.last_paths[0][1] == 'fused:numba'


@needs_numba
def test_numba_thread_count_is_set_only_when_it_changes(monkeypatch):
    import numba
    from gluonedu import _numba

    settings = []
    real = numba.set_num_threads
    monkeypatch.setattr(numba, 'set_num_threads',
                        lambda n: (settings.append(n), real(n))[1])
    monkeypatch.setattr(_numba, 'PARALLEL_MIN', 100)
    updater = FusedUpdater(mx.optimizer.create('adam'), backend='numba')
    small = ([nd.ones((3, 4))], [nd.ones((3, 4))])
    big = ([nd.ones((20, 20))], [nd.ones((20, 20))])
    before = numba.get_num_threads()
    try:
        for arrays in (small, small, small):
            _step(updater, *arrays)
        assert numba.get_num_threads() == 1
        assert settings in ([], [1])             # at most once (unless already 1)
        _numba.use_threads(1)                   # nothing to change: nothing set
        assert settings in ([], [1])
        _step(FusedUpdater(mx.optimizer.create('adam'), backend='numba'), *big)
        assert numba.get_num_threads() == numba.config.NUMBA_NUM_THREADS
        _step(updater, *small)
        assert numba.get_num_threads() == 1
    finally:
        real(before)
        _numba.forget_thread_setting()          # what this thread set is unknown again
