"""gluonedu.viz: the 2-D landscapes, run_optimizer and plot_trajectories."""
import matplotlib

matplotlib.use('Agg')

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.contour import ContourSet  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

import gluonedu as mx  # noqa: E402
from gluonedu import autograd, nd  # noqa: E402
from gluonedu import viz  # noqa: E402
from gluonedu.viz import landscapes as L  # noqa: E402

ALL = [L.Quadratic(condition=10), L.Quadratic(condition=50, angle=30), L.Rosenbrock(),
       L.Rastrigin(), L.Beale(), L.Himmelblau(), L.Saddle(), L.Saddle(quartic=0.1)]
IDS = [repr(land) for land in ALL]


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close('all')


def _points(landscape, n=25, seed=0):
    """Random points inside the landscape's plotting window."""
    rng = np.random.default_rng(seed)
    (x0, x1), (y0, y1) = landscape.bounds
    return rng.uniform(x0, x1, n), rng.uniform(y0, y1, n)


def test_registry_lists_every_landscape():
    assert set(L.LANDSCAPES) == {'quadratic', 'rosenbrock', 'rastrigin', 'beale',
                                 'himmelblau', 'saddle'}
    for cls in L.LANDSCAPES.values():
        land = cls()
        assert isinstance(land, L.Landscape)
        assert isinstance(land.name, str) and land.name
        (x0, x1), (y0, y1) = land.bounds
        assert x0 < land.start[0] < x1 and y0 < land.start[1] < y1
        for mx_, my_ in land.minima:
            assert x0 <= mx_ <= x1 and y0 <= my_ <= y1


@pytest.mark.parametrize('land', ALL, ids=IDS)
def test_minima_have_zero_gradient_and_the_lowest_value(land):
    assert land.minima.ndim == 2 and land.minima.shape[1] == 2 and len(land.minima) >= 1
    values = [float(land(x, y)) for x, y in land.minima]
    assert np.allclose(values, land.min_value, atol=1e-12)
    for x, y in land.minima:
        gx, gy = land.gradient(x, y)
        assert abs(gx) < 1e-9 and abs(gy) < 1e-9
    # No point of the window is lower than the known minimum.
    Z = land.grid(301)[2]
    assert Z.min() >= land.min_value - 1e-9


@pytest.mark.parametrize('cls, value', [(L.Quadratic, 0.0), (L.Rosenbrock, 0.0),
                                        (L.Rastrigin, 0.0), (L.Beale, 0.0),
                                        (L.Himmelblau, 0.0), (L.Saddle, -1.0)])
def test_known_minimum_values(cls, value):
    assert cls().min_value == pytest.approx(value, abs=1e-12)


def test_pure_saddle_has_no_minimum_but_a_stationary_origin():
    land = L.Saddle(quartic=0)
    assert len(land.minima) == 0 and np.isnan(land.min_value)
    assert land.gradient(0.0, 0.0) == (0.0, 0.0)
    assert land(1.0, 0.0) > 0 > land(0.0, 1.0)
    with pytest.raises(ValueError):
        land.distance_to_minimum((0, 0))


@pytest.mark.parametrize('land', ALL, ids=IDS)
def test_ndarray_loss_equals_the_numpy_function(land):
    xs, ys = _points(land)
    expected = land(xs, ys)
    for x, y, e in zip(xs, ys, expected):
        w = nd.array([x, y], dtype='float64')
        got = land.loss(w)
        assert isinstance(got, nd.NDArray) and got.shape == (1,)
        assert got.asscalar() == pytest.approx(e, rel=1e-10, abs=1e-10)
        got32 = land.loss(nd.array([x, y])).asscalar()       # float32, MXNet's default
        assert got32 == pytest.approx(e, rel=1e-4, abs=1e-3)


