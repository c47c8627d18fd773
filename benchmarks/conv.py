"""Convolutional networks on the CPU: gluonedu vs MXNet 1.9.1 vs PyTorch, forward + backward.

    .venv/bin/python benchmarks/conv.py [--repeat 10] [--rounds 3] [--threads 1]

Workloads (float32, NCHW):

* ``lenet28``  LeNet-5 (d2l's: conv 6@5×5 pad 2, pool, conv 16@5×5, pool, dense 120-84-10)
  on a batch of 64 28×28 images;
* ``lenet8``   the curriculum's LeNet for the 8×8 digits (3×3 kernels), batch of 32;
* ``resblock`` a ResNet-18 basic block, 64 channels, on (8, 64, 56, 56) — ResNet-18's
  first stage at 224×224;
* ``resblock_down`` the downsampling block opening stage 2: 64 → 128 channels,
  stride 2, with the 1×1 projection.

Each row prints the minimum over ``rounds × repeat`` timings (milliseconds) of a forward
pass in predict mode and of a recorded forward + backward pass (BatchNorm in training
mode) — wall-clock time, then CPU time (of all the process's threads: on a busy machine
it leaves out the time spent waiting for a core) — for gluonedu (fast kernels, and the
reference kernels), MXNet 1.9.1 (imperative, and hybridized) and PyTorch, and the ratios
gluonedu / peer. Every framework runs in its
own subprocess with ``--threads`` BLAS/OpenMP threads; the rounds alternate between
them, so a change in the machine's load hits all of them alike. Minima, because other
work on the machine only ever adds time.

Peers: MXNet from ``--mxnet-python`` (default ``$GLUONEDU_MXNET_PYTHON``, else
``.venv-mxnet/bin/python``); PyTorch from
``--torch-python`` (default ``.venv-bench/bin/python``; make it with
``python3 -m venv .venv-bench && .venv-bench/bin/pip install numpy torch==2.13.0``, the
CPU build). A missing peer is reported as such; the rest still runs.
"""
import argparse
import json
import os
import platform
import subprocess
import sys
import textwrap

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORKLOADS = ('lenet28', 'lenet8', 'resblock', 'resblock_down')

# Wall-clock and CPU time (all the process's threads) of each timed phase, in ms.
CLOCKS = textwrap.dedent('''
    import time

    def clocks():
        return time.perf_counter(), time.process_time()

    def record(times, phase, start, end):
        times.setdefault(phase, []).append((end[0] - start[0]) * 1e3)
        times.setdefault(phase + '_cpu', []).append((end[1] - start[1]) * 1e3)
''')

# The same driver text runs under gluonedu and under MXNet: both speak Gluon.
GLUON_DRIVER = CLOCKS + textwrap.dedent('''
    import json, sys
    import numpy as np

    def lenet(nn, digits):
        k, p1, p2 = (3, 1, 1) if digits else (5, 2, 0)
        net = nn.HybridSequential()
        with net.name_scope():
            net.add(nn.Conv2D(6, k, padding=p1, activation='relu'), nn.MaxPool2D(2, 2),
                    nn.Conv2D(16, k, padding=p2, activation='relu'), nn.MaxPool2D(2, 2),
                    nn.Flatten(), nn.Dense(120, activation='relu'),
                    nn.Dense(84, activation='relu'), nn.Dense(10))
        return net

    def build(mx, name):
        vision = mx.gluon.model_zoo.vision
        if name == 'lenet28':
            return lenet(mx.gluon.nn, False), (64, 1, 28, 28)
        if name == 'lenet8':
            return lenet(mx.gluon.nn, True), (32, 1, 8, 8)
        if name == 'resblock':
            return vision.BasicBlockV1(64, 1, in_channels=64), (8, 64, 56, 56)
        return vision.BasicBlockV1(128, 2, downsample=True, in_channels=64), (8, 64, 56, 56)

    def bench(mx, names, repeat, hybridize=False):
        out = {}
        for name in names:
            net, shape = build(mx, name)
            net.initialize(mx.init.Xavier())
            if hybridize:
                net.hybridize(static_alloc=True, static_shape=True)
            x = mx.nd.array(np.random.RandomState(0).uniform(-1, 1, shape).astype('float32'))
            times = {}
            for r in range(repeat + 2):
                start = clocks()
                net(x).wait_to_read()
                middle = clocks()
                with mx.autograd.record():
                    y = net(x)
                y.backward()
                mx.nd.waitall()
                end = clocks()
                if r >= 2:
                    record(times, 'forward', start, middle)
                    record(times, 'forward_backward', middle, end)
            out[name] = times
        return out
''')

