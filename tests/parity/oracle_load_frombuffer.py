"""MXNet 1.9.1's ``nd.load_frombuffer`` on buffers of its own ``nd.save`` files and on bad
ones. Run by the reference interpreter (never importing gluonedu)::

    oracle_load_frombuffer.py WORKDIR RESULTS.json

Writes WORKDIR/<buffer>.bin (the bytes each case passes) and RESULTS.json: for each case
``{"ok": {name or index: [dtype, shape, values]}}`` or ``{"error": class name}``.
"""
import json
import os
import sys

import numpy as np

import mxnet as mx


def buffers(workdir):
    """{case: bytes (or a non-bytes value)} from files MXNet writes."""
    path = os.path.join(workdir, 'saved.params')
    mx.nd.save(path, {'weight': mx.nd.array(np.arange(6).reshape(2, 3)),
                      'ids': mx.nd.array([3, 1], dtype='int32'),
                      'scale': mx.nd.array([0.5], dtype='float64')})
    with open(path, 'rb') as f:
        named = f.read()
    mx.nd.save(path, [mx.nd.ones((2, 2)), mx.nd.array([1, 2], dtype='uint8')])
    with open(path, 'rb') as f:
        listed = f.read()
    return {'dict': named, 'list': listed, 'truncated': named[:-5], 'garbage': b'garbage!',
            'empty': b''}


def describe(loaded):
    items = loaded.items() if isinstance(loaded, dict) else enumerate(loaded)
    return {str(k): [v.dtype.__name__, list(v.shape), v.asnumpy().tolist()] for k, v in items}


def main(workdir, results_path):
    results = {'__meta__': {'mxnet_version': mx.__version__}}
    cases = buffers(workdir)
    for name, buf in cases.items():
        with open(os.path.join(workdir, name + '.bin'), 'wb') as f:
            f.write(buf)
    cases.update({'text': 'not a file', 'number': 3, 'bytearray': bytearray(cases['list'])})
    for name, buf in cases.items():
        try:
            results[name] = {'ok': describe(mx.nd.load_frombuffer(buf))}
        except Exception as exc:  # the outcome to compare
            results[name] = {'error': type(exc).__name__}
    with open(results_path, 'w') as f:
        json.dump(results, f)


if __name__ == '__main__':
    main(*sys.argv[1:])
