"""A class on one server: JupyterHub with nbgrader's exchange (``make hub``; docs/hub.md).

    python scripts/hub.py [--roster CSV] [--port PORT] [--hub-dir DIR] [--exchange DIR]
                          [NOTEBOOK ...]

Run as root, with the class environment built (``.venv-hub``, from a Python every user
can run: gluonedu with the lab's extras, JupyterHub, nbgrader, configurable-http-proxy).
It

* reads the roster (``username,role``: one instructor, the students) and creates the
  Unix accounts missing, each with a home only its owner can open (0700) and a first
  password (``<hub dir>/state/initial-passwords.csv``, readable by root only);
* makes nbgrader's exchange (``<hub dir>/exchange``, or an existing ``--exchange``) and
  the course ``gluonedu`` in the instructor's home (``~/course``: the instructor
  versions in ``source/``, the student versions in ``release/``), unless it exists;
* starts JupyterHub on 127.0.0.1:PORT behind configurable-http-proxy, with PAM logins
  for the roster's users only, the instructor its only admin, and each user's server
  (JupyterLab) run as that user by LocalProcessSpawner, on 127.0.0.1, its kernels on
  the class environment's Python (gluonedu installed once for all) — so that file
  permissions, not convention, keep each student's work and the instructor's answers
  to their owners;
* gives notebook 12's distributed training a Ray cluster to join
  (``GLUONEDU_RAY_ADDRESS``), so that ``mx.kv.local_cluster()`` does not start one per
  kernel. By default (``--ray per-user``) each user's server gets a cluster of its own,
  started with the server and stopped with it, run as that user on 127.0.0.1, its files
  in a folder only that user can open and a token of its own: every kernel of a student
  shares it, and no other student can reach it. ``--ray shared`` starts one cluster for
  the whole class instead, run as a system account (``gluonedu-ray``), which costs less
  memory but keeps students apart only as far as Ray does (docs/hub.md: not for code
  the students send to it); ``--ray none``: each kernel starts its own.

Nothing here assumes it is alone on the machine: the hub's own ports are free ones, the
public one is checked first, and each hub keeps its state in its own directory.
``tests/hub/test_hub_cycle.py`` runs a whole assignment cycle through such a hub.
"""
import argparse
import csv
import json
import os
import pwd
import re
import secrets
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

SCRIPTS = Path(__file__).resolve().parent
REPO = SCRIPTS.parent
CONFIG_FILE = REPO / 'etc' / 'hub' / 'jupyterhub_config.py'
DEFAULT_ROSTER = REPO / 'etc' / 'hub' / 'roster.example.csv'
DEFAULT_HUB_DIR = Path('/srv/gluonedu-hub')
DEFAULT_PORT = 8000

#: Everything the hub serves listens here only: a class reaches it through a TLS reverse
#: proxy in front (docs/hub.md), never directly.
HOST = '127.0.0.1'
#: nbgrader's course id: the exchange's folder for this course.
COURSE_ID = 'gluonedu'
ROLES = ('instructor', 'student')
#: A Unix account name that useradd, PAM and JupyterHub all take as it is.
NAME = re.compile(r'[a-z_][a-z0-9_-]{0,31}\Z')
#: Accounts below this uid are the system's (root, daemons): never a member of a class.
FIRST_PERSON_UID = 1000
#: The system account the class's Ray cluster runs as (``--ray shared``); the roster's
#: users join its group.
RAY_USER = 'gluonedu-ray'
#: Where notebook 12's distributed training runs: a cluster per user's server, one for the
#: class, or a cluster per kernel (``mx.kv.local_cluster()``'s own).
RAY_MODES = ('per-user', 'shared', 'none')
#: nbgrader checks the exchange's permission bits (rwx for everyone); the sticky bit on
#: top keeps each course folder there renamable and removable by its owner only.
EXCHANGE_MODE = 0o1777


class HubError(Exception):
    """A set-up the hub cannot start with; the message says what to do."""