GLUONEDU_MAIN = GLUON_DRIVER + textwrap.dedent('''
    sys.path.insert(0, sys.argv[3])
    import gluonedu as mx
    from gluonedu.ndarray.nn_ops import use_kernels
    names, repeat = json.loads(sys.argv[1]), int(sys.argv[2])
    result = {'gluonedu': bench(mx, names, repeat)}
    with use_kernels('reference'):
        result['gluonedu-reference'] = bench(mx, names, max(1, repeat // 3))
    print(json.dumps(result))
''')

MXNET_MAIN = GLUON_DRIVER + textwrap.dedent('''
    import mxnet as mx
    names, repeat = json.loads(sys.argv[1]), int(sys.argv[2])
    print(json.dumps({'mxnet': bench(mx, names, repeat),
                      'mxnet-hybrid': bench(mx, names, repeat, hybridize=True)}))
''')

TORCH_MAIN = CLOCKS + textwrap.dedent('''
    import json, sys
    import numpy as np
    import torch
    from torch import nn
    torch.set_num_threads(int(sys.argv[3]))

    def lenet(digits):
        k, p1, p2 = (3, 1, 1) if digits else (5, 2, 0)
        features = 16 * (2 * 2 if digits else 5 * 5)
        return nn.Sequential(nn.Conv2d(1, 6, k, padding=p1), nn.ReLU(), nn.MaxPool2d(2),
                             nn.Conv2d(6, 16, k, padding=p2), nn.ReLU(), nn.MaxPool2d(2),
                             nn.Flatten(), nn.Linear(features, 120), nn.ReLU(),
                             nn.Linear(120, 84), nn.ReLU(), nn.Linear(84, 10))

    class BasicBlock(nn.Module):
        def __init__(self, c_in, c_out, stride):
            super().__init__()
            self.body = nn.Sequential(
                nn.Conv2d(c_in, c_out, 3, stride, 1, bias=False), nn.BatchNorm2d(c_out),
                nn.ReLU(), nn.Conv2d(c_out, c_out, 3, 1, 1, bias=False), nn.BatchNorm2d(c_out))
            self.down = (nn.Sequential(nn.Conv2d(c_in, c_out, 1, stride, bias=False),
                                       nn.BatchNorm2d(c_out)) if stride > 1 else None)

        def forward(self, x):
            return torch.relu(self.body(x) + (self.down(x) if self.down is not None else x))

    def build(name):
        if name == 'lenet28':
            return lenet(False), (64, 1, 28, 28)
        if name == 'lenet8':
            return lenet(True), (32, 1, 8, 8)
        if name == 'resblock':
            return BasicBlock(64, 64, 1), (8, 64, 56, 56)
        return BasicBlock(64, 128, 2), (8, 64, 56, 56)

    names, repeat = json.loads(sys.argv[1]), int(sys.argv[2])
    out = {}
    for name in names:
        net, shape = build(name)
        x = torch.tensor(np.random.RandomState(0).uniform(-1, 1, shape).astype('float32'))
        times = {}
        for r in range(repeat + 2):
            net.eval()
            start = clocks()
            with torch.no_grad():
                net(x)
            middle = clocks()
            net.train()
            y = net(x)
            y.backward(torch.ones_like(y))
            end = clocks()
            if r >= 2:
                record(times, 'forward', start, middle)
                record(times, 'forward_backward', middle, end)
        out[name] = times
    print(json.dumps({'torch': out}))
''')


