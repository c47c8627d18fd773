"""create(), the registry of custom stores, the 'teststore', and the errors MXNet raises."""
import warnings

import pytest

import gluonedu as mx
from gluonedu.base import MXNetError
from gluonedu.kvstore import KVStoreBase

SHAPE = (2, 3)


def test_unknown_type_lists_the_valid_ones():
    with pytest.raises(ValueError, match="unknown kvstore type 'foo'.*device, local"):
        mx.kv.create('foo')


def test_name_must_be_a_string():
    with pytest.raises(TypeError, match='string'):
        mx.kv.create(3)


@pytest.mark.parametrize('name', ['dist_sync', 'dist_async', 'dist_device_sync'])
def test_distributed_types_outside_a_worker_say_how_to_start_workers(name, monkeypatch):
    monkeypatch.delenv('GLUONEDU_DIST_GROUP', raising=False)
    with pytest.raises(MXNetError, match='gluonedu.launch'):
        mx.kv.create(name)


def test_nccl_without_cupy_names_what_is_missing():
    if mx.num_gpus() > 0:
        pytest.skip('this machine has a GPU; see test_nccl_on_gpu')
    with pytest.raises(MXNetError, match="'nccl' needs (CuPy|NCCL|a GPU)"):
        mx.kv.create('nccl')


@pytest.mark.skipif(mx.num_gpus() == 0, reason='needs a GPU with CuPy')
def test_nccl_on_gpu():
    try:
        kv = mx.kv.create('nccl')
    except MXNetError as err:
        pytest.skip(str(err))
    kv.init(0, mx.nd.zeros(SHAPE, ctx=mx.gpu(0)))
    kv.push(0, mx.nd.ones(SHAPE, ctx=mx.gpu(0)) * 3)
    out = mx.nd.zeros(SHAPE, ctx=mx.gpu(0))
    kv.pull(0, out=out)
    assert out.asnumpy()[0, 0] == 3
    with pytest.raises(MXNetError, match='GPU contexts only'):
        kv.push(0, mx.nd.ones(SHAPE))


@pytest.mark.parametrize('kind', ['local', 'device'])
def test_store_errors(kind):
    kv = mx.kv.create(kind)
    kv.init(3, mx.nd.ones(SHAPE))
    with pytest.raises(MXNetError, match='duplicate init of key 3'):
        kv.init(3, mx.nd.ones(SHAPE))
    with pytest.raises(MXNetError, match='key 99 has not been initialised'):
        kv.push(99, mx.nd.ones(SHAPE))
    with pytest.raises(MXNetError, match='not been initialised'):
        kv.pull(99, out=mx.nd.ones(SHAPE))
    with pytest.raises(MXNetError, match='not been initialised'):
        kv.pushpull(99, mx.nd.ones(SHAPE))
    with pytest.raises(MXNetError, match=r'shape \(3, 3\) does not match'):
        kv.push(3, [mx.nd.ones(SHAPE), mx.nd.ones((3, 3), ctx=mx.cpu(1))])
    with pytest.raises(MXNetError, match='does not match'):
        kv.pull(3, out=mx.nd.ones((3, 3)))
    with pytest.raises(MXNetError, match='mixed key types'):
        kv.init('a', mx.nd.ones(SHAPE))
    with pytest.raises(AssertionError, match='out='):
        kv.pull(3)
    with pytest.raises(ValueError, match='capability'):
        kv.is_capable('sparsity')


def test_compression_is_refused_by_local_stores():
    # As MXNet: only stores whose type contains 'device' (or 'dist') compress.
    for kind in ['local', 'local_update_cpu', 'local_allreduce_cpu']:
        with pytest.raises(MXNetError, match="not supported for a '%s' kvstore" % kind):
            mx.kv.create(kind).set_gradient_compression({'type': '2bit', 'threshold': 0.5})


