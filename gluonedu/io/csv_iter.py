"""CSVIter: batches of the rows of a CSV file of numbers."""
import numpy as np

from .. import ndarray as nd
from ..base import MXNetError
from .file_iter import (NO_FILE, FileIter, as_shape, dtype_name, file_error, read_lines,
                        require)

__all__ = ['CSVIter']

#: The dtypes MXNet 1.9.1's CSVIter produces (None: float32).
CSV_DTYPES = ('float32', 'int32', 'int64')


class CSVIter(FileIter):
    """Batches of the rows of a CSV file: each row is one example of ``data_shape``.

    Every row holds ``prod(data_shape)`` comma-separated numbers (spaces around them and
    a trailing comma are fine; blank lines are skipped). Labels come from a second CSV
    file of ``prod(label_shape)`` numbers per row, in the same order, or are all 0.
    The file is read into memory when the iterator is made; a malformed row raises
    MXNetError naming the file and the line. Parameters are keywords only, as MXNet's
    (TypeError otherwise).

    Parameters
    ----------
    data_csv : str
        The CSV file of the examples.
    data_shape : tuple of int
        The shape of one example; a batch is ``(batch_size,) + data_shape``.
    label_csv : str, default 'NULL'
        The CSV file of the labels; 'NULL' (or None) labels every example 0.
    label_shape : tuple of int, default (1,)
        The shape of one label; the label batch is ``(batch_size,)`` for ``(1,)``, else
        ``(batch_size,) + label_shape``.
    batch_size : int
        Examples per batch.
    round_batch : bool, default True
        Complete the last batch with the first rows (the next epoch starts after them);
        False leaves the previous batch's rows in the unfilled slots. ``pad`` counts the
        filling either way.
    prefetch_buffer : int, default 4
        Accepted for MXNet's signature; unused (the file is read into memory).
    ctx : {'cpu', 'gpu'}, default 'gpu'
        Accepted for MXNet's signature; the batches are made on the CPU.
    dtype : {None, 'float32', 'int32', 'int64'}, default None
        The dtype of data and labels; None is float32.
    data_name : str, default 'data'
    label_name : str, default 'softmax_label'
        The names in ``provide_data`` and ``provide_label``.
    """

    def __init__(self, *args, data_csv=None, data_shape=None, label_csv=NO_FILE,
                 label_shape=(1,), batch_size=None, round_batch=True, prefetch_buffer=4,
                 ctx='gpu', dtype=None, data_name='data', label_name='softmax_label'):
        super().__init__()
        require('CSVIter', data_csv=data_csv, data_shape=data_shape, batch_size=batch_size)
        if args:  # MXNet checks the required parameters first, then this
            raise TypeError('%s takes keyword arguments only' % type(self).__name__)
        if ctx not in ('cpu', 'gpu'):
            raise MXNetError("CSVIter: ctx must be 'cpu' or 'gpu', got %r" % (ctx,))
        dtype = 'float32' if dtype is None else dtype_name(dtype)
        if dtype not in CSV_DTYPES:
            raise MXNetError('CSVIter: dtype %r is not supported; use one of %s (or None '
                             'for float32)' % (dtype, ', '.join(CSV_DTYPES)))
        self.dtype = np.dtype(dtype)
        data_shape = as_shape('CSVIter', 'data_shape', data_shape)
        label_shape = as_shape('CSVIter', 'label_shape', label_shape)
        self._data = _read_rows(data_csv, data_shape, self.dtype, 'data_csv')
        self.num_examples = len(self._data)
        if label_csv in (None, NO_FILE):
            self._label = np.zeros((self.num_examples,) + label_shape, self.dtype)
        else:
            self._label = _read_rows(label_csv, label_shape, self.dtype, 'label_csv')
            if len(self._label) < self.num_examples:
                raise MXNetError('CSVIter: %s has %d rows of labels, fewer than the %d rows '
                                 'of %s; give one label row per data row'
                                 % (label_csv, len(self._label), self.num_examples, data_csv))
        if label_shape == (1,):  # one number per example: a vector of labels
            self._label = self._label.reshape(-1)
        self._start(batch_size, round_batch, data_name, label_name)

    def _batch_arrays(self, examples):
        rows = np.array([0 if e is None else e for e in examples])
        data, label = self._data[rows], self._label[rows]
        never_filled = np.array([e is None for e in examples])
        data[never_filled] = 0
        label[never_filled] = 0
        return nd.array(data, dtype=self.dtype), nd.array(label, dtype=self.dtype)


def _read_rows(path, shape, dtype, what):
    """The rows of a CSV file as an array ``(rows,) + shape`` of ``dtype``."""
    size = int(np.prod(shape))
    parse = _parse_int if dtype.kind == 'i' else float
    rows = []
    for number, text in read_lines(path, 'CSVIter ' + what):
        fields = text.split(',')
        if len(fields) > 1 and not fields[-1].strip():
            fields.pop()  # a trailing comma
        if len(fields) != size:
            raise file_error(path, number, '%d values, but the shape %s needs %d per row'
                             % (len(fields), shape, size))
        rows.append([_number(path, number, field, parse) for field in fields])
    try:
        return np.array(rows, dtype=dtype).reshape((len(rows),) + shape)
    except OverflowError as err:
        raise MXNetError('CSVIter: %s holds a number too large for %s' % (path, dtype)) from err


def _parse_int(field):
    """An integer field; a decimal one is cut towards zero, as a cast does."""
    try:
        return int(field)
    except ValueError:
        return int(float(field))


def _number(path, number, field, parse):
    try:
        return parse(field)
    except (ValueError, OverflowError):  # 'x', or int('inf')
        raise file_error(path, number, '%r is not a number' % field.strip()) from None
