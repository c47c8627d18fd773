"""MXNet 1.9.1's public names, per namespace, as parity results (run by the reference
interpreter)::

    oracle_main.py oracle_api_names.py NAMES_SCRIPT NAMESPACE...

NAMES_SCRIPT is scripts/mxnet_api_names.py (``api_coverage.NAMES_SCRIPT``), the lister
``make api-coverage`` runs too; its listing is saved under ``names`` (JSON text).
"""
import json
import runpy
import sys

import numpy as np

import oracle_io

NAMES_FILE = 'names.json'

if __name__ == '__main__':
    if len(sys.argv) < 2:
        sys.exit('usage: oracle_main.py oracle_api_names.py NAMES_SCRIPT NAMESPACE...')
    runpy.run_path(sys.argv[1])['main'](['--out', NAMES_FILE] + sys.argv[2:])
    with open(NAMES_FILE) as f:
        listed = json.load(f)
    oracle_io.save_results({'names': np.array(json.dumps(listed['names']))})
