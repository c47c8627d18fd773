"""``mx.gluon.contrib``: MXNet's contributed Gluon layers that gluonedu provides."""
from . import nn

__all__ = ['nn']
