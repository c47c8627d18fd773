"""Two-dimensional loss landscapes, and a driver that runs a real optimizer on them.

A landscape is a function ``f(x, y)`` small enough to draw, with a known answer. Each
one here is a class whose instances carry everything a plot or a test needs:

* ``landscape(x, y)`` -- the value on NumPy arrays (any broadcastable shapes), for contours;
* ``landscape.gradient(x, y)`` -- the analytic gradient ``(df/dx, df/dy)`` on NumPy arrays;
* ``landscape.loss(w)`` -- the same function of an NDArray ``w`` of shape ``(2,)``, built from
  ``nd`` operations so that ``autograd`` differentiates it (returns shape ``(1,)``);
* ``minima`` -- the known global minima, an array of shape ``(k, 2)``, and ``min_value``;
* ``bounds`` -- a plotting window ``((x_min, x_max), (y_min, y_max))``;
* ``start`` -- a starting point that makes the landscape's difficulty visible;
* ``name`` -- a short label, and ``log_levels`` -- whether contours read best log-spaced.

Wrapped in :class:`Noisy`, a landscape is seen as stochastic gradient descent sees a
training loss: every gradient is a minibatch estimate, the true gradient plus noise whose
variance shrinks as ``1 / batch_size``.

The formula of each landscape is written once, in :meth:`Landscape.formula`, against an
array module ``xp``: ``numpy`` for ``__call__`` and ``gluonedu.ndarray`` for ``loss``, so
the NumPy values and the NDArray loss cannot drift apart.

:func:`run_optimizer` starts a weight of shape ``(2,)`` at ``start``, and for ``steps``
steps records the loss, differentiates it with ``autograd`` and hands the gradient to a
real :class:`gluonedu.optimizer.Updater` -- exactly what ``Trainer.step`` does for one
parameter. It returns the path as a NumPy array of shape ``(steps + 1, 2)``.

Usage::

    from gluonedu.viz import Rosenbrock, run_optimizer
    path = run_optimizer(Rosenbrock(), 'adam', steps=500, learning_rate=0.05)
"""
import math

import numpy as np

from .. import autograd
from .. import ndarray as nd
from .. import optimizer as opt_module
from .. import random as mx_random

__all__ = ['Landscape', 'Quadratic', 'Rosenbrock', 'Rastrigin', 'Beale', 'Himmelblau',
           'Saddle', 'Noisy', 'LANDSCAPES', 'run_optimizer']


