"""Epoch time of the digits MLP: gluonedu (fused and reference) vs MXNet 1.9.1 vs PyTorch.

    .venv/bin/python benchmarks/train_digits.py [--epochs 5] [--torch-python PY]

The model: 64 -> 256 -> ReLU -> 256 -> ReLU -> 10, softmax cross-entropy, Adam(lr 1e-3),
batch 64, the 1,797 8×8 digits of scikit-learn (``mx.data.digits()``), one CPU context.
Each framework runs the same loop (forward, backward, ``trainer.step``) on the same data,
written to a temporary .npy file for the peers (MXNet's venv has no scikit-learn). It
prints the min and median epoch seconds (first epoch excluded: warm-up) and the final
training accuracy. Peers: as in benchmarks/step.py (``--mxnet-python``,
``--torch-python``).
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

GLUON_LOOP = textwrap.dedent('''
    import json, sys, time
    import numpy as np
    def train(mx, X, y, epochs, extra):
        mx.random.seed(0)
        net = mx.gluon.nn.Sequential()
        net.add(mx.gluon.nn.Dense(256, activation='relu'), mx.gluon.nn.Dense(256, activation='relu'),
                mx.gluon.nn.Dense(10))
        net.initialize(mx.init.Xavier())
        trainer = mx.gluon.Trainer(net.collect_params(), 'adam', {'learning_rate': 1e-3}, **extra)
        loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()
        times = []
        for epoch in range(epochs + 1):
            start = time.perf_counter()
            for i in range(0, len(X), 64):
                xb, yb = mx.nd.array(X[i:i + 64]), mx.nd.array(y[i:i + 64])
                with mx.autograd.record():
                    loss = loss_fn(net(xb), yb)
                loss.backward()
                trainer.step(xb.shape[0])
            mx.nd.waitall()
            times.append(time.perf_counter() - start)
        acc = float((net(mx.nd.array(X)).argmax(axis=1).asnumpy() == y).mean())
        return {'times': times[1:], 'accuracy': acc}
''')

MXNET_MAIN = GLUON_LOOP + textwrap.dedent('''
    import mxnet as mx
    data = np.load(sys.argv[1])
    print(json.dumps(train(mx, data['X'], data['y'], int(sys.argv[2]), {})))
''')

TORCH_MAIN = textwrap.dedent('''
    import json, sys, time
    import numpy as np, torch
    torch.manual_seed(0)
    data = np.load(sys.argv[1]); X, y = torch.tensor(data['X']), torch.tensor(data['y']).long()
    out = {}
    for variant in ('foreach', 'fused'):
        net = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.ReLU(), torch.nn.Linear(256, 256),
                                  torch.nn.ReLU(), torch.nn.Linear(256, 10))
        opt = torch.optim.Adam(net.parameters(), lr=1e-3, **{variant: True})
        loss_fn = torch.nn.CrossEntropyLoss()
        times = []
        for epoch in range(int(sys.argv[2]) + 1):
            start = time.perf_counter()
            for i in range(0, len(X), 64):
                opt.zero_grad()
                loss_fn(net(X[i:i + 64]), y[i:i + 64]).backward()
                opt.step()
            times.append(time.perf_counter() - start)
        acc = float((net(X).argmax(1) == y).float().mean())
        out[variant] = {'times': times[1:], 'accuracy': acc}
    print(json.dumps(out))
''')


def _peer(python, source, path, epochs):
    if not python or not os.path.exists(python):
        return 'not found: %s' % python
    proc = subprocess.run([python, '-c', source, path, str(epochs)], capture_output=True,
                          text=True, timeout=1800)
    if proc.returncode != 0:
        return 'failed: ' + (proc.stderr.strip().splitlines() or ['?'])[-1][:80]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _row(name, result):
    if isinstance(result, str):
        print('%-22s %s' % (name, result))
        return
    t = np.array(result['times'])
    print('%-22s %8.3f %8.3f   %.3f' % (name, t.min(), np.median(t), result['accuracy']))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--epochs', type=int, default=5)
    parser.add_argument('--mxnet-python', default=os.path.join(REPO, '.venv-mxnet', 'bin',
                                                               'python'))
    parser.add_argument('--torch-python', default=os.path.join(REPO, '.venv-bench', 'bin',
                                                               'python'))
    args = parser.parse_args()
    import gluonedu as mx
    X, y = mx.data.digits()
    namespace = {}
    exec(GLUON_LOOP, namespace)  # noqa: S102 - our own loop text
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'digits.npz')
        np.savez(path, X=X, y=y)
        fused = namespace['train'](mx, X, y, args.epochs, {'fused': True})
        reference = namespace['train'](mx, X, y, args.epochs, {'fused': False})
        mxnet = _peer(args.mxnet_python, MXNET_MAIN, path, args.epochs)
        torch_result = _peer(args.torch_python, TORCH_MAIN, path, args.epochs)
    print('digits MLP, %d epochs of 1797 samples, batch 64, Adam; %d cores'
          % (args.epochs, os.cpu_count()))
    print('%-22s %8s %8s   %s' % ('', 'min s', 'median s', 'train accuracy'))
    _row('gluonedu fused', fused)
    _row('gluonedu reference', reference)
    _row('mxnet 1.9.1', mxnet)
    if isinstance(torch_result, str):
        _row('pytorch', torch_result)
    else:
        _row('pytorch foreach', torch_result['foreach'])
        _row('pytorch fused', torch_result['fused'])


if __name__ == '__main__':
    main()
