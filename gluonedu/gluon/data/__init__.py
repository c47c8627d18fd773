"""``mx.gluon.data``: datasets, samplers, the DataLoader, and ``vision`` (image datasets
read from local files, image transforms).

(MXNet's ``RecordFileDataset`` is not provided; small teaching data sets that need no
files live in :mod:`gluonedu.toy_data`, ``mx.data``.)
"""
from .dataset import Dataset, SimpleDataset, ArrayDataset
from .sampler import Sampler, SequentialSampler, RandomSampler, FilterSampler, BatchSampler
from .dataloader import DataLoader
from . import vision

__all__ = ['Dataset', 'SimpleDataset', 'ArrayDataset', 'Sampler', 'SequentialSampler',
           'RandomSampler', 'FilterSampler', 'BatchSampler', 'DataLoader', 'vision']
