"""Matplotlib plots of what optimizers do (every function returns its Figure; Agg-safe).

Each plot returns a :class:`gluonedu.viz.figure.Figure` (a matplotlib Figure made through
pyplot): a script saves it or calls ``plt.show()``; a notebook shows it exactly once,
whatever the cell ends with -- the call itself, the call with ``;``, ``fig = ...`` or
anything else (see :mod:`gluonedu.viz.figure`). Given ``ax=``, a plot draws into your
Axes and returns your Figure, shown as your other figures are.

On 2-D landscapes (:mod:`gluonedu.viz.landscapes`):

* :func:`plot_trajectories` -- optimizer paths drawn over a landscape's contour lines
  (give it paths, or optimizers to run);
* :func:`plot_losses` -- the landscape's value along each path, step by step;
* :func:`contour_levels` -- the contour levels those plots use (log-spaced where apt).

From a :class:`gluonedu.instrument.Recorder`'s table (one row per recorded value):

* :func:`plot_lr` -- the effective lr of each parameter against the base schedule, the
  legend naming each parameter's lr_mult;
* :func:`plot_norms` -- weight / gradient / update / optimizer-state norms, log scale;
  it and :func:`plot_loss` mark each step with NaN/Inf gradients (the ``nonfinite``
  and ``overflow`` rows) with a red dashed line (``gid='nonfinite'``);
* :func:`plot_update_ratio` -- ``||update|| / ||weight||`` per parameter, log scale;
* :func:`plot_stale_events` -- stale gradients raised or skipped, by parameter and context;
* :func:`plot_kv_traffic` -- KVStore bytes pushed per key, dense against compressed;
* :func:`plot_loss` -- metric rows the training loop logged (``rec.log('loss', ...)``);
* :func:`plot_lr_find` -- an lr range test (:func:`gluonedu.contrib.lr_find`): the loss
  against the learning rate, and the suggested rate.

Each Recorder plot raises a ValueError naming the Recorder option (or the training
set-up) that produces the rows it needs when they are missing. Every line a Recorder
plot draws carries its parameter's name as its ``gid`` (``line.get_gid()``), with
``' @ context'`` appended where a parameter was recorded on several contexts.

Only host-side NumPy and matplotlib here; the training core never imports this module.
"""
import collections
from collections.abc import Mapping

import numpy as np

from .landscapes import run_optimizer

__all__ = ['plot_trajectories', 'plot_losses', 'contour_levels', 'plot_lr', 'plot_norms',
           'plot_update_ratio', 'plot_stale_events', 'plot_kv_traffic', 'plot_loss',
           'plot_lr_find']


def _subplots(*args, **kwargs):
    """``pyplot.subplots`` making a :class:`~gluonedu.viz.figure.Figure` (shown once)."""
    import matplotlib.pyplot as plt  # imported on first use: viz is optional
    from .figure import Figure
    return plt.subplots(*args, FigureClass=Figure, **kwargs)


def _axes(ax, figsize):
    if ax is None:
        fig, ax = _subplots(figsize=figsize)
        return fig, ax
    return ax.figure, ax


def _is_optimizer(obj):
    from ..optimizer import Optimizer
    return isinstance(obj, (str, Optimizer))


def _is_spec(value):
    """Whether ``value`` names an optimizer to run rather than a path already computed.

    A spec is an optimizer name (``'adam'``), an Optimizer instance, or a pair of either
    with a mapping of hyperparameters (``('adam', {'learning_rate': 0.1})``).
    """
    if _is_optimizer(value):
        return True
    return (isinstance(value, tuple) and len(value) == 2 and _is_optimizer(value[0])
            and isinstance(value[1], Mapping))


def _spec_label(spec):
    optimizer, hyper = spec if isinstance(spec, tuple) else (spec, {})
    name = optimizer if isinstance(optimizer, str) else type(optimizer).__name__.lower()
    if not hyper:
        return name
    return '%s (%s)' % (name, ', '.join('%s=%g' % (k, v) if isinstance(v, (int, float))
                                        else '%s=%s' % (k, v) for k, v in hyper.items()))


def _run_spec(landscape, spec, steps, start, seed):
    optimizer, hyper = spec if isinstance(spec, tuple) else (spec, {})
    return run_optimizer(landscape, optimizer, steps, start=start, seed=seed, **dict(hyper))


