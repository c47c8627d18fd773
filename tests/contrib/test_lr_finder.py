"""The lr range test on the digits MLP: a sensible suggestion, the net and the trainer
left exactly as they were, early stopping on divergence, bad input, the plot."""
import warnings
import zipfile

import numpy as np
import pytest

import gluonedu as mx
from gluonedu import autograd, gluon, nd
from gluonedu.contrib import lr_find


@pytest.fixture(scope='module')
def batches():
    """The digits as a fixed list of 64-sample batches (no shuffling: reproducible)."""
    X, y = mx.data.digits()
    order = np.random.default_rng(0).permutation(len(X))
    X, y = X[order], y[order]
    return [(nd.array(X[i:i + 64]), nd.array(y[i:i + 64])) for i in range(0, 1792 - 63, 64)]


def _mlp(ctx=None, in_units=64):
    with mx.name.NameManager():
        net = gluon.nn.Sequential()
        net.add(gluon.nn.Dense(32, activation='relu', in_units=in_units),
                gluon.nn.Dense(10, in_units=32))
    mx.random.seed(1)
    net.initialize(mx.init.Xavier(), ctx=ctx)
    return net


LOSS = gluon.loss.SoftmaxCrossEntropyLoss()


def _train(net, trainer, batches):
    for x, y in batches:
        parts = zip(gluon.utils.split_and_load(x, trainer_contexts(net)),
                    gluon.utils.split_and_load(y, trainer_contexts(net)))
        with autograd.record():
            losses = [LOSS(net(a), b) for a, b in parts]
        autograd.backward(losses)
        trainer.step(x.shape[0])


def _archive(path):
    """The members of a state file (a ZIP archive; its headers hold the time of writing)."""
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def trainer_contexts(net):
    return list(net.collect_params().values())[0].list_ctx()


def _weights(net):
    return [[a.asnumpy() for a in p.list_data()] for p in net.collect_params().values()]


def test_the_suggestion_is_where_the_loss_falls_fastest(batches):
    net = _mlp()
    trainer = gluon.Trainer(net.collect_params(), 'adam', {'learning_rate': 1e-3})
    result = lr_find(net, trainer, batches, LOSS, start_lr=1e-5, end_lr=10, num_steps=60)
    # For Adam on this MLP, rates of 1e-3 .. 1e-1 train well and rates near 1 diverge.
    assert 1e-3 < result.suggested_lr < 0.3 and result.suggested_lr < result.min_loss_lr < 3
    lrs, smooth = result.lrs, result.smoothed_losses
    k = int(np.argmin(np.abs(lrs - result.suggested_lr)))
    assert smooth[k] < smooth[0] - 0.05 and smooth[k + 1] < smooth[k]   # descending there
    assert np.all(np.diff(np.log(lrs)) == pytest.approx(np.log(1e6) / 59))
    # The table is a Recorder's: metric rows lr, loss, smoothed_loss for steps 1, 2, ...
    steps, logged = result.table.series('metric', 'lr')
    assert list(steps) == list(range(1, len(lrs) + 1)) and np.array_equal(logged, lrs)
    assert {r.name for r in result.table.rows} == {'lr', 'loss', 'smoothed_loss'}
    # And the suggestion trains better than a rate 100 times smaller, over one epoch.
    def epoch_loss(lr):
        fresh = _mlp()
        trainer = gluon.Trainer(fresh.collect_params(), 'adam', {'learning_rate': lr})
        _train(fresh, trainer, batches[:20])
        x, y = batches[-1]
        return LOSS(fresh(x), y).mean().asscalar()
    assert epoch_loss(result.suggested_lr) < epoch_loss(result.suggested_lr / 100) - 0.3


