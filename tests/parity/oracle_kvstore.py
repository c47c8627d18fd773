"""The MXNet 1.9.1 side of the KVStore parity suite (run by the reference interpreter).

    oracle_kvstore.py CASES.json RESULTS.npz

Runs :func:`kvstore_parity_driver.run_kvstore_case` on every case with the real
``mxnet`` and writes ``"<case id>|<name>"`` arrays plus ``__meta__`` (JSON: the MXNet
version and the error of every case that raised; a failing case never stops the others).
"""
import json
import os
import sys
import traceback

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kvstore_parity_driver  # noqa: E402  (this directory, not an installed package)

import mxnet as mx  # noqa: E402


def main(cases_path, results_path):
    with open(cases_path) as f:
        cases = json.load(f)
    results, errors = {}, {}
    for case in cases:
        try:
            out = kvstore_parity_driver.run_kvstore_case(mx, case)
            mx.nd.waitall()  # MXNet reports asynchronous errors here
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
    if len(sys.argv) != 3:
        sys.exit('usage: oracle_kvstore.py CASES.json RESULTS.npz')
    main(*sys.argv[1:])
