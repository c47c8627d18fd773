"""mx.nd.save / mx.nd.load: lists and dicts, dtypes, row-sparse, no pickle, atomic writes."""
import json
import os
import pickle
import zipfile

import numpy as np
import pytest

import gluonedu as mx
from gluonedu import nd


def test_save_load_list_keeps_values_dtypes_and_order(tmp_path):
    fname = str(tmp_path / 'arrays.params')
    arrays = [nd.array([[1, 2], [3, 4]]), nd.array([1, 2], dtype='int64'),
              nd.array([0.5], dtype='float16'), nd.empty((0, 3), dtype='float64')]
    nd.save(fname, arrays)
    loaded = nd.load(fname)
    assert isinstance(loaded, list) and len(loaded) == 4
    for a, b in zip(arrays, loaded):
        assert b.dtype == a.dtype and b.shape == a.shape and b.context == mx.cpu(0)
        assert np.array_equal(a.asnumpy(), b.asnumpy())


def test_save_load_dict(tmp_path):
    fname = tmp_path / 'named.params'
    data = {'fc_weight': nd.ones((2, 3)), 'fc_bias': nd.array([1, 2], dtype='float64')}
    nd.save(str(fname), data)
    loaded = nd.load(str(fname))
    assert isinstance(loaded, dict) and set(loaded) == set(data)
    assert loaded['fc_bias'].dtype == np.float64
    assert loaded['fc_weight'].asnumpy().tolist() == [[1, 1, 1], [1, 1, 1]]


def test_save_single_array_loads_as_list(tmp_path):
    fname = str(tmp_path / 'one')
    nd.save(fname, nd.array([3]))
    assert [a.asnumpy().tolist() for a in nd.load(fname)] == [[3]]


def test_row_sparse_round_trip(tmp_path):
    fname = str(tmp_path / 'sparse')
    r = nd.sparse.row_sparse_array(([[1, 2], [3, 4]], [0, 3]), shape=(5, 2), dtype='float64')
    nd.save(fname, {'emb': r, 'dense': nd.ones(2)})
    loaded = nd.load(fname)
    assert loaded['emb'].stype == 'row_sparse' and loaded['emb'].dtype == np.float64
    assert loaded['emb'].indices.asnumpy().tolist() == [0, 3]
    assert loaded['emb'].asnumpy().tolist() == r.asnumpy().tolist()
    assert loaded['dense'].stype == 'default'


def test_load_onto_a_context(tmp_path):
    fname = str(tmp_path / 'ctx')
    nd.save(fname, [nd.ones(2)])
    assert nd.load(fname, ctx=mx.cpu(1))[0].context == mx.cpu(1)


def test_saving_from_another_context(tmp_path):
    fname = str(tmp_path / 'from_cpu1')
    nd.save(fname, [nd.ones(2, ctx=mx.cpu(1))])
    assert nd.load(fname)[0].context == mx.cpu(0)


def test_file_is_not_a_pickle(tmp_path):
    fname = str(tmp_path / 'plain')
    nd.save(fname, [nd.ones(2)])
    with open(fname, 'rb') as f:
        head = f.read(4)
    assert head == b'PK\x03\x04'  # a ZIP archive of .npy files and a JSON manifest
    with pytest.raises(Exception):
        with open(fname, 'rb') as f:
            pickle.load(f)


def test_in_memory_pickling_carries_values_dtype_and_context():
    # As MXNet (copy.deepcopy, multiprocessing); files go through nd.save, not pickle.
    a = nd.array([1, 2], dtype='float64', ctx=mx.cpu(1))
    b = pickle.loads(pickle.dumps(a))
    assert b.dtype == np.float64 and b.context == mx.cpu(1)
    assert b.asnumpy().tolist() == [1, 2]


def _rewrite_member(src, dst, member, payload):
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, 'w') as zout:
        for item in zin.infolist():
            zout.writestr(item, payload if item.filename == member else zin.read(item))


def test_object_array_inside_is_refused(tmp_path):
    fname = str(tmp_path / 'good')
    nd.save(fname, [nd.ones(2)])
    import io
    buf = io.BytesIO()
    np.save(buf, np.array([{'evil': 1}], dtype=object), allow_pickle=True)
    bad = str(tmp_path / 'bad')
    _rewrite_member(fname, bad, '0.npy', buf.getvalue())
    with pytest.raises(mx.MXNetError):
        nd.load(bad)


@pytest.mark.parametrize('damage', ['truncate', 'garbage', 'manifest', 'missing_member',
                                    'bad_npy', 'wrong_format'])
