"""gluon.rnn: the cells, the fused layers and what MXNet's CPU operator cannot check (the
fast kernel against the operator's reference, hybridize/export, saved names, dropout,
training). Values and gradients against MXNet 1.9.1 are in tests/parity/gluon/test_rnn_parity.py.
"""
import numpy as np
import pytest

import gluonedu as mx
from gluonedu import autograd, nd
from gluonedu.gluon import nn, rnn
from gluonedu.ndarray.nn_ops import use_kernels

N, T, C, H = 3, 5, 4, 6


def _x(layout='NTC', seed=0):
    shape = (N, T, C) if layout == 'NTC' else (T, N, C)
    return nd.array(np.random.RandomState(seed).uniform(-1, 1, shape))


def _initialized(block, x, *args):
    block.initialize(mx.init.Uniform(0.5))
    block(x, *args)
    return block


# ---------------------------------------------------------------------- the fast kernel
@pytest.mark.parametrize('mode', ['rnn_relu', 'rnn_tanh', 'lstm', 'gru'])
@pytest.mark.parametrize('layers,bidirectional', [(1, False), (2, True)])
def test_fast_kernel_equals_the_reference(mode, layers, bidirectional):
    rng = np.random.RandomState(1)
    gates = {'rnn_relu': 1, 'rnn_tanh': 1, 'lstm': 4, 'gru': 3}[mode]
    directions = 2 if bidirectional else 1
    count = sum(directions * gates * H * ((C if layer == 0 else directions * H) + H + 2)
                for layer in range(layers))
    arrays = [nd.array(rng.uniform(-1, 1, (T, N, C))), nd.array(rng.uniform(-.5, .5, count)),
              nd.array(rng.uniform(-1, 1, (layers * directions, N, H)))]
    if mode == 'lstm':
        arrays.append(nd.array(rng.uniform(-1, 1, (layers * directions, N, H))))
    results = {}
    for kernels in ('fast', 'reference'):
        for a in arrays:
            a.attach_grad()
        with use_kernels(kernels), autograd.record():
            outputs = nd.RNN(*arrays, state_size=H, num_layers=layers, mode=mode,
                             bidirectional=bidirectional, state_outputs=True)
            loss = sum(((k + 1) * o * o).sum() for k, o in enumerate(outputs))
        loss.backward()
        results[kernels] = [o.asnumpy() for o in outputs] + [a.grad.asnumpy() for a in arrays]
    for fast, reference in zip(results['fast'], results['reference']):
        np.testing.assert_allclose(fast, reference, rtol=1e-4, atol=1e-5)


def test_fast_kernel_backward_from_the_final_state_alone():
    """Only the final state receives a gradient: the output's is zero, not missing."""
    layer = _initialized(rnn.GRU(H, num_layers=2), _x('TNC'))
    x = _x('TNC')
    grads = {}
    for kernels in ('fast', 'reference'):
        x.attach_grad()
        with use_kernels(kernels), autograd.record():
            _, states = layer(x, layer.begin_state(N))
            states[0].sum().backward()
        grads[kernels] = x.grad.asnumpy()
    np.testing.assert_allclose(grads['fast'], grads['reference'], rtol=1e-4, atol=1e-6)
    assert np.abs(grads['fast']).sum() > 0


def test_one_pass_through_time_for_the_output_and_the_states(monkeypatch):
    """A loss of the output and both final states runs the fast kernel's backward once
    (the tape hands it every output's gradient together), and gives the reference's
    gradients."""
    from gluonedu.ndarray.nn_ops.kernels import rnn_fast
    passes = []
    real = rnn_fast.backward
    monkeypatch.setattr(rnn_fast, 'backward',
                        lambda *a, **k: (passes.append(1), real(*a, **k))[1])
    layer = _initialized(rnn.LSTM(H, num_layers=2), _x('TNC'))
    x = _x('TNC')
    grads = {}
    for kernels in ('fast', 'reference'):
        x.attach_grad()
        with use_kernels(kernels), autograd.record():
            out, (h, c) = layer(x, layer.begin_state(N))
            loss = out.sum() + (2 * h).sum() + (c * c).sum()
        loss.backward()
        grads[kernels] = [x.grad.asnumpy(), layer.l0_h2h_weight.grad().asnumpy()]
    assert len(passes) == 1
    for fast, reference in zip(grads['fast'], grads['reference']):
        np.testing.assert_allclose(fast, reference, rtol=1e-4, atol=1e-6)


