"""OneCycleScheduler (a gluonedu addition): its curves, its errors, and how optimizers
read its momentum; FactorScheduler catching up on a count far behind. MXNet's own
schedulers are checked against MXNet in tests/parity/optimizer/test_scheduler_parity.py."""
import logging
import math
import time

import numpy as np
import pytest

import gluonedu as mx
from gluonedu import autograd, gluon, nd
from gluonedu.lr_scheduler import EXACT_DECAYS, FactorScheduler, OneCycleScheduler


def test_the_lr_rises_to_max_lr_then_anneals_to_the_final_lr():
    s = OneCycleScheduler(max_lr=0.4, total_steps=100, pct_start=0.3, div_factor=20,
                          final_div_factor=100)
    assert s(0) == pytest.approx(0.02)                  # max_lr / div_factor
    assert s(15) == pytest.approx((0.02 + 0.4) / 2)     # half-way up a cosine
    assert s(30) == pytest.approx(0.4)                  # the peak, at pct_start
    assert s(65) == pytest.approx((0.4 + 0.0002) / 2)   # half-way down
    assert s(100) == pytest.approx(0.0002)              # max_lr / (div * final_div)
    assert s(150) == pytest.approx(0.0002)              # and it stays there
    lrs = [s(n) for n in range(101)]
    assert np.all(np.diff(lrs[:31]) > 0) and np.all(np.diff(lrs[30:]) < 0)
    assert max(lrs) == pytest.approx(0.4) and np.argmax(lrs) == 30


def test_the_momentum_cycles_the_other_way():
    s = OneCycleScheduler(max_lr=1.0, total_steps=40, base_momentum=0.8, max_momentum=0.9)
    assert [s.momentum_at(n) for n in (0, 5, 10, 25, 40, 99)] == pytest.approx(
        [0.9, 0.85, 0.8, 0.85, 0.9, 0.9])
    lrs = np.array([s(n) for n in range(41)])
    moms = np.array([s.momentum_at(n) for n in range(41)])
    assert np.argmin(moms) == np.argmax(lrs) == 10
    # The two curves are mirror images on each phase: momentum falls as the lr rises.
    assert np.all(np.sign(np.diff(lrs)) == -np.sign(np.diff(moms)))


def test_defaults_follow_fastai_and_pytorch():
    s = OneCycleScheduler(max_lr=1.0, total_steps=8)
    assert (s.pct_start, s.div_factor, s.final_div_factor, s.base_momentum,
            s.max_momentum, s.cycle_momentum) == (0.25, 25., 1e4, 0.85, 0.95, True)
    assert s(0) == pytest.approx(0.04) and s(2) == pytest.approx(1.0)
    assert s(8) == pytest.approx(4e-6)


def test_mxnet_schedulers_and_cycle_momentum_false_leave_the_momentum_alone():
    assert mx.lr_scheduler.FactorScheduler(step=10).momentum_at(5) is None
    assert OneCycleScheduler(1.0, 10, cycle_momentum=False).momentum_at(5) is None
    # Then any momentum values are accepted: they are not used.
    OneCycleScheduler(1.0, 10, cycle_momentum=False, base_momentum=2.0)


@pytest.mark.parametrize('kwargs,name', [
    ({'max_lr': 0}, 'max_lr'), ({'max_lr': -1.0}, 'max_lr'), ({'max_lr': 'high'}, 'max_lr'),
    ({'total_steps': 1}, 'total_steps'), ({'total_steps': 10.5}, 'total_steps'),
    ({'pct_start': 0}, 'pct_start'), ({'pct_start': 1.0}, 'pct_start'),
    ({'pct_start': 1.5}, 'pct_start'),
    ({'div_factor': 0.5}, 'div_factor'), ({'final_div_factor': 0}, 'final_div_factor'),
    ({'max_momentum': 1.0}, 'max_momentum'), ({'base_momentum': 0.0}, 'base_momentum'),
    ({'base_momentum': 0.97}, 'base_momentum'),   # above max_momentum (0.95)
    # infinite: every lr NaN (issue 31), or 0 for the divisors
    ({'max_lr': math.inf}, 'max_lr'), ({'max_lr': math.nan}, 'max_lr'),
    ({'div_factor': math.inf}, 'div_factor'), ({'final_div_factor': math.inf},
                                                 'final_div_factor'),
])
def test_phases_that_do_not_fit_raise_value_error_naming_the_argument(kwargs, name):
    args = dict({'max_lr': 0.1, 'total_steps': 10}, **kwargs)
    with pytest.raises(ValueError, match='^%s ' % name):
        OneCycleScheduler(**args)


