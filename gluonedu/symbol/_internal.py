"""MXNet's internal operators for symbols (``mx.sym._internal``): the table's names that
start with ``_`` (``_plus_scalar``, ``_Plus``, ...), which symbol arithmetic uses."""
from .register import operator_functions as _operator_functions

globals().update({name: function for name, function in _operator_functions().items()
                  if name.startswith('_') and not name.startswith('_np_')})
