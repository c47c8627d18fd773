"""The MXNet 1.9.1 side of the sparse parity suite: run every case once, write the results.

Run by the reference interpreter (``.venv-mxnet/bin/python``), never importing gluonedu:
``oracle_main.py oracle_sparse_mxnet.py``. The results (:mod:`oracle_io`) hold
:func:`sparse_driver.flatten` of the operator and training cases' results; their meta,
every result's storage type and dtype, every case's exception class, and the traceback of
a training case that failed.
"""
import os
import traceback

import mxnet as mx

import oracle_io
import sparse_driver

if __name__ == '__main__':
    arrays, meta = sparse_driver.run_all(mx, oracle_io.load_inputs(), os.getcwd(),
                                         traceback.format_exc)
    oracle_io.save_results(arrays, **meta)
