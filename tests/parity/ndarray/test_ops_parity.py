"""``mx.nd`` operators against MXNet 1.9.1: the same calls, the same outcomes.

Every case of :mod:`ops_cases` runs once on MXNet 1.9.1 (one oracle process, each case in a
fork) and on gluonedu, through the same driver code (:mod:`ops_driver`). Where MXNet
returns, gluonedu must return arrays of the same shapes and dtypes and equal values (and
gradients, where the case differentiates); where MXNet raises, gluonedu must raise the same
class of error (:mod:`ops_outcomes`). The deliberate differences are listed in
``ops_cases.DIVERGENCES`` and explained in docs/divergences.md.
"""
from pathlib import Path

import pytest

import ops_cases
import ops_driver
import ops_outcomes
from harness import run_oracle
from ops_outcomes import describe

ORACLE_SCRIPT = Path(__file__).with_name('oracle_ops_mxnet.py')
CASES = ops_cases.all_cases()
INPUTS = ops_cases.make_inputs()


@pytest.fixture(scope='module')
def ops_oracle(tmp_path_factory):
    """(arrays by "<id>|<name>", outcome by case id) from MXNet 1.9.1, run once."""
    results, meta = run_oracle(ORACLE_SCRIPT, tmp_path_factory.mktemp('mxnet_ops_oracle'),
                               cases=CASES, inputs=INPUTS)
    return results, meta['outcomes']


@pytest.mark.parametrize('case', CASES, ids=[c['id'] for c in CASES])
def test_operator_call_matches_mxnet(case, ops_oracle):
    import gluonedu
    results, outcomes = ops_oracle
    gluonedu.random.seed(int(case.get('seed', 0)))
    ours = ops_driver.run_case(gluonedu, case, INPUTS)
    theirs = outcomes[case['id']]
    if case['id'] in ops_cases.DIVERGENCES:
        why, expected = ops_cases.DIVERGENCES[case['id']]
        got = 'ok' if ours[0] == 'ok' else ours[1]
        assert got == expected, '%s (a documented divergence: %s): expected %s, got %s' % (
            case['id'], why, expected, describe(ours))
        return
    if theirs['status'] == 'crash':
        pytest.fail('MXNet 1.9.1 crashes on %s (signal %s); gluonedu gives %s. Record it in '
                    'ops_cases.DIVERGENCES.' % (case['id'], theirs['signal'], describe(ours)),
                    pytrace=False)
    prefix = case['id'] + '|'
    expected = {k[len(prefix):]: v for k, v in results.items() if k.startswith(prefix)}
    problem = ops_outcomes.mismatch(case, ours, theirs, expected)
    assert problem is None, problem
