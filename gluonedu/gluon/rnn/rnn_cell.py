"""Recurrent cells: one time step of a recurrent network, and :meth:`~RecurrentCell.unroll`
over a sequence.

A cell maps ``(input, states)`` to ``(output, new states)``: ``cell(x_t, states)`` runs one
step, ``cell.unroll(length, inputs)`` runs a whole sequence with a Python loop over time.
Cells stack (:class:`SequentialRNNCell`), run both ways (:class:`BidirectionalCell`) and
take modifiers (:class:`DropoutCell`, :class:`ResidualCell`, :class:`ZoneoutCell`). The
layers of :mod:`.rnn_layer` compute the same cells over whole sequences at once, faster;
their ``_unfuse()`` gives the equivalent stack of cells.

Each cell's weights are ``i2h_weight`` (gates·hidden, input), ``h2h_weight`` (gates·hidden,
hidden) and the biases ``i2h_bias``, ``h2h_bias``, after MXNet 1.9.1's prefixes
(``lstm0_i2h_weight``, ...). Inputs of one step are ``(batch, input)``; a sequence is laid
out 'NTC' (batch, time, channels) or 'TNC'.
"""
from ... import ndarray, symbol
from ...base import numeric_types
from ..block import Block, HybridBlock
from ..parameter import tensor_types
from ..utils import _indent

__all__ = ['RecurrentCell', 'HybridRecurrentCell', 'RNNCell', 'LSTMCell', 'GRUCell',
           'SequentialRNNCell', 'HybridSequentialRNNCell', 'DropoutCell', 'ModifierCell',
           'ZoneoutCell', 'ResidualCell', 'BidirectionalCell']


# ---------------------------------------------------------------------- sequences
def _as_list(obj):
    return list(obj) if isinstance(obj, (list, tuple)) else [obj]


def _cells_state_info(cells, batch_size):
    return sum([cell.state_info(batch_size) for cell in cells], [])


def _cells_begin_state(cells, **kwargs):
    return sum([cell.begin_state(**kwargs) for cell in cells], [])


def _get_begin_state(cell, F, begin_state, inputs, batch_size):
    """``begin_state``, or the cell's zero states on the inputs' context."""
    if begin_state is not None:
        return begin_state
    if F is ndarray:
        ctx = inputs.context if isinstance(inputs, tensor_types) else inputs[0].context
        with ctx:
            return cell.begin_state(func=F.zeros, batch_size=batch_size)
    return cell.begin_state(func=F.zeros, batch_size=batch_size)


def _format_sequence(length, inputs, layout, merge, in_layout=None):
    """``(inputs, time axis, F, batch size)``: the sequence as one array in ``layout``
    (``merge`` True), as a list of steps (False), or as it came (None)."""
    assert inputs is not None, \
        "unroll(inputs=None) is no longer supported: create the input variables outside unroll."
    axis = layout.find('T')
    batch_axis = layout.find('N')
    batch_size = 0
    in_axis = in_layout.find('T') if in_layout is not None else axis
    if isinstance(inputs, symbol.Symbol):
        F = symbol
        if merge is False:
            assert len(inputs.list_outputs()) == 1, \
                "unroll takes one symbol, not a group: pass list(inputs) to unroll the " \
                "outputs as steps, or let unroll split the symbol"
            inputs = list(symbol.split(inputs, axis=in_axis, num_outputs=length,
                                       squeeze_axis=1))
    elif isinstance(inputs, ndarray.NDArray):
        F = ndarray
        batch_size = inputs.shape[batch_axis]
        if merge is False:
            assert length is None or length == inputs.shape[in_axis], \
                "unroll: length=%s, but the inputs hold %d steps along axis %d" \
                % (length, inputs.shape[in_axis], in_axis)
            inputs = _as_list(ndarray.split(inputs, axis=in_axis,
                                            num_outputs=inputs.shape[in_axis],
                                            squeeze_axis=1))
    else:
        assert length is None or len(inputs) == length, \
            "unroll: length=%s, but %d steps were given" % (length, len(inputs))
        if isinstance(inputs[0], symbol.Symbol):
            F = symbol
        else:
            F = ndarray
            batch_size = inputs[0].shape[0]
        if merge is True:
            inputs = F.stack(*inputs, axis=axis)
            in_axis = axis
    if isinstance(inputs, tensor_types + (symbol.Symbol,)) and axis != in_axis:
        inputs = F.swapaxes(inputs, dim1=axis, dim2=in_axis)
    return inputs, axis, F, batch_size


