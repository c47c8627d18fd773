"""Row-sparse arrays: construction, conversion, retain, and sparse gradients."""
import numpy as np
import pytest

import gluonedu as mx
from gluonedu import autograd, nd
from gluonedu.test_utils import assert_almost_equal, rand_ndarray


def test_row_sparse_array_from_data_and_indices():
    r = nd.sparse.row_sparse_array(([[1, 2], [3, 4]], [3, 1]), shape=(5, 2))
    assert isinstance(r, nd.RowSparseNDArray) and r.stype == 'row_sparse'
    assert r.shape == (5, 2) and r.dtype == np.float32
    assert r.indices.dtype == np.int64
    assert r.indices.asnumpy().tolist() == [1, 3]  # sorted, rows moved with their ids
    assert r.data.asnumpy().tolist() == [[3, 4], [1, 2]]
    assert r.asnumpy().tolist() == [[0, 0], [3, 4], [0, 0], [1, 2], [0, 0]]
    assert repr(r) == '\n<RowSparseNDArray 5x2 @cpu(0)>'


def test_row_sparse_array_from_dense_keeps_only_nonzero_rows():
    dense = np.array([[0, 0], [1, 2], [0, 0], [0, 5]], dtype=np.float32)
    for source in (dense, nd.array(dense)):
        r = nd.sparse.row_sparse_array(source)
        assert r.indices.asnumpy().tolist() == [1, 3]
        assert r.data.asnumpy().tolist() == [[1, 2], [0, 5]]
    r = nd.array(dense).tostype('row_sparse')
    assert r.indices.asnumpy().tolist() == [1, 3]
    assert nd.sparse.row_sparse_array(r, dtype='float64').dtype == np.float64


@pytest.mark.parametrize('data, indices, shape', [([[1, 2]], [5], (3, 2)),        # out of range
                                                  ([[1, 2], [3, 4]], [1, 1], (3, 2)),  # repeated
                                                  ([[1, 2]], [0, 1], (3, 2)),      # count
                                                  ([[1, 2, 3]], [0], (3, 2))])     # row shape
def test_row_sparse_array_rejects_inconsistent_input(data, indices, shape):
    with pytest.raises(mx.MXNetError):
        nd.sparse.row_sparse_array((data, indices), shape=shape)


def test_tostype_both_ways():
    dense = nd.array([[0, 0], [7, 8], [0, 0]])
    sparse = dense.tostype('row_sparse')
    assert sparse.tostype('row_sparse') is sparse
    back = sparse.tostype('default')
    assert back.stype == 'default' and back.asnumpy().tolist() == dense.asnumpy().tolist()
    assert dense.tostype('default') is dense
    with pytest.raises(mx.MXNetError, match='unknown storage type'):  # as MXNet
        dense.tostype('dense')
    with pytest.raises(ValueError, match='tostype'):  # MXNet has no rsp -> csr cast
        sparse.tostype('csr')


def test_zeros_row_sparse():
    z = nd.zeros((4, 3), stype='row_sparse')
    assert z.shape == (4, 3) and z.data.shape == (0, 3) and z.indices.shape == (0,)
    assert not z.asnumpy().any()
    assert nd.sparse.zeros('row_sparse', (2, 2), dtype='float16').dtype == np.float16


def test_retain_keeps_the_requested_rows():
    r = nd.sparse.row_sparse_array(([[1, 2], [3, 4], [5, 6]], [0, 2, 4]), shape=(5, 2))
    kept = nd.sparse.retain(r, nd.array([4, 1, 0], dtype='int64'))
    assert kept.indices.asnumpy().tolist() == [0, 4]
    assert kept.data.asnumpy().tolist() == [[1, 2], [5, 6]]
    assert kept.shape == (5, 2)
    with pytest.raises(mx.MXNetError):
        nd.sparse.retain(nd.ones((2, 2)), nd.array([0]))


def test_copyto_context_and_astype():
    r = nd.sparse.row_sparse_array(([[1, 2]], [1]), shape=(3, 2))
    moved = r.copyto(mx.cpu(1))
    assert moved.stype == 'row_sparse' and moved.context == mx.cpu(1)
    assert moved.asnumpy().tolist() == r.asnumpy().tolist()
    assert r.astype('float64').dtype == np.float64


