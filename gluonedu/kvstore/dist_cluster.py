"""Servers for a training run, and running worker functions from a notebook cell.

:func:`start_servers` creates a run's server actors on the connected Ray cluster (the
launcher and :func:`local_cluster` call it). :func:`local_cluster` is the notebook
way to train with several workers without a terminal::

    import gluonedu as mx

    def train(steps):                    # runs once per worker, in a Ray worker process
        kv = mx.kv.create('dist_sync')   # this worker's store: rank, num_workers, ...
        ...
        return kv.rank, final_loss

    with mx.kv.local_cluster() as cluster:          # starts Ray on this machine
        results = cluster.run(train, 20, num_workers=2)   # [result of rank 0, rank 1]

Each ``run`` resets the cluster's server actors (kept between runs), runs ``fn(*args)``
as one Ray task per worker (all at once), and returns their results in rank order. If
a worker raises, the servers are aborted — the other workers stop with
:class:`~.wire.DistAborted` instead of waiting for it — and ``run`` raises an
MXNetError naming the failed worker. Starting Ray and a run's first workers take
seconds (tens of seconds on a small machine): with ``progress=True`` (the default) both
say on stdout what they are doing and, when done, how long it took.
Functions defined in a notebook or a test module travel to the workers by value.
"""
import sys
import time
import uuid

from ..base import MXNetError
from .dist import server_name, worker_scope
from .dist_server import KVServer
from .ray_cluster import (WorkerEnv, check_shared_address, connect_ray, import_ray,
                          local_ray_settings, shared_address, start_local_ray,
                          stop_local_ray, timeout_seconds)

__all__ = ['ServerGroup', 'start_servers', 'LocalCluster', 'local_cluster']


class ServerGroup:
    """The server actors of one training run (a Ray namespace of its own)."""

    def __init__(self, address, group, num_workers, servers):
        self.address = address
        self.group = group
        self.num_workers = num_workers
        self.servers = servers

    @property
    def num_servers(self):
        return len(self.servers)

    def worker_env(self, rank, with_handles=False):
        """The :class:`WorkerEnv` of worker ``rank`` of this run (with the servers' handles,
        for a worker that runs as a Ray task)."""
        return WorkerEnv(self.address, self.group, rank, self.num_workers, self.num_servers,
                         tuple(self.servers) if with_handles else None)

    def abort(self, reason, timeout=5.0):
        """Tell every server to stop the run (best effort, bounded by ``timeout``)."""
        ray = import_ray()
        refs = [s.abort.remote(reason) for s in self.servers]
        try:
            ray.wait(refs, num_returns=len(refs), timeout=timeout)
        except Exception:  # a server already gone has nothing left to stop
            pass

    def locations(self):
        """Where each server runs, in server order: ``[(node IP, Ray node id), ...]``."""
        ray = import_ray()
        return ray.get([s.location.remote() for s in self.servers], timeout=timeout_seconds())

    def silent_workers(self, limit, timeout=2.0):
        """``[(rank, seconds)]`` of the workers whose heartbeat stopped more than ``limit``
        seconds ago; empty if server 0 does not answer within ``timeout``."""
        ray = import_ray()
        try:
            return ray.get(self.servers[0].silent_workers.remote(limit), timeout=timeout)
        except Exception:  # a busy or gone server blames nobody
            return []

    def stop(self):
        """End the server actors."""
        ray = import_ray()
        for server in self.servers:
            try:
                ray.kill(server)
            except Exception:  # already gone
                pass


def _check_counts(num_workers, num_servers):
    if num_workers < 1:
        raise MXNetError("a distributed run needs at least 1 worker, got %d" % num_workers)
    if num_servers < 1:
        raise MXNetError("a distributed run needs at least 1 server, got %d" % num_servers)


