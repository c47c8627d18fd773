"""Saved optimizers and schedulers come back through their constructors.

Every registered optimizer and every scheduler survives a round trip mid-training (and
goes on exactly as the original). A state file edited to hold values the constructor
refuses (CRC-valid, well-formed) is rejected with MXNetError, and the Updater that was
asked to load it keeps its optimizer and states.
"""
import re
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import gluonedu as mx
from gluonedu import nd
from gluonedu.base import MXNetError
from gluonedu.optimizer import Optimizer

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from hostile import edit_document  # noqa: E402

DOCUMENT = 'states.json'
SCHEDULERS = {
    'factor': lambda: mx.lr_scheduler.FactorScheduler(step=2, factor=0.5, base_lr=0.1,
                                                      warmup_steps=1),
    'multifactor': lambda: mx.lr_scheduler.MultiFactorScheduler(step=[2, 4], factor=0.5,
                                                                base_lr=0.1),
    'poly': lambda: mx.lr_scheduler.PolyScheduler(max_update=8, base_lr=0.1, pwr=3,
                                                  final_lr=0.01),
    'cosine': lambda: mx.lr_scheduler.CosineScheduler(max_update=8, base_lr=0.1,
                                                      warmup_steps=2, warmup_begin_lr=0.01),
    'onecycle': lambda: mx.lr_scheduler.OneCycleScheduler(max_lr=0.1, total_steps=10),
}


def _steps(updater, ws, rs, count):
    for _ in range(count):
        updater([0, 1], [nd.array(rs.normal(size=w.shape)) for w in ws], ws)


def _trained(opt, steps=3):
    updater = mx.optimizer.get_updater(opt)
    rs = np.random.RandomState(0)
    ws = [nd.array(rs.normal(size=(3, 2))), nd.array(rs.normal(size=(4,)))]
    _steps(updater, ws, rs, steps)
    return updater, ws, rs


def _same_settings(a, b):
    skip = ('param_dict', '_index_update_count', 'lr_scheduler', 'cumgrads',
            'weight_previous')
    left = {k: v for k, v in vars(a).items() if k not in skip}
    right = {k: v for k, v in vars(b).items() if k not in skip}
    assert left == right


def _goes_on_alike(updater, ws, rs, restored):
    twins = [w.copy() for w in ws]
    grads = [[nd.array(rs.normal(size=w.shape)) for w in ws] for _ in range(3)]
    for g in grads:
        updater([0, 1], g, ws)
        restored([0, 1], [x.copy() for x in g], twins)
    for a, b in zip(ws, twins):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())


@pytest.mark.parametrize('name', sorted(Optimizer.opt_registry))
def test_every_optimizer_comes_back_through_its_constructor(name):
    kwargs = {'momentum': 0.9} if name in ('sgd', 'nag', 'lars', 'lbsgd', 'dcasgd') else {}
    updater, ws, rs = _trained(mx.optimizer.create(name, wd=0.01, **kwargs))
    restored = mx.optimizer.get_updater(mx.optimizer.create(name))
    restored.set_states(updater.get_states(dump_optimizer=True))
    assert type(restored.optimizer) is type(updater.optimizer)
    _same_settings(restored.optimizer, updater.optimizer)
    if name != 'sgld':   # SGLD adds random noise: its runs differ anyway
        _goes_on_alike(updater, ws, rs, restored)


@pytest.mark.parametrize('kind', sorted(SCHEDULERS))
def test_every_scheduler_comes_back_mid_schedule(kind):
    sched = SCHEDULERS[kind]()
    updater, ws, rs = _trained(mx.optimizer.SGD(momentum=0.9, lr_scheduler=sched), steps=5)
    restored = mx.optimizer.get_updater(mx.optimizer.SGD())
    restored.set_states(updater.get_states(dump_optimizer=True))
    assert vars(restored.optimizer.lr_scheduler) == vars(sched)
    _goes_on_alike(updater, ws, rs, restored)


def _attrs_of(document, kind):
    """The saved attributes of the optimizer, or of its scheduler."""
    attrs = document['optimizer']['attrs']
    return attrs['lr_scheduler']['attrs'] if kind == 'scheduler' else attrs


