"""The MXNet 1.9.1 oracle, run once per test session for every parity case.

The oracle is a separate interpreter (MXNet 1.9.1 needs NumPy < 1.24; gluonedu needs
NumPy 2): ``$GLUONEDU_MXNET_PYTHON`` (``make test`` sets it), else
``<repo>/.venv-mxnet/bin/python`` (``make ref-venv`` builds it). The session fixture
:func:`oracle` writes every case and its seeded inputs to a temporary directory, runs
``oracle_mxnet.py`` there in ONE subprocess (MXNet's import costs ~2 s) and loads the
results.

Without a working oracle the parity tests skip, naming why — except in CI (``CI`` set to
anything but ''/0/false/no), where they fail: a parity suite that silently skips would
prove nothing.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # parity_driver / parity_cases, shared with the oracle script

import parity_cases  # noqa: E402
import parity_driver  # noqa: E402

REPO = HERE.parents[1]
ORACLE_ENV = 'GLUONEDU_MXNET_PYTHON'
DEFAULT_ORACLE_PYTHON = REPO / '.venv-mxnet' / 'bin' / 'python'
ORACLE_SCRIPT = HERE / 'oracle_mxnet.py'
ORACLE_TIMEOUT_S = 300


def in_ci():
    return os.environ.get('CI', '').strip().lower() not in ('', '0', 'false', 'no')


def oracle_python():
    return Path(os.environ.get(ORACLE_ENV) or DEFAULT_ORACLE_PYTHON)


def _oracle_unavailable(reason):
    message = ('MXNet 1.9.1 parity oracle unavailable: %s. Build it with `make ref-venv` '
               '(or point %s at a Python with mxnet==1.9.1 and "numpy<1.24").'
               % (reason, ORACLE_ENV))
    if in_ci():
        pytest.fail(message + ' CI is set, so parity tests fail instead of skipping.',
                    pytrace=False)
    pytest.skip(message)


def run_oracle(script, args, workdir, results_path, naive_engine=True):
    """Run ``script args`` on the oracle's Python in ``workdir``, expecting ``results_path``.

    Any way it can fail (no oracle venv, a crash, a timeout, no results) goes through
    :func:`_oracle_unavailable`: a skip naming the fix, or a failure in CI.
    naive_engine : MXNet's NaiveEngine runs each op synchronously: the same kernels
        (bit-identical results), less threading overhead for thousands of tiny ops.
    """
    python = oracle_python()
    if not python.exists():
        _oracle_unavailable('%s does not exist' % python)
    env = dict(os.environ, MXNET_STORAGE_FALLBACK_LOG_VERBOSE='0',
               OMP_NUM_THREADS=os.environ.get('OMP_NUM_THREADS', '1'))
    if naive_engine:
        env['MXNET_ENGINE_TYPE'] = 'NaiveEngine'
    env.pop('PYTHONPATH', None)  # the oracle must not see the project's packages
    env.pop('MXNET_UPDATE_ON_KVSTORE', None)
    try:
        proc = subprocess.run([str(python), str(script)] + [str(a) for a in args],
                              cwd=str(workdir), env=env, capture_output=True, text=True,
                              timeout=ORACLE_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as exc:
        _oracle_unavailable('running %s failed: %s' % (python, exc))
    if proc.returncode != 0 or not results_path.exists():
        tail = '\n'.join((proc.stderr or proc.stdout or '').strip().splitlines()[-15:])
        _oracle_unavailable('%s %s exited with status %d:\n%s'
                            % (python, script.name, proc.returncode, tail))


def check_oracle_version(meta):
    """The oracle must be MXNet 1.9.1, the version gluonedu follows."""
    if not meta.get('mxnet_version', '').startswith('1.9.1'):
        _oracle_unavailable('the oracle runs MXNet %s, not 1.9.1' % meta.get('mxnet_version'))


def load_oracle_npz(results_path):
    """``(arrays by name, meta)`` from an oracle's .npz results, its version checked."""
    with np.load(results_path) as data:
        results = {key: data[key] for key in data.files}
    meta = json.loads(str(results.pop('__meta__')))
    check_oracle_version(meta)
    return results, meta


