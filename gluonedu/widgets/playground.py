"""OptimizerPlayground: a real optimizer on a 2-D landscape, its hyperparameters on sliders.

The sliders are not written by hand: :func:`hyperparameters` reads the optimizer's
constructor signature (and those of its base classes, where ``**kwargs`` lead) and
turns every numeric default into a slider, every boolean into a checkbox::

    Adam(learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-08, ...)
      learning_rate  log slider 1e-4 .. 10
      beta1, beta2   linear slider 0 .. 0.999 / 0.9999   (decay rates live in [0, 1))
      epsilon        log slider, three decades below to two above the default
      wd             linear slider 0 .. 1                (from Optimizer.__init__)

Usage::

    pg = OptimizerPlayground('rosenbrock', 'adam', steps=200, learning_rate=0.05)
    pg                                       # the widget: controls, trajectory, summary
    pg.set(learning_rate=0.1).summary()      # the same thing a slider does
"""
import dataclasses
import inspect
import math
import re

import numpy as np

from .. import optimizer as opt_module
from ..viz.landscapes import LANDSCAPES, Landscape, run_optimizer
from ._common import WidgetView, fmt, new_figure, render_png, round_significant, show_value

__all__ = ['OptimizerPlayground', 'HyperParameter', 'hyperparameters', 'dropdown_optimizers',
           'NOT_IN_THE_DROPDOWN']

#: Constructor arguments that mean nothing for one weight on a 2-D landscape (or are
#: plumbing rather than hyperparameters): no slider is made for them.
NOT_ON_A_SLIDER = frozenset({
    'rescale_grad', 'param_idx2name', 'lr_scheduler', 'sym', 'begin_num_update',
    'multi_precision', 'param_dict', 'lazy_update',
})

#: Names of exponential-decay rates, which live in [0, 1): linear sliders up to 0.999.
_DECAY = re.compile(r'^(momentum|beta\d*|rho|gamma\d*)$')
#: Names of counts: integer defaults of these become IntSliders (MXNet also writes some
#: real-valued defaults as ints, e.g. Ftrl's ``beta=1`` and LARS's ``eps=0``).
_COUNT = re.compile(r'(epoch|step|update|batch|num_)')

#: Range of the learning-rate slider, in decades (1e-4 .. 10), whatever the default.
LR_DECADES = (-4, 1)

#: Registered optimizers that the optimizer dropdown leaves out, and why. Every other
#: registered optimizer is offered, one you register yourself included; any registered
#: name still works from code (``OptimizerPlayground(..., 'dcasgd')``).
NOT_IN_THE_DROPDOWN = {
    'test': "MXNet's stub for testing the update machinery: it adds the gradient "
            "(climbs) and has no learning rate, so it diverges on every landscape",
    'ccsgd': "a deprecated alias of 'sgd'",
    'dcasgd': "it corrects gradients that arrive late from other workers; one process "
              "has none to correct (notebook 12 shows it in asynchronous training)",
}


def dropdown_optimizers():
    """The optimizer names the playground's dropdown offers, sorted: see NOT_IN_THE_DROPDOWN."""
    return sorted(set(opt_module.Optimizer.opt_registry) - set(NOT_IN_THE_DROPDOWN))


