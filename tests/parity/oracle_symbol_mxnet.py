"""The MXNet 1.9.1 side of the symbol parity suite: every case once, in order.

Run by the reference interpreter (never importing gluonedu)::

    oracle_symbol_mxnet.py CASES.json INPUTS.npz WORKDIR RESULTS.npz

Cases read and write files in WORKDIR (gluonedu's exports are there before this runs).
The results file (:func:`parity_driver.save_arrays`) holds each successful case's arrays
under ``"<id>|<name>"`` and ``__meta__``: the MXNet version and every case's outcome.
"""
import json
import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import parity_driver  # noqa: E402  (this directory, not an installed package)
import symbol_driver  # noqa: E402

import mxnet as mx  # noqa: E402


def main(cases_path, inputs_path, workdir, results_path):
    with open(cases_path) as f:
        cases = json.load(f)
    inputs = parity_driver.load_arrays(inputs_path)
    results, outcomes = {}, {}
    for case in cases:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            outcome = symbol_driver.run_case(mx, case, inputs, workdir, 'mxnet')
        if outcome[0] == 'ok':
            outcomes[case['id']] = {'status': 'ok'}
            for name, array in outcome[1].items():
                results[case['id'] + '|' + name] = array
        else:
            outcomes[case['id']] = {'status': 'error', 'type': outcome[1],
                                    'message': outcome[2]}
    meta = {'mxnet_version': mx.__version__, 'outcomes': outcomes}
    results['__meta__'] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    parity_driver.save_arrays(results_path, results)


if __name__ == '__main__':
    if len(sys.argv) != 5:
        sys.exit('usage: oracle_symbol_mxnet.py CASES.json INPUTS.npz WORKDIR RESULTS.npz')
    main(*sys.argv[1:])
