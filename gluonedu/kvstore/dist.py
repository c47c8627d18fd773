"""The distributed stores 'dist_sync', 'dist_device_sync' and 'dist_async', on Ray.

A training run has ``num_workers`` *workers* — processes running the user's script,
each with a rank — and ``num_servers`` *servers* — Ray actors
(:class:`~gluonedu.kvstore.dist_server.KVServer`) that hold the values. A worker's
store (:class:`DistKVStore`) sends each key to its servers:

* a key of fewer than ``MXNET_KVSTORE_BIGARRAY_BOUND`` elements (default 1,000,000)
  lives whole on one server (``key % num_servers`` for ints, a CRC of the name for
  strings); a larger dense key is flattened and cut into ``num_servers`` contiguous
  pieces, one per server, each updated by its server's optimizer independently (so an
  optimizer must update element by element — every built-in one except LARS/LAMB's
  layer-wise norms does);
* ``init`` (and ``broadcast``): rank 0's value is stored, then all workers meet at a
  barrier, so every worker pulls rank 0's value;
* ``push``: the worker first sums its own devices' values (``v0 + v1 + …`` on the
  host), then sends that sum — 2-bit compressed if ``set_gradient_compression`` was
  called, with the residual kept on the worker (one per key) — to the key's servers,
  and returns without waiting for their answer (Ray copies the value when it is sent,
  so the caller may overwrite its arrays at once);
* the worker collects a push's answer before anything that must see the push: the
  next ``pull``, ``pushpull``, ``row_sparse_pull`` or ``push`` of that key, and every
  ``barrier``, ``set_optimizer``, ``set_gradient_compression``,
  ``save_optimizer_states``/``load_optimizer_states`` (and the end of the process). So a
  pull always sees this worker's earlier pushes of its key: the order is made by the
  worker, not left to Ray (a server is an asyncio actor, where a pull sent after a
  push may start before it). An error a push met on a server is raised there, naming
  the key;
* requests travel in batches: a push, pull or pushpull of several keys makes one Ray
  call per server that holds any of them, and sends them all before waiting for an
  answer. The Trainer passes all its dense keys to one pushpull, so a step costs about
  one round trip per server instead of one per parameter;
* dist_sync: a push is applied once every worker's push of that key has arrived (summed
  in rank order); a pull after it returns the new value. dist_device_sync is the same
  store (MXNet's variant differs only in where a GPU worker sums its devices);
* dist_async: every push is applied on arrival. The server answers how many updates
  the key received since this worker last pulled it; the worker emits that as a
  ``staleness`` event (with the step in which the push was sent) when it collects the
  answer;
* ``set_optimizer`` ships the optimizer to every server (rank 0 sends it, then a
  barrier). Each Parameter's current ``lr_mult``/``wd_mult`` travel with it;
  changing them later does not reach the servers (as in MXNet, whose servers see no
  Parameters at all).

Instrumentation (source ``'kvstore'``, ``context`` = the worker, ``'worker0'``,
``'worker1'``, …): ``kv_push`` when a push is sent (``bytes``, ``devices``; with
compression ``compressed_bytes`` and ``residual_norm``), ``kv_pull`` (``bytes``,
``devices``) and, for dist_async, ``staleness`` (``versions_behind``: for a key split
over several servers, the largest over its pieces).

Faults: a call that gets no answer within ``GLUONEDU_DIST_TIMEOUT`` seconds (default
120; one bound for all the answers a call waits for) raises MXNetError; when the
launcher sees a worker fail it aborts the servers, and every other worker's next (or
waiting) call raises :class:`DistAborted` naming the failed worker. A worker the
launcher started also sends server 0 a heartbeat every few seconds from a thread of its
own, for as long as its process runs, so that the launcher can name a worker that stops
answering (frozen, stopped with SIGSTOP) before the others time out.
"""
import atexit
import copy
import os
import sys
import threading
import time
import weakref
import zlib
from dataclasses import dataclass

import numpy as np