def test_layer_dropout_acts_between_layers_in_training_only():
    layer = _initialized(rnn.LSTM(H, num_layers=2, dropout=0.5), _x('TNC'))
    x = _x('TNC')
    plain = layer(x).asnumpy()
    mx.random.seed(3)
    with autograd.record():
        dropped = layer(x)
    assert not np.allclose(dropped.asnumpy(), plain)
    np.testing.assert_array_equal(layer(x).asnumpy(), plain)


# ---------------------------------------------------------------------- layers
@pytest.mark.parametrize('make,states', [(lambda: rnn.RNN(H, num_layers=2), 1),
                                         (lambda: rnn.LSTM(H, num_layers=2), 2),
                                         (lambda: rnn.GRU(H, num_layers=2), 1)])
def test_layer_returns_output_alone_without_states(make, states):
    layer = _initialized(make(), _x('TNC'))
    assert layer(_x('TNC')).shape == (T, N, H)
    out, final = layer(_x('TNC'), layer.begin_state(N))
    assert out.shape == (T, N, H) and len(final) == states
    assert all(s.shape == (2, N, H) for s in final)


def test_layer_names_shapes_and_repr():
    layer = rnn.LSTM(H, num_layers=2, bidirectional=True, layout='NTC', prefix='lstm0_')
    assert repr(layer) == 'LSTM(None -> 6, NTC, num_layers=2, bidirectional)'
    assert layer.l0_i2h_weight.shape == (4 * H, 0)
    _initialized(layer, _x())
    params = layer.collect_params()
    assert params['lstm0_l0_i2h_weight'].shape == (4 * H, C)
    assert params['lstm0_r1_i2h_weight'].shape == (4 * H, 2 * H)
    assert params['lstm0_r1_h2h_bias'].shape == (4 * H,)
    assert len(params) == 16
    assert layer(_x()).shape == (N, T, 2 * H)


def test_ntc_is_tnc_transposed():
    tnc = _initialized(rnn.GRU(H, bidirectional=True, input_size=C), _x('TNC'))
    ntc = rnn.GRU(H, bidirectional=True, input_size=C, layout='NTC', params=tnc.params)
    np.testing.assert_allclose(ntc(_x('NTC')).asnumpy(),
                               tnc(_x('NTC').swapaxes(0, 1)).swapaxes(0, 1).asnumpy(),
                               rtol=1e-6)


def test_bad_states_raise():
    layer = _initialized(rnn.LSTM(H, num_layers=2), _x('TNC'))
    with pytest.raises(ValueError, match='Invalid recurrent state shape'):
        layer(_x('TNC'), [nd.zeros((1, N, H)), nd.zeros((2, N, H))])
    with pytest.raises(AssertionError):
        rnn.GRU(H, layout='CTN')


@pytest.mark.parametrize('make', [lambda: rnn.RNN(H, 2, 'tanh', bidirectional=True),
                                  lambda: rnn.LSTM(H, 2, bidirectional=True),
                                  lambda: rnn.GRU(H, 2)])
