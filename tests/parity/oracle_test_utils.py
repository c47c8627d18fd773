"""The MXNet 1.9.1 side of the ``mx.test_utils`` parity suite (run by the reference interpreter).

    oracle_test_utils.py RESULTS.npz

Runs every case of :mod:`test_utils_parity_driver` with the real ``mxnet``, in a working
folder that holds the MNIST files ``get_mnist`` reads (so MXNet's ``download`` finds them
and fetches nothing), and saves the results with :func:`oracle_runner.run_and_save`.
"""
import functools
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_utils_parity_driver as driver  # noqa: E402  (this directory, not a package)
from oracle_runner import run_and_save  # noqa: E402

import mxnet as mx  # noqa: E402

if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.exit('usage: oracle_test_utils.py RESULTS.npz')
    run_and_save([(name, functools.partial(driver.run_case, mx, name))
                  for name in sorted(driver.CASES)], sys.argv[1], mx.__version__)
