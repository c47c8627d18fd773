"""The ``mx.nd`` operators, generated from the operator table (:mod:`..registry`).

Each family module declares its operators in the table; this package makes one function
per public name and alias (``nd.sum``, ``nd.sum_axis``, ``nd.FullyConnected``, ...) and
adds the Python-level helpers MXNet has beside them: ``add``, ``maximum``, ``equal``, ...
pick a ``broadcast_*`` or ``*_scalar`` operator by their operands' types. Names starting
with ``_`` (``_plus_scalar``, ``_zeros``) live in :mod:`gluonedu.ndarray._internal`.
"""
from .. import registry
from . import (assign, binary, coordinates, elemwise, im2col, indexing, init,  # noqa: F401
               linalg, linalg_blas, linalg_lapack, linalg_layout, nn, pdf, reduce, sampling,
               sequence, shape, sorting, statistics)
from .. import nn_ops  # noqa: F401 (Convolution, Pooling, BatchNorm, ... register too)
from . import amp, ctc, regression_output  # noqa: F401 (mixed precision, CTCLoss, outputs)
from .binary import *  # noqa: F401,F403 (the Python-level arithmetic helpers)
from .functions import *  # noqa: F401,F403 (eye, linspace, concatenate, histogram, ...)
from . import functions


def _operator_functions(public):
    functions = {}
    for op in registry.list_ops():
        for name in (op.name,) + op.aliases:
            if name.startswith('_') != public:
                functions[name] = registry.make_function(op, name)
    return functions


_FUNCTIONS = _operator_functions(public=True)
globals().update(_FUNCTIONS)

__all__ = sorted(set(_FUNCTIONS) | set(binary.__all__) | set(functions.__all__))
