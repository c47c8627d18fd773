"""Recurrent layers: a stacked (bidirectional) Elman RNN, LSTM or GRU over whole sequences.

A layer runs the cells of :mod:`.rnn_cell` over every step of a sequence and every layer
of the stack in one call of the fused operator ``RNN`` (:func:`gluonedu.ndarray.RNN`),
which computes the input products of a whole sequence at once and back-propagates
through time by hand. Its Parameters are the cells' ones, one set per layer and
direction, named as in MXNet 1.9.1: ``l0_i2h_weight``, ``l0_h2h_weight``, ``l0_i2h_bias``,
``l0_h2h_bias`` for the first layer run forward in time, ``r0_...`` for the same layer run
backward (``bidirectional=True``), ``l1_...`` for the second layer, after the layer's
prefix (``lstm0_l0_i2h_weight``). The operator takes them packed into one vector
(``_rnn_param_concat``): every weight, layer by layer and direction by direction, then
every bias in the same order.

Example::

    layer = rnn.LSTM(128, num_layers=2, layout='NTC')
    layer.initialize()
    output = layer(x)                          # x: (batch, time, features)
    output, (h, c) = layer(x, layer.begin_state(batch_size=x.shape[0]))
"""
import re

from ... import ndarray, symbol
from ..block import HybridBlock
from ..parameter import tensor_types
from . import rnn_cell

__all__ = ['RNN', 'LSTM', 'GRU']

#: How many gate blocks each mode's weights stack.
_GATES = {'rnn_relu': 1, 'rnn_tanh': 1, 'lstm': 4, 'gru': 3}
#: The layers' Parameter names: direction, layer, product, kind.
_PARAMETER_NAME = re.compile(r'(l|r)(\d)_(i2h|h2h|h2r)_(weight|bias)\Z')


