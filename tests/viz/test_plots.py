"""gluonedu.viz.plots: the Recorder plots and plot_trajectories given optimizers.

Each plot is drawn from a real training run (a Trainer on a tiny MLP under a Recorder)
or from rows logged by hand, and its artists are checked against the recorded table.
"""
import matplotlib

matplotlib.use('Agg')

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

import gluonedu as mx  # noqa: E402
from gluonedu import autograd, gluon, nd  # noqa: E402
from gluonedu.instrument import Recorder  # noqa: E402
from gluonedu.viz import (Quadratic, Rosenbrock, plot_kv_traffic, plot_loss,  # noqa: E402
                          plot_losses, plot_lr, plot_norms, plot_stale_events,
                          plot_trajectories, plot_update_ratio, run_optimizer)

WARMUP = 3
STEPS = 6


@pytest.fixture(autouse=True)
def _fresh_names_and_figures():
    with mx.name.NameManager():
        yield
    plt.close('all')


class TinyNet(gluon.Block):
    """4 -> 5 -> 3, plus a ``spare`` layer forward never uses (its gradients go stale)."""

    def __init__(self, spare=False):
        super().__init__()
        with self.name_scope():
            self.hidden = gluon.nn.Dense(5, in_units=4)
            self.out = gluon.nn.Dense(3, in_units=5)
            if spare:
                self.spare = gluon.nn.Dense(2, in_units=5)

    def forward(self, x):
        return self.out(nd.relu(self.hidden(x)))


def _train(ctx, steps=STEPS, norms=True, spare=False, ignore_stale_grad=False,
           trainer_kwargs=None, optimizer='adam', optimizer_params=None, seed=0):
    """Train a tiny MLP for ``steps`` steps under a Recorder; return (net, trainer, rec)."""
    ctx = ctx if isinstance(ctx, list) else [ctx]
    mx.random.seed(seed)
    net = TinyNet(spare)
    net.initialize(mx.init.Xavier(), ctx=ctx)
    trainer = gluon.Trainer(net.collect_params(), optimizer, optimizer_params,
                            **(trainer_kwargs or {}))
    rng = np.random.default_rng(seed)
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    rec = Recorder(trainer, norms=norms)
    with rec:
        for _ in range(steps):
            x = nd.array(rng.standard_normal((8, 4)))
            y = nd.array(rng.integers(0, 3, 8))
            xs = gluon.utils.split_and_load(x, ctx)
            ys = gluon.utils.split_and_load(y, ctx)
            with autograd.record():
                losses = [loss_fn(net(a), b) for a, b in zip(xs, ys)]
            autograd.backward(losses)
            trainer.step(8, ignore_stale_grad=ignore_stale_grad)
            rec.log('loss', float(sum(l.mean().asscalar() for l in losses) / len(losses)))
    return net, trainer, rec


@pytest.fixture(scope='module')
def adam_run():
    """Adam with a linear warm-up and lr_mult=2 on the output layer, norms recorded."""
    with mx.name.NameManager():
        schedule = mx.lr_scheduler.FactorScheduler(step=100, base_lr=0.01,
                                                   warmup_steps=WARMUP, warmup_begin_lr=0.001)
        mx.random.seed(0)
        net = TinyNet()
        net.initialize(mx.init.Xavier())
        net.out.weight.lr_mult = 2.0
        trainer = gluon.Trainer(net.collect_params(), 'adam',
                                {'learning_rate': 0.01, 'lr_scheduler': schedule})
        rng = np.random.default_rng(0)
        loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
        with Recorder(trainer, norms=True) as rec:
            for _ in range(STEPS):
                x = nd.array(rng.standard_normal((8, 4)))
                y = nd.array(rng.integers(0, 3, 8))
                with autograd.record():
                    loss = loss_fn(net(x), y)
                loss.backward()
                trainer.step(8)
                rec.log_metric(loss=loss.mean(), accuracy=0.5)
    return net, trainer, rec


def _line(ax, gid):
    matches = [line for line in ax.lines if line.get_gid() == gid]
    assert len(matches) == 1, [line.get_gid() for line in ax.lines]
    return matches[0]


def _xy(line):
    return np.asarray(line.get_xdata(), dtype=float), np.asarray(line.get_ydata(), dtype=float)


