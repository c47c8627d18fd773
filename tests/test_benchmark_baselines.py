"""The benchmark baseline check (benchmarks/check_baselines.py): what fails, what passes,
what is skipped, and that the committed baseline names only figures the benchmarks make.
Nothing here times anything: speed is measured by `make bench`, not `make test`."""
import importlib.util
import json
import os
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCHMARKS = os.path.join(REPO, 'benchmarks')
SCRIPTS = ('step', 'conv', 'instrument_overhead')
NAME = 'step|big|1|adam|fused/mxnet'
OTHER = 'conv|lenet8|train|gluonedu/mxnet_hybrid'


def _load_checker():
    spec = importlib.util.spec_from_file_location(
        'check_baselines', os.path.join(BENCHMARKS, 'check_baselines.py'))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


checker = _load_checker()


def _write(path, data):
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return str(path)


def _check(tmp_path, capsys, new, missing=None, baseline=None):
    """Run the checker's command line on a baseline of two figures and one results file
    of the step script; return (exit code, stdout, stderr)."""
    base = _write(tmp_path / 'baselines.json',
                  baseline if baseline is not None else {'ratios': {NAME: 0.40, OTHER: 2.0}})
    results = _write(tmp_path / 'step.json', {'script': 'step', 'ratios': new,
                                              'missing': missing or {}})
    code = checker.main(['--baseline', base, results])
    out, err = capsys.readouterr()
    return code, out, err


def _row(out, name):
    return next(line for line in out.splitlines() if line.startswith(name))


def test_a_regression_by_30_percent_fails_naming_the_figure(tmp_path, capsys):
    code, out, _ = _check(tmp_path, capsys, {NAME: 0.52})
    assert code == 1
    assert 'REGRESSED' in _row(out, NAME)
    assert out.strip().splitlines()[-1] == 'regressed by more than 25%: ' + NAME


def test_a_slowdown_of_20_percent_passes(tmp_path, capsys):
    code, out, _ = _check(tmp_path, capsys, {NAME: 0.48})
    assert code == 0
    assert _row(out, NAME).endswith('ok')
    assert 'regressed' not in out


def test_an_improvement_is_reported_not_failed(tmp_path, capsys):
    code, out, _ = _check(tmp_path, capsys, {NAME: 0.20})
    assert code == 0
    assert _row(out, NAME).endswith('improved')


def test_a_missing_peer_is_skipped_with_its_reason(tmp_path, capsys):
    code, out, _ = _check(tmp_path, capsys, {},
                          missing={NAME: 'not found: /nowhere/bin/python'})
    assert code == 0
    assert 'skipped: not found: /nowhere/bin/python' in _row(out, NAME)


def test_figures_of_a_script_not_run_are_skipped(tmp_path, capsys):
    code, out, _ = _check(tmp_path, capsys, {NAME: 0.40})
    assert code == 0
    assert 'skipped: its script was not run' in _row(out, OTHER)


@pytest.mark.parametrize('baseline, message', [
    ('{"ratios": {', 'is not JSON'),
    ({'figures': {NAME: 0.4}}, 'has no "ratios" table'),
    ({'ratios': {NAME: 'fast'}}, "gives 'fast' for " + NAME),
    ({'ratios': {NAME: 0}}, 'must be positive'),
])
def test_a_malformed_baseline_is_a_clear_error(tmp_path, capsys, baseline, message):
    code, out, err = _check(tmp_path, capsys, {NAME: 0.40}, baseline=baseline)
    assert code == 2
    assert out == ''
    assert message in err and 'make bench-baseline' in err


def test_recording_keeps_the_stable_figures_as_their_mean(tmp_path):
    runs = []
    for i, (steady, noisy) in enumerate([(0.40, 1.0), (0.44, 1.3)]):
        run = tmp_path / ('run%d' % i)
        run.mkdir()
        _write(run / 'step.json', {'script': 'step', 'ratios': {NAME: steady, OTHER: noisy},
                                   'missing': {'step|big|1|lamb|fused/torch_fused': 'no LAMB'}})
        runs.append([str(run)])
    baseline = checker.record(runs)
    assert baseline['ratios'] == {NAME: 0.42}
    assert baseline['unstable'] == {OTHER: [1.0, 1.3]}
    assert baseline['missing'] == {'step|big|1|lamb|fused/torch_fused': 'no LAMB'}


def test_the_baseline_names_only_figures_the_benchmarks_make():
    """Each script declares the figures it records (ratio_names); read in a subprocess,
    since instrument_overhead pins thread counts in the environment as it is imported."""
    source = ('import json, %s\nprint(json.dumps({s: globals()[s].ratio_names() for s in %r}))'
              % (', '.join(SCRIPTS), SCRIPTS))
    proc = subprocess.run([sys.executable, '-c', source], cwd=BENCHMARKS, capture_output=True,
                          text=True, timeout=120, check=True)
    declared = json.loads(proc.stdout.strip().splitlines()[-1])
    with open(checker.BASELINE) as f:
        baseline = json.load(f)
    assert checker.load_baseline() == baseline['ratios']
    names = set(baseline['ratios']) | set(baseline['unstable']) | set(baseline['missing'])
    unknown = names - set().union(*declared.values())
    assert not unknown, 'figures no benchmark records: %s' % sorted(unknown)
    for script in SCRIPTS:
        checked = [n for n in baseline['ratios'] if n.split('|')[0] == script]
        assert checked, 'the baseline checks no figure of %s.py' % script
