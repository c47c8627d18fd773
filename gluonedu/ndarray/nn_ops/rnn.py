"""``nd.RNN``: MXNet's fused recurrent operator (Elman RNN, LSTM, GRU), stacked and
bidirectional, over time-major data ``(T, N, I)``.

One step of each cell, for the input ``x`` and the previous state ``h`` (and cell ``c``),
with ``W·x`` the input-to-hidden product (``i2h``) and ``U·h`` the hidden-to-hidden one
(``h2h``), each with its own bias::

    rnn_tanh, rnn_relu   h' = act(W·x + b_W + U·h + b_U)
    lstm                 i, f, g, o = split(W·x + b_W + U·h + b_U)        (in this order)
                         c' = σ(f)·c + σ(i)·tanh(g)
                         h' = σ(o)·tanh(c')         (with projection_size: h' = R·h')
    gru                  r, z, n split W·x + b_W and U·h + b_U alike      (in this order)
                         r = σ(W_r·x + b_Wr + U_r·h + b_Ur)
                         z = σ(W_z·x + b_Wz + U_z·h + b_Uz)
                         n = tanh(W_n·x + b_Wn + r·(U_n·h + b_Un))
                         h' = (1 − z)·n + z·h

(Elman, 1990; Hochreiter & Schmidhuber, 1997, "Long short-term memory", with the forget
gate of Gers et al., 2000; Cho et al., 2014, "Learning phrase representations using RNN
encoder-decoder", in cuDNN's form, which applies ``r`` after ``U_n·h``; Sak et al., 2014,
for the projection.)

Layer ``l`` reads the previous layer's outputs (both directions concatenated); the
reverse direction reads the sequence from its end. All weights and biases arrive packed
in one flat ``parameters`` vector, in MXNet's (and cuDNN's) order
(:func:`unpack_parameters`).

Two implementations compute it. The reference here composes recorded NDArray operations one
time step at a time, so ``autograd`` differentiates it through time by itself; it reads like
the formulas above and serves every option. The fast kernel
(:mod:`.kernels.rnn_fast`) runs whole sequences on raw arrays with a hand-written backward
pass through time; it is the default wherever it applies (no ``projection_size``, no cell
state clipping, no ``sequence_length``), and ``use_kernels('reference')`` turns it off.
Tests hold the two equal.
"""
from collections import namedtuple

import numpy as np

from ... import _backend
from ...base import MXNetError
from .. import _graph, registry
from ..ndarray import NDArray
from ..registry import Float
from . import kernels
from .common import check_inputs, float_dtype, record, shape_text, tracked
from .kernels import rnn_fast
from .declare import OpDef, Param, REQUIRED

__all__ = ['RNN', 'rnn_shapes', 'unpack_parameters']

#: How many gate blocks each mode's weights stack.
GATES = rnn_fast.GATES

#: One layer and direction's weights: W (G·H, in), U (G·H, P or H), R (P, H) or None.
Weights = namedtuple('Weights', 'i2h h2h h2r i2h_bias h2h_bias')


def _dropped_inputs(params):
    dropped = () if params['mode'] == 'lstm' else ('state_cell',)
    return dropped + (() if params['use_sequence_length'] else ('sequence_length',))


def _output_names(params):
    if not params['state_outputs']:
        return ('output',)
    return ('output', 'state_output') + (('statecell_output',) if params['mode'] == 'lstm'
                                         else ())


RNN_OP = OpDef('RNN', inputs=('data', 'parameters', 'state', 'state_cell', 'sequence_length'),
               drop_inputs=_dropped_inputs,
               shapes=lambda params, data: rnn_shapes(params, data),
               num_outputs=lambda p: len(_output_names(p)), output_names=_output_names,
               params=(
    Param('state_size', 'count', REQUIRED, 'Size of the hidden state of each layer.'),
    Param('num_layers', 'count', REQUIRED, 'Number of stacked layers.'),
    Param('bidirectional', 'bool', False, 'Also run each layer from the sequence\'s end.'),
    Param('mode', 'enum', REQUIRED, 'The recurrent cell.', choices=tuple(sorted(GATES))),
    Float('p', 0.0, low=0.0, high=1.0, single=True,
          doc='Dropout rate on the outputs of every layer but the last (training only).'),
    Param('state_outputs', 'bool', False, 'Also return the final states.'),
    Param('projection_size', 'int_or_none', None, 'LSTM only: project the hidden state '
          'to this size (LSTMP).'),
    Param('lstm_state_clip_min', 'double_or_none', None, 'Lower bound of the LSTM cell '
          'state (with lstm_state_clip_max).'),
    Param('lstm_state_clip_max', 'double_or_none', None, 'Upper bound of the LSTM cell '
          'state (with lstm_state_clip_min).'),
    Param('lstm_state_clip_nan', 'bool', False, 'Clip NaN cell states to the bounds too.'),
    Param('use_sequence_length', 'bool', False, 'Take a sequence_length input: the valid '
          'length of each sequence of the batch.')))