class _RNNLayer(HybridBlock):
    """What RNN, LSTM and GRU share: Parameters, states and the fused forward pass."""

    def __init__(self, hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                 i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                 h2h_bias_initializer, mode, projection_size, h2r_weight_initializer,
                 lstm_state_clip_min, lstm_state_clip_max, lstm_state_clip_nan, dtype,
                 use_sequence_length=False, **kwargs):
        super().__init__(**kwargs)
        assert layout in ('TNC', 'NTC'), \
            "Invalid layout %s; must be one of ['TNC' or 'NTC']" % layout
        self._hidden_size = hidden_size
        self._projection_size = projection_size if projection_size else None
        self._num_layers = num_layers
        self._mode = mode
        self._layout = layout
        self._dropout = dropout
        self._dir = 2 if bidirectional else 1
        self._input_size = input_size
        self._initializers = {'i2h_weight': i2h_weight_initializer,
                              'h2h_weight': h2h_weight_initializer,
                              'i2h_bias': i2h_bias_initializer,
                              'h2h_bias': h2h_bias_initializer,
                              'h2r_weight': h2r_weight_initializer}
        self._lstm_state_clip_min = lstm_state_clip_min
        self._lstm_state_clip_max = lstm_state_clip_max
        self._lstm_state_clip_nan = lstm_state_clip_nan
        self._dtype = dtype
        self._use_sequence_length = use_sequence_length
        self.skip_states = None
        self._gates = _GATES[mode]
        rows, inputs = self._gates * hidden_size, input_size
        state = self._projection_size or hidden_size   # the size of h
        for layer in range(num_layers):
            for direction in 'lr'[:self._dir]:
                shapes = {'i2h_weight': (rows, inputs), 'h2h_weight': (rows, state),
                          'i2h_bias': (rows,), 'h2h_bias': (rows,)}
                if self._projection_size:
                    shapes['h2r_weight'] = (self._projection_size, hidden_size)
                for kind, shape in shapes.items():
                    self._register_param('%s%d_%s' % (direction, layer, kind), shape,
                                         self._initializers[kind], dtype)
            inputs = state * self._dir

    def _register_param(self, name, shape, init, dtype):
        param = self.params.get(name, shape=shape, init=init, allow_deferred_init=True,
                                dtype=dtype)
        setattr(self, name, param)
        return param

    def __repr__(self):
        text = '%s(%s -> %s, %s' % (self.__class__.__name__,
                                    self.l0_i2h_weight.shape[1] or None,
                                    self.l0_i2h_weight.shape[0] // self._gates, self._layout)
        if self._num_layers != 1:
            text += ', num_layers=%s' % self._num_layers
        if self._dropout != 0:
            text += ', dropout=%s' % self._dropout
        if self._dir == 2:
            text += ', bidirectional'
        return text + ')'

    def _collect_params_with_prefix(self, prefix=''):
        """The structural names of the equivalent stack of cells (:meth:`_unfuse`), as
        MXNet saves a layer's Parameters: ``_unfused.0.i2h_weight``, or
        ``_unfused.0.l_cell.i2h_weight`` for a bidirectional layer."""
        if prefix:
            prefix += '.'
        bidirectional = self._dir == 2

        def structural(name):
            direction, layer, product, kind = _PARAMETER_NAME.match(name).groups()
            if bidirectional:
                return '_unfused.%s.%s_cell.%s_%s' % (layer, direction, product, kind)
            return '_unfused.%s.%s_%s' % (layer, product, kind)
        names = {prefix + structural(key): value for key, value in self._reg_params.items()}
        for name, child in self._children.items():
            names.update(child._collect_params_with_prefix(prefix + name))
        return names

    def state_info(self, batch_size=0):
        """The shape, layout and dtype of each state: (layers·directions, batch, size)."""
        stacked = self._num_layers * self._dir
        sizes = [self._projection_size or self._hidden_size]
        if self._mode == 'lstm':
            sizes.append(self._hidden_size)
        return [{'shape': (stacked, batch_size, size), '__layout__': 'LNC',
                 'dtype': self._dtype} for size in sizes]

    def _unfuse(self):
        """The equivalent :class:`~.rnn_cell.HybridSequentialRNNCell` of cells, sharing
        this layer's Parameters (one cell per layer, a BidirectionalCell of two per layer
        if bidirectional, a DropoutCell between layers if ``dropout``)."""
        assert not self._projection_size, "_unfuse does not support projection layer yet!"
        assert not self._lstm_state_clip_min and not self._lstm_state_clip_max, \
            "_unfuse does not support state clipping yet!"
        make_cell = {
            'rnn_relu': lambda **kwargs: rnn_cell.RNNCell(self._hidden_size, activation='relu',
                                                          **kwargs),
            'rnn_tanh': lambda **kwargs: rnn_cell.RNNCell(self._hidden_size, activation='tanh',
                                                          **kwargs),
            'lstm': lambda **kwargs: rnn_cell.LSTMCell(self._hidden_size, **kwargs),
            'gru': lambda **kwargs: rnn_cell.GRUCell(self._hidden_size, **kwargs)}[self._mode]
        initializers = {key + '_initializer': init for key, init in self._initializers.items()
                        if key != 'h2r_weight'}
        stack = rnn_cell.HybridSequentialRNNCell(prefix=self.prefix, params=self.params)
        with stack.name_scope():
            inputs = self._input_size
            for layer in range(self._num_layers):
                kwargs = dict(initializers, input_size=inputs)
                if self._dir == 2:
                    stack.add(rnn_cell.BidirectionalCell(
                        make_cell(prefix='l%d_' % layer, **kwargs),
                        make_cell(prefix='r%d_' % layer, **kwargs)))
                else:
                    stack.add(make_cell(prefix='l%d_' % layer, **kwargs))
                if self._dropout > 0 and layer != self._num_layers - 1:
                    stack.add(rnn_cell.DropoutCell(self._dropout))
                inputs = self._hidden_size * self._dir
        return stack

    def cast(self, dtype):
        super().cast(dtype)
        self._dtype = dtype

    def begin_state(self, batch_size=0, func=ndarray.zeros, **kwargs):
        """The initial states of the layer.

        Parameters
        ----------
        batch_size : int, default 0
            The batch size ('N' of the layout); needed for NDArrays.
        func : callable, default ``ndarray.zeros``
            Makes each state from ``name``, ``shape``, ``dtype`` and ``kwargs``:
            ``nd.zeros``, ``nd.ones``, ... for NDArrays; ``sym.zeros`` or ``sym.var``
            for Symbols.
        **kwargs
            Passed on to ``func`` (``ctx``, ``dtype``, ...).

        Returns
        -------
        list of NDArray or Symbol
            ``[h]`` (RNN, GRU) or ``[h, c]`` (LSTM), each (layers·directions, batch, size).
        """
        return [func(name='%sh0_%d' % (self.prefix, i), **dict(info, **kwargs))
                for i, info in enumerate(self.state_info(batch_size))]

    def __call__(self, inputs, states=None, sequence_length=None, **kwargs):
        """The output sequence; with ``states`` given, ``(output, final states)``.

        Parameters
        ----------
        inputs : NDArray or Symbol
            (time, batch, features) with layout 'TNC', (batch, time, features) with 'NTC'.
        states : NDArray or list of NDArray, optional
            The initial states (:meth:`begin_state`); zeros when left out, and then only
            the output is returned.
        sequence_length : NDArray, optional
            The valid length of each sequence (with ``use_sequence_length=True``).
        """
        self.skip_states = states is None
        if states is None:
            if isinstance(inputs, ndarray.NDArray):
                batch_size = inputs.shape[self._layout.find('N')]
                states = self.begin_state(batch_size, ctx=inputs.context, dtype=inputs.dtype)
            else:
                states = self.begin_state(0, func=symbol.zeros)
        if isinstance(states, tensor_types + (symbol.Symbol,)):
            states = [states]
        if self._use_sequence_length:
            return super().__call__(inputs, states, sequence_length, **kwargs)
        return super().__call__(inputs, states, **kwargs)

    def hybrid_forward(self, F, inputs, states, sequence_length=None, **kwargs):
        if F is ndarray:
            batch_size = inputs.shape[self._layout.find('N')]
            for state, info in zip(states, self.state_info(batch_size)):
                if state.shape != info['shape']:
                    raise ValueError("Invalid recurrent state shape. Expecting %s, got %s."
                                     % (str(info['shape']), str(state.shape)))
        out = self._forward_kernel(F, inputs, states, sequence_length, **kwargs)
        return out[0] if self.skip_states else out   # (output, states)

    def _packed_parameters(self, F, params):
        """The Parameters as the operator's one vector, in MXNet's order."""
        products = ('i2h', 'h2h', 'h2r') if self._projection_size else ('i2h', 'h2h')
        names = ['%s%d_%s_%s' % (direction, layer, product, kind)
                 for kind in ('weight', 'bias')
                 for layer in range(self._num_layers)
                 for direction in 'lr'[:self._dir]
                 for product in products
                 if product != 'h2r' or kind != 'bias']
        return F._internal._rnn_param_concat(*[params[name].reshape(-1) for name in names],
                                             dim=0)

    def _forward_kernel(self, F, inputs, states, sequence_length, **kwargs):
        """The fused operator over the whole sequence: ``(output, [states])``."""
        if self._layout == 'NTC':
            inputs = F.swapaxes(inputs, 0, 1)
        extra = states + [sequence_length] if self._use_sequence_length else states
        rnn = F.RNN(inputs, self._packed_parameters(F, kwargs), *extra,
                    use_sequence_length=self._use_sequence_length,
                    state_size=self._hidden_size, projection_size=self._projection_size,
                    num_layers=self._num_layers, bidirectional=self._dir == 2,
                    p=self._dropout, state_outputs=True, mode=self._mode,
                    lstm_state_clip_min=self._lstm_state_clip_min,
                    lstm_state_clip_max=self._lstm_state_clip_max,
                    lstm_state_clip_nan=self._lstm_state_clip_nan)
        outputs, states = rnn[0], [rnn[1], rnn[2]] if self._mode == 'lstm' else [rnn[1]]
        if self._layout == 'NTC':
            outputs = F.swapaxes(outputs, 0, 1)
        return outputs, states


_LAYER_PARAMETERS = """
    num_layers : int, default 1
        The number of stacked layers; layer ``l + 1`` reads layer ``l``'s outputs.
    layout : {'TNC', 'NTC'}, default 'TNC'
        The layout of the inputs and outputs: (time, batch, features) or (batch, time,
        features).
    dropout : float, default 0
        Dropout on the outputs of every layer but the last, in training.
    bidirectional : bool, default False
        Also run each layer from the sequence's end (``r0_...`` Parameters); the outputs
        of both directions are concatenated (2·hidden_size features).
    input_size : int, default 0
        The input's features; 0 infers them from the first input.
    i2h_weight_initializer, h2h_weight_initializer : str or Initializer, optional
        Default: the global initializer.
    i2h_bias_initializer, h2h_bias_initializer : str or Initializer, default 'zeros'
    dtype : str, default 'float32'
        The dtype of the Parameters and of the default states.
    prefix, params : see :class:`~gluonedu.gluon.Block`."""


class RNN(_RNNLayer):
    """A stacked Elman RNN with tanh or ReLU over a whole sequence.

    Each layer, at each step, for its input ``x_t`` (the sequence, or the previous
    layer's output)::

        h_t = act(W·x_t + b_W + U·h_(t-1) + b_U)

    Parameters
    ----------
    hidden_size : int
        The size of ``h``.
    activation : {'relu', 'tanh'}, default 'relu'
    {layers}

    Notes
    -----
    Called as ``layer(inputs, states=None)``: inputs (T, N, C) in layout 'TNC'; states
    ``[h]`` of shape (num_layers·directions, N, hidden_size). The output is (T, N,
    directions·hidden_size); with ``states`` given, ``(output, [h_T])``.
    """

    def __init__(self, hidden_size, num_layers=1, activation='relu', layout='TNC', dropout=0,
                 bidirectional=False, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer='zeros', h2h_bias_initializer='zeros', input_size=0,
                 dtype='float32', **kwargs):
        super().__init__(hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                         i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                         h2h_bias_initializer, 'rnn_' + activation, None, None, None, None,
                         False, dtype, **kwargs)


class LSTM(_RNNLayer):
    """A stacked long short-term memory network over a whole sequence.

    Each layer, at each step, for its input ``x_t`` (the sequence, or the previous
    layer's output), the four gate blocks in the order i, f, c, o::

        i_t = σ(W_i·x_t + b_Wi + U_i·h_(t-1) + b_Ui)
        f_t = σ(W_f·x_t + b_Wf + U_f·h_(t-1) + b_Uf)
        g_t = tanh(W_c·x_t + b_Wc + U_c·h_(t-1) + b_Uc)
        o_t = σ(W_o·x_t + b_Wo + U_o·h_(t-1) + b_Uo)
        c_t = f_t·c_(t-1) + i_t·g_t
        h_t = o_t·tanh(c_t)            (with projection_size: h_t = R·(o_t·tanh(c_t)))

    Parameters
    ----------
    hidden_size : int
        The size of ``c`` (and of ``h`` without projection).
    {layers}
    projection_size : int, optional
        Project ``h`` to this size with ``h2r_weight`` (LSTMP, Sak et al., 2014).
    h2r_weight_initializer : str or Initializer, optional
    state_clip_min, state_clip_max : float, optional
        Clip the cell state ``c`` to [min, max] at each step (both or neither).
    state_clip_nan : bool, default False
        Clip NaN cell states to the bounds too.

    Notes
    -----
    Called as ``layer(inputs, states=None)``: inputs (T, N, C) in layout 'TNC'; states
    ``[h, c]``, each (num_layers·directions, N, hidden_size). The output is (T, N,
    directions·hidden_size); with ``states`` given, ``(output, [h_T, c_T])``.
    """

    def __init__(self, hidden_size, num_layers=1, layout='TNC', dropout=0, bidirectional=False,
                 input_size=0, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer='zeros', h2h_bias_initializer='zeros',
                 projection_size=None, h2r_weight_initializer=None, state_clip_min=None,
                 state_clip_max=None, state_clip_nan=False, dtype='float32', **kwargs):
        super().__init__(hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                         i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                         h2h_bias_initializer, 'lstm', projection_size, h2r_weight_initializer,
                         state_clip_min, state_clip_max, state_clip_nan, dtype, **kwargs)


class GRU(_RNNLayer):
    """A stacked gated recurrent unit network over a whole sequence, in cuDNN's form (the
    reset gate multiplies ``U_n·h + b_Un``, after the product).

    Each layer, at each step, for its input ``x_t`` (the sequence, or the previous
    layer's output), the three gate blocks in the order r, z, n::

        r_t = σ(W_r·x_t + b_Wr + U_r·h_(t-1) + b_Ur)
        z_t = σ(W_z·x_t + b_Wz + U_z·h_(t-1) + b_Uz)
        n_t = tanh(W_n·x_t + b_Wn + r_t·(U_n·h_(t-1) + b_Un))
        h_t = (1 - z_t)·n_t + z_t·h_(t-1)

    Parameters
    ----------
    hidden_size : int
        The size of ``h``.
    {layers}

    Notes
    -----
    Called as ``layer(inputs, states=None)``: inputs (T, N, C) in layout 'TNC'; states
    ``[h]`` of shape (num_layers·directions, N, hidden_size). The output is (T, N,
    directions·hidden_size); with ``states`` given, ``(output, [h_T])``.
    """

    def __init__(self, hidden_size, num_layers=1, layout='TNC', dropout=0, bidirectional=False,
                 input_size=0, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer='zeros', h2h_bias_initializer='zeros', dtype='float32',
                 **kwargs):
        super().__init__(hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                         i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                         h2h_bias_initializer, 'gru', None, None, None, None, False, dtype,
                         **kwargs)


for _layer in (RNN, LSTM, GRU):
    _layer.__doc__ = _layer.__doc__.replace('    {layers}', _LAYER_PARAMETERS.strip('\n'))
