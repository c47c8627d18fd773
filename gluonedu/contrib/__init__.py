"""``mx.contrib``: MXNet's contributed extras that gluonedu provides (``amp``)."""
from . import amp

__all__ = ['amp']
