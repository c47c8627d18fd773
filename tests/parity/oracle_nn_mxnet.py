"""The MXNet 1.9.1 side of the layer parity suite (run by the reference interpreter).

    oracle_nn_mxnet.py CASES.json RESULTS.npz

Runs every :mod:`nn_driver` case in ``CASES.json`` with the real ``mxnet`` and saves the
results with :func:`oracle_runner.run_and_save`.
"""
import functools
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nn_driver  # noqa: E402  (this directory, not an installed package)
from oracle_runner import run_and_save  # noqa: E402

import mxnet as mx  # noqa: E402

if __name__ == '__main__':
    if len(sys.argv) != 3:
        sys.exit('usage: oracle_nn_mxnet.py CASES.json RESULTS.npz')
    with open(sys.argv[1]) as f:
        cases = json.load(f)
    run_and_save([(case['id'], functools.partial(nn_driver.run_case, mx, case))
                  for case in cases], sys.argv[2], mx.__version__)
