"""ScheduleExplorer: a learning-rate scheduler's curve under slider-controlled parameters.

The curve is the real scheduler's: :meth:`ScheduleExplorer.make_scheduler` builds a fresh
``mx.lr_scheduler`` object from the current settings and :meth:`~ScheduleExplorer.values`
asks it for ``num_update = 1 .. num_updates`` in increasing order -- as an optimizer
does, which matters because Factor and MultiFactor schedulers are stateful.

Usage::

    ex = ScheduleExplorer('cosine', base_lr=0.1, max_update=150, final_lr=0.001,
                          warmup_steps=10)
    ex                                   # the widget
    ex.set(scheduler='poly', pwr=1)      # the same thing the controls do
    updates, lrs = ex.values()
    ex.set(scheduler='onecycle')         # one-cycle: its momentum curve is drawn too
"""
import textwrap

from .. import lr_scheduler as lrs
from ._common import WidgetView, fmt, new_figure, render_png, round_significant, show_value

__all__ = ['ScheduleExplorer', 'SCHEDULERS']

#: Scheduler type -> (class, the settings it takes besides base_lr and the warm-up ones).
SCHEDULERS = {
    'factor': (lrs.FactorScheduler, ('step', 'factor')),
    'multifactor': (lrs.MultiFactorScheduler, ('milestones', 'factor')),
    'poly': (lrs.PolyScheduler, ('max_update', 'pwr', 'final_lr')),
    'cosine': (lrs.CosineScheduler, ('max_update', 'final_lr')),
    'onecycle': (lrs.OneCycleScheduler, ('max_update', 'pct_start', 'div_factor',
                                         'final_div_factor')),
}

#: Settings every scheduler takes (one-cycle only base_lr: it rises on its own).
#: Width of a control's name beside it: none is cut short (warmup_begin_lr was).
LABEL_WIDTH_PX = 135
COMMON = ('base_lr', 'warmup_steps', 'warmup_begin_lr', 'warmup_mode')

#: Constructor arguments named otherwise than the setting: one-cycle peaks at base_lr
#: (its ``max_lr``) and lasts max_update updates (its ``total_steps``).
ARGUMENT_NAMES = {'onecycle': {'base_lr': 'max_lr', 'max_update': 'total_steps'}}

DEFAULTS = {
    'base_lr': 0.1, 'step': 50, 'factor': 0.5, 'milestones': (50, 100, 150),
    'max_update': 150, 'pwr': 2.0, 'final_lr': 0.0, 'warmup_steps': 0,
    'warmup_begin_lr': 0.0, 'warmup_mode': 'linear', 'pct_start': 0.25, 'div_factor': 25.0,
    'final_div_factor': 1e4,
}


def _common(kind):
    """The settings of COMMON that scheduler ``kind`` takes."""
    return ('base_lr',) if kind == 'onecycle' else COMMON


def _argument(kind, setting):
    """The constructor argument of scheduler ``kind`` that ``setting`` gives."""
    return ARGUMENT_NAMES.get(kind, {}).get(setting, setting)


