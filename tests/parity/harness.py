"""The one way a parity suite runs its MXNet side: :func:`run_oracle`.

The oracle is a separate interpreter (MXNet 1.9.1 needs NumPy < 1.24; gluonedu needs
NumPy 2): ``$GLUONEDU_MXNET_PYTHON`` (``make test`` sets it), else
``<repo>/.venv-mxnet/bin/python`` (``make ref-venv`` builds it). A suite runs its oracle
script ONCE (MXNet's import costs ~2 s), for all its cases, from a fixture of the module
or the session, and compares each test's gluonedu result with what it returned.

Without a working oracle the parity tests skip, naming why, except in CI (``CI`` set to
anything but ''/0/false/no), where they fail: a parity suite that silently skips would
prove nothing.
"""
import json
import os
import subprocess
from pathlib import Path

import pytest

import oracle_io

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
ORACLE_ENV = 'GLUONEDU_MXNET_PYTHON'
DEFAULT_ORACLE_PYTHON = REPO / '.venv-mxnet' / 'bin' / 'python'
ORACLE_MAIN = HERE / 'oracle_main.py'
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


def run_oracle(script, workdir, *args, cases=None, inputs=None, naive_engine=True):
    """Run the MXNet side ``script`` of a suite on the oracle's Python, in ``workdir``;
    ``(arrays by name, meta)`` of the results it saved (:mod:`oracle_io`).

    cases : written to ``workdir/cases.json`` first (JSON), for ``oracle_io.load_cases``.
    inputs : ``{name: array}`` written to ``workdir/inputs.npz``, for
        ``oracle_io.load_inputs``.
    args : the script's command-line arguments.
    naive_engine : MXNet's NaiveEngine runs each op synchronously: the same kernels
        (bit-identical results), less threading overhead for thousands of tiny ops.

    Any way it can fail (no oracle venv, a crash, a timeout, no results, an MXNet other
    than 1.9.1) skips the test naming why and the fix, or fails it in CI.
    """
    workdir = Path(workdir)
    if cases is not None:
        (workdir / oracle_io.CASES_FILE).write_text(json.dumps(cases))
    if inputs is not None:
        oracle_io.save_arrays(workdir / oracle_io.INPUTS_FILE, inputs)
    results_path = workdir / oracle_io.RESULTS_FILE
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
        proc = subprocess.run([str(python), str(ORACLE_MAIN), str(script)] +
                              [str(a) for a in args],
                              cwd=str(workdir), env=env, capture_output=True, text=True,
                              timeout=ORACLE_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as exc:
        _oracle_unavailable('running %s failed: %s' % (python, exc))
    if proc.returncode != 0 or not results_path.exists():
        tail = '\n'.join((proc.stderr or proc.stdout or '').strip().splitlines()[-15:])
        _oracle_unavailable('%s %s exited with status %d:\n%s'
                            % (python, Path(script).name, proc.returncode, tail))
    results, meta = oracle_io.load_results(results_path)
    if not meta.get('mxnet_version', '').startswith('1.9.1'):
        _oracle_unavailable('the oracle runs MXNet %s, not 1.9.1' % meta.get('mxnet_version'))
    return results, meta


def oracle_case_arrays(results, meta, case_id):
    """``{name: array}`` of one case of :func:`run_oracle`'s ``(results, meta)``; fails the
    test if MXNet raised on it or returned nothing."""
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