def _mask_sequence_variable_length(F, data, length, valid_length, time_axis, merge):
    """The steps at or past each sequence's ``valid_length`` set to zero."""
    assert valid_length is not None
    if not isinstance(data, tensor_types + (symbol.Symbol,)):
        data = F.stack(*data, axis=time_axis)
    outputs = F.SequenceMask(data, sequence_length=valid_length, use_sequence_length=True,
                             axis=time_axis)
    if not merge:
        outputs = _as_list(F.split(outputs, num_outputs=length, axis=time_axis,
                                   squeeze_axis=True))
    return outputs


def _reverse_sequences(sequences, unroll_step, valid_length=None):
    """The list of steps in reverse order (each sequence within its valid length)."""
    F = symbol if isinstance(sequences[0], symbol.Symbol) else ndarray
    if valid_length is None:
        return list(reversed(sequences))
    reversed_sequences = F.SequenceReverse(F.stack(*sequences, axis=0),
                                           sequence_length=valid_length,
                                           use_sequence_length=True)
    if unroll_step > 1 or F is symbol:
        return _as_list(F.split(reversed_sequences, axis=0, num_outputs=unroll_step,
                                squeeze_axis=True))
    return [reversed_sequences[0]]


# ---------------------------------------------------------------------- base classes
class RecurrentCell(Block):
    """The base class of recurrent cells: one step ``cell(inputs, states)``, a sequence
    with :meth:`unroll`.

    Parameters
    ----------
    prefix : str, optional
        Starts the names of the cell's Blocks and, unless ``params`` is given, of its
        Parameters.
    params : ParameterDict, optional
        Parameters to share with another cell.
    """

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._modified = False
        self.reset()

    def reset(self):
        """Reset the step counters before running the cell on another sequence or graph."""
        self._init_counter = -1
        self._counter = -1
        for cell in self._children.values():
            cell.reset()

    def state_info(self, batch_size=0):
        """The shape and layout of each state: a list of dicts (``shape``, ``__layout__``)."""
        raise NotImplementedError()

    def begin_state(self, batch_size=0, func=ndarray.zeros, **kwargs):
        """The initial states of the cell.

        Parameters
        ----------
        batch_size : int, default 0
            The batch size ('N' of the layout); needed for NDArrays.
        func : callable, default ``ndarray.zeros``
            Makes each state from ``name``, ``shape`` and ``kwargs``: ``nd.zeros``,
            ``nd.ones``, ... for NDArrays; ``sym.zeros`` or ``sym.var`` (to feed the states
            as inputs) for Symbols.
        **kwargs
            Passed on to ``func`` (``ctx``, ``dtype``, ...).

        Returns
        -------
        list of NDArray or Symbol
            One array per state (:meth:`state_info`).
        """
        assert not self._modified, \
            "After applying modifier cells (e.g. ZoneoutCell) the base cell cannot be " \
            "called directly. Call the modifier cell instead."
        states = []
        for info in self.state_info(batch_size):
            self._init_counter += 1
            info = dict(kwargs) if info is None else dict(info, **kwargs)
            states.append(func(name='%sbegin_state_%d' % (self._prefix, self._init_counter),
                               **info))
        return states

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None,
               valid_length=None):
        """Run the cell over ``length`` time steps.

        Parameters
        ----------
        length : int
            The number of steps.
        inputs : NDArray, Symbol or list of them
            One array of shape (batch, length, ...) with layout 'NTC' or (length, batch,
            ...) with 'TNC'; or a list of ``length`` arrays of shape (batch, ...).
        begin_state : list of NDArray or Symbol, optional
            The initial states (:meth:`begin_state` by default: zeros).
        layout : str, default 'NTC'
            The layout of ``inputs`` and of merged outputs.
        merge_outputs : bool, optional
            True: the outputs as one array in ``layout``; False: a list of steps; None:
            whichever the computation gives.
        valid_length : NDArray or Symbol, optional
            The length (batch,) of each sequence: the outputs past it are zeros and the
            returned states are those at the last valid step.

        Returns
        -------
        outputs : NDArray, Symbol or list of them
        states : list of NDArray or Symbol
            The states after the last (valid) step, laid out as :meth:`begin_state`'s.
        """
        self.reset()
        inputs, axis, F, batch_size = _format_sequence(length, inputs, layout, False)
        begin_state = _get_begin_state(self, F, begin_state, inputs, batch_size)
        states = begin_state
        outputs, all_states = [], []
        for i in range(length):
            output, states = self(inputs[i], states)
            outputs.append(output)
            if valid_length is not None:
                all_states.append(states)
        if valid_length is not None:
            states = [F.SequenceLast(F.stack(*step_states, axis=0),
                                     sequence_length=valid_length,
                                     use_sequence_length=True, axis=0)
                      for step_states in zip(*all_states)]
            outputs = _mask_sequence_variable_length(F, outputs, length, valid_length, axis,
                                                     True)
        outputs, _, _, _ = _format_sequence(length, outputs, layout, merge_outputs)
        return outputs, states

    def _get_activation(self, F, inputs, activation, **kwargs):
        """``activation`` applied to ``inputs``: a name ('tanh', 'relu', 'sigmoid',
        'softsign', or any ``Activation`` act_type) or a callable such as a Block."""
        named = {'tanh': F.tanh, 'relu': F.relu, 'sigmoid': F.sigmoid,
                 'softsign': F.softsign}.get(activation)
        if named is not None:
            return named(inputs, **kwargs)
        if isinstance(activation, str):
            return F.Activation(inputs, act_type=activation, **kwargs)
        return activation(inputs)

    def forward(self, inputs, states):
        """One time step: ``(output, new states)`` from ``inputs`` (batch, input size) and
        the ``states`` of the previous step (or :meth:`begin_state`)."""
        self._counter += 1
        return super().forward(inputs, states)


