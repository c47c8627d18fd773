"""MomentumExplorer and convergence_rate: the plain methods, and the controls calling them."""
import html
import math

import matplotlib

matplotlib.use('Agg')

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from gluonedu.viz import Quadratic, run_optimizer  # noqa: E402
from gluonedu.widgets import MomentumExplorer, convergence_rate  # noqa: E402

PNG_MAGIC = b'\x89PNG\r\n\x1a\n'


# ------------------------------------------------------------------ convergence_rate

def _iteration_matrix_rate(lr, beta, lam, nesterov):
    """Spectral radius of the 2 x 2 map (e_t, e_{t-1}) -> (e_{t+1}, e_t), from its matrix."""
    if nesterov:
        top = [(1 + beta) * (1 - lr * lam), -beta * (1 - lr * lam)]
    else:
        top = [1 + beta - lr * lam, -beta]
    return np.abs(np.linalg.eigvals(np.array([top, [1.0, 0.0]]))).max()


@pytest.mark.parametrize('nesterov', [False, True])
def test_rate_is_the_spectral_radius_of_the_iteration_matrix(nesterov):
    rng = np.random.default_rng(0)
    for lr, beta, lam in zip(rng.uniform(0, 0.2, 200), rng.uniform(0, 0.99, 200),
                             rng.uniform(0.5, 40, 200)):
        assert convergence_rate(lr, beta, lam, nesterov) == pytest.approx(
            _iteration_matrix_rate(lr, beta, lam, nesterov), rel=1e-9, abs=1e-12)


def test_rate_without_momentum_is_plain_gradient_descent():
    for lr_lam in (0.1, 0.5, 1.0, 1.5, 1.99, 2.5):
        assert convergence_rate(lr_lam, 0.0, 1.0) == pytest.approx(abs(1 - lr_lam))
        assert convergence_rate(lr_lam, 0.0, 1.0, nesterov=True) == pytest.approx(
            abs(1 - lr_lam))


def test_stability_boundaries():
    """Heavy ball: stable iff lr·λ < 2(1+β); Nesterov: iff lr·λ < 2(1+β)/(1+2β)."""
    for beta in (0.0, 0.3, 0.6, 0.9, 0.99):
        edge = 2 * (1 + beta)
        assert convergence_rate(edge * 0.999, beta, 1.0) < 1 < convergence_rate(
            edge * 1.001, beta, 1.0)
        edge = 2 * (1 + beta) / (1 + 2 * beta)
        assert convergence_rate(edge * 0.999, beta, 1.0, True) < 1 < convergence_rate(
            edge * 1.001, beta, 1.0, True)
    # Complex roots (the damped, oscillating regime): the modulus is √β for the heavy ball.
    assert convergence_rate(0.5, 0.81, 1.0) == pytest.approx(0.9)


def test_optimal_heavy_ball_matches_polyaks_closed_form():
    mu, L = 1.0, 100.0
    kappa = L / mu
    lr = 4 / (math.sqrt(L) + math.sqrt(mu)) ** 2
    beta = ((math.sqrt(kappa) - 1) / (math.sqrt(kappa) + 1)) ** 2
    best = (math.sqrt(kappa) - 1) / (math.sqrt(kappa) + 1)
    worst = max(convergence_rate(lr, beta, lam) for lam in np.linspace(mu, L, 101))
    assert worst == pytest.approx(best, rel=1e-6)
    # No (lr, β) on a grid does better on both extreme curvatures.
    lrs, betas = np.meshgrid(np.linspace(0.001, 0.06, 120), np.linspace(0, 0.99, 100))
    grid = np.maximum(convergence_rate(lrs, betas, mu), convergence_rate(lrs, betas, L))
    assert grid.shape == (100, 120) and grid.min() >= best - 1e-9


# ------------------------------------------------------------------ the explorer

def test_explorer_runs_the_real_optimizer_and_splits_the_error_by_eigendirection():
    ex = MomentumExplorer(condition=25, angle=30, learning_rate=0.05, momentum=0.5, steps=80)
    land = Quadratic(25, 30)
    expected = run_optimizer(land, 'sgd', 80, dtype='float64', learning_rate=0.05,
                             momentum=0.5)
    np.testing.assert_array_equal(ex.path, expected)
    np.testing.assert_allclose(ex.eigenvalues, [1.0, 25.0])
    errors = ex.errors()
    assert errors.shape == (81, 2)
    # The two components recombine into the distance to the minimum.
    np.testing.assert_allclose(np.hypot(errors[:, 0], errors[:, 1]),
                               np.hypot(ex.path[:, 0], ex.path[:, 1]), rtol=1e-12)
    # Each component shrinks at its predicted rate: log-slope over the second half.
    rates = ex.rates()
    for k in range(2):
        slope = np.polyfit(np.arange(40, 81), np.log(errors[40:, k]), 1)[0]
        assert slope == pytest.approx(np.log(rates[k]), rel=0.05)
    assert rates[0] == pytest.approx(convergence_rate(0.05, 0.5, 1.0))
    assert rates[1] == pytest.approx(math.sqrt(0.5))        # complex roots: |z| = √β


