"""The 'local' and 'device' stores: every method's behaviour (MXNet 1.9.1 semantics)."""
import numpy as np
import pytest

import gluonedu as mx
from gluonedu.base import MXNetError

SHAPE = (2, 3)
TYPES = ['local', 'device']


@pytest.fixture(params=TYPES)
def kv(request):
    return mx.kv.create(request.param)


def test_kv_alias_and_properties(kv):
    assert mx.kv is mx.kvstore
    assert kv.type in TYPES
    assert (kv.rank, kv.num_workers) == (0, 1)
    assert kv.is_capable('optimizer') and kv.is_capable(mx.kv.KVStoreBase.OPTIMIZER)
    assert kv.is_capable('OPTIMIZER')


@pytest.mark.parametrize('name', ['LOCAL', 'Device', 'local_allreduce_device'])
def test_create_is_case_insensitive_and_knows_mxnet_aliases(name):
    assert mx.kv.create(name).type == name.lower()


def test_init_then_pull_into_several_contexts(kv):
    kv.init(3, mx.nd.ones(SHAPE) * 2)
    outs = [mx.nd.zeros(SHAPE, ctx=mx.cpu(i)) for i in range(3)]
    kv.pull(3, out=outs)
    for i, o in enumerate(outs):
        assert o.context == mx.cpu(i)
        np.testing.assert_array_equal(o.asnumpy(), np.full(SHAPE, 2, np.float32))


def test_init_and_pull_lists_of_string_keys(kv):
    keys = ['a', 'b', 'c']
    kv.init(keys, [mx.nd.ones(SHAPE) * i for i in range(3)])
    outs = [[mx.nd.zeros(SHAPE), mx.nd.zeros(SHAPE, ctx=mx.cpu(1))] for _ in keys]
    kv.pull(keys, out=outs)
    assert [o[1].asnumpy()[0, 0] for o in outs] == [0, 1, 2]


def test_push_sums_the_devices_and_replaces_the_value(kv):
    kv.init(0, mx.nd.ones(SHAPE) * 100)
    kv.push(0, [mx.nd.ones(SHAPE, ctx=mx.cpu(i)) * (i + 1) for i in range(4)])
    out = mx.nd.zeros(SHAPE)
    kv.pull(0, out=out)
    np.testing.assert_array_equal(out.asnumpy(), np.full(SHAPE, 10, np.float32))
    kv.push(0, mx.nd.ones(SHAPE) * 5)  # a single value replaces it too
    kv.pull(0, out=out)
    assert out.asnumpy()[0, 0] == 5


def test_push_copies_the_value(kv):
    # MXNet may alias the pushed array; gluonedu stores a copy.
    kv.init(0, mx.nd.zeros(SHAPE))
    value = mx.nd.ones(SHAPE)
    kv.push(0, value)
    value[:] = 7
    out = mx.nd.zeros(SHAPE)
    kv.pull(0, out=out)
    assert out.asnumpy()[0, 0] == 1


def test_repeated_keys_in_one_push_are_summed(kv):
    kv.init('a', mx.nd.zeros(2))
    kv.push(['a', 'a'], [mx.nd.ones(2) * 5, mx.nd.ones(2) * 7])
    out = mx.nd.zeros(2)
    kv.pull('a', out=out)
    assert out.asnumpy().tolist() == [12, 12]


def test_push_casts_to_the_stored_dtype(kv):
    kv.init(0, mx.nd.zeros(2))
    kv.push(0, mx.nd.ones(2, dtype='float64') * 1.5)
    out = mx.nd.zeros(2)
    kv.pull(0, out=out)
    assert out.asnumpy().tolist() == [1.5, 1.5]


def test_pushpull_writes_back_into_the_values_or_into_out(kv):
    kv.init(1, mx.nd.zeros(SHAPE))
    values = [mx.nd.ones(SHAPE), mx.nd.ones(SHAPE, ctx=mx.cpu(1)) * 2]
    kv.pushpull(1, values)
    assert [v.asnumpy()[0, 0] for v in values] == [3, 3]
    out = mx.nd.zeros(SHAPE, ctx=mx.cpu(2))
    kv.pushpull(1, values, out=out)
    assert out.asnumpy()[0, 0] == 6 and values[0].asnumpy()[0, 0] == 3


