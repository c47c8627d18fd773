"""``mx.optimizer``: the optimizer zoo, its registry and the Updater.

Each optimizer lives in its own module whose docstring states its update rule.
"""
from .optimizer import (Optimizer, register, create, StepScalars, MultiPrecisionState,
                        state_type)
from .updater import Updater, get_updater
from ..ndarray import abs as NDabs  # noqa: N812  (MXNet exports it under this name)

__all__ = ['Optimizer', 'register', 'create', 'Updater', 'get_updater', 'NDabs',
           'StepScalars', 'MultiPrecisionState', 'state_type']
from .adam import Adam
from .adamw import AdamW
from .adamax import Adamax
from .nadam import Nadam
from .adagrad import AdaGrad
from .adadelta import AdaDelta
from .rmsprop import RMSProp
__all__ += ['Adam', 'AdamW', 'Adamax', 'Nadam', 'AdaGrad', 'AdaDelta', 'RMSProp']
from .sgd import SGD, ccSGD
from .nag import NAG
from .signum import Signum
from .sgld import SGLD
from .dcasgd import DCASGD
from .test import Test
__all__ += ['SGD', 'ccSGD', 'NAG', 'Signum', 'SGLD', 'DCASGD', 'Test']
from .ftrl import Ftrl
from .ftml import FTML
from .lars import LARS
from .lbsgd import LBSGD
from .lamb import LAMB
from . import update_ops, multi_update_ops  # noqa: F401 (declare nd.sgd_update, ...)
__all__ += ['Ftrl', 'FTML', 'LARS', 'LBSGD', 'LAMB']
# The Updater of the fast path (the Trainer's and the store's default; gluonedu only,
# so not in __all__).
from ._fused import FusedUpdater  # noqa: E402,F401
