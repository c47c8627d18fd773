"""TrainingDashboard: loss, learning rate and norms of a running training loop, live.

The dashboard reads a :class:`~gluonedu.instrument.Recorder`; it never subscribes to
the bus itself. Call :meth:`TrainingDashboard.update` inside the loop -- it redraws at
most every ``min_interval`` seconds, in place (one image widget whose bytes change), so
the cell's output does not grow and progress bars beside it keep working::

    rec = Recorder(trainer, norms=['grad'])
    dash = TrainingDashboard(rec)
    dash                                       # display it once, above the loop
    for x, y in tqdm.auto.tqdm(loader):
        ...
        trainer.step(batch_size)
        rec.log('loss', loss.mean())
        dash.update()                          # cheap when throttled
    dash.update(force=True)                    # the final state, whatever the clock says
    print(dash.summary())

Why it coexists with ``tqdm``: neither prints nor clears the cell's output on update.
tqdm's notebook bar is a widget whose value changes; so is this dashboard's image.
(``IPython.display.clear_output`` would wipe the bar, and ``print`` would pile up.)
"""
import time

import numpy as np

from ._common import WidgetView, fmt, new_figure, render_png

__all__ = ['TrainingDashboard']

#: At most this many parameters get their own line in a panel (the rest are summarised).
MAX_LINES = 8


