"""The MXNet 1.9.1 side of the vision transforms parity suite (run by the reference interpreter).

    oracle_vision.py RESULTS.npz

Runs every case of :mod:`vision_parity_driver` with the real ``mxnet`` — the fixed-factor
colour cases through MXNet's ``nd.image`` operators with equal low and high factors —
and writes ``"<case id>|<name>"`` arrays plus ``__meta__`` (JSON: the MXNet version and
the error of every case that raised unexpectedly).
"""
import json
import os
import sys
import traceback

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vision_parity_driver as driver  # noqa: E402  (this directory, not an installed package)

import mxnet as mx  # noqa: E402


def adjust(kind, image, alpha):
    """A colour adjustment by exactly ``alpha``, with MXNet's operators."""
    x = mx.nd.array(image, dtype=image.dtype)
    if kind == 'lighting':
        return mx.nd.image.adjust_lighting(x, alpha=tuple(alpha)).asnumpy()
    return getattr(mx.nd.image, 'random_' + kind)(x, alpha, alpha).asnumpy()


def main(results_path):
    results, errors = {}, {}
    runs = [(case, lambda c: driver.run_transform_case(mx, c))
            for case in driver.transform_cases()]
    runs += [(case, lambda c: driver.run_colour_case(adjust, c)) for case in driver.colour_cases()]
    runs += [(case, lambda c: driver.run_distribution_case(mx, c))
             for case in driver.distribution_cases()]
    for case, run in runs:
        try:
            out = run(case)
        except Exception as exc:  # recorded per case; the test side reports it
            errors[case['id']] = {'type': type(exc).__name__, 'message': str(exc)[-2000:],
                                  'traceback': traceback.format_exc(limit=4)}
            continue
        for name, array in out.items():
            results['%s|%s' % (case['id'], name)] = array
    meta = {'mxnet_version': mx.__version__, 'errors': errors}
    results['__meta__'] = np.array(json.dumps(meta))
    np.savez(results_path, **results)


if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.exit('usage: oracle_vision.py RESULTS.npz')
    main(sys.argv[1])
