"""What the Trainer delegates to for its fast path (``Trainer(..., fused=True)``).

* :func:`make_updaters` — one Updater per context: a
  :class:`~gluonedu.optimizer._fused.FusedUpdater` (flat buffers, fused kernels) when
  ``fused`` is true, else the reference :class:`~gluonedu.optimizer.Updater`.
* :func:`flat_allreduce` — with several contexts, sum the gradients of each flat group
  across contexts with one array operation per context, instead of one KVStore
  push/pull per parameter. Used only where the numbers are the store's own, bit for
  bit: a 'device' store (or 'local' with two contexts), no compression, no updates on
  the store, every parameter dense and in a flat group laid out alike on every context,
  and nobody subscribed to the event bus (a subscriber gets the store's per-key
  ``kv_push``/``kv_pull`` events from the reference path). The store's own copy of the
  summed gradient is then not refreshed — nothing reads it when updates run here.
"""
from .. import optimizer as opt
from ..instrument.events import BUS
from ..kvstore.local import KVStore
from ..ndarray.ndarray import _move

__all__ = ['make_updaters', 'flat_allreduce']


def make_updaters(optimizer, contexts, fused):
    """One Updater per context, fused or the reference."""
    if fused:
        from ..optimizer._fused import FusedUpdater
        return [FusedUpdater(optimizer) for _ in contexts]
    return [opt.get_updater(optimizer) for _ in contexts]


def _matching_groups(trainer):
    """Per context, its flat groups, if every context has the same layout covering every
    parameter that has a gradient; else None."""
    from ..optimizer._fused import FusedUpdater
    updaters = trainer._updaters
    if len(updaters) < 2 or not all(isinstance(u, FusedUpdater) for u in updaters):
        return None
    layouts = [sorted((r.group for r in u.flat_runs()), key=lambda g: g.indices)
               for u in updaters]
    keys = [[(g.indices, g.weight.dtype) for g in groups] for groups in layouts]
    if not keys[0] or any(k != keys[0] for k in keys[1:]):
        return None
    covered = sorted(i for group in layouts[0] for i in group.indices)
    wanted = [i for i, p in enumerate(trainer._params) if p.grad_req != 'null']
    if covered != wanted:
        return None
    for c, groups in enumerate(layouts):
        for group in groups:
            params = [trainer._params[i] for i in group.indices]
            if not group.is_current([p._data[c] for p in params], [p._grad[c] for p in params]):
                return None
    return layouts


def flat_allreduce(trainer):
    """Sum gradients across contexts on the flat buffers; False if not applicable."""
    kv = trainer._kvstore
    if BUS.active or type(kv) is not KVStore or trainer._update_on_kvstore:
        return False
    if kv._compression is not None or kv._updater is not None:
        return False
    if not (kv.type == 'device' or (kv.type == 'local' and len(trainer._contexts) <= 2)):
        return False
    if any(p.grad_req != 'null' and (p._grad_stype != 'default' or p._stype != 'default')
           for p in trainer._params):
        return False
    layouts = _matching_groups(trainer)
    if layouts is None:
        return False
    contexts = trainer._contexts
    for per_context in zip(*layouts):
        home = contexts[0]
        total = per_context[0].grad.copy()
        for ctx, group in zip(contexts[1:], per_context[1:]):
            total += _move(group.grad, ctx, home, copy=False)  # ((g0 + g1) + g2) + ...
        for ctx, group in zip(contexts, per_context):
            group.grad[...] = _move(total, home, ctx, copy=False)
    return True
