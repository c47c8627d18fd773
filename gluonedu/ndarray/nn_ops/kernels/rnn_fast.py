"""The fused recurrent layers of ``nd.RNN``: whole sequences on raw arrays, with
back-propagation through time written by hand.

The same cells as the operator's reference (:mod:`gluonedu.ndarray.nn_ops.rnn`, which
composes recorded NDArray operations one step at a time), computed the way cuDNN and
MXNet's CPU kernel do:

* every step's input product ``W·x + b`` of a layer is one matrix product over the whole
  sequence, ``(T·N, I) @ (I, G·H)``; only ``U·h`` remains inside the loop over time;
* the forward pass keeps what the backward pass needs (gate activations, states), so the
  backward pass is one loop over time in reverse that only multiplies by ``U``; the weight
  gradients are again one matrix product each over the whole sequence;
* the loops' small products run on one BLAS thread (:func:`.blas.threads_for`): split over
  busy cores they are several times slower.

With ``xw = W·x + b_W`` and ``hu = U·h + b_U``, each gate block ``[k]`` of ``H`` columns::

    rnn_tanh, rnn_relu   h' = act(xw + hu)
    lstm                 i, f, g, o = σ(·), σ(·), tanh(·), σ(·) of xw + hu   (in this order)
                         c' = f·c + i·g,  h' = o·tanh(c')
    gru                  r = σ(xw[r] + hu[r]),  z = σ(xw[z] + hu[z])
                         n = tanh(xw[n] + r·hu[n]),  h' = (1 − z)·n + z·h

Kernels are pure functions of arrays (NumPy or CuPy, passed as ``xp``): no NDArrays, no
autograd. Weights come as :func:`split_parameters` views of MXNet's flat vector.
"""
from collections import namedtuple

import numpy as np

from .blas import threads_for

__all__ = ['GATES', 'split_parameters', 'forward', 'backward']

#: How many gate blocks each mode's weights stack.
GATES = {'rnn_relu': 1, 'rnn_tanh': 1, 'lstm': 4, 'gru': 3}

#: One layer and direction's weights (views of the flat vector).
Weights = namedtuple('Weights', 'i2h h2h i2h_bias h2h_bias')

#: What the forward pass of one layer and direction keeps for the backward pass: the
#: layer's input, the state before each step (T, N, H), the gate activations (T, N, G·H),
#: the cell states after each step and their tanh (LSTM), U·h + b_U of the n gate (GRU).
Tape = namedtuple('Tape', 'x h_prev gates c_prev c_tanh hu_n')


def split_parameters(flat, mode, layers, directions, input_size, hidden):
    """``[[Weights of each direction] of each layer]``: views of MXNet's flat vector.

    Every weight matrix comes first — for each layer, for each direction, ``i2h``
    (G·H, in) then ``h2h`` (G·H, H) — then every bias in the same order. Writing into the
    views of a zero vector packs gradients in the same layout.
    """
    gh = GATES[mode] * hidden
    position = 0

    def take(*shape):
        nonlocal position
        count = int(np.prod(shape))
        piece = flat[position:position + count].reshape(shape)
        position += count
        return piece
    matrices = [[(take(gh, input_size if layer == 0 else directions * hidden), take(gh, hidden))
                 for _ in range(directions)] for layer in range(layers)]
    return [[Weights(i2h, h2h, take(gh), take(gh)) for i2h, h2h in layer]
            for layer in matrices]


def _sigmoid(xp, x):
    with np.errstate(over='ignore'):  # exp(-x) overflowing to inf correctly gives 0
        return 1 / (1 + xp.exp(-x))


def _input_products(xp, mode, x, w):
    """``W·x + b_W`` of every step at once, (T, N, G·H); with ``b_U`` added too except for
    the GRU, whose ``b_U`` of the n gate sits inside ``r·(U·h + b_U)``."""
    steps, batch, size = x.shape
    xw = (x.reshape(steps * batch, size) @ w.i2h.T).reshape(steps, batch, -1)
    xw += w.i2h_bias if mode == 'gru' else w.i2h_bias + w.h2h_bias
    return xw


