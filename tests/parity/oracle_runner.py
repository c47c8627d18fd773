"""The loop every oracle script of the metric, vision and test_utils suites runs: each case
on MXNet, its arrays saved as ``"<case id>|<name>"`` in one .npz with ``__meta__`` (JSON:
the MXNet version and, for each case that raised, its error; a failing case never stops
the others). Plain Python and NumPy: it runs in the oracle's interpreter.
"""
import json
import traceback

import numpy as np


def run_and_save(runs, results_path, mxnet_version):
    """Run ``runs`` (pairs ``(case id, function returning {name: array})``) and save."""
    results, errors = {}, {}
    for case_id, run in runs:
        try:
            out = run()
        except Exception as exc:  # recorded per case; the test side reports it
            errors[case_id] = {'type': type(exc).__name__, 'message': str(exc)[-2000:],
                               'traceback': traceback.format_exc(limit=4)}
            continue
        for name, array in out.items():
            results['%s|%s' % (case_id, name)] = array
    results['__meta__'] = np.array(json.dumps({'mxnet_version': mxnet_version,
                                               'errors': errors}))
    np.savez(results_path, **results)
