"""Operator parity cases: every binary operation of ``mx.nd`` with a number on either side
(issue 31).

Each of MXNet's Python-level helpers (``nd.add`` ... ``nd.logical_xor``) and each Python
operator of NDArray (``+`` ... ``>=``) is called with the array on the left and the number
on the right, the number on the left (``nd.greater(2, x)`` is ``x < 2``, not ``x > 2``),
a bool on the left, a float beside an integer array, and with two numbers (NaN among them:
``nd.maximum(2, nan)`` is MXNet's ``2 if 2 > nan else nan``). MXNet 1.9.1 answers them all.

:func:`extended` adds the cases and their inputs to :mod:`ops_cases`. Like
:mod:`ops_cases`, this module imports neither mxnet nor gluonedu.
"""
import numpy as np

#: MXNet's Python-level binary helpers of ``mx.nd``.
HELPERS = ('add', 'subtract', 'multiply', 'divide', 'true_divide', 'modulo', 'power',
           'maximum', 'minimum', 'equal', 'not_equal', 'greater', 'greater_equal', 'lesser',
           'lesser_equal', 'logical_and', 'logical_or', 'logical_xor')
#: The helpers that have a gradient (the others give 0/1).
DIFFERENTIABLE = ('add', 'subtract', 'multiply', 'divide', 'true_divide', 'modulo', 'power',
                  'maximum', 'minimum')
#: ``ops_driver.OPERATORS`` of two operands, but indexing.
OPERATORS = ('add', 'sub', 'mul', 'truediv', 'mod', 'pow', 'eq', 'ne', 'lt', 'le', 'gt',
             'ge')
NAN = {'float': 'nan'}


def scalar_inputs():
    return {
        'sc_x': np.array([[-3, 1, 4], [2, 0.5, -0.25]], dtype=np.float32),
        'sc_nan': np.array([np.nan, -1, 2, np.inf], dtype=np.float32),
        'sc_i': np.array([-3, 1, 4, 2], dtype=np.int32),
    }


def _call(case_id, call, args, grad=()):
    return {'id': case_id, 'call': call, 'args': args, 'kwargs': {}, 'grad': list(grad),
            'compare': 'values'}


def _operator(case_id, name, args, grad=()):
    return {'id': case_id, 'operator': name, 'args': args, 'grad': list(grad),
            'compare': 'values'}


def scalar_cases():
    x, x_nan, i = {'nd': 'sc_x'}, {'nd': 'sc_nan'}, {'nd': 'sc_i'}
    cases = []
    for name in HELPERS:
        grad = name in DIFFERENTIABLE
        cases += [
            _call('scalars/%s/array-left' % name, name, [x, 2], grad=(0,) if grad else ()),
            _call('scalars/%s/array-right' % name, name, [2, x], grad=(1,) if grad else ()),
            _call('scalars/%s/nan-array-right' % name, name, [0.5, x_nan]),
            _call('scalars/%s/bool-left' % name, name, [True, x]),
            _call('scalars/%s/float-left-of-int32' % name, name, [1.5, i]),
            _call('scalars/%s/two-numbers' % name, name, [2, 3]),
            _call('scalars/%s/number-and-nan' % name, name, [2, NAN]),
            _call('scalars/%s/nan-and-number' % name, name, [NAN, 2]),
        ]
    for name in OPERATORS:
        cases += [
            _operator('scalars/op-%s/array-left' % name, name, [x, 2]),
            _operator('scalars/op-%s/array-right' % name, name, [2, x]),
            _operator('scalars/op-%s/float-left-of-int32' % name, name, [2.5, i]),
        ]
    return cases


def extended(all_cases, make_inputs):
    """``ops_cases``' (all_cases, make_inputs) with this module's cases and inputs added."""
    return (lambda: all_cases() + scalar_cases(),
            lambda: {**make_inputs(), **scalar_inputs()})
