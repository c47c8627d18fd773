"""Starting and joining the Ray cluster the distributed stores run on.

Ray is optional (``pip install 'gluonedu[dist]'``); it is imported only here, and only
when a distributed store, the launcher or :func:`local_cluster` needs it.

What a worker process needs to find its servers travels in environment variables (the
launcher sets them; :func:`local_cluster` sets the same values inside its Ray tasks):

=============================  =========================================================
``GLUONEDU_RAY_ADDRESS``       the Ray cluster (``host:port`` of its head); set where
                               no ``GLUONEDU_DIST_GROUP`` is (a notebook's kernel on a
                               class's hub), a shared cluster that :func:`local_cluster`
                               and the launcher join instead of starting their own
                               (:func:`shared_address`)
``GLUONEDU_DIST_GROUP``        the Ray namespace of this training run's server actors
``GLUONEDU_DIST_RANK``         this worker's rank, ``0 … num_workers-1``
``GLUONEDU_DIST_NUM_WORKERS``  the number of workers
``GLUONEDU_DIST_NUM_SERVERS``  the number of server actors
``GLUONEDU_DIST_TIMEOUT``      seconds any wait on the cluster may take (default 120)
``GLUONEDU_LAUNCHER_PID``      the launcher's process id: a worker it started watches
                               it and stops when it is gone (:func:`watch_launcher`)
=============================  =========================================================

``GLUONEDU_RAY_START_TIMEOUT`` (seconds, default 300) bounds the start of a local cluster,
waiting for other starts on the machine included.

Liveness: a worker's store sends server 0 a heartbeat every :func:`heartbeat_seconds`
(at most 5 s, a tenth of the timeout); the launcher names a running worker silent for
longer than :func:`silence_limit_seconds` (a third of the timeout) as the cause of a
stalled run — before the healthy workers' own waits time out.

A local cluster started here keeps Ray's files (sockets, logs, spilled objects) in a
fresh directory under the system temp dir, removed when the cluster stops; its
authentication token lives only in the environment (``RAY_AUTH_TOKEN``) of this process
and its children, never in ``~/.ray``; the dashboard is off and usage statistics are
not collected.

Several local clusters may run on one machine (two students on a server, a notebook
beside a script): each has its own directory, and Ray's processes bind free ports of
their own. Their *starts* take turns, though: Ray gives the helper processes of a new
node fixed deadlines to report (15 s for its dashboard agent, 30 s for the node), and a
small machine starting two or three nodes at once — each one six Python processes
importing Ray — misses them. A start waits for the others through a lock file in the
system temp dir (the kernel releases it if its holder dies) and says so; a node that
misses its deadline anyway is ended, processes and files, and a fresh one tried.
"""
import contextlib
import os
import secrets
import shutil
import signal
import socket
import sys
import tempfile
import threading
import time
from dataclasses import dataclass

from ..base import MXNetError

try:
    import fcntl
except ImportError:  # Windows: the starts of local clusters do not take turns
    fcntl = None

__all__ = ['WorkerEnv', 'import_ray', 'local_ray_settings', 'start_local_ray',
           'stop_local_ray', 'discard_local_ray', 'connect_ray', 'check_address',
           'shared_address', 'check_shared_address',
           'timeout_seconds', 'start_timeout_seconds', 'heartbeat_seconds',
           'silence_limit_seconds', 'watch_launcher', 'ENV_ADDRESS', 'ENV_GROUP', 'ENV_RANK',
           'ENV_NUM_WORKERS', 'ENV_NUM_SERVERS', 'ENV_TIMEOUT', 'ENV_START_TIMEOUT',
           'ENV_LAUNCHER_PID', 'START_LOCK_NAME']

ENV_ADDRESS = 'GLUONEDU_RAY_ADDRESS'
ENV_GROUP = 'GLUONEDU_DIST_GROUP'
ENV_RANK = 'GLUONEDU_DIST_RANK'
ENV_NUM_WORKERS = 'GLUONEDU_DIST_NUM_WORKERS'
ENV_NUM_SERVERS = 'GLUONEDU_DIST_NUM_SERVERS'
ENV_TIMEOUT = 'GLUONEDU_DIST_TIMEOUT'
ENV_LAUNCHER_PID = 'GLUONEDU_LAUNCHER_PID'
ENV_START_TIMEOUT = 'GLUONEDU_RAY_START_TIMEOUT'

