"""gluonedu's AdamW against MXNet 1.9.1's ``adamw_update`` / ``mp_adamw_update``, step by step.

MXNet 1.9.1 registers no AdamW optimizer; its operators are the reference. The oracle
(``oracle_adamw.py``) calls them as the optimizer's docstring says it maps onto them
(``lr=c_t, eta=lr``); gluonedu runs ``mx.optimizer.create('adamw', ...)`` through an
Updater. After every step each parameter's weight, mean and var (and the float32 master
copy of float16 weights) must match, float32 within rtol 1e-5 / atol 1e-6, float16
weights within MXNet's float16 defaults (rtol 1e-2, atol 1e-1).
"""
import math
import warnings
from pathlib import Path

import numpy as np
import pytest

from harness import oracle_case_arrays, run_oracle
from parity_cases import SCHEDULER

ORACLE_SCRIPT = Path(__file__).with_name('oracle_adamw.py')
STEPS = 6
SHAPES = [(4, 5), (7,), (3,)]
BASE = {'learning_rate': 0.01, 'beta1': 0.8, 'beta2': 0.99, 'epsilon': 1e-6}


def _case(name, kwargs, rescale=(1.0,) * STEPS, dtype='float32', scheduler=None):
    return {'id': 'adamw-%s' % name, 'kwargs': kwargs, 'rescale': list(rescale),
            'dtype': dtype, 'scheduler': scheduler, 'steps': STEPS, 'nparams': len(SHAPES)}


CASES = [
    _case('plain', dict(BASE)),
    _case('defaults', {'wd': 0.01}),
    _case('wd', dict(BASE, wd=0.05)),
    _case('clip', dict(BASE, wd=0.05, clip_gradient=0.5)),
    _case('rescale', dict(BASE, wd=0.05), rescale=(0.25,) * STEPS),
    # 0, NaN and inf skip the step (the update is still counted)
    _case('skip', dict(BASE, wd=0.05), rescale=(1.0, 0.0, math.nan, 0.5, math.inf, 1.0)),
    _case('nobias', dict(BASE, wd=0.05, correct_bias=False)),
    _case('sched', dict(BASE, wd=0.05, learning_rate=SCHEDULER['kwargs']['base_lr']),
          scheduler=SCHEDULER),
    _case('plain-fp16', dict(BASE, wd=0.05, multi_precision=True), dtype='float16'),
    _case('clip-fp16', dict(BASE, wd=0.05, clip_gradient=0.5, multi_precision=True),
          dtype='float16'),
]


def _inputs():
    rng = np.random.default_rng(20190104)
    inputs = {}
    for case in CASES:
        for k, shape in enumerate(SHAPES):
            inputs['%s|w|%d' % (case['id'], k)] = rng.uniform(-1, 1, shape).astype(case['dtype'])
            inputs['%s|g|%d' % (case['id'], k)] = \
                rng.standard_normal((STEPS,) + shape).astype(case['dtype'])
    return inputs


INPUTS = _inputs()


@pytest.fixture(scope='module')
def adamw_oracle(tmp_path_factory):
    """``(results, meta)`` of every case run once on MXNet 1.9.1's operators."""
    return run_oracle(ORACLE_SCRIPT, tmp_path_factory.mktemp('mxnet_adamw_oracle'),
                      cases=CASES, inputs=INPUTS)


def run_gluonedu(case):
    import gluonedu as mx
    kwargs = dict(case['kwargs'])
    if case['scheduler']:
        kwargs['lr_scheduler'] = getattr(mx.lr_scheduler, case['scheduler']['type'])(
            **case['scheduler']['kwargs'])
    opt = mx.optimizer.create('adamw', **kwargs)
    updater = mx.optimizer.get_updater(opt)
    weights = [mx.nd.array(INPUTS['%s|w|%d' % (case['id'], k)], dtype=case['dtype'])
               for k in range(case['nparams'])]
    out = {}
    for step in range(case['steps']):
        opt.rescale_grad = case['rescale'][step]   # as the Trainer sets it before a step
        for k, weight in enumerate(weights):
            grad = mx.nd.array(INPUTS['%s|g|%d' % (case['id'], k)][step], dtype=case['dtype'])
            with warnings.catch_warnings():
                warnings.simplefilter('error')  # no float16 or lr-override warning expected
                updater(k, grad, weight)
            named = dict(opt.named_states(updater.states[k], weight))
            arrays = {'w': weight, 'mean': named['mean'], 'var': named['var']}
            if case['dtype'] == 'float16':
                arrays['w32'] = named['weight_fp32']
            for name, array in arrays.items():
                out.setdefault('%s|%d' % (name, k), []).append(array.asnumpy())
    return {key: np.stack(values) for key, values in out.items()}


def _tolerance(dtype):
    return (1e-2, 1e-1) if dtype == np.float16 else (1e-5, 1e-6)


@pytest.mark.parametrize('case', CASES, ids=[c['id'] for c in CASES])
def test_adamw_matches_the_mxnet_operator(case, adamw_oracle):
    expected = oracle_case_arrays(*adamw_oracle, case['id'])
    ours = run_gluonedu(case)
    assert sorted(ours) == sorted(expected)
    for step in range(case['steps']):
        for key in sorted(expected):
            mine, theirs = ours[key][step], expected[key][step]
            assert mine.dtype == theirs.dtype, (key, mine.dtype, theirs.dtype)
            rtol, atol = _tolerance(theirs.dtype)
            np.testing.assert_allclose(
                mine.astype(np.float64), theirs.astype(np.float64), rtol=rtol, atol=atol,
                err_msg='%s: %s differs from MXNet 1.9.1 after step %d'
                        % (case['id'], key, step + 1))


def test_skipped_steps_change_nothing(adamw_oracle):
    """The 'skip' case really skips: steps 2, 3 and 5 leave every array as it was."""
    results, _ = adamw_oracle
    ours = run_gluonedu(next(c for c in CASES if c['id'] == 'adamw-skip'))
    for key, values in ours.items():
        for step in (1, 2, 4):
            np.testing.assert_array_equal(values[step], values[step - 1], err_msg=key)
        assert not np.array_equal(values[3], values[2]), key
        np.testing.assert_array_equal(results['adamw-skip|' + key][1],
                                      results['adamw-skip|' + key][0])