@pytest.mark.parametrize('optimizer,params', [
    ('sgd', {'learning_rate': 0.1, 'momentum': 0.9, 'wd': 1e-4}),
    ('adam', {'learning_rate': 1e-3,
              'lr_scheduler': mx.lr_scheduler.FactorScheduler(step=3, factor=0.5,
                                                              base_lr=1e-3)}),
])
def test_the_net_and_the_trainer_are_left_exactly_as_they_were(batches, tmp_path, optimizer,
                                                               params):
    """Training on after lr_find gives, bit for bit, what training on without it gives."""
    def run(with_lr_find):
        net = _mlp()
        opt_params = dict(params)
        if 'lr_scheduler' in opt_params:
            opt_params['lr_scheduler'] = mx.lr_scheduler.FactorScheduler(step=3, factor=0.5,
                                                                         base_lr=1e-3)
        trainer = gluon.Trainer(net.collect_params(), optimizer, opt_params)
        _train(net, trainer, batches[:4])
        if with_lr_find:
            before = str(tmp_path / 'before.states')
            trainer.save_states(before)
            lr_find(net, trainer, batches[4:10], LOSS, num_steps=12)
            after = str(tmp_path / 'after.states')
            trainer.save_states(after)
            assert _archive(before) == _archive(after)
        _train(net, trainer, batches[10:16])
        return _weights(net), trainer.learning_rate
    (with_find, lr_with), (without, lr_without) = run(True), run(False)
    assert lr_with == lr_without
    for a, b in zip(with_find, without):
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y)


def test_two_devices_with_updates_on_the_kvstore_are_restored(batches):
    ctx = [mx.cpu(0), mx.cpu(1)]
    net = _mlp(ctx)
    trainer = gluon.Trainer(net.collect_params(), 'sgd',
                            {'learning_rate': 0.1, 'momentum': 0.9}, update_on_kvstore=True)
    _train(net, trainer, batches[:2])
    before = _weights(net)
    lr_find(net, trainer, batches[2:8], LOSS, num_steps=6)
    for a, b in zip(_weights(net), before):
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y)
    _train(net, trainer, batches[8:9])   # the store's copy was restored too
    reference = _mlp(ctx)
    ref_trainer = gluon.Trainer(reference.collect_params(), 'sgd',
                                {'learning_rate': 0.1, 'momentum': 0.9}, update_on_kvstore=True)
    _train(reference, ref_trainer, batches[:2] + batches[8:9])
    for a, b in zip(_weights(net), _weights(reference)):
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y)


def test_deferred_initialisation_is_finished_first(batches):
    net = _mlp(in_units=0)
    trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1})
    result = lr_find(net, trainer, batches[:5], LOSS, num_steps=5)
    assert len(result.lrs) == 5 and net[0].weight.shape == (32, 64)


def test_divergence_stops_the_test_early(batches):
    net = _mlp()
    trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1})
    result = lr_find(net, trainer, batches, LOSS, start_lr=1e-2, end_lr=1e4, num_steps=80)
    assert result.diverged_at is not None and len(result.lrs) == result.diverged_at < 80
    last = result.smoothed_losses[-1]
    assert not np.isfinite(last) or last > 4 * result.smoothed_losses[:-1].min()
    assert 'diverged at step %d' % result.diverged_at in repr(result)


def test_a_nan_loss_stops_the_test_without_the_trainers_warning_or_error(batches):
    net = _mlp()
    trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1},
                            nonfinite='raise')
    calls = []

    def poisoned_on_the_third_batch(out, label):   # NaN loss: NaN gradients
        calls.append(1)
        return LOSS(out, label) * (np.nan if len(calls) == 3 else 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        result = lr_find(net, trainer, batches, poisoned_on_the_third_batch, num_steps=10)
    assert result.diverged_at == 3 and np.isnan(result.losses[-1])
    assert trainer.nonfinite == 'raise'


def test_the_batches_are_used_again_when_they_run_out(batches):
    net = _mlp()
    trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1})
    result = lr_find(net, trainer, batches[:3], LOSS, start_lr=1e-6, end_lr=1e-3,
                     num_steps=7)
    assert len(result.lrs) == 7
    assert result.losses[0] == pytest.approx(result.losses[3], rel=1e-3)  # tiny lrs: same batch


