"""Parameter, Constant and ParameterDict: MXNet 1.9.1 semantics (parameter-source.txt)."""
import warnings

import numpy as np
import pytest

import gluonedu as mx
from gluonedu import autograd, gluon, nd
from gluonedu.gluon import Constant, DeferredInitializationError, Parameter, ParameterDict

CPUS = [mx.cpu(0), mx.cpu(1)]


def test_docstring_example_runs_on_cpu():
    # The class docstring's example with ctx = mx.gpu(0) swapped for a CPU context.
    ctx = mx.cpu(0)
    x = mx.nd.zeros((16, 100), ctx=ctx)
    w = mx.gluon.Parameter('fc_weight', shape=(64, 100), init=mx.init.Xavier())
    b = mx.gluon.Parameter('fc_bias', shape=(64,), init=mx.init.Zero())
    w.initialize(ctx=ctx)
    b.initialize(ctx=ctx)
    out = mx.nd.FullyConnected(x, w.data(ctx), b.data(ctx), num_hidden=64)
    assert out.shape == (16, 64)
    bound = np.sqrt(3 / ((64 + 100) / 2))
    assert np.abs(w.data().asnumpy()).max() <= bound
    assert (b.data().asnumpy() == 0).all()


@pytest.mark.skipif(mx.num_gpus() < 1, reason="needs a GPU with CuPy (none here)")
def test_docstring_example_runs_unchanged_on_gpu():
    ctx = mx.gpu(0)
    x = mx.nd.zeros((16, 100), ctx=ctx)
    w = mx.gluon.Parameter('fc_weight', shape=(64, 100), init=mx.init.Xavier())
    b = mx.gluon.Parameter('fc_bias', shape=(64,), init=mx.init.Zero())
    w.initialize(ctx=ctx)
    b.initialize(ctx=ctx)
    out = mx.nd.FullyConnected(x, w.data(ctx), b.data(ctx), num_hidden=64)
    assert out.shape == (16, 64) and out.ctx == ctx


def test_initialize_example_with_two_contexts():
    weight = mx.gluon.Parameter('weight', shape=(2, 2))
    weight.initialize(ctx=mx.cpu(0))
    assert weight.data().shape == (2, 2)
    assert (weight.grad().asnumpy() == 0).all()
    # Default init is Uniform(0.07).
    assert np.abs(weight.data().asnumpy()).max() <= 0.07
    with pytest.warns(UserWarning, match='already initialized'):
        weight.initialize(ctx=CPUS)
    weight.initialize(ctx=CPUS, force_reinit=True)
    a, b = weight.data(mx.cpu(0)), weight.data(mx.cpu(1))
    assert a.ctx == mx.cpu(0) and b.ctx == mx.cpu(1)
    np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    assert a is not b  # independent copies
    assert weight.list_ctx() == CPUS
    assert [g.ctx for g in weight.list_grad()] == CPUS


def test_data_on_uninitialised_context_raises_runtime_error():
    p = Parameter('w', shape=(2,))
    with pytest.raises(RuntimeError, match='has not been initialized'):
        p.data()
    p.initialize(ctx=mx.cpu(0))
    with pytest.raises(RuntimeError, match='only initialized on'):
        p.data(mx.cpu(1))


def test_data_on_another_context_says_how_to_bring_them_together():
    net = gluon.nn.Dense(2, in_units=3)
    net.initialize(ctx=mx.cpu(1))
    with pytest.raises(RuntimeError) as info:
        net(nd.ones((1, 3), ctx=mx.cpu(0)))
    message = str(info.value)
    assert 'x.as_in_context(mx.cpu(1))' in message
    assert 'net.collect_params().reset_ctx(mx.cpu(0))' in message
    net.collect_params().reset_ctx(CPUS)      # on several: split the batch over them
    with pytest.raises(RuntimeError) as info:
        net(nd.ones((1, 3), ctx=mx.cpu(2)))
    assert 'gluon.utils.split_and_load(x, [mx.cpu(0), mx.cpu(1)])' in str(info.value)


