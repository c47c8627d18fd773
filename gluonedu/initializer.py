"""Weight initializers (``mx.init`` / ``mx.initializer``), with MXNet's registry.

An initializer is called with a description (an :class:`InitDesc`: the parameter's
name plus attributes) and the array to fill. Given a plain name, it dispatches on the
suffix as MXNet does: ``*weight`` -> ``_init_weight``, ``*bias`` -> zeros, ``*gamma`` ->
ones, ``*beta`` -> zeros, and so on. When the description carries an ``'__init__'``
attribute (a Parameter's own initializer), that initializer's ``_init_weight`` fills
the array whatever the name.

Initializers are registered by lower-cased class name, so ``create('xavier')``,
``create('zeros')`` and ``Parameter(..., init='normal')`` work.
"""
import json
import logging

import numpy as np

from .ndarray import NDArray, load
from .ndarray import random as _random

__all__ = ['InitDesc', 'Initializer', 'register', 'alias', 'create', 'Uniform', 'Normal',
           'Xavier', 'MSRAPrelu', 'Zero', 'One', 'Constant', 'Orthogonal', 'Mixed',
           'Bilinear', 'LSTMBias', 'Load', 'load', 'UnknownInitializerError',
           'NotAnInitializerError']

_REGISTRY = {}


class UnknownInitializerError(ValueError, AssertionError):
    """An initializer name that is not registered.

    A ValueError, and an AssertionError too because MXNet's registry asserts here.
    """


class NotAnInitializerError(TypeError, AssertionError):
    """An ``init`` that is neither an Initializer nor a name (MXNet's registry asserts)."""


class InitDesc(str):
    """A parameter's name, carrying ``attrs`` (e.g. ``{'__init__': init}``) for initializers."""

    def __new__(cls, name, attrs=None, global_init=None):
        desc = super().__new__(cls, name)
        desc.attrs = attrs or {}
        desc.global_init = global_init
        return desc


def register(klass):
    """Class decorator: register an Initializer under its lower-cased class name."""
    if not (isinstance(klass, type) and issubclass(klass, Initializer)):
        raise TypeError("register() expects an Initializer subclass, got %r" % (klass,))
    _REGISTRY[klass.__name__.lower()] = klass
    return klass


def alias(*aliases):
    """Class decorator: also register the Initializer under each of ``aliases``."""
    def decorate(klass):
        for name in aliases:
            _REGISTRY[name.lower()] = klass
        return klass
    return decorate


def create(init, **kwargs):
    """An Initializer from an instance (returned as is), a name, or a ``dumps()`` string."""
    if isinstance(init, Initializer):
        if kwargs:
            raise ValueError("create(): keyword arguments cannot apply to an existing "
                             "Initializer instance")
        return init
    if init is None:
        return None
    if not isinstance(init, str):
        raise NotAnInitializerError("init must be an Initializer or its name, got %r (a Load "
                                    "is called on arrays itself)" % (init,))
    if init.startswith('['):
        name, params = json.loads(init)
        return create(name, **params)
    klass = _REGISTRY.get(init.lower())
    if klass is None:
        raise UnknownInitializerError(
            "unknown initializer %r: use an Initializer instance, or one of the registered "
            "names %s (register your own with @mx.init.register)"
            % (init, ', '.join(sorted(_REGISTRY))))
    return klass(**kwargs)


class Initializer:
    """Base class: subclasses implement ``_init_weight(name, arr)`` and register."""

    def __init__(self, **kwargs):
        self._kwargs = kwargs
        self._verbose = False
        self._print_func = None

    def set_verbosity(self, verbose=False, print_func=None):
        """Print a statistic of every array initialized (``print_func(arr)``, default norm)."""
        self._verbose = verbose
        self._print_func = print_func or (lambda x: str((x.norm() / np.sqrt(x.size))
                                                        .asscalar()))
        return self

    def dumps(self):
        """A JSON string that :func:`create` turns back into this initializer."""
        return json.dumps([type(self).__name__.lower(), self._kwargs])

    def __repr__(self):
        args = ', '.join('%s=%r' % kv for kv in sorted(self._kwargs.items()))
        return '%s(%s)' % (type(self).__name__, args)

    def __eq__(self, other):
        return type(self) is type(other) and self._kwargs == other._kwargs

    __hash__ = object.__hash__

    def __call__(self, desc, arr):
        """Fill ``arr`` for the parameter described by ``desc`` (an InitDesc or name)."""
        if not isinstance(arr, NDArray):
            raise TypeError("an initializer fills an NDArray, got %s" % type(arr).__name__)
        if not isinstance(desc, InitDesc):
            desc = InitDesc(desc)
        if desc.global_init is None:
            desc.global_init = self
        own = desc.attrs.get('__init__', '')
        if own:
            create(own)._init_weight(desc, arr)
            self._verbose_print(desc, own, arr)
            return
        for suffix, method in (('weight', self._init_weight), ('bias', self._init_bias),
                               ('gamma', self._init_gamma), ('beta', self._init_beta),
                               ('min', self._init_zero), ('max', self._init_one),
                               ('moving_mean', self._init_zero),
                               ('moving_var', self._init_one),
                               ('moving_inv_var', self._init_zero),
                               ('moving_avg', self._init_zero)):
            if desc.endswith(suffix):
                method(desc, arr)
                self._verbose_print(desc, suffix, arr)
                return
        self._init_default(desc, arr)

    def _verbose_print(self, desc, init, arr):
        if self._verbose and self._print_func:
            print('Initialized %s as %s: %s' % (desc, init, self._print_func(arr)))

    def _init_zero(self, _, arr):
        arr[:] = 0.0

    def _init_one(self, _, arr):
        arr[:] = 1.0

    def _init_bias(self, _, arr):
        arr[:] = 0.0

    def _init_gamma(self, _, arr):
        arr[:] = 1.0

    def _init_beta(self, _, arr):
        arr[:] = 0.0

    def _init_weight(self, name, arr):
        raise NotImplementedError("%s must implement _init_weight" % type(self).__name__)

    def _init_default(self, name, _):
        raise ValueError(
            "Unknown initialization pattern for %r: names ending in weight, bias, gamma, beta, "
            "moving_mean, moving_var, min or max are recognised. Give the Parameter an "
            "explicit init=..., or use one of those suffixes." % (name,))


