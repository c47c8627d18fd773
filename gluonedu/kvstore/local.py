"""The single-machine stores 'local' and 'device' (MXNet 1.9.1's KVStoreLocal).

One value per key lives in the store. A push of a list of values (one per device) sums
them — the *merged* value — and then either

* replaces the stored value with the merged one (no updater: the store is an
  all-reduce), or
* calls ``updater(key, merged, stored)``, which changes the stored weight in place (an
  optimizer set with :meth:`KVStore.set_optimizer` runs on the store).

A pull copies the stored value into one or several outputs, on any contexts.

:meth:`KVStore.allreduce_flat` does a pushpull of many keys at once on flat buffers (the
Trainer's layout, :mod:`gluonedu.optimizer.flat`): the same sums, compression, stored
values and events, one array operation per device instead of one per key; with an
optimizer on the store, its (fused) updater runs on the store's flat copies.

Where the sums happen (and the numbers, bit for bit, as MXNet):

* 'local' keeps every value in CPU memory (``cpu_pinned(0)``, as MXNet) and adds
  ``v0 + ((v1 + v2) + v3 + v4) + ((v5 + v6) + v7 + v8) + …`` — MXNet's CPU reducer
  takes the first value and adds the others in groups of four;
* 'device' keeps each key on the context its value was initialised on and adds the
  values one after another, ``((v0 + v1) + v2) + …``.
  On CPU contexts both give the same numbers for two devices.

Instrumentation (:data:`gluonedu.instrument.events.BUS`, source ``'kvstore'``): each key
of a push emits ``kv_push`` (``bytes``: what one device sends uncompressed — ``n ×
itemsize`` for a dense value, stored rows plus row ids for a row-sparse one; ``devices``;
with compression also ``compressed_bytes``, ``ceil(n/16) × 4``, and ``residual_norm``,
the L2 norm over all of that key's residuals after the push); each key of a pull emits
``kv_pull`` (``bytes``, ``devices``: the number of outputs). The residual norm is
computed whenever a subscriber wants ``kv_push`` events: it is one pass over arrays the
quantiser has just written, cheaper than the quantisation itself. With nobody
subscribed a call costs one ``BUS.active`` check.

Where gluonedu differs from MXNet 1.9.1 on purpose (each MXNet behaviour is an artefact
of its C++ engine, and no training code relies on it):

* the store keeps a *copy* of a pushed value; MXNet may alias the pushed array or its
  merge buffer, so that later writes to them change what it stores;
* a push whose shape differs from the stored shape raises MXNetError; MXNet accepts
  it from a single device and silently replaces the stored array;
* an updater receives string keys as ``str``; MXNet hands it ``bytes``;
* 2-bit compression of a row-sparse, float16 or float64 gradient raises MXNetError;
  MXNet quantises such data wrongly (row-sparse rows land on the first rows);
* the 'device' store keeps and sums each key on the context it was initialised on;
  MXNet picks a merge device by load (same numbers, on CPU contexts bit for bit).
"""
import numbers
import pathlib
from collections import OrderedDict
from types import MappingProxyType

import numpy as np

from .. import _backend
from ..base import MXNetError
from ..context import cpu_pinned
from ..instrument.events import BUS
from ..ndarray import NDArray
from ..files import atomic_write
from ..ndarray.sparse import RowSparseNDArray
from ..optimizer.flat import CPU_REDUCER, LEFT_TO_RIGHT, FlatGroup, StoreSum, sum_in_order
from ..optimizer.serialization import loads_states
from ..optimizer.updater import state_mismatch, state_template
from .base import KVStoreBase, check_push_storage, optimizer_capability
from .compression import compressed_nbytes, create_compression

__all__ = ['KVStore']

_SOURCE = 'kvstore'


def _nbytes(value):
    """Bytes one device sends for ``value`` without compression."""
    if isinstance(value, RowSparseNDArray):
        return value.data.handle.nbytes + value.indices.handle.nbytes
    return value.size * np.dtype(value.dtype).itemsize


