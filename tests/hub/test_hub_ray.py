"""The class's shared Ray cluster on a hub (``make hub``; docs/hub.md, "Notebook 12 on a
hub"): one Ray head run as a system account of its own on 127.0.0.1, its address in every
user's environment; two students' jobs run on it at once, each correct; a student cannot
stop it; and what Ray does not keep apart, tried as it is documented.

A hub as the cycle test makes one (tests/hub/test_hub_cycle.py: accounts with a prefix of
this run's own, free ports), with the shared cluster, for an instructor and two students.
The jobs run as the students, in their servers' environment, as a notebook's
``mx.kv.local_cluster()`` runs them. It needs root, npm's configurable-http-proxy and the
class environment with Ray (``make hub-venv``); it takes a minute on 2 cores, so it runs
under ``make test-hub-ray`` (GLUONEDU_TEST_HUB_RAY=1), not in ``make test``.
"""
import json
import os
import pwd
import subprocess
import sys
import textwrap
import time
import uuid

import pytest

from running_hub import HUB_VENV, REPO, hub, running_hub

NOTEBOOK = REPO / 'notebooks' / '03_momentum.ipynb'
PROXY = HUB_VENV / 'lib' / 'node' / 'node_modules' / '.bin' / 'configurable-http-proxy'

#: A student's job: two workers of a dist_sync store each push (rank + 1) x FACTOR and
#: pull the sum, 3 x FACTOR. Rank 0 of each job waits until the other job's rank 0 has
#: pushed too, so that neither can end unless both run at once.
JOB = textwrap.dedent('''\
    import json, os, sys, time
    import gluonedu as mx

    def train(factor, barrier, me, other):
        kv = mx.kv.create('dist_sync')
        kv.init('w', mx.nd.zeros((3,)))
        kv.push('w', mx.nd.ones((3,)) * factor * (kv.rank + 1))
        out = mx.nd.zeros((3,))
        kv.pull('w', out=out)
        if kv.rank == 0:
            open(os.path.join(barrier, me), 'w').close()
            deadline = time.time() + 90
            while not os.path.exists(os.path.join(barrier, other)):
                if time.time() > deadline:
                    raise RuntimeError('the other job did not run meanwhile')
                time.sleep(0.2)
        return os.getuid(), out.asnumpy().tolist()

    factor, barrier, me, other = float(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
    with mx.kv.local_cluster() as cluster:
        results = cluster.run(train, factor, barrier, me, other, num_workers=2)
    print(json.dumps(results))
    ''')

def _missing_prerequisite():
    if not os.environ.get('GLUONEDU_TEST_HUB_RAY'):
        return 'the shared Ray cluster test runs under make test-hub-ray'
    if sys.platform != 'linux' or os.geteuid() != 0:
        return 'the hub test makes Unix accounts and runs servers as them: it needs root on Linux'
    if not (HUB_VENV / 'bin' / 'ray').exists() or not PROXY.exists():
        return 'the class environment %s (with Ray) is not built: make hub-venv' % HUB_VENV
    return None


@pytest.fixture(scope='module')
def ray_class():
    reason = _missing_prerequisite()
    if reason:
        pytest.skip(reason)
    prefix = 'gr%s' % uuid.uuid4().hex[:6]
    with running_hub(prefix, NOTEBOOK, ray='shared', ray_user=prefix + '-ray') as started:
        yield started


def _as_student(the_hub, name, argv, **kwargs):
    return hub.run_as(name, argv, the_hub.environment(name), capture_output=True, text=True,
                      timeout=120, **kwargs)


def _python(the_hub, name, code, **kwargs):
    return _as_student(the_hub, name, [str(HUB_VENV / 'bin' / 'python'), '-c', code], **kwargs)


