"""MXNet's internal operators (``mx.nd._internal``): the table's names that start with ``_``,
such as ``_plus_scalar`` or ``_rminus_scalar``, which ``+``, ``-`` and friends call."""
from .ops import _operator_functions

globals().update(_operator_functions(public=False))