@pytest.mark.parametrize('kind, name, value, says', [
    ('optimizer', 'beta1', 2.0, 'beta1 must lie in'),
    ('optimizer', 'epsilon', -1.0, "a state file's epsilon must be a finite number >= 0"),
    ('optimizer', 'lr', -1.0, "lr=-1.0; a state file's lr must be a finite number >= 0"),
    ('optimizer', 'num_update', -3, 'num_update=-3'),
    ('optimizer', 'num_update', 1.5, 'num_update=1.5'),
    ('optimizer', 'lr_mult', {'dict': [[0, -2.0]]}, 'lr_mult='),
    ('optimizer', 'sneaky', 1, "attribute 'sneaky'"),
    ('optimizer', 'lr_scheduler', 5, 'lr_scheduler must be'),
    ('scheduler', 'step', 0, 'step must be greater'),
    ('scheduler', 'factor', 2.0, "a state file's factor must be a finite number >= 0 and <= 1"),
    ('scheduler', 'count', 'x', 'count='),
    ('scheduler', 'warmup_final_lr', 0.0, 'Base lr has to be higher'),
    ('scheduler', 'base_lr', -1.0, 'base_lr=-1.0'),
    ('scheduler', 'warmup_steps', 1.5, 'warmup_steps must be an int'),
    # accepted by MXNet's (and gluonedu's) constructors, refused in a file
    ('optimizer', 'wd', float('nan'), "wd=nan; a state file's wd must be a finite number >= 0"),
    ('optimizer', 'wd', -0.1, "wd=-0.1; a state file's wd must be a finite number >= 0"),
    ('optimizer', 'rescale_grad', -1.0, "rescale_grad must be a finite number > 0"),
    ('optimizer', 'rescale_grad', 0.0, "rescale_grad must be a finite number > 0"),
    ('optimizer', 'rescale_grad', float('inf'), "rescale_grad=inf"),
    ('optimizer', 'clip_gradient', float('nan'), "clip_gradient must be a finite number"),
    ('optimizer', 'begin_num_update', -2, "begin_num_update must be a finite number >= 0"),
    ('optimizer', 'multi_precision', 'x', "multi_precision='x'; expected True or False"),
    ('optimizer', 'lr', float('inf'), "lr=inf; a state file's lr must be a finite number"),
    ('scheduler', 'stop_factor_lr', -1.0, "stop_factor_lr must be a finite number >= 0"),
    # values of the wrong kind, which crashed the next update with a raw TypeError
    ('optimizer', 'clip_gradient', 'abc', "clip_gradient='abc'; expected None or a number"),
    ('optimizer', 'rescale_grad', 'x', "rescale_grad='x'; expected a number"),
    ('optimizer', 'lr_mult', {'dict': [[0, 'x']]},
     "expected a table of parameter -> multiplier"),
    ('optimizer', '_all_index_update_counts', {'dict': [[0, {'dict': [[0, 'abc']]}]]},
     'expected a table of device id'),
    ('scheduler', 'stop_factor_lr', 'abc', "stop_factor_lr='abc'; expected a number"),
    # finite numbers no training saves, which made every weight NaN
    ('optimizer', 'lr', 1e300, "lr=1e+300; a state file's lr must be a finite number >= 0 "
                               "and <= 10000.0"),
    ('optimizer', 'wd', 1e300, "wd=1e+300; a state file's wd must be"),
    ('optimizer', 'rescale_grad', 1e300, "rescale_grad=1e+300"),
    ('optimizer', 'clip_gradient', 1e300, "clip_gradient=1e+300; a state file's clip_gradient "
                                          "must be a finite number of magnitude <= 3.403e"),
    ('optimizer', 'lr_mult', {'dict': [[0, 1e300]]}, "a state file's lr_mult must be"),
    ('scheduler', 'base_lr', 1e300, "base_lr=1e+300"),
    ('scheduler', 'warmup_final_lr', 1e300, "warmup_final_lr=1e+300"),
    # update counts past MAX_UPDATES, or that disagree with num_update or the schedule
    ('optimizer', 'num_update', 2 ** 60, "a state file's num_update must be a finite number "
                                         ">= 0 and <= 9007199254740992"),
    ('optimizer', '_all_index_update_counts', {'dict': [[0, {'dict': [[0, 10 ** 12],
                                                                       [1, 3]]}]]},
     'update counts [3, 1000000000000] outside begin_num_update=0..num_update=3'),
    ('optimizer', 'begin_num_update', 5, 'outside begin_num_update=5..num_update=3'),
    ('scheduler', 'count', 3, 'count=3; it counts in whole steps of 2'),
])
def test_edited_hyperparameters_are_refused_and_nothing_changes(kind, name, value, says):
    sched = mx.lr_scheduler.FactorScheduler(step=2, factor=0.5, base_lr=0.1, warmup_steps=1,
                                            warmup_begin_lr=0.05)
    updater, _, _ = _trained(mx.optimizer.Adam(lr_scheduler=sched, learning_rate=0.1))
    raw = updater.get_states(dump_optimizer=True)

    def edit(document):
        _attrs_of(document, kind)[name] = value
        return document
    target, _, _ = _trained(mx.optimizer.SGD(learning_rate=0.5, momentum=0.9))
    before = (target.optimizer, dict(target.states))
    with pytest.raises(MXNetError, match=re.escape(says)):
        target.set_states(edit_document(raw, DOCUMENT, edit))
    assert (target.optimizer, dict(target.states)) == before
    assert target.optimizer.lr == 0.5


