"""The MXNet 1.9.1 side of the operator parity suites: every case once, in a fork.

Run by the reference interpreter (never importing gluonedu)::

    oracle_ops_mxnet.py CASES.json INPUTS.npz RESULTS.npz [--shared]

Each case runs in a forked child (MXNet is imported once, before forking), so that the
calls on which MXNet 1.9.1 crashes (``transpose`` with a repeated axis segfaults) are
recorded as ``{"status": "crash", "signal": n}`` instead of ending the run (a call that
hangs is ended by SIGALRM after :data:`CASE_TIMEOUT_S`). With
``--shared`` (the fuzz suite's thousands of calls) one child runs the cases one after the
other and a new one goes on after a crash: far fewer forks, but a call that corrupts
MXNet's memory without crashing (``scatter_nd`` with an index out of range) may make a
later one crash, which is then recorded as a crash too.
The results file (:func:`parity_driver.save_arrays`) holds each successful case's arrays under
``"<id>|<name>"`` and ``__meta__``: the MXNet version and every case's outcome
(``{"status": "ok"}``, ``{"status": "error", "type": ..., "message": ...}`` or a crash).
"""
import json
import os
import signal
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ops_driver  # noqa: E402  (this directory, not an installed package)
import parity_driver  # noqa: E402

import mxnet as mx  # noqa: E402


#: Seconds one call may take before it counts as a crash (SIGALRM): MXNet 1.9.1's negative
#: binomial sampler loops forever on some parameters.
CASE_TIMEOUT_S = 10


def _run_case(case, inputs, scratch):
    """Run ``case``, leaving its outcome in ``scratch``.json (its arrays in .npz)."""
    mx.random.seed(int(case.get('seed', 0)))
    outcome = ops_driver.run_case(mx, case, inputs)
    if outcome[0] == 'ok':
        parity_driver.save_arrays(scratch + '.npz', outcome[1])
        meta = {'status': 'ok'}
    else:
        meta = {'status': 'error', 'type': outcome[1], 'message': outcome[2]}
    with open(scratch + '.json', 'w') as f:
        json.dump(meta, f)


def _run_from(cases, start, stop, inputs, tmp):
    """Run ``cases[start:stop]`` in one fork; (the index of the case it crashed on and the
    signal), or (None, None)."""
    pid = os.fork()
    if pid == 0:  # the child: run, save, leave without running any cleanup of the parent
        code = 1
        try:
            for i in range(start, stop):
                signal.alarm(CASE_TIMEOUT_S)  # a call that never returns ends the child
                _run_case(cases[i], inputs, os.path.join(tmp, str(i)))
                signal.alarm(0)
            code = 0
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0:
        return None, None
    done = start
    while os.path.exists(os.path.join(tmp, str(done)) + '.json'):
        done += 1
    return done, os.WTERMSIG(status) if os.WIFSIGNALED(status) else None


def main(cases_path, inputs_path, results_path, shared=False):
    with open(cases_path) as f:
        cases = json.load(f)
    inputs = parity_driver.load_arrays(inputs_path)
    results, outcomes = {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        start = 0
        while start < len(cases):
            stop = len(cases) if shared else start + 1
            crashed, signal = _run_from(cases, start, stop, inputs, tmp)
            if crashed is None:
                start = stop
                continue
            outcomes[cases[crashed]['id']] = {'status': 'crash', 'signal': signal}
            start = crashed + 1
        for i, case in enumerate(cases):
            if case['id'] in outcomes:
                continue
            scratch = os.path.join(tmp, str(i))
            with open(scratch + '.json') as f:
                outcomes[case['id']] = meta = json.load(f)
            if meta['status'] == 'ok':
                for name, array in parity_driver.load_arrays(scratch + '.npz').items():
                    results[case['id'] + '|' + name] = array
    meta = {'mxnet_version': mx.__version__, 'outcomes': outcomes}
    results['__meta__'] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    parity_driver.save_arrays(results_path, results)


if __name__ == '__main__':
    if len(sys.argv) not in (4, 5) or sys.argv[4:] not in ([], ['--shared']):
        sys.exit('usage: oracle_ops_mxnet.py CASES.json INPUTS.npz RESULTS.npz [--shared]')
    main(*sys.argv[1:4], shared=len(sys.argv) == 5)
