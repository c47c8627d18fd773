"""The MXNet 1.9.1 side of the vision datasets parity suite (run by the reference interpreter).

    oracle_vision_datasets.py DATA_ROOT RESULTS.npz

Reads every dataset of :mod:`datasets_parity_driver` from the test-written files in
DATA_ROOT with the real ``mxnet``. MXNet fetches its files with ``download``, which
re-downloads any file whose SHA-1 sum is not its own copy's; here ``download`` returns
the local path and the sum check passes, so MXNet reads the files it is given.
"""
import json
import os
import sys
import traceback

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import datasets_parity_driver as driver  # noqa: E402  (this directory, not a package)

import mxnet as mx  # noqa: E402
from mxnet.gluon.data.vision import datasets as mx_datasets  # noqa: E402


def _local_file(url, path=None, overwrite=False, sha1_hash=None, retries=5, verify_ssl=True):
    return os.path.join(path, url.split('/')[-1])


def main(data_root, results_path):
    mx_datasets.download = _local_file
    mx_datasets.check_sha1 = lambda filename, sha1_hash: True
    results, errors = {}, {}
    for case_id in sorted(driver.DATASETS):
        try:
            out = driver.read_dataset(mx, case_id, data_root)
        except Exception as exc:  # recorded per case; the test side reports it
            errors[case_id] = {'type': type(exc).__name__, 'message': str(exc)[-2000:],
                               'traceback': traceback.format_exc(limit=4)}
            continue
        for name, array in out.items():
            results['%s|%s' % (case_id, name)] = array
    meta = {'mxnet_version': mx.__version__, 'errors': errors}
    results['__meta__'] = np.array(json.dumps(meta))
    np.savez(results_path, **results)


if __name__ == '__main__':
    if len(sys.argv) != 3:
        sys.exit('usage: oracle_vision_datasets.py DATA_ROOT RESULTS.npz')
    main(*sys.argv[1:])
