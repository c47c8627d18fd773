"""``gluon.rnn`` against MXNet 1.9.1: the layers RNN, LSTM, GRU and the cells' unroll.

Each case builds one network under a fresh name scope, runs it once (deferred
initialisation), sets every Parameter by name from a seeded NumPy generator, runs it again
under ``autograd.record()`` with given initial states, and back-propagates a random linear
function of the output and the final states. It returns the output, the final states and
the gradients of the input, the initial states and every Parameter, keyed by Parameter
name, so names and shapes are compared too. Error cases return the exception's type name.

Both sides run :func:`run` (it imports neither package). As a script, on the oracle's
interpreter: ``oracle_main.py rnn_driver.py`` writes MXNet's results.
"""
import json

import numpy as np

N, T, C, H = 3, 4, 5, 6      # batch, steps, input features, hidden size

#: case id -> (kind, options): 'layer' (class, num_layers, bidirectional, layout,
#: hybridize, extra keyword arguments) or 'cell' (builder name, layout, merge_outputs,
#: valid_length).
CASES = {
    'rnn_relu-1-TNC': ('layer', ('RNN', 1, False, 'TNC', False, {'activation': 'relu'})),
    'rnn_tanh-2-bi-NTC': ('layer', ('RNN', 2, True, 'NTC', False, {'activation': 'tanh'})),
    'lstm-1-TNC': ('layer', ('LSTM', 1, False, 'TNC', False, {})),
    'lstm-2-NTC': ('layer', ('LSTM', 2, False, 'NTC', False, {})),
    'lstm-2-bi-TNC': ('layer', ('LSTM', 2, True, 'TNC', False, {})),
    'lstm-2-bi-NTC-hybrid': ('layer', ('LSTM', 2, True, 'NTC', True, {})),
    'gru-1-bi-TNC': ('layer', ('GRU', 1, True, 'TNC', False, {})),
    'gru-2-NTC': ('layer', ('GRU', 2, False, 'NTC', False, {})),
    'gru-2-bi-NTC-hybrid': ('layer', ('GRU', 2, True, 'NTC', True, {})),
    'rnncell-tanh': ('cell', ('rnn_tanh', 'NTC', True, False)),
    'rnncell-relu-TNC-steps': ('cell', ('rnn_relu', 'TNC', False, False)),
    'lstmcell': ('cell', ('lstm', 'NTC', True, False)),
    'lstmcell-valid-length': ('cell', ('lstm', 'NTC', True, True)),
    'grucell-TNC': ('cell', ('gru', 'TNC', True, False)),
    'grucell-hybrid': ('cell', ('gru_hybrid', 'NTC', True, False)),
    'sequential': ('cell', ('sequential', 'NTC', True, False)),
    'bidirectional': ('cell', ('bidirectional', 'TNC', True, False)),
    'bidirectional-valid-length': ('cell', ('bidirectional', 'NTC', False, True)),
    'residual-dropout': ('cell', ('residual', 'NTC', True, False)),
    'zoneout': ('cell', ('zoneout', 'NTC', False, False)),
    'unfused-lstm-2-bi': ('cell', ('unfused', 'NTC', True, False)),
}

#: case id -> a mistake whose exception type both sides must raise.
ERROR_CASES = ('layer input 2-D', 'layer input 4-D', 'layer state shape',
               'lstm missing cell state', 'bidirectional cell stepped')


def _cell(mx, builder):
    """The network of a cell case, built under the caller's name scope."""
    rnn = mx.gluon.rnn
    if builder in ('rnn_tanh', 'rnn_relu'):
        return rnn.RNNCell(H, activation=builder[4:])
    if builder == 'lstm':
        return rnn.LSTMCell(H)
    if builder in ('gru', 'gru_hybrid'):
        cell = rnn.GRUCell(H)
        if builder == 'gru_hybrid':
            cell.hybridize()
        return cell
    if builder == 'sequential':
        stack = rnn.SequentialRNNCell()
        with stack.name_scope():
            stack.add(rnn.LSTMCell(H))
            stack.add(rnn.GRUCell(H))
        return stack
    if builder == 'bidirectional':
        return rnn.BidirectionalCell(rnn.LSTMCell(H), rnn.GRUCell(H))
    if builder == 'residual':
        stack = rnn.SequentialRNNCell()
        with stack.name_scope():
            stack.add(rnn.GRUCell(C))
            stack.add(rnn.DropoutCell(0.5))
            stack.add(rnn.ResidualCell(rnn.RNNCell(C)))
        return stack
    if builder == 'zoneout':
        return rnn.ZoneoutCell(rnn.LSTMCell(H), zoneout_outputs=0.5, zoneout_states=0.5)
    if builder == 'unfused':
        return rnn.LSTM(H, num_layers=2, bidirectional=True, dropout=0.5)._unfuse()
    raise ValueError(builder)


def _set_parameters(mx, net, rng):
    """Every Parameter set from ``rng``, in name order; ``{name: Parameter}``."""
    params = net.collect_params()
    for name in sorted(params.keys()):
        shape = params[name].shape
        params[name].set_data(mx.nd.array(rng.uniform(-0.5, 0.5, shape)))
    return params


