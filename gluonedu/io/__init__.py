"""``mx.io``: MXNet 1.x's data iterators (``NDArrayIter``, ``CSVIter``, ``LibSVMIter``,
``ResizeIter``, ``PrefetchingIter``) and the batches they yield.

They predate Gluon's ``DataLoader`` and feed MXNet's Module API and older examples; new
Gluon code usually takes ``gluon.data.DataLoader``. Not to be confused with ``mx.data``,
gluonedu's small teaching data sets.
"""
from .desc import DataDesc, DataBatch
from .base import DataIter
from .ndarray_iter import NDArrayIter
from .csv_iter import CSVIter
from .libsvm_iter import LibSVMIter
from .resize_iter import ResizeIter
from .prefetching_iter import PrefetchingIter

__all__ = ['DataDesc', 'DataBatch', 'DataIter', 'NDArrayIter', 'CSVIter', 'LibSVMIter',
           'ResizeIter', 'PrefetchingIter']