@dataclasses.dataclass(frozen=True)
class HyperParameter:
    """How one constructor argument is shown.

    Attributes
    ----------
    kind : {'log', 'linear', 'int', 'bool'}
        A FloatLogSlider over ``10**min .. 10**max``, a FloatSlider, an IntSlider or a
        Checkbox; ``min``/``max``/``step`` are in the slider's own units (exponents for
        'log').
    """
    name: str
    default: object
    kind: str
    min: float = 0.0
    max: float = 1.0
    step: float = 0.1

    def control(self):
        """A fresh ipywidgets control at the default value."""
        import ipywidgets as w
        common = dict(description=self.name, continuous_update=False,
                      style={'description_width': '110px'},
                      layout=w.Layout(width='330px'))
        if self.kind == 'bool':
            common.pop('continuous_update')
            control = w.Checkbox(value=bool(self.default), indent=False, **common)
        elif self.kind == 'int':
            control = w.IntSlider(value=int(self.default), min=int(self.min),
                                  max=int(self.max), step=int(self.step), **common)
        elif self.kind == 'log':
            control = w.FloatLogSlider(value=float(self.default), base=10, min=self.min,
                                       max=self.max, step=self.step, readout_format='.3g',
                                       **common)
        else:
            digits = max(0, -int(math.floor(math.log10(self.step))))
            control = w.FloatSlider(value=float(self.default), min=self.min, max=self.max,
                                    step=self.step, readout_format='.%df' % digits, **common)
        control.add_class('gluonedu-hp-%s' % self.name)
        return control

    def from_control(self, value):
        """The control's value as the optimizer should get it (log values rounded)."""
        if self.kind == 'bool':
            return bool(value)
        if self.kind == 'int':
            return int(value)
        if self.kind == 'log':
            return round_significant(value, 3)
        return round(float(value), 6)


def _optimizer_class(optimizer):
    if isinstance(optimizer, str):
        registry = opt_module.Optimizer.opt_registry
        try:
            return registry[optimizer.lower()]
        except KeyError:
            raise ValueError("no optimizer registered as %r; the registered ones are %s"
                             % (optimizer, ', '.join(sorted(registry)))) from None
    if isinstance(optimizer, type) and issubclass(optimizer, opt_module.Optimizer):
        return optimizer
    raise TypeError("optimizer must be a registered name such as 'adam' or an Optimizer "
                    "class, got %r" % (optimizer,))


def _spec(name, default):
    """The slider for one argument with a numeric or boolean ``default`` (None if none)."""
    if isinstance(default, bool):
        return HyperParameter(name, default, 'bool')
    if not isinstance(default, (int, float)) or not math.isfinite(default):
        return None                       # None, strings, objects: not slider-shaped
    if isinstance(default, int) and _COUNT.search(name):
        top = max(10, 2 * default)
        return HyperParameter(name, default, 'int', min=1 if default >= 1 else 0,
                              max=top, step=1)
    default = float(default)
    if _DECAY.match(name) and 0 <= default < 1:
        fine = default >= 0.99            # beta2=0.999 needs a finer grid than beta1=0.9
        return HyperParameter(name, default, 'linear', min=0.0,
                              max=0.9999 if fine else 0.999, step=1e-4 if fine else 1e-3)
    if default > 0:
        decade = math.floor(math.log10(default))
        low, high = (LR_DECADES if name == 'learning_rate' else (decade - 3, decade + 2))
        return HyperParameter(name, default, 'log', min=min(low, decade),
                              max=max(high, decade + 1), step=0.1)
    if default == 0:
        return HyperParameter(name, 0.0, 'linear', min=0.0, max=1.0, step=1e-3)
    return HyperParameter(name, default, 'linear', min=2 * default, max=-2 * default,
                          step=abs(default) / 100)


