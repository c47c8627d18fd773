"""The server of the distributed stores: one Ray actor per server.

A server holds *shards*: a small key lives whole on one server, a large one is cut
into one flat piece per server (see :mod:`gluonedu.kvstore.dist`). For each shard it
keeps the stored value (in a local 'device' store, which also runs the optimizer) and
a *version*: the number of updates applied to it so far.

dist_sync (``sync=True``)
    A push waits: the server keeps each worker's value of the current round until all
    ``num_workers`` have arrived, sums them in rank order (``v0 + v1 + …``, the same
    numbers on every run), applies the sum once — through the optimizer, or as the new
    value without one — and then answers every waiting push. The version grows by one
    per round, so a pull after a push sees the new value.
dist_async (``sync=False``)
    Each push is applied the moment it arrives (an optimizer is required). The push
    carries the version of the value its worker last pulled; the server answers how many
    updates landed in between (the worker's own earlier pushes too, if it has not pulled
    since) — the gradient's *staleness*.

A worker sends all of one operation's requests for a server in one call
(``push_many``, ``pushpull_many``, ``pull_many``): each request runs as on its own,
side by side with the others. The worker also orders its own calls — a pull of a key
is sent only after its earlier push of that key was answered — because an asyncio
actor may start a later call while an earlier one still waits for its arguments.

Server 0 also keeps the barrier and the workers' heartbeats (``heartbeat(rank)``;
``silent_workers(limit)`` names those not heard from for ``limit`` seconds, which the
launcher asks). ``abort(reason)`` (the launcher calls it when a worker
dies) wakes every waiting call with an error naming the reason, and refuses later ones,
so the remaining workers stop instead of waiting for a peer that will never push.
Every wait is bounded by ``timeout`` seconds.

The class is plain Python with ``async`` methods: Ray runs it as an asyncio actor, so
a push that waits for the other workers does not block their pushes.
"""
import asyncio
import time

import numpy as np

from ..base import MXNetError
from ..context import cpu
from ..ndarray import NDArray
from ..ndarray.sparse import RowSparseNDArray
from ..optimizer import get_updater
from .local import KVStore
from .wire import DistAborted, to_device, to_host, unpack_2bit

__all__ = ['KVServer']


async def _all(calls):
    """Run coroutines ``calls`` side by side (a sync push waits for its round without
    holding up the others); their results in order, or the first one's error (in
    order) once all have ended."""
    if len(calls) == 1:
        return [await calls[0]]
    results = await asyncio.gather(*calls, return_exceptions=True)
    for result in results:
        if isinstance(result, BaseException):
            raise result
    return results


