"""The parity suites: the same cases on MXNet 1.9.1 (the oracle) and on gluonedu.

One folder per part of gluonedu (optimizer/, trainer/, kvstore/, ndarray/, gluon/, ...)
holds its suites: each test file, its cases and drivers (code both sides run), and its
oracle script (the MXNet side). Every suite runs its MXNet side once through
:func:`harness.run_oracle`; this folder holds that harness: harness.py on the test side,
oracle_main.py and oracle_io.py (the one format both sides exchange) on the oracle's.
"""
import sys
from pathlib import Path

# The harness, importable by every suite's tests (the oracle's side gets it from oracle_main.py).
sys.path.insert(0, str(Path(__file__).resolve().parent))
