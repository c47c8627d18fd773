"""mx.mod.Module: MXNet 1.9.1's own Module tests (test_lr_wd_mult, test_nadam) and the
module's contracts (tests/parity/module/test_module_parity.py holds its results equal to
MXNet's)."""
import numpy as np
import pytest

import gluonedu as mx
from gluonedu.base import MXNetError


def mlp(num_hidden):
    data = mx.sym.Variable('data')
    act1 = mx.sym.Activation(mx.sym.FullyConnected(data, name='fc1', num_hidden=128),
                             name='relu1', act_type='relu')
    act2 = mx.sym.Activation(mx.sym.FullyConnected(act1, name='fc2', num_hidden=64),
                             name='relu2', act_type='relu')
    return mx.sym.FullyConnected(act2, name='fc3', num_hidden=num_hidden)


def bound_linear(**kwargs):
    net = mx.sym.FullyConnected(mx.sym.Variable('data'), name='fc', num_hidden=2)
    mod = mx.mod.Module(net, label_names=None, **kwargs)
    mod.bind(data_shapes=[('data', (3, 4))])
    mod.init_params()
    return mod


def test_mxnet_lr_wd_mult_the_symbols_multipliers_steer_the_update():
    data = mx.sym.Variable('data')
    bias = mx.sym.Variable('fc1_bias', lr_mult=1.0)
    fc1 = mx.sym.FullyConnected(data=data, bias=bias, name='fc1', num_hidden=10, lr_mult=0)
    fc2 = mx.sym.FullyConnected(data=fc1, name='fc2', num_hidden=10, wd_mult=0.5)
    mod = mx.mod.Module(symbol=fc2, label_names=None, context=mx.cpu())
    mod.bind(data_shapes=[('data', (5, 10))])
    mod.init_params(initializer=mx.init.Uniform(1.0))
    mod.init_optimizer(optimizer_params={'learning_rate': 1.0})
    before = {k: v.asnumpy() for k, v in mod.get_params()[0].items()}
    mod.forward(mx.io.DataBatch(data=[mx.random.uniform(-1.0, 1.0, shape=(5, 10))],
                                label=None), is_train=True)
    mod.backward(mod.get_outputs())
    mod.update()
    after = {k: v.asnumpy() for k, v in mod.get_params()[0].items()}
    assert mod._optimizer.lr_mult == {'fc1_bias': 1.0, 'fc1_weight': 0.0}
    assert mod._optimizer.wd_mult == {'fc2_bias': 0.5, 'fc2_weight': 0.5, 'fc1_bias': 0.0}
    np.testing.assert_array_equal(before['fc1_weight'], after['fc1_weight'])
    assert not np.allclose(before['fc1_bias'], after['fc1_bias'], rtol=1e-1)
    assert not np.allclose(before['fc2_weight'], after['fc2_weight'], rtol=1e-1)


def test_mxnet_nadam_fit_brings_an_l1_make_loss_under_0_11():
    mx.random.seed(0)
    data = mx.random.uniform(-1, 1, shape=(20, 10))
    label = mx.random.uniform(-1, 1, shape=(20, 1))
    data_iter = mx.io.NDArrayIter(data, label, batch_size=5, label_name='label', shuffle=True)
    loss = mx.sym.make_loss(mx.gluon.loss.L1Loss()(mlp(1), mx.sym.Variable('label')))
    mod = mx.mod.Module(loss, data_names=('data',), label_names=('label',))
    mod.fit(data_iter, num_epoch=60, optimizer_params={'learning_rate': 0.001, 'wd': 0.0005},
            initializer=mx.init.Xavier(), eval_metric=mx.metric.Loss(), optimizer='nadam')
    assert mod.score(data_iter, eval_metric=mx.metric.Loss())[0][1] < 0.11


def test_the_state_flags_follow_bind_init_params_and_init_optimizer():
    net = mx.sym.FullyConnected(mx.sym.Variable('data'), name='fc', num_hidden=2)
    mod = mx.mod.Module(net, label_names=None)
    assert (mod.binded, mod.params_initialized, mod.optimizer_initialized) == (False,) * 3
    mod.bind(data_shapes=[('data', (3, 4))])
    mod.init_params()
    mod.init_optimizer()
    assert (mod.binded, mod.params_initialized, mod.optimizer_initialized) == (True,) * 3
    assert (mod.data_names, mod.label_names, mod.output_names) == (['data'], [],
                                                                  ['fc_output'])
    assert mod.output_shapes == [('fc_output', (3, 2))]


def test_a_second_init_params_warns_and_keeps_the_values():
    mod = bound_linear()
    first = mod.get_params()[0]['fc_weight'].asnumpy()
    with pytest.warns(UserWarning, match='already initialized'):
        mod.init_params(initializer=mx.init.One())
    np.testing.assert_array_equal(mod.get_params()[0]['fc_weight'].asnumpy(), first)


def test_a_forced_rebind_keeps_the_parameters():
    mod = bound_linear()
    mod.set_params({'fc_weight': mx.nd.ones((2, 4)), 'fc_bias': mx.nd.zeros((2,))}, {})
    mod.bind(data_shapes=[('data', (3, 4))], force_rebind=True)
    mod.forward(mx.io.DataBatch([mx.nd.ones((3, 4))]))
    np.testing.assert_array_equal(mod.get_outputs()[0].asnumpy(), np.full((3, 2), 4.0))


