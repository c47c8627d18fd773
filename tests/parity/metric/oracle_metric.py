"""The MXNet 1.9.1 side of the ``mx.metric`` parity suite (run by the reference interpreter:
``oracle_main.py oracle_metric.py``).

Runs every case of :mod:`metric_parity_driver` with the real ``mxnet`` and saves the
results with :mod:`oracle_io`.
"""
import functools

import mxnet as mx

import metric_parity_driver as driver
import oracle_io

if __name__ == '__main__':
    runs = [(case['id'], functools.partial(driver.run_metric_case, mx, case))
            for case in driver.metric_cases()]
    runs += [(case['id'], functools.partial(driver.run_error_case, mx, case))
             for case in driver.error_cases()]
    oracle_io.save_results(*oracle_io.run_each(runs))