# ---------------------------------------------------------------------- shapes and layout
class _Sizes:
    """The sizes an RNN's parameters fix: gates G, hidden H, projection P, directions D."""

    def __init__(self, params):
        self.gates = GATES[params.mode]
        self.hidden = params.state_size
        self.projection = params.projection_size
        self.state = self.projection or self.hidden      # what h holds
        self.directions = 2 if params.bidirectional else 1
        self.layers = params.num_layers

    def layer_input(self, layer, input_size):
        return input_size if layer == 0 else self.directions * self.state

    def parameter_count(self, input_size):
        """The length of the flat ``parameters`` vector."""
        gh, count = self.gates * self.hidden, 0
        for layer in range(self.layers):
            per_direction = gh * (self.layer_input(layer, input_size) + self.state + 2)
            if self.projection:
                per_direction += self.projection * self.hidden
            count += self.directions * per_direction
        return count


def _check_params(params):
    if params.num_layers < 1 or params.state_size < 1:
        raise MXNetError("RNN: num_layers=%d and state_size=%d must both be at least 1"
                         % (params.num_layers, params.state_size))
    if params.projection_size is not None:
        if params.mode != 'lstm':
            raise MXNetError("RNN: projection_size works with mode='lstm' only, not %r"
                             % params.mode)
        if not 1 <= params.projection_size < params.state_size:
            raise MXNetError("RNN: projection_size=%d must lie in [1, state_size=%d)"
                             % (params.projection_size, params.state_size))


def rnn_shapes(params, data_shape):
    """``{input name: shape, 'out': [shape of each output]}`` of an RNN on data of
    ``data_shape`` (T, N, I); MXNetError unless the data is 3-D."""
    if len(data_shape) != 3:
        raise MXNetError("RNN: data must be 3-D (sequence length, batch, input size) in "
                         "layout TNC, got shape %s" % shape_text(data_shape))
    _check_params(params)
    steps, batch, inputs = data_shape
    sizes = _Sizes(params)
    stacked = params.num_layers * sizes.directions
    shapes = {'parameters': (sizes.parameter_count(inputs),) if inputs else None,
              'state': (stacked, batch, sizes.state),
              'state_cell': (stacked, batch, sizes.hidden),
              'sequence_length': (batch,)}
    names = _output_names(params._asdict())
    shapes['out'] = [(steps, batch, sizes.directions * sizes.state)] + [
        shapes['state' if name == 'state_output' else 'state_cell'] for name in names[1:]]
    return shapes


def unpack_parameters(params, parameters, input_size):
    """``[[Weights of each direction] of each layer]``: views of the flat vector.

    MXNet's packing: first every weight matrix — for each layer, for each direction,
    ``i2h`` (G·H, in), ``h2h`` (G·H, P or H) and, with a projection, ``h2r`` (P, H) —
    then every bias — for each layer, for each direction, ``i2h`` (G·H,) and ``h2h``
    (G·H,). Each matrix stacks its gates' rows in the order of the module docstring.
    """
    sizes = _Sizes(params)
    gh = sizes.gates * sizes.hidden
    position = 0

    def take(*shape):
        nonlocal position
        count = shape[0] * (shape[1] if len(shape) > 1 else 1)
        piece = parameters.slice_axis(axis=0, begin=position, end=position + count)
        position += count
        return piece.reshape(shape)
    matrices = [[(take(gh, sizes.layer_input(layer, input_size)), take(gh, sizes.state),
                  take(sizes.projection, sizes.hidden) if sizes.projection else None)
                 for _ in range(sizes.directions)] for layer in range(sizes.layers)]
    return [[Weights(*mats, take(gh), take(gh)) for mats in layer] for layer in matrices]


