"""KVStoreBase, the registry of custom stores and the 'teststore'.

A key-value store keeps one value per key and lets several devices (or workers) agree
on it: ``push`` sends values that the store sums, ``pull`` copies the stored value out.
The Trainer uses it to sum gradients across devices and, optionally, to run the
optimizer on the store (``set_optimizer``).

Every store derives from :class:`KVStoreBase`; :func:`gluonedu.kvstore.factory.create`
makes one by name.
"""
import warnings

from ..base import MXNetError
from ..ndarray import NDArray

__all__ = ['KVStoreBase', 'TestStore']


class KVStoreBase:
    """The interface every key-value store offers (MXNet's ``KVStoreBase``).

    Subclass it and decorate the class with :meth:`register` to make a custom store
    that ``mx.kv.create('<classname>')`` and the Trainer accept.
    """

    #: The capability of running the optimizer on the store (``is_capable``).
    OPTIMIZER = 'optimizer'

    #: (gluonedu) Whether a pushpull of a list of keys sends every key before awaiting
    #: any answer, so that a caller does best to pass all its keys in one call.
    overlaps_keys = False

    #: Whether pushes of row_sparse gradients are summed row by row. The Trainer trains
    #: a multi-device model with sparse gradients on such a store only (MXNet: only on
    #: its built-in stores — 'local', 'device' and the distributed ones — not on custom
    #: ones).
    sums_row_sparse = False

    #: Registered custom stores, lower-cased class name -> class.
    kv_registry = {}

    def broadcast(self, key, value, out, priority=0):
        """Store ``value`` under ``key`` (rank 0's value wins) and copy it into ``out``."""
        raise NotImplementedError()

    def pushpull(self, key, value, out=None, priority=0):
        """Push ``value`` (summed over its list) and pull the result into ``out``
        (into ``value`` itself when ``out`` is None)."""
        raise NotImplementedError()

    def allreduce_flat(self, groups, update=False):
        """(gluonedu) Push the gradients that ``groups`` hold and pull the result back: a
        pushpull of each of their keys, as the Trainer's step does.

        ``groups``: :class:`~gluonedu.optimizer.flat.FlatGroup` objects, one per device,
        laying out the same keys (``group.indices``, initialised in this store) alike,
        dense — the Trainer's flat layout. ``update=False``: each group's gradients
        receive the sum. ``update=True`` (the store runs the optimizer): each group's
        weights receive the updated weights.

        This default pushes and pulls key by key (all keys in one call where the store
        sends them all before awaiting any answer, ``overlaps_keys``); a store may
        instead work on the flat buffers at once (the local stores do).
        """
        keys = list(groups[0].indices)
        grads = [[g.grads[j] for g in groups] for j in range(len(keys))]
        weights = [[g.weights[j] for g in groups] for j in range(len(keys))]
        if self.overlaps_keys:
            self.pushpull(keys, grads, out=weights if update else grads)
            return
        for key, grad_list, weight_list in zip(keys, grads, weights):
            if update:
                self.pushpull(key, grad_list, out=weight_list)
            else:
                self.pushpull(key, grad_list)

    def set_optimizer(self, optimizer):
        """Run ``optimizer`` on the store: pushes then update the stored weights."""
        raise NotImplementedError()

    @property
    def optimizer(self):
        """(gluonedu) The optimizer the store runs, or None (also for stores that do not
        say)."""
        return getattr(getattr(self, '_updater', None), 'optimizer', None)

    def is_capable(self, capability):
        """Whether the store supports ``capability`` (only ``OPTIMIZER`` is defined)."""
        raise NotImplementedError()

    def save_optimizer_states(self, fname, dump_optimizer=False):
        """Write the store's optimizer states (and the optimizer, if asked) to ``fname``."""
        raise NotImplementedError()

    def load_optimizer_states(self, fname):
        """Read optimizer states written by :meth:`save_optimizer_states`."""
        raise NotImplementedError()

    @property
    def type(self):
        """The store's type name, e.g. 'local'."""
        raise NotImplementedError()

    @property
    def rank(self):
        """This worker's rank, in ``[0, num_workers)``."""
        raise NotImplementedError()

    @property
    def num_workers(self):
        """The number of workers."""
        raise NotImplementedError()

    @staticmethod
    def register(klass):
        """Register ``klass`` so that ``create(klass.__name__.lower())`` makes one.

        Use as a class decorator; registering a name twice replaces the earlier class
        with a warning (as MXNet).
        """
        if not isinstance(klass, type):
            raise TypeError("KVStoreBase.register decorates a class, got %r" % (klass,))
        name = klass.__name__.lower()
        old = KVStoreBase.kv_registry.get(name)
        if old is not None and old is not klass:
            warnings.warn("kvstore %s.%s replaces the registered kvstore %s.%s"
                          % (klass.__module__, klass.__name__, old.__module__, old.__name__))
        KVStoreBase.kv_registry[name] = klass
        return klass


def check_push_storage(key, values):
    """Raise MXNetError for a pushed csr value: as MXNet's, the stores sum dense and
    row_sparse values only (a csr gradient is updated without a store, on one device)."""
    for v in values:
        if v.stype == 'csr':
            raise MXNetError("push to key %r: a csr value cannot be pushed (the stores sum "
                             "dense and row_sparse values, as MXNet's); push "
                             "value.tostype('default'), or train on one device, where no "
                             "store is needed" % (key,))


def optimizer_capability(capability, capable):
    """``is_capable(capability)`` of a store that can (``capable``) or cannot run the
    optimizer: ``OPTIMIZER`` is the only capability there is."""
    if capability.lower() == KVStoreBase.OPTIMIZER:
        return capable
    raise ValueError("unknown capability %r; the only capability is %r"
                     % (capability, KVStoreBase.OPTIMIZER))


@KVStoreBase.register
class TestStore(KVStoreBase):
    """A store for tests (MXNet's ``TestStore``): broadcast and pushpull, no optimizer.

    It keeps nothing: ``pushpull`` sums the values it is given and writes the sum out,
    ``broadcast`` copies the value into every output.
    """

    def broadcast(self, key, value, out, priority=0):
        for o in (out if isinstance(out, list) else [out]):
            o[:] = value

    def pushpull(self, key, value, out=None, priority=0):
        if isinstance(value, NDArray):
            if out is not None:
                for o in (out if isinstance(out, list) else [out]):
                    o[:] = value
            return
        home = value[0].context
        total = value[0].copy()
        for v in value[1:]:
            total += v.as_in_context(home)
        for o in (value if out is None else (out if isinstance(out, list) else [out])):
            o[:] = total

    @staticmethod
    def is_capable(capability):
        return optimizer_capability(capability, False)

    @property
    def type(self):
        return 'teststore'

    @property
    def rank(self):
        return 0

    @property
    def num_workers(self):
        return 1

