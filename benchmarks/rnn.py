"""A character-level LSTM on the CPU: gluonedu vs MXNet 1.9.1's fused RNN, one training
iteration (forward + backward + Trainer step).

    .venv/bin/python benchmarks/rnn.py [--repeat 10] [--rounds 3] [--threads 1]

The model is d2l's character model at small scale: one-hot characters (vocabulary 60)
into ``rnn.LSTM(128, num_layers=2)``, a Dense layer back to the vocabulary, softmax
cross-entropy, SGD; sequences of 35 steps, batch 32, layout TNC. gluonedu runs its fast
kernel (:mod:`gluonedu.ndarray.nn_ops.kernels.rnn_fast`) and, for a few iterations, the
operator's reference (one recorded step at a time); MXNet runs its fused CPU RNN
operator, imperative and hybridized.

Each row prints the minimum over ``rounds × repeat`` iterations in milliseconds, wall
clock and CPU time (all the process's threads), and the ratio gluonedu / MXNet. Every
framework runs in its own subprocess with ``--threads`` BLAS/OpenMP threads; the rounds
alternate between them, so a change in the machine's load hits both alike. MXNet comes
from ``--mxnet-python`` (default ``$GLUONEDU_MXNET_PYTHON``, else
``.venv-mxnet/bin/python``); if it is missing, gluonedu's rows still print.
"""
import argparse
import os
import platform
import sys
import textwrap

from _harness import REPO, cell, default_mxnet_python, minimum, ratio, take_turns, thread_env

VOCAB, HIDDEN, LAYERS, STEPS, BATCH = 60, 128, 2, 35, 32

# The same driver text runs under gluonedu and under MXNet: both speak Gluon.
DRIVER = textwrap.dedent('''
    import json, sys, time
    import numpy as np

    VOCAB, HIDDEN, LAYERS, STEPS, BATCH = %d, %d, %d, %d, %d

    def bench(mx, repeat, hybridize=False):
        rnn, nn = mx.gluon.rnn, mx.gluon.nn
        net = nn.HybridSequential()
        with net.name_scope():
            net.add(rnn.LSTM(HIDDEN, num_layers=LAYERS), nn.Dense(VOCAB, flatten=False))
        net.initialize(mx.init.Xavier())
        if hybridize:
            net.hybridize(static_alloc=True, static_shape=True)
        trainer = mx.gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1})
        loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()
        rng = np.random.RandomState(0)
        ids = rng.randint(0, VOCAB, (STEPS + 1, BATCH))
        x = mx.nd.one_hot(mx.nd.array(ids[:-1]), VOCAB)
        y = mx.nd.array(ids[1:])
        times = {'iteration': [], 'iteration_cpu': []}
        for r in range(repeat + 2):
            wall, cpu = time.perf_counter(), time.process_time()
            with mx.autograd.record():
                loss = loss_fn(net(x), y)
            loss.backward()
            trainer.step(BATCH)
            mx.nd.waitall()
            if r >= 2:
                times['iteration'].append((time.perf_counter() - wall) * 1e3)
                times['iteration_cpu'].append((time.process_time() - cpu) * 1e3)
        return times
''' % (VOCAB, HIDDEN, LAYERS, STEPS, BATCH))

GLUONEDU_MAIN = DRIVER + textwrap.dedent('''
    sys.path.insert(0, sys.argv[2])
    import gluonedu as mx
    from gluonedu.ndarray.nn_ops import use_kernels
    repeat = int(sys.argv[1])
    result = {'gluonedu': bench(mx, repeat)}
    with use_kernels('reference'):
        result['gluonedu-reference'] = bench(mx, max(1, repeat // 5))
    print(json.dumps(result))
''')

MXNET_MAIN = DRIVER + textwrap.dedent('''
    import mxnet as mx
    repeat = int(sys.argv[1])
    print(json.dumps({'mxnet': bench(mx, repeat),
                      'mxnet-hybrid': bench(mx, repeat, hybridize=True)}))
''')

COLUMNS = ('gluonedu', 'gluonedu-reference', 'mxnet', 'mxnet-hybrid')


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--repeat', type=int, default=10)
    parser.add_argument('--rounds', type=int, default=3)
    parser.add_argument('--threads', type=int, default=1)
    parser.add_argument('--mxnet-python', default=default_mxnet_python())
    args = parser.parse_args()
    peers = [('gluonedu', sys.executable, GLUONEDU_MAIN, [args.repeat, REPO]),
             ('mxnet', args.mxnet_python, MXNET_MAIN, [args.repeat])]
    times, failures = take_turns(peers, args.rounds, thread_env(args.threads))

    print('character LSTM (vocab %d, %d x %d hidden, %d steps, batch %d): forward + backward '
          '+ step — %s, %d cores, %d thread(s) per framework; min of %d x %d iterations, ms'
          % (VOCAB, LAYERS, HIDDEN, STEPS, BATCH, platform.processor() or platform.machine(),
             os.cpu_count(), args.threads, args.rounds, args.repeat))
    for label, reason in failures.items():
        print('%s: %s' % (label, reason))
    header = '%-16s' % 'clock' + ''.join('%20s' % c for c in COLUMNS) + '%9s%9s' % (
        '/mxnet', '/hybrid')
    print(header)
    print('-' * len(header))
    for phase, label in (('iteration', 'wall'), ('iteration_cpu', 'CPU')):
        best = [minimum(times, c, phase) for c in COLUMNS]
        cells = ''.join(cell(t, 20, '%.1f', 'n/a') for t in best)
        ratios = ''.join(cell(ratio(best[0], t), 9) for t in best[2:])
        print('%-16s%s%s' % (label, cells, ratios))


if __name__ == '__main__':
    main()
