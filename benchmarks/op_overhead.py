"""Per-call cost of small ``nd`` operators: gluonedu vs NumPy (the floor) vs MXNet 1.9.1.

    .venv/bin/python benchmarks/op_overhead.py [--number 20000] [--mxnet-python PY]

Each row calls one operator on tiny float32 arrays (shape (4,) or (4, 4)), so the time is
almost all per-call overhead: argument checks, dispatch, wrapping the result, and (in the
"recorded" rows) building the autograd node. The NumPy column runs the same arithmetic on
the raw arrays: what no wrapper can go below. The overhead column is gluonedu minus NumPy;
the last column is gluonedu's time over MXNet 1.9.1's (MXNet runs with its NaiveEngine,
one op at a time, as the parity tests do). Times are the CPU time of the process
(``time.process_time``), so other work on a busy machine does not count; each row is the
minimum over ``--repeat`` batches, in microseconds per call.
"""
import argparse
import json
import os
import sys
import textwrap
import time
import timeit

import numpy as np

from _harness import REPO, default_mxnet_python, peer_env, run_peer

sys.path.insert(0, REPO)

#: (label, statement on mx/nd arrays, statement on NumPy arrays) — setup defines
#: x, y (4,), m (4, 4), w (3, 4) and b (3,) in both worlds.
CASES = [
    ('x + y', 'x + y', 'x + y'),
    ('x * 2.0', 'x * 2.0', 'x * np.float32(2.0)'),
    ('nd.sqrt(x)', 'nd.sqrt(x)', 'np.sqrt(x)'),
    ('nd.clip(x, -1, 1)', 'nd.clip(x, -1, 1)', 'np.clip(x, -1, 1)'),
    ('nd.sum(m, axis=1)', 'nd.sum(m, axis=1)', 'm.sum(axis=1)'),
    ('m.sum()', 'm.sum()', 'm.sum(keepdims=True).reshape(1)'),
    ('nd.square(x, out=y)', 'nd.square(x, out=y)', 'np.square(x, out=y)'),
    ('nd.FullyConnected', 'nd.FullyConnected(m, w, b, num_hidden=3)', 'm @ w.T + b'),
    ('nd.concat(x, y, dim=0)', 'nd.concat(x, y, dim=0)', 'np.concatenate([x, y], 0)'),
    ('recorded x * y', 'rec(lambda: xv * y)', 'x * y'),
    ('recorded nd.relu(x)', 'rec(lambda: nd.relu(xv))', 'np.maximum(x, 0)'),
]

SETUP_ND = textwrap.dedent('''
    nd = mx.nd
    x = nd.array([1, 2, 3, 4]); y = nd.array([4, 3, 2, 1])
    m = nd.ones((4, 4)); w = nd.ones((3, 4)); b = nd.ones((3,))
    xv = x.copy(); xv.attach_grad()
    def rec(fn):
        with mx.autograd.record():
            return fn()
''')
SETUP_NP = textwrap.dedent('''
    import numpy as np
    x = np.array([1, 2, 3, 4], np.float32); y = np.array([4, 3, 2, 1], np.float32)
    m = np.ones((4, 4), np.float32); w = np.ones((3, 4), np.float32); b = np.ones(3, np.float32)
''')

DRIVER = textwrap.dedent('''
    import json, sys, time, timeit
    def run(mx, setup, cases, number, repeat):
        ns = {'mx': mx}
        exec(setup, ns)
        out = {}
        for label, stmt in cases:
            try:
                timer = timeit.Timer(stmt, globals=ns, timer=time.process_time)
                out[label] = min(timer.repeat(number=number, repeat=repeat)) / number * 1e6
            except Exception as exc:
                out[label] = 'failed: %s' % type(exc).__name__
        return out
''')


def _mxnet_times(python, number, repeat):
    """MXNet's timings of the cases, or the reason there are none."""
    source = DRIVER + textwrap.dedent('''
        import mxnet as mx
        cases = json.loads(sys.argv[1])
        print(json.dumps(run(mx, sys.argv[2], cases, int(sys.argv[3]), int(sys.argv[4]))))
    ''')
    env = peer_env(MXNET_ENGINE_TYPE='NaiveEngine', OMP_NUM_THREADS='1')
    return run_peer(python, source, [json.dumps([(c[0], c[1]) for c in CASES]), SETUP_ND,
                                     number, repeat], env, timeout=1800)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--number', type=int, default=500, help='calls per batch')
    parser.add_argument('--repeat', type=int, default=40, help='batches per row (min taken)')
    parser.add_argument('--mxnet-python', default=default_mxnet_python())
    args = parser.parse_args()
    import gluonedu as mx
    namespace = {}
    exec(DRIVER, namespace)  # noqa: S102 - our own driver text
    ours = namespace['run'](mx, SETUP_ND, [(c[0], c[1]) for c in CASES], args.number,
                            args.repeat)
    floor = {label: min(timeit.Timer(stmt, setup=SETUP_NP, timer=time.process_time).repeat(
        number=args.number, repeat=args.repeat)) / args.number * 1e6
        for label, _, stmt in CASES}
    theirs = _mxnet_times(args.mxnet_python, args.number, args.repeat)
    print('per-call CPU microseconds, tiny float32 arrays, min of %d x %d calls'
          % (args.repeat, args.number))
    print('%-24s %9s %9s %9s %9s %8s' % ('', 'gluonedu', 'numpy', 'overhead', 'mxnet',
                                          'vs mxnet'))
    for label, _, _ in CASES:
        mine, base = ours[label], floor[label]
        other = theirs.get(label) if isinstance(theirs, dict) else None
        if isinstance(mine, str):
            print('%-24s %s' % (label, mine))
            continue
        mx_text = '%9.2f %7.2fx' % (other, mine / other) if isinstance(other, float) \
            else '%9s' % (theirs if isinstance(theirs, str) else other)
        print('%-24s %9.2f %9.2f %9.2f %s' % (label, mine, base, mine - base, mx_text))


if __name__ == '__main__':
    main()
