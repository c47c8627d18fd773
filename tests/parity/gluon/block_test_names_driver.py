"""Names MXNet 1.9.1's own Block tests import, MXNet 1.9.1 vs gluonedu.

``base.py_str`` (an operator hook's names arrive as UTF-8 bytes), ``util.is_np_array`` (off:
the NDArray path) and the storage-type ids of ``ndarray.ndarray`` (what a sparse Parameter's
symbol records as ``__storage_type__``). Both sides run :func:`run` (it imports neither
package). As a script, on the oracle's interpreter: ``oracle_main.py block_test_names_driver.py``
writes MXNet's outcomes.
"""
import importlib
import json

import numpy as np

CASES = ('py_str-ascii', 'py_str-utf8', 'py_str-of-str', 'is_np_array',
         'storage_type_ids', 'row_sparse_var_attr', 'split_data')


def _module(mx, name):
    return importlib.import_module('%s.%s' % (mx.__name__, name))


def _outcome(compute):
    try:
        return {'value': compute()}
    except Exception as exc:  # an outcome compared like the others
        return {'error': type(exc).__name__}


def run(mx, case):
    """The outcome of one case: ``{'value': ...}`` or ``{'error': exception type name}``."""
    py_str = _module(mx, 'base').py_str
    ndarray_module = _module(mx, 'ndarray.ndarray')
    if case == 'py_str-ascii':
        return _outcome(lambda: py_str(b'dense0_fwd_output'))
    if case == 'py_str-utf8':
        return _outcome(lambda: py_str('poids_é'.encode('utf-8')))
    if case == 'py_str-of-str':
        return _outcome(lambda: py_str('already text'))
    if case == 'is_np_array':
        return _outcome(lambda: _module(mx, 'util').is_np_array())
    if case == 'storage_type_ids':
        return _outcome(lambda: [
            sorted(ndarray_module._STORAGE_TYPE_STR_TO_ID.items()),
            sorted(ndarray_module._STORAGE_TYPE_ID_TO_STR.items())])
    if case == 'row_sparse_var_attr':
        param = mx.gluon.Parameter('weight', shape=(4, 4), stype='row_sparse',
                                   grad_stype='row_sparse')
        return _outcome(lambda: param.var().attr('__storage_type__')
                        == str(ndarray_module._STORAGE_TYPE_STR_TO_ID['row_sparse']))
    if case == 'split_data':
        x = mx.nd.arange(24).reshape((4, 6))
        return _outcome(lambda: [part.asnumpy().tolist()
                                 for part in mx.gluon.utils.split_data(x, 4, 1, even_split=False)])
    raise ValueError('unknown case %r' % case)


if __name__ == '__main__':  # the oracle's side, run by oracle_main.py
    import mxnet

    import oracle_io

    results = {case: np.array(json.dumps(run(mxnet, case))) for case in CASES}
    oracle_io.save_results(results)