@dataclass(frozen=True)
class Roster:
    instructor: str
    students: tuple

    @property
    def users(self):
        return (self.instructor, *self.students)

    def role(self, name):
        return 'instructor' if name == self.instructor else 'student'


def read_roster(path):
    """The :class:`Roster` in the CSV file ``path`` (header ``username,role``; blank lines
    and lines starting with ``#`` are skipped)."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as err:
        raise HubError('cannot read the roster %s: %s' % (path, err.strerror)) from None
    lines = [(number, line) for number, line in enumerate(text.splitlines(), 1)
             if line.strip() and not line.lstrip().startswith('#')]
    if not lines or [c.strip() for c in lines[0][1].split(',')] != ['username', 'role']:
        raise HubError("the roster %s must start with the header line 'username,role'"
                       % path)
    seen, instructors, students = {}, [], []
    for number, line in lines[1:]:
        row = next(csv.reader([line]))
        where = 'the roster %s, line %d' % (path, number)
        if len(row) != 2:
            raise HubError('%s: expected two fields, username,role; got %r'
                           % (where, ','.join(row)))
        name, role = (field.strip() for field in row)
        if not NAME.match(name):
            raise HubError("%s: %r is not a valid user name: use lowercase letters, digits, "
                           "'_' and '-', starting with a letter or '_', at most 32 "
                           "characters" % (where, name))
        if name in seen:
            raise HubError('%s: %r is listed twice (line %d and line %d); list each user once'
                           % (where, name, seen[name], number))
        if role not in ROLES:
            raise HubError('%s: the role of %r must be instructor or student, not %r'
                           % (where, name, role))
        seen[name] = number
        (instructors if role == 'instructor' else students).append(name)
    if len(instructors) != 1:
        raise HubError('the roster %s must name exactly one instructor; it names %d%s'
                       % (path, len(instructors),
                          ' (%s)' % ', '.join(instructors) if instructors else ''))
    if not students:
        raise HubError('the roster %s names no student' % path)
    return Roster(instructors[0], tuple(students))


def check_port_free(port, host=HOST):
    """Raise a HubError if ``host:port`` cannot be listened on (another server has it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((host, port))
        except OSError as err:
            raise HubError('port %d on %s is in use (%s): another hub or server has it; '
                           'choose a free one, e.g. make hub HUB_PORT=%d'
                           % (port, host, err.strerror, free_port(host))) from None


def free_port(host=HOST):
    """A port free on ``host`` now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return sock.getsockname()[1]


def check_exchange(path):
    """Raise a HubError unless ``path`` is a directory every user may write (nbgrader's
    exchange: students write their submissions there)."""
    path = Path(path)
    if not path.is_dir():
        raise HubError('the exchange directory %s does not exist; create it (as root: '
                       'mkdir -p %s && chmod 1777 %s), or leave --exchange out to use '
                       "the hub directory's own" % (path, path, path))
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o777 != 0o777:
        raise HubError('the exchange directory %s has mode %o; students cannot submit '
                       'there. nbgrader needs rwx for everyone: chmod 1777 %s'
                       % (path, mode, path))


def _ensure_dir(path, mode, owner=None):
    path.mkdir(parents=True, exist_ok=True)
    os.chmod(path, mode)
    if owner is not None:
        os.chown(path, owner.pw_uid, owner.pw_gid)


def _write(path, text, mode=0o644, owner=None):
    path.write_text(text)
    os.chmod(path, mode)
    if owner is not None:
        os.chown(path, owner.pw_uid, owner.pw_gid)


def ensure_user(name):
    """Create the Unix account ``name`` if it does not exist, with a private home and a
    fresh password; returns that password, or None for an account that existed (its
    home is made private too)."""
    try:
        account = pwd.getpwnam(name)
    except KeyError:
        account = None
    if account is not None and account.pw_uid < FIRST_PERSON_UID:
        raise HubError('%r is a system account (uid %d); a roster names people: rename '
                       'that user in the roster' % (name, account.pw_uid))
    password = None
    if account is None:
        subprocess.run(['useradd', '--create-home', '--user-group', '--shell', '/bin/bash',
                        name], check=True, capture_output=True)
        password = secrets.token_urlsafe(12)
        subprocess.run(['chpasswd'], input='%s:%s\n' % (name, password), text=True,
                       check=True, capture_output=True)
        account = pwd.getpwnam(name)
    os.chmod(account.pw_dir, 0o700)
    return password


def ensure_system_user(name):
    """Create the system account ``name`` (no home, no login) with a group of its own, if
    it does not exist; refuse a person's account of that name."""
    try:
        account = pwd.getpwnam(name)
    except KeyError:
        subprocess.run(['useradd', '--system', '--user-group', '--no-create-home',
                        '--home-dir', '/nonexistent', '--shell', '/usr/sbin/nologin', name],
                       check=True, capture_output=True)
        return
    if account.pw_uid >= FIRST_PERSON_UID:
        raise HubError('%r is a person\'s account (uid %d), not one for the class\'s Ray '
                       'cluster: choose another with --ray-user' % (name, account.pw_uid))


def primary_group(name):
    """The name of the primary group of the account ``name``."""
    import grp
    return grp.getgrgid(pwd.getpwnam(name).pw_gid).gr_name


def delete_user(name):
    """Remove the account ``name`` and its home (for accounts this hub created)."""
    subprocess.run(['userdel', '--remove', name], check=True, capture_output=True)


def remove_users(names):
    """Kill every process of the accounts ``names`` (servers, kernels a hub's stop left)
    and remove the accounts and their homes; accounts that do not exist are skipped."""
    import psutil
    existing = {account.pw_name: account.pw_uid for account in pwd.getpwall()}
    names = [name for name in names if name in existing]
    uids = {existing[name] for name in names}
    left = [proc for proc in psutil.process_iter(['uids'])
            if proc.info['uids'] and proc.info['uids'].real in uids]
    for proc in left:
        try:
            proc.kill()
        except psutil.NoSuchProcess:
            pass
    psutil.wait_procs(left, timeout=10)
    for name in names:
        delete_user(name)


def run_as(name, argv, env, cwd=None, **kwargs):
    """Run ``argv`` as the user ``name`` with exactly the environment ``env`` (plus the
    user's HOME, USER and LOGNAME), in ``cwd`` (default: the user's home)."""
    account = pwd.getpwnam(name)
    env = dict(env, HOME=account.pw_dir, USER=name, LOGNAME=name)
    return subprocess.run(['runuser', '-u', name, '--', 'env', '-i',
                           *('%s=%s' % item for item in env.items()), *argv],
                          cwd=cwd or account.pw_dir, **kwargs)


def user_environment(settings, role):
    """The environment of a ``role``'s single-user server, its kernels and its nbgrader
    commands (the hub's config gives its spawner the same)."""
    return dict(settings['environment'], JUPYTER_CONFIG_PATH=settings['config_path'][role])


class Layout:
    """Where a hub keeps what, under its directory ``root``."""

    def __init__(self, root):
        self.root = Path(root).resolve()
        self.state = self.root / 'state'              # root only: db, cookie secret, passwords
        self.exchange = self.root / 'exchange'
        self.config = self.root / 'jupyter' / 'config'  # JUPYTER_CONFIG_PATH entries
        self.settings = self.state / 'settings.json'
        self.passwords = self.state / 'initial-passwords.csv'
        self.log = self.state / 'jupyterhub.log'


#: Ray's settings for the class's head and every user's kernel: no usage reports, no
#: metrics, 127.0.0.1 kept as it is (without it Ray takes the machine's network address
#: instead, and a kernel's ray.init waits for a head that is not there), as gluonedu's
#: local clusters have them (gluonedu/kvstore/ray_cluster.py).
RAY_ENVIRONMENT = {'RAY_USAGE_STATS_ENABLED': '0', 'RAY_enable_metrics_collection': '0',
                   'RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER': '0'}
#: And for a user's kernel: no event log of its own (Ray would write it into a folder of
#: the head's that only the head's account may write, and the kernel would abort).
RAY_DRIVER_ENVIRONMENT = dict(RAY_ENVIRONMENT, RAY_event_log_reporter_enabled='false')

#: nbgrader's settings for everyone on the hub: the course and its exchange.
NBGRADER_COMMON = """\
# Written by scripts/hub.py: the course every user of this hub takes part in.
c = get_config()  # noqa: F821
c.CourseDirectory.course_id = {course_id!r}
c.Exchange.root = {exchange!r}
"""

#: The instructor's course directory, for nbgrader's commands and the Formgrader.
NBGRADER_INSTRUCTOR = """\
# Written by scripts/hub.py: the instructor's course directory.
c = get_config()  # noqa: F821
c.CourseDirectory.root = {course!r}
"""

#: A student's server: fetch and submit, no Formgrader or course tools.
STUDENT_SERVER = {'ServerApp': {'jpserver_extensions': {
    'nbgrader.server_extensions.formgrader': False,
    'nbgrader.server_extensions.course_list': False}}}
STUDENT_LAB = {'disabledExtensions': {
    '@jupyter/nbgrader:formgrader': True, '@jupyter/nbgrader:create-assignment': True,
    '@jupyter/nbgrader:course-list': True}}


def _tool(path, what):
    if not path.exists():
        raise HubError('%s is missing (%s); `make hub` installs it' % (path, what))
    return str(path)


def _check_open_to_all(path, what, fix):
    """Raise a HubError unless every user can reach ``path`` (each folder on the way
    open to others)."""
    for folder in (path, *path.parents):
        mode = stat.S_IMODE(folder.stat().st_mode)
        if mode & 0o001 == 0:
            raise HubError('%s is closed to other users: %s has mode %o, and every user '
                           'needs %s. %s' % (path, folder, mode, what, fix))


class Hub:
    """A prepared hub: :meth:`start` it, :meth:`wait_ready`, :meth:`stop`."""

    def __init__(self, layout, settings, roster, passwords):
        self.layout = layout
        self.settings = settings
        self.roster = roster
        #: The first passwords of the accounts created now: {name: password}.
        self.passwords = passwords
        self.process = None
        self.ray = None

    @property
    def url(self):
        return 'http://%s:%d' % (HOST, self.settings['port'])

    @property
    def ray_mode(self):
        """Where notebook 12's training runs: one of :data:`RAY_MODES`."""
        return self.settings.get('ray', {}).get('mode', 'none')

    @property
    def ray_address(self):
        """The class's Ray cluster (``host:port``), or None if it has none."""
        return self.settings['environment'].get('GLUONEDU_RAY_ADDRESS')

    def environment(self, name):
        """The environment of ``name``'s server (see :func:`user_environment`)."""
        return user_environment(self.settings, self.roster.role(name))

    def start(self, output=None):
        """Start the class's Ray cluster (unless it has none), then JupyterHub (and its
        proxy); JupyterHub's log goes to ``output`` (a file)."""
        check_port_free(self.settings['port'])
        if self.ray_mode == 'shared':
            self.ray = RayHead(self.settings['ray'], self.layout.state / 'ray.log')
            self.ray.start()
        env = {'PATH': self.settings['environment']['PATH'], 'LANG': 'C.UTF-8',
               'GLUONEDU_HUB_SETTINGS': str(self.layout.settings)}
        self.process = subprocess.Popen(
            [self.settings['jupyterhub'], '-f', str(CONFIG_FILE)], cwd=self.layout.state,
            env=env, stdout=output, stderr=subprocess.STDOUT if output else None,
            start_new_session=True)
        return self.process

    def wait_ready(self, timeout=120):
        """Wait until the hub answers through its proxy."""
        deadline = time.monotonic() + timeout
        while True:
            if self.process.poll() is not None:
                raise HubError('jupyterhub exited with code %d before it was ready; its log '
                               'says why' % self.process.returncode)
            try:
                with urllib.request.urlopen(self.url + '/hub/api/', timeout=5) as reply:
                    if reply.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                pass
            if time.monotonic() > deadline:
                raise HubError('the hub did not answer at %s within %d s' % (self.url, timeout))
            time.sleep(0.3)

    def stop(self, timeout=60):
        """Stop JupyterHub (it stops the users' servers, their Ray clusters and its
        proxy first), then the class's Ray cluster, and any user's cluster left."""
        try:
            if self.process is not None and self.process.poll() is None:
                self.process.send_signal(signal.SIGTERM)
                try:
                    self.process.wait(timeout)
                except subprocess.TimeoutExpired:
                    os.killpg(self.process.pid, signal.SIGKILL)
                    self.process.wait()
        finally:
            if self.ray is not None:
                self.ray.stop()
            UserRayClusters.end_left(self.layout.state)


class RayHead:
    """A Ray cluster of the hub: one head on 127.0.0.1, run as the account
    ``settings['user']``, connections authenticated by ``settings['token']``.

    Its files are in a fresh directory under the system temp dir (short: Ray's socket
    paths must be), inside which Ray makes its own (open to all). The class's cluster (``shared=True``, run as a system account) opens
    it to the account's group — the roster's users — and its processes make files for
    that group (umask 007), so that a student's kernel can join (Ray's drivers talk to
    the node through its sockets). A user's own cluster (``shared=False``) opens it to
    that user only (0700, umask 077). Its processes run in a session of their own:
    stopping it ends them all."""

    def __init__(self, settings, log_path, shared=True):
        self.settings = settings
        self.log_path = log_path
        self.shared = shared
        self.process = None
        self.temp_dir = None

    @property
    def address(self):
        return '%s:%d' % (HOST, self.settings['port'])

    def start(self, timeout=120):
        account = pwd.getpwnam(self.settings['user'])
        self.temp_dir = tempfile.mkdtemp(prefix='gluonedu-hub-ray-')
        os.chown(self.temp_dir, account.pw_uid, account.pw_gid)
        os.chmod(self.temp_dir, 0o750 if self.shared else 0o700)
        env = {'PATH': os.path.dirname(self.settings['ray']) + ':/usr/bin:/bin',
               'LANG': 'C.UTF-8', 'HOME': self.temp_dir, **RAY_ENVIRONMENT,
               'RAY_AUTH_MODE': 'token', 'RAY_AUTH_TOKEN': self.settings['token']}
        with open(self.log_path, 'w') as log:
            self.process = subprocess.Popen(
                [self.settings['ray'], 'start', '--head', '--block',
                 '--node-ip-address=127.0.0.1', '--port=%d' % self.settings['port'],
                 '--num-cpus=%d' % (os.cpu_count() or 1), '--include-dashboard=false',
                 # Ray's head serves its API on a fixed port (8265) even without the
                 # dashboard: a free one, beside other hubs' and notebooks' clusters.
                 '--dashboard-port=%d' % free_port(),
                 # Ray opens its own folder to everyone (0777): it lives inside ours.
                 '--disable-usage-stats', '--temp-dir=%s' % os.path.join(self.temp_dir, 'r')],
                cwd=self.temp_dir, env=env, stdin=subprocess.DEVNULL, stdout=log,
                stderr=subprocess.STDOUT, user=account.pw_uid, group=account.pw_gid,
                extra_groups=[], umask=0o007 if self.shared else 0o077,
                start_new_session=True)
        deadline = time.monotonic() + timeout
        while 'Ray runtime started' not in self.log_path.read_text(errors='replace'):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise HubError("the Ray cluster of %s did not start (%s); its log, %s, "
                               'says why' % (self.settings['user'],
                                             'it exited with code %d' % self.process.returncode
                                             if self.process.returncode is not None else
                                             'not within %d s' % timeout, self.log_path))
            time.sleep(0.3)

    def pids(self):
        """The processes of the cluster (its session's), now."""
        return session_pids(self.process.pid)

    def stop(self):
        """End every process of the cluster and remove its files."""
        if self.process is not None:
            end_session(self.process.pid)
            self.process.wait()
        if self.temp_dir is not None:
            shutil.rmtree(self.temp_dir, ignore_errors=True)
            self.temp_dir = None

    def client_environment(self):
        """What a user's server and kernels need to join this cluster."""
        return dict(RAY_DRIVER_ENVIRONMENT, GLUONEDU_RAY_ADDRESS=self.address,
                    RAY_AUTH_MODE='token', RAY_AUTH_TOKEN=self.settings['token'])


def session_pids(session):
    """The processes of the session ``session``, now."""
    import psutil
    pids = []
    for proc in psutil.process_iter():
        try:
            if os.getsid(proc.pid) == session:
                pids.append(proc.pid)
        except OSError:     # gone
            continue
    return pids


def end_session(session):
    """End every process of the session ``session`` (SIGTERM, then SIGKILL)."""
    import psutil
    for sig in (signal.SIGTERM, signal.SIGKILL):
        procs = []
        for pid in session_pids(session):
            try:
                os.kill(pid, sig)
                procs.append(psutil.Process(pid))
            except (OSError, psutil.Error):
                continue
        _, alive = psutil.wait_procs(procs, timeout=10)
        if not alive:
            return


class UserRayClusters:
    """Each user's own Ray cluster (``--ray per-user``), started with the user's server
    and stopped with it: the hub's ``Spawner.pre_spawn_hook`` and ``post_stop_hook``.

    The cluster runs as the user, on 127.0.0.1 and free ports, its files in a folder only
    the user can open, connections authenticated by a token of its own. The server (its
    kernels and terminals) gets the address and the token in its environment, which only
    its owner can read; another user can neither join the cluster nor signal its
    processes. Each running cluster is listed in the hub's state directory, so that a
    hub stopped without running its hooks still ends them (:meth:`end_left`).
    """

    def __init__(self, settings):
        self.ray = settings['ray']['ray']
        self.state = Path(settings['state'])
        self.heads = {}

    def _listing(self, name):
        return self.state / ('ray-%s.json' % name)

    async def start(self, spawner):
        """Start ``spawner``'s user's cluster and give the server its address."""
        import asyncio
        name = spawner.user.name
        await self.stop(spawner)        # a server started again gets a fresh cluster
        head = RayHead({'user': name, 'port': free_port(), 'token': secrets.token_hex(32),
                        'ray': self.ray}, self.state / ('ray-%s.log' % name), shared=False)
        await asyncio.to_thread(head.start)
        self.heads[name] = head
        _write(self._listing(name), json.dumps({'session': head.process.pid,
                                                'temp_dir': head.temp_dir}), mode=0o600)
        spawner.environment = dict(spawner.environment, **head.client_environment())
        spawner.log.info('the Ray cluster of %s runs at %s', name, head.address)

    async def stop(self, spawner):
        """Stop ``spawner``'s user's cluster, if it runs."""
        import asyncio
        head = self.heads.pop(spawner.user.name, None)
        if head is not None:
            await asyncio.to_thread(head.stop)
            self._listing(spawner.user.name).unlink(missing_ok=True)
            spawner.log.info('the Ray cluster of %s has stopped', spawner.user.name)

    @staticmethod
    def end_left(state):
        """End the users' clusters that a hub in ``state`` left running."""
        for listing in Path(state).glob('ray-*.json'):
            left = json.loads(listing.read_text())
            end_session(left['session'])
            shutil.rmtree(left['temp_dir'], ignore_errors=True)
            listing.unlink()


def prepare(roster, hub_dir=DEFAULT_HUB_DIR, port=DEFAULT_PORT, exchange=None,
            notebooks=None, hub_venv=REPO / '.venv-hub', ray='per-user', ray_user=RAY_USER):
    """Make the users, the exchange, the course and the configuration of a hub; returns
    the :class:`Hub`, not started. ``notebooks``: the course's assignments (default:
    the curriculum), generated only when the instructor has no course yet. ``ray``: one
    of :data:`RAY_MODES`; ``ray_user``: the system account of the class's cluster
    (``ray='shared'``)."""
    if ray not in RAY_MODES:
        raise HubError('--ray must be one of %s, not %r' % (', '.join(RAY_MODES), ray))
    if os.geteuid() != 0:
        raise HubError('the hub runs each user\'s server as that Unix user, and creates the '
                       'accounts: run it as root (sudo make hub)')
    check_port_free(port)
    hub_venv = Path(hub_venv).absolute()
    settings = {
        'port': port, 'hub_port': free_port(), 'proxy_api_port': free_port(),
        'jupyterhub': _tool(hub_venv / 'bin' / 'jupyterhub', 'the hub environment'),
        'singleuser': _tool(hub_venv / 'bin' / 'jupyterhub-singleuser', 'the hub environment'),
        'proxy': _tool(hub_venv / 'lib' / 'node' / 'node_modules' / '.bin' /
                       'configurable-http-proxy', 'configurable-http-proxy, from npm'),
        'instructor': roster.instructor, 'students': list(roster.students)}
    # Every user's server and kernels run from the class environment.
    for path in (hub_venv / 'lib', Path(os.path.realpath(hub_venv / 'bin' / 'python'))):
        _check_open_to_all(path, 'the class environment', 'Build it from a Python every user '
                           'can run: rm -rf %s && make hub HUB_PYTHON=/usr/bin/python3'
                           % hub_venv)

    layout = Layout(hub_dir)
    if exchange is None:
        _ensure_dir(layout.exchange, EXCHANGE_MODE)
        exchange = layout.exchange
    else:
        check_exchange(exchange)
    _ensure_dir(layout.root, 0o755)
    _check_open_to_all(layout.root, "the hub's exchange and nbgrader settings",
                       'Choose a hub directory elsewhere (--hub-dir), or open %s to others '
                       '(chmod o+x)' % layout.root.parent)
    _ensure_dir(layout.state, 0o700)
    settings['state'] = str(layout.state)

    passwords = {name: password for name in roster.users
                 if (password := ensure_user(name)) is not None}
    if ray != 'none':
        settings['ray'] = {'mode': ray, 'scripts': str(SCRIPTS),
                           'ray': _tool(hub_venv / 'bin' / 'ray', "Ray, gluonedu's dist extra")}
    if ray == 'shared':
        settings['ray'].update(user=ray_user, port=free_port(), token=secrets.token_hex(32))
        ensure_system_user(ray_user)
        group = primary_group(ray_user)
        for name in roster.users:      # Ray's sockets are the group's: the class may join
            subprocess.run(['usermod', '--append', '--groups', group, name], check=True,
                           capture_output=True)
    if passwords:
        new_file = not layout.passwords.exists()
        with open(layout.passwords, 'a', opener=lambda p, f: os.open(p, f, 0o600)) as out:
            writer = csv.writer(out)
            if new_file:
                writer.writerow(['username', 'password'])
            writer.writerows(passwords.items())

    instructor = pwd.getpwnam(roster.instructor)
    course = Path(instructor.pw_dir) / 'course'
    for role in ('common', *ROLES):
        _ensure_dir(layout.config / role, 0o755)
    _write(layout.config / 'common' / 'nbgrader_config.py',
           NBGRADER_COMMON.format(course_id=COURSE_ID, exchange=str(exchange)))
    _write(layout.config / 'instructor' / 'nbgrader_config.py',
           NBGRADER_INSTRUCTOR.format(course=str(course)))
    _write(layout.config / 'student' / 'jupyter_server_config.json',
           json.dumps(STUDENT_SERVER, indent=1))
    _ensure_dir(layout.config / 'student' / 'labconfig', 0o755)
    _write(layout.config / 'student' / 'labconfig' / 'page_config.json',
           json.dumps(STUDENT_LAB, indent=1))
    settings['environment'] = {
        'PATH': '%s:/usr/local/bin:/usr/bin:/bin' % (hub_venv / 'bin'),
        'LANG': 'C.UTF-8',
        # The class shares the server's cores: one BLAS thread a kernel (the notebooks'
        # stored numbers were computed so, too).
        'OPENBLAS_NUM_THREADS': '1'}
    if ray == 'shared':
        settings['environment'].update(RayHead(settings['ray'], None).client_environment())
    settings['config_path'] = {
        role: os.pathsep.join(str(layout.config / d) for d in (role, 'common'))
        for role in ROLES}
    _write(layout.settings, json.dumps(settings, indent=1), mode=0o600)

    if not (course / 'nbgrader_config.py').exists():
        print('making the course in %s (nbgrader generate_assignment) ...' % course, flush=True)
        run_as(roster.instructor, [str(hub_venv / 'bin' / 'python'),
                                   str(SCRIPTS / 'assignments.py'), '--course-dir', str(course),
                                   *map(str, notebooks or ())],
               user_environment(settings, 'instructor'), check=True)
    return Hub(layout, settings, roster, passwords)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('notebooks', nargs='*', type=Path,
                        help="the course's assignments, when the instructor has no course "
                             'yet (default: the curriculum)')
    parser.add_argument('--roster', type=Path, default=DEFAULT_ROSTER,
                        help='the class: a CSV file username,role (default: %(default)s)')
    parser.add_argument('--port', type=int, default=DEFAULT_PORT,
                        help='the port on 127.0.0.1 the hub serves (default: %(default)s)')
    parser.add_argument('--hub-dir', type=Path, default=DEFAULT_HUB_DIR,
                        help="the hub's state, configuration and exchange "
                             '(default: %(default)s)')
    parser.add_argument('--exchange', type=Path,
                        help="an existing nbgrader exchange (default: the hub directory's)")
    parser.add_argument('--hub-venv', type=Path, default=REPO / '.venv-hub')
    parser.add_argument('--ray', choices=RAY_MODES, default='per-user',
                        help="notebook 12's Ray cluster: one per user's server, run as "
                             'that user (the default); one for the class, run as '
                             '--ray-user; or none (each kernel starts its own)')
    parser.add_argument('--ray-user', default=RAY_USER,
                        help="the system account the class's Ray cluster runs as with "
                             '--ray shared, made if missing (default: %(default)s)')
    args = parser.parse_args(argv)
    # Stopped by a signal (make's, a service manager's): stop the hub too.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    started = time.monotonic()
    hub = None
    try:
        roster = read_roster(args.roster)
        hub = prepare(roster, args.hub_dir, args.port, args.exchange, args.notebooks,
                      args.hub_venv, args.ray, args.ray_user)
        hub.start()
        hub.wait_ready()
        print('the hub is ready at %s/ (%.1f s): instructor %s, %d students%s%s; stop it '
              'with Ctrl-C' % (hub.url, time.monotonic() - started, roster.instructor,
                               len(roster.students),
                               {'per-user': "; a Ray cluster for each user's server",
                                'shared': "; the class's Ray cluster at %s" % hub.ray_address,
                                'none': ''}[hub.ray_mode],
                               '; first passwords of the accounts made now: %s (root only)'
                               % hub.layout.passwords if hub.passwords else ''), flush=True)
        hub.process.wait()
    except HubError as err:
        sys.exit('error: %s' % err)
    except KeyboardInterrupt:
        pass
    finally:
        if hub is not None:
            hub.stop()
    code = hub.process.returncode if hub is not None and hub.process is not None else None
    sys.exit(130 if code is None else code)


if __name__ == '__main__':
    main()
