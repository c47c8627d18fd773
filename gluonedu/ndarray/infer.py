"""Shape and dtype rules of the operator table, for symbols (``Symbol.infer_shape``).

A symbol knows no values, only how outputs follow from inputs; ``infer_shape`` walks its
graph and asks each operator's rule (``Op(..., infer_shape=rule)``) what it can tell::

    rule(in_shapes, out_shapes, params) -> (in_shapes, out_shapes)

A shape is a tuple of sizes in which 0 marks a size not known yet (MXNet 1.x's
convention), or None where nothing is known, not even the number of axes. A rule returns
what it learned — the outputs from the inputs, and sometimes inputs from the others
(FullyConnected's ``weight`` from ``data``) — and raises MXNetError on a contradiction;
the graph walk merges the answers and reports where they disagree.

Most operators share a few rules: :func:`same_shape` (element-wise arithmetic: every
input and output has one shape), :func:`like_first` (the output is shaped as the first
input), :func:`broadcast`, :func:`reduce`. A rule that only computes outputs once every
input is known is written as ``f(in_shapes, params) -> out_shapes`` and wrapped with
:func:`forward_rule`.

Dtype rules have the same form over NumPy dtypes (``infer_type``); without one, the
inputs share one dtype and the outputs have it (or the operator's ``dtype`` parameter).
"""
import numpy as np

from ..base import MXNetError

__all__ = ['is_known', 'merge', 'forward_rule', 'same_shape', 'like_first', 'broadcast',
           'reduce', 'arg_reduce', 'from_shape_param', 'fixed_dtype', 'dtype_param']


def is_known(shape):
    """Whether every size of ``shape`` is known (no None, no 0)."""
    return shape is not None and all(n > 0 for n in shape)


def merge(a, b):
    """The shape agreeing with both ``a`` and ``b`` (0 and None are unknown); MXNetError if
    they contradict each other."""
    if a is None:
        return b
    if b is None:
        return a
    if len(a) != len(b) or any(x != y and x and y for x, y in zip(a, b)):
        raise MXNetError('shapes %s and %s do not agree' % (a, b))
    return tuple(x or y for x, y in zip(a, b))


def forward_rule(compute):
    """A rule from ``compute(in_shapes, params) -> out_shapes``, called once every input's
    shape is known."""
    def rule(in_shapes, out_shapes, params):
        if all(is_known(s) for s in in_shapes):
            return in_shapes, list(compute(in_shapes, params))
        return in_shapes, out_shapes
    rule.__doc__ = compute.__doc__
    return rule


def same_shape(in_shapes, out_shapes, params):
    """Every input and output has one shape (element-wise arithmetic, copies)."""
    shape = None
    for s in list(in_shapes) + list(out_shapes):
        shape = merge(shape, s)
    return [shape] * len(in_shapes), [shape] * len(out_shapes)


def like_first(in_shapes, out_shapes, params):
    """Every output has the first input's shape (softmax, Dropout, sort, ...)."""
    shape = merge(in_shapes[0], out_shapes[0])
    for s in out_shapes[1:]:
        shape = merge(shape, s)
    return [shape] + list(in_shapes[1:]), [shape] * len(out_shapes)


@forward_rule
def broadcast(in_shapes, params):
    """NumPy's broadcasting of two shapes (aligned from the right, size 1 stretches)."""
    lhs, rhs = in_shapes
    ndim = max(len(lhs), len(rhs))
    lhs, rhs = (1,) * (ndim - len(lhs)) + lhs, (1,) * (ndim - len(rhs)) + rhs
    if any(a != b and a != 1 and b != 1 for a, b in zip(lhs, rhs)):
        raise MXNetError('operands of shapes %s and %s cannot be broadcast together'
                         % (in_shapes[0], in_shapes[1]))
    return [tuple(max(a, b) if a != 1 and b != 1 else a * b for a, b in zip(lhs, rhs))]


def _axes(axis, ndim):
    """``axis`` (None, an int or a tuple, possibly negative) as a set of axes of ``ndim``."""
    if axis is None:
        return set(range(ndim))
    axes = (axis,) if isinstance(axis, int) else axis
    result = set()
    for a in axes:
        if not -ndim <= a < ndim:
            raise MXNetError('axis %d is out of range for %d dimensions' % (a, ndim))
        result.add(a % ndim)
    return result


@forward_rule
def reduce(in_shapes, params):
    """sum, mean, max, norm ... over ``axis`` (None or (): all; ``exclude``: all others),
    ``keepdims``."""
    shape = in_shapes[0]
    axes = _axes(params['axis'] or None, len(shape))
    if params['axis'] and params.get('exclude'):
        axes = set(range(len(shape))) - axes
    if params['keepdims']:
        return [tuple(1 if i in axes else n for i, n in enumerate(shape))]
    kept = tuple(n for i, n in enumerate(shape) if i not in axes)
    return [kept or (1,)]


@forward_rule
def arg_reduce(in_shapes, params):
    """argmax/argmin: one axis removed (kept as 1 with ``keepdims``), or all if None."""
    shape = in_shapes[0]
    if params['axis'] is None:
        return [(1,) * len(shape) if params['keepdims'] else (1,)]
    axis = params['axis'] % len(shape)
    if params['keepdims']:
        return [shape[:axis] + (1,) + shape[axis + 1:]]
    return [shape[:axis] + shape[axis + 1:] or (1,)]


def from_shape_param(in_shapes, out_shapes, params):
    """Creation and sampling: the output has the ``shape`` parameter's shape."""
    shape = params['shape']
    return in_shapes, [merge(out_shapes[0], tuple(shape) if shape else None)]


def fixed_dtype(name):
    """A dtype rule: the outputs have dtype ``name`` whatever the inputs."""
    dtype = np.dtype(name)

    def rule(in_types, out_types, params):
        return in_types, [dtype] * len(out_types)
    return rule


def dtype_param(default):
    """A dtype rule: the outputs have the ``dtype`` parameter's dtype; its ``'None'`` means
    ``default`` (a dtype name), or the first input's dtype if ``default`` is None."""
    def rule(in_types, out_types, params):
        name = params['dtype']
        if name not in (None, 'None'):
            dtype = np.dtype(name)
        else:
            dtype = np.dtype(default) if default else (in_types[0] if in_types else None)
        return in_types, [dtype] * len(out_types)
    return rule