def test_a_negative_clip_gradient_in_a_file_means_no_clipping_as_in_mxnet():
    updater, ws, rs = _trained(mx.optimizer.SGD(clip_gradient=-1.0, learning_rate=0.1))
    restored = mx.optimizer.get_updater(mx.optimizer.SGD())
    restored.set_states(updater.get_states(dump_optimizer=True))
    assert restored.optimizer.clip_gradient == -1.0
    _goes_on_alike(updater, ws, rs, restored)


def test_a_derived_value_that_disagrees_with_the_hyperparameters_is_refused():
    """A PolyScheduler's max_steps follows from max_update and warmup_steps; an edited
    max_steps=0 would divide by zero at the next step."""
    sched = mx.lr_scheduler.PolyScheduler(max_update=8, base_lr=0.1)
    updater, _, _ = _trained(mx.optimizer.SGD(lr_scheduler=sched))

    def edit(document):
        document['optimizer']['attrs']['lr_scheduler']['attrs']['max_steps'] = 0
        return document
    with pytest.raises(MXNetError, match='max_steps=0, but its hyper-parameters give 8'):
        mx.optimizer.get_updater(mx.optimizer.SGD()).set_states(
            edit_document(updater.get_states(dump_optimizer=True), DOCUMENT, edit))


def test_states_of_another_optimizer_are_refused_at_their_first_use():
    """Updater.set_states has no weights to check states against; the first update of
    each index does, before the optimizer reads them."""
    adam, ws, rs = _trained(mx.optimizer.Adam())
    sgd = mx.optimizer.get_updater(mx.optimizer.SGD(momentum=0.9))
    sgd.set_states(adam.get_states())
    before = [w.asnumpy() for w in ws]
    with pytest.raises(MXNetError, match='do not fit parameter 0: the state is AdamState of '
                                         'length 2, not an array'):
        sgd([0, 1], [nd.ones(w.shape) for w in ws], ws)
    for old, w in zip(before, ws):
        np.testing.assert_array_equal(old, w.asnumpy())


def _adam_store(shape):
    """A local store with Adam that has made one update of key 0 (a value of ``shape``)."""
    kv = mx.kv.create('local')
    kv.set_optimizer(mx.optimizer.Adam(learning_rate=0.1))
    kv.init(0, nd.ones(shape))
    kv.push(0, nd.ones(shape))
    return kv


def _saved_adam_store(tmp_path):
    """The file of a store's states (optimizer included) after one Adam update."""
    fname = str(tmp_path / 'store.states')
    _adam_store((2, 2)).save_optimizer_states(fname, dump_optimizer=True)
    return fname


def test_the_store_refuses_an_edited_optimizer_and_keeps_its_own(tmp_path):
    fname = _saved_adam_store(tmp_path)
    with open(fname, 'rb') as f:
        raw = f.read()

    def edit(document):
        document['optimizer']['attrs']['epsilon'] = -1.0
        return document
    with open(fname, 'wb') as f:
        f.write(edit_document(raw, DOCUMENT, edit))
    other = mx.kv.create('local')
    other.set_optimizer(mx.optimizer.SGD(learning_rate=0.5))
    with pytest.raises(MXNetError, match="epsilon=-1.0; a state file's epsilon must be"):
        other.load_optimizer_states(fname)
    assert type(other.optimizer) is mx.optimizer.SGD and other.optimizer.lr == 0.5


class _Doubled(Optimizer):
    """A user's optimizer that keeps its argument under another name."""

    def __init__(self, strength=1.0, **kwargs):
        super().__init__(**kwargs)
        self.doubled = 2 * strength

    def create_state(self, index, weight):
        return None

    def update(self, index, weight, grad, state):
        weight[:] -= self.lr * self.doubled * grad