@register
@alias('zeros')
class Zero(Initializer):
    """Fill with 0."""

    def __init__(self):
        super().__init__()

    def _init_weight(self, _, arr):
        arr[:] = 0


@register
@alias('ones')
class One(Initializer):
    """Fill with 1."""

    def __init__(self):
        super().__init__()

    def _init_weight(self, _, arr):
        arr[:] = 1


@register
class Constant(Initializer):
    """Fill with ``value`` (a scalar, or an array broadcast to the parameter's shape)."""

    def __init__(self, value):
        if isinstance(value, NDArray):
            value = value.asnumpy().tolist()
        super().__init__(value=value)
        self.value = value

    def _init_weight(self, _, arr):
        arr[:] = self.value if np.isscalar(self.value) else np.asarray(self.value)


@register
class Uniform(Initializer):
    """Samples from U[-scale, scale]."""

    def __init__(self, scale=0.07):
        super().__init__(scale=scale)
        self.scale = scale

    def _init_weight(self, _, arr):
        _random.uniform(-self.scale, self.scale, out=arr)


@register
class Normal(Initializer):
    """Samples from N(0, sigma²)."""

    def __init__(self, sigma=0.01):
        super().__init__(sigma=sigma)
        self.sigma = sigma

    def _init_weight(self, _, arr):
        _random.normal(0, self.sigma, out=arr)


@register
class Xavier(Initializer):
    """Glorot/Xavier initialisation: keep activation variance steady across layers.

    With fan_in = shape[1]·receptive field and fan_out = shape[0]·receptive field,
    ``factor`` is fan_in, fan_out or their mean (``factor_type`` 'in', 'out', 'avg') and
    scale = sqrt(magnitude / factor). ``rnd_type='uniform'`` samples U[-scale, scale];
    ``'gaussian'`` samples N(0, scale²).
    """

    def __init__(self, rnd_type='uniform', factor_type='avg', magnitude=3):
        super().__init__(rnd_type=rnd_type, factor_type=factor_type, magnitude=magnitude)
        if rnd_type not in ('uniform', 'gaussian'):
            raise ValueError("Xavier rnd_type must be 'uniform' or 'gaussian', got %r"
                             % (rnd_type,))
        if factor_type not in ('avg', 'in', 'out'):
            raise ValueError("Xavier factor_type must be 'avg', 'in' or 'out', got %r"
                             % (factor_type,))
        self.rnd_type = rnd_type
        self.factor_type = factor_type
        self.magnitude = float(magnitude)

    def _init_weight(self, name, arr):
        shape = arr.shape
        if len(shape) < 2:
            raise ValueError("Xavier cannot initialise %r of shape %s: it needs an array of at "
                             "least 2 dimensions. Give this Parameter another init, e.g. "
                             "init=mx.init.Zero()." % (str(name), shape))
        receptive = float(np.prod(shape[2:])) if len(shape) > 2 else 1.0
        fan_in, fan_out = shape[1] * receptive, shape[0] * receptive
        factor = {'avg': (fan_in + fan_out) / 2.0, 'in': fan_in, 'out': fan_out}[
            self.factor_type]
        scale = np.sqrt(self.magnitude / factor)
        if self.rnd_type == 'uniform':
            _random.uniform(-scale, scale, out=arr)
        else:
            _random.normal(0, scale, out=arr)