def test_rand_ndarray_row_sparse():
    np.random.seed(0)
    r = rand_ndarray((20, 3), stype='row_sparse', density=0.5)
    assert r.stype == 'row_sparse' and r.shape == (20, 3)
    assert 0 < r.indices.shape[0] < 20
    assert (r.data.asnumpy() > 0).all()
    empty = rand_ndarray((5, 3), stype='row_sparse', density=0.0)
    assert empty.indices.shape == (0,)


def test_embedding_sparse_grad_into_a_row_sparse_buffer():
    w = nd.array(np.arange(12).reshape(6, 2))
    w.attach_grad(stype='row_sparse')
    with autograd.record():
        y = nd.Embedding(nd.array([4, 1, 4]), w, input_dim=6, output_dim=2, sparse_grad=True)
    y.backward()
    assert w.grad.stype == 'row_sparse'
    assert w.grad.indices.asnumpy().tolist() == [1, 4]
    assert w.grad.data.asnumpy().tolist() == [[1, 1], [2, 2]]  # row 4 was looked up twice
    assert w._fresh_grad


@pytest.mark.parametrize('grad_req', ['write', 'add'])
def test_sparse_grad_req_write_and_add(grad_req):
    w = nd.ones((6, 2))
    w.attach_grad(grad_req=grad_req, stype='row_sparse')
    for ids in ([1, 3], [3, 5]):
        with autograd.record():
            y = nd.Embedding(nd.array(ids), w, input_dim=6, output_dim=2, sparse_grad=True)
        y.backward()
    if grad_req == 'write':
        assert w.grad.indices.asnumpy().tolist() == [3, 5]
        assert w.grad.data.asnumpy().tolist() == [[1, 1], [1, 1]]
    else:
        assert w.grad.indices.asnumpy().tolist() == [1, 3, 5]
        assert w.grad.data.asnumpy().tolist() == [[1, 1], [2, 2], [1, 1]]


def test_sparse_grad_of_two_lookups_in_one_graph():
    w = nd.ones((5, 2))
    w.attach_grad(stype='row_sparse')
    with autograd.record():
        a = nd.Embedding(nd.array([0, 2]), w, input_dim=5, output_dim=2, sparse_grad=True)
        b = nd.Embedding(nd.array([2, 4]), w, input_dim=5, output_dim=2, sparse_grad=True)
        y = (a * 2).sum() + b.sum()
    y.backward()
    assert w.grad.indices.asnumpy().tolist() == [0, 2, 4]
    assert_almost_equal(w.grad.tostype('default'), [[2, 2], [0, 0], [3, 3], [0, 0], [1, 1]])


def test_sparse_grad_buffer_is_zeroed_by_assignment():
    w = nd.ones((4, 2))
    w.attach_grad(stype='row_sparse')
    with autograd.record():
        y = nd.Embedding(nd.array([1]), w, input_dim=4, output_dim=2, sparse_grad=True)
    y.backward()
    w.grad[:] = 0
    assert w.grad.indices.shape == (0,) and not w.grad.asnumpy().any()


def test_row_sparse_rejects_unsupported_operations():
    r = nd.sparse.row_sparse_array(([[1, 2]], [1]), shape=(3, 2))
    with pytest.raises(mx.MXNetError):
        r[1]


def test_row_sparse_in_place_arithmetic_keeps_the_storage_as_mxnet():
    r = nd.sparse.row_sparse_array(([[1, 2]], [1]), shape=(3, 2))
    r *= 2                      # zeros stay zeros: still one stored row
    assert r.stype == 'row_sparse' and r.indices.asnumpy().tolist() == [1]
    r += 1                      # the dense result, stored back as rows
    assert r.stype == 'row_sparse' and r.indices.asnumpy().tolist() == [0, 1, 2]
    np.testing.assert_array_equal(r.asnumpy(), [[1, 1], [3, 5], [1, 1]])


def test_row_sparse_gather_and_scatter_rows():
    rsp = nd.sparse.row_sparse_array((np.array([[1., 2.], [3., 4.]]), [1, 3]), shape=(5, 2))
    rows = rsp[nd.array([3, 0, 1], dtype='int64')]
    np.testing.assert_array_equal(rows.asnumpy(), [[3, 4], [0, 0], [1, 2]])
    rsp[nd.array([0, 3], dtype='int64')] = nd.array([[9., 9.], [7., 7.]])
    assert rsp.indices.asnumpy().tolist() == [0, 1, 3]
    np.testing.assert_array_equal(rsp.asnumpy(), [[9, 9], [1, 2], [0, 0], [7, 7], [0, 0]])
