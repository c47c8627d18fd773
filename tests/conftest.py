"""Fixtures shared across test directories.

``ray_cluster``: one local Ray cluster for every distributed-store and launcher test of
the session (starting Ray takes seconds; the tests share it). ``short_temp_dir``: a
fresh directory for a launcher's temp files (its ``TMPDIR``), so that a test can check
what is left there.

Under pytest-xdist (``make test`` runs ``-n auto --dist loadfile``) each test file, and
each notebook, runs whole on one worker (tests/test_exercise_mutants.py: each notebook's
test apart), so a file's module fixtures (an oracle run, a
generated course) run once and a notebook's cells share one kernel; and every file that
starts Ray runs on the same worker, so two Ray clusters never start at once.
"""
import fnmatch
import importlib.util
import shutil
import sys
import tempfile

import pytest

#: Files whose tests are each a work unit of their own (one notebook's kernel each).
ONE_UNIT_PER_TEST = ('tests/test_exercise_mutants.py',)

#: Files whose tests start Ray (through ``ray_cluster``, a launcher, a second node, or a
#: notebook's own cluster).
STARTS_RAY = ('tests/kvstore/test_dist_*.py', 'tests/kvstore/test_two_nodes.py',
              'tests/kvstore/test_ray_start.py', 'tests/test_launch*.py',
              'notebooks/12_*.ipynb')


def pytest_xdist_make_scheduler(config, log):
    if config.getoption('dist') != 'loadfile':
        return None
    from xdist.scheduler import LoadFileScheduling

    class FileOrRayScheduling(LoadFileScheduling):
        """One work unit per file, except that the files starting Ray form one unit and
        the tests of ONE_UNIT_PER_TEST are a unit each."""

        def _split_scope(self, nodeid):
            path = super()._split_scope(nodeid)
            if path in ONE_UNIT_PER_TEST and nodeid.endswith(']'):
                # A test parametrized by a notebook stem runs that notebook.
                notebook = 'notebooks/%s.ipynb' % nodeid[nodeid.rindex('[') + 1:-1]
                starts_ray = any(fnmatch.fnmatch(notebook, p) for p in STARTS_RAY)
                return 'ray' if starts_ray else nodeid
            return 'ray' if any(fnmatch.fnmatch(path, p) for p in STARTS_RAY) else path

    return FileOrRayScheduling(config, log)


@pytest.fixture(autouse=True)
def no_subscription_left_on_the_bus():
    """A subscription left on the instrumentation bus makes every later Trainer step of
    the worker a watched one (other passes, other paths): the test that leaves one fails,
    and the bus is emptied for the next."""
    yield
    events = sys.modules.get('gluonedu.instrument.events')
    if events is None or not events.BUS.active:
        return
    leftover = list(events.BUS._subscriptions)
    for sub in leftover:
        sub.remove()
    pytest.fail("the test left %d subscription(s) on the instrumentation bus; remove them "
                "(Subscription.remove() or a with block)" % len(leftover))


@pytest.fixture(scope='session')
def ray_cluster():
    """A LocalCluster (Ray on this machine), started once and stopped after the session."""
    if importlib.util.find_spec('ray') is None:   # not imported here: local_cluster imports it
        pytest.skip("the distributed stores need the 'dist' extra (ray)")
    import gluonedu as mx
    cluster = mx.kv.local_cluster()
    yield cluster
    cluster.close()


@pytest.fixture
def short_temp_dir():
    """A fresh directory under /tmp with a short path (a local Ray cluster's socket paths
    inside it must stay under ~107 characters); removed after the test."""
    path = tempfile.mkdtemp(prefix='gl-', dir='/tmp')
    yield path
    shutil.rmtree(path, ignore_errors=True)
