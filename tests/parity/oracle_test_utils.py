"""The MXNet 1.9.1 side of the ``mx.test_utils`` parity suite (run by the reference interpreter).

    oracle_test_utils.py RESULTS.npz

Runs every case of :mod:`test_utils_parity_driver` with the real ``mxnet``, in a working
folder that holds the MNIST files ``get_mnist`` reads (so MXNet's ``download`` finds them
and fetches nothing), and writes ``"<case>|<name>"`` arrays plus ``__meta__``.
"""
import json
import os
import sys
import traceback

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_utils_parity_driver as driver  # noqa: E402  (this directory, not a package)

import mxnet as mx  # noqa: E402


def main(results_path):
    results, errors = {}, {}
    for name in sorted(driver.CASES):
        try:
            out = driver.run_case(mx, name)
        except Exception as exc:  # recorded per case; the test side reports it
            errors[name] = {'type': type(exc).__name__, 'message': str(exc)[-2000:],
                            'traceback': traceback.format_exc(limit=4)}
            continue
        for key, array in out.items():
            results['%s|%s' % (name, key)] = array
    meta = {'mxnet_version': mx.__version__, 'errors': errors}
    results['__meta__'] = np.array(json.dumps(meta))
    np.savez(results_path, **results)


if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.exit('usage: oracle_test_utils.py RESULTS.npz')
    main(sys.argv[1])