# ---------------------------------------------------------------------- one step
def _linear(x, weight, bias):
    """``x·weightᵀ + bias`` over the last axis of ``x``."""
    return registry.invoke('FullyConnected', x, weight, bias, num_hidden=weight.shape[0],
                           flatten=False)


def _elman_step(activation):
    def step(x_proj, h, c, w, params):
        return registry.invoke('Activation', x_proj + _linear(h, w.h2h, w.h2h_bias),
                               act_type=activation), None
    return step


def _lstm_step(x_proj, h, c, w, params):
    """Hochreiter & Schmidhuber's LSTM with a forget gate; gates in the order i, f, g, o."""
    i, f, g, o = (x_proj + _linear(h, w.h2h, w.h2h_bias)).split(num_outputs=4, axis=-1)
    c = f.sigmoid() * c + i.sigmoid() * g.tanh()
    if params.lstm_state_clip_min is not None and params.lstm_state_clip_max is not None:
        c = _clip_cell(c, params)
    h = o.sigmoid() * c.tanh()
    if w.h2r is not None:
        h = registry.invoke('FullyConnected', h, w.h2r, num_hidden=w.h2r.shape[0],
                            no_bias=True, flatten=False)
    return h, c


def _clip_cell(c, params):
    """The cell state clipped to [min, max] (NaN to min as well with lstm_state_clip_nan)."""
    low, high = params.lstm_state_clip_min, params.lstm_state_clip_max
    if params.lstm_state_clip_nan:
        c = registry.invoke('where', c == c, c, c.zeros_like() + low)
    return c.clip(low, high)


def _gru_step(x_proj, h, c, w, params):
    """Cho et al.'s GRU as cuDNN computes it; gates in the order r, z, n."""
    x_r, x_z, x_n = x_proj.split(num_outputs=3, axis=-1)
    h_r, h_z, h_n = _linear(h, w.h2h, w.h2h_bias).split(num_outputs=3, axis=-1)
    r = (x_r + h_r).sigmoid()
    z = (x_z + h_z).sigmoid()
    n = (x_n + r * h_n).tanh()
    return (1 - z) * n + z * h, None


_STEPS = {'rnn_relu': _elman_step('relu'), 'rnn_tanh': _elman_step('tanh'),
          'lstm': _lstm_step, 'gru': _gru_step}


# ---------------------------------------------------------------------- the sequence
def _run_direction(step, x, h, c, weights, params, masks, reverse):
    """One layer in one direction over the whole sequence: (outputs (T, N, S), h, c).

    ``masks[t]`` (N, 1) is 1 where step ``t`` lies inside a sequence's valid length and
    0 after it: there the state holds still and the output is 0.
    """
    x_proj = _linear(x, weights.i2h, weights.i2h_bias)   # every step's W·x + b at once
    outputs = [None] * x.shape[0]
    for t in (reversed(range(x.shape[0])) if reverse else range(x.shape[0])):
        h_new, c_new = step(x_proj[t], h, c, weights, params)
        if masks is None:
            h, c = h_new, c_new
            outputs[t] = h
        else:
            keep = 1 - masks[t]
            h = masks[t] * h_new + keep * h
            c = None if c is None else masks[t] * c_new + keep * c
            outputs[t] = masks[t] * h_new
    return registry.invoke('stack', *outputs, axis=0), h, c


def _step_masks(data, sequence_length):
    """``masks[t]`` (N, 1) in the data's dtype: whether step t is within each length."""
    lengths = sequence_length._data
    steps = data.shape[0]
    if lengths.size and (lengths.min() < 0 or lengths.max() > steps):
        raise MXNetError("RNN: sequence_length values must lie in [0, %d] (the data's "
                         "sequence length), got %s" % (steps, lengths.tolist()))
    dtype = data._data.dtype
    return [NDArray((lengths > t).astype(dtype).reshape(-1, 1), data._ctx)
            for t in range(steps)]


