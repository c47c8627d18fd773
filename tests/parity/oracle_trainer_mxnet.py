"""The MXNet 1.9.1 side of the Trainer parity suite: run every case once, write the results.

Run by the reference interpreter (``.venv-mxnet/bin/python``), never importing gluonedu::

    oracle_trainer_mxnet.py CASES.json INPUTS.npz RESULTS.npz

``CASES.json`` is a list of :mod:`trainer_driver` cases; the results npz holds, per case,
the arrays of :func:`trainer_driver.run_trainer_case` under ``"<id>|<name>"``, plus
``__meta__`` (JSON: the MXNet version and the error of every case that raised; a failing
case never stops the others). State files go to the current directory.
"""
import json
import os
import sys
import traceback

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import trainer_driver  # noqa: E402  (this directory, not an installed package)

import mxnet as mx  # noqa: E402


def main(cases_path, inputs_path, results_path):
    with open(cases_path) as f:
        cases = json.load(f)
    inputs = dict(np.load(inputs_path))
    results, errors = {}, {}
    for case in cases:
        try:
            out = trainer_driver.run_trainer_case(mx, case, inputs, os.getcwd())
        except Exception as exc:  # recorded per case; the test side reports it
            errors[case['id']] = {'type': type(exc).__name__, 'message': str(exc),
                                  'traceback': traceback.format_exc(limit=6)}
            continue
        for name, array in out.items():
            results[case['id'] + '|' + name] = array
    meta = {'mxnet_version': mx.__version__, 'errors': errors}
    results['__meta__'] = np.array(json.dumps(meta))
    np.savez(results_path, **results)


if __name__ == '__main__':
    if len(sys.argv) != 4:
        sys.exit('usage: oracle_trainer_mxnet.py CASES.json INPUTS.npz RESULTS.npz')
    main(*sys.argv[1:])
