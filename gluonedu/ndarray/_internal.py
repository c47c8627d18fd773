"""MXNet's internal operators (``mx.nd._internal``): the table's names that start with ``_``,
such as ``_plus_scalar`` or ``_rminus_scalar``, which ``+``, ``-`` and friends call."""
from .ops import _operator_functions

# MXNet keeps its NumPy-interface operators (_np_*) out of nd._internal, and its linalg ones
# (_linalg_*) are nd.linalg's.
globals().update({name: function for name, function in _operator_functions(public=False).items()
                  if not name.startswith(('_np_', '_linalg_'))})