def test_damaged_files_raise_mxnet_error(tmp_path, damage):
    fname = str(tmp_path / 'good')
    nd.save(fname, {'w': nd.ones((3, 2)), 'b': nd.zeros(3)})
    bad = str(tmp_path / 'bad')
    raw = open(fname, 'rb').read()
    if damage == 'truncate':
        open(bad, 'wb').write(raw[:len(raw) // 2])
    elif damage == 'garbage':
        open(bad, 'wb').write(b'\x00not an array file' * 10)
    elif damage == 'manifest':
        _rewrite_member(fname, bad, 'manifest.json', b'{not json')
    elif damage == 'missing_member':
        with zipfile.ZipFile(fname) as zin, zipfile.ZipFile(bad, 'w') as zout:
            for item in zin.infolist():
                if item.filename != '1.npy':
                    zout.writestr(item, zin.read(item))
    elif damage == 'bad_npy':
        _rewrite_member(fname, bad, '0.npy', b'\x93NUMPY garbage')
    elif damage == 'wrong_format':
        _rewrite_member(fname, bad, 'manifest.json', b'{"format": "other", "version": 1}')
    with pytest.raises(mx.MXNetError):
        nd.load(bad)


def test_missing_file_raises_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        nd.load(str(tmp_path / 'nothing'))


def test_save_is_atomic_and_leaves_no_temp_files(tmp_path):
    fname = str(tmp_path / 'weights.params')
    nd.save(fname, [nd.ones(2)])
    nd.save(fname, [nd.zeros(3)])  # overwriting goes through a rename as well
    assert os.listdir(tmp_path) == ['weights.params']
    assert nd.load(fname)[0].shape == (3,)


def test_failed_save_keeps_the_old_file_and_leaves_no_temp_files(tmp_path):
    fname = str(tmp_path / 'weights.params')
    nd.save(fname, [nd.ones(2)])
    with pytest.raises(TypeError):
        nd.save(fname, [nd.ones(2), 'not an array'])
    with pytest.raises(TypeError):
        nd.save(fname, {1: nd.ones(2)})
    assert os.listdir(tmp_path) == ['weights.params']
    assert nd.load(fname)[0].asnumpy().tolist() == [1, 1]


def test_interrupted_write_leaves_no_temp_files(tmp_path):
    from gluonedu.files import atomic_write
    fname = str(tmp_path / 'file')

    def write(f):
        f.write(b'partial')
        raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        atomic_write(fname, write)
    assert os.listdir(tmp_path) == []


GOOD_MANIFEST_ENTRY = {'name': 'w', 'stype': 'default', 'shape': [3, 2], 'dtype': 'float32',
                       'files': {'data': '0.npy'}}


@pytest.mark.parametrize('manifest', [
    [1, 2],                                                          # not an object
    {'format': 'gluonedu.ndarray', 'version': 1, 'kind': 'list'},    # no arrays
    {'format': 'gluonedu.ndarray', 'version': 2, 'kind': 'list', 'arrays': []},
    {'format': 'gluonedu.ndarray', 'version': 1, 'kind': 'set', 'arrays': []},
    {'format': 'gluonedu.ndarray', 'version': 1, 'kind': 'list', 'arrays': [7]},
    {'format': 'gluonedu.ndarray', 'version': 1, 'kind': 'list',
     'arrays': [dict(GOOD_MANIFEST_ENTRY, files=None)]},
    {'format': 'gluonedu.ndarray', 'version': 1, 'kind': 'list',
     'arrays': [dict(GOOD_MANIFEST_ENTRY, stype='csr')]},
    {'format': 'gluonedu.ndarray', 'version': 1, 'kind': 'list',
     'arrays': [dict(GOOD_MANIFEST_ENTRY, shape='3x2')]},
    {'format': 'gluonedu.ndarray', 'version': 1, 'kind': 'dict',
     'arrays': [dict(GOOD_MANIFEST_ENTRY, name=5)]},
    {'format': 'gluonedu.ndarray', 'version': 1, 'kind': 'list',
     'arrays': [dict(GOOD_MANIFEST_ENTRY, files={'data': '../../etc/passwd'})]},
], ids=['list', 'no-arrays', 'version', 'kind', 'entry', 'files', 'stype', 'shape', 'name',
        'path'])
def test_tampered_manifest_raises_mxnet_error(tmp_path, manifest):
    fname = str(tmp_path / 'good')
    nd.save(fname, [nd.ones((3, 2))])
    bad = str(tmp_path / 'bad')
    _rewrite_member(fname, bad, 'manifest.json', json.dumps(manifest).encode())
    with pytest.raises(mx.MXNetError):
        nd.load(bad)


def test_flipped_bytes_and_truncation_anywhere_never_crash(tmp_path):
    fname = str(tmp_path / 'good')
    nd.save(fname, {'w': nd.array(np.arange(100.).reshape(10, 10)), 'b': nd.ones(3)})
    raw = open(fname, 'rb').read()
    bad = str(tmp_path / 'bad')
    damaged = [raw[:n] for n in range(0, len(raw), 17)]
    for pos in range(0, len(raw), 11):
        flipped = bytearray(raw)
        flipped[pos] ^= 0xFF
        damaged.append(bytes(flipped))
    for data in damaged:
        with open(bad, 'wb') as f:
            f.write(data)
        try:
            loaded = nd.load(bad)
        except mx.MXNetError:
            continue
        # a flip in unchecked zip metadata may leave the content intact
        assert loaded['w'].asnumpy().tolist() == np.arange(100.).reshape(10, 10).tolist()
