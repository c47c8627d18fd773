"""``python -m gluonedu.launch``: run a training script as several distributed workers.

::

    python -m gluonedu.launch -n WORKERS [-s SERVERS] [--address HOST:PORT] COMMAND...

1. Starts a Ray cluster on this machine, of its own (its own ports and temp dir, beside
   any other launcher's or notebook's), saying when it starts and when Ray is up — or,
   with ``--address``, joins the one whose head runs there (``ray start --head`` on the
   first machine, ``ray start --address=HOST:PORT`` on each other one), or the shared
   cluster ``GLUONEDU_RAY_ADDRESS`` names (a class's hub sets it). Clusters starting
   on one machine at once take turns, and a start that has not succeeded within
   ``GLUONEDU_RAY_START_TIMEOUT`` (300 s) fails with a message saying what it waited for
   (see :mod:`gluonedu.kvstore.ray_cluster`);
2. starts SERVERS server actors (default 1) for this run, spread over the cluster's
   nodes, and says where each one runs;
3. runs COMMAND once per worker, as a subprocess of this launcher, with the run's
   details in its environment (``GLUONEDU_DIST_RANK`` etc., see
   :mod:`gluonedu.kvstore.ray_cluster`); a leading ``python`` is this interpreter;
4. prints every line a worker writes (stdout and stderr) prefixed with its rank,
   ``[0] epoch 1 loss 0.41``;
5. when a worker exits with an error — or stops answering: no heartbeat for a third
   of ``GLUONEDU_DIST_TIMEOUT`` (frozen, stopped with SIGSTOP) — aborts the servers,
   so the other workers stop with an error naming it, and ends any worker still
   running after ``--grace`` seconds;
6. exits 0 if every worker did, else with the first failed worker's exit status (1 if
   it was killed by a signal or stopped answering).

Signals: SIGTERM, SIGINT (Ctrl-C) and SIGHUP are forwarded to every worker (its whole
process group); the launcher then aborts the servers, kills a worker still running 5 s
later, stops the Ray cluster it started (its processes and its temp dir) and exits with
status 128 + the signal's number — within 10 s, even while Ray is still starting (see
:mod:`gluonedu.kvstore.launch_stop`). If the launcher itself is killed (SIGKILL), each
worker notices within half a second that its parent is gone and stops (see
:func:`~gluonedu.kvstore.ray_cluster.watch_launcher`), and the processes of a local
Ray cluster end with it (Ray ties them to the process that started them).

With ``--address``, the workers run on the machine where the launcher runs and Ray
spreads the server actors over the cluster's machines (every machine needs the same Python
environment, with gluonedu and ray installed). An unreachable address, ``-n 0`` or a
missing COMMAND fail at once with exit status 2.
"""
import argparse
import os
import signal
import subprocess
import sys
import threading
import time

from ..base import MXNetError
from . import ray_cluster
from .launch_stop import SIGNALS, WORKER_GRACE, Stopper

__all__ = ['main']

_POLL_SECONDS = 0.05
#: How often the launcher asks server 0 which workers went silent.
_HEARTBEAT_CHECK_SECONDS = 1.0


def _parser():
    parser = argparse.ArgumentParser(
        prog='python -m gluonedu.launch',
        description='Run COMMAND as WORKERS distributed workers (dist_sync / dist_async '
                    'kvstores) with SERVERS server actors on a Ray cluster.')
    parser.add_argument('-n', '--num-workers', type=int, required=True,
                        help='number of worker processes (at least 1)')
    parser.add_argument('-s', '--num-servers', type=int, default=1,
                        help='number of server actors (default 1)')
    parser.add_argument('--address', default=None,
                        help="join the Ray cluster whose head is at HOST:PORT (see `ray start "
                             "--head`) instead of starting one here (default: the shared "
                             "cluster GLUONEDU_RAY_ADDRESS names, if set)")
    parser.add_argument('--grace', type=float, default=10.0,
                        help='seconds the other workers get to stop after one fails before '
                             'they are ended (default 10)')
    parser.add_argument('command', nargs=argparse.REMAINDER,
                        help='the command each worker runs, e.g. python train.py')
    return parser


