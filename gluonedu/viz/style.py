"""The project's figure style: one look for every curriculum figure.

``viz.use_style()`` (a notebook's first cell calls it) sets matplotlib's rcParams so that a
figure is sharp on a laptop screen and readable when projected in class: 110 dpi (a
7.5-inch figure is 825 px wide), fonts sized for that, a light grid, and no top or right
spine. It changes rcParams only (what ``matplotlib.rcdefaults()`` undoes); importing
``gluonedu.viz`` changes nothing.
"""

__all__ = ['STYLE', 'use_style']

#: The rcParams :func:`use_style` sets.
STYLE = {
    'figure.dpi': 110,
    'figure.figsize': (7.5, 4.2),
    'savefig.dpi': 110,
    'font.size': 11,
    'axes.titlesize': 12,
    'axes.labelsize': 11,
    'legend.fontsize': 10,
    'xtick.labelsize': 10,
    'ytick.labelsize': 10,
    'lines.linewidth': 1.8,
    'axes.grid': True,
    'grid.alpha': 0.3,
    'grid.linewidth': 0.6,
    'axes.spines.top': False,
    'axes.spines.right': False,
    'legend.framealpha': 0.85,
    'image.cmap': 'viridis',
}


def use_style(rc=None):
    """Apply :data:`STYLE`, then ``rc`` (a dict of rcParams, e.g. ``{'figure.dpi': 150}``),
    to matplotlib's rcParams; return the settings applied.

    Raises KeyError for a name in ``rc`` that matplotlib does not know.
    """
    import matplotlib  # imported on first use: viz is optional
    settings = dict(STYLE)
    unknown = sorted(set(rc or {}) - set(matplotlib.rcParams))
    if unknown:
        raise KeyError('use_style: not matplotlib rcParams: %s' % ', '.join(unknown))
    settings.update(rc or {})
    matplotlib.rcParams.update(settings)
    return settings