@pytest.mark.parametrize('land', ALL, ids=IDS)
def test_autograd_gradient_equals_the_analytic_one(land):
    xs, ys = _points(land, seed=1)
    for x, y in zip(xs, ys):
        w = nd.array([x, y], dtype='float64')
        w.attach_grad()
        with autograd.record():
            loss = land.loss(w)
        loss.backward()
        gx, gy = land.gradient(x, y)
        np.testing.assert_allclose(w.grad.asnumpy(), [gx, gy], rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize('land', ALL, ids=IDS)
def test_gradient_matches_finite_differences(land):
    xs, ys = _points(land, seed=2)
    h = 1e-6
    gx, gy = land.gradient(xs, ys)
    fdx = (land(xs + h, ys) - land(xs - h, ys)) / (2 * h)
    fdy = (land(xs, ys + h) - land(xs, ys - h)) / (2 * h)
    np.testing.assert_allclose(gx, fdx, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(gy, fdy, rtol=1e-5, atol=1e-4)


def test_numpy_call_broadcasts_for_contours():
    land = L.Beale()
    X, Y, Z = land.grid(50)
    assert X.shape == Y.shape == Z.shape == (50, 50)
    assert land(np.zeros((3, 1)), np.zeros((1, 4))).shape == (3, 4)


def test_loss_rejects_a_wrong_shape():
    with pytest.raises(ValueError, match=r'shape \(2,\)'):
        L.Rosenbrock().loss(nd.zeros((3,)))


def test_quadratic_condition_number_and_rotation():
    land = L.Quadratic(condition=25, angle=30)
    # Hessian by differentiating the analytic gradient: eigenvalues 1 and 25.
    h = 1e-5
    H = np.array([[(a - b) / (2 * h) for a, b in zip(land.gradient(h, 0.0),
                                                     land.gradient(-h, 0.0))],
                  [(a - b) / (2 * h) for a, b in zip(land.gradient(0.0, h),
                                                     land.gradient(0.0, -h))]])
    np.testing.assert_allclose(np.linalg.eigvalsh(H), [1.0, 25.0], rtol=1e-6)
    np.testing.assert_allclose(land.hessian, H, rtol=1e-6, atol=1e-6)
    # f = ½ wᵀ H w, and the eigenvector of κ is the bowl's steep axis, 30° from y.
    w = np.array([0.3, -1.7])
    assert land(*w) == pytest.approx(0.5 * w @ land.hessian @ w, rel=1e-12)
    lam, Q = np.linalg.eigh(land.hessian)
    np.testing.assert_allclose(np.abs(Q[:, 1]), [np.sin(np.radians(30)), np.cos(np.radians(30))])
    with pytest.raises(ValueError):
        L.Quadratic(condition=0.5)


def test_distance_to_minimum_uses_the_nearest():
    land = L.Himmelblau()
    assert land.distance_to_minimum((3.0, 2.0)) == 0.0
    assert land.distance_to_minimum((3.0, 2.5)) == pytest.approx(0.5)


# ---------------------------------------------------------------- Noisy
def test_noisy_keeps_the_wrapped_landscape_and_says_how_noisy():
    base = L.Quadratic(condition=10, angle=20)
    noisy = L.Noisy(base, noise=2.0, batch_size=16)
    assert noisy.gradient_std == 0.5                      # 2 / √16
    xs, ys = _points(base)
    np.testing.assert_array_equal(noisy(xs, ys), base(xs, ys))
    for got, want in zip(noisy.gradient(xs, ys), base.gradient(xs, ys)):
        np.testing.assert_array_equal(got, want)
    assert (noisy.bounds, noisy.start, noisy.log_levels) == (base.bounds, base.start,
                                                            base.log_levels)
    np.testing.assert_array_equal(noisy.minima, base.minima)
    assert noisy.min_value == 0.0 and noisy.distance_to_minimum((3.0, 4.0)) == 5.0
    assert repr(noisy) == 'Noisy(Quadratic(condition=10, angle=20), noise=2, batch_size=16)'
    assert noisy.name == 'quadratic (κ=10, 20°), noise 2, batch 16'


def test_noisy_autograd_gradient_is_unbiased_with_variance_noise2_over_batch():
    base = L.Rosenbrock()
    noisy = L.Noisy(base, noise=3.0, batch_size=4)        # std 1.5 per coordinate
    point = (0.5, -0.25)
    w = nd.array(point, dtype='float64')
    w.attach_grad()
    mx.random.seed(0)
    draws = []
    for _ in range(4000):
        with autograd.record():
            loss = noisy.loss(w)
        loss.backward()
        draws.append(w.grad.asnumpy().copy())
    assert loss.shape == (1,)
    draws = np.array(draws)
    noise = draws - np.array(base.gradient(*point))
    # Mean within 5 standard errors of 0; std within 5 % of 1.5; coordinates uncorrelated.
    assert np.all(np.abs(noise.mean(axis=0)) < 5 * 1.5 / np.sqrt(len(noise)))
    np.testing.assert_allclose(noise.std(axis=0), [1.5, 1.5], rtol=0.05)
    assert abs(np.corrcoef(noise.T)[0, 1]) < 0.1
    # The loss's value is f plus a zero-mean term of std 1.5·|w|: its expectation is f.
    values = [noisy.loss(w).asscalar() for _ in range(2000)]
    assert np.mean(values) == pytest.approx(base(*point),
                                            abs=5 * 1.5 * np.hypot(*point) / np.sqrt(2000))


def test_noisy_runs_repeat_with_a_seed_and_zero_noise_is_the_plain_run():
    base = L.Quadratic(condition=10)
    noisy = L.Noisy(base, noise=1.0, batch_size=8)
    a = viz.run_optimizer(noisy, 'sgd', steps=50, seed=3, learning_rate=0.05)
    b = viz.run_optimizer(noisy, 'sgd', steps=50, seed=3, learning_rate=0.05)
    c = viz.run_optimizer(noisy, 'sgd', steps=50, seed=4, learning_rate=0.05)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    plain = viz.run_optimizer(base, 'sgd', steps=50, learning_rate=0.05)
    silent = viz.run_optimizer(L.Noisy(base, noise=0.0), 'sgd', steps=50, seed=3,
                               learning_rate=0.05)
    np.testing.assert_array_equal(silent, plain)
    # The noisy run wanders around the plain one by about lr x std per step.
    assert 0 < np.abs(a - plain).max() < 1.0


def test_stochastic_gradient_draws_one_noise_per_point():
    noisy = L.Noisy(L.Quadratic(condition=4), noise=1.0, batch_size=25)   # std 0.2
    x, y = np.full(20000, 1.0), np.full(20000, -2.0)
    gx, gy = noisy.stochastic_gradient(x, y, np.random.default_rng(0))
    assert gx.shape == gy.shape == (20000,)
    tx, ty = noisy.gradient(1.0, -2.0)
    np.testing.assert_allclose([gx.mean(), gy.mean()], [tx, ty], atol=5 * 0.2 / np.sqrt(20000))
    np.testing.assert_allclose([gx.std(), gy.std()], [0.2, 0.2], rtol=0.03)
    again = noisy.stochastic_gradient(x, y, np.random.default_rng(0))
    np.testing.assert_array_equal(again[0], gx)
    # Broadcasting: a column of x against a row of y gives a grid of independent draws.
    grid = noisy.stochastic_gradient(np.zeros((3, 1)), np.zeros((1, 4)),
                                     np.random.default_rng(1))
    assert grid[0].shape == (3, 4) and len(np.unique(grid[0])) == 12


def test_constant_lr_sgd_settles_at_the_predicted_noise_floor():
    """Stationary E[f] = Σᵢ lr·s² / (2 (2 - lr·λᵢ)): SGD with gradient noise s on a bowl.

    Many independent chains, each one weight column, updated by the real SGD optimizer.
    """
    noisy = L.Noisy(L.Quadratic(condition=5, angle=30), noise=2.0, batch_size=4)   # s = 1
    lam = np.linalg.eigvalsh(noisy.landscape.hessian)
    rng = np.random.default_rng(0)
    for lr in (0.05, 0.2):
        updater = mx.optimizer.get_updater(mx.optimizer.create('sgd', learning_rate=lr))
        w = nd.zeros((2, 4000), dtype='float64')
        values = []
        for t in range(400):
            x, y = w.asnumpy()
            updater(0, nd.array(np.stack(noisy.stochastic_gradient(x, y, rng)),
                                dtype='float64'), w)
            if t >= 200:
                values.append(noisy(*w.asnumpy()).mean())
        predicted = np.sum(lr * noisy.gradient_std ** 2 / (2 * (2 - lr * lam)))
        assert np.mean(values) == pytest.approx(predicted, rel=0.05)


def test_noisy_rejects_bad_input():
    with pytest.raises(TypeError, match='wraps a Landscape'):
        L.Noisy('quadratic')
    for bad in (-1.0, float('nan'), float('inf'), '1', True):
        with pytest.raises(ValueError, match='noise must be a finite number >= 0'):
            L.Noisy(L.Quadratic(), noise=bad)
    for bad in (0, -3, 2.5, True, None):
        with pytest.raises(ValueError, match='batch_size must be a positive integer'):
            L.Noisy(L.Quadratic(), batch_size=bad)
    with pytest.raises(ValueError, match=r'shape \(2,\)'):
        L.Noisy(L.Quadratic()).loss(nd.zeros((3,)))


# ---------------------------------------------------------------- run_optimizer
def test_sgd_on_the_quadratic_converges():
    land = L.Quadratic(condition=10)
    path = viz.run_optimizer(land, 'sgd', steps=200, learning_rate=0.1)
    assert path.shape == (201, 2)
    np.testing.assert_array_equal(path[0], np.float32(land.start))
    assert land.distance_to_minimum(path[-1]) < 1e-4
    values = land(path[:, 0], path[:, 1])
    assert (np.diff(values) <= 1e-7).all()          # plain GD on a bowl never goes up


def test_run_optimizer_matches_a_hand_written_sgd_momentum_loop():
    land = L.Rosenbrock()
    lr, mom = 2.0 ** -10, 0.875         # exact in float32 too: no rounding of hyperparameters
    path = viz.run_optimizer(land, 'sgd', steps=30, learning_rate=lr, momentum=mom,
                             dtype='float64')
    w = np.array(land.start, dtype=np.float64)
    v = np.zeros(2)
    for t in range(1, 31):
        g = np.array(land.gradient(*w))
        v = mom * v - lr * g
        w = w + v
        np.testing.assert_allclose(path[t], w, rtol=1e-12, atol=1e-12)


def test_run_optimizer_accepts_an_instance_and_a_start():
    opt = mx.optimizer.create('adam', learning_rate=0.1)
    path = viz.run_optimizer(L.Beale(), opt, steps=5, start=(1.0, 1.0))
    np.testing.assert_array_equal(path[0], [1.0, 1.0])
    assert path.shape == (6, 2) and np.isfinite(path).all()
    assert opt.num_update == 5
    with pytest.raises(TypeError):
        viz.run_optimizer(L.Beale(), opt, steps=5, learning_rate=0.1)
    with pytest.raises(TypeError):
        viz.run_optimizer(L.Beale(), object(), steps=5)
    with pytest.raises(ValueError):
        viz.run_optimizer(L.Beale(), 'no-such-optimizer', steps=5)


def test_run_optimizer_fills_nan_after_divergence():
    land = L.Quadratic(condition=10)
    path = viz.run_optimizer(land, 'sgd', steps=500, learning_rate=0.5)   # lr > 2/κ
    assert path.shape == (501, 2)
    assert np.isnan(path[-1]).all() and np.isfinite(path[0]).all()


def test_run_optimizer_with_seed_repeats_sgld():
    land = L.Rastrigin()
    a = viz.run_optimizer(land, 'sgld', steps=20, seed=7, learning_rate=1e-3)
    b = viz.run_optimizer(land, 'sgld', steps=20, seed=7, learning_rate=1e-3)
    c = viz.run_optimizer(land, 'sgld', steps=20, seed=8, learning_rate=1e-3)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


# ---------------------------------------------------------------- plots
def test_plot_trajectories_draws_contours_and_one_line_per_optimizer():
    land = L.Rosenbrock()
    paths = {name: viz.run_optimizer(land, name, steps=40, learning_rate=lr)
             for name, lr in [('sgd', 1e-3), ('adam', 0.05), ('rmsprop', 0.01)]}
    fig = viz.plot_trajectories(land, paths)
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    assert any(isinstance(c, ContourSet) for c in ax.collections)
    assert len(ax.lines) == 3
    for line, (name, path) in zip(ax.lines, paths.items()):
        assert line.get_label() == name
        np.testing.assert_array_equal(np.asarray(line.get_xdata()), path[:, 0])
        np.testing.assert_array_equal(np.asarray(line.get_ydata()), path[:, 1])
    legend = ax.get_legend()
    assert [t.get_text() for t in legend.get_texts()] == list(paths)
    assert ax.get_xlim() == land.bounds[0] and ax.get_ylim() == land.bounds[1]
    # End markers: a scatter point at each path's last position, in the path's colour.
    offsets = [c.get_offsets() for c in ax.collections if not isinstance(c, ContourSet)]
    ends = [tuple(np.asarray(o)[0]) for o in offsets if len(o) == 1]
    for path in paths.values():
        assert tuple(path[-1]) in ends
    fig.canvas.draw()                                  # renders under Agg


def test_plot_trajectories_uses_log_levels_and_an_existing_axes():
    land = L.Quadratic(condition=10)
    fig, ax = plt.subplots()
    out = viz.plot_trajectories(land, [viz.run_optimizer(land, 'sgd', 10, learning_rate=0.1)],
                                ax=ax, levels=12)
    assert out is fig and len(ax.lines) == 1 and ax.lines[0].get_label() == 'path 0'
    contour = next(c for c in ax.collections if isinstance(c, ContourSet))
    levels = np.asarray(contour.levels)
    assert len(levels) == 12
    ratios = np.diff(np.log(levels - land.min_value))
    np.testing.assert_allclose(ratios, ratios[0])     # evenly spaced in log(f - f_min)
    explicit = viz.plot_trajectories(land, {}, levels=[1, 5, 20])
    contour = next(c for c in explicit.axes[0].collections if isinstance(c, ContourSet))
    np.testing.assert_array_equal(contour.levels, [1, 5, 20])


def test_plot_trajectories_rejects_a_wrong_shape_and_survives_nan():
    land = L.Quadratic()
    with pytest.raises(ValueError, match='shape'):
        viz.plot_trajectories(land, {'bad': np.zeros((5, 3))})
    diverged = viz.run_optimizer(land, 'sgd', steps=300, learning_rate=0.5)
    fig = viz.plot_trajectories(land, {'diverged': diverged})
    fig.canvas.draw()
    assert len(fig.axes[0].lines) == 1


def test_plot_losses_one_line_per_path():
    land = L.Beale()
    paths = {'a': viz.run_optimizer(land, 'adam', 20, learning_rate=0.05),
             'b': viz.run_optimizer(land, 'sgd', 20, learning_rate=1e-3)}
    fig = viz.plot_losses(land, paths)
    ax = fig.axes[0]
    assert ax.get_yscale() == 'log' and len(ax.lines) == 2
    np.testing.assert_allclose(ax.lines[0].get_ydata(),
                               np.maximum(land(paths['a'][:, 0], paths['a'][:, 1]), 1e-16))