def hyperparameters(optimizer):
    """The sliders for ``optimizer`` (a registered name or an Optimizer class), in order.

    Read from the constructors along the class's MRO, the subclass's defaults winning:
    first ``learning_rate`` (``Optimizer``'s ``None`` means 0.01, the rate it then
    uses), then the class's own arguments in signature order, then the base class's
    (``wd``). Arguments in :data:`NOT_ON_A_SLIDER`, and those whose default is not a
    number or a bool (``None``, strings), get no slider.

    Ranges: ``learning_rate`` on a log slider over 1e-4 .. 10; decay rates (momentum,
    beta*, rho, gamma*) on a linear slider over [0, 0.999] (0.9999 when the default is
    0.99 or more); other positive reals on a log slider from three decades below the
    default to two above; zero-valued reals over [0, 1]; integer counts (epochs, steps,
    updates, batch) over [1, max(10, 2 × default)].
    """
    cls = _optimizer_class(optimizer)
    defaults = {}
    for klass in cls.__mro__:
        init = klass.__dict__.get('__init__')
        if init is None or klass is object:
            continue
        for param in inspect.signature(init).parameters.values():
            if param.name == 'self' or param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
                continue
            defaults.setdefault(param.name, param.default)
    if defaults.get('learning_rate') is None:
        defaults['learning_rate'] = 0.01          # Optimizer's rate when none is given
    ordered = ['learning_rate'] + [n for n in defaults if n != 'learning_rate']
    specs = []
    for name in ordered:
        default = defaults[name]
        if name in NOT_ON_A_SLIDER or default is inspect.Parameter.empty:
            continue
        spec = _spec(name, default)
        if spec is not None:
            specs.append(spec)
    return specs


def _landscape(landscape):
    """``(key, instance)`` from a LANDSCAPES key or a Landscape instance."""
    if isinstance(landscape, Landscape):
        for key, cls in LANDSCAPES.items():
            if type(landscape) is cls:
                return key, landscape
        return type(landscape).__name__.lower(), landscape
    if isinstance(landscape, str) and landscape.lower() in LANDSCAPES:
        key = landscape.lower()
        return key, LANDSCAPES[key]()
    raise ValueError("landscape must be one of %s or a Landscape instance, got %r"
                     % (', '.join(LANDSCAPES), landscape))


def _point(x):
    """A coordinate to 2 decimals (-0.00 printed as 0.00); far-away ones as ``%.3g``."""
    if abs(x) >= 1e4:
        return fmt(x)
    text = '%.2f' % x
    return '0.00' if text == '-0.00' else text