class HybridRecurrentCell(RecurrentCell, HybridBlock):
    """A recurrent cell written as ``hybrid_forward(F, inputs, states, **params)``, which
    ``hybridize()`` compiles into a graph."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise NotImplementedError


class _GatedCell(HybridRecurrentCell):
    """What RNNCell, LSTMCell and GRUCell share: ``i2h``/``h2h`` weights and biases of
    ``gates`` blocks of ``hidden_size`` rows each, and one state of shape (batch, hidden)
    (two for the LSTM)."""
    _gates = 1
    _states = 1

    def __init__(self, hidden_size, i2h_weight_initializer, h2h_weight_initializer,
                 i2h_bias_initializer, h2h_bias_initializer, input_size, prefix, params):
        super().__init__(prefix=prefix, params=params)
        self._hidden_size = hidden_size
        self._input_size = input_size
        rows = self._gates * hidden_size
        self.i2h_weight = self.params.get('i2h_weight', shape=(rows, input_size),
                                          init=i2h_weight_initializer,
                                          allow_deferred_init=True)
        self.h2h_weight = self.params.get('h2h_weight', shape=(rows, hidden_size),
                                          init=h2h_weight_initializer,
                                          allow_deferred_init=True)
        self.i2h_bias = self.params.get('i2h_bias', shape=(rows,), init=i2h_bias_initializer,
                                        allow_deferred_init=True)
        self.h2h_bias = self.params.get('h2h_bias', shape=(rows,), init=h2h_bias_initializer,
                                        allow_deferred_init=True)

    def state_info(self, batch_size=0):
        return [{'shape': (batch_size, self._hidden_size), '__layout__': 'NC'}
                for _ in range(self._states)]

    def _mapping(self):
        rows, columns = self.i2h_weight.shape
        return '%s -> %s' % (columns if columns else None, rows)

    def __repr__(self):
        return '%s(%s)' % (self.__class__.__name__, self._mapping())

    def _products(self, F, inputs, h, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        """The step's ``i2h`` (W·x + b_W) and ``h2h`` (U·h + b_U) products."""
        prefix = 't%d_' % self._counter
        rows = self._gates * self._hidden_size
        i2h = F.FullyConnected(data=inputs, weight=i2h_weight, bias=i2h_bias, num_hidden=rows,
                               name=prefix + 'i2h')
        h2h = F.FullyConnected(data=h, weight=h2h_weight, bias=h2h_bias, num_hidden=rows,
                               name=prefix + 'h2h')
        return prefix, i2h, h2h


