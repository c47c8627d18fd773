"""``mx.gluon.nn``: neural network layers and the containers that stack them."""
from ..block import *  # noqa: F401,F403  (Block, HybridBlock, SymbolBlock, as MXNet)
from .basic_layers import *  # noqa: F401,F403
from .activations import *  # noqa: F401,F403
from .conv_layers import *  # noqa: F401,F403
from .norm_layers import *  # noqa: F401,F403
