"""The operator table: generated functions, argument binding, parameter parsing, out=.

MXNet's behaviour these tests pin (checked against MXNet 1.9.1) is quoted in each test;
``tests/parity/ndarray/test_op_registry_parity.py`` compares every declaration with
MXNet's registry.
"""
import inspect

import numpy as np
import pytest

import gluonedu as mx
from gluonedu import nd
from gluonedu.base import MXNetError
from gluonedu.ndarray import _internal, registry
from gluonedu.ndarray.param_types import (Axes, Axis, Bool, DType, Enum, Float, Int, Shape,
                                          BadValue)


def x2d():
    return nd.array([[1, 2, 3], [4, 5, 6]])


# ---------------------------------------------------------------------- the table
def test_every_name_and_alias_has_its_function():
    for op in registry.list_ops():
        for name in (op.name,) + op.aliases:
            if name.startswith('_np_'):  # as MXNet: its NumPy-interface ops stay out
                assert not hasattr(_internal, name)
                continue
            if name.startswith('_linalg_'):  # as MXNet: nd.linalg has them
                assert not hasattr(_internal, name)
                assert getattr(nd.linalg, name[len('_linalg_'):]).op is op, name
                continue
            space = _internal if name.startswith('_') else nd
            function = getattr(space, name)
            assert function.op is op, name
    assert nd.concat.op is registry.get('Concat') is registry.get('concat')


@pytest.mark.parametrize('op', registry.list_ops(), ids=lambda op: op.name)
def test_every_operator_refuses_an_unknown_keyword_by_name(op):
    function = registry.make_function(op, op.name)
    with pytest.raises(MXNetError, match="unknown argument 'bogus'"):
        function(bogus=1)
    assert op.name in function.__doc__


def test_unknown_operator_name_raises():
    with pytest.raises(MXNetError, match='not registered'):
        registry.get('NoSuchOp')


def test_a_name_cannot_be_registered_twice():
    op = registry.get('sum')
    with pytest.raises(ValueError, match='already registered'):
        registry.add(registry.Op('sum_axis', op.forward))


def test_generated_signature_and_doc_follow_the_declaration():
    params = list(inspect.signature(nd.sum).parameters)
    assert params == ['data', 'axis', 'keepdims', 'exclude', 'out', 'name']
    assert list(inspect.signature(nd.concat).parameters) == ['data', 'dim', 'out', 'name']
    assert 'keepdims : boolean, optional, default=False' in nd.sum.__doc__
    assert "MXNet operator: ``Concat`` (also concat)" in nd.concat.__doc__


def test_list_inputs_and_outputs_depend_on_params():
    fc = registry.get('FullyConnected')
    assert fc.list_inputs(fc.parse_params({'num_hidden': 3})) == ('data', 'weight', 'bias')
    assert fc.list_inputs(fc.parse_params({'num_hidden': 3, 'no_bias': 'True'})) == \
        ('data', 'weight')
    split = registry.get('split')
    assert split.num_outputs(split.parse_params({'num_outputs': '4'})) == 4
    concat = registry.get('concat')
    assert concat.list_inputs(concat.parse_params({'num_args': 2})) == ('data0', 'data1')


def test_symbol_attributes_parse_and_format_round_trip():
    conv_like = registry.get('Dropout')
    params = conv_like.parse_params({'p': '0.25', 'axes': '(1, 2)', 'mode': 'always'})
    assert params == {'p': 0.25, 'mode': 'always', 'axes': (1, 2), 'cudnn_off': False}
    assert conv_like.format_params(params) == {'p': '0.25', 'mode': 'always', 'axes': '(1, 2)'}
    assert conv_like.parse_params(conv_like.format_params(params)) == params


def test_run_is_the_executor_entry_point():
    op = registry.get('sum')
    out = op.run([x2d()], op.parse_params({'axis': '1'}))
    assert out.asnumpy().tolist() == [6, 15]


# ---------------------------------------------------------------------- binding
def test_positional_arguments_bind_inputs_then_params_then_out():
    x = x2d()
    assert nd.sum(x, 1).asnumpy().tolist() == [6, 15]          # MXNet: axis
    assert nd.sum(x, 1, True).shape == (2, 1)                  # keepdims
    out = nd.zeros((2,))
    assert nd.sum(x, 1, False, False, out) is out              # then out
    assert nd.sum(data=x, axis=0, name='s').asnumpy().tolist() == [5, 7, 9]


