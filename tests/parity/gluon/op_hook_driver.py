"""HybridBlock.register_op_hook, MXNet 1.9.1 vs gluonedu (MXNet's own
test_op_hook_output_names among the cases).

A hybridized block calls ``callback(name, op_name, array)`` for each operator of its
graph as it runs: its outputs, and first its inputs with ``monitor_all``. Names are bytes
(``b'dense0_fwd_output'``). The array is where the two differ by design: MXNet 1.9.1 hands
a raw NDArrayHandle (an int), gluonedu an NDArray (docs/divergences.md); :func:`_values`
reads either.

Both sides run :func:`run` (it imports neither package). As a script, on the oracle's
interpreter: ``oracle_main.py op_hook_driver.py`` writes MXNet's outcomes.
"""
import json
import warnings

import numpy as np

from fixed_parameters import fill

CASES = ('mxnet_test_op_hook_output_names', 'operator_names', 'values_in_order',
         'several_outputs',
         'when_called', 'recorded_and_backward', 'installed_on_direct_children',
         'callback_raises', 'warnings', 'bad_monitor_all')


def _values(mx, arr):
    """The values of a hooked array, rounded (an NDArray, or MXNet's raw handle)."""
    if isinstance(arr, int):
        import ctypes
        arr = mx.nd.NDArray(ctypes.cast(arr, mx.base.NDArrayHandle), writable=False)
    return [list(arr.shape), arr.asnumpy().round(5).ravel().tolist()]


class _Recorder:
    """A hook callback keeping (name, op name[, values]) of each call, names decoded."""

    def __init__(self, mx, values=False):
        self.mx = mx
        self.values = values
        self.calls = []

    def __call__(self, name, op_name, arr):
        call = [name.decode(), op_name.decode()]
        if self.values:
            call.append(_values(self.mx, arr))
        self.calls.append(call)


def _hooked(mx, block, x, monitor_all=False, values=False):
    recorder = _Recorder(mx, values)
    block.register_op_hook(recorder, monitor_all)
    block(x)
    mx.nd.waitall()
    return recorder.calls


def _mxnet_test_op_hook_output_names(mx):
    """MXNet 1.9.1's test_op_hook_output_names (tests/python/unittest/test_gluon.py): the
    names and operator names each of its check_name calls sees."""
    def check_name(block, monitor_all=False):
        return _hooked(mx, block, mx.nd.ones((2, 3, 4)), monitor_all)

    seen = []
    model = mx.gluon.nn.HybridSequential(prefix='dense_')
    with model.name_scope():
        model.add(mx.gluon.nn.Dense(2))
    model.initialize()
    model.hybridize()
    seen.append(check_name(model))

    model = mx.gluon.nn.HybridSequential(prefix='relu_')
    with model.name_scope():
        model.add(mx.gluon.nn.Activation('relu'))
    model.initialize()
    model.hybridize()
    seen.append(check_name(model))

    model = mx.gluon.nn.HybridSequential(prefix='pool_')
    with model.name_scope():
        model.add(mx.gluon.nn.AvgPool1D())
    model.initialize()
    model.hybridize()
    seen.append(check_name(model, monitor_all=True))

    model = mx.gluon.nn.HybridSequential(prefix='dense_')
    with model.name_scope():
        model.add(mx.gluon.nn.Dense(2))
        model.add(mx.gluon.nn.Activation('relu'))
    model.initialize()
    model.hybridize()
    seen.append(check_name(model, monitor_all=True))
    model.hybridize(static_alloc=True)
    seen.append(check_name(model, monitor_all=True))
    return seen