def test_the_cluster_runs_as_its_own_account_on_127_0_0_1_only(ray_class):
    import psutil
    the_hub, _ = ray_class
    ray_uid = pwd.getpwnam(the_hub.settings['ray']['user']).pw_uid
    assert ray_uid < hub.FIRST_PERSON_UID
    processes = [psutil.Process(pid) for pid in the_hub.ray.pids()]
    assert len(processes) >= 3                      # GCS, raylet, agents
    assert {p.uids().real for p in processes} == {ray_uid}
    # (an IPv6 socket bound to ::ffff:127.0.0.1 takes IPv4's loopback only, too)
    listening = {conn.laddr.ip.removeprefix('::ffff:') for p in processes
                 for conn in p.net_connections('inet') if conn.status == psutil.CONN_LISTEN}
    assert listening == {'127.0.0.1'}
    assert the_hub.ray_address == '127.0.0.1:%d' % the_hub.settings['ray']['port']
    for name in (the_hub.roster.instructor, *the_hub.roster.students):
        assert the_hub.environment(name)['GLUONEDU_RAY_ADDRESS'] == the_hub.ray_address


def test_a_students_server_gets_the_clusters_address(ray_class):
    import psutil
    requests = pytest.importorskip('requests')
    the_hub, _ = ray_class
    student = the_hub.roster.students[0]
    reply = requests.post('%s/hub/api/users/%s/tokens' % (the_hub.url, student), json={
        'auth': {'username': student, 'password': the_hub.passwords[student]}})
    assert reply.status_code == 201, reply.text
    headers = {'Authorization': 'token ' + reply.json()['token']}
    api = '%s/hub/api/users/%s' % (the_hub.url, student)
    assert requests.post(api + '/server', headers=headers).status_code in (201, 202)
    deadline = time.monotonic() + 120
    while not requests.get(api, headers=headers).json()['servers'].get('', {}).get('ready'):
        assert time.monotonic() < deadline, "the student's server did not start"
        time.sleep(0.5)
    uid = pwd.getpwnam(student).pw_uid
    servers = [p for p in psutil.process_iter(['uids', 'cmdline']) if p.info['uids']
               and p.info['uids'].real == uid and 'jupyterhub-singleuser' in
               ' '.join(p.info['cmdline'] or ())]
    assert len(servers) == 1
    assert servers[0].environ()['GLUONEDU_RAY_ADDRESS'] == the_hub.ray_address
    assert requests.delete(api + '/server', headers=headers).status_code in (202, 204)


def test_a_student_cannot_stop_the_cluster(ray_class):
    the_hub, _ = ray_class
    student = the_hub.roster.students[0]
    before = set(the_hub.ray.pids())
    stopped = _as_student(the_hub, student, [str(HUB_VENV / 'bin' / 'ray'), 'stop', '--force'])
    assert stopped.returncode == 0, stopped.stderr
    killed = _as_student(the_hub, student, ['kill', '-KILL', *map(str, sorted(before))])
    assert killed.returncode != 0
    assert killed.stderr.count('not permitted') == len(before), killed.stderr
    time.sleep(1)
    assert set(the_hub.ray.pids()) >= before        # all still there
    # ... and still serving: the student's own driver joins it.
    joined = _python(the_hub, student, 'import os, ray; ray.init(address=os.environ['
                     '"GLUONEDU_RAY_ADDRESS"], logging_level="ERROR"); '
                     'print(ray.cluster_resources()["CPU"])')
    assert joined.returncode == 0, joined.stderr
    assert float(joined.stdout.split()[-1]) == os.cpu_count()