_DEFAULT_TIMEOUT = 120.0
_DEFAULT_START_TIMEOUT = 300.0

#: Settings for Ray processes this package starts: no usage reports, no metrics
#: exporter, and patience with agents that start slowly on a busy 2-core machine.
_RAY_SETTINGS = {
    'RAY_USAGE_STATS_ENABLED': '0',
    'RAY_enable_metrics_collection': '0',
    'RAY_agent_register_timeout_ms': '120000',
    'RAY_raylet_start_wait_time_s': '120',
    # Ray would start one idle worker per CPU for the first driver: wasted on a laptop.
    'RAY_prestart_worker_first_driver': '0',
    # A Ray call after ray.shutdown() (a worker's heartbeat as its process exits) fails
    # instead of starting a cluster of its own in /tmp/ray. Ray reads it when imported.
    'RAY_ENABLE_AUTO_CONNECT': '0',
    # Without it Ray replaces the 127.0.0.1 asked for with the machine's network address
    # and its GCS and raylets listen on every interface. Ray reads it when imported: a
    # process that imported ray before starting a local cluster keeps Ray's choice.
    'RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER': '0',
}


def import_ray():
    """The ``ray`` module, or an ImportError saying how to install it."""
    try:
        import ray
    except ImportError as err:
        raise ImportError("distributed kvstores (dist_sync, dist_async, ...) run on Ray, which "
                          "is not installed; install it with `pip install 'gluonedu[dist]'` "
                          "(or `pip install ray`)") from err
    return ray


def _seconds_from_environ(name, default):
    text = os.environ.get(name)
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        raise MXNetError("%s must be a number of seconds, got %r" % (name, text)) from None
    if value <= 0:
        raise MXNetError("%s must be positive, got %r" % (name, text))
    return value


def timeout_seconds():
    """The bound on any wait for the cluster (``GLUONEDU_DIST_TIMEOUT``, default 120 s)."""
    return _seconds_from_environ(ENV_TIMEOUT, _DEFAULT_TIMEOUT)


def start_timeout_seconds():
    """The bound on starting a local cluster, waiting for other starts on this machine
    included (``GLUONEDU_RAY_START_TIMEOUT``, default 300 s)."""
    return _seconds_from_environ(ENV_START_TIMEOUT, _DEFAULT_START_TIMEOUT)


def heartbeat_seconds():
    """How often a worker's store tells server 0 that the worker is alive."""
    return min(5.0, timeout_seconds() / 10)


def silence_limit_seconds():
    """How long a running worker may go without a heartbeat before the launcher names it
    as the cause of a stalled run (a third of the timeout: the others wait longer)."""
    return timeout_seconds() / 3


#: How often a worker checks that the launcher that started it still runs.
_LAUNCHER_CHECK_SECONDS = 0.5
#: How long a worker's process group gets to end after SIGTERM before SIGKILL.
_ORPHAN_GRACE_SECONDS = 3.0
_WATCH = []   # the watch thread of this process, once started


def watch_launcher(environ=None):
    """In a worker the launcher started, stop the worker when the launcher is gone.

    ``GLUONEDU_LAUNCHER_PID`` names the launcher; when this process was started by it
    (its parent), a daemon thread checks twice a second that it still is. Once the
    launcher is gone (killed with SIGKILL, say), the worker's process group — the worker
    and anything it started — gets SIGTERM, then SIGKILL 3 s later. Elsewhere (the
    variable unset, or inherited by a grandchild) this does nothing. Called when
    :mod:`gluonedu.kvstore` is imported.
    """
    environ = os.environ if environ is None else environ
    text = environ.get(ENV_LAUNCHER_PID, '')
    if not text.isdigit() or int(text) != os.getppid() or _WATCH:
        return
    thread = threading.Thread(target=_watch, args=(int(text),), daemon=True,
                              name='gluonedu-launcher-watch')
    _WATCH.append(thread)
    thread.start()