def _forward_direction(xp, mode, x, h, c, w, reverse):
    """One layer in one direction: ``(outputs (T, N, H), final h, final c, Tape)``."""
    steps, batch = x.shape[:2]
    hidden = w.h2h.shape[1]
    xw = _input_products(xp, mode, x, w)
    ys = xp.empty((steps, batch, hidden), dtype=x.dtype)
    h_prev = xp.empty_like(ys)
    gates = xp.empty_like(xw)
    lstm, gru = mode == 'lstm', mode == 'gru'
    c_prev = xp.empty_like(ys) if lstm else None
    c_tanh = xp.empty_like(ys) if lstm else None
    hu_n = xp.empty_like(ys) if gru else None
    with threads_for(xp, batch * hidden * xw.shape[2]):
        for t in (range(steps - 1, -1, -1) if reverse else range(steps)):
            h_prev[t] = h
            hu = h @ w.h2h.T
            if lstm:
                a = xw[t] + hu
                g = gates[t]
                g[:] = _sigmoid(xp, a)
                g[:, 2 * hidden:3 * hidden] = xp.tanh(a[:, 2 * hidden:3 * hidden])
                i, f, cand, o = (g[:, k * hidden:(k + 1) * hidden] for k in range(4))
                c_prev[t] = c
                c = f * c + i * cand
                c_tanh[t] = xp.tanh(c)
                h = o * c_tanh[t]
            elif gru:
                hu += w.h2h_bias
                rz = gates[t, :, :2 * hidden]
                rz[:] = _sigmoid(xp, xw[t, :, :2 * hidden] + hu[:, :2 * hidden])
                r, z = rz[:, :hidden], rz[:, hidden:]
                hu_n[t] = hu[:, 2 * hidden:]
                n = gates[t, :, 2 * hidden:]
                n[:] = xp.tanh(xw[t, :, 2 * hidden:] + r * hu_n[t])
                h = (1 - z) * n + z * h
            else:
                a = xw[t] + hu
                gates[t] = xp.tanh(a) if mode == 'rnn_tanh' else xp.maximum(a, 0)
                h = gates[t]
            ys[t] = h
    return ys, h, c, Tape(x, h_prev, gates, c_prev, c_tanh, hu_n)


def _backward_direction(xp, mode, tape, dy, dh, dc, w, grads, reverse, need_dx):
    """The gradients of one layer and direction from ``dy`` (T, N, H) and the final
    states' ``dh``, ``dc`` (None: zero): adds the weights' into ``grads`` (Weights of
    arrays) and returns ``(dx or None, dh of the initial state, dc of it)``."""
    steps, batch, hidden = dy.shape
    gates = tape.gates
    gh = gates.shape[2]
    # d(pre-activation) of each step: on the input side (x, W, b_W) and the state side
    # (h, U, b_U); they differ only in the GRU's n gate
    d_in = xp.empty_like(gates)
    d_state = xp.empty_like(gates) if mode == 'gru' else d_in
    dh = xp.zeros((batch, hidden), dtype=dy.dtype) if dh is None else dh
    if mode == 'lstm':
        dc = xp.zeros((batch, hidden), dtype=dy.dtype) if dc is None else dc
    with threads_for(xp, batch * hidden * gh):
        for t in (range(steps) if reverse else range(steps - 1, -1, -1)):
            dh = dh + dy[t]
            g = gates[t]
            if mode == 'lstm':
                i, f, cand, o = (g[:, k * hidden:(k + 1) * hidden] for k in range(4))
                c_tanh = tape.c_tanh[t]
                dc = dc + dh * o * (1 - c_tanh * c_tanh)
                d = d_in[t]
                d[:, :hidden] = dc * cand * i * (1 - i)
                d[:, hidden:2 * hidden] = dc * tape.c_prev[t] * f * (1 - f)
                d[:, 2 * hidden:3 * hidden] = dc * i * (1 - cand * cand)
                d[:, 3 * hidden:] = dh * c_tanh * o * (1 - o)
                dc = dc * f
                dh = d @ w.h2h
            elif mode == 'gru':
                r, z, n = g[:, :hidden], g[:, hidden:2 * hidden], g[:, 2 * hidden:]
                dn = dh * (1 - z) * (1 - n * n)
                dz = dh * (tape.h_prev[t] - n) * z * (1 - z)
                dr = dn * tape.hu_n[t] * r * (1 - r)
                d_in[t, :, :hidden] = d_state[t, :, :hidden] = dr
                d_in[t, :, hidden:2 * hidden] = d_state[t, :, hidden:2 * hidden] = dz
                d_in[t, :, 2 * hidden:] = dn
                d_state[t, :, 2 * hidden:] = dn * r
                dh = dh * z + d_state[t] @ w.h2h
            else:
                y = g
                d_in[t] = dh * (1 - y * y) if mode == 'rnn_tanh' else dh * (y > 0)
                dh = d_in[t] @ w.h2h
    flat_in = d_in.reshape(steps * batch, gh)
    flat_state = d_state.reshape(steps * batch, gh)
    x = tape.x
    grads.i2h[...] += flat_in.T @ x.reshape(steps * batch, -1)
    grads.h2h[...] += flat_state.T @ tape.h_prev.reshape(steps * batch, hidden)
    grads.i2h_bias[...] += flat_in.sum(axis=0)
    grads.h2h_bias[...] += flat_state.sum(axis=0)
    dx = (flat_in @ w.i2h).reshape(x.shape) if need_dx else None
    return dx, dh, dc


