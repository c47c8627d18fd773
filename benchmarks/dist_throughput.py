"""Distributed store throughput on a local Ray cluster, against bare Ray in the same run.

    .venv/bin/python benchmarks/dist_throughput.py [--repeat 20] [--workers 2]

1. push + pull of a 1 MB and a 64 MB float32 array through a 'dist_sync' store (one
   worker, one server, no optimizer), against the floor Ray itself sets: a bare actor
   round trip (send the array to an actor method that returns it) from the same worker
   process. Store and bare rounds alternate (after a few of each to warm up), so that
   a busy machine's drift hits both alike; both are medians over ``--repeat`` rounds.
   The ratio says what the store adds: a second call (push, then pull), the sum
   written into the stored value, and the server's snapshot of it for the pull.
2. One training step of the digits MLP (batch 64 per worker) on ``--workers`` workers
   with 'dist_sync' and with 'dist_async' (forward, backward, Trainer.step: pushpull
   of every parameter, optimizer on the server) against the same step in one process
   with no store. Medians over ``5 * --repeat`` steps, as each worker sees them.

Every figure is printed as milliseconds and ratios; nothing is written.
"""
import argparse
import statistics
import time

import numpy as np

import gluonedu as mx


class Echo:
    """A bare Ray actor: what a round trip costs with nothing on top."""

    def echo(self, x):
        return x


def _alternating_medians_ms(fns, repeat, warmup=3):
    """Median ms of each function in ``fns``, called in turn ``repeat`` times."""
    for _ in range(warmup):
        for fn in fns:
            fn()
    times = [[] for _ in fns]
    for _ in range(repeat):
        for fn, spent in zip(fns, times):
            start = time.perf_counter()
            fn()
            spent.append(time.perf_counter() - start)
    return [1000 * statistics.median(spent) for spent in times]


def _median_ms(fn, repeat):
    fn()  # warm up
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return 1000 * statistics.median(times)


def store_vs_bare_ray(echo, sizes_mb, repeat):
    """(MB, store push+pull ms, bare round trip ms) per size, measured in one worker."""
    import ray
    kv = mx.kv.create('dist_sync')
    rows = []
    for key, mb in enumerate(sizes_mb):
        n = mb * 1024 * 1024 // 4
        value = mx.nd.array(np.random.default_rng(key).standard_normal(n).astype(np.float32))
        out = mx.nd.zeros((n,))
        kv.init(key, value)
        host = value.asnumpy()

        def store_round():
            kv.push(key, value)
            kv.pull(key, out=out)

        def bare_round():
            back = ray.get(echo.echo.remote(host))
            out[:] = back
        rows.append((mb, *_alternating_medians_ms([store_round, bare_round], repeat)))
    return rows


def _mlp_step_setup(kvstore):
    from gluonedu import autograd, gluon
    from gluonedu.gluon import nn
    mx.random.seed(0)
    with mx.name.NameManager():
        net = nn.Sequential()
        with net.name_scope():
            net.add(nn.Dense(64, activation='relu', in_units=64), nn.Dense(10, in_units=64))
    net.initialize(mx.init.Xavier())
    trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1,
                                                          'momentum': 0.9}, kvstore=kvstore)
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    X, y = mx.data.digits()
    xb, yb = mx.nd.array(X[:64]), mx.nd.array(y[:64])

    def step():
        with autograd.record():
            loss = loss_fn(net(xb), yb)
        loss.backward()
        trainer.step(64)
    return step


def dist_step_ms(kv_type, repeat):
    """Median ms of one training step on store ``kv_type`` (as this worker sees it)."""
    kv = mx.kv.create(kv_type)
    step = _mlp_step_setup(kv)
    kv.barrier()  # start together
    return _median_ms(step, repeat)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--repeat', type=int, default=20)
    parser.add_argument('--workers', type=int, default=2)
    args = parser.parse_args()
    import ray
    with mx.kv.local_cluster() as cluster:
        echo = ray.remote(num_cpus=0)(Echo).remote()
        ray.get(echo.echo.remote(0))
        rows, = cluster.run(store_vs_bare_ray, echo, [1, 64], args.repeat, num_workers=1)
        dist = {kv_type: cluster.run(dist_step_ms, kv_type, args.repeat * 5,
                                     num_workers=args.workers)
                for kv_type in ('dist_sync', 'dist_async')}
    local = _median_ms(_mlp_step_setup(None), args.repeat * 5)
    print('push+pull through dist_sync (1 worker, 1 server) vs a bare Ray actor round trip')
    print('%8s %14s %14s %8s %12s' % ('size', 'store ms', 'bare Ray ms', 'ratio', 'store MB/s'))
    for mb, store, bare in rows:
        print('%6d MB %14.2f %14.2f %8.2f %12.0f' % (mb, store, bare, store / bare,
                                                     2 * mb / (store / 1000)))
    print()
    print('one training step, digits MLP, batch 64 per worker')
    print('  %-27s: %8.2f ms' % ('single process, no store', local))
    for kv_type, times in dist.items():
        for rank, ms in enumerate(times):
            label = '%s, worker %d of %d' % (kv_type, rank, args.workers)
            print('  %-27s: %8.2f ms  (%.1fx the single-process step)'
                  % (label, ms, ms / local))


if __name__ == '__main__':
    main()