@pytest.mark.parametrize('params, error, match', [
    ({'type': '1bit'}, MXNetError, "unknown gradient compression type '1bit'"),
    ({'type': '2BIT'}, MXNetError, 'unknown gradient compression type'),
    ({'threshold': 0.5}, MXNetError, "needs a 'type'"),
    ({'type': '2bit', 'threshold': 0}, MXNetError, 'greater than 0'),
    ({'type': '2bit', 'threshold': -1}, MXNetError, 'greater than 0'),
    ({'type': '2bit', 'threshold': 'abc'}, MXNetError, 'must be a float'),
    ('2bit', AssertionError, 'must be a dict'),
])
def test_bad_compression_params(params, error, match):
    with pytest.raises(error, match=match):
        mx.kv.create('device').set_gradient_compression(params)


def test_compression_params_as_mxnet_accepts_them():
    kv = mx.kv.create('device')
    kv.set_gradient_compression({'type': '2bit'})
    assert kv.gradient_compression.threshold == 0.5
    kv.set_gradient_compression({'type': '2bit', 'threshold': '0.25', 'unused': 1})
    assert kv.gradient_compression.threshold == 0.25


def test_teststore_is_registered_and_has_no_optimizer():
    assert KVStoreBase.kv_registry['teststore'] is mx.kv.TestStore
    kv = mx.kv.create('TestStore')
    assert (kv.type, kv.rank, kv.num_workers) == ('teststore', 0, 1)
    assert kv.is_capable('optimizer') is False
    with pytest.raises(ValueError):
        kv.is_capable('other')
    with pytest.raises(NotImplementedError):
        kv.set_optimizer(mx.optimizer.create('sgd'))


def test_teststore_pushpull_and_broadcast():
    kv = mx.kv.create('teststore')
    values = [mx.nd.ones(SHAPE), mx.nd.ones(SHAPE, ctx=mx.cpu(1)) * 2]
    kv.pushpull(0, values)
    assert [v.asnumpy()[0, 0] for v in values] == [3, 3]
    out = mx.nd.zeros(SHAPE, ctx=mx.cpu(2))
    kv.pushpull(0, values, out=out)
    assert out.asnumpy()[0, 0] == 6
    kv.pushpull(0, mx.nd.ones(SHAPE) * 4, out=[out])
    assert out.asnumpy()[0, 0] == 4
    outs = [mx.nd.zeros(SHAPE), mx.nd.zeros(SHAPE, ctx=mx.cpu(1))]
    kv.broadcast(0, mx.nd.ones(SHAPE) * 5, out=outs)
    assert [o.asnumpy()[0, 0] for o in outs] == [5, 5]


def test_register_a_custom_store_and_create_it_by_name():
    saved = dict(KVStoreBase.kv_registry)
    try:
        @KVStoreBase.register
        class MyKVStore(KVStoreBase):
            @property
            def type(self):
                return 'mykvstore'
        kv = mx.kv.create('MyKVStore')
        assert isinstance(kv, MyKVStore) and kv.type == 'mykvstore'
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter('always')

            @KVStoreBase.register
            class MyKVStore(KVStoreBase):  # noqa: F811  (re-registering on purpose)
                pass
        assert 'replaces' in str(caught[0].message)
        with pytest.raises(TypeError):
            KVStoreBase.register(lambda: None)
    finally:
        KVStoreBase.kv_registry.clear()
        KVStoreBase.kv_registry.update(saved)


def test_base_methods_are_abstract():
    base = KVStoreBase()
    for call in (lambda: base.type, lambda: base.rank, lambda: base.num_workers,
                 lambda: base.pushpull(0, mx.nd.ones(1)), lambda: base.is_capable('optimizer'),
                 lambda: base.broadcast(0, mx.nd.ones(1), mx.nd.ones(1)),
                 lambda: base.save_optimizer_states('x'), lambda: base.load_optimizer_states('x')):
        with pytest.raises(NotImplementedError):
            call()
