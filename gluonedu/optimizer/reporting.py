"""What an update reports on the instrumentation bus (source 'optimizer').

Per parameter and update: the effective ``lr`` and ``wd`` (after the scheduler and the
multipliers); if a subscriber asked for norms, the L2 norms of the weight, the gradient
as handed to the optimizer, the update (new weight − old weight), and each state array
by name; if a subscriber listens for ``clip`` and ``clip_gradient`` is set, the fraction
of gradient entries the clip changed. Nothing here runs unless ``BUS.active``.

Cost: every norm is a float64 sum of squares on the array's own device (no host copy of
the array); an update norm also needs a device copy of the weight taken before the
update. Which norms are wanted is asked of the bus once per call, not once per array.
"""
import math

import numpy as np

from ..instrument.events import BUS

__all__ = ['before_update', 'report_update']

#: The norm names of the ``norm`` event, in the order they are emitted.
_PARAM_NORMS = ('weight', 'grad', 'update')


def _sum_of_squares(raw):
    """``sum(raw ** 2)`` in float64, for a NumPy or CuPy array of any shape and dtype."""
    flat = raw.reshape(-1).astype(np.float64)  # float64: float16/32 sums keep their digits
    return float(flat.dot(flat))


def _norm(array):
    """L2 norm of an NDArray (of the stored rows for a row_sparse one)."""
    if array.stype != 'default':
        array = array.data
    return math.sqrt(_sum_of_squares(array.handle))


def _update_norm(weight, before):
    """``||weight - before||``: the size of the step the optimizer just took."""
    diff = weight.handle.reshape(-1).astype(np.float64)
    diff -= before.reshape(-1)
    return math.sqrt(float(diff.dot(diff)))


def _name(optimizer, index):
    param = optimizer.param_dict.get(index)
    if param is not None:
        return param.name
    return optimizer.idx2name.get(index, index)


def before_update(weights):
    """Device copies of the weights (dense) if a subscriber wants update norms, else None."""
    if BUS.wants('norm') and BUS.wants_norm('update'):
        # A row_sparse weight's handle is its dense equivalent, already a fresh array.
        return [w.handle.copy() if w.stype == 'default' else w.handle for w in weights]
    return None


def report_update(optimizer, indices, weights, grads, states, before):
    """Emit lr/wd (and, on request, norms and clipping) for each updated parameter.

    ``states[i]`` is the optimizer state of ``indices[i]``; ``before`` is what
    :func:`before_update` returned before the update (None: no update norms).
    """
    emit = BUS.emit
    norm_names = ()
    if BUS.wants('norm'):
        norm_names = tuple(n for n in _PARAM_NORMS if BUS.wants_norm(n)
                           and (n != 'update' or before is not None))
    wants_state_norms = BUS.wants('state_norm')
    state_wanted = {}                      # state name -> bool, asked once per call
    wants_clip = BUS.wants('clip') and optimizer.clip_gradient is not None
    lrs = optimizer._get_lrs(indices)      # one scheduler call for all the indices
    wds = optimizer._get_wds(indices)

    context, ctx = None, None
    for i, (index, weight, grad) in enumerate(zip(indices, weights, grads)):
        if weight.context is not context:   # one Updater call is usually one device
            context = weight.context
            ctx = str(context)
        param = _name(optimizer, index)
        emit('lr', 'optimizer', param, ctx, lr=lrs[i])
        emit('wd', 'optimizer', param, ctx, wd=wds[i])
        if norm_names:
            norms = {}
            for name in norm_names:
                if name == 'weight':
                    norms[name] = _norm(weight)
                elif name == 'grad':
                    norms[name] = _norm(grad)
                else:
                    norms[name] = _update_norm(weight, before[i])
            emit('norm', 'optimizer', param, ctx, **norms)
        if wants_state_norms:
            named = {}
            for name, array in optimizer.named_states(states[i], weight):
                if name not in state_wanted:
                    state_wanted[name] = BUS.wants_norm(name)
                if state_wanted[name]:
                    named[name] = _norm(array)
            if named:
                emit('state_norm', 'optimizer', param, ctx, **named)
        if wants_clip:
            rescaled = grad.asnumpy() * optimizer.rescale_grad
            clipped = float((np.abs(rescaled) > optimizer.clip_gradient).mean())
            emit('clip', 'optimizer', param, ctx, clip_gradient=optimizer.clip_gradient,
                 clipped_fraction=clipped)
