"""The MXNet 1.9.1 side of the sparse parity suite: run every case once, write the results.

Run by the reference interpreter (``.venv-mxnet/bin/python``), never importing gluonedu::

    oracle_sparse_mxnet.py INPUTS.npz RESULTS.npz

The results npz holds :func:`sparse_driver.flatten` of the operator and training cases'
results, plus ``__meta__`` (JSON: the MXNet version, every result's storage type and
dtype, every case's exception class, and the traceback of a training case that failed).
"""
import json
import os
import sys
import traceback

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sparse_driver  # noqa: E402  (this directory, not an installed package)

import mxnet as mx  # noqa: E402


def main(inputs_path, results_path):
    inputs = dict(np.load(inputs_path))
    arrays, meta = sparse_driver.run_all(mx, inputs, os.getcwd(), traceback.format_exc)
    meta['mxnet_version'] = mx.__version__
    arrays['__meta__'] = np.array(json.dumps(meta))
    np.savez(results_path, **arrays)


if __name__ == '__main__':
    if len(sys.argv) != 3:
        sys.exit('usage: oracle_sparse_mxnet.py INPUTS.npz RESULTS.npz')
    main(*sys.argv[1:])
