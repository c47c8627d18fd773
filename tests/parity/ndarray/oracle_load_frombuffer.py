"""MXNet 1.9.1's ``nd.load_frombuffer`` on buffers of its own ``nd.save`` files and on bad
ones. Run by the reference interpreter (never importing gluonedu): ``oracle_main.py
oracle_load_frombuffer.py``.

Writes ``<buffer>.bin`` (the bytes each case passes) to the working directory, and its
result ``outcomes`` (JSON text): for each case ``{"ok": {name or index: [dtype, shape,
values]}}`` or ``{"error": class name}``.
"""
import json

import numpy as np

import mxnet as mx

import oracle_io


def buffers():
    """{case: bytes (or a non-bytes value)} from files MXNet writes."""
    path = 'saved.params'
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


if __name__ == '__main__':
    cases = buffers()
    for name, buf in cases.items():
        with open(name + '.bin', 'wb') as f:
            f.write(buf)
    cases.update({'text': 'not a file', 'number': 3, 'bytearray': bytearray(cases['list'])})
    outcomes = {}
    for name, buf in cases.items():
        try:
            outcomes[name] = {'ok': describe(mx.nd.load_frombuffer(buf))}
        except Exception as exc:  # the outcome to compare
            outcomes[name] = {'error': type(exc).__name__}
    oracle_io.save_results({'outcomes': np.array(json.dumps(outcomes))})
