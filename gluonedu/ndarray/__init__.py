"""``mx.nd``: NDArray, its creation functions and operators, sparse arrays, save/load."""
from .ndarray import NDArray, array, empty, zeros, ones, full, arange, waitall, from_numpy
from .ops import *  # noqa: F401,F403
from .ops import __all__ as _ops_all
from . import sparse, random, linalg, registry, _internal  # noqa: F401
from .sparse import RowSparseNDArray, CSRNDArray, cast_storage
from .io import save, load, load_frombuffer

__all__ = ['NDArray', 'RowSparseNDArray', 'CSRNDArray', 'array', 'empty', 'zeros', 'ones', 'full',
           'arange', 'waitall', 'from_numpy', 'sparse', 'random', 'linalg', 'save', 'load',
           'load_frombuffer', 'cast_storage'] + list(_ops_all)


def _publish(op):
    """The ``mx.nd`` functions of an operator declared after this package was made."""
    for name in (op.name,) + op.aliases:
        function = registry.make_function(op, name)
        if name.startswith('_'):
            setattr(_internal, name, function)
        else:
            globals()[name] = function
            __all__.append(name)


registry.on_add(_publish)
