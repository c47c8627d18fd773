"""``nd.RNN`` where MXNet 1.9.1's CPU operator cannot serve as the oracle
(docs/divergences.md): variable sequence lengths, LSTM state clipping and the LSTM
projection. The parity suite (tests/parity/ndarray/ops_cases_nnops.py) holds everything else to
MXNet's numbers; here the documented semantics are checked against their definitions.
"""
import numpy as np
import pytest

from gluonedu import autograd, nd, sym
from gluonedu.base import MXNetError

T, N, I, H = 4, 3, 5, 3
GATES = {'rnn_tanh': 1, 'lstm': 4, 'gru': 3}


def _inputs(mode, layers=1, directions=1, projection=None, seed=0):
    rng = np.random.RandomState(seed)
    state = projection or H
    count = 0
    for layer in range(layers):
        width = I if layer == 0 else directions * state
        count += directions * (GATES[mode] * H * (width + state + 2) + (projection or 0) * H)
    arrays = [rng.uniform(-1, 1, (T, N, I)), rng.uniform(-0.5, 0.5, count),
              rng.uniform(-0.5, 0.5, (layers * directions, N, state))]
    if mode == 'lstm':
        arrays.append(rng.uniform(-0.5, 0.5, (layers * directions, N, H)))
    return [nd.array(a, dtype='float64') for a in arrays]


def _rnn(arrays, mode, **kwargs):
    kwargs.setdefault('num_layers', 1)
    return nd.RNN(*arrays, state_size=H, mode=mode, state_outputs=True, **kwargs)


@pytest.mark.parametrize('mode', sorted(GATES))
@pytest.mark.parametrize('bidirectional', [False, True])
def test_each_sequence_runs_as_if_cut_to_its_length(mode, bidirectional):
    arrays = _inputs(mode, layers=2, directions=2 if bidirectional else 1)
    lengths = [4, 1, 3]
    options = dict(num_layers=2, bidirectional=bidirectional)
    out, *states = _rnn(arrays + [nd.array(lengths)], mode, use_sequence_length=True,
                        **options)
    for n, length in enumerate(lengths):
        alone = [arrays[0][:length, n:n + 1], arrays[1]] + [s[:, n:n + 1] for s in arrays[2:]]
        out_n, *states_n = _rnn(alone, mode, **options)
        np.testing.assert_allclose(out[:length, n:n + 1].asnumpy(), out_n.asnumpy(),
                                   rtol=1e-12)
        assert not out[length:, n].asnumpy().any()       # past its length: zeros
        for state, state_n in zip(states, states_n):
            np.testing.assert_allclose(state[:, n:n + 1].asnumpy(), state_n.asnumpy(),
                                       rtol=1e-12)


def test_a_sequence_of_length_zero_keeps_its_initial_state():
    arrays = _inputs('gru')
    out, state = _rnn(arrays + [nd.array([0, 4, 2])], 'gru', use_sequence_length=True)
    assert not out[:, 0].asnumpy().any()
    np.testing.assert_array_equal(state[:, 0].asnumpy(), arrays[2][:, 0].asnumpy())


def test_sequence_lengths_beyond_the_data_are_refused():
    with pytest.raises(MXNetError, match='sequence_length'):
        _rnn(_inputs('gru') + [nd.array([1, 5, 2])], 'gru', use_sequence_length=True)


def test_the_lstm_cell_state_is_clipped_to_its_bounds():
    arrays = _inputs('lstm')
    arrays[1] = arrays[1] * 6                              # large gates: |c| grows past 0.2
    _, _, free = _rnn(arrays, 'lstm')
    assert abs(free.asnumpy()).max() > 0.2
    _, _, cell = _rnn(arrays, 'lstm', lstm_state_clip_min=-0.2, lstm_state_clip_max=0.2)
    assert abs(cell.asnumpy()).max() == pytest.approx(0.2)


def _lstmp_by_hand(x, flat, h, c, projection):
    """One-layer LSTM with projection, step by step, in NumPy."""
    sizes = [(4 * H, I), (4 * H, projection), (projection, H), (4 * H,), (4 * H,)]
    pieces, at = [], 0
    for shape in sizes:
        size = int(np.prod(shape))
        pieces.append(flat[at:at + size].reshape(shape))
        at += size
    w, u, r, bw, bu = pieces
    sigmoid = lambda z: 1 / (1 + np.exp(-z))              # noqa: E731
    outputs = []
    for x_t in x:
        i, f, g, o = np.split(x_t @ w.T + bw + h @ u.T + bu, 4, axis=-1)
        c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
        h = (sigmoid(o) * np.tanh(c)) @ r.T
        outputs.append(h)
    return np.stack(outputs), h, c


def test_the_lstm_projection_follows_its_definition_and_differentiates():
    projection = 2
    arrays = _inputs('lstm', projection=projection)
    for a in arrays:
        a.attach_grad()
    with autograd.record():
        out, h, c = _rnn(arrays, 'lstm', projection_size=projection)
        loss = (out * out).sum() + (c * h.sum()).sum()
    loss.backward()
    expected = _lstmp_by_hand(arrays[0].asnumpy(), arrays[1].asnumpy(),
                              arrays[2].asnumpy()[0], arrays[3].asnumpy()[0], projection)
    for ours, theirs in zip((out, h[0], c[0]), expected):
        np.testing.assert_allclose(ours.asnumpy(), theirs, rtol=1e-12)
    # the tape's gradient of the flat parameters against central differences
    flat = arrays[1].asnumpy()
    rng = np.random.RandomState(1)
    for k in rng.choice(flat.size, 6, replace=False):
        def loss_at(delta):
            moved = flat.copy()
            moved[k] += delta
            o, hh, cc = _lstmp_by_hand(arrays[0].asnumpy(), moved, arrays[2].asnumpy()[0],
                                       arrays[3].asnumpy()[0], projection)
            return (o * o).sum() + (cc * hh.sum()).sum()
        numeric = (loss_at(1e-6) - loss_at(-1e-6)) / 2e-6
        assert arrays[1].grad.asnumpy()[k] == pytest.approx(numeric, rel=1e-6, abs=1e-9)


def test_a_symbol_infers_every_shape_from_the_data():
    y = sym.RNN(sym.var('data'), sym.var('params'), sym.var('h'), sym.var('c'),
                state_size=H, num_layers=2, mode='lstm', bidirectional=True,
                state_outputs=True)
    args, outs, _ = y.infer_shape(data=(T, N, I))
    count = 2 * 4 * H * (I + H + 2) + 2 * 4 * H * (2 * H + H + 2)
    assert args == [(T, N, I), (count,), (4, N, H), (4, N, H)]
    assert outs == [(T, N, 2 * H), (4, N, H), (4, N, H)]


def test_dropout_acts_between_layers_in_training_only():
    arrays = _inputs('gru', layers=2)
    plain, _ = _rnn(arrays, 'gru', num_layers=2)
    predicted, _ = _rnn(arrays, 'gru', num_layers=2, p=0.5)
    np.testing.assert_array_equal(predicted.asnumpy(), plain.asnumpy())
    with autograd.record():
        trained, _ = _rnn(arrays, 'gru', num_layers=2, p=0.5)
    assert not np.allclose(trained.asnumpy(), plain.asnumpy())
    with autograd.record():   # one layer: nothing between layers to drop
        single, _ = _rnn(_inputs('gru'), 'gru', p=0.5)
    np.testing.assert_array_equal(single.asnumpy(), _rnn(_inputs('gru'), 'gru')[0].asnumpy())