def run_driver(tmp_path_factory, name):
    """Run ``<name>_driver.py`` of this folder on the oracle, its only argument the results
    file it writes in a fresh directory; ``(arrays by name, meta)`` as load_oracle_npz."""
    workdir = tmp_path_factory.mktemp('mxnet_' + name)
    results_path = workdir / 'results.npz'
    run_oracle(HERE / ('%s_driver.py' % name), [results_path], workdir, results_path)
    return load_oracle_npz(results_path)


def oracle_case_arrays(results, meta, case_id):
    """``{name: array}`` of one case of an oracle's ``(results, meta)``; fails the test if
    MXNet raised on it or returned nothing."""
    if case_id in meta['errors']:
        err = meta['errors'][case_id]
        pytest.fail('MXNet 1.9.1 raised on case %s: %s: %s\n%s'
                    % (case_id, err['type'], err['message'], err['traceback']), pytrace=False)
    prefix = case_id + '|'
    out = {key[len(prefix):]: value for key, value in results.items()
           if key.startswith(prefix)}
    if not out:
        pytest.fail('the oracle returned nothing for case %s' % case_id, pytrace=False)
    return out


class OracleResults:
    """What the oracle produced: arrays by ``"<case id>|<name>"``, its meta and errors."""

    def __init__(self, results, meta, inputs, cases):
        self.results = results
        self.meta = meta
        self.errors = meta.get('errors', {})
        self.inputs = inputs
        self.cases = cases

    def case_arrays(self, case_id):
        """``{name: array}`` of one case; fails the test if MXNet raised on it."""
        if case_id in self.errors:
            err = self.errors[case_id]
            pytest.fail('MXNet 1.9.1 raised on case %s: %s: %s\n%s'
                        % (case_id, err['type'], err['message'], err['traceback']),
                        pytrace=False)
        prefix = case_id + '|'
        out = {key[len(prefix):]: value for key, value in self.results.items()
               if key.startswith(prefix)}
        if not out:
            pytest.fail('the oracle returned nothing for case %s' % case_id, pytrace=False)
        return out

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


def run_cases(script, cases, inputs, workdir, arguments=None):
    """Write ``cases`` (JSON) and ``inputs`` (arrays) to ``workdir``, run the oracle
    ``script`` on them once, check its MXNet version; ``(arrays, meta)`` of its results.

    ``arguments(cases_path, inputs_path, results_path)`` gives the script's arguments
    (default: those three).
    """
    cases_path, inputs_path = workdir / 'cases.json', workdir / 'inputs.npz'
    results_path = workdir / 'results.npz'
    cases_path.write_text(json.dumps(cases))
    parity_driver.save_arrays(inputs_path, inputs)
    argv = (arguments or (lambda *paths: list(paths)))(cases_path, inputs_path, results_path)
    run_oracle(script, argv, workdir, results_path)
    results = parity_driver.load_arrays(results_path)
    meta = json.loads(results.pop('__meta__').tobytes().decode())
    check_oracle_version(meta)
    return results, meta


@pytest.fixture(scope='session')
def oracle(tmp_path_factory):
    """Run every parity case on MXNet 1.9.1, once; an :class:`OracleResults`."""
    cases = all_cases()
    inputs = parity_cases.make_inputs(cases['optimizer_cases'])
    workdir = tmp_path_factory.mktemp('mxnet_oracle')
    results, meta = run_cases(ORACLE_SCRIPT, cases, inputs, workdir)
    by_id = {case['id']: case for group in cases.values() for case in group}
    return OracleResults(results, meta, inputs, by_id)


@pytest.fixture(scope='session')
def driver():
    return parity_driver
