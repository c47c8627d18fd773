"""A hybridized block on the autograd tape (inlined or one _CachedOp call) and its op hook."""
import json
import warnings

import numpy as np
import pytest

import gluonedu as mx
from gluonedu import autograd, nd
from gluonedu.base import MXNetError
from gluonedu.gluon import nn


def _nodes(y):
    return json.loads(autograd.get_symbol(y).tojson())['nodes']


def _stack(count, units=3, **kwargs):
    net = nn.HybridSequential()
    with net.name_scope():
        for _ in range(count):
            net.add(nn.Dense(units, in_units=units, **kwargs))
    net.initialize(mx.init.Normal(0.5))
    return net


def _record(block, x):
    with autograd.record():
        return block(x)


# ---------------------------------------------------------------------- the tape
def test_mxnets_test_inline():
    """MXNet 1.9.1's test_inline: three Dense layers inlined (limit 3) record two nodes
    more than as one _CachedOp call (limit 0)."""
    net = nn.HybridSequential()
    net.add(nn.Dense(10), nn.Dense(10), nn.Dense(10))
    net.initialize()
    net.hybridize(inline_limit=3)
    y = _record(net, nd.zeros((1, 10)))
    inlined = _nodes(y)
    y.backward()
    net.hybridize(inline_limit=0)
    y = _record(net, nd.zeros((1, 10)))
    whole = _nodes(y)
    y.backward()
    assert len(inlined) == len(whole) + 2
    assert [n['op'] for n in inlined if n['op'] != 'null'] == ['FullyConnected'] * 3
    assert [n['op'] for n in whole if n['op'] != 'null'] == ['_CachedOp']


@pytest.mark.parametrize('flags, inlined', [({}, True), ({'inline_limit': 1}, False),
                                            ({'static_alloc': True}, False)])
def test_the_inline_limit_counts_operators(flags, inlined):
    dense = nn.Dense(3, in_units=3, activation='relu')   # 2 operators
    dense.initialize()
    dense.hybridize(**flags)
    ops = [n['op'] for n in _nodes(_record(dense, nd.ones((2, 3)))) if n['op'] != 'null']
    assert ops == (['FullyConnected', 'Activation'] if inlined else ['_CachedOp'])


def test_a_cached_op_node_names_its_outputs_after_the_graph():
    net = _stack(3)
    net.hybridize()
    sym = autograd.get_symbol(_record(net, nd.ones((2, 3))))
    node = [n for n in json.loads(sym.tojson())['nodes'] if n['op'] == '_CachedOp'][0]
    assert sym.list_outputs() == ['%s_%s' % (node['name'], net[2].name + '_fwd_output')]
    assert len(sym.list_arguments()) == 7   # the data and 3 weights and biases


def test_gradients_are_the_same_inlined_or_as_one_call():
    x = nd.array(np.linspace(-1, 1, 6).reshape(2, 3))
    results = []
    for flags in ({'active': False}, {'inline_limit': 10}, {'inline_limit': 0}):
        net = _stack(3, activation='tanh')
        for i, param in enumerate(net.collect_params().values()):
            param.set_data(nd.array(np.cos(np.arange(param.data().size) + i)
                                    .reshape(param.shape)))
        net.hybridize(**flags)
        y = _record(net, x)
        y.backward()
        results.append([y.asnumpy()] + [p.grad().asnumpy()
                                        for p in net.collect_params().values()])
    for other in results[1:]:
        for got, expected in zip(other, results[0]):
            np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-7)


def test_a_one_call_graph_is_freed_by_backward_unless_retained():
    net = _stack(3)
    net.hybridize(inline_limit=0)
    y = _record(net, nd.ones((2, 3)))
    y.backward(retain_graph=True)
    first = net[0].weight.grad().asnumpy().copy()
    y.backward()
    np.testing.assert_allclose(net[0].weight.grad().asnumpy(), first)
    with pytest.raises(MXNetError, match='retain_graph'):
        y.backward()


def test_the_symbol_of_a_cached_op_evaluates_to_the_block():
    net = _stack(3)
    net.hybridize()
    x = nd.ones((2, 3))
    y = _record(net, x)
    sym = autograd.get_symbol(y)
    # its arguments: the data (null<n>), then the Parameters in the graph's order
    params = net.collect_params()
    graph_inputs = [x] + [params[name].data()
                          for name in net(mx.sym.var('data')).list_inputs()[1:]]
    out = sym.eval(**dict(zip(sym.list_arguments(), graph_inputs)))[0]
    np.testing.assert_allclose(out.asnumpy(), y.asnumpy(), rtol=1e-6)


