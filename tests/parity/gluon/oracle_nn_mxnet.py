"""The MXNet 1.9.1 side of the layer parity suite (run by the reference interpreter:
``oracle_main.py oracle_nn_mxnet.py``).

Runs every :mod:`nn_driver` case it is given with the real ``mxnet`` and saves the
results with :mod:`oracle_io`.
"""
import functools

import mxnet as mx

import nn_driver
import oracle_io

if __name__ == '__main__':
    oracle_io.save_results(*oracle_io.run_each(
        [(case['id'], functools.partial(nn_driver.run_case, mx, case))
         for case in oracle_io.load_cases()]))
