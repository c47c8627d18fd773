"""gluonedu.widgets: each widget's logic through its plain methods (no browser, no kernel).

The ipywidgets views are built too (ipywidgets works without a kernel), and a control's
value is changed from Python -- which fires the same observer a browser change fires --
to check that a callback does exactly what the plain method does.
"""
import base64
import inspect
import math
import subprocess
import sys

import matplotlib

matplotlib.use('Agg')

import ipywidgets as w  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import gluonedu as mx  # noqa: E402
from gluonedu import autograd, gluon, nd  # noqa: E402
from gluonedu import lr_scheduler as lrs  # noqa: E402
from gluonedu.gluon import nn  # noqa: E402
from gluonedu.instrument import BUS, Recorder  # noqa: E402
from gluonedu.viz import Quadratic, run_optimizer  # noqa: E402
from gluonedu.widgets import (OptimizerPlayground, ScheduleExplorer, TrainingDashboard,  # noqa: E402
                              dropdown_optimizers, hyperparameters)
from gluonedu.widgets._common import round_significant  # noqa: E402
from gluonedu.widgets import dashboard as dashboard_module  # noqa: E402

REGISTRY = mx.optimizer.Optimizer.opt_registry
PNG_MAGIC = b'\x89PNG\r\n\x1a\n'


def _constructor_defaults(cls):
    """Every keyword default along the MRO, the subclass's winning (the spec's source)."""
    defaults = {}
    for klass in cls.__mro__:
        if '__init__' in klass.__dict__ and klass is not object:
            for p in inspect.signature(klass.__init__).parameters.values():
                if p.default is not p.empty:
                    defaults.setdefault(p.name, p.default)
    return defaults