# ---------------------------------------------------------------------- plot_lr
def test_plot_lr_draws_each_parameter_and_the_schedule_with_lr_mult(adam_run):
    net, trainer, rec = adam_run
    fig = plot_lr(rec)
    assert isinstance(fig, Figure)
    (ax,) = fig.axes
    names = [p.name for p in trainer.params]
    assert sorted(line.get_gid() for line in ax.lines) == sorted(names + ['schedule'])
    reference = mx.lr_scheduler.FactorScheduler(step=100, base_lr=0.01, warmup_steps=WARMUP,
                                                warmup_begin_lr=0.001)
    schedule = np.array([reference(n) for n in range(1, STEPS + 1)])
    steps, values = _xy(_line(ax, 'schedule'))
    np.testing.assert_array_equal(steps, np.arange(1, STEPS + 1))
    np.testing.assert_allclose(values, schedule, rtol=1e-12)
    for name in names:
        steps, values = _xy(_line(ax, name))
        rec_steps, rec_values = rec.series('lr', 'lr', param=name)
        np.testing.assert_array_equal(steps, rec_steps)
        np.testing.assert_array_equal(values, rec_values)
        mult = 2.0 if name == net.out.weight.name else 1.0
        np.testing.assert_allclose(values, mult * schedule, rtol=1e-12)
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert '%s (lr_mult 2)' % net.out.weight.name in legend
    assert '%s (lr_mult 1)' % net.hidden.weight.name in legend


def test_plot_lr_without_a_trainer_takes_the_schedule_most_parameters_share(adam_run,
                                                                            tmp_path):
    net, _, rec = adam_run
    detached = Recorder.from_jsonl(rec.to_jsonl(tmp_path / 'rows.jsonl'))
    fig = plot_lr(detached, params=[net.out.weight.name, net.out.bias.name])
    (ax,) = fig.axes
    assert [line.get_gid() for line in ax.lines] == [
        'schedule', net.out.weight.name, net.out.bias.name]
    np.testing.assert_allclose(_xy(_line(ax, 'schedule'))[1],
                               rec.series('lr', 'lr', param=net.out.bias.name)[1])
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend[1] == '%s (lr_mult 2)' % net.out.weight.name


# ---------------------------------------------------------------------- plot_norms
def test_plot_norms_lines_equal_the_recorded_norms_on_log_axes(adam_run):
    _, trainer, rec = adam_run
    which = ('weight', 'grad', 'update', 'mean', 'var')
    fig = plot_norms(rec, which=which)
    assert len(fig.axes) == len(which)
    names = [p.name for p in trainer.params]
    for ax, quantity in zip(fig.axes, which):
        assert ax.get_yscale() == 'log'
        assert quantity in ax.get_title()
        assert sorted(line.get_gid() for line in ax.lines) == sorted(names)
        event = 'norm' if quantity in ('weight', 'grad', 'update') else 'state_norm'
        for name in names:
            steps, values = _xy(_line(ax, name))
            rec_steps, rec_values = rec.series(event, quantity, param=name)
            np.testing.assert_array_equal(steps, rec_steps)
            np.testing.assert_array_equal(values, rec_values)
    # The last Adam state norms are those of the updater's states.
    states = trainer._updaters[0].states
    var_ax = fig.axes[which.index('var')]
    for index, param in enumerate(trainer._params):
        last = _xy(_line(var_ax, param.name))[1][-1]
        assert last == pytest.approx(np.linalg.norm(states[index][1].asnumpy()), rel=1e-6)


def test_plot_norms_one_quantity_into_a_given_axes_and_some_params(adam_run):
    net, _, rec = adam_run
    fig, ax = plt.subplots()
    assert plot_norms(rec, 'grad', params=net.hidden.weight.name, ax=ax) is fig
    assert [line.get_gid() for line in ax.lines] == [net.hidden.weight.name]
    with pytest.raises(ValueError, match='one quantity'):
        plot_norms(rec, ('grad', 'weight'), ax=ax)
    with pytest.raises(ValueError, match=r"no 'grad' rows for 'nope'.*recorded parameters"):
        plot_norms(rec, 'grad', params=['nope'])


def test_plot_norms_errors_name_the_recorder_option():
    _, _, rec = _train(mx.cpu(), steps=2, norms=False)
    with pytest.raises(ValueError, match=r"'norm' rows.*norms=True"):
        plot_norms(rec)
    with pytest.raises(ValueError, match=r"'state_norm' rows.*norms=True.*'mean', 'var'"):
        plot_norms(rec, 'mean')
    _, _, some = _train(mx.cpu(), steps=2, norms=['grad', 'mean'])
    plot_norms(some, ('grad', 'mean'))
    with pytest.raises(ValueError, match=r"no 'norm' rows named 'weight'.*recorded: 'grad'"):
        plot_norms(some, 'weight')
    with pytest.raises(ValueError, match=r"named 'var'.*recorded: 'mean'.*includes 'var'"):
        plot_norms(some, 'var')
    with pytest.raises(TypeError, match='takes a gluonedu.instrument.Recorder'):
        plot_norms([1, 2, 3])