def _rnn(params, data=None, parameters=None, state=None, state_cell=None,
         sequence_length=None):
    """A stacked (bidirectional) Elman RNN, LSTM or GRU over time-major data (T, N, I)."""
    op = 'RNN'
    arrays = [a for a in (data, parameters, state, state_cell) if a is not None]
    check_inputs(op, arrays)
    for arr in arrays:
        float_dtype(op, arr)
    if data.dtype == np.float16 and data.context.device_type == 'cpu':
        raise MXNetError("RNN: float16 is not supported on the CPU (as in MXNet 1.9.1, which "
                         "has no float16 matrix product there); use float32")
    shapes = rnn_shapes(params, data.shape)
    for name, arr in (('parameters', parameters), ('state', state),
                      ('state_cell', state_cell), ('sequence_length', sequence_length)):
        if arr is not None and arr.shape != shapes[name]:
            raise MXNetError("RNN: %s has shape %s, but data of shape %s with these "
                             "parameters needs %s" % (name, shape_text(arr.shape),
                                                      shape_text(data.shape),
                                                      shape_text(shapes[name])))
    if _fast_kernel_applies(params, sequence_length):
        return _fast_rnn(params, data, parameters, state, state_cell)
    masks = None if sequence_length is None else _step_masks(data, sequence_length)
    step = _STEPS[params.mode]
    weights = unpack_parameters(params, parameters, data.shape[2])
    directions = len(weights[0])
    x, final_h, final_c = data, [], []
    for layer, layer_weights in enumerate(weights):
        outputs = []
        for direction, w in enumerate(layer_weights):
            index = layer * directions + direction
            y, h, c = _run_direction(step, x, state[index],
                                     None if state_cell is None else state_cell[index],
                                     w, params, masks, reverse=direction == 1)
            outputs.append(y)
            final_h.append(h)
            final_c.append(c)
        x = outputs[0] if directions == 1 else registry.invoke('concat', *outputs, dim=2)
        if params.p > 0 and layer < len(weights) - 1:
            x = registry.invoke('Dropout', x, p=params.p)
    if not params.state_outputs:
        return x
    results = [x, registry.invoke('stack', *final_h, axis=0)]
    if params.mode == 'lstm':
        results.append(registry.invoke('stack', *final_c, axis=0))
    return results


# ---------------------------------------------------------------------- the fast kernel
def _fast_kernel_applies(params, sequence_length):
    return (kernels.active() == 'fast' and params.projection_size is None
            and sequence_length is None
            and (params.lstm_state_clip_min is None or params.lstm_state_clip_max is None))


def _dropout_scales(params, data, sizes):
    """Each layer's dropout scale (0 or 1/(1 - p)) in training, None where none applies:
    the last layer, or outside training."""
    scales = [None] * sizes.layers
    if params.p > 0 and _graph.STATE.training:
        from ..random import random_state  # the generators sit above the operators
        dtype = data._data.dtype
        shape = data.shape[:2] + (sizes.directions * sizes.hidden,)
        for layer in range(sizes.layers - 1):
            uniform = random_state(data._ctx).uniform(0, 1, size=shape).astype(dtype)
            scales[layer] = (uniform >= params.p).astype(dtype) / dtype.type(1 - params.p)
    return scales


def _fast_rnn(params, data, parameters, state, state_cell):
    """The operator on :mod:`.kernels.rnn_fast`, recording its hand-written gradient."""
    xp, sizes = data._xp, _Sizes(params)

    def split(flat):
        return rnn_fast.split_parameters(flat, params.mode, sizes.layers, sizes.directions,
                                         data.shape[2], sizes.hidden)
    weights = split(parameters._data)
    with _backend.device_scope(data._ctx):
        y, h_last, c_last, saved = rnn_fast.forward(
            xp, params.mode, data._data, weights, state._data,
            None if state_cell is None else state_cell._data,
            _dropout_scales(params, data, sizes))
    inputs = (data, parameters, state) + (() if state_cell is None else (state_cell,))

    def backward(out_grads):
        """One backward pass through time for the gradients of every output (None where
        an output gets none)."""
        out_grads = list(out_grads) + [None] * (3 - len(out_grads))
        with _backend.device_scope(data._ctx):
            flat = xp.zeros_like(parameters._data)
            dx, dh, dc = rnn_fast.backward(xp, weights, saved, *out_grads, split(flat),
                                           need_dx=tracked(data))
        return (dx, flat, dh) + (() if state_cell is None else (dc,))
    if not params.state_outputs:
        return record(y, data, inputs, lambda grad: backward([grad]), 'RNN')
    outputs = [NDArray(out, data._ctx)
               for out in [y, h_last] + ([c_last] if params.mode == 'lstm' else [])]
    return _graph.record_outputs(outputs, inputs, backward, 'RNN')


RNN = RNN_OP.function(_rnn)
