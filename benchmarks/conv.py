"""Convolutional networks on the CPU: gluonedu vs MXNet 1.9.1 vs PyTorch, forward + backward.

    .venv/bin/python benchmarks/conv.py [--repeat 10] [--rounds 3] [--threads 1] [--json PATH]

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

``--json PATH`` writes the results file that benchmarks/check_baselines.py compares with
the recorded baseline: gluonedu (fast kernels) ÷ each peer per workload and phase, named
``conv|<workload>|<phase>|gluonedu/<peer>``, phases ``predict`` and ``train`` (wall
clock) and ``predict_cpu`` and ``train_cpu`` (CPU time).
"""
import argparse
import json
import os
import platform
import sys
import textwrap

from _harness import (REPO, RatioTable, cell, default_mxnet_python, load_note, minimum, ratio,
                      ratio_name, take_turns, thread_env, write_results)

WORKLOADS = ('lenet28', 'lenet8', 'resblock', 'resblock_down')
#: The timed phases, as the drivers name them -> as the recorded ratios do.
PHASES = {'forward': 'predict', 'forward_backward': 'train', 'forward_cpu': 'predict_cpu',
          'forward_backward_cpu': 'train_cpu'}
#: The peers' columns -> the recorded ratios' last part (gluonedu ÷ the peer).
PEER_RATIOS = {'mxnet': 'gluonedu/mxnet', 'mxnet-hybrid': 'gluonedu/mxnet_hybrid',
               'torch': 'gluonedu/torch'}


def ratio_names(workloads=WORKLOADS):
    """Every ratio a run over ``workloads`` records (or reports missing)."""
    return [ratio_name('conv', name, phase, peer) for name in workloads
            for phase in PHASES.values() for peer in PEER_RATIOS.values()]

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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--repeat', type=int, default=10)
    parser.add_argument('--rounds', type=int, default=3)
    parser.add_argument('--threads', type=int, default=1)
    parser.add_argument('--workloads', default=','.join(WORKLOADS))
    parser.add_argument('--mxnet-python', default=default_mxnet_python())
    parser.add_argument('--torch-python',
                        default=os.path.join(REPO, '.venv-bench', 'bin', 'python'))
    parser.add_argument('--json', help='also write the ratios and all timings to this file')
    args = parser.parse_args()
    load_start = os.getloadavg()
    names = json.dumps(args.workloads.split(','))
    peers = [('gluonedu', sys.executable, GLUONEDU_MAIN, [names, args.repeat, REPO]),
             ('mxnet', args.mxnet_python, MXNET_MAIN, [names, args.repeat]),
             ('torch', args.torch_python, TORCH_MAIN, [names, args.repeat, args.threads])]
    results, failures = take_turns(peers, args.rounds, thread_env(args.threads))

    import numpy
    print('gluonedu conv benchmark — %s, %d cores, %d thread(s) per framework, NumPy %s; '
          'min of %d×%d runs, ms' % (platform.processor() or platform.machine(),
                                      os.cpu_count(), args.threads, numpy.__version__,
                                      args.rounds, args.repeat))
    for label, reason in failures.items():
        print('%s: %s' % (label, reason))
    columns = ['gluonedu', 'gluonedu-reference', 'mxnet', 'mxnet-hybrid', 'torch']
    table = RatioTable()
    for phase in PHASES:
        print('\n%s' % phase.replace('_backward', ' + backward').replace('_cpu', ', CPU time'))
        header = '%-14s' % 'workload' + ''.join('%20s' % c for c in columns) + \
            '%9s%9s%9s' % ('/mxnet', '/hybrid', '/torch')
        print(header)
        print('-' * len(header))
        for name in args.workloads.split(','):
            times = dict(zip(columns, (minimum(results, c, name, phase) for c in columns)))
            ours = times['gluonedu']
            cells = ''.join(cell(t, 20, missing='n/a') for t in times.values())
            ratios = ''.join(cell(ratio(ours, times[peer]), 9) for peer in PEER_RATIOS)
            print('%-14s%s%s' % (name, cells, ratios))
            for peer, last in PEER_RATIOS.items():
                why = (failures.get('gluonedu') or failures.get(peer.split('-')[0]) or
                       'no timing')
                table.add(ratio_name('conv', name, PHASES[phase], last),
                          ratio(ours, times[peer]), why)
    print(load_note(load_start, os.getloadavg()))
    if args.json:
        settings = {'repeat': args.repeat, 'rounds': args.rounds, 'threads': args.threads,
                    'workloads': args.workloads}
        write_results(args.json, 'conv', table, settings, load_start, results)


if __name__ == '__main__':
    main()
