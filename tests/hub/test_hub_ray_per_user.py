"""Each user's own Ray cluster on a hub (``make hub``'s default, ``--ray per-user``;
docs/hub.md, "Notebook 12 on a hub"): started with the user's server, run as that user on
127.0.0.1 in a folder only that user can open, its address and token in the server's
environment; a student's job runs on it as the student; another student can neither join
it nor stop it; and it ends with the server, or with the hub.

A hub as tests/hub/test_hub_ray.py makes one (accounts with a prefix of this run's own,
free ports), for an instructor and two students, under ``make test-hub-ray``.
"""
import json
import os
import pwd
import stat
import subprocess
import time
import uuid

import pytest

from running_hub import HUB_VENV, hub, running_hub
from test_hub_ray import JOB, NOTEBOOK, _missing_prerequisite

PYTHON = str(HUB_VENV / 'bin' / 'python')


class Class:
    """The running hub, and its users' servers started through its API."""

    def __init__(self, the_hub, work):
        self.hub, self.work = the_hub, work
        self.requests = pytest.importorskip('requests')
        self._headers = {}

    def call(self, method, name, path='', **kwargs):
        if name not in self._headers:
            reply = self.requests.post('%s/hub/api/users/%s/tokens' % (self.hub.url, name),
                                       json={'auth': {'username': name,
                                                      'password': self.hub.passwords[name]}})
            assert reply.status_code == 201, reply.text
            self._headers[name] = {'Authorization': 'token ' + reply.json()['token']}
        return self.requests.request(method, '%s/hub/api/users/%s%s' % (self.hub.url, name,
                                                                          path),
                                     headers=self._headers[name], **kwargs)

    def start_server(self, name):
        assert self.call('POST', name, '/server').status_code in (201, 202)
        deadline = time.monotonic() + 180
        while not self.call('GET', name).json()['servers'].get('', {}).get('ready'):
            assert time.monotonic() < deadline, "%s's server did not start" % name
            time.sleep(0.5)

    def stop_server(self, name):
        assert self.call('DELETE', name, '/server').status_code in (202, 204)
        deadline = time.monotonic() + 60
        while self.call('GET', name).json()['servers']:
            assert time.monotonic() < deadline, "%s's server did not stop" % name
            time.sleep(0.5)

    def server_environment(self, name):
        """The environment ``name``'s server runs with (read as root)."""
        import psutil
        uid = pwd.getpwnam(name).pw_uid
        servers = [p for p in psutil.process_iter(['uids', 'cmdline']) if p.info['uids']
                   and p.info['uids'].real == uid and 'jupyterhub-singleuser' in
                   ' '.join(p.info['cmdline'] or ())]
        assert len(servers) == 1, servers
        return servers[0].environ()

    def cluster(self, name):
        """``name``'s cluster as the hub lists it: its session and folder."""
        return json.loads((self.hub.layout.state / ('ray-%s.json' % name)).read_text())

    def run_as(self, name, argv, **kwargs):
        """``argv`` as ``name``, in the environment of ``name``'s server."""
        env = dict(self.server_environment(name), HOME=pwd.getpwnam(name).pw_dir)
        return subprocess.Popen(['runuser', '-u', name, '--', 'env', '-i',
                                 *('%s=%s' % item for item in env.items()), *argv],
                                cwd='/', stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, **kwargs)

    def python_as(self, name, code, env=None):
        """Run ``code`` as ``name`` (in its server's environment, updated by ``env``)."""
        environment = dict(self.server_environment(name), HOME=pwd.getpwnam(name).pw_dir,
                           **(env or {}))
        return hub.run_as(name, [PYTHON, '-c', code], environment, capture_output=True,
                          text=True, timeout=120)


@pytest.fixture(scope='module')
def own_clusters():
    reason = _missing_prerequisite()
    if reason:
        pytest.skip(reason)
    with running_hub('gu%s' % uuid.uuid4().hex[:6], NOTEBOOK, ray='per-user') as (the_hub,
                                                                            work):
        the_class = Class(the_hub, work)
        for student in the_hub.roster.students:
            the_class.start_server(student)
        yield the_class
        the_hub.stop()
        # The hub's stop ended every user's cluster and listed none as left.
        assert not list(the_hub.layout.state.glob('ray-*.json'))


def test_each_students_server_has_a_cluster_of_its_own(own_clusters):
    import psutil
    the_class = own_clusters
    assert the_class.hub.ray_mode == 'per-user' and the_class.hub.ray is None
    addresses = set()
    for student in the_class.hub.roster.students:
        environment = the_class.server_environment(student)
        address = environment['GLUONEDU_RAY_ADDRESS']
        addresses.add(address)
        assert environment['RAY_AUTH_MODE'] == 'token' and environment['RAY_AUTH_TOKEN']
        listed = the_class.cluster(student)
        processes = [psutil.Process(pid) for pid in hub.session_pids(listed['session'])]
        assert len(processes) >= 3                  # GCS, raylet, agents
        uid = pwd.getpwnam(student).pw_uid
        assert {p.uids().real for p in processes} == {uid}
        listening = {(conn.laddr.ip.removeprefix('::ffff:'), conn.laddr.port)
                     for p in processes for conn in p.net_connections('inet')
                     if conn.status == psutil.CONN_LISTEN}
        assert {ip for ip, _ in listening} == {'127.0.0.1'}
        assert ('127.0.0.1', int(address.rsplit(':', 1)[1])) in listening
        folder = os.stat(listed['temp_dir'])
        assert folder.st_uid == uid and stat.S_IMODE(folder.st_mode) == 0o700
    assert len(addresses) == 2
    # Only the servers started have a cluster: the instructor has not logged in.
    assert not (the_class.hub.layout.state / ('ray-%s.json'
                                              % the_class.hub.roster.instructor)).exists()