def test_summary_is_deterministic_and_says_which_method():
    ex = MomentumExplorer(condition=25, learning_rate=0.05, momentum=0.5, steps=80)
    assert ex.summary() == (
        'heavy ball (sgd, lr=0.05, momentum=0.5) on quadratic (κ=25, 30°): 80 steps\n'
        'λ=1: rate 0.885 per step, error 2.9 -> 0.0002\n'
        'λ=25: rate 0.707 per step, error 4 -> 1.7e-12')
    assert repr(ex) == ('<MomentumExplorer: heavy ball (sgd, lr=0.05, momentum=0.5) on '
                        'quadratic (κ=25, 30°), 80 steps>')
    assert ex.set(momentum=0.0).summary().startswith('GD (sgd, lr=0.05, momentum=0)')
    ex.set(nesterov=True, momentum=0.5)
    assert ex.optimizer == 'nag' and ex.summary().startswith('Nesterov (nag, lr=0.05')
    np.testing.assert_array_equal(
        ex.path, run_optimizer(Quadratic(25, 30), 'nag', 80, dtype='float64',
                               learning_rate=0.05, momentum=0.5))


def test_an_unstable_setting_says_why():
    ex = MomentumExplorer(condition=25, learning_rate=0.2, momentum=0.9, steps=40)
    assert ex.summary() == (
        'heavy ball (sgd, lr=0.2, momentum=0.9) on quadratic (κ=25, 30°): 40 steps\n'
        'λ=1: rate 0.949 per step\n'
        'λ=25: rate 2.78 per step - unstable: lr·λ = 5 >= 3.8\n'
        'diverges: the error grows like 2.78^t')
    assert ex.set(steps=800).diverged_at is not None          # float64 overflows late
    assert ex.summary().endswith('the weight overflowed at step %d' % ex.diverged_at)
    assert ex.png().startswith(PNG_MAGIC)                      # the finite part is drawn
    ex.set(nesterov=True, momentum=0.5, steps=40, learning_rate=0.08)
    assert 'unstable: lr·λ = 2 >= 1.5' in ex.summary()        # 2(1+β)/(1+2β) = 1.5


def test_set_refuses_bad_values_and_changes_nothing():
    ex = MomentumExplorer(steps=30)
    path, summary = ex.path.copy(), ex.summary()
    for bad, match in [(dict(momentum=1.0), r'momentum must be in \[0, 1\)'),
                       (dict(momentum=-0.1), r'momentum must be in \[0, 1\)'),
                       (dict(learning_rate=0.0), 'learning_rate must be > 0'),
                       (dict(learning_rate=float('nan')), 'learning_rate must be a finite'),
                       (dict(condition=0.5), 'condition must be >= 1'),
                       (dict(steps=0), 'steps must be a positive integer'),
                       (dict(steps=2.5), 'steps must be a positive integer'),
                       (dict(momentum=0.9, gamma=0.1), 'no setting gamma')]:
        with pytest.raises(ValueError, match=match):
            ex.set(**bad)
        assert ex.summary() == summary and np.array_equal(ex.path, path)
    with pytest.raises(ValueError, match='momentum must be in'):
        MomentumExplorer(momentum=1.5)


def test_figure_shows_the_path_and_each_eigendirection():
    ex = MomentumExplorer(condition=10, learning_rate=0.1, momentum=0.3, steps=50)
    fig = ex.figure()
    left, right = fig.axes
    assert len(left.lines) == 1
    np.testing.assert_array_equal(left.lines[0].get_xdata(), ex.path[:, 0])
    assert right.get_yscale() == 'log' and len(right.lines) == 4
    measured, predicted = right.lines[0], right.lines[1]
    np.testing.assert_allclose(measured.get_ydata(), ex.errors()[:, 0])
    np.testing.assert_allclose(predicted.get_ydata(),
                               ex.errors()[0, 0] * ex.rates()[0] ** np.arange(51))
    assert ex.png().startswith(PNG_MAGIC)


def test_a_slider_callback_is_the_plain_set_call():
    ex = MomentumExplorer(condition=25, learning_rate=0.05, momentum=0.5, steps=60)
    view = ex.widget
    image, summary_box = ex._image, ex._summary_html
    first_png = image.value
    controls = ex._controls
    assert set(controls) == {'learning_rate', 'momentum', 'nesterov', 'condition', 'steps'}
    controls['momentum'].value = 0.51                    # what the arrow key sends
    twin = MomentumExplorer(condition=25, learning_rate=0.05, momentum=0.51, steps=60)
    assert ex.settings['momentum'] == 0.51 and ex.summary() == twin.summary()
    assert twin.summary() in html.unescape(summary_box.value)
    assert image.value != first_png and image.value == twin.png()
    # A log slider's value is rounded to 3 significant digits before the run.
    controls['learning_rate'].value = 10 ** (math.log10(0.05) + 0.05)
    assert ex.settings['learning_rate'] == 0.0561
    controls['condition'].value = 10 ** 2
    assert ex.settings['condition'] == 100 and ex.eigenvalues[1] == pytest.approx(100)
    controls['nesterov'].value = True
    assert ex.optimizer == 'nag'
    controls['steps'].value = 120
    assert ex.path.shape == (121, 2)
    # Redrawn in place; a value from Python beyond a slider's range widens it.
    assert ex.widget is view and ex._image is image
    ex.set(momentum=0.995)
    assert controls['momentum'].value == 0.995 and controls['momentum'].max >= 0.995
    bundle = ex._repr_mimebundle_()
    assert bundle['text/plain'].startswith(repr(ex))