@pytest.mark.parametrize('max_lr', [1e308, np.finfo(np.float64).max, 5e-324])
def test_extreme_rates_stay_on_the_curve_between_its_ends(max_lr):
    # issue 31: max_lr=1e308 gave -inf (max_lr - initial_lr overflowed)
    s = OneCycleScheduler(max_lr=max_lr, total_steps=8, div_factor=1e4)  # peak at 2
    lrs = np.array([s(n) for n in range(10)])
    assert np.isfinite(lrs).all() and (lrs >= 0).all() and lrs.max() == lrs[2] == max_lr
    assert np.all(np.diff(lrs[:3]) >= 0) and np.all(np.diff(lrs[2:]) <= 0)


def test_sgd_uses_the_scheduled_momentum_at_every_update():
    """The readable SGD update with one-cycle, against the formula by hand."""
    schedule = OneCycleScheduler(max_lr=0.1, total_steps=6, base_momentum=0.5,
                                 max_momentum=0.9)
    opt = mx.optimizer.create('sgd', lr_scheduler=schedule, momentum=0.0)
    w = nd.array([1.0, -2.0])
    state = opt.create_state(0, w)
    assert state is not None   # momentum 0 given, but the schedule drives it: a buffer
    ref, mom = np.array([1.0, -2.0]), np.zeros(2)
    rng = np.random.default_rng(0)
    for n in range(1, 7):
        g = rng.standard_normal(2).astype(np.float32)
        opt.update(0, w, nd.array(g), state)
        mom = schedule.momentum_at(n) * mom - schedule(n) * g
        ref = ref + mom
        assert opt.momentum == schedule.momentum_at(n)
        np.testing.assert_allclose(w.asnumpy(), ref, rtol=1e-5, atol=1e-6)


def test_an_optimizer_without_momentum_refuses_a_momentum_schedule():
    with pytest.raises(ValueError, match='AdaGrad has no momentum.*cycle_momentum=False'):
        mx.optimizer.create('adagrad', lr_scheduler=OneCycleScheduler(0.1, 10))
    opt = mx.optimizer.create('adagrad', learning_rate=0.1,
                              lr_scheduler=OneCycleScheduler(0.1, 10, cycle_momentum=False))
    opt.num_update = 3
    assert opt.learning_rate == OneCycleScheduler(0.1, 10)(3)


def test_a_trainer_saves_and_resumes_a_one_cycle_run(tmp_path):
    """The schedule (a plain-attribute object) goes into the state file and comes back."""
    def make():
        net = gluon.nn.Dense(2, in_units=3)
        net.initialize(mx.init.Constant(0.5))
        schedule = OneCycleScheduler(max_lr=0.1, total_steps=6)
        trainer = gluon.Trainer(net.collect_params(), 'sgd',
                                {'learning_rate': 0.1, 'lr_scheduler': schedule})
        return net, trainer

    def step(net, trainer, seed):
        x = nd.array(np.random.default_rng(seed).standard_normal((4, 3)))
        with autograd.record():
            loss = (net(x) ** 2).sum()
        loss.backward()
        trainer.step(4)

    straight = make()
    for seed in range(4):
        step(*straight, seed)
    first = make()
    for seed in range(2):
        step(*first, seed)
    first[1].save_states(str(tmp_path / 'run.states'))
    # A new Trainer without any schedule: the file brings it back, at update 2.
    resumed = (first[0], gluon.Trainer(first[0].collect_params(), 'sgd',
                                       {'learning_rate': 0.1}))
    resumed[1].load_states(str(tmp_path / 'run.states'))
    assert isinstance(resumed[1].optimizer.lr_scheduler, OneCycleScheduler)
    assert resumed[1].optimizer.momentum == OneCycleScheduler(0.1, 6).momentum_at(2)
    for seed in range(2, 4):
        step(*resumed, seed)
    np.testing.assert_array_equal(straight[0].weight.data().asnumpy(),
                                  resumed[0].weight.data().asnumpy())
    assert math.isclose(resumed[1].learning_rate, OneCycleScheduler(0.1, 6)(4))