class Landscape:
    """Base class of the 2-D test functions (see the module docstring for the contract).

    Subclasses set ``name``, ``bounds``, ``start``, ``minima``, ``log_levels`` and implement
    :meth:`formula` (the value, in terms of an array module) and :meth:`gradient`.
    """
    name = 'landscape'
    bounds = ((-1.0, 1.0), (-1.0, 1.0))
    start = (0.5, 0.5)
    minima = np.zeros((0, 2))
    log_levels = True

    def formula(self, x, y, xp):
        """``f(x, y)`` written with operators and ``xp.cos``/``xp.sin``/``xp.exp`` only."""
        raise NotImplementedError

    def gradient(self, x, y):
        """The analytic gradient ``(df/dx, df/dy)`` on NumPy arrays."""
        raise NotImplementedError

    # ------------------------------------------------------------------ evaluation
    def __call__(self, x, y):
        """The value at NumPy points ``(x, y)`` (float64, broadcast like ``x + y``)."""
        x = np.asarray(x, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        return self.formula(x, y, np)

    def loss(self, w):
        """The value at an NDArray ``w`` of shape ``(2,)``, as an NDArray of shape ``(1,)``.

        Only ``nd`` operations are used, so inside ``autograd.record()`` the result can be
        differentiated: ``loss(w).backward()`` writes ``w.grad``.
        """
        if tuple(w.shape) != (2,):
            raise ValueError("%s.loss expects a weight of shape (2,), got %s"
                             % (type(self).__name__, tuple(w.shape)))
        return self.formula(w[0], w[1], nd)

    @property
    def min_value(self):
        """The value at the global minima (``nan`` when the landscape has none)."""
        if len(self.minima) == 0:
            return float('nan')
        return float(self(self.minima[0, 0], self.minima[0, 1]))

    def distance_to_minimum(self, point):
        """Euclidean distance from ``point`` (x, y) to the nearest global minimum."""
        if len(self.minima) == 0:
            raise ValueError("%s has no global minimum" % self.name)
        point = np.asarray(point, dtype=np.float64).reshape(1, 2)
        return float(np.sqrt(((self.minima - point) ** 2).sum(axis=1)).min())

    def grid(self, n=200):
        """``(X, Y, Z)``: the landscape sampled on an ``n`` x ``n`` grid over ``bounds``."""
        (x0, x1), (y0, y1) = self.bounds
        X, Y = np.meshgrid(np.linspace(x0, x1, n), np.linspace(y0, y1, n))
        return X, Y, self(X, Y)

    def __repr__(self):
        return '%s()' % type(self).__name__


class Quadratic(Landscape):
    """``f = ½ (u² + κ v²)`` with ``(u, v)`` the point rotated by ``angle`` degrees.

    The Hessian has eigenvalues 1 and ``κ = condition``: plain gradient descent needs
    ``lr < 2/κ`` to stay stable along the steep direction ``v`` and then crawls along the
    flat one ``u`` -- the larger κ, the slower. With ``angle=0`` the axes are the
    eigenvectors (``f = ½ (x² + κ y²)``), which per-coordinate methods (AdaGrad, RMSProp,
    Adam) exploit; a rotated bowl takes that advantage away. Minimum: ``(0, 0)``, value 0.
    """
    log_levels = True
    minima = np.array([[0.0, 0.0]])

    def __init__(self, condition=10.0, angle=0.0):
        if not condition >= 1:
            raise ValueError("condition must be >= 1, got %r" % (condition,))
        self.condition = float(condition)
        self.angle = float(angle)
        rad = math.radians(self.angle)
        self._c, self._s = math.cos(rad), math.sin(rad)
        self.name = 'quadratic (κ=%g%s)' % (self.condition,
                                            ', %g°' % self.angle if self.angle else '')
        self.bounds = ((-5.0, 5.0), (-3.0, 3.0))
        self.start = (-4.5, 2.0)

    def formula(self, x, y, xp):
        u = x * self._c + y * self._s
        v = y * self._c - x * self._s
        return 0.5 * (u * u + self.condition * (v * v))

    def gradient(self, x, y):
        x = np.asarray(x, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        u = x * self._c + y * self._s
        v = y * self._c - x * self._s
        k = self.condition
        return u * self._c - k * v * self._s, u * self._s + k * v * self._c

    @property
    def hessian(self):
        """The constant Hessian H, a 2 x 2 array, of ``f(w) = ½ wᵀ H w``.

        Its eigenvalues are 1 and κ; ``np.linalg.eigh(land.hessian)`` gives them with the
        eigenvectors (the bowl's axes, ``angle`` degrees from x and y).
        """
        c, s, k = self._c, self._s, self.condition
        off = (1 - k) * c * s + 0.0             # + 0.0: no -0.0 for an unrotated bowl
        return np.array([[c * c + k * s * s, off], [off, s * s + k * c * c]])

    def __repr__(self):
        if self.angle:
            return 'Quadratic(condition=%g, angle=%g)' % (self.condition, self.angle)
        return 'Quadratic(condition=%g)' % self.condition


class Rosenbrock(Landscape):
    """``f = (a - x)² + b (y - x²)²``: a long, curved, flat-bottomed valley.

    Finding the valley is easy; following it to the minimum ``(a, a²)`` (value 0) is hard,
    because the valley floor is nearly flat while its walls are steep (``b = 100``).
    """
    log_levels = True

    def __init__(self, a=1.0, b=100.0):
        self.a, self.b = float(a), float(b)
        self.name = 'Rosenbrock'
        self.minima = np.array([[self.a, self.a ** 2]])
        self.bounds = ((-2.0, 2.0), (-1.0, 3.0))
        self.start = (-1.2, 1.0)

    def formula(self, x, y, xp):
        dx = self.a - x
        dy = y - x * x
        return dx * dx + self.b * (dy * dy)

    def gradient(self, x, y):
        x = np.asarray(x, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        dy = y - x * x
        return -2 * (self.a - x) - 4 * self.b * x * dy, 2 * self.b * dy

    def __repr__(self):
        return 'Rosenbrock(a=%g, b=%g)' % (self.a, self.b)


class Rastrigin(Landscape):
    """``f = 2A + x² - A cos 2πx + y² - A cos 2πy``: a bowl covered in local minima.

    Local minima sit near every integer point; the global one is ``(0, 0)`` (value 0).
    Gradient methods stop in whichever basin they fall into; noise (SGLD) or momentum
    can carry them across ridges.
    """
    log_levels = False

    def __init__(self, A=10.0):
        self.A = float(A)
        self.name = 'Rastrigin'
        self.minima = np.array([[0.0, 0.0]])
        self.bounds = ((-5.12, 5.12), (-5.12, 5.12))
        self.start = (3.3, -2.7)

    def formula(self, x, y, xp):
        two_pi = 2 * math.pi
        return (2 * self.A + x * x - self.A * xp.cos(two_pi * x)
                + y * y - self.A * xp.cos(two_pi * y))

    def gradient(self, x, y):
        x = np.asarray(x, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        two_pi = 2 * math.pi
        return (2 * x + self.A * two_pi * np.sin(two_pi * x),
                2 * y + self.A * two_pi * np.sin(two_pi * y))

    def __repr__(self):
        return 'Rastrigin(A=%g)' % self.A


class Beale(Landscape):
    """``f = (1.5 - x + xy)² + (2.25 - x + xy²)² + (2.625 - x + xy³)²``.

    Flat plateaus and sharp ridges: gradients differ by orders of magnitude across the
    window. Minimum ``(3, 0.5)``, value 0.
    """
    log_levels = True
    _c = (1.5, 2.25, 2.625)

    def __init__(self):
        self.name = 'Beale'
        self.minima = np.array([[3.0, 0.5]])
        self.bounds = ((-4.5, 4.5), (-4.5, 4.5))
        self.start = (1.0, 1.5)

    def formula(self, x, y, xp):
        t1 = self._c[0] - x + x * y
        t2 = self._c[1] - x + x * (y * y)
        t3 = self._c[2] - x + x * (y * y * y)
        return t1 * t1 + t2 * t2 + t3 * t3

    def gradient(self, x, y):
        x = np.asarray(x, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        gx = np.zeros(np.broadcast(x, y).shape)
        gy = np.zeros_like(gx)
        for k, c in enumerate(self._c, start=1):
            t = c - x + x * y ** k
            gx = gx + 2 * t * (y ** k - 1)
            gy = gy + 2 * t * (k * x * y ** (k - 1))
        return gx, gy


class Himmelblau(Landscape):
    """``f = (x² + y - 11)² + (x + y² - 7)²``: four global minima, all of value 0.

    Which one an optimizer reaches depends on where it starts and how it moves -- a
    picture of why initialisation matters. Also a local maximum near (-0.27, -0.92).
    """
    log_levels = True

    def __init__(self):
        self.name = 'Himmelblau'
        # Refined with Newton's method in float64.
        self.minima = np.array([[3.0, 2.0],
                                [-2.805118086952745, 3.131312518250573],
                                [-3.779310253377747, -3.2831859912861696],
                                [3.5844283403304917, -1.8481265269644034]])
        self.bounds = ((-5.0, 5.0), (-5.0, 5.0))
        self.start = (0.0, 0.0)

    def formula(self, x, y, xp):
        a = x * x + y - 11
        b = x + y * y - 7
        return a * a + b * b

    def gradient(self, x, y):
        x = np.asarray(x, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        a = x * x + y - 11
        b = x + y * y - 7
        return 4 * x * a + 2 * b, 2 * a + 4 * y * b


class Saddle(Landscape):
    """``f = x² - y² + q y⁴``: a saddle point at the origin between two valleys.

    Along ``x`` the origin is a minimum, along ``y`` a maximum. Started on (or very near)
    the ridge ``y = 0``, gradient descent slides to the saddle and lingers there, because
    the gradient vanishes; the escape is exponential but slow. The quartic term (default
    ``q = 1/4``) keeps the function bounded below: the global minima are
    ``(0, ±1/√(2q))`` with value ``-1/(4q)``. ``q = 0`` gives the pure saddle ``x² - y²``,
    which has no minimum.
    """
    log_levels = False

    def __init__(self, quartic=0.25):
        if quartic < 0:
            raise ValueError("quartic must be >= 0, got %r" % (quartic,))
        self.quartic = float(quartic)
        self.name = 'saddle'
        if self.quartic > 0:
            ym = 1.0 / math.sqrt(2 * self.quartic)
            self.minima = np.array([[0.0, ym], [0.0, -ym]])
        else:
            self.minima = np.zeros((0, 2))
        self.bounds = ((-2.5, 2.5), (-2.5, 2.5))
        self.start = (-2.0, 1e-3)

    def formula(self, x, y, xp):
        y2 = y * y
        return x * x - y2 + self.quartic * (y2 * y2)

    def gradient(self, x, y):
        x = np.asarray(x, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        return 2 * x, -2 * y + 4 * self.quartic * y ** 3

    def __repr__(self):
        return 'Saddle(quartic=%g)' % self.quartic


class Noisy(Landscape):
    """``landscape`` as SGD sees it: each gradient is the mean over a minibatch of samples.

    Every sample's gradient is the true gradient plus independent Gaussian noise of
    standard deviation ``noise`` in each coordinate; a minibatch averages ``batch_size``
    of them, so an optimizer receives::

        g = ∇f(w) + (noise / √batch_size) · ξ,      ξ ~ N(0, I)

    -- unbiased, with variance ``noise² / batch_size`` per coordinate
    (:attr:`gradient_std` is its square root).

    The noise comes in through :meth:`loss`: ``f(w) + (noise / √batch_size) · ξ·w``
    with a fresh ξ from ``mx.random`` at every call, so ``autograd`` hands the optimizer
    the noisy gradient, and ``run_optimizer(..., seed=s)`` repeats a run exactly.
    :meth:`stochastic_gradient` draws the same kind of gradient in NumPy, for many
    points at once. Everything else -- the value (the expected loss), the true
    :meth:`gradient`, ``minima``, ``bounds``, ``start``, ``log_levels`` -- is the wrapped
    landscape's.

    Parameters
    ----------
    landscape : Landscape
    noise : float, default 1.0
        Standard deviation of one sample's gradient noise, per coordinate (>= 0).
    batch_size : int, default 1
        Samples averaged into each gradient (>= 1).
    """

    def __init__(self, landscape, noise=1.0, batch_size=1):
        if not isinstance(landscape, Landscape):
            raise TypeError("Noisy wraps a Landscape (e.g. Quadratic()), got %s"
                            % type(landscape).__name__)
        if isinstance(noise, bool) or not isinstance(noise, (int, float)) or \
                not math.isfinite(noise) or noise < 0:
            raise ValueError("noise must be a finite number >= 0, got %r" % (noise,))
        if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)) \
                or batch_size < 1:
            raise ValueError("batch_size must be a positive integer, got %r" % (batch_size,))
        self.landscape = landscape
        self.noise = float(noise)
        self.batch_size = int(batch_size)
        self.name = '%s, noise %g, batch %d' % (landscape.name, self.noise, self.batch_size)
        self.bounds = landscape.bounds
        self.start = landscape.start
        self.minima = landscape.minima
        self.log_levels = landscape.log_levels

    @property
    def gradient_std(self):
        """Standard deviation of the gradient's noise per coordinate,
        ``noise / √batch_size``."""
        return self.noise / math.sqrt(self.batch_size)

    def formula(self, x, y, xp):
        return self.landscape.formula(x, y, xp)

    def gradient(self, x, y):
        """The true (expected) gradient, without noise."""
        return self.landscape.gradient(x, y)

    def loss(self, w):
        """``f(w) + gradient_std · ξ·w``, ξ ~ N(0, I) drawn from ``mx.random`` at each call.

        Its gradient is ``∇f(w) + gradient_std · ξ``; ξ is a constant to ``autograd``.
        """
        value = super().loss(w)
        if self.gradient_std == 0:
            return value
        xi = nd.random.normal(0, 1, shape=(2,), dtype=w.dtype, ctx=w.context)
        return value + self.gradient_std * (xi * w).sum()

    def stochastic_gradient(self, x, y, rng):
        """``(gx, gy)``: the true gradient at NumPy points plus independent noise from ``rng``.

        ``rng`` is a ``numpy.random.Generator``; every point gets its own draw, of standard
        deviation :attr:`gradient_std` per coordinate.
        """
        gx, gy = (np.broadcast_to(g, np.broadcast(x, y).shape) for g in self.gradient(x, y))
        return (gx + self.gradient_std * rng.standard_normal(gx.shape),
                gy + self.gradient_std * rng.standard_normal(gy.shape))

    def __repr__(self):
        return 'Noisy(%r, noise=%g, batch_size=%d)' % (self.landscape, self.noise,
                                                         self.batch_size)


#: Each landscape class, by short name (``LANDSCAPES["beale"]()`` makes one).
LANDSCAPES = {
    'quadratic': Quadratic,
    'rosenbrock': Rosenbrock,
    'rastrigin': Rastrigin,
    'beale': Beale,
    'himmelblau': Himmelblau,
    'saddle': Saddle,
}


def run_optimizer(landscape, optimizer, steps, start=None, seed=None, dtype='float32',
                  ctx=None, **hyperparameters):
    """Run a real gluonedu optimizer on ``landscape``; return the path, shape ``(steps+1, 2)``.

    Parameters
    ----------
    landscape : Landscape
    optimizer : str or Optimizer
        A registered name (then ``mx.optimizer.create(name, **hyperparameters)`` makes
        it) or an Optimizer instance (then no hyperparameters may be given; the instance's
        update counters carry on from wherever they are).
    steps : int
        Number of updates.
    start : (x, y), optional
        Where the weight starts; ``landscape.start`` by default.
    seed : int, optional
        If given, ``mx.random.seed(seed)`` first, so stochastic optimizers (SGLD) repeat.
    dtype : str, default 'float32'
        The weight's type (MXNet's default float32).
    ctx : Context, optional
        Where the weight lives (the current context by default).

    Notes
    -----
    Each step records ``landscape.loss(w)`` under ``autograd``, calls ``backward()`` and
    then ``Updater(0, w.grad, w)`` -- one parameter, index 0. Row 0 of the result is the
    start; row ``t`` is the weight after ``t`` updates. If the weight stops being finite
    (a diverging optimizer), that row and the remaining ones are ``nan`` (NumPy's
    overflow warnings are silenced for the run: the ``nan`` rows are the report).
    """
    if isinstance(optimizer, str):
        optimizer = opt_module.create(optimizer, **hyperparameters)
    elif hyperparameters:
        raise TypeError("hyperparameters %s can only be given with an optimizer name; "
                        "set them on the Optimizer instance instead" % sorted(hyperparameters))
    if not isinstance(optimizer, opt_module.Optimizer):
        raise TypeError("optimizer must be a registered name or an mx.optimizer.Optimizer, "
                        "got %s" % type(optimizer).__name__)
    steps = int(steps)
    if steps < 0:
        raise ValueError("steps must be >= 0, got %d" % steps)
    if seed is not None:
        mx_random.seed(seed)
    start = landscape.start if start is None else start
    w = nd.array(np.asarray(start, dtype=np.float64).reshape(2), ctx=ctx, dtype=dtype)
    w.attach_grad()
    updater = opt_module.get_updater(optimizer)
    path = np.full((steps + 1, 2), np.nan)
    path[0] = w.asnumpy()
    # A diverging run overflows on its way to inf; the nan rows report that, not warnings.
    with np.errstate(over='ignore', invalid='ignore'):
        for t in range(1, steps + 1):
            with autograd.record():
                loss = landscape.loss(w)
            loss.backward()
            updater(0, w.grad, w)
            point = w.asnumpy()
            path[t] = point
            if not np.isfinite(point).all():
                path[t] = np.nan
                break
    return path
