"""The distributed store's operations and the Trainer's rules for it, on a local cluster."""
import os
import subprocess
import sys

import numpy as np
import pytest

import dist_helpers as helpers


def test_init_compression_row_sparse_and_events_across_two_workers(ray_cluster):
    results = ray_cluster.run(helpers.store_basics, num_workers=2, num_servers=2)
    for rank, r in enumerate(results):
        assert r['rank'] == rank and r['type'] == 'dist_sync' and r['capable']
        assert r['init'] == [7.0, 7.0, 7.0]
        # each worker sends q = [0, .5, -.5, 0, .5]; the servers hold the sum of both
        np.testing.assert_allclose(r['compressed_sum'], [0, 1, -1, 0, 1])
        np.testing.assert_allclose(r['residual'], [0.3, 0.1, -0.2, 0.1, 0.7], atol=1e-6)
        worker = 'worker%d' % rank
        assert ('kv_push', 'compressed_bytes', worker) in r['push_rows']
        assert ('kv_push', 'residual_norm', worker) in r['push_rows']
        assert ('kv_pull', 'bytes', worker) in r['push_rows']
        assert r['rsp_indices'] == [0, 2]
        assert r['rsp_data'] == [[0.0, 1.0], [4.0, 5.0]]
        assert r['flat_calls'] == [[10, 11]]   # all keys in one call: one round trip
        assert r['flat_sums'] == r['by_key_sums']


def test_trainer_rules_for_a_distributed_store(ray_cluster):
    found, = ray_cluster.run(helpers.trainer_rules, num_workers=1)
    assert 'update_on_kvstore=True' in found['async_without_store_updates']
    assert found['update_on_kvstore'] is True and found['distributed'] is True
    assert 'batch_size' in found['batch_size_change']
    assert 'Cannot reset distributed KVStore' in found['reset']



def test_a_local_cluster_listens_on_loopback_only():
    """Nothing outside this machine can reach the cluster a laptop starts for a class
    (a fresh process: Ray reads the setting when it is first imported)."""
    pytest.importorskip('ray', reason="the distributed stores need the 'dist' extra (ray)")
    env = {k: v for k, v in os.environ.items() if k != 'RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER'}
    code = ('import gluonedu as mx\n'
            'cluster = mx.kv.local_cluster(num_cpus=1, progress=False)\n'
            'print("address", cluster.address)\n'
            'cluster.close()\n')
    proc = subprocess.run([sys.executable, '-c', code], env=env, capture_output=True,
                          text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr[-3000:]
    address = proc.stdout.split('address ', 1)[1].split()[0]
    assert address.rsplit(':', 1)[0] == '127.0.0.1', proc.stdout