from .. import _backend
from ..base import MXNetError
from ..context import cpu
from ..instrument.events import BUS
from ..ndarray import NDArray
from ..files import atomic_write
from ..ndarray.sparse import RowSparseNDArray
from ..optimizer import get_updater
from ..optimizer.optimizer import merge_update_counts
from ..optimizer.serialization import dumps_states, loads_states
from .base import KVStoreBase, check_push_storage, optimizer_capability
from .compression import compressed_nbytes, create_compression
from .local import KVStore
from .ray_cluster import (WorkerEnv, connect_ray, heartbeat_seconds, import_ray,
                          timeout_seconds)
from .wire import DistAborted, pack_2bit, to_device, to_host

__all__ = ['DistKVStore', 'DistAborted', 'SYNC_TYPES', 'ASYNC_TYPES', 'create_dist',
           'server_name', 'worker_scope']

SYNC_TYPES = ('dist_sync', 'dist_device_sync', 'dist_sync_device', 'dist')
ASYNC_TYPES = ('dist_async', 'dist_device_async', 'dist_async_device')

_SOURCE = 'kvstore'
_BIGARRAY_BOUND = 1000 * 1000

#: The worker this process plays inside a Ray task (set by local_cluster's runner).
_CURRENT_WORKER = [None]


def server_name(i):
    """The Ray actor name of server ``i`` (inside the run's namespace)."""
    return 'gluonedu-kvserver-%d' % i


class worker_scope:
    """``with worker_scope(env):`` — stores created inside belong to worker ``env``."""

    def __init__(self, env):
        self.env = env

    def __enter__(self):
        self._saved = _CURRENT_WORKER[0]
        _CURRENT_WORKER[0] = self.env
        return self.env

    def __exit__(self, *exc):
        _CURRENT_WORKER[0] = self._saved


def create_dist(name):
    """A :class:`DistKVStore` of type ``name`` for the worker this process plays."""
    env = _CURRENT_WORKER[0] or WorkerEnv.from_environ()
    if env is None:
        raise MXNetError(
            "kvstore %r needs a cluster of workers and servers, and this process is not one "
            "of its workers. Run the script with the launcher, e.g. `python -m gluonedu.launch "
            "-n 2 python train.py`, or, in a notebook, run a function on workers with "
            "`with gluonedu.kvstore.local_cluster() as cluster: cluster.run(fn, num_workers=2)`."
            % (name,))
    return DistKVStore(name, env)


@dataclass(frozen=True)
class _Piece:
    """Where one piece of a key lives: ``server``, under ``shard``, flat ``[start, stop)``."""
    server: int
    shard: str
    start: int
    stop: int


@dataclass(frozen=True)
class _SentPush:
    """The pushes of one ``push`` call, sent but not yet answered."""
    keys: tuple
    handles: list      # per key, per piece: (ref, position), see DistKVStore._send
    step: int          # BUS.step when sent (the staleness events carry it)
    serial: int        # the order of sending


@dataclass(frozen=True)
class _Layout:
    shape: tuple
    dtype: object
    stype: str
    pieces: tuple

    @property
    def split(self):
        return len(self.pieces) > 1


def _bigarray_bound():
    return int(os.environ.get('MXNET_KVSTORE_BIGARRAY_BOUND', _BIGARRAY_BOUND))


def _home_server(key, num_servers):
    if isinstance(key, int):
        return key % num_servers
    return zlib.crc32(key.encode('utf-8')) % num_servers


