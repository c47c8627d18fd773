"""Sparse storage: gluonedu vs MXNet 1.9.1, in one run.

    .venv/bin/python benchmarks/sparse.py [--repeat 20] [--mxnet-python PATH]

Three rows, each the median milliseconds over ``--repeat`` calls (after warm-up):

1. ``sparse.dot(X, W)``: X a CSR batch (1000 × 100,000, 10 entries per row), W dense
   (100,000 × 64);
2. the same, recorded, then ``backward()``: W's gradient is row_sparse (the rows of the
   batch's columns);
3. one training step of MXNet's sparse linear model (a row_sparse W pulled with
   ``row_sparse_data`` inside ``record()``, lazy Adam on the store), batch 1000.

The same driver text runs under gluonedu (this interpreter) and under MXNet 1.9.1
(``--mxnet-python``, default ``.venv-mxnet/bin/python``, in one subprocess) on the same
seeded arrays; the ratio is gluonedu / MXNet. A missing MXNet is reported, the rest runs.
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

ROWS, FEATURES, UNITS, PER_ROW = 1000, 100_000, 64, 10

DRIVER = textwrap.dedent('''
    import json, statistics, sys, time
    import numpy as np

    def median_ms(fn, repeat):
        for _ in range(3):
            fn()
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            fn()
            times.append(time.perf_counter() - start)
        return 1000 * statistics.median(times)

    def bench(mx, inputs, repeat):
        nd, autograd, gluon = mx.nd, mx.autograd, mx.gluon
        x = nd.sparse.csr_matrix((inputs['data'], inputs['indices'], inputs['indptr']),
                                 shape=tuple(inputs['shape']))
        w = nd.array(inputs['w'])
        results = {}

        def forward():
            nd.sparse.dot(x, w).wait_to_read()
        results['dot'] = median_ms(forward, repeat)

        w.attach_grad(stype='row_sparse')

        def forward_backward():
            with autograd.record():
                y = nd.sparse.dot(x, w)
            y.backward()
            w.grad.wait_to_read()
        results['dot + backward'] = median_ms(forward_backward, repeat)

        class SparseLinear(gluon.Block):
            def __init__(self, **kwargs):
                super().__init__(**kwargs)
                with self.name_scope():
                    self.weight = self.params.get('weight', shape=w.shape,
                                                  stype='row_sparse', grad_stype='row_sparse')
                    self.bias = self.params.get('bias', shape=(w.shape[1],))

            def forward(self, batch):
                rows = self.weight.row_sparse_data(batch.indices)
                return nd.sparse.dot(batch, rows) + self.bias.data()

        net = SparseLinear()
        net.initialize(mx.init.Zero())
        trainer = gluon.Trainer(net.collect_params(), 'adam', {'learning_rate': 0.01})
        loss_fn = gluon.loss.L2Loss()
        target = nd.zeros((x.shape[0], w.shape[1]))

        def train_step():
            with autograd.record():
                loss = loss_fn(net(x), target)
            loss.backward()
            trainer.step(x.shape[0])
            loss.wait_to_read()
        results['training step (lazy Adam)'] = median_ms(train_step, repeat)
        return results

    if __name__ == '__main__':
        import mxnet as mx
        inputs = dict(np.load(sys.argv[1]))
        print(json.dumps(bench(mx, inputs, int(sys.argv[2]))))
''')


def make_inputs(seed=0):
    rng = np.random.RandomState(seed)
    indices = np.sort(np.stack([rng.choice(FEATURES, PER_ROW, replace=False)
                                for _ in range(ROWS)]), axis=1).ravel()
    return {'data': rng.rand(ROWS * PER_ROW).astype(np.float32),
            'indices': indices.astype(np.int64),
            'indptr': np.arange(0, ROWS * PER_ROW + 1, PER_ROW, dtype=np.int64),
            'shape': np.array([ROWS, FEATURES]),
            'w': (rng.randn(FEATURES, UNITS) * 0.01).astype(np.float32)}


def run_mxnet(python, inputs, repeat):
    """MXNet's medians, or the reason there are none."""
    if not os.path.exists(python):
        return None, '%s not found (make ref-venv builds it)' % python
    with tempfile.TemporaryDirectory() as tmp:
        inputs_path, script = os.path.join(tmp, 'inputs.npz'), os.path.join(tmp, 'drive.py')
        np.savez(inputs_path, **inputs)
        with open(script, 'w') as f:
            f.write(DRIVER)
        env = dict(os.environ, MXNET_STORAGE_FALLBACK_LOG_VERBOSE='0')
        env.pop('PYTHONPATH', None)
        proc = subprocess.run([python, script, inputs_path, str(repeat)], capture_output=True,
                              text=True, env=env)
    if proc.returncode != 0:
        return None, 'MXNet failed: %s' % proc.stderr.strip().splitlines()[-1:]
    return json.loads(proc.stdout.strip().splitlines()[-1]), None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--repeat', type=int, default=20)
    parser.add_argument('--mxnet-python', default=os.path.join(REPO, '.venv-mxnet', 'bin',
                                                               'python'))
    args = parser.parse_args()
    inputs = make_inputs()
    namespace = {}
    exec(compile(DRIVER, 'sparse-driver', 'exec'), namespace)
    import gluonedu
    ours = namespace['bench'](gluonedu, inputs, args.repeat)
    theirs, why = run_mxnet(args.mxnet_python, inputs, args.repeat)
    print('CSR batch %d x %d (%d entries per row), W %d x %d; median ms of %d calls'
          % (ROWS, FEATURES, PER_ROW, FEATURES, UNITS, args.repeat))
    print('%-28s %10s %10s %8s' % ('', 'gluonedu', 'MXNet', 'ratio'))
    for name, ms in ours.items():
        if theirs is None:
            print('%-28s %10.2f %10s %8s' % (name, ms, '-', '-'))
        else:
            print('%-28s %10.2f %10.2f %8.2f' % (name, ms, theirs[name], ms / theirs[name]))
    if why:
        print('MXNet: ' + why)


if __name__ == '__main__':
    main()