def test_data_without_ctx_uses_current_context_when_several():
    p = Parameter('w', shape=(2,))
    p.initialize(ctx=CPUS)
    with mx.cpu(1):
        assert p.data().ctx == mx.cpu(1)


def test_deferred_initialisation():
    p = Parameter('w', shape=(3, 0), allow_deferred_init=True, init=mx.init.One())
    p.initialize(ctx=CPUS)
    assert p.list_ctx() == CPUS
    with pytest.raises(DeferredInitializationError, match='first forward'):
        p.data()
    assert isinstance(DeferredInitializationError('x'), mx.MXNetError)
    p.shape = (3, 4)
    p._finish_deferred_init()
    assert p.data(mx.cpu(1)).shape == (3, 4)
    assert (p.data(mx.cpu(1)).asnumpy() == 1).all()


def test_unknown_shape_without_deferral_raises_value_error():
    p = Parameter('w', shape=(3, 0))
    with pytest.raises(ValueError, match='not fully known'):
        p.initialize()


def test_set_data_before_deferred_init_is_applied_later():
    p = Parameter('w', shape=(2, 0), allow_deferred_init=True)
    p.initialize()
    p.set_data(nd.array([[1, 2], [3, 4]]))
    assert p.shape == (2, 2)
    p._finish_deferred_init()
    np.testing.assert_array_equal(p.data().asnumpy(), [[1, 2], [3, 4]])


def test_set_data_writes_every_copy():
    p = Parameter('w', shape=(2,))
    p.initialize(ctx=CPUS)
    p.set_data(nd.array([5, 6]))
    for arr in p.list_data():
        np.testing.assert_array_equal(arr.asnumpy(), [5, 6])


def test_shape_setter_only_fills_unknown_dims():
    p = Parameter('w', shape=(2, 0))
    p.shape = (2, 5)
    assert p.shape == (2, 5)
    with pytest.raises(AssertionError, match='does not fit'):
        p.shape = (3, 5)


def test_backward_writes_grad_and_marks_fresh():
    p = Parameter('w', shape=(3,), init=mx.init.One())
    p.initialize(ctx=CPUS)
    x = nd.array([1, 2, 3], ctx=mx.cpu(1))
    with autograd.record():
        y = (p.data(mx.cpu(1)) * x).sum()
    y.backward()
    np.testing.assert_array_equal(p.grad(mx.cpu(1)).asnumpy(), [1, 2, 3])
    np.testing.assert_array_equal(p.grad(mx.cpu(0)).asnumpy(), [0, 0, 0])
    assert p.data(mx.cpu(1))._fresh_grad and not p.data(mx.cpu(0))._fresh_grad


def test_grad_req_add_and_zero_grad():
    p = Parameter('w', shape=(2,), grad_req='add', init=mx.init.One())
    p.initialize()
    for _ in range(3):
        with autograd.record():
            y = (p.data() * 2).sum()
        y.backward()
    np.testing.assert_array_equal(p.grad().asnumpy(), [6, 6])
    p.zero_grad()
    np.testing.assert_array_equal(p.grad().asnumpy(), [0, 0])


def test_grad_req_null_drops_gradient_and_can_come_back():
    p = Parameter('w', shape=(2,))
    p.initialize()
    p.grad_req = 'null'
    with pytest.raises(RuntimeError, match="grad_req='null'"):
        p.grad()
    with pytest.raises(AssertionError):
        p.grad_req = 'sometimes'
    p.grad_req = 'write'
    with autograd.record():
        y = p.data().sum()
    y.backward()
    np.testing.assert_array_equal(p.grad().asnumpy(), [1, 1])


def test_non_differentiable_parameter_forces_null():
    p = Parameter('w', shape=(2,), differentiable=False)
    assert p.grad_req == 'null'
    p.grad_req = 'write'
    assert p.grad_req == 'null'


