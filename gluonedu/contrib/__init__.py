"""``mx.contrib``: MXNet's contributed extras that gluonedu provides (``amp``), and
gluonedu's own training tools (``lr_find``, the learning-rate range test)."""
from . import amp
from .lr_finder import lr_find, LRFinderResult

__all__ = ['amp', 'lr_find', 'LRFinderResult']
