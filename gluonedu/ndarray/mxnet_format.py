"""MXNet's own binary NDArray file format (``.params`` files), read and written safely.

This is what MXNet's ``nd.save`` writes and ``nd.load`` reads, and what
``HybridBlock.export`` and the model zoo's files hold. Little-endian throughout::

    uint64 0x112, uint64 0                      the list's magic number, reserved
    uint64 count, then count arrays:
        uint32 magic                            0xF993FAC9 (v2); v1 ...C8 and v3 ...CA read too
        int32  storage type                     (v2, v3) 0 dense, 1 row_sparse, 2 csr
        shape  storage shape                    (sparse only) the stored values' shape
        shape  shape                            int32 ndim, then ndim int64 sizes
        int32  device type, int32 device id     where it was saved (ignored on load)
        int32  type flag                        0 float32, 1 float64, 2 float16, 3 uint8, ...
        (sparse) per index array: int32 type flag, shape
        the values' bytes, then (sparse) the index arrays' bytes
    uint64 count, then count names: uint64 length, UTF-8 bytes   (0 names: a list)

Files older than v1 start an array with its shape as uint32s (no magic) and are read too.

Reading trusts nothing: every count and size is checked against the bytes left in the
file before anything is allocated, dtypes come from an allow-list, and any violation is
an MXNetError naming the offset. No code in the file is ever run (there is none to run:
unlike pickle, the format holds only numbers and names).
"""
import math
import os
import struct

import numpy as np

from ..base import MXNetError, DTYPE_FROM_MX, DTYPE_TO_MX, STYPE_FROM_MX
from ..context import cpu
from .ndarray import NDArray, from_numpy
from .param_types import MAX_SIZE

__all__ = ['MAGIC', 'is_mxnet_file', 'read', 'write']

#: The first 8 bytes of a file of MXNet's format (the list's magic number 0x112).
MAGIC = struct.pack('<Q', 0x112)
_V1, _V2, _V3 = 0xF993FAC8, 0xF993FAC9, 0xF993FACA
_MAX_NDIM = 32
#: What gluonedu arrays can hold (MXNet's int16/uint16/uint32/uint64/bfloat16 cannot).
_SUPPORTED = frozenset(np.dtype(t) for t in ('float32', 'float64', 'float16', 'uint8',
                                             'int8', 'int32', 'int64', 'bool'))
_INDEX_TYPES = frozenset(np.dtype(t) for t in ('int32', 'int64'))
_CPU = 1  # MXNet's device type of cpu()


def is_mxnet_file(head):
    """Whether ``head`` (the first bytes of a file) starts MXNet's format."""
    return head[:8] == MAGIC


# ---------------------------------------------------------------------- reading
class _Reader:
    """Bounded reads from a file: nothing beyond its end, every length checked first."""

    def __init__(self, f, fname):
        self.f = f
        self.fname = fname
        self.size = f.seek(0, os.SEEK_END)  # a file or a buffer (io.BytesIO)
        f.seek(0)
        self.pos = 0

    def fail(self, what):
        return MXNetError('%s is not a valid MXNet NDArray file: %s (at byte %d)'
                          % (self.fname, what, self.pos))

    def left(self):
        return self.size - self.pos

    def bytes(self, n):
        if n > self.left():
            raise self.fail('it ends early: %d bytes needed, %d left' % (n, self.left()))
        data = self.f.read(n)
        if len(data) != n:
            raise self.fail('it ends early')
        self.pos += n
        return data

    def unpack(self, fmt):
        return struct.unpack('<' + fmt, self.bytes(struct.calcsize('<' + fmt)))

    def count(self, smallest_item):
        """A uint64 count of items that each take at least ``smallest_item`` bytes."""
        (n,) = self.unpack('Q')
        if n * smallest_item > self.left():
            raise self.fail('it claims %d entries, more than its %d remaining bytes hold'
                            % (n, self.left()))
        return n

    def shape(self, legacy=False, np_shape=False):
        """A shape: int32 ndim and int64 sizes (uint32 ndim and sizes before v1)."""
        (ndim,) = self.unpack('I' if legacy else 'i')
        if np_shape and ndim == -1:
            return None
        if not 0 <= ndim <= _MAX_NDIM:
            raise self.fail('an array has %d dimensions' % ndim)
        dims = self.unpack(('I' if legacy else 'q') * ndim)
        if any(n < 0 for n in dims):
            raise self.fail('an array has a negative size in its shape %s' % (dims,))
        # An empty array's other sizes count too: (0, 2**62) is no shape MXNet 1.9.1 holds
        # (its shapes are 32-bit), and none NumPy can make.
        if math.prod(n for n in dims if n) > MAX_SIZE:
            raise self.fail("an array's shape %s is beyond MXNet's limit of 2^31 - 1 "
                            "elements" % (dims,))
        return tuple(dims)

    def values(self, shape, dtype):
        """An array of ``shape`` and ``dtype`` read from the file (checked to fit first)."""
        size = 1
        for n in shape:
            size *= n
        nbytes = size * dtype.itemsize
        if nbytes > self.left():
            raise self.fail('an array of shape %s needs %d bytes, only %d are left'
                            % (shape, nbytes, self.left()))
        out = np.empty(shape, dtype=dtype.newbyteorder('<'))
        if nbytes and self.f.readinto(memoryview(out.reshape(-1)).cast('B')) != nbytes:
            raise self.fail('it ends early')
        self.pos += nbytes
        return out.astype(dtype, copy=False)

    def dtype(self):
        (flag,) = self.unpack('i')
        dtype = DTYPE_FROM_MX.get(flag)
        if dtype is None:
            raise self.fail('unknown type flag %d%s' % (flag, ' (bfloat16, which gluonedu '
                                                          'cannot hold)' if flag == 12 else ''))
        if dtype not in _SUPPORTED:
            raise self.fail('dtype %s, which gluonedu arrays cannot hold' % dtype)
        return dtype

    def context(self):
        dev_type, dev_id = self.unpack('ii')
        if dev_type not in (1, 2, 3, 5) or dev_id < 0:
            raise self.fail('an invalid device (type %d, id %d)' % (dev_type, dev_id))


