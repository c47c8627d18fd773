"""``gluonedu.viz``: plots of the training machinery and 2-D loss landscapes.

Matplotlib is imported only when a plot is drawn; the training core never imports viz.
"""
from .landscapes import (Landscape, Quadratic, Rosenbrock, Rastrigin, Beale, Himmelblau,
                         Saddle, Noisy, LANDSCAPES, run_optimizer)
from .plots import (plot_trajectories, plot_losses, contour_levels, plot_lr, plot_norms,
                    plot_update_ratio, plot_stale_events, plot_kv_traffic, plot_loss,
                    plot_lr_find)

__all__ = ['Landscape', 'Quadratic', 'Rosenbrock', 'Rastrigin', 'Beale', 'Himmelblau',
           'Saddle', 'Noisy', 'LANDSCAPES', 'run_optimizer', 'plot_trajectories', 'plot_losses',
           'contour_levels', 'plot_lr', 'plot_norms', 'plot_update_ratio',
           'plot_stale_events', 'plot_kv_traffic', 'plot_loss', 'plot_lr_find']
