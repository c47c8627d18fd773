"""The MXNet 1.9.1 side of the parity suite: run every case once, write the results.

Run by the reference interpreter (``.venv-mxnet/bin/python``, MXNet 1.9.1 + NumPy 1.23),
never by the project's Python, and never importing gluonedu::

    oracle_mxnet.py CASES.json INPUTS.npz RESULTS.npz

``CASES.json`` holds ``{"optimizer_cases": [...], "scheduler_cases": [...]}`` (formats in
:mod:`parity_driver`); ``INPUTS.npz`` the host-generated weights and gradients. Both npz
files are written by :func:`parity_driver.save_arrays`. The results hold, per case id,
the arrays of :func:`parity_driver.run_optimizer_case` /
:func:`parity_driver.run_scheduler_case` under ``"<id>|<name>"``, plus ``__meta__``
(UTF-8 JSON bytes: the MXNet version, MXNet's default comparison tolerances per dtype, and
the error of every case that raised — a failing case never stops the others).

Cases with ``"zero_noise": true`` (SGLD) run with MXNet's Gaussian sampler replaced by
one that returns zeros, which leaves exactly the deterministic part of the update.
"""
import contextlib
import json
import os
import sys
import traceback

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import parity_driver  # noqa: E402  (this directory, not an installed package)

import mxnet as mx  # noqa: E402
import mxnet.optimizer.optimizer as mx_optimizer_module  # noqa: E402
from mxnet import test_utils  # noqa: E402


@contextlib.contextmanager
def sgld_noise_off():
    """Make SGLD's ``normal(0, sqrt(lr))`` draw zeros (SGLD looks ``normal`` up in its module)."""
    original = mx_optimizer_module.normal

    def zero_normal(loc=0, scale=1, shape=None, dtype=None, ctx=None, **kwargs):
        return mx.nd.zeros(shape, ctx=ctx, dtype=dtype if dtype is not None else 'float32') + loc

    mx_optimizer_module.normal = zero_normal
    try:
        yield
    finally:
        mx_optimizer_module.normal = original


def main(cases_path, inputs_path, results_path):
    with open(cases_path) as f:
        cases = json.load(f)
    inputs = parity_driver.load_arrays(inputs_path)
    results, errors = {}, {}

    for case in cases.get('optimizer_cases', []):
        noise = sgld_noise_off() if case.get('zero_noise') else contextlib.nullcontext()
        try:
            with noise:
                out = parity_driver.run_optimizer_case(mx, case, inputs)
        except Exception as exc:  # recorded per case; the test side reports it
            errors[case['id']] = {'type': type(exc).__name__, 'message': str(exc),
                                  'traceback': traceback.format_exc(limit=4)}
            continue
        for name, array in out.items():
            results[parity_driver.input_key(case['id'], name)] = array

    for case in cases.get('scheduler_cases', []):
        try:
            curve = parity_driver.run_scheduler_case(mx, case)
        except Exception as exc:
            errors[case['id']] = {'type': type(exc).__name__, 'message': str(exc),
                                  'traceback': traceback.format_exc(limit=4)}
            continue
        results[parity_driver.input_key(case['id'], 'lr')] = curve

    meta = {
        'mxnet_version': mx.__version__,
        'numpy_version': np.__version__,
        # MXNet's own comparison defaults (test_utils.default_rtols/atols), by dtype name.
        'default_rtols': {np.dtype(k).name: float(v)
                          for k, v in test_utils.default_rtols().items()},
        'default_atols': {np.dtype(k).name: float(v)
                          for k, v in test_utils.default_atols().items()},
        'errors': errors,
    }
    results['__meta__'] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    parity_driver.save_arrays(results_path, results)


if __name__ == '__main__':
    if len(sys.argv) != 4:
        sys.exit('usage: oracle_mxnet.py CASES.json INPUTS.npz RESULTS.npz')
    main(*sys.argv[1:])