# ---------------------------------------------------------------------- the cells
class RNNCell(_GatedCell):
    r"""Elman's recurrent cell.

    One step::

        h_t = act(W·x_t + b_W + U·h_(t-1) + b_U)

    with ``W`` the ``i2h_weight`` (hidden, input), ``U`` the ``h2h_weight`` (hidden,
    hidden) and ``act`` the activation.

    Parameters
    ----------
    hidden_size : int
        The size of the state and the output.
    activation : str or callable, default 'tanh'
        'tanh', 'relu', 'sigmoid', 'softsign', another ``Activation`` act_type, or a Block
        such as ``nn.LeakyReLU(0.1)``.
    i2h_weight_initializer, h2h_weight_initializer : str or Initializer, optional
        Default: the global initializer.
    i2h_bias_initializer, h2h_bias_initializer : str or Initializer, default 'zeros'
    input_size : int, default 0
        The input's size; 0 infers it from the first input.
    prefix : str, default ``'rnn_'`` and a counter
    params : ParameterDict, optional
        Parameters to share.

    Notes
    -----
    Input: (batch, input_size) and ``[h]`` of shape (batch, hidden_size); output ``h_t``
    and ``[h_t]``.
    """

    def __init__(self, hidden_size, activation='tanh', i2h_weight_initializer=None,
                 h2h_weight_initializer=None, i2h_bias_initializer='zeros',
                 h2h_bias_initializer='zeros', input_size=0, prefix=None, params=None):
        super().__init__(hidden_size, i2h_weight_initializer, h2h_weight_initializer,
                         i2h_bias_initializer, h2h_bias_initializer, input_size, prefix,
                         params)
        self._activation = activation

    def _alias(self):
        return 'rnn'

    def __repr__(self):
        return '%s(%s, %s)' % (self.__class__.__name__, self._mapping(), self._activation)

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix, i2h, h2h = self._products(F, inputs, states[0], i2h_weight, h2h_weight,
                                          i2h_bias, h2h_bias)
        output = self._get_activation(F, F.elemwise_add(i2h, h2h, name=prefix + 'plus0'),
                                      self._activation, name=prefix + 'out')
        return output, [output]


class LSTMCell(_GatedCell):
    r"""Long short-term memory cell (Hochreiter & Schmidhuber, 1997, with the forget gate
    of Gers et al., 2000).

    One step, the four gate blocks of ``W·x_t + b_W + U·h_(t-1) + b_U`` in the order
    i, f, c, o::

        i_t = σ(W_i·x_t + b_Wi + U_i·h_(t-1) + b_Ui)        input gate
        f_t = σ(W_f·x_t + b_Wf + U_f·h_(t-1) + b_Uf)        forget gate
        g_t = tanh(W_c·x_t + b_Wc + U_c·h_(t-1) + b_Uc)     candidate cell
        o_t = σ(W_o·x_t + b_Wo + U_o·h_(t-1) + b_Uo)        output gate
        c_t = f_t·c_(t-1) + i_t·g_t
        h_t = o_t·tanh(c_t)

    (σ is ``recurrent_activation``, tanh ``activation``.)

    Parameters
    ----------
    hidden_size : int
        The size of ``h`` and ``c``; the weights have 4·hidden_size rows.
    i2h_weight_initializer, h2h_weight_initializer : str or Initializer, optional
        Default: the global initializer.
    i2h_bias_initializer, h2h_bias_initializer : str or Initializer, default 'zeros'
    input_size : int, default 0
        The input's size; 0 infers it from the first input.
    prefix : str, default ``'lstm_'`` and a counter
    params : ParameterDict, optional
        Parameters to share.
    activation : str, default 'tanh'
        The activation of the candidate and of the cell's output.
    recurrent_activation : str, default 'sigmoid'
        The activation of the gates.

    Notes
    -----
    Input: (batch, input_size) and ``[h, c]``, each (batch, hidden_size); output ``h_t``
    and ``[h_t, c_t]``.
    """
    _gates = 4
    _states = 2

    def __init__(self, hidden_size, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer='zeros', h2h_bias_initializer='zeros', input_size=0,
                 prefix=None, params=None, activation='tanh', recurrent_activation='sigmoid'):
        super().__init__(hidden_size, i2h_weight_initializer, h2h_weight_initializer,
                         i2h_bias_initializer, h2h_bias_initializer, input_size, prefix,
                         params)
        self._activation = activation
        self._recurrent_activation = recurrent_activation

    def _alias(self):
        return 'lstm'

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix, i2h, h2h = self._products(F, inputs, states[0], i2h_weight, h2h_weight,
                                          i2h_bias, h2h_bias)
        gates = F.SliceChannel(F.elemwise_add(i2h, h2h, name=prefix + 'plus0'), num_outputs=4,
                               name=prefix + 'slice')
        gate, act = self._recurrent_activation, self._activation
        in_gate = self._get_activation(F, gates[0], gate, name=prefix + 'i')
        forget_gate = self._get_activation(F, gates[1], gate, name=prefix + 'f')
        candidate = self._get_activation(F, gates[2], act, name=prefix + 'c')
        out_gate = self._get_activation(F, gates[3], gate, name=prefix + 'o')
        next_c = F.elemwise_add(F.elemwise_mul(forget_gate, states[1], name=prefix + 'mul0'),
                                F.elemwise_mul(in_gate, candidate, name=prefix + 'mul1'),
                                name=prefix + 'state')
        next_h = F.elemwise_mul(out_gate, F.Activation(next_c, act_type=act,
                                                       name=prefix + 'activation0'),
                                name=prefix + 'out')
        return next_h, [next_h, next_c]


