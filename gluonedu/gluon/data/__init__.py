"""``mx.gluon.data``: datasets, samplers and the DataLoader.

(MXNet's ``vision`` sub-package and ``RecordFileDataset`` are not provided; the
teaching data sets live in :mod:`gluonedu.data`.)
"""
from .dataset import Dataset, SimpleDataset, ArrayDataset
from .sampler import Sampler, SequentialSampler, RandomSampler, FilterSampler, BatchSampler
from .dataloader import DataLoader

__all__ = ['Dataset', 'SimpleDataset', 'ArrayDataset', 'Sampler', 'SequentialSampler',
           'RandomSampler', 'FilterSampler', 'BatchSampler', 'DataLoader']
