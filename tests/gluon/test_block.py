"""Block and HybridBlock: MXNet 1.9.1 semantics (naming, parameters, hooks, save/load)."""
import re
import warnings

import numpy as np
import pytest

import gluonedu as mx
from gluonedu import autograd, gluon, nd
from gluonedu.gluon import Block, HybridBlock, nn
from gluonedu.gluon import DeferredInitializationError, ParameterDict


@pytest.fixture(autouse=True)
def fresh_names():
    """Automatic names count per thread; a fresh NameManager makes them start at 0."""
    with mx.name.NameManager():
        yield


# ---------------------------------------------------------------------- examples
def test_block_docstring_example_runs_unchanged():
    from gluonedu.gluon import Block, nn  # noqa: F811  (as the example writes it)
    from gluonedu import ndarray as F

    class Model(Block):
        def __init__(self, **kwargs):
            super(Model, self).__init__(**kwargs)
            # use name_scope to give child Blocks appropriate names.
            with self.name_scope():
                self.dense0 = nn.Dense(20)
                self.dense1 = nn.Dense(20)

        def forward(self, x):
            x = F.relu(self.dense0(x))
            return F.relu(self.dense1(x))

    model = Model()
    model.initialize(ctx=mx.cpu(0))
    out = model(F.zeros((10, 10), ctx=mx.cpu(0)))
    assert out.shape == (10, 20)
    assert out.context == mx.cpu(0)
    assert sorted(model.collect_params().keys()) == [
        'model0_dense0_bias', 'model0_dense0_weight', 'model0_dense1_bias',
        'model0_dense1_weight']


def test_hybrid_block_docstring_example_runs_unchanged():
    from gluonedu.gluon import HybridBlock, nn  # noqa: F811

    class Model(HybridBlock):
        def __init__(self, **kwargs):
            super(Model, self).__init__(**kwargs)
            # use name_scope to give child Blocks appropriate names.
            with self.name_scope():
                self.dense0 = nn.Dense(20)
                self.dense1 = nn.Dense(20)

        def hybrid_forward(self, F, x):
            x = F.relu(self.dense0(x))
            return F.relu(self.dense1(x))

    model = Model()
    model.initialize(ctx=mx.cpu(0))
    x = mx.nd.random.uniform(shape=(10, 10), ctx=mx.cpu(0))
    before = model(x).asnumpy()
    model.hybridize()
    after = model(x).asnumpy()
    assert after.shape == (10, 20)
    np.testing.assert_array_equal(before, after)
    assert model(mx.nd.zeros((10, 10), ctx=mx.cpu(0))).shape == (10, 20)


def test_block_params_docstring_example_shares_weights():
    dense0 = nn.Dense(20)
    dense1 = nn.Dense(20, params=dense0.collect_params())
    assert dense1.weight is dense0.weight and dense1.bias is dense0.bias
    assert dense1.prefix == 'dense1_'
    dense0.initialize()
    x = nd.ones((2, 3))
    np.testing.assert_array_equal(dense0(x).asnumpy(), dense1(x).asnumpy())


# ---------------------------------------------------------------------- naming
def test_top_level_prefixes_count_per_class_name():
    assert nn.Dense(10).prefix == 'dense0_'
    assert nn.Dense(10).prefix == 'dense1_'
    assert nn.Sequential().prefix == 'sequential0_'
    assert nn.Dense(10).name == 'dense2'
    assert nn.Activation('relu').prefix == 'relu0_'      # the hint is the activation
    assert nn.Activation('tanh').prefix == 'tanh0_'
    assert nn.Activation('relu').prefix == 'relu1_'


def test_params_are_named_prefix_plus_name():
    dense = nn.Dense(10)
    assert list(dense.params.keys()) == ['dense0_weight', 'dense0_bias']
    assert dense.params.prefix == 'dense0_'
    assert isinstance(dense.params, ParameterDict)
    assert dense.weight.name == 'dense0_weight'