class GRUCell(_GatedCell):
    r"""Gated recurrent unit cell (Cho et al., 2014), in cuDNN's form: the reset gate
    multiplies ``U_n·h + b_Un``, after the product.

    One step, the three gate blocks in the order r, z, n::

        r_t = σ(W_r·x_t + b_Wr + U_r·h_(t-1) + b_Ur)             reset gate
        z_t = σ(W_z·x_t + b_Wz + U_z·h_(t-1) + b_Uz)             update gate
        n_t = tanh(W_n·x_t + b_Wn + r_t·(U_n·h_(t-1) + b_Un))    candidate
        h_t = (1 - z_t)·n_t + z_t·h_(t-1)

    Parameters
    ----------
    hidden_size : int
        The size of ``h``; the weights have 3·hidden_size rows.
    i2h_weight_initializer, h2h_weight_initializer : str or Initializer, optional
        Default: the global initializer.
    i2h_bias_initializer, h2h_bias_initializer : str or Initializer, default 'zeros'
    input_size : int, default 0
        The input's size; 0 infers it from the first input.
    prefix : str, default ``'gru_'`` and a counter
    params : ParameterDict, optional
        Parameters to share.

    Notes
    -----
    Input: (batch, input_size) and ``[h]`` of shape (batch, hidden_size); output ``h_t``
    and ``[h_t]``.
    """
    _gates = 3

    def __init__(self, hidden_size, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer='zeros', h2h_bias_initializer='zeros', input_size=0,
                 prefix=None, params=None):
        super().__init__(hidden_size, i2h_weight_initializer, h2h_weight_initializer,
                         i2h_bias_initializer, h2h_bias_initializer, input_size, prefix,
                         params)

    def _alias(self):
        return 'gru'

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prev_h = states[0]
        prefix, i2h, h2h = self._products(F, inputs, prev_h, i2h_weight, h2h_weight,
                                          i2h_bias, h2h_bias)
        i2h_r, i2h_z, i2h_n = F.SliceChannel(i2h, num_outputs=3, name=prefix + 'i2h_slice')
        h2h_r, h2h_z, h2h_n = F.SliceChannel(h2h, num_outputs=3, name=prefix + 'h2h_slice')
        reset_gate = F.Activation(F.elemwise_add(i2h_r, h2h_r, name=prefix + 'plus0'),
                                  act_type='sigmoid', name=prefix + 'r_act')
        update_gate = F.Activation(F.elemwise_add(i2h_z, h2h_z, name=prefix + 'plus1'),
                                   act_type='sigmoid', name=prefix + 'z_act')
        candidate = F.Activation(
            F.elemwise_add(i2h_n, F.elemwise_mul(reset_gate, h2h_n, name=prefix + 'mul0'),
                           name=prefix + 'plus2'),
            act_type='tanh', name=prefix + 'h_act')
        ones = F.ones_like(update_gate, name=prefix + 'ones_like0')
        next_h = F.elemwise_add(
            F.elemwise_mul(F.elemwise_sub(ones, update_gate, name=prefix + 'minus0'),
                           candidate, name=prefix + 'mul1'),
            F.elemwise_mul(update_gate, prev_h, name=prefix + 'mul20'),
            name=prefix + 'out')
        return next_h, [next_h]


