"""What the benchmark scripts share: running a peer framework's interpreter on a driver
text and reading back its JSON, adding up rounds of timings, minima, ratios, table cells,
the machine and its load, and the results file that benchmarks/check_baselines.py
compares with benchmarks/baselines.json.

Every ratio a script records is named ``script|workload...|numerator/denominator`` (or
``...|overhead_us``) and is one where lower is better: gluonedu's time divided by a
peer's, or what watching adds to a bare step.
"""
import datetime
import json
import os
import platform
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def default_mxnet_python():
    """The MXNet 1.9.1 interpreter: ``$GLUONEDU_MXNET_PYTHON``, else ``make ref-venv``'s."""
    return (os.environ.get('GLUONEDU_MXNET_PYTHON') or
            os.path.join(REPO, '.venv-mxnet', 'bin', 'python'))


def peer_env(**settings):
    """This process's environment with ``settings`` added and without PYTHONPATH (a peer's
    interpreter must not see our packages)."""
    env = dict(os.environ, **settings)
    env.pop('PYTHONPATH', None)
    return env


def thread_env(threads):
    """A peer's environment with BLAS, OpenMP and numba pinned to ``threads`` threads."""
    return peer_env(OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads),
                    MKL_NUM_THREADS=str(threads), NUMBA_NUM_THREADS=str(threads),
                    MXNET_STORAGE_FALLBACK_LOG_VERBOSE='0')


def run_peer(python, source, args, env=None, timeout=3600):
    """Run ``python -c source args...`` and return the JSON its last line prints, or the
    reason it gave none (a string: 'not found: ...' or 'failed: ...')."""
    if not python or not os.path.exists(python):
        return 'not found: %s' % python
    proc = subprocess.run([python, '-c', source] + [str(a) for a in args],
                          capture_output=True, text=True, env=env, timeout=timeout)
    if proc.returncode != 0:
        return 'failed: ' + (proc.stderr.strip().splitlines() or ['?'])[-1][:100]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def take_turns(peers, rounds, env=None):
    """Run each peer -- (label, python, source, args) -- once a round, ``rounds`` rounds,
    so that a change in the machine's load hits them all alike. Returns their timings,
    merged over the rounds, and {label: why it gave none} for the peers that failed."""
    results, failures = {}, {}
    for _ in range(rounds):
        for label, python, source, args in peers:
            outcome = run_peer(python, source, args, env)
            if isinstance(outcome, str):
                failures.setdefault(label, outcome)
            else:
                results = merge_rounds(results, outcome)
    return results, failures


def merge_rounds(total, new):
    """``total`` with one more round's timings added: lists of timings extend, nested
    dictionaries merge. A failure (a string) stands only while no round gave timings."""
    if isinstance(new, str):
        return total if total else new
    if not isinstance(total, dict):
        total = {}
    for key, value in new.items():
        if isinstance(value, dict):
            total[key] = merge_rounds(total.get(key), value)
        elif isinstance(value, list) and isinstance(total.get(key, []), list):
            total.setdefault(key, []).extend(value)
        else:
            total.setdefault(key, value)
    return total


def minimum(tree, *path):
    """The least timing at ``tree[path[0]][path[1]]...``, or None where there is none (a
    missing peer, workload or phase)."""
    try:
        for key in path:
            tree = tree[key]
        return min(tree)
    except (KeyError, TypeError, ValueError):
        return None


def ratio(numerator, denominator):
    """``numerator / denominator``, or None where either is missing (or zero)."""
    if not numerator or not denominator:
        return None
    return numerator / denominator


def cell(value, width, form='%.2f', missing='-'):
    """One right-aligned table cell: ``value`` formatted, or ``missing``."""
    return '%*s' % (width, missing if value is None else form % value)


def ratio_name(script, *parts):
    """A recorded ratio's name: ``script|part|part...``."""
    return '|'.join((script,) + tuple(str(p) for p in parts))


def cpu_name():
    """The processor's model name (from /proc/cpuinfo where there is one)."""
    try:
        with open('/proc/cpuinfo') as f:
            for line in f:
                if line.startswith('model name'):
                    return line.split(':', 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine():
    return {'cpu': cpu_name(), 'cores': os.cpu_count()}


def load_note(start, end):
    """The line that says how busy the machine was while a benchmark ran."""
    return ('load average (1, 5, 15 min) at the start: %.2f %.2f %.2f; at the end: '
            '%.2f %.2f %.2f' % (tuple(start) + tuple(end)))


def write_results(path, script, table, settings, load_start, timings):
    """Write a results file: ``table``'s named ratios and the names it could not measure
    with the reasons (e.g. a peer not found), the run's settings, machine, load and
    command, and the raw timings."""
    results = {
        'script': script,
        'date': datetime.datetime.now(datetime.timezone.utc).isoformat(timespec='seconds'),
        'machine': machine(),
        'load_average': {'start': [round(x, 2) for x in load_start],
                         'end': [round(x, 2) for x in os.getloadavg()]},
        'command': ' '.join([os.path.relpath(sys.argv[0], REPO)] + sys.argv[1:]),
        'settings': settings,
        'ratios': dict(sorted(table.values.items())),
        'missing': dict(sorted(table.missing.items())),
        'timings': timings,
    }
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    with open(path, 'w') as f:
        json.dump(results, f, indent=1)


class RatioTable:
    """The named ratios one run measured, and for each one it could not, the reason."""

    def __init__(self):
        self.values, self.missing = {}, {}

    def add(self, name, value, why_missing):
        """Record ``value`` under ``name``; None records ``why_missing`` instead."""
        if value is None:
            self.missing[name] = why_missing
        else:
            self.values[name] = value
