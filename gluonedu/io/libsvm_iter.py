"""LibSVMIter: batches of sparse examples (CSRNDArray) from a file in LibSVM format."""
import numpy as np

from .. import ndarray as nd
from ..base import MXNetError
from .file_iter import (NO_FILE, FileIter, as_shape, dtype_name, file_error, read_lines,
                        require)

__all__ = ['LibSVMIter']


class LibSVMIter(FileIter):
    """Batches of sparse examples from a LibSVM file: data as CSRNDArray, labels dense.

    Each line is one example, a label and its non-zero features::

        1.0 0:0.5 2:1.2      # label 1; feature 0 is 0.5, feature 2 is 1.2
        -2.0                 # label -2; all features 0

    As in MXNet, feature indices are **zero-based** and increase along a line; ``#``
    starts a comment and ``qid:`` entries are ignored. With ``label_libsvm``, the labels
    are the features of that file's lines (a CSRNDArray of ``label_shape``), and the
    labels written in ``data_libsvm`` are ignored. The files are read into memory when
    the iterator is made; a malformed line raises MXNetError naming the file and line.
    Parameters are keywords only, as MXNet's (TypeError otherwise).

    Parameters
    ----------
    data_libsvm : str
        The LibSVM file of the examples.
    data_shape : tuple of int
        ``(num_features,)``: a data batch is a ``(batch_size, num_features)`` CSRNDArray.
    label_libsvm : str, default 'NULL'
        A LibSVM file of labels; 'NULL' (or None) takes the labels of ``data_libsvm``.
    label_shape : tuple of int, default (1,)
        ``(num_label_features,)`` with ``label_libsvm``, which needs more than one.
    num_parts : int, default 1
    part_index : int, default 0
        Read only part ``part_index`` of the file cut into ``num_parts`` parts of about
        equal bytes (for one worker of several); parts hold whole lines.
    batch_size : int
        Examples per batch.
    round_batch : bool, default True
        Complete the last batch with the first examples; MXNet supports only True.
    prefetch_buffer : int, default 4
        Accepted for MXNet's signature; unused (the file is read into memory).
    ctx : {'cpu', 'gpu'}, default 'gpu'
        Accepted for MXNet's signature; the batches are made on the CPU.
    dtype : {None, 'float32'}, default None
        The dtype of the values; MXNet 1.9.1 reads float32 only.
    data_name : str, default 'data'
    label_name : str, default 'softmax_label'
        The names in ``provide_data`` and ``provide_label``.
    """

    def __init__(self, *args, data_libsvm=None, data_shape=None, label_libsvm=NO_FILE,
                 label_shape=(1,), num_parts=1, part_index=0, batch_size=None,
                 round_batch=True, prefetch_buffer=4, ctx='gpu', dtype=None, data_name='data',
                 label_name='softmax_label'):
        super().__init__()
        require('LibSVMIter', data_libsvm=data_libsvm, data_shape=data_shape,
                batch_size=batch_size)
        if args:  # MXNet checks the required parameters first, then this
            raise TypeError('%s takes keyword arguments only' % type(self).__name__)
        if ctx not in ('cpu', 'gpu'):
            raise MXNetError("LibSVMIter: ctx must be 'cpu' or 'gpu', got %r" % (ctx,))
        if dtype is not None and dtype_name(dtype) != 'float32':
            raise MXNetError('LibSVMIter: dtype %r is not supported; MXNet 1.9.1 reads '
                             'float32 only (dtype=None)' % (dtype,))
        if not round_batch:
            raise MXNetError('LibSVMIter supports round_batch=True only, as MXNet')
        if not (isinstance(num_parts, int) and num_parts >= 1
                and isinstance(part_index, int) and 0 <= part_index < num_parts):
            raise MXNetError('LibSVMIter: part_index must lie in [0, num_parts) and '
                             'num_parts be at least 1; got part_index=%r, num_parts=%r'
                             % (part_index, num_parts))
        data_shape = as_shape('LibSVMIter', 'data_shape', data_shape)
        label_shape = as_shape('LibSVMIter', 'label_shape', label_shape)
        if len(data_shape) != 1:
            raise MXNetError('LibSVMIter: data_shape must be (num_features,), got %s'
                             % (data_shape,))
        self._data = _read_examples(data_libsvm, data_shape[0], num_parts, part_index)
        self.num_examples = len(self._data)
        self._label_width = None
        if label_libsvm not in (None, NO_FILE):
            if len(label_shape) != 1 or label_shape[0] < 2:
                raise MXNetError('LibSVMIter: with label_libsvm, label_shape must be '
                                 '(num_label_features,) with more than one feature; got %s'
                                 % (label_shape,))
            self._label_width = label_shape[0]
            self._labels = _read_examples(label_libsvm, self._label_width, num_parts,
                                          part_index)
            if len(self._labels) < self.num_examples:
                raise MXNetError('LibSVMIter: %s has %d lines of labels, fewer than the %d '
                                 'examples of %s' % (label_libsvm, len(self._labels),
                                                     self.num_examples, data_libsvm))
        self._width = data_shape[0]
        self._start(batch_size, round_batch, data_name, label_name)

    def _batch_arrays(self, examples):
        data = _csr_rows([self._data[e] for e in examples], self._width)
        if self._label_width is None:
            label = nd.array([self._data[e].label for e in examples])
        else:
            label = _csr_rows([self._labels[e] for e in examples], self._label_width)
        return data, label


class _Example:
    """One line: its label and the column index and value of each non-zero feature."""
    __slots__ = ('label', 'indices', 'values')

    def __init__(self, label, indices, values):
        self.label, self.indices, self.values = label, indices, values


def _read_examples(path, width, num_parts, part_index):
    return [_parse_line(path, number, text, width)
            for number, text in read_lines(path, 'LibSVMIter', num_parts, part_index)]


def _parse_line(path, number, text, width):
    tokens = text.split('#', 1)[0].split()
    if not tokens:
        raise file_error(path, number, 'a comment where an example belongs')
    label = _number(path, number, tokens[0], 'the label')
    indices, values = [], []
    for token in tokens[1:]:
        key, colon, value = token.partition(':')
        if key == 'qid':
            continue
        if not colon or not key.isdigit():
            raise file_error(path, number, '%r is not a feature index:value pair (indices '
                                           'are integers from 0)' % token)
        index = int(key)
        if index >= width:
            raise file_error(path, number, 'feature index %d is out of range for data_shape '
                                           '(%d,)' % (index, width))
        if indices and index <= indices[-1]:
            raise file_error(path, number, 'feature index %d follows %d; indices must '
                                           'increase along a line' % (index, indices[-1]))
        indices.append(index)
        values.append(_number(path, number, value, 'the value of feature %d' % index))
    return _Example(label, indices, values)


def _number(path, number, text, what):
    try:
        return float(text)
    except ValueError:
        raise file_error(path, number, '%s, %r, is not a number' % (what, text)) from None


def _csr_rows(examples, width):
    """A CSRNDArray with one row per example."""
    counts = [len(e.indices) for e in examples]
    indptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    indices = np.array([i for e in examples for i in e.indices], dtype=np.int64)
    values = np.array([v for e in examples for v in e.values], dtype=np.float32)
    return nd.sparse.csr_matrix((values, indices, indptr), shape=(len(examples), width))
