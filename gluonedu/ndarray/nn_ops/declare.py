"""Declaring a layer operator in the operator table (:mod:`gluonedu.ndarray.registry`).

Every operator of :mod:`gluonedu.ndarray.nn_ops` is one :class:`OpDef`::

    POOLING = OpDef('Pooling', inputs=('data',), params=(
        Param('kernel', 'shape', (), 'window size'),
        Param('pool_type', 'enum', 'max', 'what a window computes',
              choices=('avg', 'lp', 'max', 'sum')),
        ...))
    Pooling = POOLING.function(_pooling)

:class:`OpDef` puts the operator in the table, which makes the ``nd`` function and runs
every call's checks (binding, MXNet's parameter parsing, inputs on one context, ``out=``),
as for every other operator. The implementation works on NDArrays: it receives the parsed
values as a named tuple (``params.kernel``) and the input arrays by name, and records its
own gradient.
"""
from collections import namedtuple

from .. import registry
from ..infer import merge
from ..param_types import REQUIRED

__all__ = ['Param', 'OpDef', 'REQUIRED']

#: kind -> the table's parameter class and its options (MXNet's ``float`` is single
#: precision, ``double`` double).
_KINDS = {
    'shape': (registry.Shape, {}), 'int': (registry.Int, {}),
    'count': (registry.Int, {'low': 0}), 'long_count': (registry.Int, {'low': 0, 'long': True}),
    'float': (registry.Float, {'single': True}), 'double': (registry.Float, {}),
    'bool': (registry.Bool, {}),
    'int_or_none': (registry.Int, {'optional': True}),
    'bool_or_none': (registry.Bool, {'optional': True}),
    'float_or_none': (registry.Float, {'optional': True, 'single': True}),
    'double_or_none': (registry.Float, {'optional': True}),
}


def Param(name, kind, default, doc, choices=None):
    """A typed parameter of the table from a compact description: ``kind`` is 'shape',
    'int', 'count' (an int >= 0), 'long_count', 'float', 'double', 'bool', 'enum' (one of
    ``choices``), or 'int_or_none', 'bool_or_none', 'float_or_none', 'double_or_none'."""
    if kind == 'enum':
        return registry.Enum(name, choices, default, doc=doc)
    cls, options = _KINDS[kind]
    return cls(name, default, doc=doc, **options)


class OpDef:
    """A layer operator: its MXNet name, its input names and its parameters.

    inputs : tuple of str
        The input arrays' names in MXNet's order; ``'*data'`` takes any number of arrays
        (UpSampling).
    drop_inputs : ``f(params) -> names`` of the inputs the parameters switch off
        (a convolution's ``bias`` with ``no_bias=True``).
    shapes : ``f(params, data_shape) -> {input name or 'out': shape}``, what the data's
        shape (0 for an unknown size) decides (``'out'`` may be a list: one shape per
        output); it becomes the table's shape rule for symbols (:meth:`shape_rule`).
        Without it, symbols find output shapes by running the operator on zeros.
    symbol : more of the table's :class:`~gluonedu.ndarray.registry.Op` options that only
        symbols use (``mutate_inputs``, ``num_outputs``, ``hidden_outputs``).
    """

    def __init__(self, name, inputs, params, aliases=(), drop_inputs=None, shapes=None,
                 **symbol):
        self.name = name
        self.inputs = tuple(inputs)
        self.params = tuple(params)
        self.aliases = tuple(aliases)
        self.drop_inputs = drop_inputs
        self.shapes = shapes
        self.symbol = symbol
        self.Params = namedtuple(name + 'Params', [p.name for p in self.params])

    def parse(self, kwargs):
        """The parameters as a named tuple, defaults filled in, every value checked."""
        return self.Params(**registry.get(self.name).parse_params(kwargs))

    def function(self, implementation):
        """Register the operator, ``implementation(params, **arrays)`` computing it; its
        ``nd`` function (the docstring's summary is ``implementation``'s)."""
        variadic = self.inputs[0].startswith('*')

        def compute(inputs, params):
            if variadic:
                arrays = {self.inputs[0][1:]: list(inputs)}
            else:
                arrays = dict(zip(op.list_inputs(params), inputs))
            return implementation(self.Params(**params), **arrays)
        compute.__doc__ = implementation.__doc__
        op = registry.add(registry.Op(self.name, None, self.inputs, self.params,
                                      aliases=self.aliases, drop_inputs=self.drop_inputs,
                                      same_dtype=False, compute_ex=compute,
                                      infer_shape=self.shape_rule if self.shapes else None,
                                      **self.symbol))
        function = registry.make_function(op, self.name)
        function.declaration = self
        return function

    def shape_rule(self, in_shapes, out_shapes, params):
        """The table's shape rule from :attr:`shapes`: once the data's shape is known, every
        input named in the answer and the outputs it gives get their shapes."""
        data = in_shapes[0]
        if data is None:
            return in_shapes, out_shapes
        found = self.shapes(self.Params(**params), tuple(data))
        names = registry.get(self.name).list_inputs(params)
        ins = [merge(shape, found.get(name)) if found.get(name) is not None else shape
               for name, shape in zip(names, in_shapes)]
        outs = found['out'] if isinstance(found['out'], list) else [found['out']]
        return ins, ([merge(known, shape) for known, shape in zip(out_shapes, outs)]
                     + list(out_shapes[len(outs):]))