def test_an_interrupted_test_still_restores_everything(batches):
    net = _mlp()
    trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1})
    before, calls = _weights(net), []

    def failing_loss(out, label):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return LOSS(out, label)
    with pytest.raises(KeyboardInterrupt):
        lr_find(net, trainer, batches, failing_loss, num_steps=10)
    for a, b in zip(_weights(net), before):
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y)
    assert trainer.learning_rate == 0.1


@pytest.mark.parametrize('kwargs,name', [
    ({'start_lr': 0}, 'start_lr'), ({'start_lr': -1e-3}, 'start_lr'),
    ({'end_lr': 1e-8}, 'end_lr'), ({'start_lr': 1e-2, 'end_lr': 1e-2}, 'end_lr'),
    ({'end_lr': float('inf')}, 'end_lr'), ({'end_lr': float('nan')}, 'end_lr'),
    ({'num_steps': 1}, 'num_steps'), ({'num_steps': 10.0}, 'num_steps'),
    ({'smoothing': 1.0}, 'smoothing'), ({'diverge_factor': 1.0}, 'diverge_factor'),
])
def test_bad_input_raises_value_error_naming_the_argument(batches, kwargs, name):
    net = _mlp()
    trainer = gluon.Trainer(net.collect_params(), 'sgd')
    with pytest.raises(ValueError, match='^%s ' % name):
        lr_find(net, trainer, batches, LOSS, **kwargs)


@pytest.mark.parametrize('form', [
    lambda x, y: x,                      # bare arrays (issue 31: a raw ValueError)
    lambda x, y: (x,), lambda x, y: (x, y, y), lambda x, y: {'data': x, 'label': y}])
def test_batches_that_are_no_data_label_pair_raise_type_error_saying_so(batches, form):
    net = _mlp()
    trainer = gluon.Trainer(net.collect_params(), 'sgd')
    with pytest.raises(TypeError, match=r'needs batches of \(data, label\), got '):
        lr_find(net, trainer, [form(x, y) for x, y in batches], LOSS, num_steps=3)


def test_a_range_wider_than_the_largest_float_stays_finite(batches):
    # end_lr / start_lr = 1e310 overflows: the lrs are computed without that ratio
    net = _mlp()
    trainer = gluon.Trainer(net.collect_params(), 'sgd')
    result = lr_find(net, trainer, batches, LOSS, start_lr=1e-300, end_lr=1e10, num_steps=4,
                     diverge_factor=float('inf'))
    assert np.isfinite(result.lrs).all() and np.all(np.diff(result.lrs) > 0)
    assert result.lrs[0] == 1e-300


def test_empty_data_raises_value_error_naming_it():
    net = _mlp()
    trainer = gluon.Trainer(net.collect_params(), 'sgd')
    with pytest.raises(ValueError, match='^data is empty'):
        lr_find(net, trainer, [], LOSS)


def test_the_plot_shows_both_curves_and_the_suggestion(batches):
    import matplotlib
    matplotlib.use('Agg')
    net = _mlp()
    trainer = gluon.Trainer(net.collect_params(), 'adam')
    result = lr_find(net, trainer, batches[:10], LOSS, num_steps=10)
    fig = result.plot()
    ax = fig.axes[0]
    lines = {line.get_gid(): line for line in ax.get_lines()}
    assert set(lines) == {'loss', 'smoothed_loss', 'suggested_lr'}
    np.testing.assert_array_equal(lines['smoothed_loss'].get_xdata(), result.lrs)
    assert lines['suggested_lr'].get_xdata()[0] == result.suggested_lr
    assert ax.get_xscale() == 'log'
    other = mx.instrument.Recorder()
    other.detach()
    other.log('accuracy', 0.5, step=1)
    with pytest.raises(ValueError, match="no metric rows named 'lr'"):
        mx.viz.plot_lr_find(other)
