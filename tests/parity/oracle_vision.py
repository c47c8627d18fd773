"""The MXNet 1.9.1 side of the vision transforms parity suite (run by the reference interpreter).

    oracle_vision.py RESULTS.npz

Runs every case of :mod:`vision_parity_driver` with the real ``mxnet`` — the fixed-factor
colour cases through MXNet's ``nd.image`` operators with equal low and high factors —
and saves the results with :func:`oracle_runner.run_and_save`.
"""
import functools
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vision_parity_driver as driver  # noqa: E402  (this directory, not an installed package)
from oracle_runner import run_and_save  # noqa: E402

import mxnet as mx  # noqa: E402


def adjust(kind, image, alpha):
    """A colour adjustment by exactly ``alpha``, with MXNet's operators."""
    x = mx.nd.array(image, dtype=image.dtype)
    if kind == 'lighting':
        return mx.nd.image.adjust_lighting(x, alpha=tuple(alpha)).asnumpy()
    return getattr(mx.nd.image, 'random_' + kind)(x, alpha, alpha).asnumpy()


if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.exit('usage: oracle_vision.py RESULTS.npz')
    runs = [(case['id'], functools.partial(driver.run_transform_case, mx, case))
            for case in driver.transform_cases()]
    runs += [(case['id'], functools.partial(driver.run_colour_case, adjust, case))
             for case in driver.colour_cases()]
    runs += [(case['id'], functools.partial(driver.run_distribution_case, mx, case))
             for case in driver.distribution_cases()]
    run_and_save(runs, sys.argv[1], mx.__version__)