def _create_servers(num_servers, num_workers, group, first=0):
    """New server actors, named in namespace ``group``; returns once they answer.

    Server ``i`` goes to the ``i``-th alive node (round robin), so that each machine's
    memory and network carry only its share of the keys, as with MXNet's servers, one per
    machine. Ray's own 'SPREAD' is a preference it may ignore (both servers of a fresh
    two-node cluster can land on one node); a node affinity is kept.
    """
    ray = import_ray()
    timeout = timeout_seconds()
    actor = ray.remote(num_cpus=0, max_restarts=0, max_concurrency=10000)(KVServer)
    nodes = _alive_nodes(ray)
    servers = [actor.options(name=server_name(i), namespace=group,
                             scheduling_strategy=_on_node(nodes[i % len(nodes)]))
               .remote(i, num_workers, timeout) for i in range(first, first + num_servers)]
    try:
        ray.get([s.ping.remote() for s in servers], timeout=timeout)
    except Exception as err:
        for s in servers:
            ray.kill(s)
        raise MXNetError("the %d server actor(s) did not start within %.0f s: %s"
                         % (num_servers, timeout, err)) from None
    return servers


def _alive_nodes(ray):
    """The ids of the cluster's alive nodes, in a fixed order (the node this process runs
    on first)."""
    here = ray.get_runtime_context().get_node_id()
    nodes = sorted(n['NodeID'] for n in ray.nodes() if n.get('Alive'))
    return sorted(nodes, key=lambda node: node != here) or [here]


def _on_node(node_id):
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy
    # Hard: Ray 2's soft affinity was seen to place both servers on the head node. Should
    # the node die before its server starts, the start times out with MXNetError.
    return NodeAffinitySchedulingStrategy(node_id=node_id, soft=False)


def _new_group_name():
    return 'gluonedu-run-%s' % uuid.uuid4().hex[:12]


def start_servers(num_workers, num_servers=1, address=None):
    """Create ``num_servers`` server actors for ``num_workers`` workers; wait until up.

    Needs this process to be connected to Ray. ``address`` is what workers will join
    (default: the connected cluster's address).
    """
    _check_counts(num_workers, num_servers)
    address = address or import_ray().get_runtime_context().gcs_address
    group = _new_group_name()
    return ServerGroup(address, group, num_workers,
                       _create_servers(num_servers, num_workers, group))


def _run_as_worker(env, fn, args, kwargs):
    with worker_scope(env):
        return fn(*args, **kwargs)


def _ship_by_value(fn):
    """Let Ray send ``fn`` by value when workers could not import its module."""
    module = sys.modules.get(getattr(fn, '__module__', None) or '')
    if module is None or module.__name__ == '__main__':
        return  # cloudpickle already sends __main__ functions by value
    top = module.__name__.split('.')[0]
    path = getattr(module, '__file__', '') or ''
    if top in ('gluonedu', 'numpy', 'ray') or 'site-packages' in path:
        return
    from ray import cloudpickle
    cloudpickle.register_pickle_by_value(module)


def _short(err):
    text = str(getattr(err, 'cause', None) or err).strip().splitlines()
    return text[-1] if text else type(err).__name__


def _report(progress, text):
    """One line of progress on stdout, at once: a notebook shows it while the cell runs."""
    if progress:
        print(text, flush=True)


