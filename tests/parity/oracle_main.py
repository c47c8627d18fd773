"""Starts the MXNet side of a parity suite on the oracle's interpreter (``harness.run_oracle``
runs it; never the project's Python, and it never imports gluonedu)::

    oracle_main.py SCRIPT [ARG...]

runs ``SCRIPT ARG...`` as ``__main__`` with the script's own folder (its suite's drivers
and cases) and this folder (:mod:`oracle_io`) on ``sys.path``. The script runs in its
suite's working directory and writes its results there with ``oracle_io.save_results``.
"""
import os
import runpy
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

if __name__ == '__main__':
    if len(sys.argv) < 2:
        sys.exit('usage: oracle_main.py SCRIPT [ARG...]')
    script = os.path.abspath(sys.argv[1])
    sys.argv = [script] + sys.argv[2:]
    sys.path[:0] = [os.path.dirname(script), HERE]
    runpy.run_path(script, run_name='__main__')
