"""What the Trainer's NaN/Inf check costs: ``Trainer.step`` on the digits MLP with
``nonfinite='warn'`` (the default: one dot product per gradient buffer) and ``'ignore'``
(no check, MXNet's behaviour), nobody listening to the instrumentation bus.

Both Trainer paths: the default (``fused=True``: one flat gradient buffer, one product)
and the reference (``fused=False``: one product per gradient, 6 here). The network,
Trainer, batches and timing blocks are those of benchmarks/instrument_overhead.py: one
Trainer per path, its setting switched block by block, the blocks in a new random order
each round. The report gives the min and median ms per step of each setting, the
median overhead in µs per step, and that overhead as a share of a whole training
iteration (forward, backward and step; CPU time). Aim: below 5% of an iteration.

Usage::

    .venv/bin/python benchmarks/nonfinite_check.py [--rounds 60] [--steps 5] [--seed 0]
"""
import random
import statistics

# instrument_overhead sets the thread counts before NumPy loads.
from instrument_overhead import PATHS, Run, block_parser

import gluonedu as mx  # noqa: E402

SETTINGS = ('ignore', 'warn')
AIM = 0.05   # of a whole iteration


def main(argv=None):
    args = block_parser(__doc__).parse_args(argv)

    X, y = mx.data.digits()
    runs = {path: Run(X, y, args.batch_size, PATHS[path]) for path in PATHS}
    keys = [(path, setting) for path in PATHS for setting in SETTINGS]

    def block(key):
        run = runs[key[0]]
        run.trainer.nonfinite = key[1]
        return run.timed_steps(args.steps, None)

    for key in keys:                           # warm-up: states, flat buffers, jit, caches
        block(key)
    results = {key: [] for key in keys}        # (wall, cpu, iteration cpu) per block
    order = random.Random(args.seed)
    for _ in range(args.rounds):
        for key in order.sample(keys, len(keys)):
            results[key].append(block(key))

    print('Trainer.step, digits MLP 64-128-64-10, Adam, batch %d, %d rounds x %d steps '
          'per setting, nobody listening' % (args.batch_size, args.rounds, args.steps))
    print('%-26s %-7s %9s %10s %12s %12s %16s' % ('path', 'setting', 'min ms', 'median ms',
                                                  'CPU med ms', 'overhead us',
                                                  'of an iteration'))
    for path in PATHS:
        bare_cpu = statistics.median(c for _, c, _ in results[path, 'ignore'])
        for setting in SETTINGS:
            walls = [w for w, _, _ in results[path, setting]]
            cpu = statistics.median(c for _, c, _ in results[path, setting])
            iteration = statistics.median(i for _, _, i in results[path, setting])
            share = (cpu - bare_cpu) / iteration
            print('%-26s %-7s %9.3f %10.3f %12.3f %12.1f %15.2f%%%s' % (
                path, setting, 1e3 * min(walls), 1e3 * statistics.median(walls), 1e3 * cpu,
                1e6 * (cpu - bare_cpu), 100 * share,
                '' if setting == 'ignore' else ('  (aim < %.0f%%)' % (100 * AIM))))
    return results


if __name__ == '__main__':
    main()