def _named_paths(trajectories, landscape=None, steps=100, start=None, seed=None):
    """``[(label, array (n, 2)), ...]`` from paths or optimizer specs (see plot_trajectories).

    Accepts a mapping label -> path or spec, a list of (label, path or spec) pairs,
    bare paths or bare specs, or one path array. Specs are run on ``landscape`` with
    :func:`~gluonedu.viz.landscapes.run_optimizer` for ``steps`` steps.
    """
    if isinstance(trajectories, Mapping):
        items = list(trajectories.items())
    elif isinstance(trajectories, np.ndarray) and trajectories.ndim == 2:
        items = [('path', trajectories)]
    elif _is_spec(trajectories):
        items = [(_spec_label(trajectories), trajectories)]
    else:
        items = []
        for i, item in enumerate(trajectories):
            if _is_spec(item):
                items.append((_spec_label(item), item))
            elif isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str):
                items.append(item)
            else:
                items.append(('path %d' % i, item))
    named = []
    for label, path in items:
        if _is_spec(path):
            if landscape is None:
                raise TypeError("trajectory %r is an optimizer, not a path; running it "
                                "needs a landscape" % (label,))
            path = _run_spec(landscape, path, steps, start, seed)
        path = np.asarray(path, dtype=np.float64)
        if path.ndim != 2 or path.shape[1] != 2:
            raise ValueError("trajectory %r must have shape (steps + 1, 2), got %s"
                             % (label, path.shape))
        named.append((str(label), path))
    return named


def contour_levels(landscape, Z=None, levels=30, decades=4.0):
    """Contour levels for ``landscape`` sampled as ``Z`` (on its ``bounds`` grid if None).

    ``levels`` may be an explicit sequence (returned sorted) or a count. With a count,
    landscapes whose ``log_levels`` is true get levels spaced evenly in
    ``log(f - f_min)`` (``f_min`` the known minimum, else the grid's) over ``decades``
    decades below the window's range -- so the floor
    of a valley shows as clearly as its walls; others get evenly spaced levels.
    """
    if not isinstance(levels, (int, np.integer)):
        return np.sort(np.asarray(levels, dtype=np.float64))
    if Z is None:
        Z = landscape.grid()[2]
    lo, hi = float(np.nanmin(Z)), float(np.nanmax(Z))
    known = getattr(landscape, 'min_value', float('nan'))
    if np.isfinite(known) and known <= lo:
        lo = known                      # count decades from the true minimum, not the grid's
    if not getattr(landscape, 'log_levels', False) or hi <= lo:
        return np.linspace(lo, hi, int(levels) + 2)[1:-1]
    span = hi - lo
    return lo + np.logspace(np.log10(span) - decades, np.log10(span), int(levels))


