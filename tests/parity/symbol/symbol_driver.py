"""Runs one symbol/hybridize case against an MXNet-like module — MXNet 1.9.1 or gluonedu.

Both sides of the symbol parity suite execute this same code: a case is a piece of Python
(``symbol_cases.CASES``) run with ``mx`` bound to ``mxnet`` (the oracle) or ``gluonedu``
(the tests), under a fresh NameManager so that automatic names agree. A case stores what
it wants compared in ``out[name]``: NDArrays and NumPy arrays (compared with a tolerance)
or JSON values (strings, numbers, lists, dicts: compared exactly).

Files written by one side and read by the other go to ``workdir``: a case knows its
``side`` ('mxnet' or 'gluonedu') and the ``other`` one. This module imports neither mxnet
nor gluonedu and runs on NumPy 1.23 (the oracle's) as well as NumPy 2.
"""
import json
import os

import numpy as np

from symbol_cases import PRELUDE

SIDES = ('mxnet', 'gluonedu')
JSON_SUFFIX = '#json'


def _encode(out):
    arrays = {}
    for name, value in out.items():
        if hasattr(value, 'asnumpy'):
            arrays[name] = value.asnumpy()
        elif isinstance(value, np.ndarray):
            arrays[name] = value
        else:
            text = json.dumps(value, sort_keys=True)
            arrays[name + JSON_SUFFIX] = np.frombuffer(text.encode('utf-8'), dtype=np.uint8)
    return arrays


def decode_json(array):
    return json.loads(array.tobytes().decode('utf-8'))


def run_case(mx, case, inputs, workdir, side):
    """``("ok", {name: array})`` or ``("error", type name, message)``."""
    out = {}
    scope = {'mx': mx, 'np': np, 'os': os, 'json': json, 'inputs': inputs, 'out': out,
             'workdir': str(workdir), 'side': side,
             'other': SIDES[1 - SIDES.index(side)]}
    try:
        mx.random.seed(0)
        with mx.name.NameManager():
            exec(PRELUDE + case['code'], scope)  # pylint: disable=exec-used
        return 'ok', _encode(out)
    except Exception as exc:  # the outcome to compare, whatever it is
        lines = [line for line in str(exc).strip().splitlines() if line.strip()]
        return 'error', type(exc).__name__, lines[0] if lines else ''
