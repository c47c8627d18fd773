"""What the two sides of a parity suite hand each other, in one format.

The MXNet side of a suite (its oracle script, started by :mod:`oracle_main` on the
oracle's interpreter) runs in the suite's working directory. It reads the suite's cases
from ``cases.json`` and its inputs from ``inputs.npz`` there, when the suite has any
(:func:`load_cases`, :func:`load_inputs`), and writes ``results.npz``
(:func:`save_results`): arrays by name (``"<case id>|<name>"`` where the results are per
case) and a meta holding the MXNet version and, for each case that raised, its error.
The test side reads it back with :func:`load_results` (through ``harness.run_oracle``).

Plain Python and NumPy: this runs in the oracle's interpreter (NumPy 1.23) as well as
in the project's (NumPy 2), and imports neither mxnet nor gluonedu at module level.
"""
import json
import traceback

import numpy as np

CASES_FILE = 'cases.json'
INPUTS_FILE = 'inputs.npz'
RESULTS_FILE = 'results.npz'
_META = '__meta__'


def save_arrays(path, arrays):
    """Save ``{name: array}`` to ``path`` as ONE byte buffer plus a JSON index.

    Thousands of small arrays as separate npz members cost ~1 ms each to read back
    (a zip member and a header parse each); one buffer reads in microseconds.
    """
    index, chunks, offset = {}, [], 0
    for name, array in arrays.items():
        array = np.asarray(array)  # (np.ascontiguousarray makes 0-d arrays 1-d in NumPy 1.x)
        index[name] = [offset, list(array.shape), array.dtype.str]
        chunks.append(array.tobytes(order='C'))
        offset += array.nbytes
    blob = np.frombuffer(b''.join(chunks), dtype=np.uint8)
    np.savez(path, blob=blob, index=np.array(json.dumps(index)))


def load_arrays(path):
    """The ``{name: array}`` that :func:`save_arrays` wrote, in the order it wrote them."""
    with np.load(path) as data:
        blob, index = data['blob'].tobytes(), json.loads(str(data['index']))
    out = {}
    for name, (offset, shape, dtype) in index.items():
        dtype = np.dtype(dtype)
        count = int(np.prod(shape)) if shape else 1
        out[name] = np.frombuffer(blob, dtype=dtype, count=count,
                                  offset=offset).reshape(shape).copy()
    return out


def load_cases():
    """The suite's cases, as the test side wrote them (JSON)."""
    with open(CASES_FILE) as f:
        return json.load(f)


def load_inputs():
    """The suite's input arrays, by name."""
    return load_arrays(INPUTS_FILE)


def run_each(runs):
    """``(arrays, errors)`` of ``runs``, pairs ``(case id, function returning {name:
    array})``: each case's arrays under ``"<case id>|<name>"``; a case that raises has its
    error recorded (the test side reports it) and never stops the others."""
    arrays, errors = {}, {}
    for case_id, run in runs:
        try:
            out = run()
        except Exception as exc:  # recorded per case
            errors[case_id] = _error_record(exc)
            continue
        for name, array in out.items():
            arrays['%s|%s' % (case_id, name)] = array
    return arrays, errors


def _error_record(exc):
    """What the test side shows of an exception MXNet raised on a case."""
    return {'type': type(exc).__name__, 'message': str(exc)[-2000:],
            'traceback': traceback.format_exc(limit=6)}


def save_results(arrays, errors=None, **meta):
    """Write ``results.npz``: ``arrays`` and the meta (``meta``, the MXNet version and
    ``errors``, by case id). Called on the oracle's side, where mxnet is imported."""
    import mxnet
    meta = dict(meta, mxnet_version=mxnet.__version__, errors=errors or {})
    arrays = dict(arrays)
    arrays[_META] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    save_arrays(RESULTS_FILE, arrays)


def load_results(path):
    """``(arrays by name, meta)`` that :func:`save_results` wrote to ``path``."""
    arrays = load_arrays(path)
    meta = json.loads(arrays.pop(_META).tobytes().decode())
    return arrays, meta