def plot_trajectories(landscape, trajectories, ax=None, levels=30, grid=200,
                      title=None, figsize=(6.5, 5.0), legend=True, steps=100, start=None,
                      seed=None, aspect='equal'):
    """Draw optimizer paths over the contour lines of ``landscape``; return the Figure.

    ``plot_trajectories(landscape, optimizers)``: give the optimizers and they are run
    here, or give paths you computed before (both may be mixed)::

        plot_trajectories(Rosenbrock(), {'sgd': ('sgd', {'learning_rate': 1e-3}),
                                         'adam': ('adam', {'learning_rate': 0.05})},
                          steps=300)
        plot_trajectories(Rosenbrock(), ['sgd', ('adam', {'learning_rate': 0.05})])
        plot_trajectories(Rosenbrock(), {'adam': run_optimizer(Rosenbrock(), 'adam', 300)})

    Parameters
    ----------
    landscape : gluonedu.viz.landscapes.Landscape
    trajectories : optimizers or paths
        A dict label -> value, a list of (label, value) pairs, or a list of bare
        values (a bare spec is labelled by its name and hyperparameters), where a value is

        * a path: an array of shape (steps + 1, 2), e.g. from
          :func:`~gluonedu.viz.landscapes.run_optimizer`; or
        * an optimizer spec: a registered name (``'adam'``), an
          :class:`~gluonedu.optimizer.Optimizer` instance, or either paired with a
          dict of hyperparameters, ``('adam', {'learning_rate': 0.1})``. It is run
          with ``run_optimizer(landscape, optimizer, steps, start=start, seed=seed,
          **hyperparameters)``; an instance keeps its update counters, so running it
          again continues where it stopped.
    ax : matplotlib Axes, optional
        Draw into it (the Figure returned is then ``ax.figure``).
    levels : int or sequence, default 30
        A count (see :func:`contour_levels`) or explicit contour levels.
    grid : int, default 200
        Samples per axis of the contour grid over ``landscape.bounds``.
    aspect : 'equal' or 'auto', default 'equal'
        'equal' draws one unit of x as long as one unit of y, so a round bowl looks
        round and a path's angles are true; 'auto' fills the Axes.
    steps, start, seed :
        For optimizer specs only: the number of updates (default 100), the starting
        point (``landscape.start`` by default) and the random seed (stochastic
        optimizers such as SGLD), as :func:`~gluonedu.viz.landscapes.run_optimizer`.

    Notes
    -----
    What is drawn: the contour lines (one ``QuadContourSet``), each global minimum as a
    star, each path as one line (``ax.lines``, labelled, in the order given) with its
    start as a hollow circle and its end as a filled dot in the path's colour (both
    scatter collections, so ``ax.lines`` holds exactly the paths), and a legend.
    The view is clipped to ``landscape.bounds``: a path that leaves it diverged.
    """
    named = _named_paths(trajectories, landscape, steps, start, seed)
    fig, ax = _axes(ax, figsize)
    X, Y, Z = landscape.grid(grid)
    lv = contour_levels(landscape, Z, levels)
    ax.contour(X, Y, Z, levels=lv, cmap='viridis',
               linewidths=0.6, alpha=0.7)
    minima = np.asarray(landscape.minima).reshape(-1, 2)
    if len(minima):
        ax.scatter(minima[:, 0], minima[:, 1], marker='*', s=180, c='gold',
                   edgecolors='black', linewidths=0.8, zorder=4, label='_minimum')
    for label, path in named:
        (line,) = ax.plot(path[:, 0], path[:, 1], '-', lw=1.6, alpha=0.9, label=label,
                          zorder=3)
        color = line.get_color()
        ax.scatter(path[:1, 0], path[:1, 1], s=40, facecolors='none', edgecolors=color,
                   linewidths=1.2, zorder=5, label='_start')
        finite = path[np.isfinite(path).all(axis=1)]
        if len(finite):
            ax.scatter(finite[-1:, 0], finite[-1:, 1], s=45, color=color,
                       edgecolors='black', linewidths=0.6, zorder=6, label='_end')
    (x0, x1), (y0, y1) = landscape.bounds
    ax.set_xlim(x0, x1)
    ax.set_ylim(y0, y1)
    ax.set_aspect(aspect, adjustable='box')
    ax.set_xlabel('x')
    ax.set_ylabel('y')
    ax.set_title(landscape.name if title is None else title)
    if legend and named:
        ax.legend(loc='best', fontsize='small', framealpha=0.8)
    return fig


def plot_losses(landscape, trajectories, ax=None, log=None, figsize=(6.5, 3.5),
                title=None, legend=True, steps=100, start=None, seed=None):
    """The value ``landscape(x, y)`` along each path against the step; returns the Figure.

    With ``log`` (default: ``landscape.log_levels``) the y axis shows ``f - f_min`` on a
    log scale, where convergence rates read as slopes. One line per path.
    ``trajectories`` (paths or optimizer specs), ``steps``, ``start`` and ``seed`` are
    as in :func:`plot_trajectories`.
    """
    named = _named_paths(trajectories, landscape, steps, start, seed)
    fig, ax = _axes(ax, figsize)
    log = getattr(landscape, 'log_levels', False) if log is None else log
    f_min = landscape.min_value if len(landscape.minima) else 0.0
    for label, path in named:
        values = landscape(path[:, 0], path[:, 1])
        if log:
            values = np.maximum(values - f_min, 1e-16)
        ax.plot(np.arange(len(values)), values, label=label)
    if log:
        ax.set_yscale('log')
        ax.set_ylabel('f - f_min')
    else:
        ax.set_ylabel('f')
    ax.set_xlabel('step')
    ax.set_title(landscape.name if title is None else title)
    if legend and named:
        ax.legend(loc='best', fontsize='small')
    return fig


