"""The MXNet 1.9.1 side of the vision datasets parity suite (run by the reference
interpreter)::

    oracle_main.py oracle_vision_datasets.py DATA_ROOT

Reads every dataset of :mod:`datasets_parity_driver` from the test-written files in
DATA_ROOT with the real ``mxnet``. MXNet fetches its files with ``download``, which
re-downloads any file whose SHA-1 sum is not its own copy's; here ``download`` returns
the local path and the sum check passes, so MXNet reads the files it is given.
"""
import functools
import os
import sys

import mxnet as mx
from mxnet.gluon.data.vision import datasets as mx_datasets

import datasets_parity_driver as driver
import oracle_io


def _local_file(url, path=None, overwrite=False, sha1_hash=None, retries=5, verify_ssl=True):
    return os.path.join(path, url.split('/')[-1])


if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.exit('usage: oracle_main.py oracle_vision_datasets.py DATA_ROOT')
    mx_datasets.download = _local_file
    mx_datasets.check_sha1 = lambda filename, sha1_hash: True
    root = sys.argv[1]
    oracle_io.save_results(*oracle_io.run_each(
        [(case_id, functools.partial(driver.read_dataset, mx, case_id, root))
         for case_id in sorted(driver.DATASETS)] +
        [(case_id, functools.partial(driver.read_damaged, mx, case_id, root))
         for case_id in sorted(driver.DAMAGED)]))