def _say(message):
    print('gluonedu.launch: %s' % message, file=sys.stderr, flush=True)


def _fail(message):
    _say('error: %s' % message)
    return 2


def _check_args(args):
    if args.num_workers < 1:
        return "-n must be at least 1 (the number of workers), got %d" % args.num_workers
    if args.num_servers < 1:
        return "-s must be at least 1 (the number of servers), got %d" % args.num_servers
    if not args.command:
        return "give the command each worker runs, e.g. `python -m gluonedu.launch -n 2 " \
               "python train.py`"
    return None


class _Worker:
    """One worker subprocess and the thread copying its output, line by line."""

    def __init__(self, rank, command, env, lock):
        self.rank = rank
        self.proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                     start_new_session=True)
        self._lock = lock
        self.reader = threading.Thread(target=self._copy_output, daemon=True)
        self.reader.start()

    def _copy_output(self):
        prefix = ('[%d] ' % self.rank).encode()
        out = sys.stdout.buffer
        for line in iter(self.proc.stdout.readline, b''):
            with self._lock:
                out.write(prefix + line if line.endswith(b'\n') else prefix + line + b'\n')
                out.flush()
        self.proc.stdout.close()

    def end(self, sig):
        """Send ``sig`` to the worker's process group (it may have children)."""
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                pass


def _describe(code):
    if code < 0:
        try:
            return 'was killed by signal %s' % signal.Signals(-code).name
        except ValueError:
            return 'was killed by signal %d' % -code
    return 'exited with status %d' % code


class _Run:
    """What the launcher has started so far, for the clean-up."""

    def __init__(self):
        self.ray = None       # 'local' (started here) or 'joined', once connected
        self.group = None     # the ServerGroup, once started
        self.workers = []


def _silent_worker(running, group, limit):
    """(worker, seconds) of a running worker whose heartbeat stopped; else None."""
    ranks = {w.rank: w for w in running}
    for rank, seconds in group.silent_workers(limit):
        if rank in ranks and ranks[rank].proc.poll() is None:
            return ranks[rank], seconds
    return None


def _supervise(workers, group, grace, silence_limit, stopper):
    """Wait for the workers; on the first failure abort the run. Returns the exit status
    (None when a signal stops the run: the stopper ends the workers)."""
    failed = None          # (description, exit status) of the first failure
    end_by = None          # when workers still running get SIGTERM, then SIGKILL
    running = list(workers)
    next_check = time.monotonic() + _HEARTBEAT_CHECK_SECONDS
    while running:
        time.sleep(_POLL_SECONDS)
        if stopper.stopping:
            return None
        for w in list(running):
            code = w.proc.poll()
            if code is None:
                continue
            running.remove(w)
            w.reader.join(timeout=5)
            if code != 0 and failed is None:
                failed = ('worker %d %s' % (w.rank, _describe(code)), code if code > 0 else 1)
        if failed is None and running and time.monotonic() >= next_check:
            next_check = time.monotonic() + _HEARTBEAT_CHECK_SECONDS
            silent = _silent_worker(running, group, silence_limit)
            if silent is not None:
                w, seconds = silent
                failed = ('worker %d stopped answering (no heartbeat for %.0f s: frozen, '
                          'stopped with SIGSTOP, or stuck outside Python)' % (w.rank, seconds),
                          1)
                w.end(signal.SIGKILL)  # a stopped process acts on no other signal
        if failed is not None and end_by is None:
            _say('%s; stopping the other workers' % failed[0])
            group.abort(failed[0])
            end_by = time.monotonic() + grace
        if end_by is not None and running and time.monotonic() > end_by:
            for w in running:
                _say('worker %d did not stop within %.0f s; ending it' % (w.rank, grace))
                w.end(signal.SIGTERM)
            end_by = float('inf')
            for w in running:
                try:
                    w.proc.wait(timeout=3.0)
                except subprocess.TimeoutExpired:
                    w.end(signal.SIGKILL)
    if failed is None:
        return 0
    _say('the run failed: %s' % failed[0])
    return failed[1]


