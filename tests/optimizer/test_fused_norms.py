"""Norms on the fused path: the reference's numbers, measured in the kernel or per buffer.

With a subscriber asking for norms, the fused path measures whole flat buffers — inside
the numba kernel's own pass where it can, else by one segment reduction per quantity —
and must report what the reference path reports, without changing the update.
"""
import numpy as np
import pytest

from gluonedu.instrument import subscribe
from gluonedu.optimizer import Updater
from gluonedu.optimizer._fused import FusedUpdater, numba_available
from gluonedu.optimizer.flat import CHUNK, FlatGroup

from test_fused import BACKENDS, CASES, LOOSE, _assert_same, _run

needs_numba = pytest.mark.skipif(
    not numba_available(),
    reason="numba is not installed (pip install 'gluonedu[fast]') or GLUONEDU_NUMBA=0")


def _recorded(updater_cls, name, kwargs, dtype, mp, backend=None, norms=True):
    events = []
    with subscribe(events.append, kinds=['norm', 'state_norm'], norms=norms):
        weights, states, updater, _ = _run(updater_cls, name, kwargs, dtype, mp,
                                           backend=backend)
    return weights, states, [(e.kind, e.step, e.param, e.values) for e in events], updater


@pytest.mark.parametrize('backend', BACKENDS)
@pytest.mark.parametrize('name,kwargs', CASES, ids=['%s-%d' % (c[0], i) for i, c in
                                                    enumerate(CASES)])
@pytest.mark.parametrize('dtype,mp', [(np.float32, False), (np.float16, True)],
                         ids=['float32', 'float16-mp'])
def test_fused_norms_are_the_reference_norms(backend, name, kwargs, dtype, mp):
    got_w, got_s, got_events, updater = _recorded(FusedUpdater, name, kwargs, dtype, mp,
                                                  backend)
    want_w, want_s, want_events, _ = _recorded(Updater, name, kwargs, dtype, mp)
    assert all(path.startswith('fused:') for _, path in updater.last_paths)
    # measuring changes nothing in the update
    _assert_same(name, backend, got_w, want_w)
    _assert_same(name, backend, got_s, want_s)
    assert [e[:3] for e in got_events] == [e[:3] for e in want_events]
    rtol = 1e-5 if name in LOOSE and backend == 'numba' else 1e-10
    for (_, _, _, got), (_, _, _, want) in zip(got_events, want_events):
        assert list(got) == list(want)
        np.testing.assert_allclose(list(got.values()), list(want.values()), rtol=rtol)


def test_only_the_requested_norms_are_reported_on_the_fused_path():
    _, _, events, _ = _recorded(FusedUpdater, 'adam', {}, np.float32, False,
                                norms=['update', 'var'])
    assert {tuple(values) for kind, _, _, values in events if kind == 'norm'} == {('update',)}
    assert {tuple(values) for kind, _, _, values in events
            if kind == 'state_norm'} == {('var',)}


@needs_numba
def test_numba_measures_in_the_update_pass(monkeypatch):
    def forbidden(self, x):
        raise AssertionError('a separate reduction ran; the kernel should have summed')
    monkeypatch.setattr(FlatGroup, 'segment_sums64', forbidden)
    _, _, events, _ = _recorded(FusedUpdater, 'adam', {'wd': 1e-3}, np.float32, False,
                                backend='numba')
    assert {kind for kind, *_ in events} == {'norm', 'state_norm'}


def test_numpy_path_uses_one_reduction_per_quantity(monkeypatch):
    calls = []
    original = FlatGroup.segment_sums64

    def counting(self, x):
        calls.append(x.shape)
        return original(self, x)
    monkeypatch.setattr(FlatGroup, 'segment_sums64', counting)
    _, _, events, _ = _recorded(FusedUpdater, 'adam', {}, np.float32, False, backend='numpy')
    assert len(events) == 2 * 4 * 6   # norm and state_norm, 4 steps, 6 parameters
    # weight, grad, update, mean, var: five whole-buffer reductions per step
    assert len(calls) == 5 * 4
    assert len(set(calls)) == 1