def _as_array(value):
    """An NDArray, or a list of per-step NDArrays stacked on a new axis 1."""
    if isinstance(value, (list, tuple)):
        return np.stack([v.asnumpy() for v in value], axis=1)
    return value.asnumpy()


def _run_network(mx, rng, forward, net, x, states):
    """Record ``forward(x, states) -> (output, states)``, back-propagate a random linear
    function of both; the arrays the case compares."""
    params = _set_parameters(mx, net, rng)
    x.attach_grad()
    for state in states:
        state.attach_grad()
    # train_mode=False: the dropout of the modifier cells is the identity, so both sides
    # compute the same numbers; the tape still differentiates everything
    with mx.autograd.record(train_mode=False):
        output, final = forward(x, states)
        merged = (mx.nd.stack(*output, axis=1) if isinstance(output, (list, tuple))
                  else output)
        loss = (merged * mx.nd.array(rng.uniform(-1, 1, merged.shape))).sum()
        for state in final:
            loss = loss + (state * mx.nd.array(rng.uniform(-1, 1, state.shape))).sum()
    loss.backward()
    arrays = {'output': _as_array(output), 'x.grad': x.grad.asnumpy()}
    arrays.update({'state%d' % i: s.asnumpy() for i, s in enumerate(final)})
    arrays.update({'state%d.grad' % i: s.grad.asnumpy() for i, s in enumerate(states)})
    arrays.update({name + '.grad': p.grad().asnumpy() for name, p in params.items()})
    return arrays


def _layer_case(mx, rng, options):
    name, layers, bidirectional, layout, hybridize, extra = options
    net = getattr(mx.gluon.rnn, name)(H, num_layers=layers, bidirectional=bidirectional,
                                      layout=layout, **extra)
    net.initialize()
    if hybridize:
        net.hybridize()
    shape = (T, N, C) if layout == 'TNC' else (N, T, C)
    x = mx.nd.array(rng.uniform(-1, 1, shape))
    states = [mx.nd.array(rng.uniform(-1, 1, s.shape)) for s in net.begin_state(N)]
    # deferred initialisation (with states: a hybridized layer keeps the graph it traced,
    # and one traced without states returns the output alone)
    net(x, states)
    return _run_network(mx, rng, lambda x, s: net(x, s), net, x, states)


def _cell_case(mx, rng, options):
    builder, layout, merge, use_valid_length = options
    net = _cell(mx, builder)
    net.initialize()
    shape = (T, N, C) if layout == 'TNC' else (N, T, C)
    x = mx.nd.array(rng.uniform(-1, 1, shape))
    valid_length = mx.nd.array([T, 2, 1]) if use_valid_length else None
    net.unroll(T, x, layout=layout, merge_outputs=merge, valid_length=valid_length)
    states = [mx.nd.array(rng.uniform(-1, 1, s.shape))
              for s in net.begin_state(batch_size=N, func=mx.nd.zeros)]

    def forward(x, states):
        return net.unroll(T, x, begin_state=states, layout=layout, merge_outputs=merge,
                          valid_length=valid_length)
    return _run_network(mx, rng, forward, net, x, states)


def _mistake(mx, case):
    """Make the mistake ``case``."""
    rnn, nd = mx.gluon.rnn, mx.nd
    if case == 'bidirectional cell stepped':
        cell = rnn.BidirectionalCell(rnn.LSTMCell(H), rnn.LSTMCell(H))
        cell.initialize()
        cell(nd.ones((N, C)), cell.begin_state(batch_size=N))
        return
    layer = rnn.LSTM(H, num_layers=2) if case != 'lstm missing cell state' else rnn.LSTM(H)
    layer.initialize()
    if case == 'layer input 2-D':
        layer(nd.ones((T, C)))
    elif case == 'layer input 4-D':
        layer(nd.ones((T, N, C, 1)))
    elif case == 'layer state shape':
        layer(nd.ones((T, N, C)), [nd.zeros((1, N, H)), nd.zeros((2, N, H))])
    elif case == 'lstm missing cell state':
        layer(nd.ones((T, N, C)), nd.zeros((1, N, H)))


def run(mx, case):
    """``{name: NumPy array}`` of a case of :data:`CASES`; for one of
    :data:`ERROR_CASES`, ``{'error': exception type name or 'none'}``."""
    if case in ERROR_CASES:
        try:
            with mx.name.NameManager():
                _mistake(mx, case)
        except Exception as exc:  # the outcome compared: the exception's type
            return {'error': type(exc).__name__}
        return {'error': 'none'}
    kind, options = CASES[case]
    rng = np.random.RandomState(sorted(CASES).index(case))
    with mx.name.NameManager():
        return (_layer_case if kind == 'layer' else _cell_case)(mx, rng, options)


if __name__ == '__main__':  # the oracle's side, run by oracle_main.py
    import mxnet

    import oracle_io

    def mxnet_arrays(case):
        return {name: np.array(value) if name != 'error' else np.array(json.dumps(value))
                for name, value in run(mxnet, case).items()}

    oracle_io.save_results(*oracle_io.run_each(
        [(case, lambda case=case: mxnet_arrays(case))
         for case in list(CASES) + list(ERROR_CASES)]))
