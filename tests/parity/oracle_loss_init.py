"""The MXNet 1.9.1 side of the loss/initializer/autograd.Function parity suite (run by the
reference interpreter)::

    oracle_loss_init.py RESULTS.npz

Runs every case of :mod:`loss_init_parity_driver` with the real ``mxnet`` and saves the
results with :func:`oracle_runner.run_and_save`.
"""
import functools
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import loss_init_parity_driver as driver  # noqa: E402  (this directory, not a package)
from oracle_runner import run_and_save  # noqa: E402

import mxnet as mx  # noqa: E402

if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.exit('usage: oracle_loss_init.py RESULTS.npz')
    run_and_save([(name, functools.partial(driver.run_case, mx, name))
                  for name in sorted(driver.CASES)], sys.argv[1], mx.__version__)