def test_a_users_optimizer_comes_back_with_its_own_attributes():
    Optimizer.register(_Doubled)
    try:
        updater, ws, rs = _trained(_Doubled(strength=3.0, learning_rate=0.1))
        restored = mx.optimizer.get_updater(mx.optimizer.SGD())
        restored.set_states(updater.get_states(dump_optimizer=True))
        assert type(restored.optimizer) is _Doubled and restored.optimizer.doubled == 6.0
        _goes_on_alike(updater, ws, rs, restored)
    finally:
        Optimizer.opt_registry.pop('_doubled', None)


def _edited(updater, edit):
    """``updater``'s states and optimizer, saved, with ``edit(document)`` applied."""
    return edit_document(updater.get_states(dump_optimizer=True), DOCUMENT, edit)


def test_a_count_far_behind_loads_and_the_next_update_returns_at_once():
    """num_update = 10**12 beside a FactorScheduler(step=1) still at count 2: MXNet's
    scheduler would loop 10**12 times at the next update; here the update returns at
    once, at the rate the decays give (the floor)."""
    sched = mx.lr_scheduler.FactorScheduler(step=1, factor=0.5, base_lr=0.1)
    updater, ws, rs = _trained(mx.optimizer.SGD(lr_scheduler=sched, learning_rate=0.1))

    def edit(document):
        document['optimizer']['attrs']['num_update'] = 10 ** 12
        return document
    restored = mx.optimizer.get_updater(mx.optimizer.SGD())
    restored.set_states(_edited(updater, edit))
    start = time.monotonic()
    _steps(restored, ws, rs, 1)
    assert time.monotonic() - start < 2
    assert restored.optimizer.lr_scheduler.base_lr == sched.stop_factor_lr
    assert all(np.isfinite(w.asnumpy()).all() for w in ws)


def test_a_schedule_run_ahead_of_training_still_loads():
    """A scheduler called on its own first (to plot its curve) counts past num_update;
    the file it is saved in loads, and training goes on alike."""
    sched = mx.lr_scheduler.FactorScheduler(step=10, factor=0.5, base_lr=0.1)
    curve = [sched(n) for n in range(1, 101)]
    assert curve[-1] < curve[0] and sched.count == 90
    updater, ws, rs = _trained(mx.optimizer.SGD(momentum=0.9, lr_scheduler=sched,
                                                learning_rate=sched.base_lr))
    restored = mx.optimizer.get_updater(mx.optimizer.SGD())
    restored.set_states(updater.get_states(dump_optimizer=True))
    assert restored.optimizer.lr_scheduler.count == 90
    _goes_on_alike(updater, ws, rs, restored)


def test_a_multifactor_count_that_is_not_the_milestone_passed_is_refused():
    sched = mx.lr_scheduler.MultiFactorScheduler(step=[2, 4], factor=0.5, base_lr=0.1)
    updater, _, _ = _trained(mx.optimizer.SGD(lr_scheduler=sched, learning_rate=0.1))
    assert (sched.count, sched.cur_step_ind) == (2, 1)

    def edit(document):
        document['optimizer']['attrs']['lr_scheduler']['attrs']['count'] = 3
        return document
    with pytest.raises(MXNetError, match=re.escape('count=3 and cur_step_ind=1; after 1 of '
                                                   'its steps [2, 4] the count is the last')):
        mx.optimizer.get_updater(mx.optimizer.SGD()).set_states(_edited(updater, edit))


def test_a_lars_rate_that_would_blow_up_its_momentum_correction_is_refused():
    """LARS multiplies its momentum by the rate now over cur_lr at its next update: a
    file's cur_lr=1e-300 would multiply it by 1e299."""
    updater, _, _ = _trained(mx.optimizer.LARS(momentum=0.9, learning_rate=0.1))

    def edit(document):
        document['optimizer']['attrs']['cur_lr'] = 1e-300
        return document
    with pytest.raises(MXNetError, match=re.escape('cur_lr=1e-300; its next update would '
                                                   'multiply the momentum by 0.1 / 1e-300')):
        mx.optimizer.get_updater(mx.optimizer.SGD()).set_states(_edited(updater, edit))


def test_the_store_refuses_states_that_do_not_fit_its_values(tmp_path):
    """The store holds its values when it loads: a state of another shape is refused
    then, not at the next push."""
    fname = _saved_adam_store(tmp_path)
    other = _adam_store((3,))
    before = other.optimizer, dict(other.optimizer_states)
    with pytest.raises(MXNetError, match=re.escape('the state of key 0 does not fit its value:'
                                                   ' the state[0] is a float32 array of shape '
                                                   '(2, 2); this optimizer keeps float32 of '
                                                   'shape (3,)')):
        other.load_optimizer_states(fname)
    assert (other.optimizer, dict(other.optimizer_states)) == before
