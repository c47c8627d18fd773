"""The MXNet 1.9.1 side of the layer parity suite: run every case once, write the results.

Run by the reference interpreter (``.venv-mxnet/bin/python``), never importing gluonedu::

    oracle_nn_mxnet.py CASES.json RESULTS.npz

``CASES.json`` is a list of :mod:`nn_driver` cases. The results file
(:func:`parity_driver.save_arrays`) holds every case's arrays under ``"<id>|<name>"``
and ``__meta__``: JSON with the MXNet version and each case's info (parameter tables,
reprs, the error it raised). A failing case never stops the others.
"""
import json
import os
import sys
import traceback

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nn_driver  # noqa: E402
import parity_driver  # noqa: E402

import mxnet as mx  # noqa: E402


def main(cases_path, results_path):
    with open(cases_path) as f:
        cases = json.load(f)
    results, infos = {}, {}
    for case in cases:
        try:
            arrays, info = nn_driver.run_case(mx, case)
        except Exception as exc:  # a crash of the driver itself: reported per case
            arrays, info = {}, {'crash': traceback.format_exc(limit=8), 'error': {
                'type': type(exc).__name__, 'message': str(exc)[:2000]}}
        infos[case['id']] = info
        for name, array in arrays.items():
            results[case['id'] + '|' + name] = array
    meta = {'mxnet_version': mx.__version__, 'info': infos}
    results['__meta__'] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    parity_driver.save_arrays(results_path, results)


if __name__ == '__main__':
    if len(sys.argv) != 3:
        sys.exit('usage: oracle_nn_mxnet.py CASES.json RESULTS.npz')
    main(*sys.argv[1:])