def _read_array(reader, ctx):
    (magic,) = reader.unpack('I')
    if magic not in (_V1, _V2, _V3):  # before v1: the uint32 is the number of dimensions
        reader.pos -= 4
        reader.f.seek(reader.pos)
        shape = reader.shape(legacy=True)
        return _dense(reader, shape, ctx)
    stype = 'default'
    if magic != _V1:
        (code,) = reader.unpack('i')
        stype = STYPE_FROM_MX.get(code)
        if stype is None:
            raise reader.fail('unknown storage type %d' % code)
    if stype == 'default':
        shape = reader.shape(np_shape=magic == _V3)
        if shape is None or (not shape and magic != _V3):
            raise reader.fail('an array has no shape (an empty NDArray, which gluonedu '
                              'cannot hold)')
        return _dense(reader, shape, ctx)
    if stype == 'row_sparse':
        return _row_sparse(reader, ctx)
    raise reader.fail('a csr array, which gluonedu cannot load from this format yet')


def _dense(reader, shape, ctx):
    reader.context()
    dtype = reader.dtype()
    return from_numpy(reader.values(shape, dtype), ctx)


def _row_sparse(reader, ctx):
    from .sparse import row_sparse_array
    stored = reader.shape()
    shape = reader.shape()
    reader.context()
    dtype = reader.dtype()
    index_dtype = reader.dtype()
    index_shape = reader.shape()
    if not shape or len(stored) != len(shape) or stored[1:] != shape[1:] or \
            index_shape != stored[:1] or index_dtype not in _INDEX_TYPES:
        raise reader.fail('a row_sparse array with inconsistent shapes (values %s, shape %s, '
                          'indices %s of %s)' % (stored, shape, index_shape, index_dtype))
    values = reader.values(stored, dtype)
    indices = reader.values(index_shape, index_dtype)
    if len(indices) and (indices.min() < 0 or indices.max() >= shape[0] or
                         np.any(np.diff(indices) <= 0)):
        raise reader.fail('a row_sparse array whose row indices are not increasing ids '
                          'below %d' % shape[0])
    return row_sparse_array((values, indices.astype(np.int64)), shape=shape, ctx=ctx,
                            dtype=dtype)


def read(f, fname, ctx=None):
    """The arrays of an MXNet-format file open as ``f``: a dict if it names them, else a
    list (on ``ctx``, default cpu)."""
    ctx = ctx or cpu()
    reader = _Reader(f, fname)
    if reader.bytes(8) != MAGIC:
        raise reader.fail('it does not start with the magic number 0x112')
    reader.unpack('Q')  # reserved
    arrays = [_read_array(reader, ctx) for _ in range(reader.count(16))]
    n = reader.count(8)
    if n not in (0, len(arrays)):
        raise reader.fail('%d names for %d arrays' % (n, len(arrays)))
    names = []
    for _ in range(n):
        (length,) = reader.unpack('Q')
        try:
            names.append(reader.bytes(length).decode('utf-8'))
        except UnicodeDecodeError:
            raise reader.fail('a name is not UTF-8 text') from None
    if reader.left():
        raise reader.fail('%d unexpected bytes follow the names' % reader.left())
    if not names:
        return arrays
    if len(set(names)) != len(names):
        raise MXNetError('%s names an array twice' % fname)
    return dict(zip(names, arrays))


# ---------------------------------------------------------------------- writing
def _shape_bytes(shape):
    return struct.pack('<i%dq' % len(shape), len(shape), *shape)


def _array_chunks(arr):
    """One array in the v2 layout (dense or row_sparse), as bytes chunks."""
    dense = arr.stype == 'default'
    values = arr.asnumpy() if dense else arr.data.asnumpy()
    dtype = np.dtype(values.dtype)
    if dtype not in DTYPE_TO_MX:
        raise MXNetError('cannot save a %s array in MXNet\'s format' % dtype)
    chunks = [struct.pack('<Ii', _V2, 0 if dense else 1)]
    if not dense:
        chunks.append(_shape_bytes(values.shape))
    chunks += [_shape_bytes(arr.shape), struct.pack('<iii', _CPU, 0, DTYPE_TO_MX[dtype])]
    if dense:
        return chunks + [np.ascontiguousarray(values, dtype.newbyteorder('<')).tobytes()]
    if arr.stype != 'row_sparse':
        raise MXNetError('cannot save a %s array in MXNet\'s format yet' % arr.stype)
    indices = arr.indices.asnumpy().astype('<i8')
    return chunks + [struct.pack('<i', DTYPE_TO_MX[np.dtype(np.int64)]),
                     _shape_bytes(indices.shape),
                     np.ascontiguousarray(values, dtype.newbyteorder('<')).tobytes(),
                     indices.tobytes()]


def write(f, names, arrays):
    """Write ``arrays`` (NDArrays) and their ``names`` (or [] for a list) to ``f``."""
    f.write(MAGIC + struct.pack('<QQ', 0, len(arrays)))
    for arr in arrays:
        for chunk in _array_chunks(arr):
            f.write(chunk)
    f.write(struct.pack('<Q', len(names)))
    for name in names:
        encoded = name.encode('utf-8')
        f.write(struct.pack('<Q', len(encoded)) + encoded)
