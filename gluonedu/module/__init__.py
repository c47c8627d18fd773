"""MXNet 1.x's symbolic training interface (``mx.mod``, ``mx.module``).

A :class:`Module` trains a :class:`~gluonedu.symbol.Symbol` whose variables are split
into data, labels and parameters: ``bind`` allocates the arrays for given input shapes,
``init_params`` and ``init_optimizer`` prepare training, and ``forward``/``backward``/
``update`` run one step — or ``fit`` runs the whole loop over a data iterator.
"""
from .base_module import BaseModule, BatchEndParam
from .module import Module

__all__ = ['BaseModule', 'BatchEndParam', 'Module']
