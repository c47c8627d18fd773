"""Matplotlib plots of what optimizers do (every function returns its Figure; Agg-safe).

* :func:`plot_trajectories` -- optimizer paths drawn over a landscape's contour lines.
* :func:`plot_losses` -- the landscape's value along each path, step by step.
* :func:`contour_levels` -- the contour levels those plots use (log-spaced where apt).

Only host-side NumPy and matplotlib here; the training core never imports this module.
"""
from collections.abc import Mapping

import numpy as np

__all__ = ['plot_trajectories', 'plot_losses', 'contour_levels']


def _pyplot():
    import matplotlib.pyplot as plt  # imported on first use: viz is optional
    return plt


def _axes(ax, figsize):
    if ax is None:
        fig, ax = _pyplot().subplots(figsize=figsize)
        return fig, ax
    return ax.figure, ax


def _named_paths(trajectories):
    """``[(label, array (n, 2)), ...]`` from a mapping, a list of pairs, or bare arrays."""
    if isinstance(trajectories, Mapping):
        items = list(trajectories.items())
    elif isinstance(trajectories, np.ndarray) and trajectories.ndim == 2:
        items = [('path', trajectories)]
    else:
        items = []
        for i, item in enumerate(trajectories):
            if isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str):
                items.append(item)
            else:
                items.append(('path %d' % i, item))
    named = []
    for label, path in items:
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
                      title=None, figsize=(6.5, 5.0), legend=True):
    """Draw ``trajectories`` over the contour lines of ``landscape``; return the Figure.

    Parameters
    ----------
    landscape : gluonedu.viz.landscapes.Landscape
    trajectories : dict label -> array (steps + 1, 2), list of (label, array), or arrays
        The paths, e.g. from :func:`~gluonedu.viz.landscapes.run_optimizer`.
    ax : matplotlib Axes, optional
        Draw into it (the Figure returned is then ``ax.figure``).
    levels : int or sequence, default 30
        A count (see :func:`contour_levels`) or explicit contour levels.
    grid : int, default 200
        Samples per axis of the contour grid over ``landscape.bounds``.

    What is drawn: the contour lines (one ``QuadContourSet``), each global minimum as a
    star, each path as one line (``ax.lines``, labelled, in the order given) with its
    start as a hollow circle and its end as a filled dot in the path's colour (both
    scatter collections, so ``ax.lines`` holds exactly the paths), and a legend.
    The view is clipped to ``landscape.bounds``: a path that leaves it diverged.
    """
    fig, ax = _axes(ax, figsize)
    named = _named_paths(trajectories)
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
    ax.set_xlabel('x')
    ax.set_ylabel('y')
    ax.set_title(landscape.name if title is None else title)
    if legend and named:
        ax.legend(loc='best', fontsize='small', framealpha=0.8)
    return fig


def plot_losses(landscape, trajectories, ax=None, log=None, figsize=(6.5, 3.5),
                title=None, legend=True):
    """The value ``landscape(x, y)`` along each path against the step; returns the Figure.

    With ``log`` (default: ``landscape.log_levels``) the y axis shows ``f - f_min`` on a
    log scale, where convergence rates read as slopes. One line per path.
    """
    fig, ax = _axes(ax, figsize)
    named = _named_paths(trajectories)
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