def forward(xp, mode, x, weights, h0, c0, masks):
    """A stacked (bidirectional) recurrent layer over ``x`` (T, N, I).

    ``weights`` from :func:`split_parameters`; ``h0``, ``c0`` (layers·directions, N, H)
    (``c0`` None but for the LSTM); ``masks[l]`` the dropout scale applied to layer
    ``l``'s output (None: no dropout). Returns ``(y, hN, cN, saved)``.
    """
    layer_in, saved, final_h, final_c = x, [], [], []
    directions = len(weights[0])
    for layer, layer_weights in enumerate(weights):
        outputs, tapes = [], []
        for direction, w in enumerate(layer_weights):
            index = layer * directions + direction
            y, h, c, tape = _forward_direction(xp, mode, layer_in, h0[index],
                                               None if c0 is None else c0[index], w,
                                               reverse=direction == 1)
            outputs.append(y)
            tapes.append(tape)
            final_h.append(h)
            final_c.append(c)
        layer_in = outputs[0] if directions == 1 else xp.concatenate(outputs, axis=2)
        if masks[layer] is not None:
            layer_in = layer_in * masks[layer]
        saved.append(tapes)
    return (layer_in, xp.stack(final_h), xp.stack(final_c) if mode == 'lstm' else None,
            (mode, saved, masks))


def backward(xp, weights, saved, dy, dhN, dcN, grads, need_dx):
    """The gradients of :func:`forward`'s outputs ``(y, hN, cN)`` given theirs (None:
    zero): adds the weights' into ``grads`` (:func:`split_parameters` views of a zero
    vector) and returns ``(dx or None, dh0, dc0 or None)``."""
    mode, tapes, masks = saved
    directions = len(weights[0])
    hidden = weights[0][0].h2h.shape[1]
    dh0 = [None] * (len(weights) * directions)
    dc0 = list(dh0)
    dx = None
    for layer in range(len(weights) - 1, -1, -1):
        if dy is not None and masks[layer] is not None:
            dy = dy * masks[layer]
        dx = None
        for direction in range(directions):
            index = layer * directions + direction
            tape = tapes[layer][direction]
            dy_d = (xp.zeros(tape.h_prev.shape, dtype=tape.h_prev.dtype) if dy is None
                    else dy[:, :, direction * hidden:(direction + 1) * hidden])
            dx_d, dh0[index], dc0[index] = _backward_direction(
                xp, mode, tape, dy_d, None if dhN is None else dhN[index],
                None if dcN is None else dcN[index], weights[layer][direction],
                grads[layer][direction], reverse=direction == 1,
                need_dx=need_dx or layer > 0)
            dx = dx_d if dx is None or dx_d is None else dx + dx_d
        dy = dx
    return dx, xp.stack(dh0), xp.stack(dc0) if mode == 'lstm' else None
