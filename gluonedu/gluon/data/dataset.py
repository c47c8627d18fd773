"""Datasets: indexable collections of samples (``mx.gluon.data``).

A dataset has ``len(ds)`` and ``ds[i]``; a sample is one object or a tuple such as
``(features, label)``. The methods of :class:`Dataset` build new datasets lazily
(``transform``, ``transform_first``) or as index views (``filter``, ``take``, ``shard``,
``sample``), without copying the data.
"""
from ...ndarray import NDArray
from .sampler import FilterSampler, Sampler, SequentialSampler

__all__ = ['Dataset', 'SimpleDataset', 'ArrayDataset']


class Dataset:
    """Base class of datasets: subclasses define ``__getitem__(idx)`` and ``__len__()``.

    NumPy arrays and NDArrays can be used directly wherever a dataset is expected.
    """

    def __getitem__(self, idx):
        raise NotImplementedError("%s must define __getitem__" % type(self).__name__)

    def __len__(self):
        raise NotImplementedError("%s must define __len__" % type(self).__name__)

    def filter(self, fn):
        """The samples for which ``fn(sample)`` is true (``fn`` is run on every sample now)."""
        return _SampledDataset(self, FilterSampler(fn, self))

    def shard(self, num_shards, index):
        """Part ``index`` of ``num_shards`` nearly equal, consecutive parts.

        The first ``len(self) % num_shards`` parts hold one sample more than the others.
        For distributed training, shard before shuffling so that each worker sees its own
        samples.
        """
        if not index < num_shards:
            raise AssertionError("shard index %d is out of range: it must be below "
                                 "num_shards=%d" % (index, num_shards))
        if not num_shards > 0:
            raise AssertionError("num_shards must be positive, got %d" % num_shards)
        if not index >= 0:
            raise AssertionError("shard index must be non-negative, got %d" % index)
        base, rest = divmod(len(self), num_shards)
        start = base * index + min(index, rest)
        length = base + (1 if index < rest else 0)
        return _SampledDataset(self, SequentialSampler(length, start))

    def take(self, count):
        """The first ``count`` samples (all of them if ``count`` is None or too large)."""
        if count is None or count > len(self):
            count = len(self)
        return _SampledDataset(self, SequentialSampler(count))

    def sample(self, sampler):
        """The samples at the indices ``sampler`` yields (drawn once, now)."""
        if not isinstance(sampler, Sampler):
            raise TypeError("sample() takes a gluon.data.Sampler, got %s"
                            % type(sampler).__name__)
        return _SampledDataset(self, sampler)

    def transform(self, fn, lazy=True):
        """Each sample passed through ``fn`` (tuples are unpacked: ``fn(*sample)``).

        With ``lazy=True`` (default) ``fn`` runs every time a sample is read, so a random
        augmentation differs between epochs; ``lazy=False`` applies it once to every
        sample now and keeps the results in memory.
        """
        transformed = _LazyTransformDataset(self, fn)
        if lazy:
            return transformed
        return SimpleDataset([sample for sample in transformed])

    def transform_first(self, fn, lazy=True):
        """Like :meth:`transform`, but ``fn`` changes only the first element of each sample
        (usually the features, leaving the label alone)."""
        return self.transform(_TransformFirst(fn), lazy)


class SimpleDataset(Dataset):
    """A dataset over any object with ``len()`` and ``[]`` (a list, an array, ...)."""

    def __init__(self, data):
        self._data = data

    def __len__(self):
        return len(self._data)

    def __getitem__(self, idx):
        return self._data[idx]


class ArrayDataset(Dataset):
    """Several equally long array-likes zipped: sample ``i`` is ``(a[i], b[i], ...)``.

    Each argument may be an NDArray, a NumPy array, a list or a Dataset. With a single
    argument, sample ``i`` is just ``a[i]`` (not a 1-tuple). As MXNet, a 1-D NDArray is
    copied to NumPy first, so its items are NumPy scalars rather than 1-element NDArrays.

    >>> X, y = mx.data.two_moons(n=100, seed=0)
    >>> ds = ArrayDataset(X, y)
    >>> features, label = ds[0]
    """

    def __init__(self, *args):
        if len(args) == 0:
            raise AssertionError("ArrayDataset needs at least one array")
        self._length = len(args[0])
        self._data = []
        for i, data in enumerate(args):
            if len(data) != self._length:
                raise AssertionError(
                    "all arrays must have the same length: array 0 has length %d but array "
                    "%d has length %d" % (self._length, i, len(data)))
            if isinstance(data, NDArray) and data.ndim == 1:
                data = data.asnumpy()
            self._data.append(data)

    def __getitem__(self, idx):
        if len(self._data) == 1:
            return self._data[0][idx]
        return tuple(data[idx] for data in self._data)

    def __len__(self):
        return self._length


class _LazyTransformDataset(Dataset):
    """``fn`` applied to each sample when it is read."""

    def __init__(self, data, fn):
        self._data = data
        self._fn = fn

    def __len__(self):
        return len(self._data)

    def __getitem__(self, idx):
        item = self._data[idx]
        if isinstance(item, tuple):
            return self._fn(*item)
        return self._fn(item)


class _TransformFirst:
    """``fn`` applied to the first element only (a class, not a closure, so it pickles)."""

    def __init__(self, fn):
        self._fn = fn

    def __call__(self, first, *rest):
        if rest:
            return (self._fn(first),) + rest
        return self._fn(first)


class _SampledDataset(Dataset):
    """The samples of ``dataset`` at the indices a sampler yields (read once)."""

    def __init__(self, dataset, sampler):
        self._dataset = dataset
        self._sampler = sampler
        self._indices = list(iter(sampler))

    def __len__(self):
        return len(self._sampler)

    def __getitem__(self, idx):
        return self._dataset[self._indices[idx]]
