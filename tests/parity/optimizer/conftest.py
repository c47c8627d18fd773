"""The optimizer and scheduler cases of :mod:`parity_cases`, run on MXNet 1.9.1 once per
session for both their suites (oracle_optimizer.py), as the session fixture :func:`oracle`.
"""
from pathlib import Path

import numpy as np
import pytest

import parity_cases
from harness import oracle_case_arrays, run_oracle

HERE = Path(__file__).resolve().parent


class OracleResults:
    """What the oracle produced for the optimizer and scheduler cases: arrays by
    ``"<case id>|<name>"``, its meta and errors; and the inputs it had."""

    def __init__(self, results, meta, inputs):
        self.results = results
        self.meta = meta
        self.errors = meta['errors']
        self.inputs = inputs

    def case_arrays(self, case_id):
        """``{name: array}`` of one case; fails the test if MXNet raised on it."""
        return oracle_case_arrays(self.results, self.meta, case_id)

    def tolerance(self, dtype):
        """(rtol, atol) for comparing arrays of ``dtype``.

        float32: the project's parity bar (rtol 1e-5, atol 1e-6). float16: MXNet's own
        test_utils defaults, as reported by the oracle (1e-2 / 1e-1 in MXNet 1.9.1).
        """
        name = np.dtype(dtype).name
        if name == 'float16':
            return (self.meta['default_rtols'].get('float16', 1e-2),
                    self.meta['default_atols'].get('float16', 1e-1))
        if name == 'float64':
            return 1e-12, 0.0
        return 1e-5, 1e-6


def all_cases():
    return {'optimizer_cases': parity_cases.optimizer_cases() + parity_cases.DIVERGENCE_CASES,
            'scheduler_cases': parity_cases.scheduler_cases()}


@pytest.fixture(scope='session')
def oracle(tmp_path_factory):
    """Run every optimizer and scheduler case on MXNet 1.9.1, once; an
    :class:`OracleResults`."""
    cases = all_cases()
    inputs = parity_cases.make_inputs(cases['optimizer_cases'])
    results, meta = run_oracle(HERE / 'oracle_optimizer.py', tmp_path_factory.mktemp('mxnet_oracle'),
                               cases=cases, inputs=inputs)
    return OracleResults(results, meta, inputs)