def _watch(launcher):
    while os.getppid() == launcher:
        time.sleep(_LAUNCHER_CHECK_SECONDS)
    try:
        print('gluonedu: the launcher (pid %d) is gone; this worker stops' % launcher,
              file=sys.stderr, flush=True)
    except OSError:  # stderr was a pipe to the launcher: nobody reads it any more
        pass
    # The launcher starts each worker as the leader of its own process group.
    leader = os.getpgrp() == os.getpid()
    for sig in (signal.SIGTERM, signal.SIGKILL):
        if leader:
            os.killpg(os.getpid(), sig)
        else:
            os.kill(os.getpid(), sig)
        time.sleep(_ORPHAN_GRACE_SECONDS)


@dataclass(frozen=True)
class WorkerEnv:
    """Where a worker is: its cluster, its run's server group, its rank.

    ``servers``: the server actors' handles, when the worker runs as a Ray task of the
    process that holds them (local_cluster); otherwise the worker finds them by name.
    """
    address: str
    group: str
    rank: int
    num_workers: int
    num_servers: int
    servers: tuple = None

    def to_environ(self):
        """The environment variables that describe this worker (for a subprocess)."""
        return {ENV_ADDRESS: self.address, ENV_GROUP: self.group, ENV_RANK: str(self.rank),
                ENV_NUM_WORKERS: str(self.num_workers),
                ENV_NUM_SERVERS: str(self.num_servers)}

    @classmethod
    def from_environ(cls, environ=None):
        """The worker described by ``environ`` (``os.environ``), or None if it names none."""
        environ = os.environ if environ is None else environ
        if ENV_GROUP not in environ:
            return None
        try:
            return cls(environ[ENV_ADDRESS], environ[ENV_GROUP], int(environ[ENV_RANK]),
                       int(environ[ENV_NUM_WORKERS]), int(environ[ENV_NUM_SERVERS]))
        except (KeyError, ValueError) as err:
            raise MXNetError("%s is set but the other GLUONEDU_DIST_* variables are missing or "
                             "malformed (%s); start workers with `python -m gluonedu.launch`"
                             % (ENV_GROUP, err)) from None


def check_address(address, timeout=3.0):
    """Fail fast, with a clear message, when nothing listens at ``host:port``."""
    host, sep, port = address.rpartition(':')
    if address.startswith('ray://'):
        raise MXNetError("--address takes the head's host:port (from `ray start --head`), not a "
                         "Ray Client address %r" % (address,))
    if not sep or not port.isdigit():
        raise MXNetError("the Ray address must look like HOST:PORT (e.g. 192.168.1.5:6379, as "
                         "printed by `ray start --head`), got %r" % (address,))
    try:
        with socket.create_connection((host, int(port)), timeout=timeout):
            pass
    except OSError as err:
        raise MXNetError("no Ray cluster answers at %s (%s). Start one there with `ray start "
                         "--head --port=%s`, or leave out --address to start a local cluster."
                         % (address, err.strerror or err, port)) from None


_LOCAL = {}   # what start_local_ray set up: its node's temp dir, the saved environment
#: How many fresh nodes a local cluster tries before a startup timeout is raised.
START_ATTEMPTS = 3
#: The file (in the system temp dir) through which this machine's local clusters take
#: turns to start; it stays there, empty but for the pid of the last process to start.
START_LOCK_NAME = 'gluonedu-start-ray.lock'
_LOCK_POLL_SECONDS = 0.2
_AUTH_VARS = ('RAY_AUTH_MODE', 'RAY_AUTH_TOKEN', 'RAY_AUTH_TOKEN_PATH')
#: Ray's words for a node that missed its start-up deadline.
_NODE_TIMED_OUT = 'timed out during startup'


def local_ray_settings():
    """Put the settings of a local cluster in the environment (values the user set are
    kept); to be called before ray is imported, since Ray reads some of them then."""
    for name, value in _RAY_SETTINGS.items():
        os.environ.setdefault(name, value)


