"""Runs one KVStore parity case against an MXNet-like module ``mx`` (MXNet 1.9.1 or gluonedu).

Both sides execute this same code: the oracle script (``oracle_kvstore.py``) passes the
real ``mxnet``, the tests pass ``gluonedu``; only the numbers can differ. The inputs are
drawn here from ``np.random.RandomState(seed)``, whose stream is the same under the
oracle's NumPy 1.23 and the project's NumPy 2. This module imports neither library.

Case (plain JSON, from :func:`kvstore_cases`)::

    {"id": "device-3dev-2bit-sgd", "kvstore": "device", "devices": 3,
     "compression": null | 0.5, "mode": "push_pull" | "pushpull" | "sgd" | "adam"
                                       | "row_sparse" | "row_sparse_sgd",
     "keys": [3, 8] | ["w", "b"], "shapes": [[7, 5], [3]], "steps": 5, "seed": 11}

Result (:func:`run_kvstore_case`): ``{"<key>/<step>/<device>": the value pulled to that
device after that step}``; the row-sparse modes add ``"<key>/<step>/rows"``, what a
``row_sparse_pull`` of random row ids returned (dense), and ``".../rowids"``.
Mode ``row_sparse`` stores row-sparse weights (no optimizer); ``row_sparse_sgd`` a dense
weight updated by SGD from row-sparse gradients (an Embedding with ``sparse_grad=True``).
"""
import numpy as np

DENSE_MODES = ('push_pull', 'pushpull', 'sgd', 'adam')
SPARSE_MODES = ('row_sparse', 'row_sparse_sgd')
OPTIMIZERS = {'sgd': ('sgd', {'learning_rate': 0.1, 'momentum': 0.9, 'wd': 1e-3}),
              'adam': ('adam', {'learning_rate': 0.01, 'wd': 1e-3}),
              'row_sparse_sgd': ('sgd', {'learning_rate': 0.1, 'momentum': 0.9})}


def kvstore_cases():
    """Every parity case: 'local' and 'device', 1/2/3/5 devices, 2-bit on 'device'."""
    cases = []
    seed = 0
    for kvstore in ('local', 'device'):
        for devices in (1, 2, 3, 5):
            for compression in ((None, 0.5) if kvstore == 'device' else (None,)):
                modes = DENSE_MODES + (SPARSE_MODES if compression is None else ())
                for mode in modes:
                    seed += 1
                    keys = ['w', 'b'] if seed % 2 else [3, 8]
                    shapes = [[7, 5], [3]] if mode in DENSE_MODES else [[6, 4], [5, 2]]
                    cases.append({
                        'id': '%s-%ddev-%s-%s' % (kvstore, devices,
                                                  '2bit' if compression else 'plain', mode),
                        'kvstore': kvstore, 'devices': devices, 'compression': compression,
                        'mode': mode, 'keys': keys, 'shapes': shapes, 'steps': 5,
                        'seed': seed})
    return cases


def _f32(rng, shape, scale=1.0):
    # Magnitudes over several decades, so that summation order shows in float32.
    return (rng.uniform(-1, 1, shape) * scale * 10 ** rng.uniform(-2, 1, shape)).astype(
        np.float32)


def _sparse_grad(mx, rng, shape, ctx):
    rows = np.sort(rng.choice(shape[0], size=rng.randint(1, shape[0]), replace=False))
    data = _f32(rng, (len(rows),) + tuple(shape[1:]))
    return mx.nd.sparse.row_sparse_array((data, rows), shape=tuple(shape), ctx=ctx)


def run_kvstore_case(mx, case):
    rng = np.random.RandomState(case['seed'])
    ctxs = [mx.cpu(i) for i in range(case['devices'])]
    keys, shapes = case['keys'], [tuple(s) for s in case['shapes']]
    sparse = case['mode'] in SPARSE_MODES
    # row_sparse: row-sparse weights and gradients, no optimizer; row_sparse_sgd: a dense
    # weight with row-sparse gradients (an Embedding with sparse_grad=True) and SGD.
    sparse_weight = case['mode'] == 'row_sparse'
    kv = mx.kv.create(case['kvstore'])
    if case['compression']:
        kv.set_gradient_compression({'type': '2bit', 'threshold': case['compression']})
    weights = [_f32(rng, s) for s in shapes]
    if sparse_weight:
        kv.init(keys, [mx.nd.array(w).tostype('row_sparse') for w in weights])
    else:
        kv.init(keys, [mx.nd.array(w) for w in weights])
    if case['mode'] in OPTIMIZERS:
        name, kwargs = OPTIMIZERS[case['mode']]
        kv.set_optimizer(mx.optimizer.create(name, **kwargs))

    result = {}
    for step in range(case['steps']):
        if sparse:
            values = [[_sparse_grad(mx, rng, s, c) for c in ctxs] for s in shapes]
        else:
            values = [[mx.nd.array(_f32(rng, s), ctx=c) for c in ctxs] for s in shapes]
        if sparse_weight:
            outs = [[mx.nd.sparse.zeros('row_sparse', s, ctx=c) for c in ctxs] for s in shapes]
        else:
            outs = [[mx.nd.zeros(s, ctx=c) for c in ctxs] for s in shapes]
        as_lists = step % 2 == 0          # alternate list-of-keys and one-key calls
        if case['mode'] == 'pushpull':
            if as_lists:
                kv.pushpull(keys, values, out=outs)
            else:
                for k, v, o in zip(keys, values, outs):
                    kv.pushpull(k, v, out=o)
        else:
            if as_lists:
                kv.push(keys, values)
                kv.pull(keys, out=outs, ignore_sparse=not sparse)
            else:
                for k, v, o in zip(keys, values, outs):
                    kv.push(k, v)
                    kv.pull(k, out=o, ignore_sparse=not sparse)
        for k, key_outs in zip(keys, outs):
            for d, o in enumerate(key_outs):
                result['%s/%d/%d' % (k, step, d)] = o.asnumpy()
        if sparse_weight:
            for k, s in zip(keys, shapes):
                row_ids = rng.randint(0, s[0], size=3)
                got = [mx.nd.sparse.zeros('row_sparse', s, ctx=c) for c in ctxs]
                kv.row_sparse_pull(k, out=got, row_ids=mx.nd.array(row_ids, dtype='int64'))
                result['%s/%d/rows' % (k, step)] = np.stack([g.asnumpy() for g in got])
                result['%s/%d/rowids' % (k, step)] = np.stack(
                    [g.indices.asnumpy().astype(np.int64) for g in got])
    return result
