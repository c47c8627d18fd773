"""``python -m gluonedu.launch``: run a training script as several distributed workers.

::

    python -m gluonedu.launch -n WORKERS [-s SERVERS] [--address HOST:PORT] COMMAND...

1. Starts a Ray cluster on this machine — or, with ``--address``, joins the one whose
   head runs there (``ray start --head`` on the first machine, ``ray start
   --address=HOST:PORT`` on each other one);
2. starts SERVERS server actors (default 1) for this run, spread over the cluster's
   nodes, and says where each one runs;
3. runs COMMAND once per worker, as a subprocess of this launcher, with the run's
   details in its environment (``GLUONEDU_DIST_RANK`` etc., see
   :mod:`gluonedu.kvstore.ray_cluster`); a leading ``python`` is this interpreter;
4. prints every line a worker writes (stdout and stderr) prefixed with its rank,
   ``[0] epoch 1 loss 0.41``;
5. when a worker exits with an error, aborts the servers — the other workers stop with
   an error naming it — and ends any worker still running after ``--grace`` seconds;
6. exits 0 if every worker did, else with the first failed worker's exit status (1 if
   it was killed by a signal).

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

__all__ = ['main']

_POLL_SECONDS = 0.05


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
                             "--head`) instead of starting one here")
    parser.add_argument('--grace', type=float, default=10.0,
                        help='seconds the other workers get to stop after one fails before '
                             'they are ended (default 10)')
    parser.add_argument('command', nargs=argparse.REMAINDER,
                        help='the command each worker runs, e.g. python train.py')
    return parser


def _fail(message):
    print('gluonedu.launch: error: %s' % message, file=sys.stderr, flush=True)
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


def _supervise(workers, group, grace):
    """Wait for the workers; on the first failure abort the run. Returns the exit status."""
    failed = None          # (rank, code) of the first failure
    end_by = None          # when workers still running get SIGTERM, then SIGKILL
    running = list(workers)
    while running:
        time.sleep(_POLL_SECONDS)
        for w in list(running):
            code = w.proc.poll()
            if code is None:
                continue
            running.remove(w)
            w.reader.join(timeout=5)
            if code != 0 and failed is None:
                failed = (w.rank, code)
                reason = 'worker %d %s' % (w.rank, _describe(code))
                print('gluonedu.launch: %s; stopping the other workers' % reason,
                      file=sys.stderr, flush=True)
                group.abort(reason)
                end_by = time.monotonic() + grace
        if end_by is not None and running and time.monotonic() > end_by:
            for w in running:
                print('gluonedu.launch: worker %d did not stop within %.0f s; ending it'
                      % (w.rank, grace), file=sys.stderr, flush=True)
                w.end(signal.SIGTERM)
            end_by = time.monotonic() + 3.0
            grace = 0.0
            for w in running:
                try:
                    w.proc.wait(timeout=3.0)
                except subprocess.TimeoutExpired:
                    w.end(signal.SIGKILL)
    if failed is None:
        return 0
    rank, code = failed
    print('gluonedu.launch: the run failed: worker %d %s' % (rank, _describe(code)),
          file=sys.stderr, flush=True)
    return code if code > 0 else 1


def main(argv=None):
    """Run the launcher; returns its exit status."""
    args = _parser().parse_args(argv)
    problem = _check_args(args)
    if problem:
        return _fail(problem)
    from . import ray_cluster
    from .dist_cluster import start_servers
    try:
        ray_cluster.import_ray()
        if args.address:
            ray_cluster.check_address(args.address)
            ray_cluster.connect_ray(args.address)
            address = args.address
        else:
            address = ray_cluster.start_local_ray()
    except (MXNetError, ImportError) as err:
        return _fail(str(err))
    command = list(args.command)
    if command[0] in ('python', 'python3'):
        command[0] = sys.executable
    workers, group = [], None
    try:
        group = start_servers(args.num_workers, args.num_servers, address=address)
        for server_id, (ip, node) in enumerate(group.locations()):
            print('gluonedu.launch: server %d runs on %s (Ray node %s)' % (server_id, ip, node),
                  file=sys.stderr, flush=True)
        lock = threading.Lock()
        for rank in range(args.num_workers):
            env = dict(os.environ, PYTHONUNBUFFERED='1', **group.worker_env(rank).to_environ())
            workers.append(_Worker(rank, command, env, lock))
        return _supervise(workers, group, args.grace)
    except KeyboardInterrupt:
        for w in workers:
            w.end(signal.SIGTERM)
        return 130
    except (MXNetError, OSError) as err:
        for w in workers:
            w.end(signal.SIGKILL)
        return _fail(str(err))
    finally:
        if not args.address:
            ray_cluster.stop_local_ray()
        else:
            if group is not None:
                group.stop()
            ray_cluster.import_ray().shutdown()