def _shared_memory(a, b):
    """Whether contexts ``a`` and ``b`` address the same memory (the host's, or one GPU's)."""
    return a == b or (a.device_type != 'gpu' and b.device_type != 'gpu')


def _host_or_copy(raw, src, dst):
    """The array ``raw`` (living on ``src``) as an array of ``dst``: itself between host
    contexts (CPU memory is shared), else a copy."""
    if src.device_type != 'gpu' and dst.device_type != 'gpu':
        return raw
    return NDArray(raw, src).copyto(dst).handle


def _as_list(value, what):
    values = [value] if isinstance(value, NDArray) else list(value)
    for v in values:
        if not isinstance(v, NDArray):
            raise TypeError("%s must be NDArrays (or lists of them), got %s"
                            % (what, type(v).__name__))
    return values


class KVStore(KVStoreBase):
    """A key-value store on one machine: ``'local'``, ``'device'`` (and MXNet's aliases).

    Create it with ``mx.kv.create('local')``; see the module docstring for what push
    and pull do and where the sums happen.
    """

    sums_row_sparse = True

    def __init__(self, kvstore_type='local'):
        self._type = kvstore_type
        self._store = {}           # key -> NDArray / RowSparseNDArray
        self._key_type = None      # int or str: fixed by the first key, as MXNet
        self._updater = None
        self._compression = None
        self._flat = {}            # keys -> FlatGroup of their values (allreduce_flat)
        # 'device'-style stores sum on the devices, one value after another.
        self._sums_on_device = 'device' in kvstore_type

    # ------------------------------------------------------------------ properties
    @property
    def type(self):
        """The store's type, e.g. 'local' or 'device'."""
        return self._type

    @property
    def rank(self):
        """Always 0, as a single-machine store has one worker."""
        return 0

    @property
    def num_workers(self):
        """Always 1."""
        return 1

    @property
    def gradient_compression(self):
        """The compression object (``None`` without compression); its ``residual(key, i)``
        shows what device ``i`` still owes the store (a gluonedu extra, for teaching)."""
        return self._compression

    def is_capable(self, capability):
        """True for ``KVStoreBase.OPTIMIZER``: the optimizer can run on this store."""
        return optimizer_capability(capability, True)

    # ------------------------------------------------------------------ keys and values
    def _check_key(self, key):
        if isinstance(key, numbers.Integral) and not isinstance(key, bool):
            key, kind = int(key), int
        elif isinstance(key, str):
            kind = str
        else:
            raise TypeError("kvstore keys are ints or strings, got %r" % (key,))
        if self._key_type is None:
            self._key_type = kind
        elif self._key_type is not kind:
            raise MXNetError("mixed key types are not allowed: this store uses %s keys, got %r"
                             % (self._key_type.__name__, key))
        return key

    def _groups(self, key, value, what):
        """[(key, [arrays])] from MXNet's key/value forms; a repeated key's arrays join."""
        grouped = OrderedDict()
        if isinstance(key, (list, tuple)):
            if isinstance(value, NDArray) or len(value) != len(key):
                raise MXNetError("%d keys need %d %s (one NDArray or list of NDArrays per key)"
                                 % (len(key), len(key), what))
            pairs = [(self._check_key(k), _as_list(v, what)) for k, v in zip(key, value)]
        else:
            pairs = [(self._check_key(key), _as_list(value, what))]
        for k, arrays in pairs:
            grouped.setdefault(k, []).extend(arrays)
        return list(grouped.items())

    def _stored(self, key):
        stored = self._store.get(key)
        if stored is None:
            raise MXNetError("key %r has not been initialised in this kvstore: call "
                             "kv.init(%r, value) (or kv.broadcast) first" % (key, key))
        return stored

    def _home(self, value):
        """Where a key initialised with ``value`` lives."""
        return value.context if self._sums_on_device else cpu_pinned(0)

    # ------------------------------------------------------------------ init / broadcast
    def init(self, key, value):
        """Store an initial value for each key (a key can be initialised only once)."""
        for k, values in self._groups(key, value, 'values'):
            if k in self._store:
                raise MXNetError("duplicate init of key %r: kv.init and kv.broadcast may be "
                                 "called once per key; use push to change its value" % (k,))
            if len(values) != 1:
                raise MXNetError("init takes one value per key, got %d for key %r"
                                 % (len(values), k))
            self._store[k] = values[0].copyto(self._home(values[0]))

    def broadcast(self, key, value, out, priority=0):
        """Initialise ``key`` with ``value``, then pull it into ``out`` (MXNet's broadcast)."""
        self.init(key, value)
        self.pull(key, out=out, priority=priority)

    # ------------------------------------------------------------------ push
    def push(self, key, value, priority=0):
        """Sum the values pushed for each key and store (or, with an updater, apply) them.

        value : NDArray, list of NDArray (one per device), or a list of those per key.
        """
        listening = BUS.active
        for k, values in self._groups(key, value, 'values'):
            merged = self._merge(k, values)
            stored = self._store[k]
            if self._updater is not None:
                self._updater(k, merged, stored)
            elif merged.stype == stored.stype == 'default':
                stored.handle[...] = merged.handle
            else:  # row-sparse: the merged rows become the stored value (as MXNet)
                self._store[k] = merged
            if listening and BUS.wants('kv_push'):
                self._emit_push(k, values)

    def _merge(self, key, values):
        """The sum of ``values`` on the key's home context (a new array)."""
        stored = self._stored(key)
        check_push_storage(key, values)
        for v in values:
            if v.shape != stored.shape:
                raise MXNetError("push to key %r: a value of shape %s does not match the "
                                 "stored shape %s" % (key, v.shape, stored.shape))
        if self._compression is not None:
            values = [self._compression.quantize(key, i, v) for i, v in enumerate(values)]
        home = stored.context
        dtype = np.dtype(stored.dtype)
        if all(v.stype == 'row_sparse' for v in values):
            return self._sum_row_sparse(values, home, dtype)
        moved = [v.as_in_context(home).tostype('default').handle.astype(dtype, copy=False)
                 for v in values]
        return NDArray(sum_in_order(moved, self._sum_order()), home)

    def _sum_order(self):
        """The order this store adds dense values in (:mod:`gluonedu.optimizer.flat`)."""
        if self._sums_on_device or self._compression is not None:
            return LEFT_TO_RIGHT
        return CPU_REDUCER

    @staticmethod
    def _sum_row_sparse(values, home, dtype):
        moved = [v.copyto(home) for v in values]
        xp = _backend.array_module(moved[0].context)
        indices = xp.concatenate([v.indices.handle for v in moved])
        rows = xp.concatenate([v.data.handle.astype(dtype, copy=False) for v in moved])
        unique, inverse = xp.unique(indices, return_inverse=True)
        summed = xp.zeros((unique.shape[0],) + moved[0].shape[1:], dtype=dtype)
        xp.add.at(summed, inverse.reshape(-1), rows)
        return RowSparseNDArray(summed, unique.astype(np.int64), moved[0].shape, home)

    def _emit_push(self, key, values):
        info = {'bytes': float(_nbytes(values[0])), 'devices': float(len(values))}
        if self._compression is not None:
            info['compressed_bytes'] = float(compressed_nbytes(values[0].size))
            info['residual_norm'] = self._compression.residual_norm(key)
        BUS.emit('kv_push', _SOURCE, param=key, **info)

    # ------------------------------------------------------------------ flat buffers
    def allreduce_flat(self, groups, update=False):
        """Push the gradients that ``groups`` hold and pull the result back: what a
        pushpull of each of their keys does, with one array operation per device.

        ``groups``: FlatGroups (:mod:`gluonedu.optimizer.flat`), one per device, laying
        out the same keys (``group.indices``, initialised in this store) alike — the
        Trainer's. The gradients are summed in this store's own order, 2-bit compressed
        first if compression is set, and each key emits the ``kv_push`` and ``kv_pull``
        events its pushpull would. ``update=False``: each group's gradients receive the
        sum, which the store also keeps as the keys' values. ``update=True`` (an
        optimizer set on the store): the store's optimizer updates its copy of the
        weights with the sum — over flat buffers too when it is a FusedUpdater
        (``set_optimizer(..., fused=True)``) — and each group's weights receive them.

        The store keeps its copies of these keys laid out alike (views of one buffer);
        keys it cannot lay out so (another home context or dtype, row_sparse values) are
        pushed and pulled one by one.
        """
        keys = groups[0].indices
        if update and self._updater is None:
            raise AssertionError("allreduce_flat(update=True) needs an optimizer on the "
                                 "store: call set_optimizer(optimizer) first")
        flat = self._flat_copy(keys, groups[0])
        if flat is None or any(g.indices != keys for g in groups) or \
                (update and not hasattr(self._updater, 'update_reduced')):
            # (an updater function set with _set_updater takes one key at a time)
            super().allreduce_flat(groups, update)
            return
        values = [g.grad for g in groups]
        if self._compression is not None:   # on each device, as pushes are
            shapes = [w.shape for w in flat.weights]
            values = [self._compression.quantize_flat(keys, i, NDArray(g.grad, g.context),
                                                      shapes) for i, g in enumerate(groups)]
        values = [_host_or_copy(v, g.context, flat.context) for v, g in zip(values, groups)]
        # The sum is declared (StoreSum): the devices whose memory is the store's receive
        # the result in the pass that computes it; the others get a copy afterwards.
        near = [g for g in groups if _shared_memory(g.context, flat.context)]
        far = [g for g in groups if not _shared_memory(g.context, flat.context)]
        if update:
            self._updater.update_reduced(flat, StoreSum(values, self._sum_order(),
                                                        [g.weight for g in near]))
            targets = [g.weight for g in far]
        else:   # the store keeps the sum as the keys' values
            StoreSum(values, self._sum_order(),
                     [flat.weight] + [g.grad for g in near]).write(flat)
            targets = [g.grad for g in far]
        for target, g in zip(targets, far):
            target[...] = _host_or_copy(flat.weight, flat.context, g.context)
        if BUS.active:
            self._emit_flat(keys, groups, flat)

    def _flat_copy(self, keys, like):
        """The store's copies of ``keys`` laid out as ``like`` (a FlatGroup: their values
        as weights, a buffer for their sum as gradients), or None if they cannot be."""
        stored = [self._store.get(k) for k in keys]
        flat = self._flat.get(keys)
        if flat is not None and flat.is_current(stored, flat.grads):
            return flat
        if any(v is None or v.stype != 'default' for v in stored) or \
                len({v.context for v in stored}) != 1 or len({v.dtype for v in stored}) != 1 \
                or [v.size for v in stored] != like.sizes.tolist():
            return None
        flat = FlatGroup(keys, stored, [v.zeros_like() for v in stored])
        for old in [k for k in self._flat if set(k) & set(keys)]:
            del self._flat[old]
        self._flat[keys] = flat
        if hasattr(self._updater, 'use_flat_groups'):
            self._updater.use_flat_groups(list(self._flat.values()))
        return flat

    def _emit_flat(self, keys, groups, flat):
        """The kv_push and kv_pull events of each key, as its pushpull emits them."""
        for key, value in zip(keys, flat.weights):
            if BUS.wants('kv_push'):
                self._emit_push(key, [value] * len(groups))
            if BUS.wants('kv_pull'):
                BUS.emit('kv_pull', _SOURCE, param=key, bytes=float(_nbytes(value)),
                         devices=float(len(groups)))

    # ------------------------------------------------------------------ pull
    def pull(self, key, out=None, priority=0, ignore_sparse=True):
        """Copy each key's stored value into its output(s).

        Parameters
        ----------
        key : int, str, or list of them
        out : NDArray, list of NDArray (e.g. one per device), or a list of those per key
        priority : int, default 0
        ignore_sparse : bool, default True
            Leave row-sparse outputs untouched (use :meth:`row_sparse_pull` for them);
            with False they receive every stored row.
        """
        if out is None:
            raise AssertionError("pull needs out=: the NDArray(s) to copy the value into")
        listening = BUS.active
        for k, outs in self._groups(key, out, 'outputs'):
            stored = self._stored(k)
            written = 0
            for o in outs:
                if o.shape != stored.shape:
                    raise MXNetError("pull from key %r: the output's shape %s does not match "
                                     "the stored shape %s" % (k, o.shape, stored.shape))
                if o.stype == 'row_sparse':
                    if ignore_sparse:
                        continue
                    o[:] = stored.tostype('row_sparse')
                else:
                    o[:] = stored
                written += 1
            if listening and BUS.wants('kv_pull'):
                BUS.emit('kv_pull', _SOURCE, param=k, bytes=float(_nbytes(stored)),
                         devices=float(written))

    def pushpull(self, key, value, out=None, priority=0):
        """Push ``value``, then pull the result into ``out`` (into ``value`` if None)."""
        self.push(key, value, priority=priority)
        self.pull(key, out=value if out is None else out, priority=priority,
                  ignore_sparse=False)

    def row_sparse_pull(self, key, out=None, priority=0, row_ids=None):
        """Pull only the rows ``row_ids`` of a row-sparse stored value.

        Each output (a RowSparseNDArray) receives exactly the requested rows — unique and
        sorted; rows the store does not hold come back as zeros. With one ``row_ids``
        and several outputs, all outputs receive the same rows.
        """
        if out is None or row_ids is None:
            raise AssertionError("row_sparse_pull needs out= (RowSparseNDArrays) and row_ids=")
        if isinstance(row_ids, NDArray):
            row_ids = [row_ids]
        if not isinstance(row_ids, list):
            raise AssertionError("row_ids should be an NDArray or a list of NDArrays")
        first_out, copy_to_rest = out, False
        if len(row_ids) == 1 and isinstance(out, list):
            first_out, copy_to_rest = [out[0]], True
        out_pairs = [(k, o) for k, outs in self._groups(key, first_out, 'outputs') for o in outs]
        id_pairs = [r for _, ids in self._groups(key, row_ids, 'row_ids') for r in ids]
        if len(out_pairs) != len(id_pairs):
            raise AssertionError("the number of row_ids (%d) doesn't match the number of "
                                 "outputs (%d)" % (len(id_pairs), len(out_pairs)))
        listening = BUS.active
        for (k, o), ids in zip(out_pairs, id_pairs):
            rows = self._rows_of(k, o, ids)
            o[:] = rows
            if listening and BUS.wants('kv_pull'):
                BUS.emit('kv_pull', _SOURCE, param=k, bytes=float(_nbytes(rows)),
                         devices=float(len(out) if copy_to_rest else 1))
        if copy_to_rest:
            for o in out[1:]:
                out[0].copyto(o)

    def _rows_of(self, key, out, row_ids):
        stored = self._stored(key)
        if stored.stype != 'row_sparse':
            raise MXNetError("row_sparse_pull needs a row_sparse value under key %r, but the "
                             "store holds a dense one; use pull instead" % (key,))
        if out.stype != 'row_sparse':
            raise MXNetError("row_sparse_pull writes into RowSparseNDArrays, got a %s output "
                             "for key %r; use pull for dense outputs" % (out.stype, key))
        xp = _backend.array_module(stored.context)
        wanted = np.unique(row_ids.asnumpy().astype(np.int64).reshape(-1))
        if wanted.size and (wanted[0] < 0 or wanted[-1] >= stored.shape[0]):
            raise MXNetError("row_sparse_pull: row ids must lie in [0, %d), got %s"
                             % (stored.shape[0], wanted.tolist()))
        wanted = xp.asarray(wanted)
        data = xp.zeros((wanted.shape[0],) + stored.shape[1:], dtype=stored.dtype)
        held = stored.indices.handle
        pos = xp.searchsorted(held, wanted)
        found = pos < held.shape[0]
        found[found] = held[pos[found]] == wanted[found]
        data[found] = stored.data.handle[pos[found]]
        return RowSparseNDArray(data, wanted, stored.shape, stored.context)

    # ------------------------------------------------------------------ optimizer
    def set_optimizer(self, optimizer, fused=False):
        """Run ``optimizer`` on the store: every push then updates the stored weight with
        an :class:`~gluonedu.optimizer.Updater` (``updater(key, merged_grad, weight)``).

        ``fused`` (gluonedu only): a FusedUpdater, which runs the optimizer's fused
        kernels over the store's flat copies in :meth:`allreduce_flat` (the Trainer asks
        for it unless created with ``fused=False``); the numbers are the same.
        """
        if fused:
            from ..optimizer import FusedUpdater
            self._set_updater(FusedUpdater(optimizer))
        else:
            from ..optimizer import get_updater
            self._set_updater(get_updater(optimizer))


    @property
    def optimizer_states(self):
        """(gluonedu) What the store's optimizer keeps, ``{key: state}`` (read-only; a key
        appears with its first update): empty without :meth:`set_optimizer`.
        ``Trainer.optimizer_states`` names the arrays of one parameter's state."""
        return MappingProxyType(getattr(self._updater, 'states', {}))

    def _set_updater(self, updater):
        """Call ``updater(key, merged, stored)`` on every push instead of storing the sum."""
        self._updater = updater

    def _updater_with_states(self, action):
        if self._updater is None:
            raise AssertionError("this kvstore has no optimizer: call set_optimizer(...) "
                                 "before %s optimizer states" % action)
        if not hasattr(self._updater, 'get_states'):
            raise TypeError("the updater set with _set_updater has no states to %s; use "
                            "set_optimizer(optimizer) for a store with optimizer states" % action)
        return self._updater

    def save_optimizer_states(self, fname, dump_optimizer=False):
        """Write the optimizer states (and the optimizer, if ``dump_optimizer``) to ``fname``.

        The file is written atomically in the pickle-free format of
        :mod:`gluonedu.optimizer.serialization`.
        """
        states = self._updater_with_states('save').get_states(dump_optimizer)
        atomic_write(fname, lambda f: f.write(states))

    def load_optimizer_states(self, fname):
        """Read states written by :meth:`save_optimizer_states` (validated before use:
        each key's state must fit the value stored under it)."""
        updater = self._updater_with_states('load')
        states, optimizer = loads_states(pathlib.Path(fname))   # read member by member
        for key, state in states.items():
            stored = self._store.get(key)
            if stored is None:
                continue   # a key this store has not been given yet: checked at its update
            template = state_template(optimizer or updater.optimizer, key, stored.shape,
                                      stored.dtype, stored.stype)
            problem = state_mismatch(state, template)
            if problem:
                raise MXNetError("cannot load optimizer states from %s: the state of key %r "
                                 "does not fit its value: %s. Nothing was changed."
                                 % (fname, key, problem))
        updater.restore(states, optimizer)

    # ------------------------------------------------------------------ compression
    def set_gradient_compression(self, compression_params):
        """Compress pushes: ``{'type': '2bit', 'threshold': t}`` (threshold default 0.5).

        As MXNet, only 'device' (and distributed) stores accept compression; see
        :mod:`gluonedu.kvstore.compression` for the quantisation and its residuals.
        """
        if 'device' not in self.type and 'dist' not in self.type:
            raise MXNetError("gradient compression is not supported for a %r kvstore; create "
                             "the store with 'device' (Trainer(..., kvstore='device')) to "
                             "compress gradients" % (self.type,))
        compression = create_compression(compression_params)
        if self._compression is None:
            self._compression = compression
        else:  # as MXNet: new parameters, residuals kept
            self._compression.set_params(compression.threshold)

    # ------------------------------------------------------------------ synchronisation
    def barrier(self):
        """Wait for all workers: nothing to wait for on one machine."""

    def _barrier(self):
        """MXNet's name of :meth:`barrier`."""

    def _send_command_to_servers(self, head, body):
        """Send a command to the servers: a single-machine store has none."""
