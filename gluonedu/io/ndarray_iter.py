"""NDArrayIter: batches of arrays held in memory, MXNet 1.9.1's way."""
import numpy as np

from .. import ndarray as nd
from ..base import MXNetError
from ..ndarray.csr import CSRNDArray
from .base import DataIter
from .desc import DataBatch, DataDesc
from .sources import named_arrays, rows_in_order

__all__ = ['NDArrayIter']

LAST_BATCH_HANDLES = ('pad', 'discard', 'roll_over')


class NDArrayIter(DataIter):
    """Batches of in-memory arrays (NDArray, NumPy or SciPy CSR), with their labels.

    The examples are the rows of each array along the batch axis of ``layout``.
    ``last_batch_handle`` decides what happens when the examples do not fill the last
    batch:

    * ``'pad'``: the last batch is filled with examples from the beginning, and its
      ``pad`` says how many;
    * ``'discard'``: the incomplete last batch is dropped;
    * ``'roll_over'``: the incomplete last batch is kept back and, after :meth:`reset`,
      completed with the first examples of the next epoch (that batch's ``pad`` is the
      number of examples carried over). Meant for training, not prediction.

    Parameters
    ----------
    data : array, list of arrays or dict of str to array
        The inputs. A single array is named ``data_name``; those of a list
        ``_0_<data_name>``, ``_1_<data_name>``, …; a dict names its own.
    label : array, list of arrays or dict of str to array, optional
        The labels, named like ``data`` after ``label_name``.
    batch_size : int, default 1
        Examples per batch.
    shuffle : bool, default False
        Shuffle the examples at every :meth:`reset` (with NumPy's global random state, as
        MXNet: seed it with ``numpy.random.seed``).
    last_batch_handle : {'pad', 'discard', 'roll_over'}, default 'pad'
        What to do with an incomplete last batch (see above).
    data_name : str, default 'data'
    label_name : str, default 'softmax_label'
    layout : str, default 'NCHW'
        The layout of the arrays; ``'N'`` marks the batch axis.

    Notes
    -----
    CSR inputs work with ``last_batch_handle='discard'`` only (NotImplementedError
    otherwise, as MXNet); their batches come out dense, as MXNet 1.9.1 slices them.
    """

    def __init__(self, data, label=None, batch_size=1, shuffle=False,
                 last_batch_handle='pad', data_name='data', label_name='softmax_label',
                 layout='NCHW'):
        super().__init__(batch_size)
        if last_batch_handle not in LAST_BATCH_HANDLES:
            raise ValueError('last_batch_handle must be one of %s, got %r'
                             % (', '.join(repr(h) for h in LAST_BATCH_HANDLES),
                                last_batch_handle))
        if not isinstance(batch_size, (int, np.integer)) or batch_size < 1:
            raise MXNetError('NDArrayIter: batch_size must be a positive integer, got %r'
                             % (batch_size,))
        self.data = named_arrays(data, allow_empty=False, default_name=data_name)
        self.label = named_arrays(label, allow_empty=True, default_name=label_name)
        if last_batch_handle != 'discard' and any(
                isinstance(array, CSRNDArray) for _, array in self.data + self.label):
            raise NotImplementedError("NDArrayIter reads CSRNDArrays only with "
                                      "last_batch_handle='discard'")
        self.idx = np.arange(_num_rows(self.data)[0])
        self.num_data = self.idx.shape[0]
        _check_rows(self.data + self.label, self.num_data)
        self.shuffle = shuffle
        self.last_batch_handle = last_batch_handle
        self.cursor = -self.batch_size
        self.layout = layout
        self.reset()
        self.data_list = [array for _, array in self.data + self.label]
        self.num_source = len(self.data_list)
        # 'roll_over': the incomplete last batch, kept for the first batch of the next epoch
        self._cache_data = None
        self._cache_label = None

    @property
    def _batch_axis(self):
        return self.layout.find('N')

    @property
    def provide_data(self):
        """One :class:`DataDesc` per input, with its name and the shape of one batch."""
        return [self._describe(name, array) for name, array in self.data]

    @property
    def provide_label(self):
        """One :class:`DataDesc` per label, with its name and the shape of one batch."""
        return [self._describe(name, array) for name, array in self.label]

    def _describe(self, name, array):
        axis = self._batch_axis
        shape = array.shape[:axis] + (self.batch_size,) + array.shape[axis + 1:]
        return DataDesc(name, shape, array.dtype, layout=self.layout)

    def hard_reset(self):
        """Start again from the first example, forgetting any rolled-over batch."""
        if self.shuffle:
            self._shuffle_data()
        self.cursor = -self.batch_size
        self._cache_data = None
        self._cache_label = None

    def reset(self):
        """Start the next epoch (shuffling first if asked to).

        With ``'roll_over'``, after an incomplete last batch the cursor moves back by the
        examples carried over, so the first batch completes them.
        """
        if self.shuffle:
            self._shuffle_data()
        if (self.last_batch_handle == 'roll_over'
                and self.num_data - self.batch_size < self.cursor < self.num_data):
            self.cursor = self.cursor - self.num_data - self.batch_size
        else:
            self.cursor = -self.batch_size

    def iter_next(self):
        """Move the cursor one batch on; False past the last example."""
        self.cursor += self.batch_size
        return self.cursor < self.num_data

    def next(self):
        """The next batch; an incomplete last batch ends the epoch (and, with
        ``'roll_over'``, is kept for the next one)."""
        if not self.iter_next():
            raise StopIteration
        data = self.getdata()
        label = self.getlabel()
        if data[0].shape[self._batch_axis] != self.batch_size:
            self._cache_data = data
            self._cache_label = label
            raise StopIteration
        return DataBatch(data=data, label=label, pad=self.getpad(), index=None)

    def getdata(self):
        """The inputs of the current batch (a list of NDArray)."""
        return self._batchify(self.data)

    def getlabel(self):
        """The labels of the current batch (a list of NDArray)."""
        return self._batchify(self.label)

    def getpad(self):
        """Padding examples at the end of the current batch (``'pad'``), or the examples
        carried over into it (first batch after a roll-over)."""
        if (self.last_batch_handle == 'pad'
                and self.cursor + self.batch_size > self.num_data):
            return self.cursor + self.batch_size - self.num_data
        if self.last_batch_handle == 'roll_over' and -self.batch_size < self.cursor < 0:
            return -self.cursor
        return 0

    # ----------------------------------------------------------------- assembling
    def _batchify(self, sources):
        if self.cursor >= self.num_data:
            raise AssertionError('NDArrayIter is past its last batch: call reset()')
        if self.last_batch_handle == 'roll_over' and -self.batch_size < self.cursor < 0:
            return self._complete_rolled_over(sources)
        if (self.last_batch_handle == 'pad'
                and self.cursor + self.batch_size > self.num_data):
            return self._padded(sources)
        end = min(self.cursor + self.batch_size, self.num_data)
        return self._rows(sources, self.cursor, end)

    def _complete_rolled_over(self, sources):
        # getdata() takes the kept data, then getlabel() the kept labels (MXNet's order).
        if self._cache_data is not None:
            kept, self._cache_data = self._cache_data, None
        elif self._cache_label is not None:
            kept, self._cache_label = self._cache_label, None
        else:
            raise AssertionError('NDArrayIter has no rolled-over batch to complete')
        return self._concat(kept, self._rows(sources, 0, self.cursor + self.batch_size))

    def _padded(self, sources):
        """The last rows, then rows from the start (repeated if the data is shorter than
        the padding)."""
        pad = self.batch_size - self.num_data + self.cursor
        last = self._rows(sources, self.cursor, self.num_data)
        whole, part = divmod(pad, self.num_data)
        if pad > self.num_data:
            filling = self._tile(self._rows(sources, 0, self.num_data), whole)
            if part:
                filling = self._concat(filling, self._rows(sources, 0, part))
        else:
            filling = self._rows(sources, 0, pad)
        return self._concat(last, filling)

    def _rows(self, sources, begin, end):
        return [nd.slice_axis(array, axis=self._batch_axis, begin=begin, end=end)
                for _, array in sources]

    def _concat(self, first, second):
        if not first or not second:
            return first or second
        return [nd.concat(a, b, dim=self._batch_axis) for a, b in zip(first, second)]

    @staticmethod
    def _tile(arrays, repeats):
        # Along axis 0, whatever the layout: MXNet 1.9.1 does the same.
        return [nd.tile(a, reps=(repeats,) + (1,) * (a.ndim - 1)) for a in arrays]

    def _shuffle_data(self):
        np.random.shuffle(self.idx)
        self.data = rows_in_order(self.data, self.idx)
        self.label = rows_in_order(self.label, self.idx)


def _num_rows(named):
    """The rows of each array along axis 0 (an array of no axes has no examples)."""
    for name, array in named:
        if array.ndim == 0:
            raise MXNetError('NDArrayIter: %r is a single number; give an array with one '
                             'row per example' % name)
    return [array.shape[0] for _, array in named]


def _check_rows(named, num_data):
    """Every array must hold at least the examples of the first data array."""
    for (name, _), rows in zip(named, _num_rows(named)):
        if rows < num_data:
            raise MXNetError('NDArrayIter: %r has %d rows, fewer than the %d examples of '
                             'the data; give every array (data and label) one row per example'
                             % (name, rows, num_data))