def test_two_students_jobs_run_at_once_and_each_is_right(ray_class):
    the_hub, work = ray_class
    first, second = the_hub.roster.students
    job, barrier = work / 'job.py', work / 'barrier'
    job.write_text(JOB)
    os.chmod(job, 0o644)
    barrier.mkdir(mode=0o1777)
    os.chmod(barrier, 0o1777)            # the jobs' workers (the Ray account) mark it
    python = str(HUB_VENV / 'bin' / 'python')
    runs = {name: subprocess.Popen(
        ['runuser', '-u', name, '--', 'env', '-i',
         *('%s=%s' % item for item in dict(the_hub.environment(name),
                                           HOME=pwd.getpwnam(name).pw_dir).items()),
         python, str(job), str(factor), str(barrier), name, other],
        cwd='/', stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for name, factor, other in ((first, 1, second), (second, 10, first))}
    outputs = {name: run.communicate(timeout=300) for name, run in runs.items()}
    ray_uid = pwd.getpwnam(the_hub.settings['ray']['user']).pw_uid
    for name, factor in ((first, 1), (second, 10)):
        out, err = outputs[name]
        assert runs[name].returncode == 0, (name, out, err)
        assert 'joining the shared Ray cluster at %s' % the_hub.ray_address in out
        assert 'starting Ray' not in out
        results = json.loads(out.strip().splitlines()[-1])
        assert [values for _, values in results] == [[3.0 * factor] * 3] * 2
        # The workers ran on the cluster, as its account: not as the student.
        assert {uid for uid, _ in results} == {ray_uid}
    # Each job's servers ended with it: no named actor is left on the cluster.
    left = _python(the_hub, first, 'import os, json, ray; ray.init(address=os.environ['
                   '"GLUONEDU_RAY_ADDRESS"], logging_level="ERROR"); '
                   'print(json.dumps(ray.util.list_named_actors(all_namespaces=True)))')
    assert left.returncode == 0, left.stderr
    assert json.loads(left.stdout.strip().splitlines()[-1]) == []


#: Student A's driver: a named actor in a namespace of A's, kept while A waits for B.
OWNER = textwrap.dedent('''\
    import os, sys, time, ray
    ray.init(address=os.environ['GLUONEDU_RAY_ADDRESS'], namespace='private-of-a',
             logging_level='ERROR')

    @ray.remote(num_cpus=0)
    class Secret:
        def value(self):
            return 42

    secret = Secret.options(name='secret').remote()
    print('ready', ray.get(secret.value.remote()), flush=True)
    while not os.path.exists(sys.argv[1]):          # B says when it is done
        time.sleep(0.2)
    try:
        print('after', ray.get(secret.value.remote(), timeout=30))
    except ray.exceptions.RayActorError:
        print('after killed')
    ''')

#: Student B's driver, in a namespace of its own: A's actor, found and ended.
INTRUDER = textwrap.dedent('''\
    import json, os, ray
    ray.init(address=os.environ['GLUONEDU_RAY_ADDRESS'], logging_level='ERROR')
    seen = ray.util.list_named_actors(all_namespaces=True)
    actor = ray.get_actor('secret', namespace='private-of-a')
    value = ray.get(actor.value.remote())
    ray.kill(actor)
    print(json.dumps({'seen': seen, 'value': value}))
    ''')


def test_ray_keeps_no_namespace_from_another_student(ray_class):
    """What docs/hub.md says Ray does not isolate, as the installed Ray does it: a
    student's driver lists every namespace's named actors, calls another student's, and
    kills it."""
    the_hub, work = ray_class
    owner, intruder = the_hub.roster.students
    (work / 'owner.py').write_text(OWNER)
    (work / 'intruder.py').write_text(INTRUDER)
    os.chmod(work / 'owner.py', 0o644)
    os.chmod(work / 'intruder.py', 0o644)
    done = work / 'intruder-done'
    python = str(HUB_VENV / 'bin' / 'python')
    first = subprocess.Popen(
        ['runuser', '-u', owner, '--', 'env', '-i',
         *('%s=%s' % item for item in dict(the_hub.environment(owner),
                                           HOME=pwd.getpwnam(owner).pw_dir).items()),
         python, str(work / 'owner.py'), str(done)],
        cwd='/', stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert first.stdout.readline().split() == ['ready', '42']
        second = _as_student(the_hub, intruder, [python, str(work / 'intruder.py')])
        assert second.returncode == 0, second.stderr
        found = json.loads(second.stdout.strip().splitlines()[-1])
        assert {'name': 'secret', 'namespace': 'private-of-a'} in found['seen']
        assert found['value'] == 42
    finally:
        done.touch()
        out, err = first.communicate(timeout=120)
    assert out.split() == ['after', 'killed'], (out, err)
