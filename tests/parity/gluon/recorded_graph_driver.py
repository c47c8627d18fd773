"""What ``autograd.get_symbol`` shows of hybridized blocks, MXNet 1.9.1 vs gluonedu
(MXNet's own test_inline among the cases).

Inside ``autograd.record()`` MXNet's CachedOp records a graph of at most ``inline_limit``
operators (2 by default) operator by operator, a larger one — or any, with
``static_alloc`` — as one ``_CachedOp`` node. The tape names its nodes ``node_<n>``, its
marked variables ``var<n>`` and the untracked arrays it reads ``null<n>`` from two
process-wide counters; each case reads the counters first (:class:`_Counters`) and reports
names relative to them, so that cases compare whatever ran before them in the process.

Both sides run :func:`run` (it imports neither package). As a script, on the oracle's
interpreter: ``oracle_main.py recorded_graph_driver.py`` writes MXNet's outcomes.
"""
import json
import re

import numpy as np

from fixed_parameters import fill

CASES = ('mxnet_test_inline', 'default_limit', 'limits_and_static_alloc', 'multi_output',
         'plain_parent', 'hybrid_parent', 'hybridized_child_only', 'no_gradient_params',
         'batchnorm', 'imperative_attributes', 'names_across_recordings',
         'one_backward_for_all_outputs')


class _Counters:
    """The tape's counters when the case starts: names are reported relative to them."""

    def __init__(self, mx):
        probe = mx.nd.ones((1,))
        probe.attach_grad()
        with mx.autograd.record():
            out = probe * 1
        names = [n['name'] for n in json.loads(mx.autograd.get_symbol(out).tojson())['nodes']]
        self.leaf = int(names[0][len('var'):]) + 1
        self.node = int(names[1][len('node_'):]) + 1

    def relative(self, text):
        """``text`` with each var/null/node number made relative to the case's start."""
        text = re.sub(r'\b(var|null)(\d+)',
                      lambda m: '%s%d' % (m.group(1), int(m.group(2)) - self.leaf), text)
        return re.sub(r'\bnode_(\d+)', lambda m: 'node_%d' % (int(m.group(1)) - self.node),
                      text)


def _dense_stack(mx, units, count, **kwargs):
    net = mx.gluon.nn.HybridSequential()
    with net.name_scope():
        for _ in range(count):
            net.add(mx.gluon.nn.Dense(units, **kwargs))
    return net


def _graph(mx, counters, y):
    """What get_symbol shows of ``y``: the JSON's nodes and heads, the symbol's lists."""
    sym = mx.autograd.get_symbol(y)
    graph = json.loads(counters.relative(sym.tojson()))
    return {'nodes': graph['nodes'], 'heads': graph['heads'],
            'node_row_ptr': graph['node_row_ptr'], 'arg_nodes': graph['arg_nodes'],
            'arguments': [counters.relative(n) for n in sym.list_arguments()],
            'outputs': [counters.relative(n) for n in sym.list_outputs()],
            'aux': [counters.relative(n) for n in sym.list_auxiliary_states()]}


def _record(mx, block, *inputs):
    with mx.autograd.record():
        return block(*inputs)


def _grads(block):
    return {name: p.grad().asnumpy().round(5).tolist()
            for name, p in sorted(block.collect_params().items()) if p.grad_req != 'null'}


def _mxnet_test_inline(mx, counters):
    """MXNet 1.9.1's test_inline (tests/python/unittest/test_gluon.py), its node counts
    and the graphs behind them."""
    net = _dense_stack(mx, 10, 3)
    net.initialize()
    net.hybridize(inline_limit=3)
    y = _record(mx, net, mx.nd.zeros((1, 10)))
    inlined = _graph(mx, counters, y)
    y.backward()
    net.hybridize(inline_limit=0)
    y = _record(mx, net, mx.nd.zeros((1, 10)))
    whole = _graph(mx, counters, y)
    y.backward()
    return {'len_1': len(inlined['nodes']), 'len_2': len(whole['nodes']),
            'inlined': inlined, 'whole': whole}


def _default_limit(mx, counters):
    """2 operators (Dense with relu) are inlined by default, 3 are not."""
    one = mx.gluon.nn.Dense(4, activation='relu', in_units=3)
    one.initialize()
    one.hybridize()
    two = _dense_stack(mx, 4, 2, activation='relu', in_units=4)
    two.initialize()
    two.hybridize()
    x = mx.nd.ones((2, 3))
    return {'two_ops': _graph(mx, counters, _record(mx, one, x)),
            'four_ops': _graph(mx, counters, _record(mx, two, mx.nd.ones((2, 4))))}