class KVServer:
    """One server: shards, their versions, the optimizer, the barrier (on server 0)."""

    def __init__(self, server_id, num_workers, timeout):
        self.server_id = server_id
        self.num_workers = num_workers
        self.sync = None                # set by the workers' stores (set_mode)
        self.timeout = timeout
        self._ctx = cpu(0)
        self._kv = KVStore('device')    # stores each shard; runs the optimizer
        self._index = {}                # shard id -> the key the optimizer sees
        self._versions = {}             # shard id -> updates applied so far
        self._pending = {}              # shard id -> {rank: value} of the open sync round
        self._round_done = {}           # shard id -> asyncio.Event of the open round
        self._updater = None
        self._threshold = None          # 2-bit dequantisation threshold
        self._error = None              # why the run was aborted
        self._barrier_ranks = set()
        self._barrier_done = None
        self._heard = {}                # rank -> time.monotonic() of its last heartbeat

    async def reset(self, num_workers, timeout):
        """Forget everything: serve a new run of ``num_workers`` workers (pooled servers)."""
        self.__init__(self.server_id, num_workers, timeout)

    def location(self):
        """Where this server runs: ``(node IP address, Ray node id)``."""
        import ray
        return ray.util.get_node_ip_address(), ray.get_runtime_context().get_node_id()

    # ------------------------------------------------------------------ helpers
    def _check_alive(self):
        if self._error is not None:
            raise DistAborted(self._error)

    async def _wait(self, event, what):
        try:
            await asyncio.wait_for(event.wait(), self.timeout)
        except asyncio.TimeoutError:
            raise MXNetError("server %d waited %.0f s for %s; a worker may have stopped or "
                             "fallen behind (raise GLUONEDU_DIST_TIMEOUT for slow steps)"
                             % (self.server_id, self.timeout, what)) from None
        self._check_alive()

    def _decode(self, shard, payload):
        """The NDArray a worker's push payload stands for."""
        kind = payload[0]
        if kind == 'dense':
            return NDArray(payload[1], self._ctx)
        if kind == '2bit':
            _, words, shape = payload
            if self._threshold is None:
                raise MXNetError("a compressed push reached server %d before the compression "
                                 "settings; call set_gradient_compression on every worker "
                                 "before pushing" % self.server_id)
            size = int(np.prod(shape)) if shape else 1
            return NDArray(unpack_2bit(words, size, self._threshold).reshape(shape), self._ctx)
        if kind == 'row_sparse':
            _, rows, indices, shape = payload
            return RowSparseNDArray(rows, indices.astype(np.int64), shape, self._ctx)
        raise MXNetError("unknown push payload %r" % (kind,))

    def _apply(self, shard, values):
        """Sum ``values`` (in the order given) and apply them to the shard."""
        if self._updater is None and not self.sync:
            raise MXNetError("dist_async applies each push with the optimizer, but none was "
                             "set: call kv.set_optimizer(...) (the Trainer does) before pushing")
        stored = self._kv._stored(shard)
        if self._updater is None and all(v.stype == 'default' and v.dtype == stored.dtype
                                         for v in values) and stored.stype == 'default':
            # The sum becomes the value: add in place, ((v0 + v1) + v2) + … as the store
            # would, without its intermediate copy (a large key is one copy fewer).
            target = stored.handle
            target[...] = values[0].handle
            for v in values[1:]:
                target += v.handle
        else:
            self._kv.push(shard, values)
        self._versions[shard] += 1

    # ------------------------------------------------------------------ setup
    async def ping(self):
        """Answer once the actor is up."""
        return self.server_id

    async def set_mode(self, sync):
        """Make this a dist_sync (True) or dist_async (False) server; all workers agree."""
        self._check_alive()
        if self.sync is not None and self.sync != sync:
            raise MXNetError("the workers of this run created different kinds of store: one "
                             "dist_sync and one dist_async; every worker must create the same")
        self.sync = bool(sync)

    async def init(self, shard, index, value):
        """Store the initial ``value`` (NumPy, or a row-sparse payload) of ``shard``."""
        self._check_alive()
        if shard in self._index:
            raise MXNetError("duplicate init of key %r: each key can be initialised once"
                             % (index,))
        array = self._decode(shard, value) if isinstance(value, tuple) else \
            NDArray(np.array(value, copy=True), self._ctx)
        self._kv.init(shard, array)
        self._index[shard] = index
        self._versions[shard] = 0

    async def set_optimizer(self, optimizer):
        """Run ``optimizer`` on every later push (new states, as a new Updater)."""
        self._check_alive()
        self._updater = get_updater(optimizer)
        self._kv._set_updater(self._update)

    def _update(self, shard, grad, weight):
        self._updater(self._index[shard], grad, weight)

    async def set_compression(self, threshold):
        """Dequantise compressed pushes with ``threshold``."""
        self._threshold = float(threshold)

    # ------------------------------------------------------------------ push / pull
    async def push(self, shard, rank, payload, base_version=None):
        """Apply (async) or contribute to (sync) an update; returns (version, behind).

        ``behind``: for async, the updates applied since the pusher's ``base_version``;
        0 for sync.
        """
        self._check_alive()
        if shard not in self._index:
            raise MXNetError("push to a key that was not initialised: call kv.init first")
        value = self._decode(shard, payload)
        if not self.sync:
            behind = 0 if base_version is None else self._versions[shard] - base_version
            self._apply(shard, [value])
            return self._versions[shard], behind
        pending = self._pending.setdefault(shard, {})
        if rank in pending:
            raise MXNetError("worker %d pushed key %r twice in one round" % (rank, self._index[shard]))
        pending[rank] = value
        done = self._round_done.setdefault(shard, asyncio.Event())
        if len(pending) == self.num_workers:
            del self._pending[shard], self._round_done[shard]
            try:
                self._apply(shard, [pending[r] for r in sorted(pending)])
            finally:
                done.set()
        else:
            await self._wait(done, "the other workers' pushes of key %r"
                             % (self._index[shard],))
        return self._versions[shard], 0

    async def pull(self, shard):
        """(stored value as dense NumPy, version)."""
        self._check_alive()
        stored = self._kv._stored(shard)
        # A copy: Ray serialises the answer after this method returns, while the next
        # push may already be updating the stored value in place.
        return stored.tostype('default').asnumpy(), self._versions[shard]

    async def pushpull(self, shard, rank, payload, base_version=None):
        """push, then pull: ((version, behind), (value, version)) in one round trip."""
        pushed = await self.push(shard, rank, payload, base_version)
        return pushed, await self.pull(shard)

    # A worker sends all its requests to this server of one operation in one call (a
    # Ray call costs far more than a small key's data); each runs as on its own.
    async def push_many(self, rank, requests):
        """:meth:`push` for each ``(shard, payload, base_version)``; the answers in order."""
        return await _all([self.push(shard, rank, payload, base)
                           for shard, payload, base in requests])

    async def pushpull_many(self, rank, requests):
        """:meth:`pushpull` for each ``(shard, payload, base_version)``; the answers."""
        return await _all([self.pushpull(shard, rank, payload, base)
                           for shard, payload, base in requests])

    async def pull_many(self, shards):
        """:meth:`pull` of each shard; the answers in order."""
        return [await self.pull(shard) for shard in shards]

    async def row_sparse_pull(self, shard, row_ids):
        """(rows, row ids): the stored rows ``row_ids`` (unique, sorted; zeros if absent)."""
        self._check_alive()
        stored = self._kv._stored(shard)
        wanted = np.unique(np.asarray(row_ids, dtype=np.int64).reshape(-1))
        out = RowSparseNDArray(np.zeros((0,) + stored.shape[1:], dtype=stored.dtype),
                               np.zeros(0, dtype=np.int64), stored.shape, self._ctx)
        if stored.stype != 'row_sparse':
            rows = stored.asnumpy()[wanted]
            return rows, wanted
        self._kv.row_sparse_pull(shard, out=out, row_ids=NDArray(wanted, self._ctx))
        return out.data.handle.copy(), out.indices.handle.copy()

    # ------------------------------------------------------------------ optimizer states
    async def get_states(self):
        """({key: state with NumPy arrays}, optimizer) of this server's shards."""
        self._check_alive()
        if self._updater is None:
            raise MXNetError("the servers have no optimizer: call set_optimizer first")
        return ({key: to_host(state) for key, state in self._updater.states.items()},
                self._updater.optimizer)

    async def set_states(self, states, optimizer=None):
        """Replace the states (and the optimizer, if given) of this server's shards."""
        self._check_alive()
        if optimizer is not None:
            self._updater = get_updater(optimizer)
            self._kv._set_updater(self._update)
        if self._updater is None:
            raise MXNetError("the servers have no optimizer to load states into: call "
                             "set_optimizer first")
        self._updater.states = {key: to_device(s, self._ctx) for key, s in states.items()}
        self._updater.states_synced = dict.fromkeys(self._updater.states, True)

    # ------------------------------------------------------------------ barrier / abort
    async def barrier(self, rank):
        """Return once every worker has called barrier (server 0 keeps it)."""
        self._check_alive()
        if self._barrier_done is None:
            self._barrier_done = asyncio.Event()
        done = self._barrier_done
        self._barrier_ranks.add(rank)
        if len(self._barrier_ranks) == self.num_workers:
            self._barrier_ranks = set()
            self._barrier_done = None
            done.set()
        else:
            await self._wait(done, "the other workers at a barrier")

    async def heartbeat(self, rank):
        """Worker ``rank`` is alive (its store says so every few seconds)."""
        self._heard[rank] = time.monotonic()

    async def silent_workers(self, limit):
        """``[(rank, seconds)]`` of the workers heard from before but not in ``limit`` s."""
        now = time.monotonic()
        return sorted((rank, now - last) for rank, last in self._heard.items()
                      if now - last > limit)

    async def abort(self, reason):
        """Stop the run: every waiting and later call raises DistAborted(reason)."""
        if self._error is None:
            self._error = str(reason)
        for event in list(self._round_done.values()) + [self._barrier_done]:
            if event is not None:
                event.set()