def test_children_in_name_scope_get_parent_prefix_and_own_counters():
    nn.Dense(3)                                   # the global counter is now at dense1
    net = nn.Sequential()
    with net.name_scope():
        net.add(nn.Dense(10, activation='relu'))
        net.add(nn.Dense(20))
        net.add(nn.Activation('relu'))
    assert [b.prefix for b in net] == ['sequential0_dense0_', 'sequential0_dense1_',
                                       'sequential0_relu0_']
    assert net[0].act.prefix == 'sequential0_dense0_relu_'
    assert list(net.collect_params().keys()) == [
        'sequential0_dense0_weight', 'sequential0_dense0_bias',
        'sequential0_dense1_weight', 'sequential0_dense1_bias']
    assert nn.Dense(1).prefix == 'dense1_'        # the global counter went on unchanged


def test_nested_name_scopes():
    class Inner(Block):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.fc = nn.Dense(2)

    outer = nn.Sequential()
    with outer.name_scope():
        outer.add(Inner(), Inner())
    assert outer[0].fc.weight.name == 'sequential0_inner0_dense0_weight'
    assert outer[1].fc.weight.name == 'sequential0_inner1_dense0_weight'


def test_children_created_outside_name_scope_get_global_names():
    net = nn.Sequential()
    net.add(nn.Dense(3))
    assert net[0].prefix == 'dense0_'


def test_explicit_and_empty_prefix():
    net = nn.Sequential(prefix='model_')
    with net.name_scope():
        net.add(nn.Dense(3, prefix='fc_'))
    assert net.name == 'model'
    assert net[0].weight.name == 'model_fc_weight'
    flat = nn.Sequential(prefix='')
    with flat.name_scope():                       # an empty prefix opens no scope
        flat.add(nn.Dense(3))
    assert flat.prefix == '' and flat.name == ''
    assert flat[0].prefix == 'dense0_'


def test_name_manager_scope_restores_outer_counters():
    assert nn.Dense(1).prefix == 'dense0_'
    with mx.name.NameManager():
        assert nn.Dense(1).prefix == 'dense0_'
    assert nn.Dense(1).prefix == 'dense1_'
    assert mx.name.NameManager().get('given', 'dense') == 'given'
    assert mx.name.Prefix('net_').get(None, 'fc') == 'net_fc0'


# ---------------------------------------------------------------------- parameters
def test_collect_params_recursive_and_select():
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Dense(4), nn.Dense(2, use_bias=False), nn.Embedding(5, 3))
    params = net.collect_params()
    assert isinstance(params, ParameterDict)
    assert params.prefix == 'hybridsequential0_'
    assert list(net.params.keys()) == []          # params holds the Block's own only
    assert list(params.keys()) == [
        'hybridsequential0_dense0_weight', 'hybridsequential0_dense0_bias',
        'hybridsequential0_dense1_weight', 'hybridsequential0_embedding0_weight']
    assert list(net.collect_params('.*bias').keys()) == ['hybridsequential0_dense0_bias']
    assert list(net.collect_params('.*dense0_weight|.*embedding0_weight').keys()) == [
        'hybridsequential0_dense0_weight', 'hybridsequential0_embedding0_weight']
    assert list(net.collect_params('weight').keys()) == []   # re.match: from the start


def test_shared_params_via_params_argument():
    net = nn.Sequential()
    with net.name_scope():
        net.add(nn.Dense(4, in_units=3))
        net.add(nn.Dense(4, in_units=3, params=net[0].params))
    assert net[1].weight is net[0].weight
    assert net[1].prefix == 'sequential0_dense1_'
    assert net[1].params.prefix == 'sequential0_dense0_'
    assert len(net.collect_params().keys()) == 2
    net.initialize()
    x = nd.ones((1, 3))
    np.testing.assert_array_equal(net[0](x).asnumpy(), net[1](x).asnumpy())


def test_changing_attribute_type_is_a_type_error():
    net = nn.Sequential()
    net.fc = nn.Dense(2)
    with pytest.raises(TypeError, match='Changing attribute type for fc'):
        net.fc = 3
    net.fc = nn.Dense(3)                          # same type: allowed
    assert net._children['fc'] is net.fc


def test_overriding_parameter_attribute_is_an_error():
    dense = nn.Dense(2)
    with pytest.raises(AssertionError, match='params='):
        dense.weight = gluon.Parameter('other', shape=(2, 2))


def test_child_assigned_before_super_init_gets_helpful_error():
    class Broken(Block):
        def __init__(self):
            self.fc = nn.Dense(2)
            super().__init__()

    with pytest.raises(AttributeError, match=r'super\(\).__init__'):
        Broken()