# ====================================================================== Recorder plots
#: What produces the rows each Recorder plot needs (quoted in the errors).
_PRODUCED_BY = {
    'lr': "Recorder(trainer) records them on every Trainer.step; keep 'lr' in kinds= "
          "if you pass kinds=",
    'norm': "Recorder(trainer, norms=True) computes them (or norms=['weight', 'grad', "
            "'update'] for some)",
    'state_norm': "Recorder(trainer, norms=True) computes them (or norms=[...] naming the "
                  "optimizer's states, e.g. ['mean', 'var'] for Adam, ['momentum'] for SGD "
                  "with momentum)",
    'stale_grad': "the Trainer reports them when a parameter's gradient was not written "
                  "by backward since the last step (e.g. an unused branch): "
                  "trainer.step(..., ignore_stale_grad=True) records 'skipped', without it "
                  "'raised' (with the UserWarning exception)",
    'kv_push': "a Trainer uses a KVStore with several contexts (e.g. "
               "ctx=[mx.cpu(0), mx.cpu(1)]) or kvstore= a KVStore you created; "
               "compression_params={'type': '2bit', 'threshold': 0.5} adds "
               "compressed_bytes",
    'metric': "your loop logs them: rec.log('loss', loss.mean()) or "
              "rec.log_metric(loss=..., accuracy=...)",
}


def _rows_of(recorder, event, plot):
    """The recorder's rows of ``event``; a ValueError saying what records them if none."""
    if not hasattr(recorder, 'rows'):
        raise TypeError("%s() takes a gluonedu.instrument.Recorder, got %s"
                        % (plot, type(recorder).__name__))
    rows = [r for r in recorder.rows if r.event == event]
    if not rows:
        raise ValueError("%s() needs %r rows and this Recorder has none: %s."
                         % (plot, event, _PRODUCED_BY[event]))
    return rows


def _names_of(rows):
    return ', '.join(sorted({repr(r.name) for r in rows}))


def _by_param(rows, name, params, plot):
    """``{label: (steps, values)}`` of the rows named ``name``, one entry per (param, ctx).

    Order: ``params`` if given, else the order parameters were first recorded in.
    The label is the parameter's name, plus ``' @ context'`` where a parameter was
    recorded on several contexts.
    """
    chosen = [r for r in rows if r.name == name]
    if not chosen:
        raise ValueError("%s(): no %r rows named %r; recorded names: %s"
                         % (plot, rows[0].event, name, _names_of(rows)))
    series = collections.OrderedDict()
    for r in chosen:
        series.setdefault((r.param, r.context), []).append((r.step, r.value))
    recorded = list(dict.fromkeys(param for param, _ in series))
    if params is not None:
        params = [params] if isinstance(params, str) else list(params)
        missing = [p for p in params if p not in recorded]
        if missing:
            raise ValueError("%s(): no %r rows for %s; recorded parameters: %s"
                             % (plot, name, ', '.join(map(repr, missing)),
                                ', '.join(map(repr, recorded))))
        order = params
    else:
        order = recorded
    contexts = collections.Counter(param for param, _ in series)
    out = collections.OrderedDict()
    for param in order:
        for (p, ctx), points in series.items():
            if p == param:
                label = str(p) if contexts[p] == 1 else '%s @ %s' % (p, ctx)
                steps, values = zip(*points)
                out[label] = (np.array(steps, dtype=np.int64),
                              np.array(values, dtype=np.float64))
    return out


def _nonfinite_steps(recorder):
    """The steps at which a gradient held NaN/Inf: the recorder's ``nonfinite`` rows
    (the optimizer saw them) and ``overflow`` rows (AMP skipped the step), sorted."""
    return sorted({r.step for r in recorder.rows if r.event in ('nonfinite', 'overflow')})


def _mark_nonfinite(axes, recorder, legend):
    """A red dashed line on every Axes at each step with NaN/Inf gradients (one legend
    entry, 'NaN/Inf gradient'); the values there are missing from the log-scale lines."""
    steps = _nonfinite_steps(recorder)
    for axis in axes:
        for i, step in enumerate(steps):
            axis.axvline(step, color='tab:red', ls='--', lw=1.0, alpha=0.8, gid='nonfinite',
                         label='NaN/Inf gradient' if i == 0 else None)
        if steps and legend:
            _legend(axis, legend, len(axis.get_legend_handles_labels()[0]))


def _stacked_axes(count, ax, figsize, plot):
    """One Axes per quantity, stacked and sharing the step axis (``ax`` only for one)."""
    if ax is not None:
        if count != 1:
            raise ValueError("%s(ax=...) draws one quantity; it was asked for %d (leave "
                             "ax=None to get one Axes per quantity)" % (plot, count))
        return ax.figure, [ax]
    if figsize is None:
        figsize = (7.0, 2.2 + 2.3 * count)
    fig, axes = _subplots(count, 1, figsize=figsize, sharex=True, squeeze=False)
    return fig, list(axes[:, 0])


def _legend(ax, legend, count):
    if legend and count:
        ax.legend(loc='best', fontsize='small', framealpha=0.8,
                  ncol=1 if count <= 6 else 2)


