"""DataLoader: mini-batches from a dataset (``mx.gluon.data.DataLoader``).

One pass over a DataLoader is one epoch::

    sampler  ──▶  BatchSampler  ──▶  [dataset[i] for i in batch]  ──▶  batchify_fn  ──▶  batch
    (order)       (group, last_batch)      (read samples)              (stack into NDArrays)

gluonedu loads in the calling process only: ``num_workers > 0`` is accepted, for
MXNet code to run unchanged, but warns once and loads in-process.
"""
import warnings

import numpy as np

from ... import ndarray as nd
from ...ndarray import NDArray
from . import sampler as _sampler

__all__ = ['DataLoader']

_warned_about_workers = [False]


def default_batchify_fn(data):
    """Stack a list of samples into a batch.

    * NDArrays are stacked along a new first axis (``nd.stack``);
    * tuples are batched element by element and returned as a **list** of batches
      (as MXNet), e.g. ``[features_batch, labels_batch]``;
    * anything else (NumPy arrays, NumPy or Python scalars) goes through ``np.asarray``
      and becomes an NDArray **of the same dtype**: int64 labels stay int64, float64
      features stay float64 (convert them with ``.astype('float32')`` if needed).
    """
    if isinstance(data[0], NDArray):
        return nd.stack(*data)
    if isinstance(data[0], tuple):
        return [default_batchify_fn(list(field)) for field in zip(*data)]
    data = np.asarray(data)
    return nd.array(data, dtype=data.dtype)


class DataLoader:
    """Iterate over ``dataset`` in mini-batches.

    Parameters
    ----------
    dataset : Dataset
        Anything with ``len()`` and ``[]`` (a Dataset, a NumPy array, an NDArray).
    batch_size : int
        Samples per batch. Required unless ``batch_sampler`` is given.
    shuffle : bool, default False
        Visit the samples in a new random order every epoch (reproducible with
        ``mx.random.seed``). Not together with ``sampler``.
    sampler : Sampler, optional
        The order of the samples. Not together with ``shuffle``.
    last_batch : {'keep', 'discard', 'rollover'}, default 'keep'
        What to do with a last, incomplete batch: return it, drop it, or carry its
        samples over into the first batch of the next epoch.
    batch_sampler : Sampler, optional
        Yields whole batches of indices; then give none of ``batch_size``, ``shuffle``,
        ``sampler``, ``last_batch``.
    batchify_fn : callable, optional
        Turns a list of samples into a batch; :func:`default_batchify_fn` by default.
    num_workers : int, default 0
        Accepted for compatibility; loading always happens in this process.
    pin_memory, pin_device_id, prefetch, thread_pool, auto_reload
        Accepted for compatibility and ignored (host memory needs no pinning here and
        there are no workers to prefetch).
    timeout : int, default 120
        Must be positive (as MXNet checks); otherwise unused.
    """

    def __init__(self, dataset, batch_size=None, shuffle=False, sampler=None,
                 last_batch=None, batch_sampler=None, batchify_fn=None,
                 num_workers=0, pin_memory=False, pin_device_id=0,
                 prefetch=None, thread_pool=False, timeout=120, auto_reload=False):
        if not timeout > 0:
            raise AssertionError("timeout must be positive, got %r" % (timeout,))
        self._dataset = dataset
        if batch_sampler is None:
            if batch_size is None:
                raise ValueError("batch_size must be given unless batch_sampler is given")
            if sampler is None:
                sampler = (_sampler.RandomSampler(len(dataset)) if shuffle
                           else _sampler.SequentialSampler(len(dataset)))
            elif shuffle:
                raise ValueError("shuffle must not be given together with sampler: the "
                                 "sampler decides the order (use RandomSampler to shuffle)")
            batch_sampler = _sampler.BatchSampler(sampler, batch_size,
                                                  last_batch if last_batch else 'keep')
        elif (batch_size is not None or shuffle or sampler is not None
              or last_batch is not None):
            raise ValueError("batch_size, shuffle, sampler and last_batch must not be given "
                             "together with batch_sampler, which already makes the batches")
        self._batch_sampler = batch_sampler
        self._num_workers = max(num_workers, 0)
        if self._num_workers > 0 and not _warned_about_workers[0]:
            _warned_about_workers[0] = True
            warnings.warn("gluonedu's DataLoader loads data in the calling process; "
                          "num_workers=%d is accepted but no worker processes are started"
                          % num_workers, UserWarning, stacklevel=2)
        self._batchify_fn = default_batchify_fn if batchify_fn is None else batchify_fn

    def __iter__(self):
        for batch_indices in self._batch_sampler:
            yield self._batchify_fn([self._dataset[i] for i in batch_indices])

    def __len__(self):
        """The number of batches one epoch yields."""
        return len(self._batch_sampler)
