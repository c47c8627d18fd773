"""MXNet 1.9.1's own declaration of operators, as its registry prints them.

Run by the reference interpreter (never importing gluonedu): ``oracle_main.py
oracle_registry_mxnet.py``; its cases are names (operator names and aliases). Its result
``registry`` (JSON text) maps each name to ``{"name": the operator's real name, "args":
[[arg name, type text], ...], "key_var_num_args": ...}`` — the text MXNet's generated
``mx.nd`` docs are built from ("int, required", "Shape or None, optional, default=None",
"NDArray-or-Symbol[]", ...) — or ``null`` when MXNet has no such operator.
"""
import ctypes
import json

import numpy as np

import mxnet as mx  # noqa: F401  (loads the library and its operators)
from mxnet.base import _LIB, OpHandle, c_str, mx_uint, py_str

import oracle_io


def describe(name):
    handle = OpHandle()
    if _LIB.NNGetOpHandle(c_str(name), ctypes.byref(handle)) != 0 or not handle.value:
        return None
    real_name, desc, num_args = ctypes.c_char_p(), ctypes.c_char_p(), mx_uint()
    names, types, descs = (ctypes.POINTER(ctypes.c_char_p)() for _ in range(3))
    key_var_num_args, ret_type = ctypes.c_char_p(), ctypes.c_char_p()
    if _LIB.MXSymbolGetAtomicSymbolInfo(
            handle, ctypes.byref(real_name), ctypes.byref(desc), ctypes.byref(num_args),
            ctypes.byref(names), ctypes.byref(types), ctypes.byref(descs),
            ctypes.byref(key_var_num_args), ctypes.byref(ret_type)) != 0:
        return None
    return {'name': py_str(real_name.value),
            'args': [[py_str(names[i]), py_str(types[i])] for i in range(num_args.value)],
            'key_var_num_args': py_str(key_var_num_args.value or b'')}


if __name__ == '__main__':
    registry = {name: describe(name) for name in oracle_io.load_cases()}
    oracle_io.save_results({'registry': np.array(json.dumps(registry))})
