"""What CSVIter and LibSVMIter share: reading a text file, checking their parameters, and
MXNet's batch loader, which fills batches row after row and wraps round at the end."""
import math
import os

import numpy as np

from ..base import MXNetError
from .base import DataIter
from .desc import DataBatch, DataDesc

__all__ = ['FileIter', 'read_lines', 'require', 'as_shape', 'dtype_name', 'file_error']

#: MXNet's spelling of "no file" for the optional label file.
NO_FILE = 'NULL'


def file_error(path, line_number, problem):
    """The MXNetError of a bad line: names the file and the (1-based) line."""
    return MXNetError('%s, line %d: %s' % (path, line_number, problem))


def read_lines(path, what, num_parts=1, part_index=0):
    """``[(line number, text)]`` of the non-blank lines of ``path`` in part ``part_index``
    of ``num_parts``.

    The parts split the file's bytes evenly, as MXNet's reader does: a line belongs to
    the part in which the byte before it falls (so parts hold whole lines, not
    necessarily as many each).
    """
    if os.path.isdir(path):
        raise MXNetError('%s: %s is a directory; gluonedu reads one file (concatenate the '
                         'files into one)' % (what, path))
    try:
        with open(path, 'rb') as source:
            raw = source.read()
    except OSError as err:
        raise MXNetError('%s: cannot read %s: %s' % (what, path, err.strerror)) from err
    part_bytes = max(1, math.ceil(len(raw) / num_parts))
    lines, start = [], 0
    for number, line in enumerate(raw.splitlines(keepends=True), start=1):
        part = 0 if start == 0 else (start - 1) // part_bytes
        start += len(line)
        text = line.decode('utf-8', errors='replace').strip()
        if text and part == part_index:
            lines.append((number, text))
    if not lines:
        raise MXNetError('%s: %s holds no examples%s' % (
            what, path, '' if num_parts == 1 else ' in part %d of %d' % (part_index, num_parts)))
    return lines


def require(iterator, **params):
    """MXNetError naming the first required parameter left out (MXNet's check)."""
    for name, value in params.items():
        if value is None:
            raise MXNetError('%s: the parameter %s is required' % (iterator, name))


def as_shape(iterator, name, value):
    """``value`` (an int or a sequence of positive ints) as a shape tuple."""
    shape = (value,) if isinstance(value, (int, np.integer)) else value
    try:
        shape = tuple(int(n) for n in shape)
    except (TypeError, ValueError):
        shape = ()
    if not shape or min(shape) < 1:
        raise MXNetError('%s: %s must be a tuple of positive integers, got %r'
                         % (iterator, name, value))
    return shape


def dtype_name(dtype):
    """'int32' for 'int32', numpy.int32 or numpy.dtype('int32'); other values as given."""
    try:
        return np.dtype(dtype).name
    except TypeError:
        return dtype


class FileIter(DataIter):
    """Batches of the examples read from a file, as MXNet's C++ batch loader makes them.

    The examples are taken in file order. An incomplete last batch is completed
    (``pad`` says by how many examples):

    * ``round_batch=True``: with the first examples of the file; the next epoch then
      starts after them, so no example is read twice in a row;
    * ``round_batch=False``: with whatever the previous batch left in the loader's
      buffer (nothing before the first batch: zeros). Those examples are filling.

    As in MXNet, the first batch is read when the iterator is made, so
    ``provide_data`` knows the shapes and a file too short fails at once.
    A subclass reads its file in ``__init__``, sets ``num_examples`` and implements
    :meth:`_batch_arrays`, then calls :meth:`_start`.
    """

    def _start(self, batch_size, round_batch, data_name, label_name):
        if not isinstance(batch_size, (int, np.integer)) or batch_size < 1:
            raise MXNetError('%s: batch_size must be a positive integer, got %r'
                             % (type(self).__name__, batch_size))
        self.batch_size = int(batch_size)
        self.round_batch = bool(round_batch)
        self._position = 0       # the next example to read
        self._wrapped = 0        # examples taken from the start to complete the last batch
        self._buffer = [None] * self.batch_size  # the examples of the previous batch
        self._current = None     # (data, label, pad, index) of the current batch
        self._first_batch = None
        self._first_batch = self.next()
        data, label = self._first_batch.data[0], self._first_batch.label[0]
        self.provide_data = [DataDesc(data_name, data.shape, data.dtype)]
        self.provide_label = [DataDesc(label_name, label.shape, label.dtype)]

    def _batch_arrays(self, examples):
        """``(data, label)`` NDArrays of the examples at these positions (None: a slot the
        loader never filled, zeros)."""
        raise NotImplementedError

    def reset(self):
        """Start the next epoch: after a wrapped-round last batch, at the first example
        not used to complete it; otherwise at the beginning."""
        self._first_batch = None
        if not (self.round_batch and self._wrapped):
            self._position = 0
        self._wrapped = 0

    def iter_next(self):
        """Read the next batch; False at the end of the epoch."""
        if self._first_batch is not None:  # read already, when the iterator was made
            self._first_batch = None
            return True
        if self._wrapped:  # the epoch ended with a wrapped batch: wait for reset()
            return False
        end = min(self._position + self.batch_size, self.num_examples)
        examples = list(range(self._position, end))
        self._position = end
        if not examples:
            return False
        pad = self.batch_size - len(examples)
        if pad and self.round_batch:
            if pad > self.num_examples:
                raise MXNetError('%s: %d examples cannot complete a batch of %d; use a '
                                 'batch_size of at most %d, or round_batch=False'
                                 % (type(self).__name__, self.num_examples, self.batch_size,
                                    self.num_examples))
            examples += range(pad)
            self._position = self._wrapped = pad
        elif pad:
            examples += self._buffer[len(examples):]
        self._buffer = examples
        data, label = self._batch_arrays(examples)
        index = np.array([0 if e is None else e for e in examples], dtype=np.uint64)
        self._current = (data, label, pad, index)
        return True

    def next(self):
        """The next batch (its ``data`` and ``label`` hold one NDArray each)."""
        if self._first_batch is not None:
            batch, self._first_batch = self._first_batch, None
            return batch
        if not self.iter_next():
            raise StopIteration
        return DataBatch(data=[self.getdata()], label=[self.getlabel()], pad=self.getpad(),
                         index=self.getindex())

    def getdata(self):
        """The data of the current batch (one NDArray, as MXNet's C++ iterators)."""
        return self._current[0]

    def getlabel(self):
        """The labels of the current batch (one NDArray)."""
        return self._current[1]

    def getpad(self):
        """How many examples at the end of the current batch are filling."""
        return self._current[2]

    def getindex(self):
        """The position in the file of each example of the current batch (uint64)."""
        return self._current[3]
