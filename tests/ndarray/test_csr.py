"""CSR arrays: construction and validation, rows, storage rules, dot and its gradients,
files. (Values and errors against MXNet 1.9.1: tests/parity/ndarray/test_sparse_parity.py.)"""
import copy
import pickle
import zipfile

import numpy as np
import pytest

import gluonedu as mx
from gluonedu import autograd, nd

DENSE = np.array([[0, 1, 0], [2, 0, 3], [0, 0, 0], [4, 0, 0]], dtype=np.float32)


def csr():
    return nd.array(DENSE).tostype('csr')


def test_the_three_arrays_describe_the_matrix():
    x = csr()
    assert isinstance(x, nd.CSRNDArray) and isinstance(x, nd.sparse.BaseSparseNDArray)
    assert x.stype == 'csr' and x.shape == (4, 3) and x.dtype == np.float32
    assert x.data.asnumpy().tolist() == [1, 2, 3, 4]
    assert x.indices.asnumpy().tolist() == [1, 0, 2, 0]
    assert x.indptr.asnumpy().tolist() == [0, 1, 3, 3, 4]
    assert x.indices.dtype == x.indptr.dtype == np.int64
    assert repr(x) == '\n<CSRNDArray 4x3 @cpu(0)>'
    x.data[:] = 0                      # the properties are copies, as MXNet's
    assert x.asnumpy().tolist() == DENSE.tolist()


@pytest.mark.parametrize('parts, problem', [
    (([1., 2, 3], [1, 0, 2], [0, 1, 4, 3]), 'non-decreasing'),
    (([1., 2, 3], [1, 0, 5], [0, 1, 3, 3]), r'\[0, 4\)'),
    (([1., 2, 3], [1, 2, 0], [0, 1, 3, 3]), 'increasing'),
    (([1., 2, 3], [1, 0, 2], [1, 1, 3, 3]), 'start at 0'),
    (([1., 2], [1, 0, 2], [0, 1, 3, 3]), '2 values but indices has 3'),
    (([1., 2, 3], [1, 0, 2], [0, 1, 3]), 'indptr has 3 entries'),
    (([1., 2, 3], [1.5, 0, 2], [0, 1, 3, 3]), 'whole numbers'),
])
def test_invalid_arrays_are_refused_with_what_is_wrong(parts, problem):
    with pytest.raises(mx.MXNetError, match=problem):
        nd.sparse.csr_matrix(parts, shape=(3, 4))


def test_csr_matrix_sources():
    from_coo = nd.sparse.csr_matrix(([1., 2, 5], ([0, 2, 0], [1, 0, 1])), shape=(3, 3))
    assert from_coo.asnumpy().tolist() == [[0, 6, 0], [0, 0, 0], [2, 0, 0]]  # repeats summed
    assert nd.sparse.csr_matrix((2, 5)).indptr.asnumpy().tolist() == [0, 0, 0]
    on_cpu1 = nd.sparse.csr_matrix(DENSE, ctx=mx.cpu(1))
    assert on_cpu1.context == mx.cpu(1) and on_cpu1.dtype == np.float32
    assert nd.sparse.csr_matrix(DENSE.astype(np.int32)).dtype == np.int32
    scipy_sparse = pytest.importorskip('scipy.sparse')
    back = nd.sparse.csr_matrix(scipy_sparse.coo_matrix(DENSE))
    assert back.asnumpy().tolist() == DENSE.tolist()
    as_scipy = csr().asscipy()
    assert isinstance(as_scipy, scipy_sparse.csr_matrix)
    np.testing.assert_array_equal(as_scipy.toarray(), DENSE)


