"""``mx.gluon.contrib.nn``: Concurrent, HybridConcurrent, Identity and SyncBatchNorm."""
from .basic_layers import *  # noqa: F401,F403
from .basic_layers import __all__ as _basic_all
from .norm_layers import *  # noqa: F401,F403
from .norm_layers import __all__ as _norm_all

__all__ = _basic_all + _norm_all
