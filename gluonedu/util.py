"""NumPy shape semantics (``mx.np_shape``, ``mx.use_np_shape``, ``mx.is_np_shape``,
``mx.set_np_shape``), as MXNet 1.9.1's ``mx.util``.

MXNet 1.x marks a dimension not known yet with 0 (legacy semantics): ``Dense(16)`` has a
weight of shape ``(16, 0)`` until its first input tells it the second size. Under NumPy
shape semantics 0 means a dimension of size zero, as in NumPy, so the unknown dimension
is shown as -1 instead: ``(16, -1)``. In gluonedu the switch changes what
``Parameter.shape`` reports and what ``gluon.utils.shape_is_known`` accepts; arrays keep
their MXNet 1.x shapes.

The switch is per thread, as MXNet's: ``set_np_shape(1)`` (or True) turns it on for the
calling thread, ``set_np_shape(2)`` for every thread, ``set_np_shape(0)`` (or False) turns
the global switch and the calling thread's off. Other integers change nothing, as in
MXNet's C++ switch.
"""
import functools
import inspect
import operator
import threading

__all__ = ['set_np_shape', 'is_np_shape', 'np_shape', 'use_np_shape', 'is_np_array']

_OFF, _THREAD_ON, _GLOBAL_ON = 0, 1, 2


class _Switch(threading.local):
    on_everywhere = False  # class attribute: shared by every thread

    def __init__(self):
        self.on_here = False


_SWITCH = _Switch()


def set_np_shape(active):
    """Turn NumPy shape semantics on (True, or 1 for this thread, 2 for every thread) or
    off (False or 0); returns whether it was on before.

    Raises TypeError when ``active`` is not an integer (a bool is one).
    """
    flag = operator.index(active)
    previous = is_np_shape()
    if flag == _GLOBAL_ON:
        _Switch.on_everywhere = True
        _SWITCH.on_here = True
    elif flag == _THREAD_ON:
        _SWITCH.on_here = True
    elif flag == _OFF:
        _Switch.on_everywhere = False
        _SWITCH.on_here = False
    return previous


def is_np_shape():
    """Whether NumPy shape semantics is on in this thread (unknown dimensions are -1)."""
    return _Switch.on_everywhere or _SWITCH.on_here


def is_np_array():
    """Whether MXNet's NumPy array semantics (``mx.npx.set_np()``) is on: never here, as
    gluonedu has no ``mx.np`` arrays (docs/divergences.md); code that branches on it takes
    the NDArray path, as in MXNet by default."""
    return False


class _NumpyShapeScope:
    """Sets the switch on entry and puts the previous state back on exit; ``None`` leaves
    it as it is. Made by :func:`np_shape`."""

    def __init__(self, active):
        self._active = active
        self._previous = None

    def __enter__(self):
        if self._active is not None:
            self._previous = set_np_shape(self._active)
        return self

    def __exit__(self, *exc):
        if self._active is not None and self._previous != self._active:
            set_np_shape(self._previous)


def np_shape(active=True):
    """A ``with`` scope in which NumPy shape semantics is ``active`` (None: unchanged)::

        with mx.np_shape():
            assert mx.gluon.nn.Dense(16).weight.shape == (16, -1)
    """
    return _NumpyShapeScope(active)


def use_np_shape(func):
    """Decorate a function (or every method, static method and property of a class) to
    run under NumPy shape semantics. Raises TypeError for anything else."""
    if inspect.isclass(func):
        members = inspect.getmembers(
            func, lambda f: inspect.isfunction(f) or inspect.ismethod(f)
            or isinstance(f, property))
        for name, member in members:
            if isinstance(member, property):
                setattr(func, name, property(use_np_shape(member.__get__), member.__set__,
                                             member.__delete__, member.__doc__))
            else:
                setattr(func, name, use_np_shape(member))
        return func
    if callable(func):
        @functools.wraps(func)
        def with_np_shape(*args, **kwargs):
            with np_shape(active=True):
                return func(*args, **kwargs)
        return with_np_shape
    raise TypeError('use_np_shape decorates a function or a class, got %r of type %s'
                    % (func, type(func).__name__))