def test_a_students_jobs_run_on_their_own_cluster_as_themselves(own_clusters):
    the_class = own_clusters
    first, second = the_class.hub.roster.students
    job, barrier = the_class.work / 'job.py', the_class.work / 'barrier'
    job.write_text(JOB)
    os.chmod(job, 0o644)
    barrier.mkdir(mode=0o1777)
    os.chmod(barrier, 0o1777)            # each job's workers (its student) mark it
    runs = {name: the_class.run_as(name, [PYTHON, str(job), str(factor), str(barrier), name,
                                          other])
            for name, factor, other in ((first, 1, second), (second, 10, first))}
    outputs = {name: run.communicate(timeout=300) for name, run in runs.items()}
    for name, factor in ((first, 1), (second, 10)):
        out, err = outputs[name]
        assert runs[name].returncode == 0, (name, out, err)
        address = the_class.server_environment(name)['GLUONEDU_RAY_ADDRESS']
        assert 'joining the shared Ray cluster at %s' % address in out
        assert 'starting Ray' not in out
        results = json.loads(out.strip().splitlines()[-1])
        assert [values for _, values in results] == [[3.0 * factor] * 3] * 2
        # The workers ran on the student's own cluster, as the student.
        assert {uid for uid, _ in results} == {pwd.getpwnam(name).pw_uid}


def test_a_student_can_neither_join_nor_stop_another_students_cluster(own_clusters):
    the_class = own_clusters
    intruder, owner = the_class.hub.roster.students
    theirs = the_class.cluster(owner)
    address = the_class.server_environment(owner)['GLUONEDU_RAY_ADDRESS']
    before = set(hub.session_pids(theirs['session']))
    # Their address with one's own token: refused.
    joined = the_class.python_as(
        intruder, 'import os, ray; ray.init(address=os.environ["GLUONEDU_RAY_ADDRESS"], '
        'logging_level="ERROR"); print("JOINED", ray.cluster_resources())',
        env={'GLUONEDU_RAY_ADDRESS': address})
    assert joined.returncode != 0 and 'JOINED' not in joined.stdout, joined.stdout
    # Their token, their folder, their server's environment: closed.
    for path in (theirs['temp_dir'], '/proc/%d/environ' % min(before)):
        looked = hub.run_as(intruder, ['cat' if path.startswith('/proc') else 'ls', path],
                            {'PATH': '/usr/bin:/bin'}, capture_output=True, text=True)
        assert looked.returncode != 0 and 'denied' in looked.stderr, (path, looked)
    # Signals and Ray's own stop: not theirs to send.
    killed = hub.run_as(intruder, ['kill', '-KILL', *map(str, sorted(before))],
                        {'PATH': '/usr/bin:/bin'}, capture_output=True, text=True)
    assert killed.returncode != 0
    assert killed.stderr.count('not permitted') == len(before), killed.stderr
    stopped = the_class.python_as(
        intruder, 'import subprocess, sys; sys.exit(subprocess.run([%r, "stop", "--force"])'
        '.returncode)' % str(HUB_VENV / 'bin' / 'ray'))
    assert stopped.returncode == 0, stopped.stderr
    time.sleep(1)
    assert set(hub.session_pids(theirs['session'])) >= before        # all still there
    # ... and still serving its owner.
    joined = the_class.python_as(
        owner, 'import os, ray; ray.init(address=os.environ["GLUONEDU_RAY_ADDRESS"], '
        'logging_level="ERROR"); print(ray.cluster_resources()["CPU"])')
    assert joined.returncode == 0, joined.stderr
    assert float(joined.stdout.split()[-1]) == os.cpu_count()


def test_a_cluster_ends_with_its_server(own_clusters):
    the_class = own_clusters
    student = the_class.hub.roster.students[1]
    listed = the_class.cluster(student)
    assert hub.session_pids(listed['session'])
    the_class.stop_server(student)
    deadline = time.monotonic() + 30      # the hub's hook runs as the server has stopped
    while hub.session_pids(listed['session']):
        assert time.monotonic() < deadline, 'the cluster outlived its server by 30 s'
        time.sleep(0.5)
    assert not os.path.exists(listed['temp_dir'])
    assert not (the_class.hub.layout.state / ('ray-%s.json' % student)).exists()
    # Started again, the server gets a fresh cluster.
    the_class.start_server(student)
    again = the_class.cluster(student)
    assert again['session'] != listed['session'] and hub.session_pids(again['session'])
