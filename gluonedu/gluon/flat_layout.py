"""What the Trainer delegates to for its fast path (``Trainer(..., fused=True)``).

* :func:`make_updaters` — one Updater per context: a
  :class:`~gluonedu.optimizer.FusedUpdater` (flat buffers, fused kernels) when
  ``fused`` is true, else the reference :class:`~gluonedu.optimizer.Updater`.
* :class:`FlatLayout` — the one owner of the flat layout: per context, the weights and
  gradients of the Trainer's parameters laid end to end, one
  :class:`~gluonedu.optimizer.flat.FlatGroup` per dtype. The Trainer builds it once (and
  again when a parameter's arrays are replaced) and hands it to its Updaters, which run
  the optimizer's kernels on those buffers, and to its KVStore, which reduces the
  gradients — and, with updates on the store, runs the same kernels — on them
  (``allreduce_flat``, which every store has: a local store does one array operation
  per context and step instead of one per parameter, from the first step on).
"""
from .. import optimizer as opt
from ..optimizer.flat import FlatGroup

__all__ = ['make_updaters', 'FlatLayout']


def make_updaters(optimizer, contexts, fused):
    """One Updater per context, fused or the reference."""
    if fused:
        return [opt.FusedUpdater(optimizer) for _ in contexts]
    return [opt.get_updater(optimizer) for _ in contexts]


class FlatLayout:
    """Per context and dtype, the Trainer's parameters' weights and gradients, flat.

    The parameters with a gradient (``grad_req != 'null'``), in the Trainer's order;
    built only when all of them are dense and initialised (:meth:`build` says None
    otherwise: row_sparse parameters keep their own arrays).

    ``by_dtype``: ``[[group on context 0, group on context 1, ...], ...]``, one list per
    dtype, the groups of one list laying out the same parameters alike.
    """

    def __init__(self, params, contexts):
        indices = [i for i, p in enumerate(params) if p.grad_req != 'null']
        # Parameters without a gradient now; one that gets one needs a new layout.
        self._untrained = [p for p in params if p.grad_req == 'null']
        by_dtype = {}
        for i in indices:
            by_dtype.setdefault(params[i].dtype, []).append(i)
        self.by_dtype = []
        for members in by_dtype.values():
            datas = [params[i].list_data() for i in members]
            grads = [params[i].list_grad() for i in members]
            self.by_dtype.append([FlatGroup(members, [d[c] for d in datas],
                                            [g[c] for g in grads])
                                  for c in range(len(contexts))])
        # What is_current checks: each copy's arrays (and, by its group, their views).
        self._copies = [(params[i], c, group.weights[k], group.grads[k])
                        for groups in self.by_dtype for c, group in enumerate(groups)
                        for k, i in enumerate(group.indices)]

    @classmethod
    def build(cls, params, contexts):
        """The layout of ``params``, or None where it does not apply (sparse or not yet
        initialised parameters, nothing with a gradient)."""
        trained = [p for p in params if p.grad_req != 'null']
        if not trained or any(p._stype != 'default' or p._grad_stype != 'default' or
                              p._data is None or p._deferred_init for p in trained):
            return None
        return cls(params, contexts)

    def is_current(self):
        """Whether the same parameters have a gradient, and every one's arrays are still
        the views of our buffers."""
        if any(p._grad is not None for p in self._untrained):
            return False
        for param, c, weight, grad in self._copies:
            data, grads = param._data, param._grad
            if data is None or grads is None or data[c] is not weight or grads[c] is not grad:
                return False
        for groups in self.by_dtype:
            for group in groups:
                if not group.views_held():
                    return False
        return True

    def groups_of(self, context_position):
        """The groups of one context (one per dtype), for that context's Updater."""
        return [groups[context_position] for groups in self.by_dtype]
