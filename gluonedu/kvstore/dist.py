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
  called, with the residual kept on the worker (one per key) — to the key's servers;
* dist_sync: a push returns when every worker's push of that key has arrived and the
  update has been applied; a pull after it returns the new value. dist_device_sync is
  the same store (MXNet's variant differs only in where a GPU worker sums its devices);
* dist_async: every push is applied on arrival. The server answers how many updates
  (by other workers) the key received since this worker last pulled it; the worker
  emits that as a ``staleness`` event;
* ``set_optimizer`` ships the optimizer to every server (rank 0 sends it, then a
  barrier). Each Parameter's current ``lr_mult``/``wd_mult`` travel with it;
  changing them later does not reach the servers (as in MXNet, whose servers see no
  Parameters at all).

Instrumentation (source ``'kvstore'``, ``context`` = the worker, ``'worker0'``,
``'worker1'``, …): ``kv_push`` (``bytes``, ``devices``; with compression
``compressed_bytes`` and ``residual_norm``), ``kv_pull`` (``bytes``, ``devices``) and,
for dist_async, ``staleness`` (``versions_behind``: for a key split over several
servers, the largest over its pieces).

Faults: a call that gets no answer within ``GLUONEDU_DIST_TIMEOUT`` seconds (default
120) raises MXNetError; when the launcher sees a worker fail it aborts the servers,
and every other worker's next (or waiting) call raises :class:`DistAborted` naming
the failed worker.
"""
import copy
import os
import zlib
from dataclasses import dataclass

import numpy as np

from ..base import MXNetError
from ..context import cpu
from ..instrument.events import BUS
from ..ndarray import NDArray
from ..ndarray.io import atomic_write
from ..ndarray.sparse import RowSparseNDArray
from ..optimizer import get_updater
from ..optimizer.serialization import dumps_states, loads_states
from .base import KVStoreBase
from .compression import compressed_nbytes, create_compression
from .dist_server import DistAborted, _to_device, _to_host, pack_2bit
from .local import KVStore
from .ray_cluster import WorkerEnv, connect_ray, import_ray, timeout_seconds

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

    def _find_server(self, i):
        ray = self._ray
        try:
            return ray.get_actor(server_name(i), namespace=self._worker.group)
        except ValueError:
            raise MXNetError("server %d of run %r is not running on the Ray cluster at %s; "
                             "start workers with `python -m gluonedu.launch` (which starts the "
                             "servers) or inside local_cluster()"
                             % (i, self._worker.group, self._worker.address)) from None

    def _get(self, refs):
        """ray.get with the run's timeout, turning Ray's errors into MXNetErrors."""
        exceptions = self._ray.exceptions
        try:
            return self._ray.get(refs, timeout=self._timeout)
        except exceptions.GetTimeoutError:
            raise MXNetError("worker %d got no answer from the servers within %.0f s; another "
                             "worker may have stopped (raise GLUONEDU_DIST_TIMEOUT for slow "
                             "steps)" % (self.rank, self._timeout)) from None
        except exceptions.RayTaskError as err:
            cause = getattr(err, 'cause', None)
            if isinstance(cause, DistAborted):
                raise DistAborted("worker %d stops: %s" % (self.rank, cause)) from None
            if isinstance(cause, MXNetError):
                raise MXNetError(str(cause)) from None
            raise MXNetError("a server failed: %s" % (cause or err)) from None
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
        if capability.lower() == KVStoreBase.OPTIMIZER:
            return True
        raise ValueError("unknown capability %r; the only capability is %r"
                         % (capability, KVStoreBase.OPTIMIZER))

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
        for v in values:
            if tuple(v.shape) != layout.shape:
                raise MXNetError("push to key %r: a value of shape %s does not match the "
                                 "stored shape %s" % (key, v.shape, layout.shape))
        if all(v.stype == 'row_sparse' for v in values):
            return KVStore._sum_row_sparse(values, cpu(0), layout.dtype)
        total = values[0].tostype('default').asnumpy().astype(layout.dtype, copy=True)
        for v in values[1:]:
            total += v.tostype('default').asnumpy().astype(layout.dtype, copy=False)
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
            sent = self._compression.quantize(key, 0, NDArray(merged, cpu(0))).asnumpy()
            flat = sent.reshape(-1)
            return [(p, ('2bit', pack_2bit(flat[p.start:p.stop]),
                         (p.stop - p.start,) if layout.split else layout.shape))
                    for p in layout.pieces]
        flat = merged.reshape(-1)
        return [(p, ('dense', flat[p.start:p.stop] if layout.split else merged))
                for p in layout.pieces]

    def _push_refs(self, key, values, method):
        layout = self._layout(key)
        merged = self._local_sum(key, layout, values)
        versions = self._versions[key]
        refs = []
        for i, (piece, payload) in enumerate(self._payloads(key, layout, merged)):
            call = getattr(self._servers[piece.server], method)
            refs.append(call.remote(piece.shard, self.rank, payload,
                                    None if self._sync else versions[i]))
        return refs

    def _after_push(self, key, values, pushed, listening):
        """Record the versions the servers reported; emit the push's events."""
        if not listening:
            return
        if BUS.wants('kv_push'):
            info = {'bytes': float(values[0].size * np.dtype(values[0].dtype).itemsize),
                    'devices': float(len(values))}
            if self._compression is not None:
                info['compressed_bytes'] = float(compressed_nbytes(values[0].size))
                info['residual_norm'] = self._compression.residual_norm(key)
            BUS.emit('kv_push', _SOURCE, param=key, context=self._context, **info)
        if not self._sync and BUS.wants('staleness'):
            behind = max(b for _, b in pushed)
            BUS.emit('staleness', _SOURCE, param=key, context=self._context,
                     versions_behind=float(behind))

    def push(self, key, value, priority=0):
        """Send this worker's sum of ``value`` for each key to the servers.

        dist_sync: returns once every worker's push of the key has been applied.
        """
        groups = self._keys._groups(key, value, 'values')
        refs = [(k, values, self._push_refs(k, values, 'push')) for k, values in groups]
        listening = BUS.active
        for k, values, key_refs in refs:
            pushed = self._get(key_refs)
            self._after_push(k, values, pushed, listening)

    # ------------------------------------------------------------------ pull
    def _assemble(self, key, layout, parts):
        """The full dense value from the pieces the servers returned; notes versions."""
        self._versions[key] = [version for _, version in parts]
        if not layout.split:
            return parts[0][0]
        return np.concatenate([np.asarray(p).reshape(-1) for p, _ in parts]).reshape(layout.shape)

    def _write(self, key, value, outs, ignore_sparse):
        written = 0
        for o in outs:
            if tuple(o.shape) != tuple(value.shape):
                raise MXNetError("pull from key %r: the output's shape %s does not match the "
                                 "stored shape %s" % (key, o.shape, value.shape))
            if o.stype == 'row_sparse':
                if ignore_sparse:
                    continue
                o[:] = NDArray(np.array(value, copy=True), o.context).tostype('row_sparse')
            else:
                o[:] = value
            written += 1
        if BUS.active and BUS.wants('kv_pull'):
            BUS.emit('kv_pull', _SOURCE, param=key, context=self._context,
                     bytes=float(value.nbytes), devices=float(written))

    def pull(self, key, out=None, priority=0, ignore_sparse=True):
        """Copy each key's value on the servers into its output(s)."""
        if out is None:
            raise AssertionError("pull needs out=: the NDArray(s) to copy the value into")
        groups = self._keys._groups(key, out, 'outputs')
        pending = []
        for k, outs in groups:
            layout = self._layout(k)
            pending.append((k, outs, layout,
                            [self._servers[p.server].pull.remote(p.shard) for p in layout.pieces]))
        for k, outs, layout, refs in pending:
            value = self._assemble(k, layout, self._get(refs))
            self._write(k, value, outs, ignore_sparse)

    def pushpull(self, key, value, out=None, priority=0):
        """Push ``value`` and pull the result into ``out`` (``value`` if None): one trip."""
        groups = self._keys._groups(key, value, 'values')
        outs = groups if out is None else self._keys._groups(key, out, 'outputs')
        listening = BUS.active
        for (k, values), (_, targets) in zip(groups, outs):
            answers = self._get(self._push_refs(k, values, 'pushpull'))
            self._after_push(k, values, [pushed for pushed, _ in answers], listening)
            layout = self._layout(k)
            self._write(k, self._assemble(k, layout, [pulled for _, pulled in answers]),
                        targets, ignore_sparse=False)

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
        for (k, o), ids in zip(outs, row_ids):
            layout = self._layout(k)
            if o.stype != 'row_sparse':
                raise MXNetError("row_sparse_pull writes into RowSparseNDArrays, got a %s "
                                 "output for key %r; use pull for dense outputs" % (o.stype, k))
            piece = layout.pieces[0]
            if layout.split:
                raise MXNetError("row_sparse_pull of key %r: the key is split across servers; "
                                 "row-sparse keys are kept whole" % (k,))
            rows, indices = self._get(self._servers[piece.server].row_sparse_pull.remote(
                piece.shard, ids.asnumpy().astype(np.int64)))
            o[:] = RowSparseNDArray(np.array(rows, copy=True), np.array(indices, copy=True),
                                    layout.shape, o.context).copyto(o.context)

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
        answers = self._get([s.get_states.remote() for s in self._servers])
        states = {}
        for key, layout in self._layouts.items():
            found = [(p, answers[p.server][0].get(key)) for p in layout.pieces]
            if any(s is None for _, s in found):
                continue  # never updated: no state yet
            host = _join_states([s for _, s in found], layout) if layout.split else found[0][1]
            states[key] = _to_device(host, cpu(0))
        optimizer = answers[0][1]
        for _, other in answers[1:]:
            _merge_counts(optimizer, other)
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
                host = _to_host(state)
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
        if self._compression is None:
            self._compression = compression
        else:
            self._compression.set_params(compression.threshold)
        self._get([s.set_compression.remote(compression.threshold) for s in self._servers])

    # ------------------------------------------------------------------ synchronisation
    def barrier(self):
        """Wait until every worker has reached its barrier."""
        self._get(self._servers[0].barrier.remote(self.rank))

    _barrier = barrier

    def _send_command_to_servers(self, head, body):
        raise MXNetError("gluonedu's servers take no raw commands; use set_optimizer and "
                         "set_gradient_compression")


# ---------------------------------------------------------------------- state helpers
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


def _merge_counts(optimizer, other):
    """Fold ``other``'s update counters into ``optimizer`` (the largest count wins)."""
    for device, counts in other._all_index_update_counts.items():
        mine = optimizer._all_index_update_counts.setdefault(device, {})
        for index, count in counts.items():
            mine[index] = max(mine.get(index, 0), count)
    optimizer.num_update = max(optimizer.num_update, other.num_update)