def _base_schedule(recorder, lr_series):
    """``(label, steps, values)`` of the schedule the per-parameter lrs multiply.

    From the scheduler's own ``schedule`` rows if recorded; else from the Recorder's
    Trainer (a parameter's lr divided by its ``lr_mult``); else the lr series that most
    parameters share (those with lr_mult 1, usually).
    """
    schedule = [r for r in recorder.rows if r.event == 'schedule' and r.name == 'lr']
    if schedule:
        return ('schedule', np.array([r.step for r in schedule], dtype=np.int64),
                np.array([r.value for r in schedule], dtype=np.float64))
    trainer = getattr(recorder, 'trainer', None)
    for param in getattr(trainer, 'params', None) or ():
        if param.name in lr_series and param.lr_mult:
            steps, values = lr_series[param.name]
            return 'schedule (lr / lr_mult)', steps, values / param.lr_mult
    groups = collections.OrderedDict()
    for label, (steps, values) in lr_series.items():
        groups.setdefault((tuple(steps), tuple(values)), []).append(label)
    (steps, values), _ = max(groups.items(), key=lambda item: len(item[1]))
    return 'schedule', np.array(steps, dtype=np.int64), np.array(values, dtype=np.float64)


def _lr_mult(steps, values, base_steps, base_values):
    """The median ratio of ``values`` to the base schedule over the steps both share."""
    base = dict(zip(base_steps.tolist(), base_values.tolist()))
    ratios = [v / base[s] for s, v in zip(steps.tolist(), values.tolist())
              if base.get(s, 0.0) != 0.0]
    return float(np.median(ratios)) if ratios else float('nan')


def plot_lr(recorder, params=None, ax=None, figsize=(7.0, 4.0), title=None, legend=True):
    """The effective learning rate of each parameter over the steps; returns the Figure.

    What the optimizer really used: ``lr = schedule(num_update) × lr_mult`` (the ``lr``
    rows of a :class:`~gluonedu.instrument.Recorder`). One line per parameter
    (``ax.lines`` after the schedule line, ``gid`` = the parameter), labelled with its
    lr_mult relative to the base schedule, ``'dense0_weight (lr_mult 2)'``; the base
    schedule is the wide, pale line underneath (``gid='schedule'``), so lr_mult 1
    parameters lie on it and the others are multiples of it. On a Recorder given a
    Trainer, the schedule is a parameter's lr divided by its ``lr_mult``; without one,
    it is the lr series most parameters share. Where a parameter lives on several
    contexts, its first context's rows are drawn (the lrs are the same on all).

    params : str or list of str, optional -- the parameters to draw (default: all).
    """
    rows = _rows_of(recorder, 'lr', 'plot_lr')
    first_ctx = {}
    for r in rows:
        first_ctx.setdefault(r.param, r.context)
    rows = [r for r in rows if r.context == first_ctx[r.param]]
    series = _by_param(rows, 'lr', params, 'plot_lr')
    everything = series if params is None else _by_param(rows, 'lr', None, 'plot_lr')
    base_label, base_steps, base_values = _base_schedule(recorder, everything)

    fig, ax = _axes(ax, figsize)
    (base,) = ax.plot(base_steps, base_values, '-', color='0.6', lw=6, alpha=0.45,
                      label=base_label, zorder=1)
    base.set_gid('schedule')
    for label, (steps, values) in series.items():
        mult = _lr_mult(steps, values, base_steps, base_values)
        (line,) = ax.plot(steps, values, '-', lw=1.4, zorder=2,
                          label='%s (lr_mult %.3g)' % (label, mult))
        line.set_gid(label)
    ax.set_xlabel('step')
    ax.set_ylabel('effective lr')
    ax.set_title('learning rate per parameter' if title is None else title)
    _legend(ax, legend, len(series) + 1)
    return fig


def _norm_rows(recorder, name, plot):
    """The rows holding norm ``name``: ``norm`` rows for weight/grad/update, else states."""
    event = 'norm' if name in ('weight', 'grad', 'update') else 'state_norm'
    rows = _rows_of(recorder, event, plot)
    if not any(r.name == name for r in rows):
        hint = ("Recorder(trainer, norms=True) or a norms= list that includes %r" % name)
        raise ValueError("%s(): no %r rows named %r; recorded: %s. %s."
                         % (plot, event, name, _names_of(rows), hint))
    return rows