# ---------------------------------------------------------------------- stacks
class _StackMixin:
    """What SequentialRNNCell and HybridSequentialRNNCell share: each cell's output is
    the next cell's input; the states are the cells' states, concatenated."""

    def __repr__(self):
        return '%s(\n%s\n)' % (self.__class__.__name__, '\n'.join(
            '(%s): %s' % (key, _indent(repr(cell), 2)) for key, cell in self._children.items()))

    def add(self, cell):
        """Append ``cell`` (a RecurrentCell) to the stack."""
        self.register_child(cell)

    def state_info(self, batch_size=0):
        return _cells_state_info(self._children.values(), batch_size)

    def begin_state(self, **kwargs):
        assert not self._modified, \
            "After applying modifier cells (e.g. ZoneoutCell) the base cell cannot be " \
            "called directly. Call the modifier cell instead."
        return _cells_begin_state(self._children.values(), **kwargs)

    def __call__(self, inputs, states):
        self._counter += 1
        assert not any(isinstance(cell, BidirectionalCell) for cell in self._children.values()), \
            "a stack holding a BidirectionalCell cannot be stepped: use unroll"
        next_states, position = [], 0
        for cell in self._children.values():
            count = len(cell.state_info())
            inputs, state = cell(inputs, states[position:position + count])
            position += count
            next_states.extend(state)
        return inputs, next_states

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None,
               valid_length=None):
        self.reset()
        inputs, _, F, batch_size = _format_sequence(length, inputs, layout, None)
        begin_state = _get_begin_state(self, F, begin_state, inputs, batch_size)
        cells = list(self._children.values())
        next_states, position = [], 0
        for i, cell in enumerate(cells):
            count = len(cell.state_info())
            inputs, states = cell.unroll(length, inputs=inputs,
                                         begin_state=begin_state[position:position + count],
                                         layout=layout,
                                         merge_outputs=merge_outputs if i == len(cells) - 1
                                         else None,
                                         valid_length=valid_length)
            position += count
            next_states.extend(states)
        return inputs, next_states

    def __getitem__(self, i):
        return self._children[str(i)]

    def __len__(self):
        return len(self._children)


class SequentialRNNCell(_StackMixin, RecurrentCell):
    """A stack of recurrent cells: each cell's output is the next cell's input.

    The states are those of every cell, in order. Example::

        stack = rnn.SequentialRNNCell()
        with stack.name_scope():
            stack.add(rnn.LSTMCell(100))
            stack.add(rnn.LSTMCell(100))
        outputs, states = stack.unroll(35, x, layout='NTC')
    """

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def hybrid_forward(self, *args, **kwargs):
        raise NotImplementedError


