"""A hub for a test: a class of the run's own on this machine, started and cleaned up.

The accounts are named from a prefix of the test's own (``<prefix>-teacher``,
``<prefix>-s1`` ...), the hub's ports are free ones and its directory a fresh one, so that
tests on one machine never meet; everything is stopped and removed afterwards.
"""
import contextlib
import os
import pwd
import shutil
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / 'scripts'))
import hub  # noqa: E402

HUB_VENV = REPO / '.venv-hub'


@contextlib.contextmanager
def running_hub(prefix, notebook, students=2, ray='none', ray_user=None):
    """A started hub for an instructor and ``students`` students named from ``prefix``,
    whose course is ``notebook`` (``ray``: the hub's Ray mode; ``ray_user``: the account
    of a shared cluster), and its work folder (JupyterHub's log is ``jupyterhub.log``
    there); stopped, and its accounts and files removed, afterwards."""
    instructor = prefix + '-teacher'
    names = [prefix + '-s%d' % k for k in range(1, students + 1)]
    accounts = [instructor, *names] + ([ray_user] if ray_user else [])
    work = Path(tempfile.mkdtemp(prefix='gluonedu-hub-test-'))
    os.chmod(work, 0o755)             # the hub directory's exchange is for every user
    roster = work / 'roster.csv'
    roster.write_text('username,role\n%s,instructor\n%s\n'
                      % (instructor, '\n'.join(s + ',student' for s in names)))
    made, the_hub = [], None
    try:
        assert not {p.pw_name for p in pwd.getpwall()} & set(accounts)
        made = accounts                  # a Ray account's group last
        the_hub = hub.prepare(hub.read_roster(roster), work / 'hub', hub.free_port(),
                              notebooks=[notebook], hub_venv=HUB_VENV, ray=ray,
                              ray_user=ray_user)
        with open(work / 'jupyterhub.log', 'w') as log:
            the_hub.start(log)
        the_hub.wait_ready()
        yield the_hub, work
    finally:
        if the_hub is not None:
            the_hub.stop()
        hub.remove_users(made)
        shutil.rmtree(work, ignore_errors=True)