def plot_norms(recorder, which=('weight', 'grad'), params=None, ax=None, figsize=None,
               title=None, legend=True):
    """L2 norms per parameter over the steps, log scale; returns the Figure.

    The rows exist only if the Recorder asked for them:
    ``Recorder(trainer, norms=True)`` (or ``norms=[...]`` naming the quantities).

    Parameters
    ----------
    recorder : Recorder
    which : str or sequence of str, default ('weight', 'grad')
        The quantities: ``'weight'``, ``'grad'``, ``'update'`` (the ``norm`` rows) or
        the optimizer's state names, e.g. ``'mean'``/``'var'`` for Adam or
        ``'momentum'`` (the ``state_norm`` rows). One Axes per quantity, stacked and
        sharing the step axis, in this order (``fig.axes``), each on a log y scale
        with one line per parameter (``gid`` = the parameter).
    params : str or list of str, optional
        The parameters to draw (default: all).
    ax : matplotlib Axes, optional
        Only when ``which`` names one quantity.
    """
    which = (which,) if isinstance(which, str) else tuple(which)
    if not which:
        raise ValueError("plot_norms(which=...) needs at least one quantity, e.g. 'grad'")
    data = []
    for name in which:
        rows = _norm_rows(recorder, name, 'plot_norms')
        data.append((name, _by_param(rows, name, params, 'plot_norms')))
    fig, axes = _stacked_axes(len(which), ax, figsize, 'plot_norms')
    for axis, (name, series) in zip(axes, data):
        for label, (steps, values) in series.items():
            (line,) = axis.plot(steps, values, '-', lw=1.3, label=label)
            line.set_gid(label)
        axis.set_yscale('log')
        kind = 'norm' if name in ('weight', 'grad', 'update') else 'state norm'
        axis.set_ylabel('||%s||' % name)
        axis.set_title('%s: %s' % (kind, name), fontsize='medium')
        _legend(axis, legend, len(series))
    _mark_nonfinite(axes, recorder, legend)
    axes[-1].set_xlabel('step')
    if title is not None:
        fig.suptitle(title)
    return fig


def plot_update_ratio(recorder, params=None, ax=None, reference=1e-3, figsize=(7.0, 4.0),
                      title=None, legend=True):
    """``||update|| / ||weight||`` per parameter over the steps, log scale; the Figure.

    How far each step moves a parameter relative to its size, ``||w_t - w_{t-1}|| /
    ||w_t||`` (the weight norm after the update), from the ``norm`` rows named
    ``update`` and ``weight`` recorded at the same step (a zero weight gives a gap).
    One line per parameter (``gid`` = the parameter). ``reference`` draws a dashed
    horizontal line (``gid='reference'``; None: none) -- around 1e-3 is a common rule
    of thumb: far above, training may be unstable; far below, that layer barely learns.

    Needs ``Recorder(trainer, norms=True)`` (or ``norms=['update', 'weight']``).
    """
    _norm_rows(recorder, 'weight', 'plot_update_ratio')
    rows = _norm_rows(recorder, 'update', 'plot_update_ratio')
    updates = _by_param(rows, 'update', params, 'plot_update_ratio')
    weights = _by_param(rows, 'weight', params, 'plot_update_ratio')
    fig, ax = _axes(ax, figsize)
    for label, (steps, values) in updates.items():
        if label not in weights:
            continue
        weight = dict(zip(*(a.tolist() for a in weights[label])))
        denominators = np.array([weight.get(s, np.nan) for s in steps.tolist()])
        with np.errstate(divide='ignore', invalid='ignore'):
            ratio = np.where(denominators > 0, values / denominators, np.nan)
        (line,) = ax.plot(steps, ratio, '-', lw=1.3, label=label)
        line.set_gid(label)
    if reference is not None:
        guide = ax.axhline(reference, color='0.4', ls='--', lw=1,
                           label='%g (rule of thumb)' % reference)
        guide.set_gid('reference')
    ax.set_yscale('log')
    ax.set_xlabel('step')
    ax.set_ylabel('||update|| / ||weight||')
    ax.set_title('update / weight ratio per parameter' if title is None else title)
    _legend(ax, legend, len(updates) + (reference is not None))
    return fig


#: Marker style of each stale-gradient outcome.
_STALE_STYLE = {
    'raised': dict(marker='x', color='tab:red', s=60, linewidths=2),
    'skipped': dict(marker='o', facecolors='none', edgecolors='tab:gray', s=45,
                    linewidths=1.4),
}