def test_unfuse_gives_the_same_cells(make):
    layer = _initialized(make(), _x('TNC'))
    states = [nd.array(np.random.RandomState(2).uniform(-1, 1, s.shape))
              for s in layer.begin_state(N)]
    out, final = layer(_x('TNC'), states)
    stack = layer._unfuse()
    assert set(stack.collect_params().values()) == set(layer.collect_params().values())
    # the cells' states: per layer (and direction) one slice of the layer's states
    cell_states = [s[i] for i in range(states[0].shape[0]) for s in states]
    cell_out, cell_final = stack.unroll(T, _x('TNC'), begin_state=cell_states, layout='TNC',
                                        merge_outputs=True)
    np.testing.assert_allclose(cell_out.asnumpy(), out.asnumpy(), rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(cell_final[0].asnumpy(), final[0][0].asnumpy(), rtol=1e-4,
                               atol=1e-6)


def test_hybridized_network_exports_and_imports(tmp_path):
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(rnn.LSTM(H, num_layers=2, layout='NTC'), nn.Dense(3, flatten=False))
    net.initialize()
    x = _x()
    expected = net(x).asnumpy()
    net.hybridize()
    np.testing.assert_allclose(net(x).asnumpy(), expected, rtol=1e-5, atol=1e-7)
    net.export(str(tmp_path / 'model'))
    loaded = mx.gluon.SymbolBlock.imports(str(tmp_path / 'model-symbol.json'), ['data'],
                                          str(tmp_path / 'model-0000.params'))
    np.testing.assert_allclose(loaded(x).asnumpy(), expected, rtol=1e-5, atol=1e-7)


def test_saved_names_are_the_unfused_cells(tmp_path):
    layer = _initialized(rnn.GRU(H, bidirectional=True, prefix='gru0_'), _x('TNC'))
    path = str(tmp_path / 'gru.params')
    layer.save_parameters(path)
    assert '_unfused.0.r_cell.h2h_weight' in nd.load(path)
    other = rnn.GRU(H, bidirectional=True, prefix='other_')
    other.load_parameters(path)
    np.testing.assert_array_equal(other(_x('TNC')).asnumpy(), layer(_x('TNC')).asnumpy())


def test_a_character_model_learns():
    """Two Trainer steps on a small LSTM language model lower its loss."""
    mx.random.seed(0)
    vocab = 8
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Embedding(vocab, 8), rnn.LSTM(16, layout='NTC'), nn.Dense(vocab, flatten=False))
    net.initialize(mx.init.Xavier())
    net.hybridize()
    text = nd.array(np.tile(np.arange(vocab), 4).reshape(4, -1))
    trainer = mx.gluon.Trainer(net.collect_params(), 'adam', {'learning_rate': 0.05})
    loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()
    losses = []
    for _ in range(3):
        with autograd.record():
            loss = loss_fn(net(text[:, :-1]), text[:, 1:]).mean()
        loss.backward()
        trainer.step(1)
        losses.append(loss.asscalar())
    assert losses[-1] < losses[0]


# ---------------------------------------------------------------------- cells
def test_cell_states_and_begin_state():
    cell = rnn.LSTMCell(H, prefix='lstm0_')
    assert cell.state_info(2) == [{'shape': (2, H), '__layout__': 'NC'}] * 2
    ones = cell.begin_state(batch_size=2, func=nd.ones)
    assert [s.shape for s in ones] == [(2, H), (2, H)] and ones[0].asnumpy().min() == 1
    symbols = cell.begin_state(func=mx.sym.var)
    assert [s.name for s in symbols] == ['lstm0_begin_state_2', 'lstm0_begin_state_3']
    cell.reset()
    assert cell.begin_state(batch_size=1)[0].shape == (1, H)


def test_cell_step_matches_its_formula():
    cell = _initialized(rnn.GRUCell(H), _x()[:, 0], [nd.zeros((N, H))])
    x, h = _x()[:, 0].asnumpy(), np.random.RandomState(4).uniform(-1, 1, (N, H))
    p = {k[len(cell.prefix):]: v.data().asnumpy() for k, v in cell.collect_params().items()}
    xw = x @ p['i2h_weight'].T + p['i2h_bias']
    hu = h @ p['h2h_weight'].T + p['h2h_bias']

    def sigmoid(a):
        return 1 / (1 + np.exp(-a))
    r = sigmoid(xw[:, :H] + hu[:, :H])
    z = sigmoid(xw[:, H:2 * H] + hu[:, H:2 * H])
    n = np.tanh(xw[:, 2 * H:] + r * hu[:, 2 * H:])
    out, states = cell(nd.array(x), [nd.array(h)])
    np.testing.assert_allclose(out.asnumpy(), (1 - z) * n + z * h, rtol=1e-5, atol=1e-6)
    assert states[0] is out