def start_local_ray(num_cpus=None, log_to_driver=False, report=None):
    """Start a Ray cluster on this machine, with this process as its driver.

    Returns the cluster's address (``host:port``) for other processes to join. Ray's
    files go to a fresh temp directory (removed by :func:`stop_local_ray`). The starts of
    a machine's local clusters take turns (see the module docstring); ``report(text)``
    hears of a wait for another start and of a retry. Raises an MXNetError that says
    what it waited for when Ray has not started within :func:`start_timeout_seconds`.
    Interrupted (KeyboardInterrupt, SystemExit), it ends the node it was starting.
    """
    report = report or (lambda text: None)
    already_imported = 'ray' in sys.modules
    if already_imported and sys.modules['ray'].is_initialized():
        raise MXNetError("this process is already connected to a Ray cluster; stop it with "
                         "ray.shutdown() before starting a local one")
    deadline = time.monotonic() + start_timeout_seconds()
    local_ray_settings()
    # Token authentication with a token that lives only in this process tree's environment
    # (restored by stop_local_ray).
    _LOCAL['saved_env'] = {k: os.environ.get(k) for k in _AUTH_VARS}
    os.environ['RAY_AUTH_MODE'] = 'token'
    os.environ['RAY_AUTH_TOKEN'] = secrets.token_hex(32)
    os.environ.pop('RAY_AUTH_TOKEN_PATH', None)
    try:
        ray = import_ray()
        if already_imported:
            # Ray read RAY_AUTH_MODE when it was imported; make it read the environment again.
            try:
                from ray._raylet import Config
                Config.initialize("")
            except (ImportError, AttributeError):  # an older Ray without token authentication
                pass
        with _turn_to_start(deadline, report):
            return _start_node(ray, num_cpus, log_to_driver, deadline, report)
    except BaseException:
        _restore_environ()
        raise


def _start_node(ray, num_cpus, log_to_driver, deadline, report):
    """Start this process's node, trying fresh ones while Ray's deadline is missed."""
    started = time.monotonic()
    for attempt in range(1, START_ATTEMPTS + 1):
        # Unix socket paths are limited to ~100 characters: keep the directory name short.
        _LOCAL['temp_dir'] = tempfile.mkdtemp(prefix='gluonedu-ray-')
        try:
            # address='local': a new cluster even where RAY_ADDRESS names another one.
            # On loopback only: nothing outside this machine can reach a local cluster.
            ray.init(address='local', num_cpus=num_cpus or max(os.cpu_count() or 1, 2),
                     include_dashboard=False, _node_ip_address='127.0.0.1',
                     _temp_dir=_LOCAL['temp_dir'], logging_level='ERROR',
                     log_to_driver=log_to_driver, configure_logging=True)
            return ray.get_runtime_context().gcs_address
        except BaseException as err:
            _end_node(ray)
            if _NODE_TIMED_OUT not in str(err):
                raise
            failure = err
        out_of_time = time.monotonic() >= deadline
        if attempt == START_ATTEMPTS or out_of_time:
            break
        report("Ray's node missed its start-up deadline (this machine is busy); trying a "
               "fresh one (try %d of %d) ..." % (attempt + 1, START_ATTEMPTS))
    more_time = (", or give it more than %.0f s with %s=SECONDS"
                 % (start_timeout_seconds(), ENV_START_TIMEOUT)) if out_of_time else ''
    raise MXNetError(
        "Ray did not start on this machine: %d node(s) in %.0f s, and each missed Ray's "
        "start-up deadline (its helper processes must report within 15-30 s; a busy "
        "machine can miss that%s). Try again when the machine is less busy%s. Ray said: %s"
        % (attempt, time.monotonic() - started, _load_text(), more_time,
           str(failure).strip())) from failure


def _load_text():
    """', load average 7.5 on 2 CPUs' (empty where the system does not say)."""
    try:
        return ', load average %.1f on %d CPUs' % (os.getloadavg()[0], os.cpu_count() or 1)
    except (AttributeError, OSError):   # Windows
        return ''


@contextlib.contextmanager
def _turn_to_start(deadline, report):
    """Hold the machine's start lock for the body, waiting for it while another process
    starts a local cluster. Without a lock to share (no fcntl: Windows; a lock file this
    user may not open) the body runs at once."""
    fd = _open_start_lock()
    try:
        if fd is not None:
            _wait_for_turn(fd, deadline, report)
        yield
    finally:
        if fd is not None:
            os.close(fd)  # releases the lock