def _operator_names(mx):
    """How operators name their arrays (declared names, or input0 / 0 where MXNet's
    registry declares none): one graph of many operators, inputs and outputs."""
    class Block(mx.gluon.HybridBlock):
        def hybrid_forward(self, F, x, y, image, index):
            unary = [F.relu(x), F.sigmoid(x), F.exp(x), F.log(F.abs(x) + 1), F.sqrt(F.abs(y)),
                     F.square(x), F.negative(x), F.tanh(x), F.Activation(x, act_type='softrelu'),
                     x * 2, x - 3, x / 4, 2 - x, x > 0, F.clip(x, -1, 1), F.zeros_like(x),
                     F.ones_like(x), F.BlockGrad(x), F.make_loss(x), F.Cast(x, dtype='float64')]
            binary = [x + y, x - y, x * y, x / y, F.broadcast_add(x, y), F.broadcast_mul(x, y),
                      F.dot(x, y, transpose_b=True), F.where(y > 2, x, y),
                      F.batch_dot(F.expand_dims(x, 0), F.expand_dims(y, 0), transpose_b=True)]
            shapes = [F.reshape(x, (-1,)), F.Flatten(image), F.transpose(x), F.SwapAxis(x, 0, 1),
                      F.reverse(x, axis=0), F.slice(x, begin=(0, 1), end=(2, 3)),
                      F.slice_axis(x, axis=1, begin=0, end=2), F.Concat(x, y, dim=0),
                      F.stack(x, y), F.add_n(x, y, x), F.split(x, num_outputs=3, axis=1)[2]]
            reductions = [F.sum(x), F.mean(x, axis=1), F.max(x, axis=0), F.softmax(x),
                          F.log_softmax(x), F.softmin(x), F.SoftmaxActivation(x),
                          F.L2Normalization(x), F.norm(x)]
            lookups = [F.take(x, index), F.one_hot(index, 3),
                       F.Embedding(index, x, input_dim=2, output_dim=3), F.pick(x, index),
                       F.gather_nd(x, F.stack(index, index)), F.topk(x, k=1),
                       F.argsort(x, axis=1), F.SequenceMask(image, F.ones((2,)),
                                                           use_sequence_length=True)]
            more = [F.squeeze(F.reshape(x, (1, 2, 3)), axis=0), F.tile(x, reps=(1, 2)),
                    F.repeat(x, 2), F.broadcast_to(F.sum(y, keepdims=True), shape=(2, 3)),
                    F.prod(x), F.norm(y, axis=1), F.smooth_l1(x, scalar=1.0),
                    F.slice_like(x, y), F.reshape_like(x, y), F.broadcast_like(x, y),
                    F.maximum(x, y), F.minimum(x, 2), F.power(y, x), F.hypot(x, y), y % 2,
                    x == y, F.UpSampling(image, scale=2, sample_type='nearest', num_args=1)]
            layers = [F.LeakyReLU(x, act_type='elu'), F.LRN(image, nsize=3),
                      F.Pooling(image, kernel=(2, 2), pool_type='avg'),
                      F.Convolution(image, F.ones((2, 2, 1, 1)), no_bias=True, kernel=(1, 1),
                                    num_filter=2),
                      F.Pad(image, mode='constant', pad_width=(0, 0, 0, 0, 1, 1, 1, 1)),
                      F.InstanceNorm(image, F.ones((2,)), F.zeros((2,)))]
            return unary + binary + shapes + reductions + lookups + more + layers

    block = Block()
    block.hybridize()
    x = mx.nd.array([[0.5, -1, 2], [1, 0.25, -0.5]])
    y = mx.nd.array([[1, 2, 3], [4, 5, 6]])
    image = mx.nd.array(np.linspace(-1, 1, 32).reshape(1, 2, 4, 4))
    recorder = _Recorder(mx)
    block.register_op_hook(recorder, True)
    block(x, y, image, mx.nd.array([1, 0]))
    mx.nd.waitall()
    return recorder.calls


def _values_in_order(mx):
    """Every operator's inputs then outputs, with their values (prediction mode)."""
    net = mx.gluon.nn.HybridSequential()
    with net.name_scope():
        net.add(mx.gluon.nn.Conv1D(2, 2, in_channels=3, activation='relu'),
                mx.gluon.nn.BatchNorm(in_channels=2), mx.gluon.nn.AvgPool1D(),
                mx.gluon.nn.Dropout(0.5), mx.gluon.nn.Flatten(),
                mx.gluon.nn.Dense(2, in_units=4, activation='tanh'))
    net.initialize()
    fill(mx, net)
    net.hybridize()
    x = mx.nd.array(np.linspace(-1, 1, 2 * 3 * 5).reshape(2, 3, 5))
    return {'all': _hooked(mx, net, x, monitor_all=True, values=True),
            'outputs': _hooked(mx, net, x, values=True)}


def _several_outputs(mx):
    """Operators of several outputs, unnamed inputs and outputs, an output nothing reads."""
    class Block(mx.gluon.HybridBlock):
        def hybrid_forward(self, F, x, y):
            first, second = F.split(x, num_outputs=2, axis=1)
            unused = F.split(y, num_outputs=2, axis=0)[1]
            return (first + y, F.concat(first, second, unused, dim=0),
                    F.softmax(x.reshape((-1,)) * 2), F.broadcast_mul(F.sum(x), F.exp(y)))

    block = Block()
    block.hybridize()
    x = mx.nd.array(np.arange(8).reshape(2, 4) / 8)
    y = mx.nd.array(np.arange(4).reshape(2, 2) / 4)
    recorder = _Recorder(mx, values=True)
    block.register_op_hook(recorder, True)
    block(x, y)
    mx.nd.waitall()
    return recorder.calls


def _when_called(mx):
    """Only a hybridized block's forward calls the hook, at every call; a plain Block's
    register_op_hook installs it on its HybridBlock children."""
    out = {}
    net = mx.gluon.nn.HybridSequential()
    with net.name_scope():
        net.add(mx.gluon.nn.Dense(2, in_units=3))
    net.initialize()
    x = mx.nd.ones((1, 3))
    out['not_hybridized'] = _hooked(mx, net, x)
    net.hybridize()
    recorder = _Recorder(mx)
    net.register_op_hook(recorder)
    net(x)
    net(x)
    mx.nd.waitall()
    out['twice'] = recorder.calls
    net.hybridize(False)
    out['hybridize_false'] = _hooked(mx, net, x)
    seq = mx.gluon.nn.Sequential()
    with seq.name_scope():
        seq.add(mx.gluon.nn.Dense(2, in_units=3), mx.gluon.nn.Dense(1, in_units=2))
    seq.initialize()
    out['plain_block'] = _hooked(mx, seq, x)
    seq.hybridize()
    out['plain_block_hybridized_children'] = _hooked(mx, seq, x, monitor_all=True)
    return out