class HybridSequentialRNNCell(_StackMixin, HybridRecurrentCell):
    """A stack of hybridizable recurrent cells (see :class:`SequentialRNNCell`)."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def hybrid_forward(self, F, inputs, states):
        return self.__call__(inputs, states)


# ---------------------------------------------------------------------- modifiers
class DropoutCell(HybridRecurrentCell):
    """Dropout on the input of each step; the states pass through unchanged.

    One step (in training; the identity otherwise), with ``m`` drawn anew each step::

        y_t = m·x_t / (1 - rate),   m_j = 0 with probability rate, else 1

    Parameters
    ----------
    rate : float
        The fraction of elements to drop.
    axes : tuple of int, default ()
        The axes along which one mask value is shared.
    prefix, params : see :class:`RecurrentCell`.
    """

    def __init__(self, rate, axes=(), prefix=None, params=None):
        super().__init__(prefix, params)
        assert isinstance(rate, numeric_types), "rate must be a number, got %r" % (rate,)
        self._rate = rate
        self._axes = axes

    def __repr__(self):
        return '%s(rate=%s, axes=%s)' % (self.__class__.__name__, self._rate, self._axes)

    def state_info(self, batch_size=0):
        return []

    def _alias(self):
        return 'dropout'

    def hybrid_forward(self, F, inputs, states):
        if self._rate > 0:
            inputs = F.Dropout(data=inputs, p=self._rate, axes=self._axes,
                               name='t%d_fwd' % self._counter)
        return inputs, states

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None,
               valid_length=None):
        self.reset()
        inputs, _, F, _ = _format_sequence(length, inputs, layout, merge_outputs)
        if isinstance(inputs, tensor_types + (symbol.Symbol,)):
            return self.hybrid_forward(F, inputs, begin_state if begin_state else [])
        return super().unroll(length, inputs, begin_state=begin_state, layout=layout,
                              merge_outputs=merge_outputs, valid_length=None)


class ModifierCell(HybridRecurrentCell):
    """The base of cells that change another cell's step (zoneout, residual connection).

    The modified ``base_cell`` must not be called directly afterwards: call the modifier.
    Its Parameters are the base cell's.
    """

    def __init__(self, base_cell):
        assert not base_cell._modified, \
            "Cell %s is already modified: one cell cannot be modified twice" % base_cell.name
        base_cell._modified = True
        super().__init__(prefix=base_cell.prefix + self._alias(), params=None)
        self.base_cell = base_cell

    @property
    def params(self):
        return self.base_cell.params

    def state_info(self, batch_size=0):
        return self.base_cell.state_info(batch_size)

    def begin_state(self, func=symbol.zeros, **kwargs):
        assert not self._modified, \
            "After applying modifier cells (e.g. DropoutCell) the base cell cannot be " \
            "called directly. Call the modifier cell instead."
        self.base_cell._modified = False
        try:
            return self.base_cell.begin_state(func=func, **kwargs)
        finally:
            self.base_cell._modified = True

    def hybrid_forward(self, F, inputs, states):
        raise NotImplementedError

    def __repr__(self):
        return '%s(%s)' % (self.__class__.__name__, self.base_cell)


class ZoneoutCell(ModifierCell):
    """Zoneout (Krueger et al., 2016): in training, each unit of the output and the states
    keeps its previous value with some probability instead of taking the new one.

    One step, with ``base`` the base cell and masks ``m`` drawn anew each step
    (``m_j = 0`` with probability p, else 1)::

        y', s' = base(x_t, s_(t-1))
        y_t = where(m_out, y', y_(t-1))        (y_0 = 0)
        s_t = where(m_state, s', s_(t-1))

    Parameters
    ----------
    base_cell : RecurrentCell
        The cell to modify (not a BidirectionalCell).
    zoneout_outputs : float, default 0
        The probability p of keeping each output unit's previous value.
    zoneout_states : float, default 0
        The probability p of keeping each state unit's previous value.
    """

    def __init__(self, base_cell, zoneout_outputs=0., zoneout_states=0.):
        assert not isinstance(base_cell, BidirectionalCell), \
            "BidirectionalCell cannot take zoneout since it cannot be stepped: apply " \
            "ZoneoutCell to the cells inside it instead"
        super().__init__(base_cell)
        self.zoneout_outputs = zoneout_outputs
        self.zoneout_states = zoneout_states
        self._prev_output = None

    def __repr__(self):
        return '%s(p_out=%s, p_state=%s, %s)' % (self.__class__.__name__, self.zoneout_outputs,
                                                  self.zoneout_states, self.base_cell)

    def _alias(self):
        return 'zoneout'

    def reset(self):
        super().reset()
        self._prev_output = None

    def hybrid_forward(self, F, inputs, states):
        next_output, next_states = self.base_cell(inputs, states)

        def keep_new(p, like):  # 1 where the new value is taken (Dropout of ones, scaled)
            return F.Dropout(F.ones_like(like), p=p)
        prev_output = self._prev_output
        if prev_output is None:
            prev_output = F.zeros_like(next_output)
        p_out, p_state = self.zoneout_outputs, self.zoneout_states
        output = (F.where(keep_new(p_out, next_output), next_output, prev_output)
                  if p_out != 0. else next_output)
        states = ([F.where(keep_new(p_state, new), new, old)
                   for new, old in zip(next_states, states)] if p_state != 0. else next_states)
        self._prev_output = output
        return output, states


class ResidualCell(ModifierCell):
    """A residual connection around a cell (Wu et al., 2016, "Google's neural machine
    translation system").

    One step, with ``base`` the base cell::

        y', s_t = base(x_t, s_(t-1))
        y_t = y' + x_t

    Parameters
    ----------
    base_cell : RecurrentCell
        The cell to wrap; its output size must equal its input size.
    """

    def __init__(self, base_cell):
        super().__init__(base_cell)

    def hybrid_forward(self, F, inputs, states):
        output, states = self.base_cell(inputs, states)
        return F.elemwise_add(output, inputs, name='t%d_fwd' % self._counter), states

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None,
               valid_length=None):
        self.reset()
        self.base_cell._modified = False
        try:
            outputs, states = self.base_cell.unroll(length, inputs=inputs,
                                                    begin_state=begin_state, layout=layout,
                                                    merge_outputs=merge_outputs,
                                                    valid_length=valid_length)
        finally:
            self.base_cell._modified = True
        if merge_outputs is None:
            merge_outputs = isinstance(outputs, tensor_types + (symbol.Symbol,))
        inputs, axis, F, _ = _format_sequence(length, inputs, layout, merge_outputs)
        if valid_length is not None:
            inputs = _mask_sequence_variable_length(F, inputs, length, valid_length, axis,
                                                    merge_outputs)
        if merge_outputs:
            return F.elemwise_add(outputs, inputs), states
        return [F.elemwise_add(o, i) for o, i in zip(outputs, inputs)], states


class BidirectionalCell(HybridRecurrentCell):
    """Two cells over one sequence, one from its start and one from its end; their outputs
    are concatenated at each step.

    Over a sequence (it has no single step; use :meth:`unroll`)::

        y_t = concat(l_t, r_t)   where   l = l_cell over x_1..x_T,
                                         r = r_cell over x_T..x_1 (put back in time order)

    Parameters
    ----------
    l_cell : RecurrentCell
        The cell run forward in time.
    r_cell : RecurrentCell
        The cell run backward in time.
    output_prefix : str, default 'bi_'
        Starts the names of the concatenated outputs.
    """

    def __init__(self, l_cell, r_cell, output_prefix='bi_'):
        super().__init__(prefix='', params=None)
        self.register_child(l_cell, 'l_cell')
        self.register_child(r_cell, 'r_cell')
        self._output_prefix = output_prefix

    def __call__(self, inputs, states):
        raise NotImplementedError("BidirectionalCell cannot be stepped: use unroll")

    def __repr__(self):
        return '%s(forward=%s, backward=%s)' % (self.__class__.__name__,
                                                self._children['l_cell'],
                                                self._children['r_cell'])

    def state_info(self, batch_size=0):
        return _cells_state_info(self._children.values(), batch_size)

    def begin_state(self, **kwargs):
        assert not self._modified, \
            "After applying modifier cells (e.g. DropoutCell) the base cell cannot be " \
            "called directly. Call the modifier cell instead."
        return _cells_begin_state(self._children.values(), **kwargs)

    def unroll(self, length, inputs, begin_state=None, layout='NTC', merge_outputs=None,
               valid_length=None):
        self.reset()
        inputs, axis, F, batch_size = _format_sequence(length, inputs, layout, False)
        reversed_inputs = list(_reverse_sequences(inputs, length, valid_length))
        begin_state = _get_begin_state(self, F, begin_state, inputs, batch_size)
        l_cell, r_cell = self._children.values()
        l_count = len(l_cell.state_info(batch_size))
        l_outputs, l_states = l_cell.unroll(length, inputs=inputs,
                                            begin_state=begin_state[:l_count], layout=layout,
                                            merge_outputs=merge_outputs,
                                            valid_length=valid_length)
        r_outputs, r_states = r_cell.unroll(length, inputs=reversed_inputs,
                                            begin_state=begin_state[l_count:], layout=layout,
                                            merge_outputs=False, valid_length=valid_length)
        reversed_r_outputs = _reverse_sequences(r_outputs, length, valid_length)
        if merge_outputs is None:
            merge_outputs = isinstance(l_outputs, tensor_types + (symbol.Symbol,))
            l_outputs, _, _, _ = _format_sequence(None, l_outputs, layout, merge_outputs)
            reversed_r_outputs, _, _, _ = _format_sequence(None, reversed_r_outputs, layout,
                                                           merge_outputs)
        if merge_outputs:
            reversed_r_outputs = F.stack(*reversed_r_outputs, axis=axis)
            outputs = F.concat(l_outputs, reversed_r_outputs, dim=2,
                               name='%sout' % self._output_prefix)
        else:
            outputs = [F.concat(l_o, r_o, dim=1, name='%st%d' % (self._output_prefix, i))
                       for i, (l_o, r_o) in enumerate(zip(l_outputs, reversed_r_outputs))]
        if valid_length is not None:
            outputs = _mask_sequence_variable_length(F, outputs, length, valid_length, axis,
                                                     merge_outputs)
        return outputs, l_states + r_states