def run(python, source, args, threads):
    """One subprocess's timings, or the reason it gave none."""
    if not python or not os.path.exists(python):
        return 'not found: %s' % python
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads),
               MKL_NUM_THREADS=str(threads), NUMBA_NUM_THREADS=str(threads),
               MXNET_STORAGE_FALLBACK_LOG_VERBOSE='0')
    env.pop('PYTHONPATH', None)
    proc = subprocess.run([python, '-c', source] + [str(a) for a in args], capture_output=True,
                          text=True, env=env, timeout=3600)
    if proc.returncode != 0:
        return 'failed: ' + (proc.stderr.strip().splitlines() or ['?'])[-1][:100]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def merge(total, result):
    """Add one round's timings (or keep the first failure's text)."""
    if isinstance(result, str):
        return total if total else result
    total = total if isinstance(total, dict) else {}
    for framework, workloads in result.items():
        for name, phases in workloads.items():
            slot = total.setdefault(framework, {}).setdefault(name, {})
            for phase, times in phases.items():
                slot.setdefault(phase, []).extend(times)
    return total


def best(results, framework, name, phase):
    try:
        return min(results[framework][name][phase])
    except (KeyError, TypeError, ValueError):
        return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--repeat', type=int, default=10)
    parser.add_argument('--rounds', type=int, default=3)
    parser.add_argument('--threads', type=int, default=1)
    parser.add_argument('--workloads', default=','.join(WORKLOADS))
    parser.add_argument('--mxnet-python', default=os.environ.get('GLUONEDU_MXNET_PYTHON') or
                        os.path.join(REPO, '.venv-mxnet', 'bin', 'python'))
    parser.add_argument('--torch-python',
                        default=os.path.join(REPO, '.venv-bench', 'bin', 'python'))
    parser.add_argument('--json', help='also write all timings to this file')
    args = parser.parse_args()
    names = json.dumps(args.workloads.split(','))
    peers = [('gluonedu', sys.executable, GLUONEDU_MAIN, [names, args.repeat, REPO]),
             ('mxnet', args.mxnet_python, MXNET_MAIN, [names, args.repeat]),
             ('torch', args.torch_python, TORCH_MAIN, [names, args.repeat, args.threads])]
    results, failures = {}, {}
    for _ in range(args.rounds):
        for label, python, source, extra in peers:
            outcome = run(python, source, extra, args.threads)
            if isinstance(outcome, str):
                failures.setdefault(label, outcome)
            else:
                results = merge(results, outcome)

    import numpy
    print('gluonedu conv benchmark — %s, %d cores, %d thread(s) per framework, NumPy %s; '
          'min of %d×%d runs, ms' % (platform.processor() or platform.machine(),
                                      os.cpu_count(), args.threads, numpy.__version__,
                                      args.rounds, args.repeat))
    for label, reason in failures.items():
        print('%s: %s' % (label, reason))
    columns = ['gluonedu', 'gluonedu-reference', 'mxnet', 'mxnet-hybrid', 'torch']
    for phase in ('forward', 'forward_backward', 'forward_cpu', 'forward_backward_cpu'):
        print('\n%s' % phase.replace('_backward', ' + backward').replace('_cpu', ', CPU time'))
        header = '%-14s' % 'workload' + ''.join('%20s' % c for c in columns) + \
            '%9s%9s%9s' % ('/mxnet', '/hybrid', '/torch')
        print(header)
        print('-' * len(header))
        for name in args.workloads.split(','):
            times = [best(results, c, name, phase) for c in columns]
            ours = times[0]
            cells = ''.join('%20s' % ('%.2f' % t if t is not None else 'n/a') for t in times)
            ratios = ''.join('%9s' % ('%.2f' % (ours / t) if ours and t else '-')
                             for t in times[2:])
            print('%-14s%s%s' % (name, cells, ratios))
    if args.json:
        with open(args.json, 'w') as f:
            json.dump(results, f, indent=1)


if __name__ == '__main__':
    main()
