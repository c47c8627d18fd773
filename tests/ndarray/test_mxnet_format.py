"""MXNet's binary ``.params`` format: written so MXNet reads it, read without trusting it.

Files MXNet 1.9.1 writes (and reads) are checked in tests/parity's symbol suite; here
every damaged or hostile file is an MXNetError found before anything large is allocated.
"""
import struct

import numpy as np
import pytest

import gluonedu as mx
from gluonedu import nd

V2 = 0xF993FAC9
HEADER = struct.pack('<QQ', 0x112, 0)


def _shape(*dims):
    return struct.pack('<i%dq' % len(dims), len(dims), *dims)


def _dense(values, dtype_flag=0, dims=None):
    values = np.asarray(values, dtype='<f4')
    dims = values.shape if dims is None else dims
    return (struct.pack('<Ii', V2, 0) + _shape(*dims) + struct.pack('<iii', 1, 0, dtype_flag)
            + values.tobytes())


def _file(tmp_path, arrays, names=(), tail=b''):
    body = HEADER + struct.pack('<Q', len(arrays)) + b''.join(arrays)
    body += struct.pack('<Q', len(names))
    for name in names:
        body += struct.pack('<Q', len(name)) + name
    fname = tmp_path / 'hostile.params'
    fname.write_bytes(body + tail)
    return str(fname)


@pytest.mark.parametrize('dtype', ['float32', 'float64', 'float16', 'uint8', 'int8', 'int32',
                                   'int64', 'bool'])
def test_every_dtype_round_trips(tmp_path, dtype):
    rng = np.random.RandomState(0)
    value = (rng.normal(size=(3, 4)) * 5).astype(dtype)
    fname = str(tmp_path / 'a.params')
    nd.save(fname, {'a': nd.array(value, dtype=dtype), 'scalar': nd.array([7], dtype=dtype)},
            format='mxnet')
    with open(fname, 'rb') as f:
        assert f.read(8) == struct.pack('<Q', 0x112)
    loaded = nd.load(fname)
    assert loaded['a'].dtype == np.dtype(dtype)
    np.testing.assert_array_equal(loaded['a'].asnumpy(), value)


def test_lists_and_row_sparse_round_trip(tmp_path):
    dense = np.arange(12, dtype=np.float32).reshape(4, 3)
    dense[[0, 2]] = 0
    fname = str(tmp_path / 'list.params')
    nd.save(fname, [nd.array(dense).tostype('row_sparse'), nd.ones((2,))], format='mxnet')
    sparse, ones = nd.load(fname)
    assert sparse.stype == 'row_sparse'
    np.testing.assert_array_equal(sparse.indices.asnumpy(), [1, 3])
    np.testing.assert_array_equal(sparse.tostype('default').asnumpy(), dense)
    np.testing.assert_array_equal(ones.asnumpy(), [1, 1])


def test_the_zip_format_stays_the_default(tmp_path):
    fname = str(tmp_path / 'default.params')
    nd.save(fname, {'a': nd.ones((2,))})
    with open(fname, 'rb') as f:
        assert f.read(2) == b'PK'
    with pytest.raises(ValueError, match="'gluonedu' or 'mxnet'"):
        nd.save(fname, {'a': nd.ones((2,))}, format='pickle')


def test_load_parameters_reads_either_format(tmp_path):
    net = mx.gluon.nn.Dense(3, in_units=4)
    net.initialize()
    params = {'weight': net.weight.data(), 'bias': net.bias.data()}
    for fmt in ('gluonedu', 'mxnet'):
        fname = str(tmp_path / ('%s.params' % fmt))
        nd.save(fname, params, format=fmt)
        other = mx.gluon.nn.Dense(3, in_units=4)
        other.load_parameters(fname)
        np.testing.assert_array_equal(other.weight.data().asnumpy(),
                                      net.weight.data().asnumpy())