class ScheduleExplorer(WidgetView):
    """Plot ``lr(num_update)`` of one scheduler; every setting on a control.

    Parameters
    ----------
    scheduler : {'factor', 'multifactor', 'poly', 'cosine', 'onecycle'}, default 'cosine'
    num_updates : int, default 200
        How far the curve is drawn (``num_update = 1 .. num_updates``).
    base_lr, warmup_steps, warmup_begin_lr, warmup_mode : as every LRScheduler takes.
    step, factor : FactorScheduler's (``factor`` also MultiFactorScheduler's).
    milestones : sequence of int
        MultiFactorScheduler's ``step`` list (named apart from Factor's single ``step``).
    max_update, pwr, final_lr : PolyScheduler's / CosineScheduler's.
    pct_start, div_factor, final_div_factor : OneCycleScheduler's, which also takes
        base_lr (as ``max_lr``) and max_update (as ``total_steps``); its momentum curve
        is drawn too, on the right-hand axis.

    Notes
    -----
    Plain methods: :meth:`set`, :meth:`make_scheduler`, :meth:`values`,
    :meth:`summary`, :meth:`figure`, :meth:`png`. ``settings`` holds every value.
    """
    css_name = 'schedule'

    def __init__(self, scheduler='cosine', num_updates=200, figsize=(6.0, 3.2), **settings):
        self.settings = dict(DEFAULTS)
        self.scheduler = None
        self.num_updates = None
        self.figsize = figsize
        self._controls = {}
        self._apply(scheduler, num_updates, settings)

    # ------------------------------------------------------------------ plain logic
    def _apply(self, scheduler, num_updates, settings):
        unknown = sorted(set(settings) - set(DEFAULTS))
        if unknown:
            raise ValueError("ScheduleExplorer has no setting %s; the settings are %s"
                             % (', '.join(unknown), ', '.join(DEFAULTS)))
        if scheduler is not None:
            if scheduler not in SCHEDULERS:
                raise ValueError("scheduler must be one of %s, got %r"
                                 % (', '.join(SCHEDULERS), scheduler))
        if num_updates is not None and (isinstance(num_updates, bool) or
                                        int(num_updates) != num_updates or num_updates < 1):
            raise ValueError("num_updates must be a positive integer, got %r" % (num_updates,))
        candidate = dict(self.settings, **settings)
        if 'milestones' in settings:
            candidate['milestones'] = tuple(int(m) for m in settings['milestones'])
        for name in ('step', 'max_update', 'warmup_steps'):
            candidate[name] = int(candidate[name])
        # Build it once before committing, so a refused combination changes nothing.
        self._make(scheduler or self.scheduler, candidate)
        self.settings = candidate
        if scheduler is not None:
            self.scheduler = scheduler
        if num_updates is not None:
            self.num_updates = int(num_updates)

    @staticmethod
    def _make(kind, s):
        cls, own = SCHEDULERS[kind]
        if kind in ('poly', 'cosine') and s['warmup_steps'] >= s['max_update']:
            # MXNet's schedulers would divide by max_update - warmup_steps = 0 later on.
            raise ValueError("warmup_steps (%d) must be less than max_update (%d)"
                             % (s['warmup_steps'], s['max_update']))
        kwargs = {_argument(kind, name): s[name] for name in _common(kind)}
        for name in own:
            if name == 'milestones':
                kwargs['step'] = list(s['milestones'])
            else:
                kwargs[_argument(kind, name)] = s[name]
        return cls(**kwargs)

    def set(self, scheduler=None, num_updates=None, **settings):
        """Change the scheduler type, the horizon or any setting; return self.

        Raises ValueError (and changes nothing) for a combination the scheduler refuses,
        e.g. ``warmup_begin_lr > base_lr`` or a warm-up as long as ``max_update``.
        """
        self._apply(scheduler, num_updates, settings)
        if self._widget is not None:
            self._refresh_view()
        return self

    def make_scheduler(self):
        """A fresh ``mx.lr_scheduler`` object with the current settings."""
        return self._make(self.scheduler, self.settings)

    def values(self):
        """``(updates, lrs)``: lists over ``num_update = 1 .. num_updates``, asked in order."""
        scheduler = self.make_scheduler()
        updates = list(range(1, self.num_updates + 1))
        return updates, [float(scheduler(n)) for n in updates]

    def describe(self):
        """The scheduler as a constructor call with the settings that apply to it."""
        cls, own = SCHEDULERS[self.scheduler]
        s = self.settings
        parts = []
        for name in own:
            if name == 'milestones':
                parts.append('step=[%s]' % ', '.join(str(m) for m in s['milestones']))
            else:
                parts.append('%s=%s' % (_argument(self.scheduler, name), fmt(s[name], 4)))
        parts.append('%s=%s' % (_argument(self.scheduler, 'base_lr'), fmt(s['base_lr'], 4)))
        if s['warmup_steps'] and 'warmup_steps' in _common(self.scheduler):
            parts.append('warmup_steps=%d' % s['warmup_steps'])
            if s['warmup_begin_lr']:
                parts.append('warmup_begin_lr=%s' % fmt(s['warmup_begin_lr'], 4))
            parts.append("warmup_mode='%s'" % s['warmup_mode'])
        return '%s(%s)' % (cls.__name__, ', '.join(parts))

    def summary(self):
        """Two deterministic lines: the constructor call; first, peak and last rates.

        ``CosineScheduler(max_update=150, final_lr=0.001, base_lr=0.1)``
        ``lr(1)=0.1, max 0.1 at update 1, lr(200)=0.001`` (4 significant digits).
        """
        updates, values = self.values()
        peak = max(range(len(values)), key=lambda i: (values[i], -i))
        return '%s\nlr(1)=%s, max %s at update %d, lr(%d)=%s' % (
            self.describe(), fmt(values[0], 4), fmt(values[peak], 4), updates[peak],
            updates[-1], fmt(values[-1], 4))

    def __repr__(self):
        return '<ScheduleExplorer: %s>' % self.describe()

    def figure(self):
        """The curve, with the warm-up end and max_update marked (a Figure, not shown).

        For one-cycle, the momentum curve too (dashed, right-hand axis).
        """
        updates, values = self.values()
        one_cycle = self.scheduler == 'onecycle'
        fig = new_figure(self.figsize)
        ax = fig.add_subplot()
        ax.plot(updates, values, color='C0', lw=1.6,
                label='learning rate' if one_cycle else None)   # beside its momentum
        s = self.settings
        if s['warmup_steps'] and 'warmup_steps' in _common(self.scheduler):
            ax.axvline(s['warmup_steps'], color='C1', ls=':', lw=1, label='end of warm-up')
        if self.scheduler in ('poly', 'cosine', 'onecycle'):
            ax.axvline(s['max_update'], color='grey', ls='--', lw=1, label='max_update')
        handles, labels = ax.get_legend_handles_labels()
        if one_cycle:
            scheduler = self.make_scheduler()
            twin = ax.twinx()
            twin.plot(updates, [scheduler.momentum_at(n) for n in updates], color='C2',
                      ls='--', lw=1.2, label='momentum (right)')
            twin.set_ylabel('momentum')
            more_handles, more_labels = twin.get_legend_handles_labels()
            handles, labels = handles + more_handles, labels + more_labels
        if handles:   # one-cycle's lr is near 0 and its momentum high at the end
            ax.legend(handles, labels, fontsize='small',
                      loc='center right' if one_cycle else 'best')
        ax.set_xlabel('num_update')
        ax.set_ylabel('learning rate')
        ax.set_ylim(bottom=0)
        ax.set_title(textwrap.fill(self.describe(), 80), fontsize='small')
        fig.subplots_adjust(left=0.13, right=0.88 if one_cycle else 0.97, bottom=0.15,
                            top=0.86)  # no 2nd draw
        return fig

    def png(self):
        return render_png(self.figure())

    # ------------------------------------------------------------------ the view
    def _build(self):
        import ipywidgets as w
        # Room for the longest name, final_div_factor, at about 8 px a character.
        style = {'description_width': '%dpx' % LABEL_WIDTH_PX}
        width = '%dpx' % (LABEL_WIDTH_PX + 220)
        c = self._controls

        def common(**extra):
            # A Layout per control: the hidden ones get display='none' on their own.
            return dict(style=style, layout=w.Layout(width=width), continuous_update=False,
                        **extra)

        c['scheduler'] = w.Dropdown(options=list(SCHEDULERS), description='scheduler',
                                    style=style, layout=w.Layout(width=width))
        c['num_updates'] = w.IntSlider(min=10, max=1000, step=10, description='num_updates',
                                       **common())
        c['base_lr'] = w.FloatLogSlider(base=10, min=-4, max=1, step=0.1, description='base_lr',
                                        readout_format='.3g', **common())
        c['step'] = w.IntSlider(min=1, max=500, step=1, description='step', **common())
        c['factor'] = w.FloatSlider(min=0.05, max=1.0, step=0.05, description='factor',
                                    readout_format='.2f', **common())
        c['milestones'] = w.Text(description='milestones', placeholder='50, 100, 150',
                                 **common())
        c['max_update'] = w.IntSlider(min=10, max=1000, step=10, description='max_update',
                                      **common())
        c['pwr'] = w.FloatSlider(min=0.25, max=5.0, step=0.25, description='pwr',
                                 readout_format='.2f', **common())
        c['final_lr'] = w.FloatSlider(min=0.0, max=1.0, step=1e-4, description='final_lr',
                                      readout_format='.4g', **common())
        c['warmup_steps'] = w.IntSlider(min=0, max=500, step=5, description='warmup_steps',
                                        **common())
        c['warmup_begin_lr'] = w.FloatSlider(min=0.0, max=1.0, step=1e-4,
                                             description='warmup_begin_lr', readout_format='.4g',
                                             **common())
        c['warmup_mode'] = w.Dropdown(options=['linear', 'constant'], description='warmup_mode',
                                      style=style, layout=w.Layout(width=width))
        c['pct_start'] = w.FloatSlider(min=0.05, max=0.95, step=0.05, description='pct_start',
                                       readout_format='.2f', **common())
        c['div_factor'] = w.FloatLogSlider(base=10, min=0, max=3, step=0.1,
                                           description='div_factor', readout_format='.3g',
                                           **common())
        c['final_div_factor'] = w.FloatLogSlider(base=10, min=0, max=6, step=0.5,
                                                 description='final_div_factor',
                                                 readout_format='.3g', **common())
        for name, control in c.items():
            control.add_class('gluonedu-schedule-%s' % name)
            control.observe(self._on_change, names='value')
        self._image = w.Image(format='png', layout=w.Layout(width='480px'))
        self._image.add_class('gluonedu-schedule-image')
        return w.VBox([w.HBox([self._image, w.VBox(list(c.values()))]), self._summary_html])

    def _refresh_view(self):
        self._syncing = True
        try:
            c = self._controls
            c['scheduler'].value = self.scheduler
            show_value(c['num_updates'], self.num_updates)
            for name, value in self.settings.items():
                if name == 'milestones':
                    c[name].value = ', '.join(str(m) for m in value)
                elif name == 'warmup_mode':
                    c[name].value = value
                else:
                    show_value(c[name], value)
            shown = set(_common(self.scheduler)) | set(SCHEDULERS[self.scheduler][1]) | \
                {'scheduler', 'num_updates'}
            for name, control in c.items():
                control.layout.display = None if name in shown else 'none'
        finally:
            self._syncing = False
        self._image.value = self.png()
        self._show_summary()

    def _on_change(self, change):
        if getattr(self, '_syncing', False):
            return
        control = change['owner']
        name = next(n for n, c in self._controls.items() if c is control)
        value = change['new']
        if name == 'scheduler':
            action = lambda: self.set(scheduler=value)                       # noqa: E731
        elif name == 'num_updates':
            action = lambda: self.set(num_updates=value)                     # noqa: E731
        elif name == 'milestones':
            action = lambda: self.set(milestones=_parse_milestones(value))   # noqa: E731
        elif name == 'base_lr':
            action = lambda: self.set(base_lr=round_significant(value))     # noqa: E731
        else:
            action = lambda: self.set(**{name: value})                       # noqa: E731
        self._guarded(action)


def _parse_milestones(text):
    """'50, 100, 150' -> (50, 100, 150); a clear error for anything else."""
    try:
        return tuple(int(part) for part in text.replace(';', ',').split(',') if part.strip())
    except ValueError:
        raise ValueError("milestones: write increasing update counts separated by commas, "
                         "e.g. 50, 100, 150 (got %r)" % (text,)) from None