def _recorded_and_backward(mx):
    """Recording (inlined or as one call) changes nothing in forward; backward of an
    inlined graph calls no hook. (Backward of a graph recorded as one call does in MXNet,
    for the nodes of its gradient graph: not compared, docs/divergences.md.)"""
    out = {}
    for name, limit in (('inlined', 3), ('one_call', 0)):
        net = mx.gluon.nn.HybridSequential()
        with net.name_scope():
            net.add(mx.gluon.nn.Dense(3, in_units=2, activation='relu'),
                    mx.gluon.nn.Dense(1, in_units=3))
        net.initialize()
        fill(mx, net)
        net.hybridize(inline_limit=limit)
        recorder = _Recorder(mx, values=True)
        net.register_op_hook(recorder, True)
        x = mx.nd.array([[0.5, -1], [2, 1]])
        with mx.autograd.record():
            y = net(x)
        mx.nd.waitall()
        forward = list(recorder.calls)
        y.backward()
        mx.nd.waitall()
        out[name] = {'forward': forward,
                     'weight_grad': net[0].weight.grad().asnumpy().round(5).tolist()}
        if name == 'inlined':
            out[name]['backward'] = recorder.calls[len(forward):]
    return out


def _installed_on_direct_children(mx):
    """As MXNet: a HybridBlock installs the hook on itself and its direct children only."""
    parent = mx.gluon.nn.HybridSequential()
    with parent.name_scope():
        child = mx.gluon.nn.HybridSequential()
        with child.name_scope():
            grandchild = mx.gluon.nn.Dense(2, in_units=3)
            child.add(grandchild)
        parent.add(child)
    parent.initialize()
    grandchild.hybridize()
    x = mx.nd.ones((1, 3))
    return {'from_parent': _hooked(mx, parent, x), 'from_child': _hooked(mx, child, x)}


def _callback_raises(mx):
    """An exception in the callback is printed and the forward goes on (MXNet's engine
    cannot raise it)."""
    calls = []

    def callback(name, op_name, arr):
        calls.append(name.decode())
        raise ValueError('a failing hook')

    dense = mx.gluon.nn.Dense(2, in_units=3)
    dense.initialize()
    fill(mx, dense)
    dense.hybridize()
    dense.register_op_hook(callback, True)
    y = dense(mx.nd.ones((1, 3)))
    mx.nd.waitall()
    return {'calls': calls, 'output': y.asnumpy().round(5).tolist()}


def _warnings(mx):
    """The categories of the warnings a hooked call gives (MXNet warns once hybridize()
    set its flags, whatever they are)."""
    out = {}
    for name, flags in (('default', {}), ('static_alloc', {'static_alloc': True})):
        dense = mx.gluon.nn.Dense(2, in_units=3)
        dense.initialize()
        dense.hybridize(**flags)
        dense.register_op_hook(_Recorder(mx))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter('always')
            dense(mx.nd.ones((1, 3)))
        out[name] = sorted(w.category.__name__ for w in caught)
    return out


def _bad_monitor_all(mx):
    dense = mx.gluon.nn.Dense(2, in_units=3)
    dense.initialize()
    dense.hybridize()
    try:  # (MXNet raises at the call, gluonedu at the registration)
        dense.register_op_hook(_Recorder(mx), 'yes')
        dense(mx.nd.ones((1, 3)))
    except Exception as exc:  # an outcome compared like the others
        return type(exc).__name__
    return None


_RUNS = {'mxnet_test_op_hook_output_names': _mxnet_test_op_hook_output_names,
         'operator_names': _operator_names, 'values_in_order': _values_in_order,
         'several_outputs': _several_outputs,
         'when_called': _when_called, 'recorded_and_backward': _recorded_and_backward,
         'installed_on_direct_children': _installed_on_direct_children,
         'callback_raises': _callback_raises, 'warnings': _warnings,
         'bad_monitor_all': _bad_monitor_all}


def run(mx, case):
    """The outcome of ``case`` on ``mx`` (MXNet or gluonedu), as JSON-ready data."""
    with warnings.catch_warnings(), mx.name.NameManager():
        warnings.simplefilter('ignore')
        return _RUNS[case](mx)


if __name__ == '__main__':  # the oracle's side, run by oracle_main.py
    import mxnet

    import oracle_io

    results = {case: np.array(json.dumps(run(mxnet, case))) for case in CASES}
    oracle_io.save_results(results)