class DistKVStore(KVStoreBase):
    """A worker's handle on a distributed store (``mx.kv.create('dist_sync')``, …).

    See the module docstring for what each operation does across the cluster.
    """

    sums_row_sparse = True

    #: A pushpull of a list of keys sends every request before awaiting any (so the
    #: Trainer passes all its keys in one call).
    overlaps_keys = True

    def __init__(self, kvstore_type, worker):
        if kvstore_type not in SYNC_TYPES + ASYNC_TYPES:
            raise ValueError("unknown distributed kvstore type %r; the distributed types are: %s"
                             % (kvstore_type, ', '.join(SYNC_TYPES + ASYNC_TYPES)))
        self._type = kvstore_type
        self._worker = worker
        self._sync = kvstore_type in SYNC_TYPES
        self._timeout = timeout_seconds()
        self._ray = import_ray()
        connect_ray(worker.address)
        self._servers = list(worker.servers) if worker.servers else \
            [self._find_server(i) for i in range(worker.num_servers)]
        self._get([s.set_mode.remote(self._sync) for s in self._servers])
        self._keys = KVStore('local')   # only for its key checking and grouping
        self._layouts = {}              # key -> _Layout
        self._versions = {}             # key -> [version per piece] of the last pull
        self._compression = None
        self._updater = None            # the worker's copy of the servers' optimizer
        self._context = 'worker%d' % worker.rank
        self._pending = {}              # key -> its _SentPush not yet answered
        self._sent_pushes = 0           # serial number of the last _SentPush
        _watch_at_exit(self)
        if worker.servers is None:      # a process of its own (the launcher's worker)
            _start_heartbeat(self._servers[0], worker)

    def _find_server(self, i):
        ray = self._ray
        try:
            return ray.get_actor(server_name(i), namespace=self._worker.group)
        except ValueError:
            raise MXNetError("server %d of run %r is not running on the Ray cluster at %s; "
                             "start workers with `python -m gluonedu.launch` (which starts the "
                             "servers) or inside local_cluster()"
                             % (i, self._worker.group, self._worker.address)) from None

    def _get(self, refs, what=None, deadline=None):
        """ray.get with the run's timeout, turning Ray's errors into MXNetErrors.

        ``what`` names a deferred request (``'a push of key 3'``) in the messages;
        ``deadline`` (``time.monotonic()``) bounds several waits together.
        """
        exceptions = self._ray.exceptions
        timeout = self._timeout if deadline is None else max(deadline - time.monotonic(), 0)
        try:
            return self._ray.get(refs, timeout=timeout)
        except exceptions.GetTimeoutError:
            raise MXNetError("worker %d got no answer from the servers%s within %.0f s; another "
                             "worker may have stopped (raise GLUONEDU_DIST_TIMEOUT for slow "
                             "steps)" % (self.rank, ' to ' + what if what else '',
                                         self._timeout)) from None
        except exceptions.RayTaskError as err:
            cause = getattr(err, 'cause', None)
            if isinstance(cause, DistAborted):
                raise DistAborted("worker %d stops: %s" % (self.rank, cause)) from None
            failed = '%s failed on the server: ' % what if what else ''
            if isinstance(cause, MXNetError):
                raise MXNetError(failed + str(cause)) from None
            raise MXNetError("%sa server failed: %s" % (failed, cause or err)) from None
        except exceptions.RayActorError as err:
            raise DistAborted("worker %d stops: a server of this run is gone (the run was "
                              "stopped, or its process died): %s"
                              % (self.rank, str(err).splitlines()[0])) from None

    # ------------------------------------------------------------------ properties
    @property
    def type(self):
        """The store's type, e.g. 'dist_sync'."""
        return self._type

    @property
    def rank(self):
        """This worker's rank, in ``[0, num_workers)``."""
        return self._worker.rank

    @property
    def num_workers(self):
        """The number of workers in the run."""
        return self._worker.num_workers

    @property
    def num_servers(self):
        """The number of server actors."""
        return self._worker.num_servers

    @property
    def gradient_compression(self):
        """The worker's compression object (its residuals), or None."""
        return self._compression

    def is_capable(self, capability):
        """True for ``KVStoreBase.OPTIMIZER``: the servers run the optimizer."""
        return optimizer_capability(capability, True)

    # ------------------------------------------------------------------ layout
    def _layout_of(self, key, value):
        stype = value.stype
        size = int(np.prod(value.shape)) if value.shape else 1
        num = self.num_servers
        if stype == 'default' and num > 1 and size >= _bigarray_bound():
            bounds = np.linspace(0, size, num + 1).astype(int)
            pieces = tuple(_Piece(i, '%r/%d' % (key, i), int(bounds[i]), int(bounds[i + 1]))
                           for i in range(num))
        else:
            pieces = (_Piece(_home_server(key, num), repr(key), 0, size),)
        return _Layout(tuple(value.shape), np.dtype(value.dtype), stype, pieces)

    def _layout(self, key):
        layout = self._layouts.get(key)
        if layout is None:
            raise MXNetError("key %r has not been initialised in this kvstore: call "
                             "kv.init(%r, value) (or kv.broadcast) first" % (key, key))
        return layout

    # ------------------------------------------------------------------ init / broadcast
    def init(self, key, value):
        """Store rank 0's value of each key; every worker then waits at a barrier."""
        refs = []
        for k, values in self._keys._groups(key, value, 'values'):
            if k in self._layouts:
                raise MXNetError("duplicate init of key %r: kv.init and kv.broadcast may be "
                                 "called once per key; use push to change its value" % (k,))
            if len(values) != 1:
                raise MXNetError("init takes one value per key, got %d for key %r"
                                 % (len(values), k))
            layout = self._layout_of(k, values[0])
            self._layouts[k] = layout
            self._versions[k] = [0] * len(layout.pieces)
            if self.rank == 0:
                refs += self._send_init(k, layout, values[0])
        self._get(refs)
        self.barrier()

    def _send_init(self, key, layout, value):
        if layout.stype == 'row_sparse':
            payload = ('row_sparse', value.data.asnumpy(), value.indices.asnumpy(),
                       layout.shape)
            piece = layout.pieces[0]
            return [self._servers[piece.server].init.remote(piece.shard, key, payload)]
        flat = value.asnumpy().reshape(-1)
        refs = []
        for piece in layout.pieces:
            part = flat[piece.start:piece.stop]
            part = part if layout.split else part.reshape(layout.shape)
            refs.append(self._servers[piece.server].init.remote(piece.shard, key, part))
        return refs

    def broadcast(self, key, value, out, priority=0):
        """Initialise ``key`` with rank 0's ``value``, then pull it into ``out``."""
        self.init(key, value)
        self.pull(key, out=out, priority=priority)

    # ------------------------------------------------------------------ push
    def _local_sum(self, key, layout, values):
        """The sum of this worker's values of ``key`` (its devices), on the host."""
        check_push_storage(key, values)
        for v in values:
            if tuple(v.shape) != layout.shape:
                raise MXNetError("push to key %r: a value of shape %s does not match the "
                                 "stored shape %s" % (key, v.shape, layout.shape))
        if all(v.stype == 'row_sparse' for v in values):
            return KVStore._sum_row_sparse(values, cpu(0), layout.dtype)
        hosts = [_backend.to_host(v.tostype('default').handle) for v in values]
        if len(hosts) == 1:
            # No copy: Ray copies the array when the push is sent.
            return hosts[0].astype(layout.dtype, copy=False)
        total = hosts[0].astype(layout.dtype, copy=True)
        for h in hosts[1:]:
            total += h.astype(layout.dtype, copy=False)
        return total

    def _payloads(self, key, layout, merged):
        """[(piece, payload)] for the pushed sum ``merged`` (NumPy or RowSparseNDArray)."""
        if isinstance(merged, RowSparseNDArray):
            if self._compression is not None:
                raise MXNetError("2-bit gradient compression needs dense gradients, but key %r "
                                 "received a row_sparse array; push dense gradients or drop "
                                 "compression" % (key,))
            return [(layout.pieces[0], ('row_sparse', merged.data.asnumpy(),
                                        merged.indices.asnumpy(), layout.shape))]
        if self._compression is not None:
            sent = self._compression.quantize(key, 0, NDArray(merged, cpu(0)))
            flat = sent.handle.reshape(-1)
            return [(p, ('2bit', pack_2bit(flat[p.start:p.stop]),
                         (p.stop - p.start,) if layout.split else layout.shape))
                    for p in layout.pieces]
        flat = merged.reshape(-1)
        return [(p, ('dense', flat[p.start:p.stop] if layout.split else merged))
                for p in layout.pieces]

    # Requests travel in batches: one Ray call per server carries every key (piece) of
    # an operation that lives there; each call costs far more than its data on a small
    # machine. A *handle* is (ref of that call, position of the request in it).
    def _send(self, method, per_key, *leading):
        """Send ``per_key`` — for each key, its [(server, request)] — with one call of
        ``method(*leading, requests)`` per server; the handles, per key."""
        batches = {}
        for requests in per_key:
            for server, request in requests:
                batches.setdefault(server, []).append(request)
        refs = {server: getattr(self._servers[server], method).remote(*leading, batch)
                for server, batch in batches.items()}
        seen = dict.fromkeys(batches, 0)
        handles = []
        for requests in per_key:
            handles.append([(refs[server], seen[server]) for server, _ in requests])
            for server, _ in requests:
                seen[server] += 1
        return handles

    def _collect(self, handles, what=None, deadline=None):
        """The answers for ``handles`` (per key, as :meth:`_send` returned them)."""
        refs = list(dict.fromkeys(ref for key_handles in handles for ref, _ in key_handles))
        answers = dict(zip(refs, self._get(refs, what, deadline)))
        return [[answers[ref][i] for ref, i in key_handles] for key_handles in handles]

    def _push_requests(self, key, values, listening):
        """[(server, (shard, payload, base version))] of this worker's push of ``key``.

        Emits ``kv_push`` (what is sent); the answers come later.
        """
        layout = self._layout(key)
        merged = self._local_sum(key, layout, values)
        versions = self._versions[key]
        requests = [(piece.server, (piece.shard, payload, None if self._sync else versions[i]))
                    for i, (piece, payload) in enumerate(self._payloads(key, layout, merged))]
        if listening and BUS.wants('kv_push'):
            info = {'bytes': float(values[0].size * np.dtype(values[0].dtype).itemsize),
                    'devices': float(len(values))}
            if self._compression is not None:
                info['compressed_bytes'] = float(compressed_nbytes(values[0].size))
                info['residual_norm'] = self._compression.residual_norm(key)
            BUS.emit('kv_push', _SOURCE, param=key, context=self._context, **info)
        return requests

    def _pushed(self, key, answers, step):
        """A push's answers (one per piece) arrived: emit dist_async's staleness event."""
        if not self._sync and BUS.active and BUS.wants('staleness'):
            behind = max(b for _, b in answers)
            BUS.emit('staleness', _SOURCE, param=key, context=self._context, step=step,
                     versions_behind=float(behind))

    def _settle(self, keys=None):
        """Collect the answers to this worker's outstanding pushes (those of ``keys``; all
        if None), in the order they were sent; raise the first error one of them met."""
        keys = list(self._pending) if keys is None else keys
        sent = {id(p): p for p in (self._pending.get(k) for k in keys) if p is not None}
        if not sent:
            return
        deadline = time.monotonic() + self._timeout
        for push in sorted(sent.values(), key=lambda p: p.serial):
            for k in push.keys:
                del self._pending[k]
            what = 'a push of key%s %s' % ('s' if len(push.keys) > 1 else '',
                                          ', '.join(repr(k) for k in push.keys))
            for k, answers in zip(push.keys, self._collect(push.handles, what, deadline)):
                self._pushed(k, answers, push.step)

    def push(self, key, value, priority=0):
        """Send this worker's sum of ``value`` for each key to the servers; don't wait.

        The answer is collected by the next operation that must see the push (see the
        module docstring); dist_sync applies it once every worker's push has arrived.
        """
        groups = self._keys._groups(key, value, 'values')
        self._settle([k for k, _ in groups])  # a key's pushes reach its servers in order
        listening = BUS.active
        requests = [self._push_requests(k, values, listening) for k, values in groups]
        self._sent_pushes += 1
        push = _SentPush(tuple(k for k, _ in groups),
                         self._send('push_many', requests, self.rank), BUS.step,
                         self._sent_pushes)
        for k in push.keys:
            self._pending[k] = push

    # ------------------------------------------------------------------ pull
    def _write(self, key, layout, parts, outs, ignore_sparse):
        """Copy the pulled value — ``parts``, one array per piece — into each output.

        A split key's pieces go straight into each contiguous dense output (no
        assembled copy in between).
        """
        whole = None
        written = 0
        for o in outs:
            if tuple(o.shape) != layout.shape:
                raise MXNetError("pull from key %r: the output's shape %s does not match the "
                                 "stored shape %s" % (key, o.shape, layout.shape))
            if o.stype == 'row_sparse':
                if ignore_sparse:
                    continue
                whole = _assembled(layout, parts) if whole is None else whole
                o[:] = NDArray(np.array(whole, copy=True), o.context).tostype('row_sparse')
            elif layout.split and o.handle.flags.c_contiguous:
                flat = o.reshape((-1,))   # a view of o
                for piece, part in zip(layout.pieces, parts):
                    flat[piece.start:piece.stop] = part
            else:
                whole = _assembled(layout, parts) if whole is None else whole
                o[:] = whole
            written += 1
        if BUS.active and BUS.wants('kv_pull'):
            size = int(np.prod(layout.shape)) if layout.shape else 1
            BUS.emit('kv_pull', _SOURCE, param=key, context=self._context,
                     bytes=float(size * layout.dtype.itemsize), devices=float(written))

    def _receive(self, key, outs, answers, ignore_sparse):
        """Note the versions of a pull's ``(value, version)`` answers; write the value."""
        self._versions[key] = [version for _, version in answers]
        self._write(key, self._layout(key), [value for value, _ in answers], outs,
                    ignore_sparse)

    def pull(self, key, out=None, priority=0, ignore_sparse=True):
        """Copy each key's value on the servers into its output(s).

        All the keys' requests are sent before the first answer is awaited.
        """
        if out is None:
            raise AssertionError("pull needs out=: the NDArray(s) to copy the value into")
        groups = self._keys._groups(key, out, 'outputs')
        self._settle([k for k, _ in groups])  # the pull must see this worker's pushes
        handles = self._send('pull_many', [[(p.server, p.shard) for p in self._layout(k).pieces]
                                           for k, _ in groups])
        for (k, outs), answers in zip(groups, self._collect(handles)):
            self._receive(k, outs, answers, ignore_sparse)

    def pushpull(self, key, value, out=None, priority=0):
        """Push ``value`` and pull the result into ``out`` (``value`` if None): one trip.

        All the keys' requests are sent before the first answer is awaited.
        """
        groups = self._keys._groups(key, value, 'values')
        outs = groups if out is None else self._keys._groups(key, out, 'outputs')
        self._settle([k for k, _ in groups])
        listening = BUS.active
        requests = [self._push_requests(k, values, listening) for k, values in groups]
        handles = self._send('pushpull_many', requests, self.rank)
        for (k, targets), answers in zip(outs, self._collect(handles)):
            self._pushed(k, [pushed for pushed, _ in answers], BUS.step)
            self._receive(k, targets, [pulled for _, pulled in answers], ignore_sparse=False)

    def row_sparse_pull(self, key, out=None, priority=0, row_ids=None):
        """Pull only the rows ``row_ids`` of each key into RowSparseNDArray outputs."""
        if out is None or row_ids is None:
            raise AssertionError("row_sparse_pull needs out= (RowSparseNDArrays) and row_ids=")
        if isinstance(row_ids, NDArray):
            row_ids = [row_ids]
        outs = [(k, o) for k, os_ in self._keys._groups(key, out, 'outputs') for o in os_]
        if len(row_ids) == 1 and len(outs) > 1:
            row_ids = row_ids * len(outs)
        if len(row_ids) != len(outs):
            raise AssertionError("the number of row_ids (%d) doesn't match the number of "
                                 "outputs (%d)" % (len(row_ids), len(outs)))
        for k, o in outs:
            layout = self._layout(k)
            if o.stype != 'row_sparse':
                raise MXNetError("row_sparse_pull writes into RowSparseNDArrays, got a %s "
                                 "output for key %r; use pull for dense outputs" % (o.stype, k))
            if layout.split:
                raise MXNetError("row_sparse_pull of key %r: the key is split across servers; "
                                 "row-sparse keys are kept whole" % (k,))
        self._settle([k for k, _ in outs])  # the rows must include this worker's pushes
        sent = []
        for (k, o), ids in zip(outs, row_ids):
            piece = self._layout(k).pieces[0]
            sent.append((o, self._layout(k).shape, self._servers[piece.server]
                         .row_sparse_pull.remote(piece.shard, ids.asnumpy().astype(np.int64))))
        deadline = time.monotonic() + self._timeout
        for o, shape, ref in sent:
            rows, indices = self._get(ref, deadline=deadline)
            o[:] = RowSparseNDArray(np.array(rows, copy=True), np.array(indices, copy=True),
                                    shape, o.context).copyto(o.context)

    # ------------------------------------------------------------------ optimizer
    def set_optimizer(self, optimizer):
        """Ship ``optimizer`` to the servers (rank 0 sends it); they run every update."""
        shipped = copy.copy(optimizer)
        # The servers have no Parameters: carry each one's lr_mult/wd_mult by index.
        shipped.lr_mult, shipped.wd_mult = dict(optimizer.lr_mult), dict(optimizer.wd_mult)
        for index, param in optimizer.param_dict.items():
            shipped.lr_mult[index] = param.lr_mult
            shipped.wd_mult[index] = param.wd_mult
        shipped.param_dict = {}
        self._settle()  # earlier pushes are applied with the earlier optimizer
        self._updater = get_updater(optimizer)
        if self.rank == 0:
            self._get([s.set_optimizer.remote(shipped) for s in self._servers])
        self.barrier()

    def _set_updater(self, updater):
        raise MXNetError("a distributed store runs its optimizer on the servers: use "
                         "set_optimizer(optimizer) instead of a custom updater")

    def save_optimizer_states(self, fname, dump_optimizer=False):
        """Gather the optimizer states from the servers and write them to ``fname``.

        The file has the format of a local store's (pickle-free, written atomically):
        a key split across servers is put back together, so the file does not depend
        on the number of servers.
        """
        states, optimizer = self._gather_states()
        data = dumps_states(states, optimizer if dump_optimizer else None)
        atomic_write(fname, lambda f: f.write(data))

    def _gather_states(self):
        if self._updater is None:
            raise AssertionError("this kvstore has no optimizer: call set_optimizer(...) "
                                 "before saving optimizer states")
        self._settle()  # the states include this worker's pushes
        answers = self._get([s.get_states.remote() for s in self._servers])
        states = {}
        for key, layout in self._layouts.items():
            found = [(p, answers[p.server][0].get(key)) for p in layout.pieces]
            if any(s is None for _, s in found):
                continue  # never updated: no state yet
            host = _join_states([s for _, s in found], layout) if layout.split else found[0][1]
            states[key] = to_device(host, cpu(0))
        optimizer = answers[0][1]
        for _, other in answers[1:]:
            merge_update_counts(optimizer, other)
        return states, optimizer

    def load_optimizer_states(self, fname):
        """Load states written by :meth:`save_optimizer_states` into the servers.

        Every worker calls it (rank 0 sends the states, then all meet at a barrier).
        """
        if self._updater is None:
            raise AssertionError("this kvstore has no optimizer: call set_optimizer(...) "
                                 "before loading optimizer states")
        with open(fname, 'rb') as f:
            states, optimizer = loads_states(f.read())
        self._settle()  # earlier pushes update the old states, not the loaded ones
        if optimizer is not None:
            optimizer.param_dict = {}
            self._updater = get_updater(optimizer)
        if self.rank == 0:
            per_server = [{} for _ in self._servers]
            for key, state in states.items():
                layout = self._layouts.get(key)
                if layout is None:
                    raise MXNetError("the optimizer states in %s hold key %r, which this "
                                     "store does not have" % (fname, key))
                host = to_host(state)
                for i, piece in enumerate(layout.pieces):
                    per_server[piece.server][key] = _state_piece(host, piece) \
                        if layout.split else host
            self._get([s.set_states.remote(per_server[i], optimizer)
                       for i, s in enumerate(self._servers)])
        self.barrier()

    # ------------------------------------------------------------------ compression
    def set_gradient_compression(self, compression_params):
        """Compress pushes with 2-bit quantisation; the residual stays on this worker."""
        compression = create_compression(compression_params)
        self._settle()  # pushes sent with the old threshold are decoded with it
        if self._compression is None:
            self._compression = compression
        else:
            self._compression.set_params(compression.threshold)
        self._get([s.set_compression.remote(compression.threshold) for s in self._servers])

    # ------------------------------------------------------------------ synchronisation
    def barrier(self):
        """Wait until every worker has reached its barrier (and had its pushes answered)."""
        self._settle()
        self._get(self._servers[0].barrier.remote(self.rank))

    _barrier = barrier

    def _send_command_to_servers(self, head, body):
        raise MXNetError("gluonedu's servers take no raw commands; use set_optimizer and "
                         "set_gradient_compression")


