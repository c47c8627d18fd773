"""MomentumExplorer: momentum on a quadratic bowl, seen along the bowl's eigendirections.

On ``f(w) = ½ wᵀ H w`` the error ``e_t = w_t − w*`` splits into its components along the
eigenvectors ``q_i`` of ``H``, and each component evolves on its own. With curvature
``λ`` (the eigenvalue), learning rate ``η`` and momentum ``β`` (MXNet's ``sgd``:
``m ← β m − η g``, ``w ← w + m``, which is Polyak's heavy ball)::

    e_{t+1} = (1 + β − ηλ) e_t − β e_{t−1}

so ``|e_t|`` shrinks like ``ρ^t``, where ``ρ`` -- the *rate* -- is the larger modulus of
the roots of ``z² − (1 + β − ηλ) z + β``. Nesterov's momentum (MXNet's ``nag``) gives
``z² − (1 + β)(1 − ηλ) z + β (1 − ηλ)``. ``β = 0`` is plain gradient descent,
``ρ = |1 − ηλ|``. :func:`convergence_rate` computes ``ρ``; the heavy ball is stable
(``ρ < 1``) exactly when ``0 < ηλ < 2 (1 + β)``.

The explorer runs the real optimizer (``sgd`` with ``momentum``, or ``nag``) on a rotated
:class:`~gluonedu.viz.landscapes.Quadratic` and shows the path beside each eigen-
component's error on a log scale, with the predicted ``ρ^t`` as dashed lines::

    ex = MomentumExplorer(condition=25, learning_rate=0.05, momentum=0.5)
    ex                                    # the widget: sliders, pictures, summary
    ex.set(momentum=0.7).summary()        # what moving the momentum slider does
"""
import numpy as np

from ..viz.landscapes import Quadratic, run_optimizer
from ._common import WidgetView, fmt, new_figure, render_png, show_value
from .playground import HyperParameter

__all__ = ['MomentumExplorer', 'convergence_rate']


def convergence_rate(learning_rate, momentum, curvature, nesterov=False):
    """ρ: the factor by which momentum shrinks the error along one eigendirection per step.

    The larger modulus of the roots of ``z² − b z + c`` with ``b = 1 + β − ηλ``,
    ``c = β`` (heavy ball) or ``b = (1 + β)(1 − ηλ)``, ``c = β (1 − ηλ)`` (Nesterov).
    NumPy arrays broadcast: ``convergence_rate(lrs[:, None], betas[None, :], 100.0)``.
    ``ρ < 1`` converges, ``ρ > 1`` diverges.
    """
    lr_curv = np.asarray(learning_rate, dtype=np.float64) * curvature
    beta = np.asarray(momentum, dtype=np.float64)
    if nesterov:
        b, c = (1 + beta) * (1 - lr_curv), beta * (1 - lr_curv)
    else:
        b, c = 1 + beta - lr_curv, beta + 0 * lr_curv
    root = np.sqrt(b * b - 4 * c + 0j)
    rate = np.maximum(np.abs((b + root) / 2), np.abs((b - root) / 2))
    return float(rate) if rate.ndim == 0 else rate


