"""``mx.nd.linalg``: MXNet's batched linear algebra (``nd.linalg.gemm2``, ...).

Each function is the table's ``_linalg_<name>`` operator (``nd.linalg_<name>`` is the same
one); :mod:`.ops.linalg_blas`, :mod:`.ops.linalg_lapack` and :mod:`.ops.linalg_layout`
declare them.
"""
from . import registry

__all__ = ['det', 'extractdiag', 'extracttrian', 'gelqf', 'gemm', 'gemm2', 'inverse',
           'makediag', 'maketrian', 'potrf', 'potri', 'slogdet', 'sumlogdiag', 'syevd',
           'syrk', 'trmm', 'trsm']

globals().update({name: registry.make_function(registry.get('_linalg_' + name), name)
                  for name in __all__})
