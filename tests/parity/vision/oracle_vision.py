"""The MXNet 1.9.1 side of the vision transforms parity suite (run by the reference
interpreter: ``oracle_main.py oracle_vision.py``).

Runs every case of :mod:`vision_parity_driver` with the real ``mxnet`` — the fixed-factor
colour cases through MXNet's ``nd.image`` operators with equal low and high factors —
and saves the results with :mod:`oracle_io`.
"""
import functools

import mxnet as mx

import oracle_io
import vision_parity_driver as driver


def adjust(kind, image, alpha):
    """A colour adjustment by exactly ``alpha``, with MXNet's operators."""
    x = mx.nd.array(image, dtype=image.dtype)
    if kind == 'lighting':
        return mx.nd.image.adjust_lighting(x, alpha=tuple(alpha)).asnumpy()
    return getattr(mx.nd.image, 'random_' + kind)(x, alpha, alpha).asnumpy()


if __name__ == '__main__':
    runs = [(case['id'], functools.partial(driver.run_transform_case, mx, case))
            for case in driver.transform_cases()]
    runs += [(case['id'], functools.partial(driver.run_colour_case, adjust, case))
             for case in driver.colour_cases()]
    runs += [(case['id'], functools.partial(driver.run_distribution_case, mx, case))
             for case in driver.distribution_cases()]
    oracle_io.save_results(*oracle_io.run_each(runs))