def test_the_core_never_imports_the_widgets():
    """``import gluonedu`` (and a training step) loads neither ipywidgets nor the widgets."""
    probe = (
        "import sys\n"
        "import gluonedu as mx\n"
        "from gluonedu import autograd, gluon\n"
        "net = gluon.nn.Dense(2)\n"
        "net.initialize()\n"
        "trainer = gluon.Trainer(net.collect_params(), 'adam')\n"
        "with autograd.record():\n"
        "    loss = net(mx.nd.ones((1, 3))).sum()\n"
        "loss.backward()\n"
        "trainer.step(1)\n"
        "assert 'ipywidgets' not in sys.modules, 'ipywidgets imported'\n"
        "assert 'gluonedu.widgets' not in sys.modules, 'gluonedu.widgets imported'\n"
        "assert mx.widgets.OptimizerPlayground is not None   # loads on first use\n"
    )
    done = subprocess.run([sys.executable, '-c', probe], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr


# ------------------------------------------------------------------ sliders from signatures

@pytest.mark.parametrize('name', sorted(REGISTRY))
def test_sliders_come_from_the_constructor_signature(name):
    specs = hyperparameters(name)
    defaults = _constructor_defaults(REGISTRY[name])
    assert specs[0].name == 'learning_rate'
    lr_default = defaults['learning_rate'] if defaults['learning_rate'] is not None else 0.01
    assert specs[0].default == lr_default and specs[0].kind == 'log'
    assert specs[0].min <= -4 and specs[0].max >= 1
    names = [s.name for s in specs]
    assert len(names) == len(set(names))
    assert 'wd' in names and 'rescale_grad' not in names and 'lazy_update' not in names
    # Every bool becomes a checkbox, every real number a slider; nothing else is offered.
    expected = {n for n, d in defaults.items()
                if isinstance(d, (bool, int, float)) and n not in
                {'rescale_grad', 'begin_num_update', 'multi_precision', 'lazy_update'}}
    assert set(names) == expected | {'learning_rate'}
    for spec in specs[1:]:
        assert spec.default == defaults[spec.name]
    for spec in specs:
        control = spec.control()
        kind = {'bool': w.Checkbox, 'int': w.IntSlider, 'log': w.FloatLogSlider,
                'linear': w.FloatSlider}[spec.kind]
        assert type(control) is kind, spec
        assert control.description == spec.name
        if spec.kind == 'bool':
            assert control.value is spec.default
            continue
        assert control.value == pytest.approx(spec.default, rel=1e-12)   # not clamped
        if spec.kind == 'log':
            exponent = math.log10(spec.default)
            assert control.min <= exponent - 1 and control.max >= exponent + 1, spec
        else:
            assert control.min <= spec.default <= control.max
            assert control.max > control.min


def test_slider_ranges_follow_what_the_number_means():
    adam = {s.name: s for s in hyperparameters('adam')}
    assert (adam['beta1'].kind, adam['beta1'].max, adam['beta1'].step) == ('linear', 0.999, 1e-3)
    assert (adam['beta2'].kind, adam['beta2'].max, adam['beta2'].step) == ('linear', 0.9999, 1e-4)
    assert (adam['epsilon'].kind, adam['epsilon'].min, adam['epsilon'].max) == ('log', -11, -6)
    assert (adam['wd'].kind, adam['wd'].min, adam['wd'].max) == ('linear', 0.0, 1.0)
    assert adam['learning_rate'].default == 0.001
    rmsprop = {s.name: s for s in hyperparameters('rmsprop')}
    assert rmsprop['centered'].kind == 'bool'
    lbsgd = {s.name: s for s in hyperparameters('lbsgd')}
    assert (lbsgd['num_epochs'].kind, lbsgd['num_epochs'].max) == ('int', 120)
    assert 'warmup_strategy' not in lbsgd              # a string: no slider
    lars = {s.name: s for s in hyperparameters('lars')}
    assert lars['eps'].kind == 'linear'                # MXNet writes eps=0 as an int
    # A log slider's value is rounded to 3 significant digits before it reaches the run.
    assert adam['learning_rate'].from_control(10 ** -0.9) == 0.126
    with pytest.raises(ValueError, match='registered ones are'):
        hyperparameters('adamw_nonexistent')


# ------------------------------------------------------------------ the playground

def test_playground_runs_the_real_optimizer_and_summarises_deterministically():
    pg = OptimizerPlayground('quadratic', 'adam', steps=150, learning_rate=0.5)
    expected = run_optimizer(Quadratic(), 'adam', 150, seed=0, learning_rate=0.5)
    np.testing.assert_array_equal(pg.path, expected)
    assert pg.landscape.distance_to_minimum(pg.end) < 0.1    # Adam finds the bowl's bottom
    assert pg.summary() == ('adam on quadratic (κ=10): 150 steps, end (0.00, 0.00), '
                            'f=1.7e-06\nsettings: learning_rate=0.5')
    assert pg.summary() == OptimizerPlayground('quadratic', 'adam', steps=150,
                                               learning_rate=0.5).summary()
    assert repr(pg) == '<OptimizerPlayground: adam on quadratic (κ=10), 150 steps>'


def test_changing_a_hyperparameter_changes_the_trajectory_summary_and_image():
    pg = OptimizerPlayground('rosenbrock', 'sgd', steps=60, learning_rate=1e-3)
    before_path, before_summary, before_png = pg.path.copy(), pg.summary(), pg.png()
    assert before_png.startswith(PNG_MAGIC)
    assert pg.set(momentum=0.9) is pg
    assert not np.array_equal(pg.path, before_path)
    np.testing.assert_array_equal(
        pg.path, run_optimizer(pg.landscape, 'sgd', 60, seed=0, learning_rate=1e-3,
                               momentum=0.9))
    assert pg.summary() != before_summary
    assert pg.summary().endswith('settings: learning_rate=0.001, momentum=0.9')
    assert pg.png() != before_png
    # Back to the defaults: the settings line says so.
    pg.set(learning_rate=0.01, momentum=0.0)
    assert pg.summary().endswith('settings: defaults')


def test_a_new_optimizer_starts_from_its_own_defaults():
    pg = OptimizerPlayground('quadratic', 'sgd', steps=20, momentum=0.5)
    pg.set(optimizer='adam', learning_rate=0.1)
    assert pg.optimizer == 'adam'
    assert pg.hyperparameters == {'learning_rate': 0.1, 'beta1': 0.9, 'beta2': 0.999,
                                  'epsilon': 1e-8, 'wd': 0.0}
    assert pg.changed == {'learning_rate': 0.1}
    with pytest.raises(ValueError, match="adam has no slider for momentum; its hyperparameters"):
        pg.set(momentum=0.9)
    # A refused set() changes nothing, even when it named a new optimizer and landscape.
    path, summary = pg.path.copy(), pg.summary()
    with pytest.raises(ValueError, match='rmsprop has no slider for beta1'):
        pg.set(landscape='beale', optimizer='rmsprop', beta1=0.5)
    with pytest.raises(ValueError):
        pg.set(steps=50, learning_rate=-1.0)
    assert (pg.optimizer, pg.landscape_key, pg.steps) == ('adam', 'quadratic', 20)
    assert pg.summary() == summary and np.array_equal(pg.path, path)
    with pytest.raises(ValueError, match='landscape must be one of'):
        pg.set(landscape='moon')
    with pytest.raises(ValueError, match='steps must be a positive integer'):
        pg.set(steps=0)


def test_divergence_is_reported_not_drawn_as_numbers():
    pg = OptimizerPlayground('rosenbrock', 'sgd', steps=50, learning_rate=0.1)
    assert pg.diverged_at is not None
    assert 'diverged at step %d' % pg.diverged_at in pg.summary()
    assert pg.png().startswith(PNG_MAGIC)      # the finite part is still drawn


def test_every_registered_optimizer_runs_in_the_playground():
    pg = OptimizerPlayground('quadratic', 'sgd', steps=5)
    for name in sorted(REGISTRY):
        pg.set(optimizer=name)
        assert pg.path.shape == (6, 2)
        assert pg.summary().startswith('%s on quadratic' % name)
        assert pg.hyperparameters == {s.name: s.default for s in hyperparameters(name)}


def test_the_dropdown_offers_the_optimizers_that_make_sense_on_a_landscape():
    offered = dropdown_optimizers()
    assert offered == sorted(set(REGISTRY) - {'test', 'ccsgd', 'dcasgd'})
    assert {'sgd', 'adam', 'sgld', 'lamb', 'ftrl'} <= set(offered)
    pg = OptimizerPlayground('quadratic', 'dcasgd', steps=5)       # code may still pick one
    pg.widget                                                      # the view, built
    assert list(pg._optimizer_box.options) == offered
    assert pg._optimizer_box.value is None
    pg.set(optimizer='adam')
    assert pg._optimizer_box.value == 'adam'
    pg.set(optimizer='test')                                       # shown as no choice
    assert pg._optimizer_box.value is None and pg.optimizer == 'test'


def test_a_slider_callback_is_the_plain_set_call():
    pg = OptimizerPlayground('quadratic', 'adam', steps=40, learning_rate=0.1)
    view = pg.widget
    image, summary_box = pg._image, pg._summary_html
    assert 'settings: learning_rate=0.1' in summary_box.value
    first_png = image.value
    # What the browser does: move the log slider's exponent by one step (0.1).
    control = pg._controls['learning_rate']
    control.value = 10 ** (math.log10(0.1) + 0.1)
    twin = OptimizerPlayground('quadratic', 'adam', steps=40, learning_rate=0.126)
    assert pg.hyperparameters['learning_rate'] == 0.126
    assert pg.summary() == twin.summary()
    assert twin.summary().split('\n')[0] in summary_box.value
    assert image.value != first_png and image.value == twin.png()
    # Redrawn in place: the same widgets, no new outputs.
    assert pg.widget is view and pg._image is image and pg._summary_html is summary_box
    # The optimizer dropdown rebuilds the sliders for the new optimizer.
    for name in ('signum', 'lamb'):
        pg._optimizer_box.value = name
        assert pg.optimizer == name
        assert [c.description for c in pg._slider_box.children] == \
            [s.name for s in hyperparameters(name)]
    assert [c.description for c in pg._slider_box.children] == \
        ['learning_rate', 'beta1', 'beta2', 'epsilon', 'bias_correction', 'wd']
    pg._controls['bias_correction'].value = False          # a checkbox
    assert pg.changed == {'bias_correction': False}
    pg._optimizer_box.value = 'signum'
    pg._steps_slider.value = 30
    assert pg.path.shape == (31, 2)
    # A value set from Python beyond a slider's range widens the range (no clamping).
    pg.set(learning_rate=50.0)
    assert pg._controls['learning_rate'].value == pytest.approx(50.0)
    # The display: the live view, its current picture as a static PNG, and stable text
    # (ipywidgets' own repr has model ids) -- what an untrusted notebook shows.
    bundle = pg._repr_mimebundle_()
    assert bundle['text/plain'] == ('<OptimizerPlayground: signum on quadratic (κ=10), '
                                    '30 steps>\n' + pg.summary())
    assert 'application/vnd.jupyter.widget-view+json' in bundle
    assert base64.b64decode(bundle['image/png']) == image.value == pg.png()


# ------------------------------------------------------------------ the dashboard

class FakeClock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


@pytest.fixture
def short_training():
    """A real MLP trained on seeded blobs for a few steps, recorded: (recorder, losses, trainer)."""
    def run(steps, callback=None, wrap=lambda it: it):
        mx.random.seed(0)
        X, y = mx.data.blobs(n=16 * steps, centers=3, dim=8, seed=0)
        X, y = X[:16 * steps], y[:16 * steps]
        with mx.name.NameManager():
            net = nn.Sequential()
            with net.name_scope():
                net.add(nn.Dense(16, activation='relu'), nn.Dense(3))
        net.initialize(mx.init.Xavier())
        trainer = gluon.Trainer(net.collect_params(), 'sgd',
                                {'learning_rate': 0.05, 'momentum': 0.9})
        loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
        rec = Recorder(trainer, norms=['grad'])
        losses = []
        try:
            for i in wrap(range(steps)):
                xb, yb = nd.array(X[16 * i:16 * (i + 1)]), nd.array(y[16 * i:16 * (i + 1)])
                with autograd.record():
                    loss = loss_fn(net(xb), yb)
                loss.backward()
                trainer.step(16)
                losses.append(float(loss.mean().asscalar()))
                rec.log('loss', loss.mean())
                if callback is not None:
                    callback(rec)
        finally:
            rec.detach()
        return rec, losses, trainer
    step = BUS.step
    yield run
    BUS.step = step


def test_dashboard_follows_a_real_training_run(short_training):
    clock = FakeClock()
    dashes = []

    def each_step(rec):
        if not dashes:
            dashes.append(TrainingDashboard(rec, min_interval=1.0, clock=clock))
            dashes[0].widget                       # the view exists while training
        clock.now += 0.3                           # 0.3 s per step, a redraw at most per 1 s
        dashes[0].update()

    rec, losses, trainer = short_training(10, each_step)
    dash = dashes[0]
    assert dash.redraws + dash.skipped == 10
    assert dash.redraws == 3                        # steps 1, 5 and 9 (0.3, 1.5, 2.7 s)
    image, last_png = dash._image, dash._image.value
    assert dash.update(force=True) and dash.redraws == 4
    assert dash._image is image and bytes(image.value).startswith(PNG_MAGIC)
    assert image.value != last_png                  # the last steps are in the picture now

    data = dash.data()
    steps, values = data['loss']
    np.testing.assert_allclose(values, losses, rtol=1e-6)
    assert list(steps) == list(range(1, 11))
    assert sorted(data['lr']) == sorted(p.name for p in trainer._params)
    for param, (s, lr) in data['lr'].items():
        assert list(s) == list(range(1, 11)) and np.all(lr == 0.05)
    assert len(data['norm']) == 4 and all(np.all(v > 0) for _, v in data['norm'].values())
    text = dash.summary()
    lines = text.split('\n')
    assert lines[0] == 'dashboard: steps 1-10'
    assert lines[1].startswith('loss: %.3g -> %.3g (min ' % (losses[0], losses[-1]))
    assert lines[2] == 'lr: 0.05 (all 4 parameters)'
    assert lines[3] == 'grad norm:' and len(lines) == 8
    assert text in dash._summary_html.value.replace('&gt;', '>')
    assert repr(dash) == '<TrainingDashboard: loss, lr, grad norms>'


def test_dashboard_throttle_adapts_to_the_cost_of_a_redraw():
    """A redraw costing 0.5 s waits 0.5 + 4 x 0.5 s: drawing stays a fifth of the time."""
    clock = FakeClock()

    def calls(cost_ratio):
        rec = Recorder()
        rec.detach()
        dash = TrainingDashboard(rec, min_interval=0.5, cost_ratio=cost_ratio, clock=clock)

        def slow_png():
            clock.now += 0.5
            return PNG_MAGIC
        dash.png = slow_png
        drawn = []
        for i in range(20):
            if dash.update():
                drawn.append(i)
            clock.now += 0.25                  # a training step
        return drawn, dash

    drawn, dash = calls(cost_ratio=4)
    assert drawn == [0, 8, 16] and (dash.redraws, dash.skipped) == (3, 17)
    assert calls(cost_ratio=0)[0] == list(range(20))   # only min_interval: every call
    assert dash.update(force=True)


def test_dashboard_before_anything_is_recorded():
    rec = Recorder()
    try:
        dash = TrainingDashboard(rec, norm='update')
        assert dash.summary() == ('dashboard: nothing recorded yet\nloss: none logged\n'
                                  "lr: none recorded\nupdate norm: none recorded "
                                  "(Recorder(norms=['update']))")
        assert dash.update() and dash.png().startswith(PNG_MAGIC)
    finally:
        rec.detach()
    with pytest.raises(TypeError, match='needs a gluonedu.instrument.Recorder'):
        TrainingDashboard([])
    with pytest.raises(ValueError, match="norm must be 'weight', 'grad' or 'update'"):
        TrainingDashboard(rec, norm='state')


@pytest.mark.parametrize('make', [
    lambda: TrainingDashboard(Recorder(), norm='update'),
    lambda: ScheduleExplorer('cosine', num_updates=50, max_update=40),
], ids=['dashboard', 'explorer'])
def test_every_widget_displays_a_static_picture_and_text_beside_the_view(make):
    widget = make()
    try:
        bundle = widget._repr_mimebundle_()
        png = base64.b64decode(bundle['image/png'])
        assert png.startswith(PNG_MAGIC) and png == widget._image.value
        assert bundle['text/plain'] == '%r\n%s' % (widget, widget.summary())
        assert 'application/vnd.jupyter.widget-view+json' in bundle
    finally:
        if isinstance(widget, TrainingDashboard):
            widget.recorder.detach()


@pytest.mark.parametrize('bar', ['auto', 'notebook'])
def test_dashboard_updates_beside_a_tqdm_progress_bar(short_training, capsys, bar):
    tqdm = pytest.importorskip('tqdm.' + bar).tqdm
    bars, dashes = [], []

    def wrap(iterable):
        bars.append(tqdm(iterable, total=4, leave=True))
        return bars[0]

    clock = FakeClock()

    def each_step(rec):
        if not dashes:
            dashes.append(TrainingDashboard(rec, min_interval=1.0, clock=clock))
            dashes[0].widget
        clock.now += 0.5
        dashes[0].update()

    short_training(4, each_step, wrap)
    assert bars[0].n == 4                          # the bar counted every step
    assert (dashes[0].redraws, dashes[0].skipped) == (2, 2)
    assert dashes[0].summary().startswith('dashboard: steps 1-4\nloss: ')
    captured = capsys.readouterr()
    # The dashboard itself never prints: all output is the bar's own.
    assert 'dashboard' not in captured.out + captured.err
    assert 'loss' not in captured.out + captured.err


# ------------------------------------------------------------------ the schedule explorer

@pytest.mark.parametrize('kind, settings, make', [
    ('factor', dict(step=30, factor=0.5, base_lr=0.2),
     lambda: lrs.FactorScheduler(step=30, factor=0.5, base_lr=0.2)),
    ('multifactor', dict(milestones=[40, 90], factor=0.1, base_lr=1.0, warmup_steps=10),
     lambda: lrs.MultiFactorScheduler(step=[40, 90], factor=0.1, base_lr=1.0, warmup_steps=10)),
    ('poly', dict(max_update=120, pwr=1.5, final_lr=0.01, base_lr=0.3),
     lambda: lrs.PolyScheduler(max_update=120, pwr=1.5, final_lr=0.01, base_lr=0.3)),
    ('cosine', dict(max_update=100, final_lr=0.001, base_lr=0.1, warmup_steps=20,
                    warmup_begin_lr=0.01, warmup_mode='constant'),
     lambda: lrs.CosineScheduler(max_update=100, final_lr=0.001, base_lr=0.1, warmup_steps=20,
                                 warmup_begin_lr=0.01, warmup_mode='constant')),
    ('onecycle', dict(max_update=120, base_lr=0.4, pct_start=0.3, div_factor=10,
                      final_div_factor=100),
     lambda: lrs.OneCycleScheduler(max_lr=0.4, total_steps=120, pct_start=0.3, div_factor=10,
                                   final_div_factor=100)),
])
def test_schedule_explorer_values_are_the_schedulers(kind, settings, make):
    ex = ScheduleExplorer(kind, num_updates=150, **settings)
    updates, values = ex.values()
    reference = make()
    assert updates == list(range(1, 151))
    assert values == [reference(n) for n in updates]
    assert values == ex.values()[1]                 # a fresh scheduler every time


def test_schedule_explorer_summary_and_set():
    ex = ScheduleExplorer('cosine', num_updates=200, base_lr=0.1, max_update=150,
                          final_lr=0.001, warmup_steps=10)
    assert ex.summary() == (
        "CosineScheduler(max_update=150, final_lr=0.001, base_lr=0.1, warmup_steps=10, "
        "warmup_mode='linear')\nlr(1)=0.01, max 0.1 at update 10, lr(200)=0.001")
    assert ex.values()[1][-1] == 0.001              # cosine ends at final_lr
    assert ex.set(scheduler='poly', pwr=1) is ex
    assert ex.summary().startswith('PolyScheduler(max_update=150, pwr=1, final_lr=0.001')
    _, values = ex.values()
    assert values[79] == pytest.approx(0.001 + (0.1 - 0.001) * (1 - 70 / 140))
    # Refused combinations raise and change nothing.
    before = dict(ex.settings)
    with pytest.raises(ValueError, match=r'warmup_steps \(150\) must be less than max_update'):
        ex.set(warmup_steps=150)
    with pytest.raises(ValueError, match='warmup_begin_lr'):
        ex.set(warmup_begin_lr=0.5)
    with pytest.raises(ValueError, match='no setting gamma'):
        ex.set(gamma=0.5)
    assert ex.settings == before and ex.scheduler == 'poly'


def test_schedule_explorer_draws_one_cycle_with_its_momentum():
    ex = ScheduleExplorer('onecycle', num_updates=100, base_lr=0.5, max_update=100,
                          warmup_steps=10)   # a warm-up setting one-cycle does not take
    assert ex.describe() == ('OneCycleScheduler(total_steps=100, pct_start=0.25, '
                             'div_factor=25, final_div_factor=1e+04, max_lr=0.5)')
    assert ex.summary().endswith('max 0.5 at update 25, lr(100)=2e-06')
    fig = ex.figure()
    lr_axes, momentum_axes = fig.axes
    momentum = momentum_axes.get_lines()[0].get_ydata()
    assert momentum[24] == pytest.approx(0.85) and momentum[-1] == pytest.approx(0.95)
    labels = lr_axes.get_legend_handles_labels()[1]
    assert 'end of warm-up' not in labels
    assert [t.get_text() for t in lr_axes.get_legend().get_texts()] == \
        ['learning rate', 'max_update', 'momentum (right)']
    ex.widget
    shown = {n for n, control in ex._controls.items() if control.layout.display != 'none'}
    assert shown == {'scheduler', 'num_updates', 'base_lr', 'max_update', 'pct_start',
                     'div_factor', 'final_div_factor'}
    ex._controls['pct_start'].value = 0.5          # what dragging the slider does
    assert ex.settings['pct_start'] == 0.5 and 'max 0.5 at update 50' in ex.summary()


def test_schedule_explorer_controls():
    ex = ScheduleExplorer('factor', num_updates=100, step=20, factor=0.5, base_lr=0.1)
    ex.widget
    c = ex._controls
    shown = {n for n, control in c.items() if control.layout.display != 'none'}
    assert shown == {'scheduler', 'num_updates', 'base_lr', 'step', 'factor', 'warmup_steps',
                     'warmup_begin_lr', 'warmup_mode'}
    png = ex._image.value
    c['factor'].value = 0.25                        # what dragging the slider does
    assert ex.settings['factor'] == 0.25 and ex._image.value != png
    assert ex.values()[1][-1] == 0.1 * 0.25 ** 4
    c['scheduler'].value = 'multifactor'
    c['milestones'].value = '30, 60'
    assert ex.settings['milestones'] == (30, 60)
    assert 'step=[30, 60]' in ex._summary_html.value
    assert c['milestones'].layout.display is None and c['step'].layout.display == 'none'
    # A refused value shows its reason in the summary box instead of raising.
    c['milestones'].value = '60, 30'
    assert 'increasing' in ex._summary_html.value and ex.settings['milestones'] == (30, 60)
    c['base_lr'].value = 10 ** -0.9                 # log slider: 3 significant digits
    assert ex.settings['base_lr'] == round_significant(10 ** -0.9) == 0.126


def test_dashboard_draws_one_lr_line_for_parameters_on_the_same_rate(short_training):
    rec, _, trainer = short_training(3)
    dash = TrainingDashboard(rec)
    _, lr_axes, norm_axes = dash.figure().axes
    assert [line.get_label() for line in lr_axes.get_lines()] == ['all 4 parameters']
    assert len(norm_axes.get_lines()) == 4           # the norms differ: one line each

    weights = sorted(p.name for p in trainer._params if p.name.endswith('weight'))
    rates = {name: 0.05 for name in dash.data()['lr']}
    rates.update({weights[0]: 0.01})                 # one parameter on its own rate
    table = {name: (np.arange(1, 4), np.full(3, rate)) for name, rate in rates.items()}
    merged = dashboard_module._same_series_once(table)
    others = sorted(set(rates) - {weights[0]})
    assert sorted(merged) == sorted([weights[0], '%s and 2 others' % others[0]])


def test_dashboard_before_the_first_step_says_what_to_do():
    with Recorder() as rec:
        loss_axes = TrainingDashboard(rec).figure().axes[0]
    assert 'call update() in the loop' in ' '.join(t.get_text() for t in loss_axes.texts)


def test_schedule_explorer_leaves_room_for_every_control_name():
    ex = ScheduleExplorer('cosine')
    ex.widget
    for name, control in ex._controls.items():
        width = int(control.style.description_width.rstrip('px'))
        assert width >= 8 * len(control.description), name