class LocalCluster:
    """Runs worker functions on Ray (see the module docstring); from :func:`local_cluster`."""

    def __init__(self, ray_here, progress=True):
        #: What this cluster did to Ray, undone by close(): 'started' a local cluster,
        #: 'joined' a shared one, or None (the process was connected already).
        self._ray_here = ray_here
        self.progress = progress
        self._task = None
        # Server actors are kept between runs (reset for each): a new actor is a new
        # process, seconds on a small machine.
        self._pool_group = _new_group_name()
        self._pool = []

    def _servers_for(self, num_workers, num_servers):
        ray = import_ray()
        if len(self._pool) < num_servers:
            self._pool += _create_servers(num_servers - len(self._pool), num_workers,
                                          self._pool_group, first=len(self._pool))
        servers = self._pool[:num_servers]
        ray.get([s.reset.remote(num_workers, timeout_seconds()) for s in servers],
                timeout=timeout_seconds())
        return ServerGroup(self.address, self._pool_group, num_workers, servers)

    @property
    def address(self):
        """The Ray cluster's address (``host:port``), for the launcher's ``--address``."""
        return import_ray().get_runtime_context().gcs_address

    def run(self, fn, *args, num_workers=2, num_servers=1, timeout=None, **kwargs):
        """Run ``fn(*args, **kwargs)`` on ``num_workers`` workers; their results by rank.

        Inside ``fn``, ``mx.kv.create('dist_sync')`` (or 'dist_async', …) gives the
        worker's store. ``timeout`` (seconds, default ``GLUONEDU_DIST_TIMEOUT``) bounds
        the whole run.
        """
        ray = import_ray()
        if self._task is None:
            self._task = ray.remote(num_cpus=0, max_retries=0)(_run_as_worker)
        _ship_by_value(fn)
        _check_counts(num_workers, num_servers)
        started = time.monotonic()
        _report(self.progress, 'run: starting %d worker(s) of %s() and %d server(s) ...'
                % (num_workers, getattr(fn, '__name__', 'fn'), num_servers))
        group = self._servers_for(num_workers, num_servers)
        deadline = started + (timeout or timeout_seconds())
        try:
            pending = {self._task.remote(group.worker_env(rank, with_handles=True), fn, args,
                                         kwargs): rank
                       for rank in range(num_workers)}
            results, failure = {}, None
            while pending:
                left = deadline - time.monotonic()
                ready, _ = ray.wait(list(pending), num_returns=1, timeout=max(left, 0))
                if not ready:
                    group.abort("the run took longer than its timeout")
                    raise MXNetError("the workers did not finish within the timeout; ranks %s "
                                     "were still running" % sorted(pending.values()))
                for ref in ready:
                    rank = pending.pop(ref)
                    try:
                        results[rank] = ray.get(ref)
                    except Exception as err:  # the worker's own exception, wrapped by Ray
                        if failure is None:
                            failure = (rank, err)
                            group.abort("worker %d failed: %s" % (rank, _short(err)))
            if failure is not None:
                rank, err = failure
                raise MXNetError("worker %d of %d failed: %s"
                                 % (rank, num_workers, _short(err))) from err
            _report(self.progress, 'run: %d worker(s) finished (took %.1f s)'
                    % (num_workers, time.monotonic() - started))
            return [results[rank] for rank in range(num_workers)]
        finally:
            group.abort("the run is over")  # nothing of a finished run may wait on

    def close(self):
        """End the pooled servers; stop the Ray cluster if this LocalCluster started it,
        leave it if it joined a shared one (Ray then frees what this job still held)."""
        ServerGroup(None, None, 0, self._pool).stop()
        self._pool = []
        if self._ray_here == 'started':
            stop_local_ray()
        elif self._ray_here == 'joined':
            import_ray().shutdown()
        self._ray_here = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def local_cluster(num_cpus=None, progress=True):
    """A :class:`LocalCluster` on this machine (a context manager that stops it).

    Starts Ray here (files under a temp dir, dashboard off) unless this process is
    already connected to a cluster, which is then used and left running, or
    ``GLUONEDU_RAY_ADDRESS`` names a shared cluster (a class's hub sets it), which is
    joined and left when the LocalCluster closes. Each run's servers live in a Ray
    namespace of their own, and closing ends them. With
    ``progress``, starting Ray and each ``run`` print a line when they begin and one
    when they are done (with the seconds taken) — and a line when the start waits for
    another cluster starting on this machine, or tries a fresh Ray node;
    ``progress=False`` prints nothing.
    """
    if 'ray' not in sys.modules:
        local_ray_settings()
    ray = import_ray()
    if ray.is_initialized():
        return LocalCluster(ray_here=None, progress=progress)
    started = time.monotonic()
    address = shared_address()
    if address is not None:
        _report(progress, 'local_cluster: joining the shared Ray cluster at %s ...' % address)
        check_shared_address(address)
        connect_ray(address)
        _report(progress, 'local_cluster: joined (took %.1f s)' % (time.monotonic() - started))
        return LocalCluster(ray_here='joined', progress=progress)
    _report(progress, 'local_cluster: starting Ray on this machine; this takes 10-30 s ...')
    start_local_ray(num_cpus=num_cpus,
                    report=lambda text: _report(progress, 'local_cluster: ' + text))
    _report(progress, 'local_cluster: Ray is running (took %.1f s)'
            % (time.monotonic() - started))
    return LocalCluster(ray_here='started', progress=progress)
