"""Samplers: the order in which a DataLoader visits a dataset (``mx.gluon.data``).

A sampler is an iterable of dataset indices with a length. :class:`BatchSampler` groups
another sampler's indices into mini-batches and decides what happens to a last,
incomplete batch.
"""
from ...context import cpu
from ...ndarray.random import random_state

__all__ = ['Sampler', 'SequentialSampler', 'RandomSampler', 'FilterSampler', 'BatchSampler']

_LAST_BATCH_MODES = ('keep', 'discard', 'rollover')


class Sampler:
    """Base class of samplers: subclasses define ``__iter__`` and ``__len__``."""

    def __iter__(self):
        raise NotImplementedError("%s must define __iter__" % type(self).__name__)

    def __len__(self):
        raise NotImplementedError("%s must define __len__" % type(self).__name__)


class SequentialSampler(Sampler):
    """The indices ``start, start + 1, ..., start + length - 1`` in order."""

    def __init__(self, length, start=0):
        self._length = length
        self._start = start

    def __iter__(self):
        return iter(range(self._start, self._start + self._length))

    def __len__(self):
        return self._length


class RandomSampler(Sampler):
    """A fresh random permutation of ``0, ..., length - 1`` at every iteration.

    The permutation is drawn from gluonedu's generator of ``cpu(0)``, so
    ``mx.random.seed(s)`` makes the order of every epoch reproducible. (MXNet itself
    draws from NumPy's global generator, which ``mx.random.seed`` does not seed.)
    """

    def __init__(self, length):
        self._length = length

    def __iter__(self):
        order = random_state(cpu()).permutation(self._length)
        return iter(order.tolist())

    def __len__(self):
        return self._length


class FilterSampler(Sampler):
    """The indices of the samples of ``dataset`` for which ``fn(sample)`` is true.

    The dataset is scanned once, when the sampler is made.
    """

    def __init__(self, fn, dataset):
        self._fn = fn
        self._dataset = dataset
        self._indices = [i for i, sample in enumerate(dataset) if fn(sample)]

    def __iter__(self):
        return iter(self._indices)

    def __len__(self):
        return len(self._indices)


class BatchSampler(Sampler):
    """Group the indices of ``sampler`` into lists of ``batch_size``.

    ``last_batch`` says what happens when ``batch_size`` does not divide the number of
    indices:

    * ``'keep'``: the last, smaller batch is yielded;
    * ``'discard'``: it is dropped;
    * ``'rollover'``: it is kept back and becomes the start of the first batch of the
      next iteration (the next epoch), so no sample is lost and every batch is full.

    >>> list(BatchSampler(SequentialSampler(10), 3, 'keep'))
    [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
    """

    def __init__(self, sampler, batch_size, last_batch='keep'):
        self._sampler = sampler
        self._batch_size = batch_size
        self._last_batch = last_batch
        self._prev = []  # the indices rolled over from the previous iteration

    def __iter__(self):
        batch, self._prev = self._prev, []
        for index in self._sampler:
            batch.append(index)
            if len(batch) == self._batch_size:
                yield batch
                batch = []
        if batch:
            if self._last_batch == 'keep':
                yield batch
            elif self._last_batch == 'rollover':
                self._prev = batch
            elif self._last_batch != 'discard':
                raise ValueError(_bad_last_batch(self._last_batch))

    def __len__(self):
        if self._last_batch == 'keep':
            return (len(self._sampler) + self._batch_size - 1) // self._batch_size
        if self._last_batch == 'discard':
            return len(self._sampler) // self._batch_size
        if self._last_batch == 'rollover':
            return (len(self._prev) + len(self._sampler)) // self._batch_size
        raise ValueError(_bad_last_batch(self._last_batch))


def _bad_last_batch(value):
    return ("last_batch must be one of 'keep', 'discard' or 'rollover', but got %r"
            % (value,))