def test_unknown_keyword_is_an_mxnet_error_naming_the_valid_ones():
    a = nd.ones((2, 3))
    with pytest.raises(MXNetError, match=r"unknown argument 'axis'.*num_args, dim"):
        nd.concat(a, a, axis=0)        # MXNet's argument is dim
    with pytest.raises(MXNetError, match="unknown argument 'foo'"):
        nd.sum(a, foo=1)


def test_a_value_given_twice_is_a_type_error():
    x = x2d()
    with pytest.raises(TypeError, match='multiple values'):
        nd.sqrt(x, data=x)
    with pytest.raises(TypeError, match='positional arguments'):
        nd.sum(x, 0, False, False, None, None, 7)


def test_array_inputs_must_be_ndarrays():
    with pytest.raises(TypeError, match='NDArray'):
        nd.sum(np.ones(3))
    with pytest.raises(TypeError, match='NDArray'):
        nd.concat(nd.ones(2), 1, dim=0)


def test_missing_and_extra_inputs():
    x, w, b = nd.ones((2, 3)), nd.ones((4, 3)), nd.ones(4)
    with pytest.raises(MXNetError, match="required parameter num_hidden"):
        nd.FullyConnected(x, w, b)
    with pytest.raises(MXNetError, match="input 'bias' is missing"):
        nd.FullyConnected(x, w, num_hidden=4)
    with pytest.raises(MXNetError, match="'bias' is not used"):
        nd.FullyConnected(x, w, b, num_hidden=4, no_bias=True)
    assert nd.FullyConnected(x, w, num_hidden=4, no_bias=True).shape == (2, 4)
    with pytest.raises(MXNetError, match="input 'data' is missing"):
        nd.sum()


def test_variadic_inputs_count_num_args():
    a = nd.ones((2, 3))
    assert nd.concat(a, a, dim=0, num_args=2).shape == (4, 3)
    with pytest.raises(MXNetError, match='num_args=3 but 2 arrays'):
        nd.concat(a, a, dim=0, num_args=3)
    with pytest.raises(MXNetError, match='num_args'):
        nd.concat(dim=0)


def test_inputs_on_different_contexts_or_dtypes_are_refused():
    a = nd.ones((2,))
    with pytest.raises(MXNetError, match='different contexts'):
        nd.broadcast_add(a, nd.ones((2,), ctx=mx.cpu(1)))
    with pytest.raises(MXNetError, match='different dtypes'):
        nd.broadcast_add(a, a.astype('float64'))
    assert nd.take(a, nd.array([0], dtype='int32')).shape == (1,)  # indices: any dtype


def test_float_only_operators_refuse_integers():
    with pytest.raises(MXNetError, match='does not support uint8'):
        nd.softmax(nd.array([1, 2], dtype='uint8'))  # was NaN before the table


# ---------------------------------------------------------------------- parameters
@pytest.mark.parametrize('param, good, bad', [
    (Int('n'), [(3, 3), (np.int64(3), 3), ('3', 3), (' +3 ', 3)],
     [3.0, '3.0', True, '0x3', '3e0', None, 2 ** 40]),
    (Int('n', optional=True), [(None, None), ('None', None)], []),
    (Float('f'), [(1, 1.0), (2.5, 2.5), ('1e0', 1.0), ('inf', float('inf')),
                  (np.float32(0.5), 0.5), ('1.5f', 1.5)],
     [True, None, '1 ', 'b', 1 + 0j]),
    (Float('f', single=True), [(0.1, float(np.float32(0.1)))], []),
    (Bool('b'), [(True, True), (1, True), (0, False), ('true', True), ('FALSE', False),
                 ('1', True), (np.bool_(True), True)],
     [2, 1.0, 'yes', ' true', None]),
    (Shape('s'), [(3, (3,)), ((2, 3), (2, 3)), ([2, 3], (2, 3)), ('(2, 3)', (2, 3)),
                  ('[2,3]', (2, 3)), (' (2 , 3) ', (2, 3)), ('()', ()), ((np.int64(2),), (2,))],
     [(2.5,), (True, 2), '2,3', '(2,3', '', np.array([2, 3]), (2, None), None]),
    (Shape('s', accepts_none=True), [(None, None), ('None', None)], []),
    (Shape('s', optional=True), [(None, None)], []),
    (Shape('s', none_items=True), [((1, None), (1, None)), ('(None, 2)', (None, 2))], []),
    (Axes('axis'), [(None, None), (1, (1,)), ('(0, 1)', (0, 1))], [1.0, True]),
    (Axis('axis'), [(-1, -1), ('1', 1)], [None, 1.0]),
    (Enum('mode', ('clip', 'wrap')), [('clip', 'clip')], ['CLIP', ' clip', 1, None]),
    (DType('dtype', ('float32', 'int32')), [(np.float32, 'float32'), ('int32', 'int32'),
                                            (np.dtype('int32'), 'int32')],
     ['int16', np.float64]),
])
def test_parameter_parsing_follows_mxnet(param, good, bad):
    for value, expected in good:
        assert param.parse(value) == expected, value
    for value in bad:
        with pytest.raises(BadValue):
            param.parse(value)


