"""Fixtures shared across test directories.

``ray_cluster``: one local Ray cluster for every distributed-store and launcher test of
the session (starting Ray takes seconds; the tests share it).
"""
import importlib.util

import pytest


@pytest.fixture(scope='session')
def ray_cluster():
    """A LocalCluster (Ray on this machine), started once and stopped after the session."""
    if importlib.util.find_spec('ray') is None:   # not imported here: local_cluster imports it
        pytest.skip("the distributed stores need the 'dist' extra (ray)")
    import gluonedu as mx
    cluster = mx.kv.local_cluster()
    yield cluster
    cluster.close()
