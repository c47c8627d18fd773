"""One optimizer step: gluonedu (fused and reference) vs MXNet 1.9.1 vs PyTorch CPU.

    .venv/bin/python benchmarks/step.py [--repeat 15] [--rounds 3] [--quick] [--json PATH]

Layouts: "big" (8 parameters, 8 M floats in all) and "many" (400 parameters of 2,000
floats); optimizers Adam, SGD-momentum, NAG, RMSProp, AdaGrad, LAMB; contexts "1", "2"
(``update_on_kvstore=False``: the all-reduce, then the optimizer on each context) and
"2s" (MXNet's default, ``update_on_kvstore`` left to the Trainer's rule: the store runs
the optimizer once on the summed gradients and the contexts pull the weights). Each row
prints min and median milliseconds of ``Trainer.step`` (gradients already in place), the
ratios, and the floor: the bytes the optimizer must move at the NumPy copy bandwidth
measured in the same run.

Peers run in their own interpreters, each one subprocess for all rows:

* MXNet 1.9.1: ``--mxnet-python`` (default ``$GLUONEDU_MXNET_PYTHON``, else
  ``.venv-mxnet/bin/python``, as ``make ref-venv`` builds it). With 2 contexts both frameworks use ``kvstore='device'``, with
  the same ``update_on_kvstore``.
* PyTorch 2.13 CPU: ``--torch-python`` (default: this interpreter if it can import
  torch, else ``.venv-bench/bin/python``). torch is not a gluonedu dependency; make a
  separate benchmark venv::

      python3 -m venv .venv-bench
      .venv-bench/bin/pip install numpy torch==2.13.0     # the CPU build

  ``foreach=True`` and ``fused=True`` variants (where PyTorch has them: no LAMB; no fused
  NAG/RMSProp). "2" for PyTorch: two replicas whose gradients are summed with
  ``torch._foreach_add`` and copied back before both optimizers step; "2s": the sum, one
  optimizer step (replica 0's), its weights copied to replica 1.

The frameworks take turns: ``--rounds`` rounds, each timing gluonedu (fused), then MXNet,
then PyTorch, every case ``--repeat`` times; a case's figure is its minimum over all
rounds (its median too). On a shared machine, whose load drifts over minutes, this
gives every framework the same chances at a quiet moment. (The readable reference path
is timed in the first round only.) A peer that is missing is reported as such; the rest
still runs.

``--json PATH`` writes the results file that benchmarks/check_baselines.py compares with
the recorded baseline: per case, gluonedu (fused) ÷ MXNet, ÷ PyTorch fused and ÷ PyTorch
foreach, named ``step|<layout>|<contexts>|<optimizer>|fused/<peer>``.
"""
import argparse
import json
import os
import sys
import textwrap
import time

import numpy as np

from _harness import (REPO, RatioTable, cell, default_mxnet_python, load_note, merge_rounds,
                      ratio, ratio_name, run_peer, write_results)

sys.path.insert(0, REPO)

LAYOUTS = {'big': [1_000_000] * 8, 'many': [2_000] * 400}
#: (label, contexts, whether the store runs the optimizer: MXNet's default rule)
CONTEXTS = [('1', 1, False), ('2', 2, False), ('2s', 2, True)]
OPTIMIZERS = ['adam', 'sgd', 'nag', 'rmsprop', 'adagrad', 'lamb']
#: float32 arrays each optimizer must read + write per parameter element (its floor).
BYTES_PER_ELEMENT = {'adam': 7 * 4, 'sgd': 5 * 4, 'nag': 5 * 4, 'rmsprop': 5 * 4,
                     'adagrad': 5 * 4, 'lamb': 10 * 4}
SETTINGS = {  # (gluonedu/MXNet name, kwargs)
    'adam': ('adam', {'learning_rate': 1e-3, 'wd': 1e-4}),
    'sgd': ('sgd', {'learning_rate': 0.1, 'momentum': 0.9, 'wd': 1e-4}),
    'nag': ('nag', {'learning_rate': 0.1, 'momentum': 0.9, 'wd': 1e-4}),
    'rmsprop': ('rmsprop', {'learning_rate': 1e-3, 'wd': 1e-4}),
    'adagrad': ('adagrad', {'learning_rate': 0.1, 'wd': 1e-4}),
    'lamb': ('lamb', {'learning_rate': 1e-3, 'wd': 1e-4}),
}
#: The recorded ratios' last part (gluonedu fused ÷ the peer) -> the peer's timings column.
PEER_RATIOS = {'fused/mxnet': 'mxnet', 'fused/torch_fused': 'torch_fused',
               'fused/torch_foreach': 'torch_foreach'}


def ratio_names(optimizers=OPTIMIZERS):
    """Every ratio a run with ``optimizers`` records (or reports missing)."""
    return [ratio_name('step', layout, label, opt, peer) for layout in LAYOUTS
            for label, _, _ in CONTEXTS for opt in optimizers for peer in PEER_RATIOS]