def test_tape_names_follow_the_counters():
    x = nd.ones((2, 2))
    w = nd.ones((2, 2))
    w.attach_grad()
    with autograd.record():
        y = nd.dot(x, w)
        z = nd.relu(y)
    first = _nodes(z)
    numbers = [int(n['name'].split('_')[1]) for n in first if n['op'] != 'null']
    assert numbers[1] == numbers[0] + 1
    kinds = {n['name'].rstrip('0123456789') for n in first if n['op'] == 'null'}
    assert kinds == {'null', 'var'}                    # x read untracked, w a variable
    x_name = first[0]['name']
    with autograd.record():
        again = nd.dot(x, w)
    assert _nodes(again)[0]['name'] == x_name        # kept until a backward frees it
    again.backward()
    with autograd.record():
        after = nd.dot(x, w)
    assert _nodes(after)[0]['name'] != x_name
    with pytest.raises(MXNetError, match='not part of a recorded computation'):
        autograd.get_symbol(nd.ones((1,)) * 2)


# ---------------------------------------------------------------------- register_op_hook
class _Calls(list):
    def __call__(self, name, op_name, arr):
        self.append((name, op_name, arr))


def _hooked(block, x, monitor_all=False):
    calls = _Calls()
    block.register_op_hook(calls, monitor_all)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        block(x)
    return calls


def test_mxnets_test_op_hook_output_names():
    model = nn.HybridSequential(prefix='dense_')
    with model.name_scope():
        model.add(nn.Dense(2), nn.Activation('relu'))
    model.initialize()
    model.hybridize()
    expected = [b'dense_dense0_fwd_data', b'dense_dense0_fwd_weight', b'dense_dense0_fwd_bias',
                b'dense_dense0_fwd_output', b'dense_relu0_fwd_input0',
                b'dense_relu0_fwd_output']
    calls = _hooked(model, nd.ones((2, 3, 4)), monitor_all=True)
    assert [c[0] for c in calls] == expected
    assert [c[1] for c in calls] == [b'FullyConnected'] * 4 + [b'Activation'] * 2
    model.hybridize(static_alloc=True)
    assert [c[0] for c in _hooked(model, nd.ones((2, 3, 4)), monitor_all=True)] == expected
    outputs = _hooked(model, nd.ones((2, 3, 4)))
    assert [c[0] for c in outputs] == [expected[3], expected[5]]


def test_the_hooked_arrays_are_the_values():
    dense = nn.Dense(2, in_units=3, activation='relu')
    dense.initialize(mx.init.Normal(1))
    dense.hybridize()
    x = nd.array([[1, -2, 3]])
    expected = dense(x).asnumpy()
    calls = _hooked(dense, x, monitor_all=True)
    values = {name: arr for name, _, arr in calls}
    assert all(isinstance(arr, nd.NDArray) for arr in values.values())
    prefix = dense.name + '_'
    np.testing.assert_array_equal(values[(prefix + 'fwd_data').encode()].asnumpy(), x.asnumpy())
    np.testing.assert_array_equal(values[(prefix + 'fwd_weight').encode()].asnumpy(),
                                  dense.weight.data().asnumpy())
    np.testing.assert_array_equal(values[(prefix + 'relu_fwd_output').encode()].asnumpy(),
                                  expected)


def test_the_hook_runs_in_a_hybridized_forward_only():
    net = _stack(3)
    calls = _hooked(net, nd.ones((1, 3)))
    assert calls == []                                  # not hybridized: no graph
    net.hybridize(inline_limit=0)
    calls = _Calls()
    net.register_op_hook(calls)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        y = _record(net, nd.ones((1, 3)))
    forward = len(calls)
    y.backward()
    assert forward == 3 and len(calls) == forward
    net.register_op_hook(None)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        net(nd.ones((1, 3)))
    assert len(calls) == forward


def test_a_block_installs_the_hook_on_its_hybrid_children():
    seq = nn.Sequential()
    seq.add(nn.Dense(2, in_units=3))
    seq.initialize()
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')   # (use HybridSequential, it says)
        seq.hybridize()
    assert len(_hooked(seq, nd.ones((1, 3)))) == 1
    parent = nn.HybridSequential()
    child = nn.HybridSequential()
    grandchild = nn.Dense(2, in_units=3)
    child.add(grandchild)
    parent.add(child)
    parent.initialize()
    grandchild.hybridize()
    assert _hooked(parent, nd.ones((1, 3))) == []     # direct children only, as MXNet
    assert len(_hooked(child, nd.ones((1, 3)))) == 1


def test_a_failing_callback_is_printed_and_ignored(capsys):
    dense = nn.Dense(2, in_units=3)
    dense.initialize()
    dense.hybridize()

    def callback(name, op_name, arr):
        raise ValueError('a failing hook')
    dense.register_op_hook(callback)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        assert dense(nd.ones((1, 3))).shape == (1, 2)
    assert 'a failing hook' in capsys.readouterr().err


def test_a_hooked_call_warns_as_mxnet():
    dense = nn.Dense(2, in_units=3)
    dense.initialize()
    dense.hybridize()
    dense.register_op_hook(_Calls())
    with pytest.warns(UserWarning, match='register_op_hook is experimental'):
        dense(nd.ones((1, 3)))


@pytest.mark.parametrize('callback, monitor_all', [(5, False), (print, 'yes')])
def test_bad_hook_arguments_are_refused(callback, monitor_all):
    with pytest.raises(TypeError, match='register_op_hook'):
        nn.Dense(2).register_op_hook(callback, monitor_all)