@register
class MSRAPrelu(Xavier):
    """He/MSRA initialisation for PReLU nets: Gaussian Xavier with magnitude 2/(1+slope²)."""

    def __init__(self, factor_type='avg', slope=0.25):
        super().__init__('gaussian', factor_type, 2.0 / (1 + slope ** 2))
        self._kwargs = {'factor_type': factor_type, 'slope': slope}


@register
class Orthogonal(Initializer):
    """A (scaled) random orthogonal matrix, from the SVD of a Gaussian or uniform sample."""

    def __init__(self, scale=1.414, rand_type='uniform'):
        super().__init__(scale=scale, rand_type=rand_type)
        self.scale = scale
        self.rand_type = rand_type

    def _init_weight(self, _, arr):
        rows = arr.shape[0]
        cols = int(np.prod(arr.shape[1:]))
        draw = _random.uniform(-1, 1, shape=(rows, cols)) if self.rand_type == 'uniform' \
            else _random.normal(0, 1, shape=(rows, cols))
        u, _, v = np.linalg.svd(draw.asnumpy().astype(np.float64), full_matrices=False)
        q = u if u.shape == (rows, cols) else v
        arr[:] = (self.scale * q).reshape(arr.shape)


@register
class Mixed(Initializer):
    """Pick the initializer by the first regular expression matching the name."""

    def __init__(self, patterns, initializers):
        super().__init__()
        import re
        if len(patterns) != len(initializers):
            raise ValueError("Mixed needs one initializer per pattern")
        self.map = [(re.compile(p), create(i)) for p, i in zip(patterns, initializers)]

    def __call__(self, desc, arr):
        for pattern, init in self.map:
            if pattern.match(desc):
                init(desc, arr)
                return
        raise ValueError("no pattern of Mixed matches parameter %r; add a catch-all pattern "
                         "'.*'" % (str(desc),))


@register
class Bilinear(Initializer):
    """Bilinear interpolation weights, for a Deconvolution that upsamples.

    For a kernel ``(..., height, width)`` with ``f = ceil(width / 2)`` and ``c = (2f − 1 −
    f mod 2) / (2f)``, the entry at row ``y``, column ``x`` is ``(1 − |x/f − c|) · (1 −
    |y/f − c|)`` (Long et al., 2015, "Fully convolutional networks").
    """

    def __init__(self):
        super().__init__()

    def _init_weight(self, _, arr):
        height, width = arr.shape[2], arr.shape[3]
        f = np.ceil(width / 2.)
        c = (2 * f - 1 - f % 2) / (2. * f)
        rows = 1 - np.abs(np.arange(height) / f - c)
        cols = 1 - np.abs(np.arange(width) / f - c)
        kernel = np.outer(rows, cols).astype(np.float32)
        arr[:] = np.broadcast_to(kernel, arr.shape)


@register
class LSTMBias(Initializer):
    """Zeros, except the forget gate's biases (the second of an LSTM's four gates), which
    get ``forget_bias`` (Jozefowicz et al., 2015, recommend 1)."""

    def __init__(self, forget_bias=1.0):
        super().__init__(forget_bias=forget_bias)
        self.forget_bias = forget_bias

    def _init_weight(self, _, arr):
        arr[:] = 0.0
        hidden = int(arr.shape[0] / 4)
        arr[hidden:2 * hidden] = self.forget_bias


class Load:
    """Initialize from saved arrays: a dict ``{name: NDArray}`` or the name of a file
    :func:`load` reads into one (``arg:``/``aux:`` prefixes, as MXNet writes them, are
    dropped); a name not among them is left to ``default_init``.

    Parameters
    ----------
    param : str or dict of str to NDArray
    default_init : Initializer, optional
        For the names not loaded (an AssertionError without it).
    verbose : bool, default False
        Log each name's source.
    """

    def __init__(self, param, default_init=None, verbose=False):
        if isinstance(param, str):
            param = load(param)
        if not isinstance(param, dict):
            raise AssertionError('Load needs a dict of arrays by name (or a file saved from '
                                 'one), got %s' % type(param).__name__)
        self.param = {(name[4:] if name.startswith(('arg:', 'aux:')) else name): array
                      for name, array in param.items()}
        self.default_init = default_init
        self.verbose = verbose

    def __call__(self, name, arr):
        if name in self.param:
            if arr.shape != self.param[name].shape:
                raise AssertionError('parameter %s cannot be loaded: its shape is %s, the '
                                     'loaded array\'s %s' % (name, arr.shape,
                                                             self.param[name].shape))
            arr[:] = self.param[name]
            source = 'loading'
        else:
            if self.default_init is None:
                raise AssertionError('cannot initialize %s: it is not among the loaded '
                                     'arrays and no default_init was given' % (name,))
            self.default_init(name, arr)
            source = 'default'
        if self.verbose:
            logging.info('Initialized %s by %s', name, source)
