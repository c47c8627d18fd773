"""``gluonedu.viz``: plots of the training machinery, 2-D loss landscapes, and pictures of
symbolic graphs (``plot_network``, ``print_summary``, as MXNet's ``mx.viz``).

Matplotlib is imported only when a plot is drawn; the training core never imports viz.
"""
from .landscapes import (Landscape, Quadratic, Rosenbrock, Rastrigin, Beale, Himmelblau,
                         Saddle, Noisy, LANDSCAPES, run_optimizer)
from .plots import (plot_trajectories, plot_losses, contour_levels, plot_lr, plot_norms,
                    plot_update_ratio, plot_stale_events, plot_kv_traffic, plot_loss,
                    plot_lr_find)
from .network import plot_network, print_summary, network_graph
from .style import STYLE, use_style

__all__ = ['Landscape', 'Quadratic', 'Rosenbrock', 'Rastrigin', 'Beale', 'Himmelblau',
           'Saddle', 'Noisy', 'LANDSCAPES', 'run_optimizer', 'plot_trajectories', 'plot_losses',
           'contour_levels', 'plot_lr', 'plot_norms', 'plot_update_ratio',
           'plot_stale_events', 'plot_kv_traffic', 'plot_loss', 'plot_lr_find',
           'plot_network', 'print_summary', 'network_graph', 'STYLE', 'use_style']