def test_a_fixed_weight_leaves_its_bias_trained():
    # docs/divergences.md: MXNet 1.9.1's oneDNN build gives that bias a zero gradient
    mod = bound_linear(fixed_param_names=['fc_weight'])
    mod.set_params({'fc_weight': mx.nd.ones((2, 4)), 'fc_bias': mx.nd.zeros((2,))}, {})
    mod.init_optimizer(optimizer_params={'learning_rate': 1.0, 'rescale_grad': 1.0})
    mod.forward(mx.io.DataBatch([mx.nd.ones((3, 4))]), is_train=True)
    mod.backward([mx.nd.ones((3, 2))])
    mod.update()
    args = mod.get_params()[0]
    np.testing.assert_array_equal(args['fc_weight'].asnumpy(), np.ones((2, 4)))
    np.testing.assert_array_equal(args['fc_bias'].asnumpy(), [-3.0, -3.0])


def test_a_batch_of_another_size_reshapes_the_module():
    mod = bound_linear()
    mod.forward(mx.io.DataBatch([mx.nd.ones((5, 4))]), is_train=False)
    assert mod.get_outputs()[0].shape == (5, 2)
    assert mod.data_shapes[0].shape == (5, 4)


def test_input_gradients_come_with_inputs_need_grad():
    net = mx.sym.make_loss(mx.sym.sum(mx.sym.Variable('data') * 3))
    mod = mx.mod.Module(net, label_names=None)
    mod.bind(data_shapes=[('data', (2, 2))], inputs_need_grad=True)
    mod.init_params()
    mod.forward(mx.io.DataBatch([mx.nd.ones((2, 2))]), is_train=True)
    mod.backward()
    np.testing.assert_array_equal(mod.get_input_grads()[0].asnumpy(), np.full((2, 2), 3.0))


def test_predict_takes_an_array_or_an_iterator_without_its_padding():
    mod = bound_linear()
    mod.set_params({'fc_weight': mx.nd.ones((2, 4)), 'fc_bias': mx.nd.ones((2,))}, {})
    data = np.arange(28, dtype=np.float32).reshape(7, 4)
    np.testing.assert_allclose(mod.predict(data[:3]).asnumpy(),
                               np.repeat(data[:3].sum(1, keepdims=True) + 1, 2, axis=1))
    merged = mod.predict(mx.io.NDArrayIter(data, batch_size=3, last_batch_handle='pad'))
    np.testing.assert_allclose(merged.asnumpy(),
                               np.repeat(data.sum(1, keepdims=True) + 1, 2, axis=1))


def test_saved_parameters_load_into_another_module(tmp_path):
    mod = bound_linear()
    mod.save_params(str(tmp_path / 'linear.params'))
    other = bound_linear()
    other.load_params(str(tmp_path / 'linear.params'))
    np.testing.assert_array_equal(other.get_params()[0]['fc_weight'].asnumpy(),
                                  mod.get_params()[0]['fc_weight'].asnumpy())


def test_a_checkpoint_loads_as_a_module_with_its_symbol_and_parameters(tmp_path):
    mod = bound_linear()
    mod.init_optimizer(optimizer='adam')
    mod.save_checkpoint(str(tmp_path / 'linear'), 3, save_optimizer_states=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        'linear-0003.params', 'linear-0003.states', 'linear-symbol.json']
    loaded = mx.mod.Module.load(str(tmp_path / 'linear'), 3, load_optimizer_states=True,
                                label_names=None)
    loaded.bind(data_shapes=[('data', (3, 4))])
    loaded.init_optimizer(optimizer='adam')
    assert loaded.symbol.tojson() == mod.symbol.tojson()
    np.testing.assert_array_equal(loaded.get_params()[0]['fc_weight'].asnumpy(),
                                  mod.get_params()[0]['fc_weight'].asnumpy())


def test_a_file_of_other_names_is_refused_naming_it(tmp_path):
    mx.nd.save(str(tmp_path / 'other.params'), {'fc_weight': mx.nd.ones((2, 4))})
    with pytest.raises(ValueError, match="other.params.*'fc_weight'"):
        bound_linear().load_params(str(tmp_path / 'other.params'))


def test_several_contexts_are_refused_by_name():
    with pytest.raises(MXNetError, match='one context'):
        bound_linear(context=[mx.cpu(0), mx.cpu(1)])


def test_a_distributed_kvstore_is_refused_by_name():
    with pytest.raises(MXNetError, match='dist_sync'):
        bound_linear().init_optimizer(kvstore='dist_sync')


def test_misuse_raises_mxnets_errors():
    net = mx.sym.FullyConnected(mx.sym.Variable('data'), name='fc', num_hidden=2)
    with pytest.raises(ValueError, match='data_names'):
        mx.mod.Module(net, data_names=('x',))
    with pytest.raises(AssertionError, match='bind'):
        mx.mod.Module(net, label_names=None).forward(mx.io.DataBatch([mx.nd.ones((3, 4))]))
    with pytest.raises(AssertionError, match='init_optimizer'):
        bound_linear().update()
    with pytest.raises(RuntimeError, match='fc_bias is not presented'):
        bound_linear().set_params({'fc_weight': mx.nd.ones((2, 4))}, {})