def test_register_child_and_unregistered_container_warning():
    class Holder(Block):
        def __init__(self):
            super().__init__()
            self.layers = [nn.Dense(2), nn.Dense(3)]

    holder = Holder()
    with pytest.warns(UserWarning, match='Holder.layers'):
        assert list(holder.collect_params().keys()) == []
    for layer in holder.layers:
        holder.register_child(layer)
    assert list(holder._children) == ['0', '1']
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        assert len(holder.collect_params().keys()) == 4


def test_deferred_init_until_first_forward():
    dense = nn.Dense(10)
    assert dense.weight.shape == (10, 0)
    dense.initialize()
    with pytest.raises(DeferredInitializationError, match='dense0_weight.*forward'):
        dense.weight.data()
    assert repr(dense) == 'Dense(None -> 10, linear)'
    out = dense(nd.ones((4, 2, 3)))               # flatten: in_units = 2 * 3
    assert out.shape == (4, 10)
    assert dense.weight.shape == (10, 6)
    assert dense.weight.data().shape == (10, 6)
    assert repr(dense) == 'Dense(6 -> 10, linear)'


def test_deferred_init_without_infer_shape_is_a_value_error():
    class Custom(HybridBlock):
        def __init__(self):
            super().__init__()
            self.w = self.params.get('w', shape=(0, 3), allow_deferred_init=True)

        def hybrid_forward(self, F, x, w):
            return x

    block = Custom()
    block.initialize()
    with pytest.raises(ValueError, match='Deferred initialization failed.*infer_shape'):
        block(nd.ones((2, 3)))


def test_custom_infer_shape_finishes_deferred_init():
    class Scale(HybridBlock):
        def __init__(self):
            super().__init__()
            self.scale = self.params.get('scale', shape=(0,), init='ones',
                                         allow_deferred_init=True)

        def infer_shape(self, x):
            self.scale.shape = (x.shape[-1],)

        def hybrid_forward(self, F, x, scale):
            return F.broadcast_mul(x, scale)

    block = Scale()
    block.initialize()
    np.testing.assert_array_equal(block(nd.ones((2, 5)) * 3).asnumpy(), np.full((2, 5), 3))
    assert block.scale.shape == (5,)


def test_uninitialized_block_raises_runtime_error():
    dense = nn.Dense(3, in_units=2)
    with pytest.raises(RuntimeError, match='initialize'):
        dense(nd.ones((1, 2)))


def test_multiple_contexts_forward_uses_the_input_context_copy():
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Dense(3, in_units=4))
    net.initialize(ctx=[mx.cpu(0), mx.cpu(1)])
    weight = net[0].weight
    assert weight.list_ctx() == [mx.cpu(0), mx.cpu(1)]
    weight.data(mx.cpu(1))[:] = 2.0              # make the two copies differ
    x0 = nd.ones((2, 4), ctx=mx.cpu(0))
    x1 = nd.ones((2, 4), ctx=mx.cpu(1))
    out1 = net(x1)
    assert out1.context == mx.cpu(1)
    np.testing.assert_allclose(out1.asnumpy(), np.full((2, 3), 8.0))
    out0 = net(x0)
    assert out0.context == mx.cpu(0)
    assert not np.allclose(out0.asnumpy(), 8.0)
    with autograd.record():
        loss = net(x1).sum()
    loss.backward()
    np.testing.assert_allclose(weight.grad(mx.cpu(1)).asnumpy(), np.full((3, 4), 2.0))
    np.testing.assert_array_equal(weight.grad(mx.cpu(0)).asnumpy(), np.zeros((3, 4)))


def test_deferred_init_on_several_contexts():
    dense = nn.Dense(3)
    dense.initialize(ctx=[mx.cpu(0), mx.cpu(1)])
    dense(nd.ones((2, 5), ctx=mx.cpu(1)))
    assert dense.weight.list_ctx() == [mx.cpu(0), mx.cpu(1)]
    np.testing.assert_array_equal(dense.weight.data(mx.cpu(0)).asnumpy(),
                                  dense.weight.data(mx.cpu(1)).asnumpy())


