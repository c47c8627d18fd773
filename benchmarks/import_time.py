"""How long ``import gluonedu`` takes beside ``import mxnet`` (MXNet 1.9.1), side by side.

    .venv/bin/python benchmarks/import_time.py [--runs 7] [--mxnet-python PY]

Each run is a fresh interpreter that imports one package, cold (nothing of it loaded yet);
the runs of the two packages alternate, so that a busy machine slows both alike. The first
run of each is left out: it reads the files from disk into the OS cache, which the runs
after it find filled. gluonedu is imported by this interpreter (``sys.executable``), from
this checkout; MXNet by ``--mxnet-python`` (default ``$GLUONEDU_MXNET_PYTHON``, else
``.venv-mxnet/bin/python``). Printed: the median over the runs of the import alone
(timed inside the process) and of the whole process (interpreter start-up included), in
seconds, and gluonedu's over MXNet's.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

#: What each fresh process runs: the import, timed from inside.
TIMED_IMPORT = ('import time; start = time.perf_counter(); import {module}; '
                'print(time.perf_counter() - start)')


def _one_run(python, module):
    """(seconds of the import, seconds of the whole process) in a fresh interpreter."""
    env = dict(os.environ)
    env.pop('PYTHONPATH', None)
    start = time.perf_counter()
    proc = subprocess.run([python, '-c', TIMED_IMPORT.format(module=module)], cwd=REPO,
                          env=env, capture_output=True, text=True, timeout=300)
    whole = time.perf_counter() - start
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ['?'])[-1]
        sys.exit('import %s failed under %s: %s' % (module, python, last))
    return float(proc.stdout.strip().splitlines()[-1]), whole


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--runs', type=int, default=7, help='timed runs of each package')
    parser.add_argument('--mxnet-python', default=os.environ.get('GLUONEDU_MXNET_PYTHON') or
                        os.path.join(REPO, '.venv-mxnet', 'bin', 'python'))
    args = parser.parse_args()
    if not os.path.exists(args.mxnet_python):
        sys.exit('no MXNet interpreter at %s: make mxnet-venv, or pass --mxnet-python'
                 % args.mxnet_python)
    packages = [('gluonedu', sys.executable), ('mxnet', args.mxnet_python)]
    times = {module: [] for module, _ in packages}
    for run in range(args.runs + 1):
        for module, python in packages:
            timing = _one_run(python, module)
            if run > 0:                      # run 0 fills the OS file cache
                times[module].append(timing)
    medians = {module: [statistics.median(t[i] for t in times[module]) for i in (0, 1)]
               for module in times}
    print('cold import, median of %d fresh processes each, seconds' % args.runs)
    print('%-10s %8s %9s' % ('', 'import', 'process'))
    for module, _ in packages:
        print('%-10s %8.2f %9.2f' % (module, *medians[module]))
    ours, theirs = medians['gluonedu'], medians['mxnet']
    print('%-10s %7.2fx %8.2fx' % ('ratio', ours[0] / theirs[0], ours[1] / theirs[1]))


if __name__ == '__main__':
    main()