def test_broadcast_inits_and_copies_to_every_out(kv):
    outs = [mx.nd.zeros(SHAPE), mx.nd.zeros(SHAPE, ctx=mx.cpu(1))]
    kv.broadcast(5, mx.nd.ones(SHAPE) * 2, out=outs)
    assert [o.asnumpy()[0, 0] for o in outs] == [2, 2]
    with pytest.raises(MXNetError, match='duplicate init'):
        kv.broadcast(5, mx.nd.ones(SHAPE), out=outs)


def _rsp(rows, data, shape=(4, 3), ctx=None):
    return mx.nd.sparse.row_sparse_array((np.asarray(data, np.float32), rows), shape=shape,
                                         ctx=ctx)


def test_row_sparse_pull_returns_exactly_the_requested_rows(kv):
    kv.init(0, _rsp([1, 2], [[1, 1, 1], [2, 2, 2]]))
    out = mx.nd.sparse.zeros('row_sparse', (4, 3))
    kv.row_sparse_pull(0, out=out, row_ids=mx.nd.array([3, 1, 1], dtype='int64'))
    # unique and sorted; a row the store does not hold comes back as zeros (as MXNet)
    assert out.indices.asnumpy().tolist() == [1, 3]
    assert out.data.asnumpy().tolist() == [[1, 1, 1], [0, 0, 0]]


def test_row_sparse_pull_one_row_id_list_to_several_outs(kv):
    kv.init(0, _rsp([0, 3], [[1, 1, 1], [3, 3, 3]]))
    outs = [mx.nd.sparse.zeros('row_sparse', (4, 3), ctx=mx.cpu(i)) for i in range(2)]
    kv.row_sparse_pull(0, out=outs, row_ids=mx.nd.array([3]))
    assert [o.indices.asnumpy().tolist() for o in outs] == [[3], [3]]
    assert outs[1].context == mx.cpu(1)
    kv.row_sparse_pull(0, out=outs, row_ids=[mx.nd.array([0]), mx.nd.array([3])])
    assert [o.asnumpy()[:, 0].tolist() for o in outs] == [[1, 0, 0, 0], [0, 0, 0, 3]]


def test_row_sparse_push_and_pull_with_ignore_sparse(kv):
    kv.init(0, _rsp([0], [[9, 9, 9]]))
    kv.push(0, [_rsp([1], [[1, 1, 1]]), _rsp([1, 3], [[2, 2, 2], [4, 4, 4]], ctx=mx.cpu(1))])
    sparse_out = mx.nd.sparse.zeros('row_sparse', (4, 3))
    kv.pull(0, out=sparse_out)  # ignore_sparse=True leaves row-sparse outputs alone
    assert sparse_out.indices.asnumpy().tolist() == []
    kv.pull(0, out=sparse_out, ignore_sparse=False)
    assert sparse_out.indices.asnumpy().tolist() == [1, 3]
    dense_out = mx.nd.zeros((4, 3))
    kv.pull(0, out=dense_out)  # dense outputs always receive the value
    np.testing.assert_array_equal(dense_out.asnumpy()[:, 0], [0, 3, 0, 4])


def test_row_sparse_errors(kv):
    kv.init(0, mx.nd.zeros((4, 3)))
    kv.init(1, _rsp([0], [[1, 1, 1]]))
    with pytest.raises(MXNetError, match='row_sparse value'):
        kv.row_sparse_pull(0, out=mx.nd.sparse.zeros('row_sparse', (4, 3)),
                           row_ids=mx.nd.array([0]))
    with pytest.raises(MXNetError, match='RowSparseNDArrays'):
        kv.row_sparse_pull(1, out=mx.nd.zeros((4, 3)), row_ids=mx.nd.array([0]))
    outs = [mx.nd.sparse.zeros('row_sparse', (4, 3)) for _ in range(2)]
    with pytest.raises(AssertionError, match='number of row_ids'):
        kv.row_sparse_pull(1, out=outs, row_ids=[mx.nd.array([0])] * 3)


def test_updater_runs_on_push_with_merged_grad_and_stored_weight(kv):
    calls = []

    def updater(key, grad, weight):
        calls.append((key, grad.asnumpy().copy(), weight.context))
        weight[:] += grad * 2
    kv.init(3, mx.nd.ones(SHAPE))
    kv._set_updater(updater)
    kv.push(3, [mx.nd.ones(SHAPE), mx.nd.ones(SHAPE, ctx=mx.cpu(1))])
    out = mx.nd.zeros(SHAPE)
    kv.pull(3, out=out)
    assert out.asnumpy()[0, 0] == 5                   # 1 + 2 * (1 + 1)
    assert calls[0][0] == 3 and calls[0][1][0, 0] == 2
    # 'local' keeps weights in CPU memory (MXNet's pinned CPU context); 'device' on the
    # context the key was initialised on.
    assert calls[0][2] == (mx.cpu_pinned(0) if kv.type == 'local' else mx.cpu(0))