# ---------------------------------------------------------------------- hooks
def test_forward_hooks_called_in_order_and_detachable():
    dense = nn.Dense(2, in_units=3)
    dense.initialize()
    calls = []

    def pre_hook(block, inputs):
        calls.append(('pre', block.name, [x.shape for x in inputs]))

    def hook(block, inputs, output):
        calls.append(('post', block.name, output.shape))

    pre_handle = dense.register_forward_pre_hook(pre_hook)
    handle = dense.register_forward_hook(hook)
    dense(nd.ones((4, 3)))
    assert calls == [('pre', 'dense0', [(4, 3)]), ('post', 'dense0', (4, 2))]
    pre_handle.detach()
    dense(nd.ones((1, 3)))
    assert calls[2:] == [('post', 'dense0', (1, 2))]
    handle.detach()
    handle.detach()                               # detaching twice is harmless
    dense(nd.ones((1, 3)))
    assert len(calls) == 3


def test_hook_handle_as_context_manager():
    dense = nn.Dense(2, in_units=3)
    dense.initialize()
    seen = []
    with dense.register_forward_hook(lambda b, i, o: seen.append(o.shape)):
        dense(nd.ones((1, 3)))
    dense(nd.ones((1, 3)))
    assert seen == [(1, 2)]


# ---------------------------------------------------------------------- save / load
def _mlp(**kwargs):
    net = nn.HybridSequential(**kwargs)
    with net.name_scope():
        net.add(nn.Dense(8, activation='relu'), nn.Dropout(0.5), nn.Dense(3))
    return net


def test_save_load_parameters_roundtrip_into_fresh_net(tmp_path):
    net = _mlp()
    net.initialize(mx.init.Xavier())
    x = nd.random.uniform(shape=(5, 4))
    expected = net(x).asnumpy()
    fname = str(tmp_path / 'mlp.params')
    net.save_parameters(fname)
    assert sorted(nd.load(fname).keys()) == ['0.bias', '0.weight', '2.bias', '2.weight']

    fresh = _mlp()                                # other prefixes: hybridsequential1_
    assert fresh.prefix != net.prefix
    fresh.load_parameters(fname, ctx=mx.cpu(0))
    for a, b in zip(net.collect_params().values(), fresh.collect_params().values()):
        np.testing.assert_array_equal(a.data().asnumpy(), b.data().asnumpy())
    np.testing.assert_array_equal(fresh(x).asnumpy(), expected)


def test_load_parameters_missing_and_extra(tmp_path):
    small = nn.HybridSequential()
    with small.name_scope():
        small.add(nn.Dense(3, in_units=2))
    small.initialize()
    fname = str(tmp_path / 'small.params')
    small.save_parameters(fname)

    bigger = nn.HybridSequential()
    with bigger.name_scope():
        bigger.add(nn.Dense(3, in_units=2), nn.Dense(4, in_units=3))
    with pytest.raises(AssertionError, match=r"'1\.weight' is missing.*allow_missing=True"):
        bigger.load_parameters(fname)
    bigger.initialize()
    before = bigger[1].weight.data().asnumpy()
    bigger.load_parameters(fname, allow_missing=True)
    np.testing.assert_array_equal(bigger[0].weight.data().asnumpy(),
                                  small[0].weight.data().asnumpy())
    np.testing.assert_array_equal(bigger[1].weight.data().asnumpy(), before)

    bigger.save_parameters(fname)
    with pytest.raises(ValueError, match=r"'1\.weight'.*not present.*ignore_extra=True"):
        small.load_parameters(fname)
    small.load_parameters(fname, ignore_extra=True)
    np.testing.assert_array_equal(bigger[0].weight.data().asnumpy(),
                                  small[0].weight.data().asnumpy())


def test_load_parameters_initializes_deferred_net(tmp_path):
    net = _mlp()
    net.initialize()
    net(nd.ones((2, 6)))
    fname = str(tmp_path / 'p.params')
    net.save_parameters(fname)
    fresh = _mlp()                                # shapes (8, 0): unknown until loaded
    fresh.load_parameters(fname, ctx=[mx.cpu(0), mx.cpu(1)])
    assert fresh[0].weight.shape == (8, 6)
    assert fresh[0].weight.list_ctx() == [mx.cpu(0), mx.cpu(1)]
    np.testing.assert_array_equal(fresh(nd.ones((2, 6), ctx=mx.cpu(1))).asnumpy(),
                                  net(nd.ones((2, 6))).asnumpy())