# The same driver text runs under gluonedu and under MXNet: both speak Gluon.
GLUON_DRIVER = textwrap.dedent('''
    import json, sys, time
    import numpy as np
    def bench(mx, cases, repeat, fused):
        out = {}
        for key, (opt, kwargs, sizes, n_ctx, on_store) in cases.items():
            ctx = [mx.cpu(i) for i in range(n_ctx)]
            params = []
            for i, n in enumerate(sizes):
                p = mx.gluon.Parameter('p%d' % i, shape=(n,))
                p.initialize(mx.init.Uniform(0.1), ctx=ctx)
                params.append(p)
            extra = {} if fused is None else {'fused': fused}
            uok = None if n_ctx == 1 or on_store else False   # on_store: MXNet's rule
            trainer = mx.gluon.Trainer(params, opt, dict(kwargs), kvstore='device',
                                       update_on_kvstore=uok, **extra)
            rng = np.random.RandomState(0)
            for p in params:
                for g in p.list_grad():
                    g[:] = mx.nd.array(rng.uniform(-1, 1, g.shape).astype(np.float32), ctx=g.context)
            times = []
            for r in range(repeat + 3):
                for p in params:
                    for d in p.list_data():
                        d._fresh_grad = True
                start = time.perf_counter()
                trainer.step(1)
                mx.nd.waitall()
                if r >= 3:
                    times.append((time.perf_counter() - start) * 1e3)
            out[key] = times
        return out
''')

MXNET_MAIN = GLUON_DRIVER + textwrap.dedent('''
    import mxnet as mx
    cases = {k: tuple(v) for k, v in json.loads(sys.argv[1]).items()}
    print(json.dumps(bench(mx, cases, int(sys.argv[2]), None)))
''')

TORCH_MAIN = textwrap.dedent('''
    import json, sys, time
    import torch
    torch.manual_seed(0)
    cases, repeat = json.loads(sys.argv[1]), int(sys.argv[2])
    def make(opt, kwargs, params, variant):
        lr, wd = kwargs['learning_rate'], kwargs.get('wd', 0.0)
        flag = {variant: True}
        if opt == 'adam':
            return torch.optim.Adam(params, lr=lr, weight_decay=wd, **flag)
        if opt in ('sgd', 'nag'):
            return torch.optim.SGD(params, lr=lr, momentum=0.9, weight_decay=wd,
                                   nesterov=opt == 'nag', **flag)
        if opt == 'rmsprop':
            return torch.optim.RMSprop(params, lr=lr, weight_decay=wd, **flag)
        if opt == 'adagrad':
            return torch.optim.Adagrad(params, lr=lr, weight_decay=wd, **flag)
        return None
    out = {}
    for key, (opt, kwargs, sizes, n_ctx, on_store) in cases.items():
        for variant in ('foreach', 'fused'):
            replicas = [[torch.empty(n).uniform_(-0.1, 0.1).requires_grad_() for n in sizes]
                        for _ in range(n_ctx)]
            for rep in replicas:
                for p in rep:
                    p.grad = torch.empty_like(p).uniform_(-1, 1)
            try:
                optims = [make(opt, kwargs, rep, variant) for rep in replicas]
                if optims[0] is None:
                    raise RuntimeError('no %s in PyTorch' % opt)
                times = []
                for r in range(repeat + 3):
                    start = time.perf_counter()
                    if n_ctx > 1:
                        grads = [[p.grad for p in rep] for rep in replicas]
                        total = torch._foreach_add(grads[0], grads[1])
                        for gs in (grads[:1] if on_store else grads):
                            torch._foreach_copy_(gs, total)
                    for o in (optims[:1] if on_store else optims):
                        o.step()
                    if on_store:   # the other replica pulls the updated weights
                        with torch.no_grad():
                            torch._foreach_copy_(replicas[1], replicas[0])
                    if r >= 3:
                        times.append((time.perf_counter() - start) * 1e3)
                out['%s|%s' % (key, variant)] = times
            except (RuntimeError, TypeError, ValueError) as exc:
                out['%s|%s' % (key, variant)] = str(exc).splitlines()[0][:60]
    print(json.dumps(out))
''')


def copy_bandwidth(repeat=10):
    """Bytes per second of ``np.copyto`` on 64 MB (read + write counted)."""
    src = np.random.rand(16_000_000).astype(np.float32)
    dst = np.empty_like(src)
    best = min(_timed(lambda: np.copyto(dst, src)) for _ in range(repeat))
    return 2 * src.nbytes / best


