"""A class on one server (``make hub``, scripts/hub.py): the whole assignment cycle
through JupyterHub, and each isolation rule tried with a request it must refuse.

One hub for the module, as ``make hub`` makes it: Unix accounts from a roster (an
instructor and three students, named with a prefix of this run's own, so that runs
side by side never meet), PAM logins, each user's JupyterLab run as that user, the
course's exchange, on free ports of 127.0.0.1. Through HTTP with each user's own token
(asked for with their password, as a script would): the instructor releases notebook
03 (nbgrader's commands, run as the instructor); the students fetch it, answer (none,
one, every exercise) and submit from their own servers; the instructor collects,
autogrades, writes and releases the feedback and exports grades.csv; the students
fetch their feedback. Everything the module started is stopped, and the accounts and
files it made are removed. It needs root (it makes accounts), npm's
configurable-http-proxy and the class environment (.venv-hub: `make hub-venv`).
"""
import csv
import io
import json
import os
import pwd
import re
import shutil
import stat
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from running_hub import HUB_VENV, REPO, hub, running_hub

PROXY = HUB_VENV / 'lib' / 'node' / 'node_modules' / '.bin' / 'configurable-http-proxy'
NAME = '03_momentum'
NOTEBOOK = REPO / 'notebooks' / (NAME + '.ipynb')


def _missing_prerequisite():
    if sys.platform != 'linux' or os.geteuid() != 0:
        return 'the hub test makes Unix accounts and runs servers as them: it needs root on Linux'
    if not (shutil.which('useradd') and shutil.which('runuser')):
        return 'the hub test needs useradd and runuser (the passwd and util-linux packages)'
    if not PROXY.exists() and shutil.which('npm') is None:
        return 'the hub needs configurable-http-proxy, installed with npm; npm is missing'
    if not (HUB_VENV / 'bin' / 'jupyterhub').exists() or not PROXY.exists():
        reason = 'the class environment %s is not built: make hub-venv' % HUB_VENV
        if os.environ.get('CI'):
            pytest.fail(reason)
        return reason
    return None


@pytest.fixture(scope='module')
def requests_module():
    return pytest.importorskip('requests')


def _nbgrader_cell(cell):
    return cell.get('metadata', {}).get('nbgrader', {})


def _source(cell):
    """A cell's source as one text (a saved notebook may hold it as a list of lines)."""
    return ''.join(cell['source'])


def _solved(notebook, solutions, exercises):
    """``notebook`` with the answer cells of ``exercises`` (numbers) replaced by the
    instructor's solutions (``solutions``: {grade_id: source})."""
    for cell in notebook['cells']:
        meta = _nbgrader_cell(cell)
        grade_id = meta.get('grade_id', '')
        if (cell['cell_type'] == 'code' and meta.get('solution')
                and any(grade_id.startswith('03-ex%d-' % k) for k in exercises)):
            cell['source'] = solutions[grade_id]
    return notebook


def _test_points(notebook, exercises):
    """The points of the autograded test cells of ``exercises``."""
    return sum(_nbgrader_cell(cell)['points'] for cell in notebook['cells']
               if cell['cell_type'] == 'code' and _nbgrader_cell(cell).get('grade')
               and any(_nbgrader_cell(cell)['grade_id'].startswith('03-ex%d-' % k)
                       for k in exercises))