def test_save_load_single_layer_uses_prefix_names(tmp_path):
    dense = nn.Dense(3, in_units=2)
    dense.initialize()
    fname = str(tmp_path / 'dense.params')
    dense.save_parameters(fname)
    assert sorted(nd.load(fname).keys()) == ['bias', 'weight']
    other = nn.Dense(3, in_units=2)               # dense1_: the names are restored by prefix
    other.load_parameters(fname)
    np.testing.assert_array_equal(other.weight.data().asnumpy(), dense.weight.data().asnumpy())


def test_save_parameters_deduplicate(tmp_path):
    net = nn.Sequential()
    with net.name_scope():
        net.add(nn.Dense(2, in_units=2))
        net.add(nn.Dense(2, in_units=2, params=net[0].params))
    net.initialize()
    fname = str(tmp_path / 'shared.params')
    net.save_parameters(fname)
    assert len(nd.load(fname)) == 4
    net.save_parameters(fname, deduplicate=True)
    assert len(nd.load(fname)) == 2
    fresh = nn.Sequential()
    with fresh.name_scope():
        fresh.add(nn.Dense(2, in_units=2))
        fresh.add(nn.Dense(2, in_units=2, params=fresh[0].params))
    fresh.load_parameters(fname)                  # one name per shared Parameter suffices
    np.testing.assert_array_equal(fresh[1].weight.data().asnumpy(),
                                  net[0].weight.data().asnumpy())


def test_deprecated_save_params_load_params(tmp_path):
    net = _mlp()
    net.initialize()
    net(nd.ones((1, 4)))
    fname = str(tmp_path / 'old.params')
    with pytest.warns(UserWarning, match='save_params is deprecated'):
        net.save_params(fname)
    assert sorted(nd.load(fname).keys()) == ['dense0_bias', 'dense0_weight', 'dense1_bias',
                                             'dense1_weight']
    fresh = _mlp()
    with pytest.warns(UserWarning, match='load_params is deprecated'):
        fresh.load_params(fname)
    np.testing.assert_array_equal(fresh[2].weight.data().asnumpy(),
                                  net[2].weight.data().asnumpy())


# ---------------------------------------------------------------------- tree operations
def test_apply_visits_children_first():
    net = _mlp()
    order = []
    assert net.apply(lambda b: order.append(b.name)) is net
    assert order == ['hybridsequential0_dense0_relu', 'hybridsequential0_dense0',
                     'hybridsequential0_dropout0', 'hybridsequential0_dense1',
                     'hybridsequential0']


def test_cast_zero_grad_and_reset_ctx():
    net = _mlp()
    net.initialize()
    net(nd.ones((2, 4)))
    net.cast('float64')
    assert all(p.data().dtype == np.float64 for p in net.collect_params().values())
    x = nd.ones((2, 4), dtype='float64')
    with autograd.record():
        out = net(x)
    out.backward()
    assert out.dtype == np.float64
    assert np.abs(net[2].weight.grad().asnumpy()).sum() > 0
    net.zero_grad()
    assert all((p.grad().asnumpy() == 0).all() for p in net.collect_params().values())
    net.reset_ctx(mx.cpu(1))
    assert net[0].weight.list_ctx() == [mx.cpu(1)]
    assert net(nd.ones((2, 4), dtype='float64', ctx=mx.cpu(1))).context == mx.cpu(1)


def test_hybridize_is_recursive_and_keeps_results():
    net = _mlp()
    net.initialize()
    x = nd.random.uniform(shape=(3, 4))
    before = net(x).asnumpy()
    net.hybridize(static_alloc=True, static_shape=True)
    assert net._active and net[0]._active and net[0].act._active
    np.testing.assert_array_equal(net(x).asnumpy(), before)
    net.hybridize(False)
    assert not net[2]._active


def test_hybridized_block_rejects_inputs_on_several_contexts():
    class Add(HybridBlock):
        def hybrid_forward(self, F, x, y):
            return x + y

    block = Add()
    x, y = nd.ones((2,), ctx=mx.cpu(0)), nd.ones((2,), ctx=mx.cpu(1))
    block.hybridize()
    with pytest.raises(ValueError, match='one context'):
        block(x, y)


def test_sequential_of_hybrid_blocks_suggests_hybrid_sequential():
    net = nn.Sequential()
    net.add(nn.Dense(2))
    with pytest.warns(UserWarning, match='HybridSequential'):
        net.hybridize()