class OptimizerPlayground(WidgetView):
    """A registered optimizer run on a 2-D landscape, redrawn as its hyperparameters change.

    Parameters
    ----------
    landscape : str or Landscape, default 'rosenbrock'
        A key of :data:`gluonedu.viz.landscapes.LANDSCAPES` or an instance
        (``Quadratic(condition=50)``).
    optimizer : str, default 'sgd'
        A registered optimizer name (``mx.optimizer.Optimizer.opt_registry``); the
        dropdown offers those of :func:`dropdown_optimizers`.
    steps : int, default 100
    start : (x, y), optional
        Defaults to the landscape's own ``start``.
    seed : int, default 0
        Seeds ``mx.random`` before every run, so SGLD's noise repeats.
    **hyperparameters
        Initial values for the optimizer's sliders (see :func:`hyperparameters`).

    Notes
    -----
    Plain methods (what the controls call): :meth:`set`, :meth:`recompute`,
    :meth:`summary`, :meth:`figure`, :meth:`png`. Attributes after a run: ``path``
    (``(steps + 1, 2)`` array, ``nan`` rows after a divergence), ``hyperparameters``
    (every slider's current value), ``specs`` (the :class:`HyperParameter` list).
    """
    css_name = 'playground'
    # What set() changes, restored when it refuses.
    _STATE = ('landscape_key', 'landscape', 'steps', 'optimizer', 'specs', 'defaults',
              'hyperparameters', 'path')

    def __init__(self, landscape='rosenbrock', optimizer='sgd', steps=100, start=None,
                 seed=0, figsize=(5.6, 4.4), **hyperparameters):
        self.landscape_key, self.landscape = _landscape(landscape)
        self.steps = self._check_steps(steps)
        self.start = start
        self.seed = seed
        self.figsize = figsize
        self._select_optimizer(optimizer)
        self._apply(hyperparameters)
        self.path = None
        self._controls = {}
        self.recompute()

    # ------------------------------------------------------------------ plain logic
    @staticmethod
    def _check_steps(steps):
        if isinstance(steps, bool) or int(steps) != steps or steps < 1:
            raise ValueError("steps must be a positive integer, got %r" % (steps,))
        return int(steps)

    def _select_optimizer(self, optimizer):
        cls = _optimizer_class(optimizer)
        if isinstance(optimizer, str):
            self.optimizer = optimizer.lower()
        else:                                   # a class: the name it is registered under
            self.optimizer = next((n for n, c in sorted(opt_module.Optimizer.opt_registry
                                                        .items()) if c is cls),
                                  cls.__name__.lower())
        self.specs = hyperparameters(cls)
        self.defaults = {s.name: s.default for s in self.specs}
        self.hyperparameters = dict(self.defaults)

    def _apply(self, values):
        unknown = sorted(set(values) - set(self.defaults))
        if unknown:
            raise ValueError("%s has no slider for %s; its hyperparameters are %s"
                             % (self.optimizer, ', '.join(unknown), ', '.join(self.defaults)))
        self.hyperparameters = dict(self.hyperparameters, **values)

    def set(self, landscape=None, optimizer=None, steps=None, **hyperparameters):
        """Change any of landscape, optimizer, steps and hyperparameters; rerun; return self.

        A new ``optimizer`` resets the sliders to its defaults first, then applies the
        ``hyperparameters`` given with it: ``set(optimizer='adam', learning_rate=0.1)``.
        Anything refused (an unknown name, a value the optimizer rejects) raises and
        leaves the playground as it was.
        """
        saved = {k: self.__dict__[k] for k in self._STATE}
        rebuild = optimizer is not None
        try:
            if landscape is not None:
                self.landscape_key, self.landscape = _landscape(landscape)
            if steps is not None:
                self.steps = self._check_steps(steps)
            if rebuild:
                self._select_optimizer(optimizer)
            self._apply(hyperparameters)
            self.recompute()
        except Exception:
            self.__dict__.update(saved)
            raise
        if self._widget is not None:
            if rebuild:
                self._rebuild_sliders()
            self._refresh_view()
        return self

    def recompute(self):
        """Run the optimizer from the start for ``steps`` steps; returns the path."""
        self.path = run_optimizer(self.landscape, self.optimizer, self.steps,
                                  start=self.start, seed=self.seed, **self.hyperparameters)
        return self.path

    @property
    def changed(self):
        """The hyperparameters that differ from the optimizer's defaults."""
        return {k: v for k, v in self.hyperparameters.items() if v != self.defaults[k]}

    @property
    def diverged_at(self):
        """The first step whose weight is not finite, or None."""
        bad = np.flatnonzero(~np.isfinite(self.path).all(axis=1))
        return int(bad[0]) if len(bad) else None

    @property
    def end(self):
        """The last finite point of the path, as ``(x, y)`` floats."""
        finite = self.path[np.isfinite(self.path).all(axis=1)]
        return float(finite[-1, 0]), float(finite[-1, 1])

    def summary(self):
        """Two deterministic lines: where the run ended, and the non-default settings.

        ``adam on Rosenbrock: 200 steps, end (0.98, 0.96), f=3.1e-04``
        ``settings: learning_rate=0.05`` (or ``settings: defaults``)

        Coordinates are rounded to 2 decimals, ``f`` to 2 significant digits, settings
        to 4: stable across machines for the float32 runs here.
        """
        head = '%s on %s: %d steps, ' % (self.optimizer, self.landscape.name, self.steps)
        if self.diverged_at is not None:
            head += 'diverged at step %d (the weight overflowed)' % self.diverged_at
        else:
            x, y = self.end
            f = float(self.landscape(x, y))
            head += 'end (%s, %s), f=%s' % (_point(x), _point(y), '%.1e' % f if f else '0')
        changed = self.changed
        settings = ', '.join('%s=%s' % (k, fmt(v, 4)) for k, v in changed.items())
        return head + '\nsettings: ' + (settings or 'defaults')

    def __repr__(self):
        return '<OptimizerPlayground: %s on %s, %d steps>' % (
            self.optimizer, self.landscape.name, self.steps)

    def figure(self):
        """The trajectory over the landscape's contours (a matplotlib Figure, not shown)."""
        from ..viz.plots import plot_trajectories
        fig = new_figure(self.figsize)
        ax = fig.add_subplot()
        plot_trajectories(self.landscape, {self.optimizer: self.path}, ax=ax, grid=120,
                          title='%s on %s' % (self.optimizer, self.landscape.name))
        fig.subplots_adjust(left=0.11, right=0.97, bottom=0.11, top=0.93)  # no 2nd draw
        return fig

    def png(self):
        """The figure as PNG bytes (what the widget's image shows)."""
        return render_png(self.figure())

    # ------------------------------------------------------------------ the view
    def _build(self):
        import ipywidgets as w
        names = dropdown_optimizers()
        wide = {'description_width': '80px'}
        self._landscape_box = w.Dropdown(options=list(LANDSCAPES), description='landscape',
                                         style=wide, layout=w.Layout(width='230px'))
        self._optimizer_box = w.Dropdown(options=names, description='optimizer', style=wide,
                                         layout=w.Layout(width='230px'))
        self._steps_slider = w.IntSlider(min=10, max=max(500, self.steps), step=10,
                                         description='steps', continuous_update=False,
                                         style=wide, layout=w.Layout(width='330px'))
        self._landscape_box.add_class('gluonedu-landscape')
        self._optimizer_box.add_class('gluonedu-optimizer')
        self._steps_slider.add_class('gluonedu-hp-steps')
        self._image = w.Image(format='png', layout=w.Layout(width='448px'))
        self._image.add_class('gluonedu-playground-image')
        self._slider_box = w.VBox()
        self._syncing = True
        self._landscape_box.value = self.landscape_key if self.landscape_key in LANDSCAPES \
            else None
        self._optimizer_box.value = self.optimizer if self.optimizer in names else None
        self._syncing = False
        self._landscape_box.observe(self._on_landscape, names='value')
        self._optimizer_box.observe(self._on_optimizer, names='value')
        self._steps_slider.observe(self._on_steps, names='value')
        self._rebuild_sliders()
        controls = w.VBox([self._landscape_box, self._optimizer_box, self._steps_slider,
                           self._slider_box])
        return w.VBox([w.HBox([self._image, controls]), self._summary_html])

    def _rebuild_sliders(self):
        for control in self._controls.values():
            control.close()                     # the old optimizer's sliders are gone for good
        self._controls = {}
        for spec in self.specs:
            control = spec.control()
            control.observe(self._on_hyperparameter, names='value')
            self._controls[spec.name] = control
        self._slider_box.children = tuple(self._controls.values())

    def _refresh_view(self):
        """Show the current state: control values (without firing them), image, summary."""
        self._syncing = True
        try:
            if self.landscape_key in LANDSCAPES:
                self._landscape_box.value = self.landscape_key
            options = self._optimizer_box.options
            self._optimizer_box.value = self.optimizer if self.optimizer in options else None
            show_value(self._steps_slider, self.steps)
            for name, value in self.hyperparameters.items():
                show_value(self._controls[name], value)
        finally:
            self._syncing = False
        self._image.value = self.png()
        self._show_summary()

    # Callbacks: translate the control's value into a plain set() call.
    def _on_landscape(self, change):
        if not self._syncing and change['new'] is not None:
            self._guarded(lambda: self.set(landscape=change['new']))

    def _on_optimizer(self, change):
        if not self._syncing and change['new'] is not None:
            self._guarded(lambda: self.set(optimizer=change['new']))

    def _on_steps(self, change):
        if not self._syncing:
            self._guarded(lambda: self.set(steps=change['new']))

    def _on_hyperparameter(self, change):
        if self._syncing:
            return
        name = change['owner'].description
        spec = next(s for s in self.specs if s.name == name)
        self._guarded(lambda: self.set(**{name: spec.from_control(change['new'])}))