class Class:
    """The running hub and what the test knows of it."""

    def __init__(self, hub_, requests, log_path):
        self.hub = hub_
        self.requests = requests
        self.log_path = log_path
        self.instructor = hub_.roster.instructor
        self.students = hub_.roster.students
        self.tokens = {}
        self.command_output = []

    def token(self, name):
        """``name``'s API token, asked for with their password (PAM)."""
        if name not in self.tokens:
            reply = self.requests.post('%s/hub/api/users/%s/tokens' % (self.hub.url, name),
                                       json={'auth': {'username': name,
                                                      'password': self.hub.passwords[name]}})
            assert reply.status_code == 201, reply.text
            self.tokens[name] = reply.json()['token']
        return self.tokens[name]

    def login(self, name):
        """A browser's session: ``name`` logged in through the hub's login form (PAM)."""
        session = self.requests.Session()
        session.get(self.hub.url + '/hub/login').raise_for_status()
        reply = session.post(self.hub.url + '/hub/login', allow_redirects=False, data={
            'username': name, 'password': self.hub.passwords[name],
            '_xsrf': session.cookies['_xsrf']})
        assert reply.status_code == 302, reply.status_code
        return session

    def call(self, method, path, as_user, **kwargs):
        return self.requests.request(method, self.hub.url + path, timeout=120,
                                     headers={'Authorization': 'token ' + self.token(as_user)},
                                     **kwargs)

    def start_servers(self, names):
        for name in names:
            reply = self.call('POST', '/hub/api/users/%s/server' % name, name)
            assert reply.status_code in (201, 202), reply.text
        deadline = time.monotonic() + 180
        for name in names:
            while not self.call('GET', '/hub/api/users/' + name, name).json()[
                    'servers'].get('', {}).get('ready'):
                assert time.monotonic() < deadline, "%s's server did not start" % name
                time.sleep(0.5)

    def as_user(self, name, argv, cwd=None):
        """Run ``argv`` as ``name``, in the environment of their server."""
        result = hub.run_as(name, argv, self.hub.environment(name), cwd=cwd,
                            capture_output=True, text=True)
        self.command_output.append(result.stdout + result.stderr)
        return result

    def nbgrader(self, *args):
        """An nbgrader command run as the instructor, in the course directory."""
        course = Path(pwd.getpwnam(self.instructor).pw_dir) / 'course'
        result = self.as_user(self.instructor, ['nbgrader', *args], cwd=course)
        assert result.returncode == 0, result.stdout + result.stderr
        return result

    def assignment_action(self, student, action):
        reply = self.call('POST', '/user/%s/assignments/%s' % (student, action), student,
                          json={'course_id': hub.COURSE_ID, 'assignment_id': NAME})
        assert reply.status_code == 200 and reply.json()['success'], reply.text
        return reply.json()

    def notebook(self, student, path):
        reply = self.call('GET', '/user/%s/api/contents/%s' % (student, path), student)
        assert reply.status_code == 200, reply.text
        return reply.json()['content']


@pytest.fixture(scope='module')
def a_class(requests_module):
    reason = _missing_prerequisite()
    if reason:
        pytest.skip(reason)
    with running_hub('ge%s' % uuid.uuid4().hex[:6], NOTEBOOK, students=3,
                     ray='none') as (the_hub, work):   # the Ray clusters: test_hub_ray*.py
        yield Class(the_hub, requests_module, work / 'jupyterhub.log')


@pytest.fixture(scope='module')
def cycle(a_class):
    """The assignment cycle, run once: what each student handed in and got back."""
    c = a_class
    c.start_servers([c.instructor, *c.students])
    c.nbgrader('release_assignment', NAME)

    course = Path(pwd.getpwnam(c.instructor).pw_dir) / 'course'
    source = json.loads((course / 'source' / NAME / (NAME + '.ipynb')).read_text())
    solutions = {_nbgrader_cell(cell)['grade_id']: _source(cell) for cell in source['cells']
                 if _nbgrader_cell(cell).get('solution')}
    exercises = sorted({int(_nbgrader_cell(cell)['grade_id'].split('-ex')[1].split('-')[0])
                        for cell in source['cells'] if _nbgrader_cell(cell).get('grade')})
    answered = dict(zip(c.students, ([], exercises[:1], exercises)))
    path = '%s/%s.ipynb' % (NAME, NAME)
    for student in c.students:
        fetched = c.assignment_action(student, 'fetch')
        assert [a['status'] for a in fetched['value'] if a['assignment_id'] == NAME] == [
            'fetched']
        notebook = _solved(c.notebook(student, path), solutions, answered[student])
        reply = c.call('PUT', '/user/%s/api/contents/%s' % (student, path), student,
                       json={'type': 'notebook', 'format': 'json', 'content': notebook})
        assert reply.status_code == 200, reply.text
        c.assignment_action(student, 'submit')

    c.nbgrader('collect', NAME)
    c.nbgrader('autograde', NAME)
    c.nbgrader('generate_feedback', NAME)
    c.nbgrader('release_feedback', NAME)
    c.nbgrader('export')
    grades = {row['student_id']: row for row in
              csv.DictReader(io.StringIO((course / 'grades.csv').read_text()))}
    feedback = {}
    for student in c.students:
        c.assignment_action(student, 'fetch_feedback')
        folder = c.call('GET', '/user/%s/api/contents/%s/feedback' % (student, NAME),
                        student).json()['content']
        assert len(folder) == 1, folder
        reply = c.call('GET', '/user/%s/api/contents/%s/%s.html'
                       % (student, folder[0]['path'], NAME), student)
        feedback[student] = reply.json()['content']
    return {'course': course, 'answered': answered, 'source': source, 'grades': grades,
            'feedback': feedback}


