"""``mx.sym``: symbolic graphs — Symbol, variables, the operators of the table, files.

Every operator of the table (:mod:`gluonedu.ndarray.registry`) exists here as it does in
``mx.nd``, with the same parameters and checks, but builds a graph node instead of
computing (``mx.sym.FullyConnected``, ``mx.sym.relu``); names that start with ``_`` live
in :mod:`gluonedu.symbol._internal`. See :mod:`.symbol` for the Symbol class.
"""
import numbers as _numbers

import numpy as _np

from .symbol import Symbol, var, Variable, Group, load, load_json
from .executor import Executor
from ..ndarray import registry as _registry
from . import register as _register
from . import _internal  # noqa: F401

_FUNCTIONS = {name: f for name, f in _register.operator_functions().items()
              if not name.startswith('_')}
globals().update(_FUNCTIONS)


def _publish(op):
    """The ``mx.sym`` functions of an operator declared after this package was made."""
    for name in (op.name,) + op.aliases:
        function = _register.operator_functions()[name] = _register.make_function(op, name)
        if name.startswith('_'):
            setattr(_internal, name, function)
        else:
            globals()[name] = _FUNCTIONS[name] = function


_registry.on_add(_publish)


def _by_types(name, scalar_name, rscalar_name, python, left, right):
    """MXNet's choice for a Python-level binary function of symbols and numbers."""
    call = _register.create
    if isinstance(left, Symbol) and isinstance(right, Symbol):
        return call(*name, (left, right), {})
    if isinstance(left, Symbol) and isinstance(right, _numbers.Number):
        return call(*scalar_name, (left,), {'scalar': right})
    if isinstance(left, _numbers.Number) and isinstance(right, Symbol):
        return call(*rscalar_name, (right,), {'scalar': left})
    if isinstance(left, _numbers.Number) and isinstance(right, _numbers.Number):
        return python(left, right)
    raise TypeError('types (%s, %s) not supported' % (str(type(left)), str(type(right))))


def pow(base, exp):  # pylint: disable=redefined-builtin
    """``base ** exp`` of symbols and/or numbers."""
    return _by_types(('_power', '_Power'), ('_power_scalar', '_PowerScalar'),
                     ('_rpower_scalar', '_RPowerScalar'), lambda a, b: a ** b, base, exp)


def power(base, exp):
    """``base ** exp`` of symbols and/or numbers (same as :func:`pow`)."""
    return pow(base, exp)


def maximum(left, right):
    """The element-wise maximum of symbols and/or numbers."""
    return _by_types(('_maximum', '_Maximum'), ('_maximum_scalar', '_MaximumScalar'),
                     ('_maximum_scalar', '_MaximumScalar'),
                     lambda a, b: a if a > b else b, left, right)


def minimum(left, right):
    """The element-wise minimum of symbols and/or numbers."""
    return _by_types(('_minimum', '_Minimum'), ('_minimum_scalar', '_MinimumScalar'),
                     ('_minimum_scalar', '_MinimumScalar'),
                     lambda a, b: a if a < b else b, left, right)


def hypot(left, right):
    """√(left² + right²) of symbols and/or numbers."""
    return _by_types(('_hypot', '_Hypot'), ('_hypot_scalar', '_HypotScalar'),
                     ('_hypot_scalar', '_HypotScalar'), _np.hypot, left, right)


def zeros(shape, dtype=None, **kwargs):
    """A symbol of zeros of ``shape`` (float32 unless ``dtype``)."""
    return _register.create('_zeros', '_zeros', (),
                            dict(shape=shape, dtype=_np.float32 if dtype is None else dtype,
                                 **kwargs))


def ones(shape, dtype=None, **kwargs):
    """A symbol of ones of ``shape`` (float32 unless ``dtype``)."""
    return _register.create('_ones', '_ones', (),
                            dict(shape=shape, dtype=_np.float32 if dtype is None else dtype,
                                 **kwargs))


def full(shape, val, dtype=None, **kwargs):
    """A symbol of ``shape`` filled with ``val``."""
    return _register.create('_full', '_full', (),
                            dict(shape=shape, value=val,
                                 dtype=_np.float32 if dtype is None else dtype, **kwargs))


def arange(start, stop=None, step=1.0, repeat=1, infer_range=False, name=None, dtype=None):
    """Evenly spaced values in [start, stop), each repeated ``repeat`` times."""
    return _register.create('_arange', '_arange', (),
                            dict(start=start, stop=stop, step=step, repeat=repeat,
                                 infer_range=infer_range, name=name,
                                 dtype=_np.float32 if dtype is None else dtype))


def linspace(start, stop, num, endpoint=True, name=None, dtype=None):
    """``num`` evenly spaced values from ``start`` to ``stop``."""
    return _register.create('_linspace', '_linspace', (),
                            dict(start=start, stop=stop, num=num, endpoint=endpoint,
                                 name=name, dtype=_np.float32 if dtype is None else dtype))


def eye(N, M=0, k=0, dtype=None, **kwargs):
    """The N×M identity-like matrix with ones on diagonal ``k``."""
    return _register.create('_eye', '_eye', (),
                            dict(N=N, M=M, k=k, dtype=_np.float32 if dtype is None else dtype,
                                 **kwargs))


__all__ = sorted(['Symbol', 'var', 'Variable', 'Group', 'load', 'load_json', 'Executor',
                  'pow', 'power', 'maximum', 'minimum', 'hypot', 'zeros', 'ones', 'full',
                  'arange', 'linspace', 'eye'] + list(_FUNCTIONS))