def _poisoned_counts(updater_cls, backend=None, separate_pass=None, kinds=('nonfinite',)):
    """One step of Adam over parameters whose gradients hold NaN/±Inf (none in one, a
    chunk's worth in another, some in both chunks of one larger than a chunk): the ``nonfinite`` events' counts by parameter, and the
    counts a separate pass over each gradient gives (``separate_pass``, by default
    reporting.nonfinite_count)."""
    from gluonedu import nd, optimizer as opt
    from gluonedu.optimizer import reporting
    separate_pass = separate_pass or reporting.nonfinite_count
    rng = np.random.RandomState(3)
    shapes = [(5000,), (3, 4), (7,), (300, 20), (CHUNK + 1000,)]
    weights = [nd.array(rng.randn(*s), dtype='float32') for s in shapes]
    values = [rng.randn(*s).astype(np.float32) for s in shapes]
    values[0][[1, 4000]] = [np.nan, np.inf]
    values[2][:] = -np.inf
    values[3].flat[::7] = np.nan
    values[4][[10, CHUNK + 500, CHUNK + 501]] = [np.inf, np.nan, -np.inf]
    grads = [nd.array(v) for v in values]
    separate = {i: separate_pass(g) for i, g in enumerate(grads)}
    adam = opt.create('adam', learning_rate=0.01)
    updater = updater_cls(adam, backend=backend) if updater_cls is FusedUpdater \
        else updater_cls(adam)
    events = []
    with subscribe(events.append, kinds=list(kinds)):
        updater(list(range(len(shapes))), grads, weights)
    counts = {e.param: e.values['count'] for e in events if e.kind == 'nonfinite'}
    return counts, {str(i): float(c) for i, c in separate.items() if c}, updater


@pytest.mark.parametrize('backend', BACKENDS)
def test_fused_nonfinite_counts_are_the_separate_passes(backend):
    counts, separate, updater = _poisoned_counts(FusedUpdater, backend)
    assert all(path.startswith('fused:') for _, path in updater.last_paths)
    assert counts == separate and separate == {'0': 2.0, '2': 7.0, '3': 858.0, '4': 3.0}
    assert _poisoned_counts(Updater)[0] == separate


@needs_numba
@pytest.mark.parametrize('kinds', [('nonfinite',), ('nonfinite', 'norm', 'state_norm')],
                         ids=['count only', 'with norms'])
def test_numba_counts_nonfinite_entries_in_the_update_pass(monkeypatch, kinds):
    from gluonedu.optimizer import reporting

    def forbidden(*args):
        raise AssertionError('a separate pass ran; the kernel should have counted')
    separate_pass = reporting.nonfinite_count
    monkeypatch.setattr(FlatGroup, 'segment_sums64', forbidden)
    monkeypatch.setattr(reporting, 'nonfinite_count', forbidden)
    counts, _, updater = _poisoned_counts(FusedUpdater, 'numba', separate_pass, kinds)
    assert all(path.startswith('fused:numba') for _, path in updater.last_paths), \
        updater.last_paths
    assert counts == {'0': 2.0, '2': 7.0, '3': 858.0, '4': 3.0}


@needs_numba
def test_a_counting_step_that_runs_no_kernel_counts_the_gradient_itself(monkeypatch):
    from gluonedu.optimizer.adam import Adam
    monkeypatch.setattr(Adam, 'fused_step', lambda self, run: None)
    counts, separate, updater = _poisoned_counts(FusedUpdater, 'numba')
    assert all(path.startswith('fused:numba') for _, path in updater.last_paths)
    assert counts == separate == {'0': 2.0, '2': 7.0, '3': 858.0, '4': 3.0}


@needs_numba
def test_a_counting_step_runs_one_kernel(monkeypatch):
    from gluonedu.optimizer.adam import Adam
    one_step = Adam.fused_step

    def twice(self, run):
        one_step(self, run)
        one_step(self, run)
    monkeypatch.setattr(Adam, 'fused_step', twice)
    with pytest.raises(RuntimeError, match='runs one kernel.*runs two'):
        _poisoned_counts(FusedUpdater, 'numba')