def _limits_and_static_alloc(mx, counters):
    net = _dense_stack(mx, 3, 2, in_units=3)
    net.initialize()
    fill(mx, net)
    out = {}
    for name, flags in (('limit_1', {'inline_limit': 1}), ('limit_2', {}),
                        ('static_alloc', {'static_alloc': True, 'inline_limit': 10}),
                        ('static_shape', {'static_alloc': True, 'static_shape': True})):
        net.hybridize(**flags)
        y = _record(mx, net, mx.nd.array([[1, 2, 3], [4, 5, 6]]))
        graph = _graph(mx, counters, y)
        y.backward()  # (frees the graph: get_symbol would fail after it)
        out[name] = {'graph': graph, 'value': y.asnumpy().round(5).tolist(),
                     'grads': _grads(net)}
    return out


def _multi_output(mx, counters):
    class Three(mx.gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            return F.relu(x), F.sigmoid(x), x * 2

    block = Three()
    x = mx.nd.array([[-1, 0.5, 2]])
    x.attach_grad()
    out = {}
    for name, limit in (('cached', 0), ('inlined', 3)):
        block.hybridize(inline_limit=limit)
        with mx.autograd.record():
            a, b, c = block(x)
            z = a + c
        out[name] = {'a': _graph(mx, counters, a), 'b': _graph(mx, counters, b),
                     'z': _graph(mx, counters, z)}
        z.backward()
        out[name]['x_grad'] = x.grad.asnumpy().tolist()
    return out


def _plain_parent(mx, counters):
    """A Block's hybridized children: each its own call."""
    seq = mx.gluon.nn.Sequential()
    with seq.name_scope():
        seq.add(_dense_stack(mx, 3, 3, in_units=3), mx.gluon.nn.Dense(2, in_units=3))
    seq.initialize()
    fill(mx, seq)
    seq.hybridize()
    y = _record(mx, seq, mx.nd.ones((2, 3)))
    graph = _graph(mx, counters, y)
    y.backward()
    return {'graph': graph, 'grads': _grads(seq)}


def _hybrid_parent(mx, counters):
    """A hybridized HybridBlock's hybridized children are part of its one graph."""
    net = mx.gluon.nn.HybridSequential()
    with net.name_scope():
        net.add(mx.gluon.nn.Dense(3, in_units=3), _dense_stack(mx, 3, 2, in_units=3))
    net.initialize()
    net.hybridize()
    return _graph(mx, counters, _record(mx, net, mx.nd.ones((2, 3))))


def _hybridized_child_only(mx, counters):
    net = mx.gluon.nn.HybridSequential()
    with net.name_scope():
        inner = _dense_stack(mx, 3, 3, in_units=3)
        net.add(mx.gluon.nn.Dense(3, in_units=3), inner)
    net.initialize()
    inner.hybridize()
    return _graph(mx, counters, _record(mx, net, mx.nd.ones((2, 3))))


def _no_gradient_params(mx, counters):
    """Parameters without gradients are read as untracked arrays (null<n>)."""
    dense = mx.gluon.nn.Dense(3, in_units=3)
    dense.initialize()
    dense.collect_params().setattr('grad_req', 'null')
    dense.hybridize(inline_limit=0)
    x = mx.nd.ones((2, 3))
    x.attach_grad()
    return _graph(mx, counters, _record(mx, dense, x))


def _batchnorm(mx, counters):
    """Auxiliary states: the running statistics, untracked, keep their null<n> names from
    one recording to the next (no backward freed them)."""
    bn = mx.gluon.nn.BatchNorm(in_channels=3)
    bn.initialize()
    x = mx.nd.array([[1, 2, 3], [3, 5, 9]])
    bn.hybridize(inline_limit=0)
    cached = _graph(mx, counters, _record(mx, bn, x))
    bn.hybridize()
    y = _record(mx, bn, x)
    inlined = _graph(mx, counters, y)
    y.backward()
    return {'cached': cached, 'inlined': inlined,
            'running_mean': bn.running_mean.data().asnumpy().round(5).tolist()}


def _imperative_attributes(mx, counters):
    """Recorded imperative calls keep the parameters given, defaults included."""
    x = mx.nd.ones((2, 3))
    w = mx.nd.ones((4, 3))
    w.attach_grad()
    with mx.autograd.record():
        given = mx.nd.FullyConnected(x, w, no_bias=True, num_hidden=4, flatten=True)
        plain = mx.nd.relu(given)
        scaled = mx.nd.sum(plain * 3, axis=1, keepdims=False)
    return _graph(mx, counters, scaled)


def _names_across_recordings(mx, counters):
    """A null<n> name lasts until a backward frees the graph; a variable keeps var<n>;
    an array no recording read has no symbol (MXNetError)."""
    x = mx.nd.ones((2, 2))
    w = mx.nd.ones((2, 2))
    w.attach_grad()
    graphs = []
    for backward in (False, True, False):
        with mx.autograd.record():
            y = mx.nd.dot(x, w)
        graphs.append(_graph(mx, counters, y))
        if backward:
            y.backward()
    try:
        mx.autograd.get_symbol(mx.nd.ones((1,)) * 2)
        error = None
    except Exception as exc:  # an outcome compared like the others
        error = type(exc).__name__
    return {'graphs': graphs, 'untracked_error': error}


def _one_backward_for_all_outputs(mx, counters):
    """A graph recorded as one call, two of its outputs in the loss: its backward runs
    once (BatchNorm updates its running statistics there: once per step), with both
    gradients; likewise an autograd.Function of two outputs."""
    class TwoHeads(mx.gluon.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.dense = mx.gluon.nn.Dense(4, in_units=3)
                self.norm = mx.gluon.nn.BatchNorm(in_channels=4)

        def hybrid_forward(self, F, x):
            h = self.norm(self.dense(x))
            return F.relu(h) * 2, F.tanh(h) + 1

    net = TwoHeads()
    net.initialize()
    fill(mx, net)
    net.hybridize(inline_limit=0)
    x = mx.nd.array(np.arange(12).reshape(4, 3) ** 1.3)
    for _ in range(2):
        with mx.autograd.record():
            a, b = net(x)
            losses = [(a * mx.nd.array([[1, 2, 3, 4]])).sum(), (b ** 2).sum()]
        mx.autograd.backward(losses)
    calls = []

    class Twice(mx.autograd.Function):
        def forward(self, x):
            return x * 2, x * 3

        def backward(self, g1, g2):
            calls.append([g1.asnumpy().tolist(), g2.asnumpy().tolist()])
            return g1 * 2 + g2 * 3

    y = mx.nd.array([1., 2.])
    y.attach_grad()
    function_grads = []
    for both in (False, True):
        with mx.autograd.record():
            p, q = Twice()(y)
            loss = (p * 5).sum() + ((q * 7).sum() if both else 0)
        loss.backward()
        function_grads.append(y.grad.asnumpy().tolist())
    return {'running_mean': net.norm.running_mean.data().asnumpy().round(5).tolist(),
            'running_var': net.norm.running_var.data().asnumpy().round(5).tolist(),
            # the norm's gradients to 4 significant digits (float32 sums in another order;
            # the dense layer's are sums that cancel to ~1e-6 noise)
            'grads': {name: [float('%.4g' % v) for v in p.grad().asnumpy()]
                      for name, p in sorted(net.norm.collect_params().items())
                      if p.grad_req != 'null'},
            'function_calls': calls,
            'function_grads': function_grads}


_RUNS = {'mxnet_test_inline': _mxnet_test_inline, 'default_limit': _default_limit,
         'limits_and_static_alloc': _limits_and_static_alloc, 'multi_output': _multi_output,
         'plain_parent': _plain_parent, 'hybrid_parent': _hybrid_parent,
         'hybridized_child_only': _hybridized_child_only,
         'no_gradient_params': _no_gradient_params, 'batchnorm': _batchnorm,
         'imperative_attributes': _imperative_attributes,
         'names_across_recordings': _names_across_recordings,
         'one_backward_for_all_outputs': _one_backward_for_all_outputs}


def run(mx, case):
    """The outcome of ``case`` on ``mx`` (MXNet or gluonedu), as JSON-ready data."""
    import warnings
    with warnings.catch_warnings(), mx.name.NameManager():
        warnings.simplefilter('ignore')
        return _RUNS[case](mx, _Counters(mx))


if __name__ == '__main__':  # the oracle's side, run by oracle_main.py
    import mxnet

    import oracle_io

    results = {case: np.array(json.dumps(run(mxnet, case))) for case in CASES}
    oracle_io.save_results(results)
