"""gluonedu: MXNet 1.x Gluon's training machinery over NumPy and CuPy, made visible.

Use it as MXNet: ``import gluonedu as mx``; ``from gluonedu import gluon, nd, autograd``.
"""
from .base import MXNetError
from .context import Context, cpu, gpu, cpu_pinned, current_context, num_gpus, gpu_memory_info
from . import util
from .util import is_np_shape, set_np_shape, np_shape, use_np_shape
from . import ndarray
from . import ndarray as nd
from . import autograd
from . import random
from . import random as rnd
from . import name
from . import attribute
from .attribute import AttrScope
from . import symbol
from . import symbol as sym
from . import initializer
from . import initializer as init
from . import lr_scheduler
from . import optimizer
from . import kvstore
from . import kvstore as kv
from . import gluon
from . import contrib
from . import metric
from . import toy_data as data   # mx.data: the seeded teaching sets (not MXNet's)
from . import image
from . import image as img
from . import io
from . import module
from . import module as mod
from . import instrument

__version__ = '0.1.0'


#: Submodules loaded on first use: viz and widgets pull in matplotlib and ipywidgets,
#: test_utils SciPy's statistics.
_LAZY_SUBMODULES = ('test_utils', 'viz', 'widgets')


def __getattr__(name):
    if name in _LAZY_SUBMODULES:
        import importlib
        return importlib.import_module('.' + name, __name__)
    raise AttributeError("module 'gluonedu' has no attribute %r" % name)


def __dir__():
    # What tab completion lists: the lazy subpackages too, loaded or not.
    return sorted(set(globals()) | set(_LAZY_SUBMODULES))
