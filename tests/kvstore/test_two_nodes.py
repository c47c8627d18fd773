"""dist_sync and dist_async across two Ray nodes on this machine, through the launcher.

Ray's own multi-node test cluster (``ray.cluster_utils.Cluster``, in a process of its
own) starts a head node and a second node on 127.0.0.1, each a separate raylet with its
own ports and its own CPU; every process of the test keeps to loopback.
``python -m gluonedu.launch -s 2 --address HEAD`` joins it as a user would join a cluster
of machines; the two servers must land on the two nodes (the launcher says where each
one runs), and the model must be the one single-process training gives. Skipped,
naming why, where Ray cannot start two nodes here.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

import dist_helpers as helpers

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
WORKER = HERE / 'two_node_worker.py'
STEPS = 6


#: Ray keeps 127.0.0.1 as a node's address (rather than the machine's network address).
LOOPBACK = {'RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER': '0'}


@pytest.fixture(scope='module')
def two_nodes():
    """Two Ray nodes on 127.0.0.1 (tests/kvstore/two_node_cluster.py, a process of its
    own); yields ``(address, {node id, ...})``."""
    pytest.importorskip('ray', reason="the distributed stores need the 'dist' extra (ray)")
    temp_dir = tempfile.mkdtemp(prefix='gluonedu-2n-')   # short: raylet socket paths
    proc = subprocess.Popen([sys.executable, str(HERE / 'two_node_cluster.py'), temp_dir],
                            env=dict(os.environ, **LOOPBACK), stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    try:
        started = json.loads(proc.stdout.readline() or '{"error": "it exited"}')
        if 'error' in started:
            pytest.skip('Ray cannot start two nodes on this machine: %s' % started['error'])
        yield started['address'], set(started['nodes'])
    finally:
        proc.stdin.close()
        proc.wait(timeout=120)
        shutil.rmtree(temp_dir, ignore_errors=True)


def _launch(address, kv_type, num_workers, out_dir):
    env = dict(os.environ, KV_TYPE=kv_type, STEPS=str(STEPS), OUT_DIR=str(out_dir), **LOOPBACK,
               PYTHONPATH=os.pathsep.join([str(ROOT), str(HERE),
                                           os.environ.get('PYTHONPATH', '')]))
    proc = subprocess.run([sys.executable, '-m', 'gluonedu.launch', '-n', str(num_workers),
                           '-s', '2', '--address', address, 'python', str(WORKER)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output
    return output


@pytest.mark.parametrize('kv_type, num_workers', [('dist_sync', 2), ('dist_async', 1)])
def test_servers_on_two_nodes_train_as_one_process(two_nodes, tmp_path, kv_type,
                                                   num_workers):
    """dist_sync: 2 workers give the model of one process on the concatenated batches.
    dist_async with one worker has nothing stale: it is one process's SGD."""
    address, nodes = two_nodes
    assert len(nodes) == 2
    output = _launch(address, kv_type, num_workers, tmp_path)
    placed = re.findall(r'server (\d) runs on 127\.0\.0\.1 \(Ray node ([0-9a-f]+)\)', output)
    assert sorted(server for server, _ in placed) == ['0', '1'], output
    assert {node for _, node in placed} == nodes, output        # one server on each node
    expected = helpers.train_single(num_workers, STEPS,
                                    optimizer_params={'learning_rate': 0.1, 'momentum': 0.9})
    for rank in range(num_workers):
        assert '[%d] rank %d of %d done' % (rank, rank, num_workers) in output
        saved = np.load(tmp_path / ('rank%d.npz' % rank))
        got = [saved['arr_%d' % i] for i in range(len(saved.files))]
        assert len(got) == len(expected)
        for g, want in zip(got, expected):
            np.testing.assert_allclose(g, want, rtol=1e-5, atol=1e-6)
