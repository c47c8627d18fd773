"""The MXNet 1.9.1 side of a parity suite whose driver lists its cases as ``CASES`` and
runs one with ``run_case(mx, name)`` (run by the reference interpreter)::

    oracle_cases.py DRIVER RESULTS.npz

Imports the driver module ``DRIVER`` from this directory, runs every case with the real
``mxnet`` and saves the results with :func:`oracle_runner.run_and_save`.
"""
import functools
import importlib
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from oracle_runner import run_and_save  # noqa: E402  (this directory, not a package)

import mxnet as mx  # noqa: E402

if __name__ == '__main__':
    if len(sys.argv) != 3:
        sys.exit('usage: oracle_cases.py DRIVER RESULTS.npz')
    driver = importlib.import_module(sys.argv[1])
    run_and_save([(name, functools.partial(driver.run_case, mx, name))
                  for name in sorted(driver.CASES)], sys.argv[2], mx.__version__)
