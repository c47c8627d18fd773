"""What an update reports on the instrumentation bus (source 'optimizer').

Per parameter and update: the effective ``lr`` and ``wd`` (after the scheduler and the
multipliers); if a subscriber asked for norms, the L2 norms of the weight, the gradient
as handed to the optimizer, the update (new weight − old weight), and each state array
by name; if a subscriber listens for ``clip`` and ``clip_gradient`` is set, the fraction
of gradient entries the clip changed. Nothing here runs unless ``BUS.active``.
"""
import numpy as np

from ..instrument.events import BUS

__all__ = ['before_update', 'report_update']


def _norm(array):
    if array.stype != 'default':
        array = array.data
    return float(np.sqrt((array.asnumpy().astype(np.float64) ** 2).sum()))


def _name(optimizer, index):
    param = optimizer.param_dict.get(index)
    if param is not None:
        return param.name
    return optimizer.idx2name.get(index, index)


def before_update(weights):
    """Copies of the weights if some subscriber wants update norms, else None."""
    if BUS.wants_norm('update'):
        return [w.asnumpy() for w in weights]
    return None


def report_update(optimizer, indices, weights, grads, states, before):
    """Emit lr/wd (and, on request, norms and clipping) for each updated parameter."""
    wants_norms = BUS.wants('norm')
    wants_state_norms = BUS.wants('state_norm')
    wants_clip = BUS.wants('clip') and optimizer.clip_gradient is not None
    for i, (index, weight, grad) in enumerate(zip(indices, weights, grads)):
        param, ctx = _name(optimizer, index), weight.context
        BUS.emit('lr', 'optimizer', param, ctx, lr=optimizer._get_lr(index))
        BUS.emit('wd', 'optimizer', param, ctx, wd=optimizer._get_wd(index))
        if wants_norms:
            norms = {}
            if BUS.wants_norm('weight'):
                norms['weight'] = _norm(weight)
            if BUS.wants_norm('grad'):
                norms['grad'] = _norm(grad)
            if before is not None:
                norms['update'] = float(np.sqrt(((weight.asnumpy().astype(np.float64)
                                                  - before[i]) ** 2).sum()))
            if norms:
                BUS.emit('norm', 'optimizer', param, ctx, **norms)
        if wants_state_norms:
            named = {name: _norm(array) for name, array in optimizer.named_states(states[i], weight)
                     if BUS.wants_norm(name)}
            if named:
                BUS.emit('state_norm', 'optimizer', param, ctx, **named)
        if wants_clip:
            rescaled = grad.asnumpy() * optimizer.rescale_grad
            clipped = float((np.abs(rescaled) > optimizer.clip_gradient).mean())
            BUS.emit('clip', 'optimizer', param, ctx, clip_gradient=optimizer.clip_gradient,
                     clipped_fraction=clipped)
