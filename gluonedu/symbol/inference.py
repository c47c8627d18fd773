"""Shape and dtype inference over a symbol's graph (``infer_shape``, ``infer_type``).

Every output of every node gets a shape (a tuple, 0 marking an unknown size, or None) —
first from the shapes given by the caller and the variables' ``__shape__`` hints, then
from the operators' rules (:mod:`gluonedu.ndarray.infer`), sweeping forward and back
through the graph until nothing more is learned. Where two sources disagree, MXNetError
names the operator and both shapes.

An operator without a shape rule is run on zeros of its input shapes, once they are all
known and small enough (:data:`TRIAL_SIZE` elements): what it returns are the output
shapes. Dtypes work the same way with the operators' dtype rules; an operator without one
gives its outputs its inputs' common dtype (or its ``dtype`` parameter).
"""
import warnings

import numpy as np

from .. import autograd
from ..base import MXNetError, DTYPE_FROM_MX
from ..context import cpu
from ..util import is_np_shape
from .. import ndarray as nd
from ..ndarray import infer as rules
from ..ndarray.registry import Shape, numpy_dtype
from .graph import mutated_variables, topological

__all__ = ['infer_shape', 'infer_type', 'output_shapes', 'TRIAL_SIZE']

#: The most input elements an operator without a shape rule is tried on.
TRIAL_SIZE = 2 ** 22
_MAX_SWEEPS = 8


class _Graph:
    """A symbol's nodes with a slot of knowledge per output."""

    def __init__(self, symbol):
        self.order = topological(symbol._entries)
        self.heads = symbol._entries
        mutated = mutated_variables(self.order)
        self.variables = [n for n in self.order if n.op is None]
        self.args = [n for n in self.variables if id(n) not in mutated]
        self.aux = [n for n in self.variables if id(n) in mutated]
        self.known = {}  # (id(node), index) -> shape or dtype

    def get(self, entry):
        return self.known.get((id(entry[0]), entry[1]))

    def given(self, symbol, args, kwargs, what):
        """``{variable name: value}`` from positional (argument order) or keyword values."""
        names = [n.name for n in self.args]
        if args and kwargs:
            raise MXNetError('infer_%s: give the %ss by position or by name, not both'
                             % (what, what))
        if args:
            if len(args) > len(names):
                raise MXNetError('infer_%s: %d %ss given for %d arguments (%s)'
                                 % (what, len(args), what, len(names), ', '.join(names)))
            return {name: value for name, value in zip(names, args) if value is not None}
        inputs = [n.name for n in self.variables]
        for key in kwargs:
            if key not in inputs:
                raise MXNetError('Infer%sKeyword argument name %s not found.\nCandidate '
                                 'arguments:\n%s' % (what.capitalize(), key, ''.join(
                                     '\t[%d]%s\n' % (i, n) for i, n in enumerate(inputs))))
        return {k: v for k, v in kwargs.items() if v is not None}

    def learn(self, entry, value, combine, node):
        """Merge ``value`` into what is known of ``entry``; True if that changed it."""
        key = (id(entry[0]), entry[1])
        old = self.known.get(key)
        try:
            new = combine(old, value)
        except MXNetError:
            raise MXNetError('Error in operator %s: inconsistent %s: provided %s, inferred %s'
                             % (node.name, 'shape' if combine is _merge_shape else 'dtype',
                                _show(old), _show(value))) from None
        if old is None or new != old:  # (NumPy reads None as float64: test None first)
            self.known[key] = new
            return True
        return False

    def sweep(self, step, combine):
        """Apply ``step(node, ins, outs)`` to every operator node, forward then backward,
        until nothing changes."""
        ops = [n for n in self.order if n.op is not None]
        for _ in range(_MAX_SWEEPS):
            changed = False
            for node in ops + ops[::-1]:
                ins = [self.get(e) for e in node.inputs]
                outs = [self.get((node, i)) for i in range(node.num_outputs())]
                try:
                    new_ins, new_outs = step(node, ins, outs)
                except MXNetError as err:
                    if str(err).startswith('Error in operator'):
                        raise
                    raise MXNetError('Error in operator %s: %s' % (node.name, err)) from None
                for entry, value in zip(node.inputs, new_ins):
                    changed |= value is not None and self.learn(entry, value, combine, node)
                for i, value in enumerate(new_outs):
                    changed |= value is not None and self.learn((node, i), value, combine,
                                                                node)
            if not changed:
                return

    def results(self, converter):
        def of(nodes):
            return [converter(self.known.get((id(n), 0))) for n in nodes]
        return (of(self.args), [converter(self.get(e)) for e in self.heads], of(self.aux))


def _show(value):
    if isinstance(value, np.dtype):
        return value.name
    return '()' if value is None else str(tuple(value))


# ---------------------------------------------------------------------- shapes
def _merge_shape(old, new):
    return rules.merge(old, tuple(new))


def _shape_hint(node):
    text = node.attrs.get('__shape__')
    if text is None:
        return None
    try:
        shape = Shape('__shape__').parse(text)
    except Exception:  # pylint: disable=broad-except
        raise MXNetError('variable %s has an invalid __shape__ attribute %r'
                         % (node.name, text)) from None
    if is_np_shape():  # -1 marks an unknown size there (a Parameter's var); here 0 does
        shape = tuple(0 if n == -1 else n for n in shape)
    if any(n < 0 for n in shape):
        raise MXNetError('variable %s has a negative size in its __shape__ %r'
                         % (node.name, text))
    return shape or None


