"""``mx.gluon.data.vision``: image datasets read from local files, and image transforms.

See :mod:`.datasets` for where each dataset's files must be (nothing is downloaded) and
:mod:`.transforms` for the transforms.
"""
from .datasets import *  # noqa: F401,F403
from .datasets import __all__ as _datasets_all
from . import transforms

__all__ = list(_datasets_all) + ['transforms']