def test_cast_converts_data_and_grad():
    p = Parameter('w', shape=(2,))
    p.initialize()
    p.cast('float16')
    assert p.data().dtype == np.float16 and p.grad().dtype == np.float16
    with autograd.record():
        y = p.data().sum()
    y.backward()
    assert p.grad().asnumpy().tolist() == [1, 1]


def test_reset_ctx_keeps_value():
    p = Parameter('w', shape=(2, 2))
    p.initialize(ctx=mx.cpu(0))
    value = p.data().asnumpy()
    p.reset_ctx(CPUS)
    assert p.list_ctx() == CPUS
    np.testing.assert_array_equal(p.data(mx.cpu(1)).asnumpy(), value)
    with pytest.raises(ValueError, match='not been initialized'):
        Parameter('v', shape=(1,)).reset_ctx(mx.cpu(0))


def test_lr_and_wd_mult_and_repr():
    p = Parameter('fc_weight', shape=(2, 3), lr_mult=2.0, wd_mult=0.5)
    assert (p.lr_mult, p.wd_mult) == (2.0, 0.5)
    assert repr(p) == "Parameter fc_weight (shape=(2, 3), dtype=<class 'numpy.float32'>)"


def test_var_carries_name_and_storage_type():
    p = Parameter('emb_weight', shape=(5, 2), stype='row_sparse', lr_mult=3.0)
    var = p.var()
    assert var.name == 'emb_weight'
    assert var.attr('__storage_type__') == '1'  # MXNet's number for row_sparse
    assert var.attr('__lr_mult__') == '3.0'
    assert p.var() is var


def test_invalid_stype_is_rejected():
    with pytest.raises(AssertionError, match='stype'):
        Parameter('w', stype='dense')


def test_sparse_parameter_refuses_dense_accessors():
    p = Parameter('w', shape=(4, 2), stype='row_sparse', grad_stype='row_sparse')
    p.initialize()
    with pytest.raises(RuntimeError, match='row_sparse_data'):
        p.data()
    with pytest.raises(RuntimeError, match='Trainer'):
        p.row_sparse_data(nd.array([0, 1]))
    assert p.grad().stype == 'row_sparse'


def test_constant():
    const = mx.gluon.Constant('const', [[1, 2], [3, 4]])
    assert const.grad_req == 'null'
    with pytest.warns(UserWarning, match='does not support grad_req'):
        const.grad_req = 'write'
    const.initialize(ctx=CPUS)
    np.testing.assert_array_equal(const.data(mx.cpu(1)).asnumpy(), [[1, 2], [3, 4]])
    assert repr(const).startswith('Constant const (shape=(2, 2)')
    with pytest.raises(RuntimeError, match="grad_req='null'"):
        const.grad()


def test_parameter_dict_get_creates_with_prefix_and_retrieves():
    params = ParameterDict('net_')
    w = params.get('weight', shape=(2, 3))
    assert w.name == 'net_weight' and list(params.keys()) == ['net_weight']
    assert params.get('weight') is w
    # An unknown dimension is filled in from a compatible request.
    v = params.get('v', shape=(2, 0))
    assert params.get('v', shape=(2, 7)) is v and v.shape == (2, 7)
    # dtype given as a string matches the stored type.
    assert params.get('weight', dtype='float32') is w
    assert len(params) == 2 and 'net_v' in params


def test_parameter_dict_get_conflict_raises_assertion_error():
    params = ParameterDict('net_')
    params.get('weight', shape=(2, 3))
    with pytest.raises(AssertionError, match="does not match the stored"):
        params.get('weight', shape=(4, 3))
    with pytest.raises(AssertionError, match='lr_mult'):
        params.get('weight', lr_mult=2.0)


def test_parameter_dict_shared():
    first = ParameterDict('a_')
    w = first.get('weight', shape=(2,))
    second = ParameterDict('a_', shared=first)
    assert second.get('weight') is w
    assert list(second.keys()) == ['a_weight']