def _mxnet_factor_call(schedule, num_update):
    """MXNet 1.9.1's FactorScheduler.__call__ (its loop, one decay per pass), on a
    plain-attribute copy of ``schedule``."""
    if num_update < schedule.warmup_steps:
        return schedule.get_warmup_lr(num_update)
    while num_update > schedule.count + schedule.step:
        schedule.count += schedule.step
        schedule.base_lr *= schedule.factor
        if schedule.base_lr < schedule.stop_factor_lr:
            schedule.base_lr = schedule.stop_factor_lr
    return schedule.base_lr


@pytest.mark.parametrize('kwargs', [
    {'step': 1, 'factor': 0.5}, {'step': 3, 'factor': 0.9, 'stop_factor_lr': 0},
    {'step': 2.5, 'factor': 0.999, 'warmup_steps': 40, 'warmup_begin_lr': 0.001},
    {'step': 7, 'factor': 1}, {'step': 1, 'factor': 0.0, 'stop_factor_lr': 1e-3},
])
def test_factor_decays_are_mxnets_floats_up_to_exact_decays_at_a_call(kwargs):
    """Calls one update apart, and jumps of up to EXACT_DECAYS decays (a first call
    after a long warm-up): the same rate and count, to the bit, as MXNet's loop."""
    ours, theirs = FactorScheduler(base_lr=0.1, **kwargs), FactorScheduler(base_lr=0.1,
                                                                             **kwargs)
    rng = np.random.default_rng(0)
    num_update = 0
    for _ in range(120):
        num_update += int(rng.choice([0, 1, 1, 1, 2, 17, EXACT_DECAYS - 1]))
        assert ours(num_update) == _mxnet_factor_call(theirs, num_update)
        assert (ours.count, ours.base_lr) == (theirs.count, theirs.base_lr)


@pytest.mark.parametrize('step, factor, stop', [(1, 0.5, 1e-8), (3, 1 - 1e-9, 0),
                                                (2.5, 0.9999, 0), (4, 1, 1e-8)])
def test_a_count_far_behind_is_caught_up_at_once(step, factor, stop):
    """num_update = 10**12 with the count at 0 (MXNet's loop: 10**12 passes) returns
    at once, with the rate the decays give, and the next calls go on one by one."""
    schedule = FactorScheduler(step=step, factor=factor, stop_factor_lr=stop, base_lr=0.1)
    start = time.monotonic()
    rate = schedule(10 ** 12)
    assert time.monotonic() - start < 1
    decays = math.ceil(10 ** 12 / step) - 1
    assert schedule.count == pytest.approx(decays * step, rel=1e-12)
    assert rate == pytest.approx(max(0.1 * factor ** decays, stop), rel=1e-6)
    before = schedule.base_lr
    schedule(schedule.count + step + 1)   # one more decay, as MXNet's loop makes it
    assert schedule.base_lr == max(before * factor, stop)


def test_a_catch_up_logs_the_exact_decays_then_one_line_for_the_rest(caplog):
    schedule = FactorScheduler(step=1, factor=0.5, stop_factor_lr=0, base_lr=1.0)
    with caplog.at_level(logging.INFO):
        schedule(10 ** 9)
    assert len(caplog.records) == EXACT_DECAYS + 1
    assert caplog.records[-1].getMessage() == \
        'Update[1000000000]: learning rate is now 0.00000e+00'