def test_hybrid_block_children_must_be_hybrid():
    with pytest.raises(ValueError, match='HybridSequential'):
        nn.HybridSequential().add(nn.Sequential())


def test_hybrid_block_needs_an_ndarray_input():
    with pytest.raises(ValueError, match='NDArray'):
        nn.Flatten()(np.ones((2, 2)))


def test_export_needs_a_traced_graph():
    with pytest.raises(RuntimeError, match='hybridize'):
        nn.Dense(2).export('model')


def test_forward_not_implemented():
    with pytest.raises(NotImplementedError, match='forward'):
        Block()(nd.ones((1,)))
    with pytest.raises(NotImplementedError, match='hybrid_forward'):
        HybridBlock()(nd.ones((1,)))


# ---------------------------------------------------------------------- printing
def test_repr_indents_children():
    class Model(Block):
        def __init__(self):
            super().__init__()
            with self.name_scope():
                self.body = nn.Sequential()
                self.body.add(nn.Dense(4, in_units=2), nn.Activation('relu'))
                self.head = nn.Dense(1, activation='sigmoid')

    assert repr(Model()) == (
        'Model(\n'
        '  (body): Sequential(\n'
        '    (0): Dense(2 -> 4, linear)\n'
        '    (1): Activation(relu)\n'
        '  )\n'
        '  (head): Dense(None -> 1, Activation(sigmoid))\n'
        ')')


SUMMARY = """\
--------------------------------------------------------------------------------
        Layer (type)                                Output Shape         Param #
================================================================================
               Input                                      (2, 5)               0
        Activation-1                                     (2, 10)               0
             Dense-2                                     (2, 10)              60
             Dense-3                                     (2, 20)             220
           Dropout-4                                     (2, 20)               0
================================================================================
Parameters in forward computation graph, duplicate included
   Total params: 280
   Trainable params: 280
   Non-trainable params: 0
Shared params in forward computation graph: 0
Unique parameters in model: 280
--------------------------------------------------------------------------------
"""


def test_summary_prints_mxnet_table(capsys):
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Dense(10, activation='relu', in_units=5), nn.Dense(20, in_units=10),
                nn.Dropout(0.5))
    net.initialize()
    net.summary(nd.zeros((2, 5)))
    assert capsys.readouterr().out == SUMMARY
    assert not net[0]._forward_hooks               # the summary's hooks are removed


def test_summary_counts_shared_and_nested_outputs(capsys):
    class Twice(Block):
        def __init__(self):
            super().__init__()
            with self.name_scope():
                self.a = nn.Dense(3, in_units=2)
                self.b = nn.Dense(3, in_units=3)

        def forward(self, x):
            return self.b(self.a(x)), [self.a(x), self.a(x)]

    net = Twice()
    net.initialize()
    net.a.weight.grad_req = 'null'
    net.summary(nd.zeros((1, 2)))
    out = capsys.readouterr().out
    assert re.search(r'Twice-5 +\(1, 3\), \[\(1, 3\), \(1, 3\)\] +0\n', out)
    assert 'Total params: 39\n' in out
    assert 'Trainable params: 21\n' in out            # a's weight (6) counted 3 times
    assert 'Non-trainable params: 18\n' in out
    assert 'Shared params in forward computation graph: 18\n' in out
    assert 'Unique parameters in model: 21\n' in out


def test_summary_refuses_hybridized_network():
    net = _mlp()
    net.initialize()
    net.hybridize()
    with pytest.raises(AssertionError, match='must not be hybridized'):
        net.summary(nd.zeros((1, 4)))
    assert not net[0]._forward_hooks


@pytest.mark.skipif(mx.num_gpus() < 1, reason="needs a GPU with CuPy (none here)")
def test_forward_backward_on_gpu_uses_the_gpu_copy():
    net = _mlp()
    net.initialize(ctx=[mx.cpu(0), mx.gpu(0)])
    x = nd.random.uniform(shape=(3, 4))
    expected = net(x).asnumpy()
    with autograd.record():
        out = net(x.as_in_context(mx.gpu(0)))
    out.backward()
    assert out.context == mx.gpu(0)
    np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-5)
    assert net[0].weight.grad(mx.gpu(0)).context == mx.gpu(0)
