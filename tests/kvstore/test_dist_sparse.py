"""Sparse gradients on the distributed stores: multi-device workers, float16 rows."""
import asyncio
import warnings

import numpy as np
import pytest

import dist_helpers as helpers
import gluonedu as mx
from gluonedu.kvstore.dist_server import KVServer


@pytest.mark.parametrize('dtype', ['float32', 'float16'])
def test_two_workers_of_two_devices_train_a_sparse_embedding_as_one_process(ray_cluster,
                                                                           dtype):
    results = ray_cluster.run(helpers.train_sparse_embedding, 'dist_sync', dtype,
                              num_workers=2, num_servers=2)
    expected = helpers.train_sparse_embedding('device', dtype, num_slots=4)
    rtol, atol = (1e-5, 1e-6) if dtype == 'float32' else (1e-2, 1e-2)
    for result in results:
        assert result['stypes'] == ['row_sparse'] and result['update_on_kvstore'] is True
        np.testing.assert_allclose(result['table'], expected['table'], rtol=rtol, atol=atol)


def _rows(values, indices, dtype):
    return ('row_sparse', np.asarray(values, dtype=dtype), np.asarray(indices), (6, 2))


@pytest.mark.parametrize('optimizer', [None, 'sgd', 'sgd_mp'])
def test_a_sync_server_sums_float16_row_sparse_pushes_of_its_workers(optimizer):
    async def scenario():
        server = KVServer(0, 2, timeout=5)
        await server.set_mode(True)
        await server.init('0', 0, np.ones((6, 2), dtype=np.float16))
        if optimizer:
            await server.set_optimizer(mx.optimizer.SGD(
                learning_rate=0.5, multi_precision=optimizer == 'sgd_mp'))
        await asyncio.gather(
            server.push('0', 0, _rows([[1, 1], [2, 2]], [1, 4], np.float16)),
            server.push('0', 1, _rows([[3, 3], [1, 1]], [1, 5], np.float16)))
        return await server.pull('0')
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')   # the float16-without-multi_precision advice
        value, version = asyncio.run(scenario())
    summed = np.zeros((6, 2))
    summed[[1, 4, 5]] = [[4, 4], [2, 2], [1, 1]]
    # Without an optimizer the sum is the new value; with SGD only the pushed rows move.
    expected = summed if optimizer is None else 1 - 0.5 * summed
    assert version == 1 and value.dtype == np.float16
    np.testing.assert_array_equal(value, expected.astype(np.float16))


def test_a_worker_sums_its_devices_float16_rows_before_pushing():
    from gluonedu.kvstore.dist import DistKVStore
    a = mx.nd.sparse.row_sparse_array((np.ones((2, 2), np.float16), [1, 4]), shape=(6, 2),
                                      dtype='float16')
    b = mx.nd.sparse.row_sparse_array((np.ones((1, 2), np.float16), [4]), shape=(6, 2),
                                      dtype='float16', ctx=mx.cpu(1))
    worker = DistKVStore.__new__(DistKVStore)   # no cluster: only the local sum runs
    worker._worker = _OneServerRun()
    merged = worker._local_sum('w', worker._layout_of('w', a), [a, b])
    assert merged.stype == 'row_sparse' and merged.dtype == np.float16
    assert merged.indices.asnumpy().tolist() == [1, 4]
    np.testing.assert_array_equal(merged.data.asnumpy(), [[1, 1], [2, 2]])
    with pytest.raises(mx.MXNetError, match='csr'):
        worker._local_sum('w', worker._layout_of('w', a), [a.tostype('default')
                                                            .tostype('csr')])


class _OneServerRun:
    num_servers = 1
