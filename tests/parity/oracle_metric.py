"""The MXNet 1.9.1 side of the ``mx.metric`` parity suite (run by the reference interpreter).

    oracle_metric.py RESULTS.npz

Runs every case of :mod:`metric_parity_driver` with the real ``mxnet`` and writes
``"<case id>|<name>"`` arrays plus ``__meta__`` (JSON: the MXNet version and the error
of every value case that raised; a failing case never stops the others).
"""
import json
import os
import sys
import traceback

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import metric_parity_driver as driver  # noqa: E402  (this directory, not an installed package)

import mxnet as mx  # noqa: E402


def main(results_path):
    results, errors = {}, {}
    runs = [(case, driver.run_metric_case) for case in driver.metric_cases()]
    runs += [(case, driver.run_error_case) for case in driver.error_cases()]
    for case, run in runs:
        try:
            out = run(mx, case)
        except Exception as exc:  # recorded per case; the test side reports it
            errors[case['id']] = {'type': type(exc).__name__, 'message': str(exc)[-2000:],
                                  'traceback': traceback.format_exc(limit=4)}
            continue
        for name, array in out.items():
            results['%s|%s' % (case['id'], name)] = array
    meta = {'mxnet_version': mx.__version__, 'errors': errors}
    results['__meta__'] = np.array(json.dumps(meta))
    np.savez(results_path, **results)


if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.exit('usage: oracle_metric.py RESULTS.npz')
    main(sys.argv[1])