def test_rows_are_cut_at_indptr():
    x = csr()
    rows = x[1:3]
    assert rows.stype == 'csr' and rows.indptr.asnumpy().tolist() == [0, 2, 2]
    assert x[-1].asnumpy().tolist() == [[4, 0, 0]]
    assert x[:] is x
    assert x.take(nd.array([3, 0, 3])).asnumpy().tolist() == [[4, 0, 0], [0, 1, 0], [4, 0, 0]]
    assert [r.shape for r in x] == [(1, 3)] * 4
    with pytest.raises(mx.MXNetError, match='non-empty'):
        x[4]
    with pytest.raises(ValueError, match='step'):
        x[::2]
    with pytest.raises(mx.base.NotSupportedForSparseNDArray, match='reshape'):
        x.reshape((3, 4))


def test_writes_replace_the_whole_array():
    x = nd.zeros((4, 3), stype='csr')
    x[:] = nd.array(DENSE) * 2
    assert x.stype == 'csr' and x.asnumpy().tolist() == (DENSE * 2).tolist()
    x[:] = np.ones((4, 3))
    assert x.data.shape == (12,)
    x += x
    x *= 0.5
    assert x.stype == 'csr' and x.asnumpy().tolist() == np.ones((4, 3)).tolist()
    with pytest.raises(mx.MXNetError, match='whole'):
        x[1] = nd.ones((1, 3))
    with autograd.record():
        w = nd.ones((4, 3))
        w.attach_grad()
    with pytest.raises(mx.MXNetError, match='recording'):
        with autograd.record():
            y = csr()
            y.attach_grad()
            y += w


def test_storage_follows_mxnet_and_values_the_dense_result():
    x, d = csr(), nd.array(DENSE + 1)
    cases = {'x * 2': (x * 2, 'csr'), 'x + x': (x + x, 'csr'), 'x + 1': (x + 1, 'default'),
             'x * d': (x * d, 'csr'), 'd * x': (d * x, 'default'), 'x > 0': (x > 0, 'csr'),
             'x > -1': (x > -1, 'default'), 'abs': (abs(-x), 'csr'),
             'square': (nd.sparse.square(x), 'csr'), 'exp': (nd.sparse.exp(x), 'default'),
             'nd.square': (nd.square(x), 'default')}
    dense = {'x * 2': DENSE * 2, 'x + x': DENSE * 2, 'x + 1': DENSE + 1,
             'x * d': DENSE * (DENSE + 1), 'd * x': DENSE * (DENSE + 1), 'x > 0': DENSE > 0,
             'x > -1': DENSE > -1, 'abs': DENSE, 'square': DENSE ** 2, 'exp': np.exp(DENSE),
             'nd.square': DENSE ** 2}
    for name, (result, stype) in cases.items():
        assert result.stype == stype, name
        np.testing.assert_allclose(result.asnumpy(), dense[name], rtol=1e-6, err_msg=name)


def test_reductions_read_only_the_stored_values():
    x = mx.test_utils.rand_ndarray((50, 1000000), stype='csr', density=2e-5)
    assert x.data.shape == (1000,)
    by_row = x.sum(axis=1)                     # no dense (50, 1e6) array is made
    assert by_row.shape == (50,) and by_row.stype == 'default'
    np.testing.assert_allclose(by_row.sum().asscalar(), x.data.sum().asscalar(), rtol=1e-5)
    np.testing.assert_allclose(x.norm().asscalar(),
                               np.sqrt((x.data.asnumpy().astype(np.float64) ** 2).sum()),
                               rtol=1e-5)


def test_dot_reads_only_the_weight_rows_its_columns_pick():
    x = csr()
    w = nd.sparse.retain(nd.array(np.arange(6).reshape(3, 2)).tostype('row_sparse'),
                         nd.array([0, 2], dtype='int64'))
    np.testing.assert_array_equal(nd.sparse.dot(x, w).asnumpy(),
                                  DENSE @ w.asnumpy())
    assert nd.dot(x, nd.ones((3, 2))).stype == 'default'
    t = nd.dot(x, nd.ones((4, 2)), transpose_a=True)
    assert t.stype == 'row_sparse' and t.indices.asnumpy().tolist() == [0, 1, 2]
    assert nd.dot(nd.ones((2, 4)), x).stype == 'csr'


