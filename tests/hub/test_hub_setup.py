"""``make hub``'s set-up refuses bad input with an error that says what to do: a roster
with a duplicate or invalid user name, a port in use, a missing or closed exchange.
No root needed: these checks come before anything is made."""
import socket
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / 'scripts'))
import hub  # noqa: E402

HEADER = '# a comment\nusername,role\n'


def _roster(tmp_path, rows):
    path = tmp_path / 'roster.csv'
    path.write_text(HEADER + rows)
    return path


def test_the_example_roster_is_one_instructor_and_students():
    roster = hub.read_roster(hub.DEFAULT_ROSTER)
    assert roster.instructor == 'teacher'
    assert roster.students == ('alice', 'bob', 'carol')
    assert roster.role('teacher') == 'instructor' and roster.role('bob') == 'student'


@pytest.mark.parametrize('rows, message', [
    ('t,instructor\nalice,student\nbob,student\nalice,student\n',
     r"line 6: 'alice' is listed twice \(line 4 and line 6\)"),
    ('t,instructor\nBob Smith,student\n', r"line 4: 'Bob Smith' is not a valid user name"),
    ('t,instructor\n-x,student\n', r"'-x' is not a valid user name"),
    ('t,instructor\n%s,student\n' % ('a' * 33), 'at most 32 characters'),
    ('t,instructor\nalice,teacher\n', "the role of 'alice' must be instructor or student"),
    ('t,instructor\nalice\n', 'expected two fields'),
    ('t,instructor\nu,instructor\nalice,student\n', r'exactly one instructor; it names 2 \(t, u\)'),
    ('alice,student\n', 'exactly one instructor; it names 0'),
    ('t,instructor\n', 'names no student'),
])
def test_a_bad_roster_is_refused_naming_the_line_and_the_fix(tmp_path, rows, message):
    with pytest.raises(hub.HubError, match=message):
        hub.read_roster(_roster(tmp_path, rows))


def test_a_roster_without_its_header_or_file_is_refused(tmp_path):
    path = tmp_path / 'roster.csv'
    path.write_text('t,instructor\nalice,student\n')
    with pytest.raises(hub.HubError, match="must start with the header line 'username,role'"):
        hub.read_roster(path)
    with pytest.raises(hub.HubError, match='cannot read the roster'):
        hub.read_roster(tmp_path / 'missing.csv')


def test_a_port_in_use_is_refused_with_a_free_one_to_use():
    with socket.socket() as server:
        server.bind((hub.HOST, 0))
        server.listen()
        port = server.getsockname()[1]
        with pytest.raises(hub.HubError, match=r'port %d on 127.0.0.1 is in use .* '
                                               r'make hub HUB_PORT=\d+' % port):
            hub.check_port_free(port)
    hub.check_port_free(port)


def test_a_missing_or_closed_exchange_is_refused(tmp_path):
    with pytest.raises(hub.HubError, match='exchange directory .*missing-exchange does not '
                                           'exist; create it .*chmod 1777'):
        hub.check_exchange(tmp_path / 'missing-exchange')
    closed = tmp_path / 'closed'
    closed.mkdir(mode=0o755)
    closed.chmod(0o755)
    with pytest.raises(hub.HubError, match='has mode 755; students cannot submit there.*'
                                           'chmod 1777'):
        hub.check_exchange(closed)
    closed.chmod(0o1777)
    hub.check_exchange(closed)


def test_the_command_says_what_is_wrong_before_it_makes_anything(tmp_path):
    result = subprocess.run(
        [sys.executable, str(REPO / 'scripts' / 'hub.py'),
         '--roster', str(_roster(tmp_path, 't,instructor\nt,student\n')),
         '--hub-dir', str(tmp_path / 'hub')], capture_output=True, text=True)
    assert result.returncode == 1
    assert result.stderr.startswith("error: the roster %s, line 4: 't' is listed twice"
                                    % (tmp_path / 'roster.csv'))
    assert not (tmp_path / 'hub').exists()


def test_an_unknown_ray_mode_is_refused_before_anything_is_made(tmp_path):
    roster = hub.read_roster(_roster(tmp_path, 't,instructor\ns,student\n'))
    with pytest.raises(hub.HubError, match="--ray must be one of per-user, shared, none, "
                                           "not 'per-kernel'"):
        hub.prepare(roster, tmp_path / 'hub', ray='per-kernel')
    assert not (tmp_path / 'hub').exists()
    result = subprocess.run([sys.executable, str(REPO / 'scripts' / 'hub.py'), '--ray', 'all'],
                            capture_output=True, text=True)
    assert result.returncode == 2 and "invalid choice: 'all'" in result.stderr
