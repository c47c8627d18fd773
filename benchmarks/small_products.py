"""Small matrix products (FullyConnected, dot): one BLAS thread below a size, or all.

    .venv/bin/python benchmarks/small_products.py [--number 200] [--mxnet-python PY]

OpenBLAS splits a product over all its threads; for the products of a small network the
threads' start and join cost more than the arithmetic. gluonedu runs products of fewer
than ``blas.SINGLE_THREAD_BELOW`` multiply-adds on one thread (``threads_for``, the
convolution kernels' helper). Each row times one call in three ways, in this process and
the MXNet 1.9.1 oracle's: gluonedu as it is ("routed"), gluonedu with the routing off
("all threads": the threshold set to 0 for the run), and MXNet (NaiveEngine, its default
threads). Times are per call in microseconds, the minimum over ``--repeat`` batches, as
wall-clock time and as the CPU time of every thread of the process (what the idle
threads' spinning costs a shared machine).
"""
import argparse
import json
import os
import sys
import textwrap
import time

from _harness import REPO, default_mxnet_python, peer_env, run_peer

sys.path.insert(0, REPO)

#: (label, statement): setup defines x{n} (batch, in), w{n} (out, in), b{n} (out,) for
#: each shape n of SHAPES.
SHAPES = [(4, 8, 8), (32, 64, 64), (64, 256, 128), (128, 784, 256)]
CASES = []
for _n, (_batch, _inp, _out) in enumerate(SHAPES):
    CASES.append(('FullyConnected %dx%d -> %d' % (_batch, _inp, _out),
                  'nd.FullyConnected(x%d, w%d, b%d, num_hidden=%d)' % (_n, _n, _n, _out)))
    CASES.append(('dot %dx%d . %dx%d' % (_batch, _inp, _inp, _out),
                  'nd.dot(x%d, w%d, transpose_b=True)' % (_n, _n)))

SETUP = 'import numpy as np\nnd = mx.nd\nrng = np.random.RandomState(0)\n' + ''.join(
    'x{n} = nd.array(rng.rand({b}, {i}))\nw{n} = nd.array(rng.rand({o}, {i}))\n'
    'b{n} = nd.array(rng.rand({o}))\n'.format(n=n, b=b, i=i, o=o)
    for n, (b, i, o) in enumerate(SHAPES))

DRIVER = textwrap.dedent('''
    import json, sys, time
    def run(mx, setup, cases, number, repeat):
        ns = {'mx': mx}
        exec(setup, ns)
        out = {}
        for label, stmt in cases:
            code = compile(stmt + '.wait_to_read()', label, 'eval')
            walls, cpus = [], []
            for _ in range(repeat):
                w0, c0 = time.perf_counter(), time.process_time()
                for _ in range(number):
                    eval(code, ns)
                walls.append(time.perf_counter() - w0)
                cpus.append(time.process_time() - c0)
            out[label] = [min(walls) / number * 1e6, min(cpus) / number * 1e6]
        return out
''')


def _mxnet_times(python, number, repeat):
    """MXNet's timings of the cases, or the reason there are none."""
    source = DRIVER + textwrap.dedent('''
        import mxnet as mx
        print(json.dumps(run(mx, sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3]),
                             int(sys.argv[4]))))
    ''')
    env = peer_env(MXNET_ENGINE_TYPE='NaiveEngine')
    return run_peer(python, source, [SETUP, json.dumps(CASES), number, repeat], env,
                    timeout=1800)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--number', type=int, default=200, help='calls per batch')
    parser.add_argument('--repeat', type=int, default=15, help='batches per row (min taken)')
    parser.add_argument('--mxnet-python', default=default_mxnet_python())
    args = parser.parse_args()
    import gluonedu as mx
    from gluonedu.ndarray.nn_ops.kernels import blas
    namespace = {}
    exec(DRIVER, namespace)  # noqa: S102 - our own driver text
    routed = namespace['run'](mx, SETUP, CASES, args.number, args.repeat)
    threshold, blas.SINGLE_THREAD_BELOW = blas.SINGLE_THREAD_BELOW, 0
    try:
        unrouted = namespace['run'](mx, SETUP, CASES, args.number, args.repeat)
    finally:
        blas.SINGLE_THREAD_BELOW = threshold
    theirs = _mxnet_times(args.mxnet_python, args.number, args.repeat)
    print('microseconds per call (wall / CPU of all threads), min of %d x %d calls; one BLAS '
          'thread below %d multiply-adds' % (args.repeat, args.number, threshold))
    print('%-32s %17s %17s %17s %9s' % ('', 'routed', 'all threads', 'mxnet',
                                         'routed/mx'))
    for label, _ in CASES:
        other = theirs.get(label) if isinstance(theirs, dict) else None
        mx_text = ('%8.1f /%7.1f' % tuple(other)) if other else str(theirs)[:17]
        ratio = '%8.2fx' % (routed[label][0] / other[0]) if other else ''
        print('%-32s %8.1f /%7.1f %8.1f /%7.1f %17s %9s' % (
            label, routed[label][0], routed[label][1], unrouted[label][0], unrouted[label][1],
            mx_text, ratio))


if __name__ == '__main__':
    main()
