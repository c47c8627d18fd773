"""The MXNet 1.9.1 side of the optimizer and scheduler parity suites: every case once.

Run by the reference interpreter (``.venv-mxnet/bin/python``, MXNet 1.9.1 + NumPy 1.23),
never by the project's Python, and never importing gluonedu (``oracle_main.py
oracle_optimizer.py``).

The cases (:mod:`oracle_io`) are ``{"optimizer_cases": [...], "scheduler_cases": [...]}``
(formats in :mod:`parity_driver`); the inputs the host-generated weights and gradients.
The results hold, per case id, the arrays of :func:`parity_driver.run_optimizer_case` /
:func:`parity_driver.run_scheduler_case` under ``"<id>|<name>"``; their meta, MXNet's
default comparison tolerances per dtype and the error of every case that raised (a
failing case never stops the others).

Cases with ``"zero_noise": true`` (SGLD) run with MXNet's Gaussian sampler replaced by
one that returns zeros, which leaves exactly the deterministic part of the update.
"""
import contextlib
import functools

import numpy as np

import mxnet as mx
import mxnet.optimizer.optimizer as mx_optimizer_module
from mxnet import test_utils

import oracle_io
import parity_driver


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


def run_optimizer_case(case, inputs):
    noise = sgld_noise_off() if case.get('zero_noise') else contextlib.nullcontext()
    with noise:
        return parity_driver.run_optimizer_case(mx, case, inputs)


if __name__ == '__main__':
    cases, inputs = oracle_io.load_cases(), oracle_io.load_inputs()
    results, errors = oracle_io.run_each(
        [(case['id'], functools.partial(run_optimizer_case, case, inputs))
         for case in cases['optimizer_cases']] +
        [(case['id'], lambda case=case: {'lr': parity_driver.run_scheduler_case(mx, case)})
         for case in cases['scheduler_cases']])
    # MXNet's own comparison defaults (test_utils.default_rtols/atols), by dtype name.
    oracle_io.save_results(
        results, errors, numpy_version=np.__version__,
        default_rtols={np.dtype(k).name: float(v)
                       for k, v in test_utils.default_rtols().items()},
        default_atols={np.dtype(k).name: float(v)
                       for k, v in test_utils.default_atols().items()})