def _timed(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def stats(times):
    if isinstance(times, str):
        return None
    return float(np.min(times)), float(np.median(times))


def fmt(s):
    return '%7.2f %7.2f' % s if s else '%15s' % 'n/a'


def minimum_ratio(a, b):
    """Ratio of two (min, median) pairs' minima, or None."""
    return ratio(a[0], b[0]) if a and b else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--repeat', type=int, default=15)
    parser.add_argument('--rounds', type=int, default=3,
                        help='times each framework takes its turn (minima over all)')
    parser.add_argument('--quick', action='store_true', help='Adam and SGD only')
    parser.add_argument('--mxnet-python', default=default_mxnet_python())
    parser.add_argument('--torch-python', default=None)
    parser.add_argument('--json', help='also write the ratios and all timings to this file')
    args = parser.parse_args()
    torch_python = args.torch_python
    if torch_python is None:
        try:
            import torch  # noqa: F401
            torch_python = sys.executable
        except ImportError:
            torch_python = os.path.join(REPO, '.venv-bench', 'bin', 'python')

    import gluonedu as mx
    from gluonedu.optimizer._fused import backend_name
    optimizers = ['adam', 'sgd'] if args.quick else OPTIMIZERS
    cases = {}
    for layout, sizes in LAYOUTS.items():
        for label, n_ctx, on_store in CONTEXTS:
            for opt in optimizers:
                name, kwargs = SETTINGS[opt]
                cases['%s|%s|%s' % (layout, label, opt)] = (name, kwargs, sizes, n_ctx,
                                                            on_store)

    load_start = os.getloadavg()
    peer_args = [json.dumps(cases), args.repeat]
    namespace = {}
    exec(GLUON_DRIVER, namespace)  # noqa: S102 - our own driver text
    bandwidth = copy_bandwidth()
    reference = namespace['bench'](mx, cases, max(3, args.repeat // 3), False)
    fused, mxnet, torch_times = {}, {}, {}
    for _ in range(args.rounds):
        fused = merge_rounds(fused, namespace['bench'](mx, cases, args.repeat, True))
        mxnet = merge_rounds(mxnet, run_peer(args.mxnet_python, MXNET_MAIN, peer_args))
        torch_times = merge_rounds(torch_times, run_peer(torch_python, TORCH_MAIN, peer_args))

    import platform
    print('gluonedu step benchmark — %s, %d cores, backend %s; NumPy copy bandwidth %.1f GB/s'
          % (platform.processor() or platform.machine(), os.cpu_count(),
             backend_name(mx.cpu()), bandwidth / 1e9))
    if isinstance(mxnet, str):
        print('MXNet: %s' % mxnet)
    if isinstance(torch_times, str):
        print('PyTorch: %s' % torch_times)
    print('times in ms (min median); ratios of minima; floor = bytes moved / copy bandwidth')
    header = ('%-16s %15s %15s %15s %15s %15s %7s | %6s %6s %6s %6s'
              % ('case', 'fused', 'reference', 'mxnet', 'torch-foreach', 'torch-fused',
                 'floor', 'f/mx', 'f/tfu', 'f/tfe', 'f/ref'))
    print(header)
    print('-' * len(header))
    results, table = {}, RatioTable()
    for key, (name, kwargs, sizes, n_ctx, on_store) in cases.items():
        f, r = stats(fused[key]), stats(reference[key])
        m = stats(mxnet[key]) if isinstance(mxnet, dict) else None
        tfe = stats(torch_times.get(key + '|foreach')) if isinstance(torch_times, dict) else None
        tfu = stats(torch_times.get(key + '|fused')) if isinstance(torch_times, dict) else None
        copies = 1 if on_store else n_ctx   # optimizer passes over the parameters
        floor = copies * sum(sizes) * BYTES_PER_ELEMENT[key.split('|')[2]] / bandwidth * 1e3
        print('%-16s %s %s %s %s %s %7.2f | %s %s %s %s'
              % (key, fmt(f), fmt(r), fmt(m), fmt(tfe), fmt(tfu), floor,
                 cell(minimum_ratio(f, m), 6), cell(minimum_ratio(f, tfu), 6),
                 cell(minimum_ratio(f, tfe), 6), cell(minimum_ratio(f, r), 6)))
        results[key] = {'fused': f, 'reference': r, 'mxnet': m, 'torch_foreach': tfe,
                        'torch_fused': tfu, 'floor': floor}
        for figure, peer in PEER_RATIOS.items():
            table.add(ratio_name('step', key, figure), minimum_ratio(f, results[key][peer]),
                      _why_missing(peer, key, mxnet, torch_times))
    misses = [key for key, r in results.items()
              if (r['mxnet'] and r['fused'][0] > 0.5 * r['mxnet'][0]) or
              (r['torch_fused'] and r['fused'][0] > r['torch_fused'][0])]
    print('goals (fused <= 0.5x MXNet, <= 1.0x PyTorch fused): %d of %d rows met%s'
          % (len(results) - len(misses), len(results),
             '; missed: ' + ', '.join(misses) if misses else ''))
    print(load_note(load_start, os.getloadavg()))
    if args.json:
        settings = {'repeat': args.repeat, 'rounds': args.rounds, 'quick': args.quick}
        write_results(args.json, 'step', table, settings, load_start, results)


def _why_missing(peer, key, mxnet, torch_times):
    """Why a peer has no timing for ``key``: its interpreter's failure, or the case's."""
    if peer == 'mxnet':
        return mxnet if isinstance(mxnet, str) else 'no timing'
    if isinstance(torch_times, str):
        return torch_times
    reason = torch_times.get('%s|%s' % (key, peer[len('torch_'):]))
    return reason if isinstance(reason, str) else 'no timing'


if __name__ == '__main__':
    main()