class MomentumExplorer(WidgetView):
    """Gradient descent with momentum on a 2-D quadratic bowl; sliders for η, β and κ.

    Parameters
    ----------
    condition : float, default 25
        κ: the bowl's eigenvalues are 1 and κ.
    angle : float, default 30
        Rotation of the bowl's axes, in degrees (so that both coordinates mix).
    learning_rate : float, default 0.05
    momentum : float, default 0.5
        β in ``[0, 1)``; 0 is plain gradient descent.
    nesterov : bool, default False
        Run ``nag`` instead of ``sgd``.
    steps : int, default 80
    start : (x, y), optional
        The bowl's own start by default.

    Notes
    -----
    Plain methods (what the controls call): :meth:`set`, :meth:`recompute`,
    :meth:`errors`, :meth:`rates`, :meth:`summary`, :meth:`figure`, :meth:`png`.
    After a run: ``path`` (``(steps + 1, 2)``, ``nan`` rows after a divergence),
    ``landscape`` (the :class:`Quadratic`), ``eigenvalues`` ``(1, κ)`` and
    ``eigenvectors`` (columns, in the same order).
    """
    css_name = 'momentum'
    # What set() changes, restored when it refuses.
    _STATE = ('settings', 'landscape', 'eigenvalues', 'eigenvectors', 'path')

    def __init__(self, condition=25.0, angle=30.0, learning_rate=0.05, momentum=0.5,
                 nesterov=False, steps=80, start=None, figsize=(9.6, 4.0)):
        self.angle = float(angle)
        self.start = start
        self.figsize = figsize
        self.settings = {}
        self.path = None
        self._controls = {}
        self._apply(dict(condition=condition, learning_rate=learning_rate,
                         momentum=momentum, nesterov=nesterov, steps=steps))

    # ------------------------------------------------------------------ plain logic
    @staticmethod
    def _checked(settings):
        """The settings, validated and converted; ValueError naming the bad one."""
        s = dict(settings)
        for name in ('condition', 'learning_rate', 'momentum'):
            value = s[name]
            if isinstance(value, bool) or not isinstance(value, (int, float)) or \
                    not np.isfinite(value):
                raise ValueError("%s must be a finite number, got %r" % (name, value))
            s[name] = float(value)
        if s['condition'] < 1:
            raise ValueError("condition must be >= 1, got %r" % (s['condition'],))
        if s['learning_rate'] <= 0:
            raise ValueError("learning_rate must be > 0, got %r" % (s['learning_rate'],))
        if not 0 <= s['momentum'] < 1:
            raise ValueError("momentum must be in [0, 1), got %r" % (s['momentum'],))
        steps = s['steps']
        if isinstance(steps, bool) or int(steps) != steps or steps < 1:
            raise ValueError("steps must be a positive integer, got %r" % (steps,))
        s['steps'] = int(steps)
        s['nesterov'] = bool(s['nesterov'])
        return s

    def _apply(self, changes):
        unknown = sorted(set(changes) - {'condition', 'learning_rate', 'momentum',
                                         'nesterov', 'steps'})
        if unknown:
            raise ValueError("MomentumExplorer has no setting %s; the settings are "
                             "condition, learning_rate, momentum, nesterov, steps"
                             % ', '.join(unknown))
        self.settings = self._checked(dict(self.settings, **changes))
        self.landscape = Quadratic(self.settings['condition'], self.angle)
        self.eigenvalues, self.eigenvectors = np.linalg.eigh(self.landscape.hessian)
        self.recompute()

    def set(self, **settings):
        """Change any of condition, learning_rate, momentum, nesterov, steps; rerun; return self.

        Anything refused raises ValueError and leaves the explorer as it was.
        """
        saved = {k: self.__dict__[k] for k in self._STATE}
        try:
            self._apply(settings)
        except Exception:
            self.__dict__.update(saved)
            raise
        if self._widget is not None:
            self._refresh_view()
        return self

    @property
    def optimizer(self):
        """The registered optimizer that runs, 'nag' or 'sgd'."""
        return 'nag' if self.settings['nesterov'] else 'sgd'

    def recompute(self):
        """Run the real optimizer from the start; returns the path."""
        s = self.settings
        # float64, so the errors follow ρ^t far below float32's resolution.
        self.path = run_optimizer(self.landscape, self.optimizer, s['steps'], start=self.start,
                                  dtype='float64', learning_rate=s['learning_rate'],
                                  momentum=s['momentum'])
        return self.path

    def errors(self):
        """``|qᵢ · (w_t − w*)|`` per eigenvector, shape ``(steps + 1, 2)``; columns λ=1, λ=κ."""
        return np.abs(self.path @ self.eigenvectors)      # the minimum is the origin

    def rates(self):
        """The predicted rate ρ along each eigendirection (same order as ``eigenvalues``)."""
        s = self.settings
        return np.array([convergence_rate(s['learning_rate'], s['momentum'], lam,
                                          s['nesterov']) for lam in self.eigenvalues])

    @property
    def diverged_at(self):
        """The first step whose weight is not finite, or None."""
        bad = np.flatnonzero(~np.isfinite(self.path).all(axis=1))
        return int(bad[0]) if len(bad) else None

    def describe(self):
        """The method and its settings, e.g. ``heavy ball (sgd, lr=0.05, momentum=0.5) on ...``."""
        s = self.settings
        method = 'Nesterov' if s['nesterov'] else ('heavy ball' if s['momentum'] else 'GD')
        return '%s (%s, lr=%s, momentum=%s) on %s' % (
            method, self.optimizer, fmt(s['learning_rate'], 4), fmt(s['momentum'], 4),
            self.landscape.name)

    def summary(self):
        """Deterministic lines: the run, then each eigendirection's rate and error.

        ``heavy ball (sgd, lr=0.05, momentum=0.5) on quadratic (κ=25, 30°): 80 steps``
        ``λ=1: rate 0.975 per step, error 4.9 -> 0.66``
        ``λ=25: rate 0.707 per step, error 0.25 -> 3.6e-13``

        When a direction is unstable (ρ >= 1) its line says why (``lr·λ`` against the
        bound) and a last line says how fast the error grows.

        Rates to 3 significant digits, errors to 2: stable for the float32 runs here.
        """
        s = self.settings
        lines = ['%s: %d steps' % (self.describe(), s['steps'])]
        rates = self.rates()
        stable = bool((rates < 1).all())
        errors = self.errors()
        for k, (lam, rate) in enumerate(zip(self.eigenvalues, rates)):
            line = 'λ=%s: rate %s per step' % (fmt(lam, 4), fmt(rate, 3))
            if stable:
                line += ', error %s -> %s' % (fmt(errors[0, k], 2), fmt(errors[-1, k], 2))
            elif rate >= 1:
                limit = (2 * (1 + s['momentum']) / (1 + 2 * s['momentum']) if s['nesterov']
                         else 2 * (1 + s['momentum']))
                line += ' - unstable: lr·λ = %s >= %s' % (fmt(s['learning_rate'] * lam, 3),
                                                          fmt(limit, 3))
            lines.append(line)
        if not stable:
            line = 'diverges: the error grows like %s^t' % fmt(rates.max(), 3)
            if self.diverged_at is not None:
                line += ', the weight overflowed at step %d' % self.diverged_at
            lines.append(line)
        return '\n'.join(lines)

    def __repr__(self):
        return '<MomentumExplorer: %s, %d steps>' % (self.describe(), self.settings['steps'])

    def figure(self):
        """Path over the contours (left); eigen-components' errors, log scale (right)."""
        from ..viz.plots import plot_trajectories
        fig = new_figure(self.figsize)
        left, right = fig.add_subplot(1, 2, 1), fig.add_subplot(1, 2, 2)
        plot_trajectories(self.landscape, {self.optimizer: self.path}, ax=left, grid=120,
                          title=self.landscape.name, legend=False)
        errors = self.errors()
        steps = np.arange(len(errors))
        # A diverging run is drawn up to 1e30 (past that, matplotlib's log axis overflows).
        with np.errstate(over='ignore', under='ignore'):
            for k, (lam, rate) in enumerate(zip(self.eigenvalues, self.rates())):
                color = 'C%d' % k
                right.semilogy(steps, np.clip(errors[:, k], 1e-30, 1e30), color=color, lw=1.5,
                               label='along λ=%s' % fmt(lam, 3))
                right.semilogy(steps, np.clip(errors[0, k] * rate ** steps, 1e-30, 1e30),
                               color=color, ls='--', lw=1,
                               label='ρᵗ, ρ=%s' % fmt(rate, 3))
        shown = np.clip(errors[np.isfinite(errors) & (errors > 0)], 1e-15, 1e29)
        right.set_ylim(shown.min() / 3, shown.max() * 10)
        right.set_xlabel('step')
        right.set_ylabel('|error| along the eigenvector')
        right.set_title('error per eigendirection')
        right.legend(fontsize='small', loc='lower left')
        fig.subplots_adjust(left=0.07, right=0.98, bottom=0.13, top=0.92, wspace=0.28)
        return fig

    def png(self):
        """The figure as PNG bytes (what the widget's image shows)."""
        return render_png(self.figure())

    # ------------------------------------------------------------------ the view
    def _specs(self):
        s = self.settings
        return [HyperParameter('learning_rate', s['learning_rate'], 'log', -3, 0, 0.05),
                HyperParameter('momentum', s['momentum'], 'linear', 0.0, 0.99, 0.01),
                HyperParameter('nesterov', s['nesterov'], 'bool'),
                HyperParameter('condition', s['condition'], 'log', 0, 3, 0.1),
                HyperParameter('steps', s['steps'], 'int', 10, 300, 10)]

    def _build(self):
        import ipywidgets as w
        self._specs_by_name = {}
        for spec in self._specs():
            control = spec.control()
            control.observe(self._on_change, names='value')
            self._controls[spec.name] = control
            self._specs_by_name[spec.name] = spec
        self._image = w.Image(format='png', layout=w.Layout(width='768px'))
        self._image.add_class('gluonedu-momentum-image')
        controls = w.HBox([w.VBox([self._controls['learning_rate'], self._controls['momentum'],
                                   self._controls['nesterov']]),
                           w.VBox([self._controls['condition'], self._controls['steps']])])
        return w.VBox([self._image, controls, self._summary_html])

    def _refresh_view(self):
        """Show the current state: control values (without firing them), image, summary."""
        self._syncing = True
        try:
            for name, control in self._controls.items():
                show_value(control, self.settings[name])
        finally:
            self._syncing = False
        self._image.value = self.png()
        self._show_summary()

    def _on_change(self, change):
        if getattr(self, '_syncing', False):
            return
        name = change['owner'].description
        value = self._specs_by_name[name].from_control(change['new'])
        self._guarded(lambda: self.set(**{name: value}))