def test_parameter_dict_constants():
    params = ParameterDict('b_')
    c = params.get_constant('c', [1, 2])
    assert isinstance(c, Constant) and params.get_constant('c') is c
    assert params.get_constant('c', [1, 2]) is c
    with pytest.raises(AssertionError, match='different value'):
        params.get_constant('c', [1, 3])
    with pytest.raises(KeyError, match='Give a value'):
        params.get_constant('missing')
    params.get('w', shape=(1,))
    with pytest.raises(AssertionError, match='not a Constant'):
        params.get_constant('w', [1])


def test_parameter_dict_update_name_clash():
    a, b = ParameterDict(), ParameterDict()
    a.get('w', shape=(1,))
    b.get('w', shape=(1,))
    with pytest.raises(AssertionError, match="same name 'w'"):
        a.update(b)
    c = ParameterDict()
    c.update(a)
    assert c['w'] is a['w']


def test_parameter_dict_initialize_setattr_zero_grad_list_ctx():
    params = ParameterDict('m_')
    params.get('weight', shape=(2, 2))
    params.get('bias', shape=(2,), init='zeros')
    params.initialize(mx.init.One(), ctx=CPUS)
    np.testing.assert_array_equal(params['m_weight'].data().asnumpy(), np.ones((2, 2)))
    np.testing.assert_array_equal(params['m_bias'].data().asnumpy(), np.zeros(2))
    assert params.list_ctx() == CPUS
    params.setattr('lr_mult', 0.5)
    assert all(p.lr_mult == 0.5 for p in params.values())
    for p in params.values():
        for g in p.list_grad():
            g[:] = 3
    params.zero_grad()
    assert all((g.asnumpy() == 0).all() for p in params.values() for g in p.list_grad())
    params.setattr('grad_req', 'null')
    params.zero_grad()  # no gradient buffers: nothing to do


def test_parameter_dict_repr():
    params = ParameterDict('m_')
    params.get('weight', shape=(2, 2))
    assert repr(params) == ("m_ (\n  Parameter m_weight (shape=(2, 2), "
                            "dtype=<class 'numpy.float32'>)\n)")


def _two_param_dict(prefix, ctx=mx.cpu(0)):
    params = ParameterDict(prefix)
    params.get('weight', shape=(2, 3))
    params.get('bias', shape=(2,))
    params.initialize(mx.init.Normal(1.0), ctx=ctx)
    return params


def test_save_load_roundtrip_with_prefixes(tmp_path):
    path = str(tmp_path / 'p.params')
    src = _two_param_dict('src_', ctx=CPUS)
    src.save(path, strip_prefix='src_')
    assert sorted(nd.load(path)) == ['bias', 'weight']
    dst = ParameterDict('dst_')
    dst.get('weight', shape=(2, 3))
    dst.get('bias', shape=(2,))
    dst.load(path, ctx=mx.cpu(1), restore_prefix='dst_')
    for name in ('weight', 'bias'):
        np.testing.assert_array_equal(dst['dst_' + name].data().asnumpy(),
                                      src['src_' + name].data().asnumpy())
        assert dst['dst_' + name].list_ctx() == [mx.cpu(1)]


def test_save_averages_copies(tmp_path):
    p = ParameterDict()
    p.get('w', shape=(2,))
    p.initialize(ctx=CPUS)
    p['w'].data(mx.cpu(0))[:] = 1
    p['w'].data(mx.cpu(1))[:] = 3
    path = str(tmp_path / 'avg.params')
    p.save(path)
    np.testing.assert_array_equal(nd.load(path)['w'].asnumpy(), [2, 2])


def test_save_with_wrong_strip_prefix_raises(tmp_path):
    with pytest.raises(ValueError, match='does not start with it'):
        _two_param_dict('a_').save(str(tmp_path / 'x'), strip_prefix='b_')