def _open_start_lock():
    """The start lock file, open; None where there is none to share."""
    if fcntl is None:
        return None
    path = os.path.join(tempfile.gettempdir(), START_LOCK_NAME)
    flags = os.O_RDWR | os.O_NOFOLLOW  # a link planted in a shared /tmp is not followed
    while True:
        try:
            return os.open(path, flags)
        except FileNotFoundError:
            pass
        except OSError:  # not ours to open (another user's file, a link): no turns taken
            return None
        try:
            fd = os.open(path, flags | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            continue  # another process created it a moment ago
        except OSError:
            return None
        os.fchmod(fd, 0o666)  # every user's starts take turns; the umask would keep theirs out
        return fd


def _wait_for_turn(fd, deadline, report):
    started = time.monotonic()
    holder = None
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            pass
        now_holding = os.pread(fd, 32, 0).decode(errors='replace').strip() or '?'
        if now_holding != holder:  # said once for each start waited for
            holder = now_holding
            report("another Ray cluster on this machine is starting (process %s); waiting "
                   "for it ..." % holder)
        if time.monotonic() >= deadline:
            raise MXNetError(
                "Ray did not start within %.0f s: another Ray cluster on this machine "
                "(process %s) was starting all that time, and the starts of local clusters "
                "take turns. Try again once it is up, or give the start more time with "
                "%s=SECONDS." % (start_timeout_seconds(), holder, ENV_START_TIMEOUT))
        time.sleep(_LOCK_POLL_SECONDS)
    if holder is not None:
        report("waited %.1f s for other starts; starting Ray" % (time.monotonic() - started))
    os.ftruncate(fd, 0)
    os.pwrite(fd, str(os.getpid()).encode(), 0)


def stop_local_ray():
    """Stop what :func:`start_local_ray` started and remove its files."""
    _end_node(import_ray())
    _restore_environ()


def _end_node(ray):
    # ray.shutdown() does not know a node that failed to start: discard_local_ray ends
    # what of it still runs (its GCS, dashboard and monitors would).
    ray.shutdown()
    discard_local_ray()


def _restore_environ():
    for name, value in _LOCAL.pop('saved_env', {}).items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


def discard_local_ray():
    """End the processes of the local node this process started — or is starting — and
    remove its files, without Ray's help. For a node that failed to start, and for a
    launcher that must exit while its main thread is still inside Ray (any thread may
    call it)."""
    temp_dir = _LOCAL.pop('temp_dir', None)
    # A node still starting may add a process (and its files) while the first round runs.
    for _ in range(3):
        if temp_dir is None or not os.path.exists(temp_dir):
            return
        _kill_processes_of(temp_dir)
        shutil.rmtree(temp_dir, ignore_errors=True)


def _kill_processes_of(temp_dir):
    """Kill this process's descendants that name ``temp_dir`` on their command line: the
    processes of the Ray node whose files are there."""
    # psutil comes with the dist extra (and Ray needs it too).
    import psutil
    ended = []
    for proc in psutil.Process().children(recursive=True):
        try:
            if any(temp_dir in arg for arg in proc.cmdline()):
                proc.kill()
                ended.append(proc)
        except psutil.Error:  # gone already
            continue
    psutil.wait_procs(ended, timeout=5)


def shared_address(environ=None):
    """The shared cluster this process is to join (``GLUONEDU_RAY_ADDRESS``), or None.

    Inside a launcher's worker the variable names its run's cluster, with the rest of
    the worker's details (``GLUONEDU_DIST_GROUP``): that is not a shared cluster."""
    environ = os.environ if environ is None else environ
    address = environ.get(ENV_ADDRESS, '').strip()
    if not address or ENV_GROUP in environ:
        return None
    return address


def check_shared_address(address):
    """:func:`check_address` for the shared cluster ``GLUONEDU_RAY_ADDRESS`` names, with
    advice that fits it."""
    try:
        check_address(address)
    except MXNetError:
        raise MXNetError("the shared Ray cluster %s=%s names does not answer: ask whoever runs "
                         "the class's hub to start it again, or unset %s to start a cluster "
                         "of your own" % (ENV_ADDRESS, address, ENV_ADDRESS)) from None


def connect_ray(address, log_to_driver=False):
    """Join the Ray cluster at ``address`` as a driver (a no-op if already connected)."""
    local_ray_settings()  # before Ray is imported, where this process has not yet
    ray = import_ray()
    if ray.is_initialized():
        return
    check_address(address)
    ray.init(address=address, logging_level='ERROR', log_to_driver=log_to_driver,
             configure_logging=True)