# ---------------------------------------------------------------------- update ratio
def test_plot_update_ratio_is_update_over_weight_per_parameter(adam_run):
    _, trainer, rec = adam_run
    fig = plot_update_ratio(rec)
    (ax,) = fig.axes
    assert ax.get_yscale() == 'log'
    guide = _line(ax, 'reference')
    assert list(guide.get_ydata()) == [1e-3, 1e-3]
    for param in trainer._params:
        steps, ratio = _xy(_line(ax, param.name))
        _, update = rec.series('norm', 'update', param=param.name)
        _, weight = rec.series('norm', 'weight', param=param.name)
        np.testing.assert_array_equal(steps, np.arange(1, STEPS + 1))
        np.testing.assert_allclose(ratio, update / weight, rtol=1e-12)
        assert np.all(ratio > 0)


def test_plot_update_ratio_needs_update_and_weight_norms():
    _, _, rec = _train(mx.cpu(), steps=2, norms=['grad'])
    with pytest.raises(ValueError, match=r"named 'weight'.*includes 'weight'"):
        plot_update_ratio(rec)
    _, _, rec = _train(mx.cpu(), steps=2, norms=['weight'])
    with pytest.raises(ValueError, match=r"named 'update'.*includes 'update'"):
        plot_update_ratio(rec)


# ---------------------------------------------------------------------- stale events
def test_plot_stale_events_marks_raised_and_skipped_by_parameter_and_context():
    ctx = [mx.cpu(0), mx.cpu(1)]
    net = TinyNet(spare=True)
    net.initialize(mx.init.Xavier(), ctx=ctx)
    # Updates off the store: with update_on_kvstore the store updates every key during
    # allreduce, so no copy is left out and no 'skipped' event is reported.
    trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1},
                            update_on_kvstore=False)
    x = nd.ones((4, 4))

    def backward():
        with autograd.record():
            losses = [net(part).sum() for part in gluon.utils.split_and_load(x, ctx)]
        autograd.backward(losses)

    with Recorder(trainer) as raised:
        for _ in range(3):                          # the spare layer's copies are skipped
            backward()
            trainer.step(4, ignore_stale_grad=True)
        backward()                                  # and then the step raises
        with pytest.raises(UserWarning, match='has not been updated by backward'):
            trainer.step(4)
    fig = plot_stale_events(raised)
    (ax,) = fig.axes
    spare = [net.spare.weight.name, net.spare.bias.name]
    lanes = sorted((p, str(c)) for p in spare for c in ctx)
    assert [t.get_text() for t in ax.get_yticklabels()] == ['%s @ %s' % lane for lane in lanes]
    by_gid = {c.get_gid(): c for c in ax.collections}
    assert set(by_gid) == {'raised', 'skipped'}
    expected = {'raised': [], 'skipped': []}
    for r in raised.rows:
        if r.event == 'stale_grad':
            expected[r.name].append((r.step, lanes.index((r.param, r.context))))
    assert len(expected['skipped']) == 3 * len(lanes)      # every spare copy, every step
    assert len(expected['raised']) == 1                      # the first stale copy raised
    for outcome, points in expected.items():
        np.testing.assert_array_equal(by_gid[outcome].get_offsets(), np.array(points))
    assert 'stale gradients: 1 raised, 12 skipped' == ax.get_title()


def test_plot_stale_events_without_stale_rows_says_how_they_arise(adam_run):
    with pytest.raises(ValueError, match=r"'stale_grad' rows.*ignore_stale_grad=True"):
        plot_stale_events(adam_run[2])


# ---------------------------------------------------------------------- kv traffic
def test_plot_kv_traffic_bars_are_dense_and_compressed_bytes_per_key():
    ctx = [mx.cpu(0), mx.cpu(1)]
    _, trainer, rec = _train(ctx, steps=2, norms=False, optimizer='sgd',
                             optimizer_params={'learning_rate': 0.1},
                             trainer_kwargs={'compression_params': {'type': '2bit',
                                                                    'threshold': 0.5},
                                             'update_on_kvstore': False})
    fig = plot_kv_traffic(rec)
    (ax,) = fig.axes
    bars = {c.get_label(): c for c in ax.containers}
    assert set(bars) == {'dense', 'compressed'}
    names = [p.name for p in trainer.params]
    assert [t.get_text() for t in ax.get_xticklabels()] == names
    for gid, measure in (('dense', 'bytes'), ('compressed', 'compressed_bytes')):
        heights = [bar.get_height() for bar in bars[gid]]
        expected = [rec.series('kv_push', measure, param=n)[1].mean() for n in names]
        assert heights == pytest.approx(expected)
    dense = [bar.get_height() for bar in bars['dense']]
    assert dense == [4.0 * p.data().size for p in trainer._params]   # float32, per push
    compressed = [bar.get_height() for bar in bars['compressed']]
    assert all(c < d for c, d in zip(compressed, dense))
    total = plot_kv_traffic(rec, total=True, log=True).axes[0]
    assert total.get_yscale() == 'log'
    assert [b.get_height() for b in total.containers[0]] == pytest.approx(
        [2 * d for d in dense])


