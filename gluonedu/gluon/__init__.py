"""``mx.gluon``: Parameters, Blocks, layers, losses, data loading and utilities."""
from .parameter import (Parameter, Constant, ParameterDict, DeferredInitializationError,
                        tensor_types)
from .block import Block, HybridBlock, SymbolBlock
from . import nn
from . import rnn
from . import loss, utils, data
from . import contrib, model_zoo
from .utils import split_data, split_and_load, clip_global_norm
from .trainer import Trainer