def test_dtype_names_numpy_does_not_know_raise_numpys_type_error():
    with pytest.raises(TypeError):        # as MXNet's frontend: np.dtype('foo')
        nd.one_hot(nd.array([1]), 3, dtype='foo')
    with pytest.raises(MXNetError, match='dtype'):
        nd.one_hot(nd.array([1]), 3, dtype='int16')


def test_bad_parameter_values_are_mxnet_errors():
    x = x2d()
    for call in (lambda: nd.sum(x, axis=2.5), lambda: nd.sum(x, keepdims=2),
                 lambda: nd.one_hot(nd.array([1]), 3.5), lambda: nd.Dropout(x, p=1.5),
                 lambda: nd.take(x, nd.array([0]), mode='foo'),
                 lambda: nd.clip(x, None, 2), lambda: nd.clip(x, 1),
                 lambda: nd.Activation(x, act_type='foo')):
        with pytest.raises(MXNetError):
            call()


def test_axes_are_checked_against_the_input():
    x = x2d()
    with pytest.raises(MXNetError, match='out of range'):
        nd.sum(x, axis=2)                  # used to wrap around to axis 0
    with pytest.raises(MXNetError, match='out of range'):
        nd.sum(x, axis=-3)
    with pytest.raises(MXNetError, match='twice'):
        nd.sum(x, axis=(0, 0))
    assert nd.sum(x, axis=(-1, 0)).shape == (1,)
    assert nd.expand_dims(x, axis=2).shape == (2, 3, 1)     # one past the end for expand_dims
    with pytest.raises(MXNetError, match='out of range'):
        nd.expand_dims(x, axis=3)
    assert nd.softmax(x, axis=-1).shape == (2, 3)


# ---------------------------------------------------------------------- out=
def test_out_receives_the_result_and_must_match_it():
    x = x2d()
    out = nd.zeros((2, 3))
    assert nd.sqrt(x, out=out) is out
    np.testing.assert_allclose(out.asnumpy(), np.sqrt(x.asnumpy()))
    with pytest.raises(MXNetError, match='shape'):
        nd.sqrt(x, out=nd.zeros((3, 2)))
    with pytest.raises(MXNetError, match='dtype'):
        nd.sum(x, out=nd.zeros((1,), dtype='float64'))
    with pytest.raises(TypeError, match='out='):
        nd.sqrt(x, out=np.zeros((2, 3)))
    assert nd.sqrt(x, out=x) is x                      # in place, as MXNet allows


def test_out_records_the_result_while_recording():
    x = nd.array([1., 4.])
    x.attach_grad()
    out = nd.zeros((2,))
    with mx.autograd.record():
        nd.sqrt(x, out=out)
        loss = out.sum()
    loss.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), [0.5, 0.25])


def test_split_returns_a_list_or_one_array_like_mxnet():
    x = nd.arange(6).reshape((2, 3))
    parts = nd.split(x, num_outputs=3, axis=1)
    assert [p.shape for p in parts] == [(2, 1)] * 3
    assert isinstance(nd.split(x, num_outputs=1, axis=1), nd.NDArray)
    x.attach_grad()
    with mx.autograd.record():
        a, b, c = nd.split(x, num_outputs=3, axis=1)
        (a * 2 + c).sum().backward()
    assert x.grad.asnumpy().tolist() == [[2, 0, 1], [2, 0, 1]]