@pytest.mark.parametrize('grad_stype', [None, 'row_sparse'])
def test_dot_gradient_of_the_weight_is_the_rows_of_the_columns_present(grad_stype):
    x = nd.sparse.csr_matrix(([1., 2, 3], [0, 4, 4], [0, 2, 3]), shape=(2, 6))
    w = nd.array(np.arange(12).reshape(6, 2))
    w.attach_grad(stype=grad_stype)
    head = np.array([[1., 2], [3, 4]], dtype=np.float32)
    with autograd.record():
        y = nd.sparse.dot(x, w)
    y.backward(nd.array(head))
    expected = x.asnumpy().T @ head
    np.testing.assert_allclose(w.grad.asnumpy(), expected)
    if grad_stype:
        assert w.grad.stype == 'row_sparse' and w.grad.indices.asnumpy().tolist() == [0, 4]


def test_gradients_flow_through_storage_fallbacks_to_a_csr_variable():
    x = csr()
    x.attach_grad()
    assert x.grad.stype == 'csr'
    with autograd.record():
        y = ((x * 3) + 1).sum() + nd.sparse.dot(x, nd.ones((3, 1))).sum()
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), np.full((4, 3), 4.0))


def test_save_load_round_trip_and_a_damaged_file(tmp_path):
    fname = tmp_path / 'x.nd'
    nd.save(fname, [csr(), nd.zeros((2, 5), stype='csr', dtype='float64')])
    x, empty = nd.load(fname)
    assert x.stype == empty.stype == 'csr' and empty.dtype == np.float64
    assert x.asnumpy().tolist() == DENSE.tolist()
    with zipfile.ZipFile(fname) as zf:
        members = {name: zf.read(name) for name in zf.namelist()}
    import io
    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.array([0, 1, 9, 3, 4]))   # indptr out of order
    members['0.indptr.npy'] = buf.getvalue()
    with zipfile.ZipFile(fname, 'w') as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    with pytest.raises(mx.MXNetError, match='damaged.*not a valid csr array'):
        nd.load(fname)


def test_copies_keep_the_storage():
    x = csr()
    for other in (copy.deepcopy(x), pickle.loads(pickle.dumps(x)), x.copy(),
                  x.copyto(mx.cpu(1)), x.astype('float64'), x.tostype('csr')):
        assert other.stype == 'csr' and other is not x
        assert other.asnumpy().tolist() == DENSE.tolist()
    target = nd.zeros((4, 3), stype='csr')
    assert x.copyto(target) is target and target.asnumpy().tolist() == DENSE.tolist()


def test_optimizers_update_csr_weights_through_dense_stand_ins():
    weight = nd.array(DENSE + 1).tostype('csr')
    reference = nd.array(DENSE + 1)
    grad = csr()
    for w in (weight, reference):
        opt = mx.optimizer.Adam(learning_rate=0.1)
        state = opt.create_state(0, w)
        opt.update(0, w, grad, state)
    assert weight.stype == 'csr'
    np.testing.assert_allclose(weight.asnumpy(), reference.asnumpy(), rtol=1e-6)


def test_a_store_refuses_csr_pushes():
    kv = mx.kv.create('device')
    kv.init(0, nd.zeros((4, 3)))
    with pytest.raises(mx.MXNetError, match='csr value cannot be pushed'):
        kv.push(0, [csr(), csr()])


def test_a_recorded_whole_write_passes_gradients_on():
    w = nd.array([[1, 0], [0, 2]])
    w.attach_grad()
    x = nd.zeros((2, 2), stype='csr')
    with autograd.record():
        x[:] = w * 3
        y = (x * x).sum()
    y.backward()
    np.testing.assert_allclose(w.grad.asnumpy(), 18 * w.asnumpy())


def test_integer_csr_reductions_keep_the_dtype():
    x = nd.array([[0, 1], [3, 0]], dtype='int32').tostype('csr')
    assert x.mean(axis=1).dtype == np.int32 and x.mean(axis=1).asnumpy().tolist() == [0, 1]
    assert x.norm().dtype == np.int32
