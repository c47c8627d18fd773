"""Starts a Ray cluster of two nodes on 127.0.0.1 for the two-node test; stops it at EOF.

Prints one JSON line: ``{"address": "127.0.0.1:PORT", "nodes": [node id, node id]}``, or
``{"error": "..."}`` when the nodes do not start; then waits for its standard input to
close and shuts the cluster down. Run with RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0 in the
environment: Ray then keeps 127.0.0.1 as the nodes' address instead of replacing it
with the machine's network address, so that all traffic stays on loopback.
Argument: a (short) temp dir for Ray's files.
"""
import json
import os
import sys

from ray.cluster_utils import Cluster


def start(temp_dir):
    # Ray's Cluster writes the head's address to <RAY_TMPDIR or /tmp>/ray/ray_current_cluster,
    # where any plain ray.init() on the machine would find it (and fails where that
    # directory does not exist): keep it in this cluster's own directory.
    os.environ['RAY_TMPDIR'] = temp_dir
    os.makedirs(os.path.join(temp_dir, 'ray'), exist_ok=True)
    node = dict(num_cpus=1, node_ip_address='127.0.0.1')
    cluster = Cluster(initialize_head=True,
                      head_node_args=dict(node, include_dashboard=False, temp_dir=temp_dir))
    try:
        cluster.add_node(**node)
        cluster.wait_for_nodes(timeout=120)
    except BaseException:
        cluster.shutdown()
        raise
    return cluster


def main(temp_dir):
    error = None
    # Ray gives a node 30 s to register; a busy machine can miss that once.
    for _ in range(2):
        try:
            cluster = start(temp_dir)
            break
        except Exception as err:
            error = '%s: %s' % (type(err).__name__, err)
    else:
        print(json.dumps({'error': error}), flush=True)
        return
    try:
        print(json.dumps({'address': cluster.address,
                          'nodes': [n.node_id for n in cluster.list_all_nodes()]}), flush=True)
        sys.stdin.read()
    finally:
        cluster.shutdown()


if __name__ == '__main__':
    main(sys.argv[1])