@pytest.mark.parametrize('arrays, names, tail, says', [
    ([], (), b'', None),  # an empty list is valid
    ([_dense([1, 2])], (b'a', b'b'), b'', '2 names for 1 arrays'),
    ([_dense([1, 2])], (), b'junk', 'unexpected bytes'),
    ([_dense([1, 2]), _dense([3])], (b'a', b'a'), b'', 'names an array twice'),
    ([_dense([1, 2])], (b'\xff\xfe',), b'', 'not UTF-8'),
    ([_dense([1, 2], dtype_flag=12)], (), b'', 'bfloat16'),
    ([_dense([1, 2], dtype_flag=99)], (), b'', 'unknown type flag'),
    ([_dense([1, 2], dtype_flag=9)], (), b'', 'cannot hold'),  # uint16
    ([_dense([], dims=(10 ** 5, 10 ** 4))], (), b'', 'needs'),
    # shapes beyond MXNet's 32-bit sizes, empty ones too (MXNet 1.9.1 reads garbage shapes)
    ([_dense([], dims=(10 ** 9, 10 ** 9))], (), b'', 'limit of 2\\^31 - 1 elements'),
    ([_dense([], dims=(0, 2 ** 62))], (), b'', 'limit of 2\\^31 - 1 elements'),
    ([_dense([], dims=(2 ** 31, 0, 3))], (), b'', 'limit of 2\\^31 - 1 elements'),
    ([_dense([], dims=(-1, 2))], (), b'', 'negative'),
    ([struct.pack('<Ii', V2, 0) + struct.pack('<i', 99)], (), b'', 'dimensions'),
    ([struct.pack('<Ii', V2, 7)], (), b'', 'storage type'),
    ([struct.pack('<Ii', V2, 2)], (), b'', 'csr'),
    ([struct.pack('<Ii', V2, 0) + _shape(2) + struct.pack('<iii', 42, 0, 0)], (), b'',
     'invalid device'),
    ([_dense([1, 2])[:-3]], (), b'', 'ends early'),
    # row_sparse whose indices are out of range and not increasing
    ([struct.pack('<Ii', V2, 1) + _shape(2, 1) + _shape(3, 1) + struct.pack('<iii', 1, 0, 0)
      + struct.pack('<i', 6) + _shape(2) + np.ones(2, '<f4').tobytes()
      + np.array([2, 7], '<i8').tobytes()], (), b'', 'increasing ids'),
    ([struct.pack('<Ii', V2, 1) + _shape(2, 1) + _shape(3, 2) + struct.pack('<iii', 1, 0, 0)
      + struct.pack('<i', 6) + _shape(2)], (), b'', 'inconsistent shapes'),
])
def test_hostile_files_raise_mxnet_error(tmp_path, arrays, names, tail, says):
    fname = _file(tmp_path, arrays, names, tail)
    if says is None:
        assert nd.load(fname) == []
        return
    with pytest.raises(mx.MXNetError, match=says):
        nd.load(fname)


def test_counts_larger_than_the_file_are_refused_before_allocating(tmp_path):
    fname = tmp_path / 'count.params'
    fname.write_bytes(HEADER + struct.pack('<Q', 2 ** 40))
    with pytest.raises(mx.MXNetError, match='claims'):
        nd.load(str(fname))
    fname.write_bytes(HEADER + struct.pack('<Q', 1) + _dense([1.0])
                      + struct.pack('<QQ', 1, 2 ** 62))  # a name of 2^62 bytes
    with pytest.raises(mx.MXNetError, match='ends early'):
        nd.load(str(fname))


def test_files_before_v1_are_read(tmp_path):
    # MXNet 0.x: the shape as uint32 ndim and uint32 sizes, then device and type flag
    legacy = struct.pack('<III', 2, 1, 2) + struct.pack('<iii', 1, 0, 0) + \
        np.array([[1.5, 2.5]], '<f4').tobytes()
    (value,) = nd.load(_file(tmp_path, [legacy]))
    np.testing.assert_array_equal(value.asnumpy(), [[1.5, 2.5]])