def test_plot_kv_traffic_without_a_store_says_what_makes_one(adam_run):
    with pytest.raises(ValueError, match=r"'kv_push' rows.*ctx=\[mx.cpu\(0\), mx.cpu\(1\)\]"):
        plot_kv_traffic(adam_run[2])


# ---------------------------------------------------------------------- plot_loss
def test_plot_loss_draws_the_logged_metrics(adam_run):
    _, _, rec = adam_run
    fig = plot_loss(rec)
    (ax,) = fig.axes
    steps, values = _xy(_line(ax, 'loss'))
    rec_steps, rec_values = rec.series('metric', 'loss')
    np.testing.assert_array_equal(steps, rec_steps)
    np.testing.assert_array_equal(values, rec_values)
    both = plot_loss(rec, names=('loss', 'accuracy'), log=True)
    assert [a.lines[0].get_gid() for a in both.axes] == ['loss', 'accuracy']
    assert all(a.get_yscale() == 'log' for a in both.axes)
    np.testing.assert_array_equal(both.axes[1].lines[0].get_ydata(), [0.5] * STEPS)


def test_plot_loss_from_hand_logged_rows_and_its_errors():
    rec = Recorder()
    rec.detach()
    with pytest.raises(ValueError, match=r"'metric' rows.*rec.log\('loss', loss.mean\(\)\)"):
        plot_loss(rec)
    for step, value in enumerate([2.0, 1.5, 0.75]):
        rec.log_metric(loss=value, step=step)
    ax = plot_loss(rec).axes[0]
    np.testing.assert_array_equal(ax.lines[0].get_xdata(), [0, 1, 2])
    np.testing.assert_array_equal(ax.lines[0].get_ydata(), [2.0, 1.5, 0.75])
    with pytest.raises(ValueError, match=r"no metric rows named 'acc'; recorded metrics: "
                                         r"'loss'\. Log it"):
        plot_loss(rec, 'acc')


def test_lr_plot_error_names_the_kinds_option():
    with Recorder(kinds=['metric']) as only_metrics:
        _train(mx.cpu(), steps=1, norms=False)
        only_metrics.log('loss', 1.0)
    with pytest.raises(ValueError, match=r"plot_lr\(\) needs 'lr' rows.*kinds="):
        plot_lr(only_metrics)


# ---------------------------------------------------------------------- trajectories
def test_plot_trajectories_runs_optimizer_specs():
    land = Quadratic(condition=10)
    fig = plot_trajectories(land, {'sgd': ('sgd', {'learning_rate': 0.05}),
                                   'adam': 'adam'}, steps=20)
    ax = fig.axes[0]
    assert [line.get_label() for line in ax.lines] == ['sgd', 'adam']
    expected = run_optimizer(land, 'sgd', 20, learning_rate=0.05)
    np.testing.assert_array_equal(np.column_stack(_xy(ax.lines[0])), expected)
    np.testing.assert_array_equal(np.column_stack(_xy(ax.lines[1])),
                                  run_optimizer(land, 'adam', 20))


def test_plot_trajectories_mixes_bare_specs_instances_and_paths():
    land = Rosenbrock()
    path = run_optimizer(land, 'adam', 5, learning_rate=0.05)
    sgd = mx.optimizer.create('sgd', learning_rate=1e-4)
    fig = plot_trajectories(land, ['nag', ('adam', {'learning_rate': 0.05}), sgd,
                                   ('given', path)], steps=5, start=(-1.0, 1.5))
    ax = fig.axes[0]
    assert [line.get_label() for line in ax.lines] == [
        'nag', 'adam (learning_rate=0.05)', 'sgd', 'given']
    np.testing.assert_array_equal(np.column_stack(_xy(ax.lines[0])),
                                  run_optimizer(land, 'nag', 5, start=(-1.0, 1.5)))
    assert tuple(np.column_stack(_xy(ax.lines[2]))[0]) == (-1.0, 1.5)
    np.testing.assert_array_equal(np.column_stack(_xy(ax.lines[3])), path)
    losses = plot_losses(land, {'adam': ('adam', {'learning_rate': 0.05})}, steps=5).axes[0]
    np.testing.assert_allclose(losses.lines[0].get_ydata(),
                               np.maximum(land(path[:, 0], path[:, 1]) - land.min_value,
                                          1e-16))


def test_plot_trajectories_spec_errors_are_clear():
    land = Quadratic()
    with pytest.raises(TypeError, match='hyperparameters.*instance'):
        plot_trajectories(land, [(mx.optimizer.create('sgd'), {'learning_rate': 0.1})])
    with pytest.raises(ValueError, match=r"'bad' must have shape \(steps \+ 1, 2\)"):
        plot_trajectories(land, {'bad': np.zeros((3, 3))})