def plot_stale_events(recorder, ax=None, figsize=None, title=None, legend=True):
    """A timeline of stale-gradient events: step against (parameter, context); the Figure.

    One row of the timeline per (parameter, context) that had a stale gradient
    (sorted; the y tick labels read ``'param @ context'``), one marker per event:
    ``raised`` (the step raised UserWarning) as red crosses, ``skipped``
    (``ignore_stale_grad=True`` left that copy alone) as hollow grey circles. Each
    outcome is one scatter collection in ``ax.collections`` with ``gid`` ``'raised'``
    or ``'skipped'``; its offsets are the (step, row) of the events.
    """
    rows = _rows_of(recorder, 'stale_grad', 'plot_stale_events')
    lanes = sorted({(r.param or '', r.context or '') for r in rows})
    lane_of = {lane: i for i, lane in enumerate(lanes)}
    if figsize is None:
        figsize = (7.0, 1.6 + 0.45 * len(lanes))
    fig, ax = _axes(ax, figsize)
    counts = collections.Counter(r.name for r in rows)
    for outcome in sorted(counts, key=lambda n: (n not in _STALE_STYLE, n)):
        chosen = [r for r in rows if r.name == outcome]
        style = _STALE_STYLE.get(outcome, dict(marker='s', s=40))
        points = ax.scatter([r.step for r in chosen],
                            [lane_of[r.param or '', r.context or ''] for r in chosen],
                            label='%s (%d)' % (outcome, len(chosen)), zorder=3, **style)
        points.set_gid(outcome)
    ax.set_yticks(range(len(lanes)))
    ax.set_yticklabels(['%s @ %s' % lane if lane[1] else lane[0] for lane in lanes])
    ax.set_ylim(-0.6, len(lanes) - 0.4)
    ax.invert_yaxis()                     # the first lane on top
    ax.grid(axis='x', alpha=0.3)
    ax.set_xlabel('step')
    ax.set_title(('stale gradients: ' + ', '.join('%d %s' % (counts[n], n)
                                                   for n in sorted(counts)))
                 if title is None else title)
    _legend(ax, legend, len(counts))
    return fig


def plot_kv_traffic(recorder, ax=None, total=False, log=False, figsize=None, title=None,
                    legend=True):
    """Bytes each KVStore key pushed, dense against compressed, as grouped bars; the Figure.

    From the ``kv_push`` rows: per key (a parameter's name when the Recorder was given
    the Trainer), the ``bytes`` one device would send uncompressed and, with gradient
    compression, the ``compressed_bytes`` it did send. ``total=False`` (default) draws
    the mean per push, ``total=True`` the sum over the recorded pushes. The bars are
    ``ax.containers``: one BarContainer labelled ``'dense'`` (``get_label()``; each of
    its bars has that ``gid``) and, with compression, one labelled ``'compressed'``, in
    the keys' order (the x tick labels); ``log=True`` puts bytes on a log scale.

    Needs a KVStore: a Trainer over several contexts (or given a KVStore) recorded with
    ``Recorder(trainer)``; compression comes from
    ``Trainer(..., compression_params={'type': '2bit', 'threshold': 0.5})``.
    """
    rows = _rows_of(recorder, 'kv_push', 'plot_kv_traffic')
    keys = list(dict.fromkeys(r.param for r in rows))
    measures = [m for m in ('bytes', 'compressed_bytes') if any(r.name == m for r in rows)]
    if 'bytes' not in measures:
        raise ValueError("plot_kv_traffic(): the kv_push rows have no 'bytes'; recorded: %s"
                         % _names_of(rows))
    reduce = np.sum if total else np.mean
    heights = {m: [float(reduce([r.value for r in rows if r.param == k and r.name == m]
                                or [0.0])) for k in keys] for m in measures}
    if figsize is None:
        figsize = (max(5.0, 1.0 + 0.9 * len(keys)), 4.0)
    fig, ax = _axes(ax, figsize)
    width = 0.8 / len(measures)
    x = np.arange(len(keys))
    labels = {'bytes': 'dense', 'compressed_bytes': 'compressed'}
    for i, measure in enumerate(measures):
        ax.bar(x + (i - (len(measures) - 1) / 2) * width, heights[measure], width,
               label=labels[measure], color=('tab:blue', 'tab:orange')[i], gid=labels[measure])
    ax.set_xticks(x)
    ax.set_xticklabels([str(k) for k in keys], rotation=30 if len(keys) > 3 else 0,
                       ha='right' if len(keys) > 3 else 'center', fontsize='small')
    if log:
        ax.set_yscale('log')
    ax.set_ylabel('bytes %s' % ('in total' if total else 'per push'))
    ax.set_title('KVStore push traffic per key' if title is None else title)
    _legend(ax, legend, len(measures))
    return fig


