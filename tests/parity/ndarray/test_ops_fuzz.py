"""Differential fuzzing of the operator table against MXNet 1.9.1 (issue 15).

:mod:`fuzz_cases` generates, seeded, :data:`TOTAL_CALLS` calls spread evenly over the
operators of the table (at least :data:`MIN_CALLS_PER_OP` of each: the suite's cost does not
grow with the table) — empty and broadcasting shapes, every dtype, valid and bad parameters, unknown
keywords, gradients — and MXNet 1.9.1 runs all of them in one oracle process
(oracle_ops_mxnet.py --shared: one fork runs them all, another goes on after a crash).
gluonedu must give MXNet's outcome for each
(:func:`ops_outcomes.mismatch`): equal values and gradients where MXNet returns, the
same error class where it raises — MXNetError where MXNet's is, and always an error
gluonedu raises itself, never a raw NumPy or Python exception (:func:`fuzz_table.origin`).
:data:`DIVERGENCES` lists the kinds of call where gluonedu differs on purpose (each a
section of docs/divergences.md); a call MXNet crashes on (or that runs past the oracle's
time limit) is not compared.
"""
import collections
import json
from pathlib import Path

import pytest

import fuzz_cases
import fuzz_table
import gluonedu
import ops_outcomes
from harness import REPO, run_oracle

ORACLE_SCRIPT = Path(__file__).with_name('oracle_ops_mxnet.py')
TOTAL_CALLS = 2000
MIN_CALLS_PER_OP = 3


def _empty_input(case, inputs):
    return any(0 in inputs[a['nd']].shape for a in case['args'])


def _integer_input(case, inputs):
    return any(inputs[a['nd']].dtype.kind in 'iu' for a in case['args'])


def _raises(outcome, text=''):
    return outcome[0] == 'error' and outcome[1] == 'MXNetError' and text in outcome[2]


def _op(case):
    return fuzz_cases.OPS_BY_CALL[case['call']]


#: The kinds of call where gluonedu differs from MXNet 1.9.1 on purpose, each a section
#: of docs/divergences.md: (section title, test of (case, inputs, ours, MXNet's outcome)).
DIVERGENCES = [
    # MXNet fails first (attach_grad's zeros_like, shape inference); gluonedu gives the
    # result, or the error the call would get on a non-empty array
    ('Zero-size arrays', lambda case, inputs, ours, theirs:
        _empty_input(case, inputs) and theirs['status'] == 'error' and
        theirs['type'] == 'MXNetError' and (ours[0] == 'ok' or
                                            ours[1] in ('MXNetError', 'TypeError'))),
    ('Sampler parameters outside their distribution', lambda case, inputs, ours, theirs:
        _op(case).name.startswith(('_sample_', '_random_')) and theirs['status'] == 'ok' and
        _raises(ours, ' must ')),
    ('Unknown keywords of operators without parameters', lambda case, inputs, ours, theirs:
        not _op(case).params and theirs['status'] == 'ok' and
        _raises(ours, "unknown argument 'bogus_keyword'")),
    ('sort and topk: the gradient', lambda case, inputs, ours, theirs:
        theirs['status'] == 'error' and '_backward_topk' in theirs['message'] and
        ours[0] == 'ok'),
    ('erfinv of an integer array', lambda case, inputs, ours, theirs:
        _op(case).name == 'erfinv' and _integer_input(case, inputs)),
    ('norm of an integer array', lambda case, inputs, ours, theirs:
        _op(case).name == 'norm' and _integer_input(case, inputs)),
    ('Empty slices', lambda case, inputs, ours, theirs:
        _raises(ours, 'selects no element')),
    ('BatchNorm: gamma of the wrong shape', lambda case, inputs, ours, theirs:
        _op(case).name == 'BatchNorm' and _raises(ours, 'has shape') and
        theirs['status'] == 'ok'),
    ('Parameters gluonedu does not implement', lambda case, inputs, ours, theirs:
        _op(case).name == 'Reshape' and ('target_shape' in case['kwargs'] or
                                         'shape' not in case['kwargs'])),
    ('LRN: nsize below 1', lambda case, inputs, ours, theirs:
        _op(case).name == 'LRN' and theirs['status'] == 'ok' and _raises(ours, 'nsize')),
    ('amp_cast and amp_multicast: float16 and float64 on the CPU',
     lambda case, inputs, ours, theirs:
        _op(case).name in ('amp_cast', 'amp_multicast') and theirs['status'] == 'error' and
        'MKLDNN' in theirs['message'] and ours[0] == 'ok'),
    ('unravel_index of a multi-dimensional array', lambda case, inputs, ours, theirs:
        _op(case).name == '_unravel_index' and _raises(ours, 'takes a 1-D array')),
    ('SoftmaxActivation: the gradient on inputs of 3 or more dimensions',
     lambda case, inputs, ours, theirs: _op(case).name == 'SoftmaxActivation' and
        case['grad'] and inputs[case['args'][0]['nd']].ndim >= 3),
    ('fill_element_0index and onehot_encode: ids outside the row',
     lambda case, inputs, ours, theirs: _op(case).name in ('fill_element_0index',
                                                            '_onehot_encode') and
        _raises(ours, 'a column id is outside')),
    ('SELU: the gradient for negative inputs', lambda case, inputs, ours, theirs:
        _op(case).name == 'LeakyReLU' and case['kwargs'].get('act_type') == 'selu' and
        case['grad'] and ours[0] == 'ok' and theirs['status'] == 'ok'),
    ('SequenceLast: the gradient without sequence_length',
     lambda case, inputs, ours, theirs: _op(case).name == 'SequenceLast' and case['grad'] and
        not case['kwargs'].get('use_sequence_length') and ours[0] == 'ok'),
    ('dot with forward_stype on N-D arrays', lambda case, inputs, ours, theirs:
        _op(case).name == 'dot' and case['kwargs'].get('forward_stype') in ('csr',
                                                                             'row_sparse')
        and any(inputs[a['nd']].ndim != 2 for a in case['args'])),
]


