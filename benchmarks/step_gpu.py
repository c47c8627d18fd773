"""One optimizer step on a GPU: gluonedu (CuPy kernels) vs PyTorch CUDA, same run.

    python benchmarks/step_gpu.py [--repeat 30] [--rounds 3]

Needs CuPy and a CUDA GPU; PyTorch with CUDA is the peer, if importable. MXNet 1.9.1's
GPU builds (``mxnet-cu1xx``) need a CUDA 10/11 runtime and are not measured here.

Layouts as ``step.py``: "big" (8 parameters, 8 M floats) and "many" (400 parameters of
2,000 floats), one context. gluonedu runs ``Trainer.step`` fused (the CuPy kernels) and
the readable reference (per-array CuPy operations); PyTorch runs ``foreach=True`` and
``fused=True`` where it has them. Every timing ends with a device synchronize, so it is
the step's wall time as a training loop sees it. The frameworks take turns for
``--rounds`` rounds; a case's figure is its minimum (and median) over all rounds.
"""
import argparse
import os
import sys
import time

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

LAYOUTS = {'big': [1_000_000] * 8, 'many': [2_000] * 400}
SETTINGS = {
    'adam': {'learning_rate': 1e-3, 'wd': 1e-4},
    'sgd': {'learning_rate': 0.1, 'momentum': 0.9, 'wd': 1e-4},
    'nag': {'learning_rate': 0.1, 'momentum': 0.9, 'wd': 1e-4},
    'rmsprop': {'learning_rate': 1e-3, 'wd': 1e-4},
    'adagrad': {'learning_rate': 0.1, 'wd': 1e-4},
    'lamb': {'learning_rate': 1e-3, 'wd': 1e-4},
}


def gluonedu_case(opt, sizes, fused):
    import cupy
    import gluonedu as mx
    ctx = mx.gpu(0)
    params = []
    for i, n in enumerate(sizes):
        p = mx.gluon.Parameter('p%d' % i, shape=(n,))
        p.initialize(mx.init.Uniform(0.1), ctx=ctx)
        params.append(p)
    trainer = mx.gluon.Trainer(params, opt, dict(SETTINGS[opt]), fused=fused)
    rng = np.random.RandomState(0)
    for p in params:
        p.grad()[:] = mx.nd.array(rng.uniform(-1, 1, p.shape).astype(np.float32), ctx=ctx)
    sync = cupy.cuda.Device(0).synchronize

    def step():
        for p in params:   # backward would mark the gradients fresh
            p.data()._fresh_grad = True
        trainer.step(1)
        sync()
    return step


def torch_case(opt, sizes, variant):
    import torch
    kwargs = SETTINGS[opt]
    lr, wd = kwargs['learning_rate'], kwargs['wd']
    params = [torch.empty(n, device='cuda').uniform_(-0.1, 0.1).requires_grad_()
              for n in sizes]
    for p in params:
        p.grad = torch.empty_like(p).uniform_(-1, 1)
    flag = {variant: True}
    if opt == 'adam':
        optim = torch.optim.Adam(params, lr=lr, weight_decay=wd, **flag)
    elif opt in ('sgd', 'nag'):
        optim = torch.optim.SGD(params, lr=lr, momentum=0.9, weight_decay=wd,
                                nesterov=opt == 'nag', **flag)
    elif opt == 'rmsprop':
        optim = torch.optim.RMSprop(params, lr=lr, weight_decay=wd, **flag)
    elif opt == 'adagrad':
        optim = torch.optim.Adagrad(params, lr=lr, weight_decay=wd, **flag)
    else:
        raise RuntimeError('no %s in PyTorch' % opt)

    def step():
        optim.step()
        torch.cuda.synchronize()
    step()   # PyTorch checks the fused flag on the first step
    return step


def timed(step, repeat):
    for _ in range(3):   # kernel compilation, allocator warm-up
        step()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        step()
        times.append((time.perf_counter() - start) * 1e3)
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--repeat', type=int, default=30)
    parser.add_argument('--rounds', type=int, default=3)
    args = parser.parse_args()
    import gluonedu as mx
    if mx.num_gpus() < 1:
        sys.exit('step_gpu.py needs CuPy and a CUDA GPU (mx.num_gpus() is 0)')
    try:
        import torch
        has_torch = torch.cuda.is_available()
    except ImportError:
        has_torch = False
    variants = [('gluonedu fused', lambda o, s: gluonedu_case(o, s, True)),
                ('gluonedu reference', lambda o, s: gluonedu_case(o, s, False))]
    if has_torch:
        variants += [('torch foreach', lambda o, s: torch_case(o, s, 'foreach')),
                     ('torch fused', lambda o, s: torch_case(o, s, 'fused'))]
    cases = [(layout, opt) for layout in LAYOUTS for opt in SETTINGS]
    times = {}
    for _ in range(args.rounds):
        for layout, opt in cases:
            for name, make in variants:
                try:
                    got = timed(make(opt, LAYOUTS[layout]), args.repeat)
                except RuntimeError as exc:
                    times[(layout, opt, name)] = str(exc)
                    continue
                times.setdefault((layout, opt, name), []).extend(got)
    names = [n for n, _ in variants]
    import cupy
    gpu = cupy.cuda.runtime.getDeviceProperties(0)['name'].decode()
    print('ms per Trainer.step / optimizer.step, min (median), %d rounds x %d; %s'
          % (args.rounds, args.repeat, gpu))
    print('%-14s' % 'case' + ''.join('%-22s' % n for n in names) +
          ('fused/torch-fused' if has_torch else ''))
    for layout, opt in cases:
        cells, mins = [], {}
        for name in names:
            t = times.get((layout, opt, name))
            if isinstance(t, list):
                mins[name] = min(t)
                cells.append('%.3f (%.3f)' % (min(t), float(np.median(t))))
            else:
                cells.append(t or '-')
        row = '%-14s' % ('%s|%s' % (layout, opt)) + ''.join('%-22s' % c for c in cells)
        if 'torch fused' in mins:
            row += '%.2fx' % (mins['gluonedu fused'] / mins['torch fused'])
        elif 'torch foreach' in mins:
            row += '(foreach) %.2fx' % (mins['gluonedu fused'] / mins['torch foreach'])
        print(row)


if __name__ == '__main__':
    main()
