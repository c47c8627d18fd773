"""gluonedu's lr schedulers against MXNet 1.9.1: whole curves, to rtol 1e-12.

Each scheduler, several parameter sets, without / with linear / with constant warm-up,
called with num_update = 1..200 (as an optimizer does) and 0..199 — the schedulers are
stateful, so the calls run in that order on both sides. The ``optimizer-lr-*`` cases hand
the scheduler to ``Optimizer(learning_rate=..., lr_scheduler=...)``, whose learning_rate
overrides the scheduler's base_lr (MXNet's quirk: not the warm-up's end point, nor
Poly/Cosine's starting value, which the scheduler fixed at construction).
"""
import warnings

import numpy as np
import pytest

import parity_cases
import parity_driver

SCHEDULER_CASES = parity_cases.scheduler_cases()


@pytest.mark.parametrize('case', SCHEDULER_CASES, ids=[c['id'] for c in SCHEDULER_CASES])
def test_scheduler_parity(case, oracle):
    import gluonedu as mx
    theirs = oracle.case_arrays(case['id'])['lr']
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')  # the base_lr-override warning
        ours = parity_driver.run_scheduler_case(mx, case)
    assert ours.shape == theirs.shape
    bad = ~np.isclose(ours, theirs, rtol=1e-12, atol=0)
    if bad.any():
        first = int(np.argmax(bad))
        start = 1 if case.get('via_optimizer') else case.get('start', 1)
        pytest.fail('%s: lr differs from MXNet 1.9.1 at %d of %d updates, first at '
                    'num_update=%d: gluonedu %r, MXNet %r'
                    % (case['id'], int(bad.sum()), bad.size, start + first, ours[first],
                       theirs[first]), pytrace=False)