def test_grades_csv_holds_the_autograders_scores(a_class, cycle):
    for student, exercises in cycle['answered'].items():
        autograded = json.loads((cycle['course'] / 'autograded' / student / NAME /
                                 (NAME + '.ipynb')).read_text())
        passed = sum(_nbgrader_cell(cell)['points'] for cell in autograded['cells']
                     if cell['cell_type'] == 'code' and _nbgrader_cell(cell).get('grade')
                     and not any(o['output_type'] == 'error' for o in cell['outputs']))
        expected = _test_points(cycle['source'], exercises)
        assert passed == expected
        assert float(cycle['grades'][student]['score']) == expected
    assert expected > _test_points(cycle['source'], cycle['answered'][a_class.students[1]]) > 0


def test_each_student_fetches_their_own_feedback_without_the_hidden_tests(a_class, cycle):
    """Each page shows the student's own score, as grades.csv has it, and no hidden test."""
    hidden = [line.strip() for cell in cycle['source']['cells'] if cell['cell_type'] == 'code'
              for part in _source(cell).split('### BEGIN HIDDEN TESTS')[1:]
              for line in part.split('### END HIDDEN TESTS')[0].split('\n')
              if 'assert' in line]
    assert hidden
    for student, page in cycle['feedback'].items():
        score = re.search(r'<h4>%s \(Score: ([0-9.]+) / [0-9.]+\)</h4>' % NAME, page)
        assert score and float(score.group(1)) == float(cycle['grades'][student]['score'])
        assert not any(line in page for line in hidden)


def test_a_student_can_read_neither_the_answers_nor_another_students_work(a_class, cycle):
    c = a_class
    exchange = c.hub.layout.exchange / hub.COURSE_ID
    student, other = c.students[0], c.students[1]
    forbidden = {
        "the instructor's source": ['cat', str(cycle['course'] / 'source' / NAME /
                                               (NAME + '.ipynb'))],
        "the instructor's home": ['ls', pwd.getpwnam(c.instructor).pw_dir],
        "another student's home": ['ls', pwd.getpwnam(other).pw_dir],
        "the submissions in the exchange": ['ls', str(exchange / 'inbound')],
        "the feedback in the exchange": ['ls', str(exchange / 'feedback')],
        "the released assignment": ['touch', str(exchange / 'outbound' / NAME / 'x')],
        "the course's folder in the exchange": ['mv', str(exchange), str(exchange) + '-x'],
    }
    for what, argv in forbidden.items():
        result = c.as_user(student, argv)
        assert result.returncode != 0, what
        assert 'denied' in result.stderr or 'not permitted' in result.stderr, (what,
                                                                               result.stderr)
    for name in (c.instructor, *c.students):
        assert stat.S_IMODE(os.stat(pwd.getpwnam(name).pw_dir).st_mode) == 0o700


