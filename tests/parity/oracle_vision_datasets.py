"""The MXNet 1.9.1 side of the vision datasets parity suite (run by the reference interpreter).

    oracle_vision_datasets.py DATA_ROOT RESULTS.npz

Reads every dataset of :mod:`datasets_parity_driver` from the test-written files in
DATA_ROOT with the real ``mxnet``. MXNet fetches its files with ``download``, which
re-downloads any file whose SHA-1 sum is not its own copy's; here ``download`` returns
the local path and the sum check passes, so MXNet reads the files it is given.
"""
import functools
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import datasets_parity_driver as driver  # noqa: E402  (this directory, not a package)
from oracle_runner import run_and_save  # noqa: E402

import mxnet as mx  # noqa: E402
from mxnet.gluon.data.vision import datasets as mx_datasets  # noqa: E402


def _local_file(url, path=None, overwrite=False, sha1_hash=None, retries=5, verify_ssl=True):
    return os.path.join(path, url.split('/')[-1])


if __name__ == '__main__':
    if len(sys.argv) != 3:
        sys.exit('usage: oracle_vision_datasets.py DATA_ROOT RESULTS.npz')
    mx_datasets.download = _local_file
    mx_datasets.check_sha1 = lambda filename, sha1_hash: True
    run_and_save([(case_id, functools.partial(driver.read_dataset, mx, case_id, sys.argv[1]))
                  for case_id in sorted(driver.DATASETS)] +
                 [(case_id, functools.partial(driver.read_damaged, mx, case_id, sys.argv[1]))
                  for case_id in sorted(driver.DAMAGED)], sys.argv[2], mx.__version__)