# ---------------------------------------------------------------------- helpers
def _assembled(layout, parts):
    """The whole value of a key from its pieces (one array per piece, in order)."""
    if not layout.split:
        return parts[0]
    return np.concatenate([np.asarray(p).reshape(-1) for p in parts]).reshape(layout.shape)


#: Every store of this process, for the exit hook (weakly: a dropped store is forgotten).
_LIVE_STORES = weakref.WeakSet()
_EXIT_HOOK = []   # holds the hook once it is registered


def _watch_at_exit(store):
    """Collect ``store``'s outstanding pushes when the process ends.

    A push whose answer nobody collected may still be on its way (its value is owned
    by this process); the hook waits for it, so a script may end with a push. Ray
    registers its own exit hook when it is imported, before any store exists, and
    exit hooks run last-registered first: this one runs while Ray still works.
    """
    if not _EXIT_HOOK:
        atexit.register(_settle_live_stores)
        _EXIT_HOOK.append(_settle_live_stores)
    _LIVE_STORES.add(store)


#: The heartbeat thread of each (run, rank) this process plays, once started.
_HEARTBEATS = {}


def _start_heartbeat(server, worker):
    """Tell ``server`` (server 0) every few seconds that ``worker`` is alive, for as long
    as this process runs (not just while a store exists: a worker evaluating after
    training is still alive)."""
    key = (worker.group, worker.rank)
    if key in _HEARTBEATS:
        return
    interval = heartbeat_seconds()
    ray = import_ray()

    def beat():
        # Not once Ray is shut down: a call then could start a Ray cluster of its own.
        while ray.is_initialized():
            try:
                server.heartbeat.remote(worker.rank)
            except Exception:  # Ray is shutting down with the process
                return
            time.sleep(interval)
    thread = threading.Thread(target=beat, daemon=True, name='gluonedu-heartbeat')
    _HEARTBEATS[key] = thread
    thread.start()


def _settle_live_stores():
    for store in list(_LIVE_STORES):
        if not store._pending or not store._ray.is_initialized():
            continue
        try:
            store._settle()
        except Exception as err:  # too late to raise: say what was lost
            print("gluonedu: worker %d ended with a push that failed: %s" % (store.rank, err),
                  file=sys.stderr)


def _join_states(parts, layout):
    """One state from the per-server states of a split key (arrays concatenated)."""
    first = parts[0]
    if isinstance(first, np.ndarray):
        return np.concatenate([p.reshape(-1) for p in parts]).reshape(layout.shape)
    if isinstance(first, (tuple, list)):
        items = [_join_states([p[i] for p in parts], layout) for i in range(len(first))]
        return tuple(items) if isinstance(first, tuple) else items
    return first


def _state_piece(state, piece):
    """The part of a (full-shape, host) state that ``piece``'s server keeps."""
    if isinstance(state, np.ndarray):
        return state.reshape(-1)[piece.start:piece.stop].copy()
    if isinstance(state, (tuple, list)):
        items = [_state_piece(s, piece) for s in state]
        return tuple(items) if isinstance(state, tuple) else items
    return state