def test_load_missing_and_extra(tmp_path):
    path = str(tmp_path / 'p.params')
    nd.save(path, {'weight': nd.ones((2, 3)), 'extra': nd.ones(1)})
    params = ParameterDict()
    params.get('weight', shape=(2, 3))
    params.get('bias', shape=(2,))
    with pytest.raises(AssertionError, match="'bias' is missing.*allow_missing=True"):
        params.load(path)
    with pytest.raises(AssertionError, match="'extra'.*ignore_extra=True"):
        params.load(path, allow_missing=True)
    params.load(path, allow_missing=True, ignore_extra=True)
    assert (params['weight'].data().asnumpy() == 1).all()
    with pytest.raises(RuntimeError):
        params['bias'].data()


def test_load_restore_prefix_must_match(tmp_path):
    params = ParameterDict('a_')
    params.get('w', shape=(1,))
    with pytest.raises(AssertionError, match='restore_prefix'):
        params.load(str(tmp_path / 'nothing'), restore_prefix='b_')


def test_load_dict_strips_arg_aux_and_checks_shape_and_dtype():
    params = ParameterDict()
    params.get('w', shape=(2,))
    params.load_dict({'arg:w': nd.array([1, 2])})
    np.testing.assert_array_equal(params['w'].data().asnumpy(), [1, 2])
    with pytest.raises(AssertionError, match='shape incompatible'):
        params.load_dict({'w': nd.ones((3,))})
    with pytest.raises(AssertionError, match='cast_dtype=True'):
        params.load_dict({'w': nd.ones((2,), dtype='float64')})
    params.load_dict({'w': nd.array([5, 6], dtype='float64')}, cast_dtype=True)
    assert params['w'].data().dtype == np.float32
    params.load_dict({'w': nd.array([5, 6], dtype='float64')}, cast_dtype=True,
                     dtype_source='saved')
    assert params['w'].data().dtype == np.float64


@pytest.mark.parametrize('file_format', ['gluonedu', 'mxnet'])
@pytest.mark.parametrize('arrays', [[nd.ones((2, 3)), nd.zeros((3,))], [nd.ones((2,))]])
def test_load_of_a_list_of_arrays_says_it_needs_names(tmp_path, file_format, arrays):
    # issue 31: any list file (MXNet's too) raised 'too many values to unpack'
    fname = str(tmp_path / 'list.params')
    nd.save(fname, arrays, format=file_format)
    params = ParameterDict('net_')
    params.get('w', shape=(2,)).initialize()
    for kwargs in ({}, {'allow_missing': True, 'ignore_extra': True},
                   {'restore_prefix': 'net_'}):
        with pytest.raises(ValueError, match='list.params holds arrays without names'):
            params.load(fname, **kwargs)
    with pytest.raises(ValueError, match='^param_dict holds arrays without names'):
        params.load_dict(arrays)
    params.load_dict([('net_w', nd.array([3, 4]))])  # (name, array) pairs load
    np.testing.assert_array_equal(params['net_w'].data().asnumpy(), [3, 4])


def test_load_into_deferred_parameter_fills_shape():
    params = ParameterDict()
    params.get('w', shape=(2, 0), allow_deferred_init=True)
    params.initialize(ctx=CPUS)
    params.load_dict({'w': nd.ones((2, 5))})
    assert params['w'].shape == (2, 5)
    assert params['w'].data(mx.cpu(1)).shape == (2, 5)


def test_load_on_other_contexts_than_initialised_raises():
    params = ParameterDict()
    params.get('w', shape=(2,))
    params.initialize(ctx=mx.cpu(0))
    with pytest.raises(AssertionError, match='initialized on'):
        params.load_dict({'w': nd.ones((2,))}, ctx=mx.cpu(1))


def test_no_warning_on_first_initialize():
    p = Parameter('w', shape=(2,))
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        p.initialize()


def test_gluon_namespace_exports():
    assert gluon.Parameter is Parameter and gluon.ParameterDict is ParameterDict
    assert gluon.tensor_types == (nd.NDArray,)