def test_set_optimizer_applies_the_optimizer_exactly_as_an_updater(kv):
    rng = np.random.RandomState(0)
    w0 = rng.randn(*SHAPE).astype(np.float32)
    grads = [[rng.randn(*SHAPE).astype(np.float32) for _ in range(2)] for _ in range(3)]
    kv.init(0, mx.nd.array(w0))
    kv.set_optimizer(mx.optimizer.create('adam', learning_rate=0.01, wd=0.01))
    reference = mx.optimizer.get_updater(mx.optimizer.create('adam', learning_rate=0.01,
                                                             wd=0.01))
    weight = mx.nd.array(w0)
    out = mx.nd.zeros(SHAPE)
    for g0, g1 in grads:
        kv.push(0, [mx.nd.array(g0), mx.nd.array(g1, ctx=mx.cpu(1))])
        reference(0, mx.nd.array(g0 + g1), weight)
        kv.pull(0, out=out)
        np.testing.assert_array_equal(out.asnumpy(), weight.asnumpy())


def test_save_and_load_optimizer_states_roundtrip(kv, tmp_path):
    fname = tmp_path / 'kv.states'
    kv.init(0, mx.nd.ones(SHAPE))
    kv.set_optimizer(mx.optimizer.create('sgd', learning_rate=0.1, momentum=0.9))
    kv.push(0, mx.nd.ones(SHAPE))
    kv.save_optimizer_states(str(fname), dump_optimizer=True)
    assert fname.read_bytes()[:2] == b'PK'          # the pickle-free ZIP format
    assert not [p for p in tmp_path.iterdir() if p.name != 'kv.states']  # no temp left

    def next_weight(store):
        store.push(0, mx.nd.ones(SHAPE))
        out = mx.nd.zeros(SHAPE)
        store.pull(0, out=out)
        return out.asnumpy()
    expected = next_weight(kv)
    kv.load_optimizer_states(str(fname))        # back to the saved momentum
    kv._store[0][:] = 1 - 0.1                    # and the saved weight
    np.testing.assert_allclose(next_weight(kv), expected, rtol=0, atol=0)
    assert kv._updater.optimizer.momentum == 0.9


def test_optimizer_states_need_an_optimizer(kv, tmp_path):
    with pytest.raises(AssertionError, match='set_optimizer'):
        kv.save_optimizer_states(str(tmp_path / 'x'))
    kv._set_updater(lambda key, grad, weight: None)
    with pytest.raises(TypeError, match='set_optimizer'):
        kv.load_optimizer_states(str(tmp_path / 'x'))


def test_load_rejects_a_foreign_file_and_keeps_the_states(kv, tmp_path):
    kv.init(0, mx.nd.ones(SHAPE))
    kv.set_optimizer(mx.optimizer.create('sgd', momentum=0.9))
    kv.push(0, mx.nd.ones(SHAPE))
    before = kv._updater.states[0].asnumpy()
    bad = tmp_path / 'bad'
    bad.write_bytes(b'not optimizer states')
    with pytest.raises(MXNetError):
        kv.load_optimizer_states(str(bad))
    np.testing.assert_array_equal(kv._updater.states[0].asnumpy(), before)


def test_barrier_and_server_commands_are_no_ops(kv):
    assert kv.barrier() is None and kv._barrier() is None
    assert kv._send_command_to_servers(0, '') is None


def test_optimizer_states_show_what_the_store_optimizer_keeps(kv):
    assert dict(kv.optimizer_states) == {}                 # no optimizer: nothing kept
    kv.init(0, mx.nd.ones(SHAPE))
    kv.init(1, mx.nd.ones(SHAPE))
    kv.set_optimizer(mx.optimizer.create('sgd', learning_rate=0.1, momentum=0.9))
    assert dict(kv.optimizer_states) == {}
    kv.push(0, [mx.nd.ones(SHAPE), mx.nd.ones(SHAPE, ctx=mx.cpu(1))])
    assert list(kv.optimizer_states) == [0]                # a key appears with its update
    # MXNet's momentum holds the last step, -lr * (sum of the pushed gradients)
    np.testing.assert_allclose(kv.optimizer_states[0].asnumpy(), -0.1 * 2, rtol=1e-6)
    with pytest.raises(TypeError):
        kv.optimizer_states[1] = mx.nd.ones(SHAPE)         # read-only