class TrainingDashboard(WidgetView):
    """Three panels from a Recorder's table: loss, effective lr per parameter, norms.

    Parameters
    ----------
    recorder : gluonedu.instrument.Recorder
    metric : str, default 'loss'
        The metric rows (``recorder.log(metric, value)``) of the first panel.
    norm : str, default 'grad'
        Which ``norm`` rows the third panel shows ('weight', 'grad' or 'update'); ask the
        Recorder for them (``norms=True`` or ``norms=['grad']``). Without them the panel
        says so.
    min_interval : float, default 0.5
        Seconds between redraws at least; :meth:`update` calls in between only count.
        A redraw also waits ``cost_ratio`` times as long as the previous redraw took,
        so drawing never takes more than about ``1 / (1 + cost_ratio)`` of the loop's
        time, however slow the machine (a plot of a few hundred milliseconds next to
        a step of a few milliseconds would otherwise dominate the training).
    cost_ratio : float, default 4
    clock : callable, default time.monotonic
        The time source of the throttle (tests pass a fake one).

    Notes
    -----
    Plain methods: :meth:`update`, :meth:`data`, :meth:`summary`, :meth:`figure`,
    :meth:`png`. ``redraws`` counts the redraws, ``skipped`` the throttled calls.
    """
    css_name = 'dashboard'

    def __init__(self, recorder, metric='loss', norm='grad', min_interval=0.5, cost_ratio=4.0,
                 figsize=(10.5, 3.0), clock=time.monotonic):
        if not hasattr(recorder, 'series') or not hasattr(recorder, 'rows'):
            raise TypeError("TrainingDashboard needs a gluonedu.instrument.Recorder, got %s"
                            % type(recorder).__name__)
        if norm not in ('weight', 'grad', 'update'):
            raise ValueError("norm must be 'weight', 'grad' or 'update', got %r" % (norm,))
        if min_interval < 0 or cost_ratio < 0:
            raise ValueError("min_interval and cost_ratio must be >= 0, got %r and %r"
                             % (min_interval, cost_ratio))
        self.recorder = recorder
        self.metric = metric
        self.norm = norm
        self.min_interval = float(min_interval)
        self.cost_ratio = float(cost_ratio)
        self.figsize = figsize
        self.clock = clock
        self.redraws = 0
        self.skipped = 0
        self._next_draw = None          # clock time before which update() only counts

    # ------------------------------------------------------------------ plain logic
    def data(self):
        """What the panels show, from the Recorder's rows as they are now.

        Returns ``{'loss': (steps, values), 'lr': {param: (steps, values)},
        'norm': {param: (steps, values)}}`` (``'loss'`` keyed by the ``metric`` name
        given), NumPy arrays in the order recorded; lr and norms use the first context
        a parameter was recorded on.
        """
        loss_steps, loss_values = [], []
        lr, norms = {}, {}
        first_context = {}
        for row in self.recorder.rows:
            if row.event == 'metric' and row.name == self.metric:
                loss_steps.append(row.step)
                loss_values.append(row.value)
            elif (row.event == 'lr' or (row.event == 'norm' and row.name == self.norm)) \
                    and row.param is not None:
                key = (row.event, row.param)
                if first_context.setdefault(key, row.context) != row.context:
                    continue
                table = lr if row.event == 'lr' else norms
                steps, values = table.setdefault(row.param, ([], []))
                steps.append(row.step)
                values.append(row.value)

        def arrays(pair):
            return (np.asarray(pair[0], dtype=np.int64), np.asarray(pair[1], dtype=np.float64))

        return {self.metric: arrays((loss_steps, loss_values)),
                'lr': {p: arrays(v) for p, v in lr.items()},
                'norm': {p: arrays(v) for p, v in norms.items()}}

    def update(self, force=False):
        """Redraw from the Recorder unless throttled (``force=True`` always redraws).

        The first call redraws; after a redraw that started at ``t0`` and took ``d``
        seconds, the next one comes at ``t0 + max(min_interval, d + cost_ratio · d)``
        at the earliest. Returns True when it redrew. Without a built view (no
        ``.widget`` yet) it still renders, so tests exercise the same path.
        """
        start = self.clock()
        if not force and self._next_draw is not None and start < self._next_draw:
            self.skipped += 1
            return False
        self.redraws += 1
        self._image_bytes = self.png()
        if self._widget is not None:
            self._image.value = self._image_bytes
            self._show_summary()
        cost = max(0.0, self.clock() - start)
        self._next_draw = start + max(self.min_interval, cost * (1 + self.cost_ratio))
        return True

    def summary(self):
        """A deterministic digest of what the panels show (3 significant digits).

        ``dashboard: steps 1-20`` then ``loss: first -> last (min m at step s)``,
        ``lr: v (all N parameters)`` or one ``param v`` per parameter, and
        ``grad norm: param first -> last`` per parameter (sorted by name). No times and
        no redraw counts, which depend on the machine's speed.
        """
        data = self.data()
        steps = [int(s[-1]) for s, _ in [data[self.metric]] + list(data['lr'].values())
                 if len(s)]
        firsts = [int(s[0]) for s, _ in [data[self.metric]] + list(data['lr'].values())
                  if len(s)]
        lines = ['dashboard: ' + ('steps %d-%d' % (min(firsts), max(steps)) if steps
                                  else 'nothing recorded yet')]
        loss_steps, loss = data[self.metric]
        if len(loss):
            best = int(np.argmin(loss))
            lines.append('%s: %s -> %s (min %s at step %d)'
                         % (self.metric, fmt(loss[0]), fmt(loss[-1]), fmt(loss[best]),
                            loss_steps[best]))
        else:
            lines.append('%s: none logged' % self.metric)
        last_lr = {p: v[-1] for p, (_, v) in sorted(data['lr'].items())}
        if not last_lr:
            lines.append('lr: none recorded')
        elif len({fmt(v) for v in last_lr.values()}) == 1:
            lines.append('lr: %s (all %d parameters)' % (fmt(next(iter(last_lr.values()))),
                                                         len(last_lr)))
        else:
            lines.append('lr: ' + ', '.join('%s %s' % (p, fmt(v)) for p, v in last_lr.items()))
        if data['norm']:
            lines.append('%s norm:' % self.norm)
            for p, (_, v) in sorted(data['norm'].items()):
                lines.append('  %s %s -> %s' % (p, fmt(v[0]), fmt(v[-1])))
        else:
            lines.append('%s norm: none recorded (Recorder(norms=[%r]))' % (self.norm, self.norm))
        return '\n'.join(lines)

    def __repr__(self):
        return '<TrainingDashboard: %s, lr, %s norms>' % (self.metric, self.norm)

    def figure(self):
        """The three panels as a matplotlib Figure (not shown)."""
        data = self.data()
        fig = new_figure(self.figsize)
        ax_loss, ax_lr, ax_norm = fig.subplots(1, 3)
        steps, loss = data[self.metric]
        ax_loss.plot(steps, loss, color='C0', lw=1.2)
        ax_loss.set_title(self.metric)
        if len(loss) and np.all(loss > 0):
            ax_loss.set_yscale('log')
        if not len(loss):
            ax_loss.text(0.5, 0.5, 'no step recorded yet:\ncall update() in the loop',
                         ha='center', va='center', transform=ax_loss.transAxes,
                         fontsize='small')
        # Parameters on the same learning rate share one line (often all of them).
        for ax, table, title in ((ax_lr, _same_series_once(data['lr']), 'effective lr'),
                                 (ax_norm, data['norm'], '%s norm' % self.norm)):
            for i, (param, (s, v)) in enumerate(sorted(table.items())):
                ax.plot(s, v, lw=1.0, label=param if i < MAX_LINES else '_hidden')
            if table and len(table) <= MAX_LINES:
                ax.legend(fontsize='x-small', loc='best')
            ax.set_title(title)
        if data['norm'] and all(np.all(v > 0) for _, v in data['norm'].values()):
            ax_norm.set_yscale('log')
        if not data['norm']:
            ax_norm.text(0.5, 0.5, 'no %s norms recorded:\nRecorder(..., norms=[%r])'
                         % (self.norm, self.norm), ha='center', va='center',
                         transform=ax_norm.transAxes, fontsize='small')
        for ax in (ax_loss, ax_lr, ax_norm):
            ax.set_xlabel('step')
        # Fixed margins: tight_layout would cost a second full draw on every redraw.
        fig.subplots_adjust(left=0.06, right=0.985, bottom=0.17, top=0.9, wspace=0.28)
        return fig

    def png(self):
        """The panels as PNG bytes."""
        return render_png(self.figure())

    # ------------------------------------------------------------------ the view
    def _build(self):
        import ipywidgets as w
        self._image = w.Image(format='png', layout=w.Layout(width='840px'))
        self._image.add_class('gluonedu-dashboard-image')
        return w.VBox([self._image, self._summary_html])

    def _refresh_view(self):
        if getattr(self, '_image_bytes', None) is None:
            self._image_bytes = self.png()
        self._image.value = self._image_bytes
        self._show_summary()


def _same_series_once(table):
    """``{label: (steps, values)}`` with the parameters whose series are equal merged:
    one entry per distinct series, labelled by its parameter, ``'all N parameters'``
    or ``'<first> and N others'``."""
    groups = []
    for param, (steps, values) in sorted(table.items()):
        for group in groups:
            if np.array_equal(group[1], steps) and np.array_equal(group[2], values):
                group[0].append(param)
                break
        else:
            groups.append(([param], steps, values))
    if len(groups) == 1 and len(table) > 1:
        return {'all %d parameters' % len(table): groups[0][1:]}
    return {(params[0] if len(params) == 1 else
             '%s and %d others' % (params[0], len(params) - 1)): (steps, values)
            for params, steps, values in groups}