def main(argv=None):
    """Run the launcher; returns its exit status."""
    args = _parser().parse_args(argv)
    problem = _check_args(args)
    if problem:
        return _fail(problem)
    run = _Run()
    stopper = Stopper(run, last_resort=ray_cluster.discard_local_ray)
    stopper.install()
    try:
        status = _launch(args, run, stopper)
        if stopper.stopping or status is None:
            stopper.workers_ended.wait(WORKER_GRACE + 1.0)
            for w in run.workers:  # any started after the stopper looked
                w.end(signal.SIGKILL)
            status = 128 + (stopper.signum or signal.SIGTERM)
        return status
    finally:
        _release(args, run)
        stopper.finished()
        stopper.uninstall()


def _launch(args, run, stopper):
    """Start Ray (or join it), the servers and the workers; supervise them. The exit
    status, or None if a signal stopped the run."""
    from .dist_cluster import _short, start_servers
    try:
        with stopper.interrupting():
            address = _start_or_join_ray(args, run)
    except (MXNetError, ImportError) as err:
        return _fail(str(err))
    except Exception as err:  # Ray's own
        return _fail("Ray could not start or connect: %s" % _short(err))
    except SystemExit as stop:  # a stop signal (ours or ray.init's handler) while Ray started
        if stop.code not in SIGNALS:
            raise
        return None
    stopper.reinstall()  # ray.init replaced the SIGTERM handler
    if stopper.stopping:
        return None
    command = list(args.command)
    if command[0] in ('python', 'python3'):
        command[0] = sys.executable
    try:
        run.group = group = start_servers(args.num_workers, args.num_servers, address=address)
        for server_id, (ip, node) in enumerate(group.locations()):
            _say('server %d runs on %s (Ray node %s)' % (server_id, ip, node))
        lock = threading.Lock()
        for rank in range(args.num_workers):
            if stopper.stopping:
                return None
            env = dict(os.environ, PYTHONUNBUFFERED='1', **group.worker_env(rank).to_environ())
            env[ray_cluster.ENV_LAUNCHER_PID] = str(os.getpid())
            run.workers.append(_Worker(rank, command, env, lock))
        return _supervise(run.workers, group, args.grace, ray_cluster.silence_limit_seconds(),
                          stopper)
    except (MXNetError, OSError) as err:
        for w in run.workers:
            w.end(signal.SIGKILL)
        return None if stopper.stopping else _fail(str(err))


def _start_or_join_ray(args, run):
    """Start a local Ray cluster, saying so, or join the one at ``--address`` (or the
    shared one); its address."""
    address = args.address or ray_cluster.shared_address()
    if address:
        ray_cluster.local_ray_settings()  # before Ray is imported: it reads some then
        ray_cluster.import_ray()
        if args.address:
            ray_cluster.check_address(address)
        else:
            _say('joining the shared Ray cluster at %s (%s)' % (address, ray_cluster.ENV_ADDRESS))
            ray_cluster.check_shared_address(address)
        run.ray = 'joined'
        ray_cluster.connect_ray(address)
        return address
    ray_cluster.local_ray_settings()  # before Ray is imported: it reads some then
    ray_cluster.import_ray()
    run.ray = 'local'
    started = time.monotonic()
    _say('starting Ray on this machine ...')
    address = ray_cluster.start_local_ray(report=_say)
    _say('Ray is running at %s (took %.1f s)' % (address, time.monotonic() - started))
    return address


def _release(args, run):
    """Stop the Ray cluster started here, or leave the joined one (and end our servers)."""
    if run.ray == 'local':
        ray_cluster.stop_local_ray()
    elif run.ray == 'joined':
        if run.group is not None:
            run.group.stop()
        ray_cluster.import_ray().shutdown()
