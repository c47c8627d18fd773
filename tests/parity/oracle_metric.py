"""The MXNet 1.9.1 side of the ``mx.metric`` parity suite (run by the reference interpreter).

    oracle_metric.py RESULTS.npz

Runs every case of :mod:`metric_parity_driver` with the real ``mxnet`` and saves the
results with :func:`oracle_runner.run_and_save`.
"""
import functools
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import metric_parity_driver as driver  # noqa: E402  (this directory, not an installed package)
from oracle_runner import run_and_save  # noqa: E402

import mxnet as mx  # noqa: E402

if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.exit('usage: oracle_metric.py RESULTS.npz')
    runs = [(case['id'], functools.partial(driver.run_metric_case, mx, case))
            for case in driver.metric_cases()]
    runs += [(case['id'], functools.partial(driver.run_error_case, mx, case))
             for case in driver.error_cases()]
    run_and_save(runs, sys.argv[1], mx.__version__)