def run_fuzz(workdir):
    """(cases, inputs, {case id: gluonedu's outcome}, {case id: MXNet's}, MXNet's arrays),
    the oracle run in ``workdir``; an error of gluonedu's carries its
    :func:`fuzz_table.origin`."""
    cases, inputs = fuzz_cases.generate(TOTAL_CALLS, MIN_CALLS_PER_OP)
    workdir.mkdir(parents=True, exist_ok=True)
    results, meta = run_oracle(ORACLE_SCRIPT, workdir, '--shared', cases=cases, inputs=inputs)
    ours = {case['id']: fuzz_table.run_ours(gluonedu, case, inputs) for case in cases}
    arrays = collections.defaultdict(dict)
    for key, value in results.items():
        case_id, _, name = key.partition('|')
        arrays[case_id][name] = value
    return cases, inputs, ours, meta['outcomes'], arrays


def _documented(case, inputs, ours, theirs):
    return any(applies(case, inputs, ours, theirs) for _, applies in DIVERGENCES)


def verdict_counts(workdir):
    """{'operator table': Counter of verdicts} (fuzz_table prints it)."""
    cases, inputs, ours, theirs, arrays = run_fuzz(workdir)
    return {'operator table': collections.Counter(
        fuzz_table.verdict(case, ours[case['id']], theirs[case['id']],
                           arrays.get(case['id'], {}),
                           _documented(case, inputs, ours[case['id']], theirs[case['id']]))
        for case in cases)}


@pytest.fixture(scope='module')
def fuzz_run(tmp_path_factory):
    return run_fuzz(tmp_path_factory.mktemp('mxnet_fuzz_oracle'))


def test_the_fuzz_calls_every_operator_of_the_table_often(fuzz_run):
    cases, _, ours, theirs, _ = fuzz_run
    assert len(cases) >= TOTAL_CALLS
    called = collections.Counter(c['call'].rpartition('.')[2] for c in cases)
    names = {name.rpartition('.')[2] for _, name in fuzz_cases.fuzzed_ops()}
    assert set(called) == names and min(called.values()) >= MIN_CALLS_PER_OP
    assert max(called.values()) - min(called.values()) <= 1
    statuses = collections.Counter(t['status'] for t in theirs.values())
    # both kinds of outcome are exercised in earnest
    assert statuses['ok'] >= 400 and statuses['error'] >= 400, statuses
    assert sum(1 for c in cases if c['grad'] and theirs[c['id']]['status'] == 'ok') >= 100


def test_every_call_gives_mxnets_outcome(fuzz_run):
    cases, inputs, ours, theirs, arrays = fuzz_run
    problems = []
    for case in cases:
        mine, mxnet = ours[case['id']], theirs[case['id']]
        if mxnet['status'] == 'crash':
            continue
        problem = ops_outcomes.mismatch(case, mine, mxnet, arrays.get(case['id'], {}))
        if problem and not _documented(case, inputs, mine, mxnet):
            problems.append(problem + '\n    case: ' + json.dumps(case))
    assert not problems, '%d of %d calls differ from MXNet 1.9.1:\n%s' % (
        len(problems), len(cases), '\n'.join(problems[:40]))


def test_each_divergence_is_a_section_of_docs_divergences():
    text = (REPO / 'docs' / 'divergences.md').read_text()
    for title, _ in DIVERGENCES:
        assert '\n## %s\n' % title in text, title


def test_no_raw_python_or_numpy_exception_escapes(fuzz_run):
    # every error is one gluonedu raises itself (fuzz_table.origin), whatever MXNet does:
    # never NumPy's "data type 'x' not understood" or Python's unpacking error
    _, _, ours, _, _ = fuzz_run
    raw = collections.Counter('%s: %s' % o[1:3] for o in ours.values()
                              if o[0] == 'error' and o[3] == 'raw')
    assert not raw, raw
