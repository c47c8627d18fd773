"""The MXNet 1.9.1 side of the operator parity suite: every case once, each in a fork.

Run by the reference interpreter (never importing gluonedu)::

    oracle_ops_mxnet.py CASES.json INPUTS.npz RESULTS.npz

Each case runs in a forked child (MXNet is imported once, before forking), so that the
calls on which MXNet 1.9.1 crashes (``transpose`` with a repeated axis segfaults) are
recorded as ``{"status": "crash", "signal": n}`` instead of ending the run. The results
file (:func:`parity_driver.save_arrays`) holds each successful case's arrays under
``"<id>|<name>"`` and ``__meta__``: the MXNet version and every case's outcome
(``{"status": "ok"}``, ``{"status": "error", "type": ..., "message": ...}`` or a crash).
"""
import json
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ops_driver  # noqa: E402  (this directory, not an installed package)
import parity_driver  # noqa: E402

import mxnet as mx  # noqa: E402


def _run_in_child(case, inputs, scratch):
    """Run ``case`` in a fork; its outcome, and its arrays saved to ``scratch``."""
    pid = os.fork()
    if pid == 0:  # the child: run, save, leave without running any cleanup of the parent
        code = 1
        try:
            mx.random.seed(int(case.get('seed', 0)))
            outcome = ops_driver.run_case(mx, case, inputs)
            if outcome[0] == 'ok':
                parity_driver.save_arrays(scratch + '.npz', outcome[1])
                meta = {'status': 'ok'}
            else:
                meta = {'status': 'error', 'type': outcome[1], 'message': outcome[2]}
            with open(scratch + '.json', 'w') as f:
                json.dump(meta, f)
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status) or not os.path.exists(scratch + '.json'):
        return {'status': 'crash', 'signal': os.WTERMSIG(status) if os.WIFSIGNALED(status)
                else None}, {}
    with open(scratch + '.json') as f:
        meta = json.load(f)
    arrays = parity_driver.load_arrays(scratch + '.npz') if meta['status'] == 'ok' else {}
    return meta, arrays


def main(cases_path, inputs_path, results_path):
    with open(cases_path) as f:
        cases = json.load(f)
    inputs = parity_driver.load_arrays(inputs_path)
    results, outcomes = {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        for i, case in enumerate(cases):
            meta, arrays = _run_in_child(case, inputs, os.path.join(tmp, str(i)))
            outcomes[case['id']] = meta
            for name, array in arrays.items():
                results[case['id'] + '|' + name] = array
    meta = {'mxnet_version': mx.__version__, 'outcomes': outcomes}
    results['__meta__'] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    parity_driver.save_arrays(results_path, results)


if __name__ == '__main__':
    if len(sys.argv) != 4:
        sys.exit('usage: oracle_ops_mxnet.py CASES.json INPUTS.npz RESULTS.npz')
    main(*sys.argv[1:])
