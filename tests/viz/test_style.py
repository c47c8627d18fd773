"""viz.use_style: the curriculum's figure style, and plot_trajectories' equal aspect."""
import matplotlib
import pytest

from gluonedu import viz


@pytest.fixture
def restored_rc():
    saved = dict(matplotlib.rcParams)
    yield
    matplotlib.rcParams.update(saved)


def test_use_style_sets_a_figure_wide_enough_for_a_projector(restored_rc):
    applied = viz.use_style()
    assert matplotlib.rcParams['figure.dpi'] == applied['figure.dpi'] >= 100
    width_px = matplotlib.rcParams['figure.figsize'][0] * matplotlib.rcParams['figure.dpi']
    assert width_px >= 800
    assert matplotlib.rcParams['axes.grid'] is True


def test_use_style_takes_overrides_and_refuses_unknown_names(restored_rc):
    viz.use_style({'figure.dpi': 150})
    assert matplotlib.rcParams['figure.dpi'] == 150
    before = matplotlib.rcParams['font.size']
    with pytest.raises(KeyError, match='figure.dip'):
        viz.use_style({'figure.dip': 150, 'font.size': 30})
    assert matplotlib.rcParams['font.size'] == before      # nothing applied


def test_importing_viz_changes_no_rc_param():
    import importlib
    import subprocess
    import sys
    code = ('import matplotlib; before = dict(matplotlib.rcParams); import gluonedu.viz; '
            'import sys; sys.exit(dict(matplotlib.rcParams) != before)')
    assert subprocess.run([sys.executable, '-c', code]).returncode == 0
    assert importlib.import_module('gluonedu.viz').use_style is viz.use_style


def test_plot_trajectories_draws_a_round_bowl_round():
    land = viz.Quadratic(condition=1)
    fig = viz.plot_trajectories(land, {'sgd': viz.run_optimizer(land, 'sgd', 5, learning_rate=0.1)})
    ax = fig.axes[0]
    assert ax.get_aspect() == 1.0
    fig.canvas.draw()
    box = ax.get_window_extent()
    (x0, x1), (y0, y1) = land.bounds
    assert box.width / box.height == pytest.approx((x1 - x0) / (y1 - y0), rel=0.02)
    auto = viz.plot_trajectories(land, {}, aspect='auto')
    assert auto.axes[0].get_aspect() == 'auto'