def test_unroll_layouts_lists_and_valid_length():
    cell = rnn.RNNCell(H, prefix='rnn0_')
    cell.initialize()
    merged, _ = cell.unroll(T, _x(), layout='NTC', merge_outputs=True)
    steps, _ = cell.unroll(T, _x().swapaxes(0, 1), layout='TNC', merge_outputs=False)
    assert merged.shape == (N, T, H) and len(steps) == T
    np.testing.assert_allclose(merged.asnumpy()[:, 2], steps[2].asnumpy(), rtol=1e-6)
    valid = nd.array([T, 2, 1])
    masked, states = cell.unroll(T, _x(), layout='NTC', merge_outputs=True,
                                 valid_length=valid)
    assert np.all(masked.asnumpy()[1, 2:] == 0) and np.all(masked.asnumpy()[2, 1:] == 0)
    np.testing.assert_allclose(states[0].asnumpy()[1], merged.asnumpy()[1, 1], rtol=1e-6)


def test_stacks_and_modifiers():
    stack = rnn.SequentialRNNCell(prefix='stack_')
    with stack.name_scope():
        stack.add(rnn.LSTMCell(H))
        stack.add(rnn.DropoutCell(0.5))
        stack.add(rnn.ResidualCell(rnn.GRUCell(H)))
    stack.initialize()
    assert len(stack) == 3 and isinstance(stack[2], rnn.ResidualCell)
    assert len(stack.begin_state(batch_size=N)) == 3
    out, states = stack.unroll(T, _x(), merge_outputs=True)
    assert out.shape == (N, T, H) and len(states) == 3
    assert repr(stack[1]) == 'DropoutCell(rate=0.5, axes=())'
    base = rnn.GRUCell(H)
    zoneout = rnn.ZoneoutCell(base, zoneout_states=0.3)
    assert repr(zoneout).startswith('ZoneoutCell(p_out=0.0, p_state=0.3, GRUCell(')
    with pytest.raises(AssertionError, match='modifier'):
        base.begin_state(batch_size=1)
    with pytest.raises(AssertionError, match='modified twice'):
        rnn.ResidualCell(base)


def test_bidirectional_cell_unrolls_both_ways_and_cannot_step():
    left, right = rnn.LSTMCell(H, prefix='l_'), rnn.LSTMCell(H, prefix='r_')
    cell = rnn.BidirectionalCell(left, right)
    cell.initialize()
    out, states = cell.unroll(T, _x(), merge_outputs=True)
    assert out.shape == (N, T, 2 * H) and len(states) == 4
    forward, _ = left.unroll(T, _x(), merge_outputs=True)
    backward, _ = right.unroll(T, _x()[:, ::-1], merge_outputs=True)
    np.testing.assert_allclose(out.asnumpy()[:, :, :H], forward.asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(out.asnumpy()[:, :, H:], backward.asnumpy()[:, ::-1],
                               rtol=1e-6)
    with pytest.raises(NotImplementedError):
        cell(_x()[:, 0], cell.begin_state(batch_size=N))


def test_hybridized_cell_equals_imperative():
    cell = rnn.LSTMCell(H)
    cell.initialize()
    expected, _ = cell.unroll(T, _x(), merge_outputs=True)
    cell.hybridize()
    got, _ = cell.unroll(T, _x(), merge_outputs=True)
    np.testing.assert_allclose(got.asnumpy(), expected.asnumpy(), rtol=1e-6)