def _check_given_shape(name, shape):
    try:
        shape = tuple(int(n) for n in shape)
    except (TypeError, ValueError):
        raise MXNetError('infer_shape: the shape of %s must be a tuple of ints, got %r'
                         % (name, shape)) from None
    if any(n < 0 for n in shape):
        raise MXNetError('infer_shape: the shape %s of %s has a negative size' % (shape, name))
    return shape


def _shape_step(node, ins, outs):
    rule = node.op.infer_shape
    if rule is not None:
        return rule(ins, outs, node.params)
    if ins and all(rules.is_known(s) for s in ins) and not all(rules.is_known(s) for s in outs):
        return ins, _trial_shapes(node, ins)
    return ins, outs


def _trial_shapes(node, shapes):
    """The output shapes of an operator without a shape rule, found by running it."""
    size = sum(int(np.prod(s)) for s in shapes)
    if size > TRIAL_SIZE:
        raise MXNetError('%s has no shape rule and its inputs %s are too large to try it on; '
                         'infer with smaller inputs' % (node.op.name, shapes))
    with autograd.pause():
        arrays = [nd.zeros(s, ctx=cpu()) for s in shapes]
        result = node.op.run(arrays, node.params)
    results = result if isinstance(result, list) else [result]
    return [r.shape for r in results]


def infer_shape(symbol, args, kwargs, partial):
    """``(arg_shapes, out_shapes, aux_shapes)`` of ``symbol``; see Symbol.infer_shape."""
    graph = _Graph(symbol)
    given = graph.given(symbol, args, kwargs, 'shape')
    for node in graph.variables:
        shape = given.get(node.name)
        shape = _check_given_shape(node.name, shape) if shape is not None else _shape_hint(node)
        if shape is not None:
            graph.known[(id(node), 0)] = shape
    try:
        graph.sweep(_shape_step, _merge_shape)
    except MXNetError as err:
        raise MXNetError('infer_shape error. Arguments:\n%s\n%s' % (''.join(
            '  %s: %s\n' % kv for kv in given.items()), err)) from None
    if partial:
        return graph.results(lambda s: () if s is None else tuple(s))
    unknown = [n for n in graph.args + graph.aux
               if not rules.is_known(graph.known.get((id(n), 0)))]
    unknown_out = [e for e in graph.heads if not rules.is_known(graph.get(e))]
    if unknown or unknown_out:
        warnings.warn('Cannot decide shape for the following arguments (0s in shape means '
                      'unknown dimensions). Consider providing them as input:\n%s' % ''.join(
                          '\t%s: %s\n' % (n.name, _show(graph.known.get((id(n), 0))))
                          for n in unknown).rstrip('\n'), stacklevel=3)
        return None, None, None
    return graph.results(tuple)


def output_shapes(symbol, shapes):
    """``{(id(node), output index): shape}`` of every output of ``symbol``'s graph that the
    variables' ``shapes`` (name -> shape) and ``__shape__`` hints decide (0: unknown)."""
    graph = _Graph(symbol)
    for node in graph.variables:
        shape = shapes.get(node.name)
        shape = tuple(shape) if shape is not None else _shape_hint(node)
        if shape is not None:
            graph.known[(id(node), 0)] = shape
    graph.sweep(_shape_step, _merge_shape)
    return graph.known


# ---------------------------------------------------------------------- dtypes
def _merge_dtype(old, new):
    new = np.dtype(new)
    if old is not None and old != new:
        raise MXNetError('dtypes %s and %s do not agree' % (old, new))
    return new


def _dtype_hint(node):
    text = node.attrs.get('__dtype__')
    if text is None:
        return None
    try:
        return DTYPE_FROM_MX[int(text)]
    except (KeyError, ValueError):
        raise MXNetError('variable %s has an invalid __dtype__ attribute %r (MXNet\'s type '
                         'codes are 0-11)' % (node.name, text)) from None


def _default_types(node, ins, outs):
    """Inputs of one dtype (where the operator asks for it), outputs of that dtype or of the
    ``dtype`` parameter."""
    op, params = node.op, node.params
    names = op.list_inputs(params)
    shared = [i for i, name in enumerate(names)
              if op.same_dtype is True or (op.same_dtype and name in op.same_dtype)]
    common = next((ins[i] for i in shared if ins[i] is not None), None)
    ins = [common if i in shared and common is not None else t for i, t in enumerate(ins)]
    dtype = params.get('dtype')
    if dtype is not None and dtype != 'None':
        out = numpy_dtype(dtype)
    else:
        out = ins[0] if ins else None
    return ins, [out if t is None else t for t in outs]


def _type_step(node, ins, outs):
    rule = node.op.infer_type
    if rule is None:
        return _default_types(node, ins, outs)
    return rule(ins, outs, node.params)


def infer_type(symbol, args, kwargs, partial):
    """``(arg_types, out_types, aux_types)`` of ``symbol``; see Symbol.infer_type."""
    graph = _Graph(symbol)
    given = graph.given(symbol, args, kwargs, 'type')
    for node in graph.variables:
        dtype = given.get(node.name)
        dtype = np.dtype(dtype) if dtype is not None else _dtype_hint(node)
        if dtype is not None:
            graph.known[(id(node), 0)] = dtype
    graph.sweep(_type_step, _merge_dtype)

    def as_type(dtype):
        return None if dtype is None else dtype.type
    if partial:
        return graph.results(as_type)
    unknown = [n for n in graph.args + graph.aux if graph.known.get((id(n), 0)) is None]
    if unknown or any(graph.get(e) is None for e in graph.heads):
        warnings.warn('Cannot decide type for the following arguments. Consider providing '
                      'them as input:\n%s' % ''.join(
                          '\t%s: None\n' % n.name for n in unknown).rstrip('\n'),
                      stacklevel=3)
        return None, None, None
    return graph.results(as_type)