def plot_loss(recorder, names=('loss',), ax=None, log=False, figsize=None, title=None):
    """The metric rows a training loop logged, against the step; returns the Figure.

    Parameters
    ----------
    recorder : Recorder
    names : str or sequence of str, default ('loss',)
        The metrics (``rec.log('loss', ...)``, ``rec.log_metric(accuracy=...)``); one
        Axes per metric, stacked, each with one line (``gid`` = the metric) whose data
        are the metric's rows in the order they were logged.
    log : bool, default False
        A log y scale.
    ax : matplotlib Axes, optional
        Only for one metric.
    """
    names = (names,) if isinstance(names, str) else tuple(names)
    if not names:
        raise ValueError("plot_loss(names=...) needs at least one metric name, e.g. 'loss'")
    rows = _rows_of(recorder, 'metric', 'plot_loss')
    data = []
    for name in names:
        chosen = [r for r in rows if r.name == name]
        if not chosen:
            raise ValueError("plot_loss(): no metric rows named %r; recorded metrics: %s. "
                             "Log it in your loop: rec.log(%r, value)"
                             % (name, _names_of(rows), name))
        data.append((name, np.array([r.step for r in chosen], dtype=np.int64),
                     np.array([r.value for r in chosen], dtype=np.float64)))
    fig, axes = _stacked_axes(len(names), ax, figsize, 'plot_loss')
    for axis, (name, steps, values) in zip(axes, data):
        (line,) = axis.plot(steps, values, '-', lw=1.3, label=name)
        line.set_gid(name)
        if log:
            axis.set_yscale('log')
        axis.set_ylabel(name)
    _mark_nonfinite(axes, recorder, legend=True)
    axes[-1].set_xlabel('step')
    if title is not None:
        axes[0].set_title(title)
    elif len(names) == 1:
        axes[0].set_title(names[0])
    return fig


def plot_lr_find(recorder, suggested_lr=None, ax=None, figsize=(6.5, 3.5), title=None):
    """An lr range test: the loss against the learning rate (log scale); returns the Figure.

    Reads the metric rows ``lr``, ``loss`` and ``smoothed_loss`` that
    :func:`gluonedu.contrib.lr_find` logs (one of each per step): the raw loss is drawn
    faint (``gid`` 'loss'), the smoothed loss bold (``gid`` 'smoothed_loss'), and
    ``suggested_lr``, if given, as a dotted vertical line (``gid`` 'suggested_lr').
    """
    rows = _rows_of(recorder, 'metric', 'plot_lr_find')
    own_figure = ax is None
    series = {}
    for name in ('lr', 'loss', 'smoothed_loss'):
        values = [r.value for r in rows if r.name == name]
        if not values:
            raise ValueError("plot_lr_find(): no metric rows named %r (recorded: %s); it plots "
                             "the table gluonedu.contrib.lr_find returns" % (name, _names_of(rows)))
        series[name] = np.array(values, dtype=np.float64)
    fig, ax = _axes(ax, figsize)
    (raw,) = ax.plot(series['lr'], series['loss'], '-', color='C0', alpha=0.35, lw=1,
                     label='loss')
    raw.set_gid('loss')
    (smooth,) = ax.plot(series['lr'], series['smoothed_loss'], '-', color='C0', lw=2,
                        label='smoothed loss')
    smooth.set_gid('smoothed_loss')
    if suggested_lr is not None:
        mark = ax.axvline(suggested_lr, color='C3', ls=':', lw=1.5,
                          label='suggested lr %.3g' % suggested_lr)
        mark.set_gid('suggested_lr')
    ax.set_xscale('log')
    finite = series['smoothed_loss'][np.isfinite(series['smoothed_loss'])]
    if finite.size > 1 and finite[0] > finite.min():
        # From a little below the lowest loss to a little above the first: the divergence
        # at the end would otherwise squash the part that matters.
        span = finite[0] - finite.min()
        ax.set_ylim(finite.min() - 0.1 * span, finite[0] + 0.5 * span)
    ax.set_xlabel('learning rate (log scale)')
    ax.set_ylabel('loss')
    ax.set_title(title if title is not None else 'lr range test')
    ax.legend(loc='best', fontsize='small')
    if own_figure:
        fig.tight_layout()
    return fig