def test_a_student_cannot_reach_another_users_server_or_the_admin_api(a_class, cycle):
    c = a_class
    student, other = c.students[0], c.students[1]
    # Each with the code it must get: JupyterHub answers 404 to a request about a user
    # the requester may not see, rather than say that the user exists.
    refused = [
        ('GET', '/user/%s/api/contents/%s' % (other, NAME), 403),
        ('GET', '/user/%s/api/contents/course/source' % c.instructor, 403),
        ('GET', '/user/%s/formgrader/api/assignments' % c.instructor, 403),
        ('GET', '/hub/api/users', 403),
        ('GET', '/hub/api/users/%s' % other, 404),
        ('POST', '/hub/api/users/%s/server' % other, 404),
        ('DELETE', '/hub/api/users/%s/server' % other, 404),
        ('POST', '/hub/api/users/%s/tokens' % other, 403),
    ]
    for method, path, code in refused:
        reply = c.call(method, path, student, allow_redirects=False)
        assert reply.status_code == code, (method, path, reply.status_code)
    assert c.call('GET', '/hub/api/users/' + other, other).json()['servers']['']['ready']
    # The admin page, in a browser's session.
    admin_page = {name: c.login(name).get(c.hub.url + '/hub/admin', allow_redirects=False)
                  for name in (student, c.instructor)}
    assert admin_page[student].status_code == 403
    assert admin_page[c.instructor].status_code == 200
    # The instructor, the admin, may; and the Formgrader sees the three submissions.
    assert c.call('GET', '/hub/api/users', c.instructor).status_code == 200
    reply = c.call('GET', '/user/%s/formgrader/api/assignments' % c.instructor, c.instructor)
    assert reply.status_code == 200, reply.text
    assert {a['name']: a['num_submissions'] for a in reply.json()}[NAME] == 3
    # A student's own server has no Formgrader.
    assert c.call('GET', '/user/%s/formgrader' % student, student).status_code == 404


def test_hub_proxy_servers_and_kernels_listen_on_127_0_0_1_only(a_class, cycle):
    import psutil
    c = a_class
    student = c.students[0]
    reply = c.call('POST', '/user/%s/api/kernels' % student, student, json={'name': 'python3'})
    assert reply.status_code == 201, reply.text
    kernel_id = reply.json()['id']
    deadline = time.monotonic() + 60
    while True:                       # until the kernel has opened its ports
        processes = [psutil.Process(c.hub.process.pid),
                     *psutil.Process(c.hub.process.pid).children(recursive=True)]
        listening = {}
        for proc in processes:
            for conn in proc.net_connections(kind='inet'):
                if conn.status == psutil.CONN_LISTEN:
                    listening.setdefault(proc.pid, []).append(conn.laddr.ip)
        kernels = [proc for proc in processes if 'ipykernel_launcher' in proc.cmdline()]
        if kernels and len(listening.get(kernels[0].pid, ())) >= 5:
            break
        assert time.monotonic() < deadline, 'the kernel opened no port'
        time.sleep(0.5)
    assert [k.username() for k in kernels] == [student]
    assert kernels[0].cmdline()[0] == str(HUB_VENV / 'bin' / 'python')
    assert len(listening) >= 1 + 1 + 4 + 1       # hub, proxy, four servers, the kernel
    assert {ip for ips in listening.values() for ip in ips} == {'127.0.0.1'}
    c.call('DELETE', '/user/%s/api/kernels/%s' % (student, kernel_id), student)


def test_no_token_or_password_lands_in_a_log_or_the_repository(a_class, cycle):
    import psutil
    c = a_class
    secrets = [*c.tokens.values(), *c.hub.passwords.values(),
               (c.hub.layout.state / 'jupyterhub_cookie_secret').read_text().strip()]
    for proc in psutil.Process(c.hub.process.pid).children(recursive=True):
        environ = proc.environ()
        secrets += [environ[k] for k in ('CONFIGPROXY_AUTH_TOKEN', 'JUPYTERHUB_API_TOKEN')
                    if k in environ]
    assert len(secrets) > len(c.tokens) + len(c.hub.passwords) + 1
    logs = [c.log_path.read_text(), *c.command_output]
    for secret in secrets:
        assert not any(secret in log for log in logs)
    found = subprocess.run(['git', 'grep', '--untracked', '-l', '-F',
                            *(arg for s in secrets for arg in ('-e', s))],
                           cwd=REPO, capture_output=True, text=True)
    assert found.returncode == 1 and not found.stdout, found.stdout
