"""``autograd.get_symbol``: the symbol of a computation recorded by ``autograd.record()``.

The recorded operator calls become nodes ``node_0``, ``node_1``, ... (their attributes the
parameters that differ from the defaults), the arrays the computation started from become
variables ``var0``, ``var1``, ... — as MXNet names them.
"""
from ..ndarray import _graph
from .graph import Node
from .symbol import Symbol

__all__ = ['symbol_of']


def symbol_of(array):
    """The Symbol of how ``array`` was computed while recording."""
    leaves, calls, output = _graph.recorded_calls(array)
    variables = [Node(None, 'var%d' % i) for i in range(len(leaves))]
    nodes = {}

    def entry(ref):
        kind, index = ref
        return (variables[index], 0) if kind == 'leaf' else (nodes[kind], index)
    for k, (key, op, params, inputs) in enumerate(calls):
        nodes[key] = Node(op, 'node_%d' % k, op.format_params(params),
                          [entry(r) for r in inputs], params)
    return Symbol([entry(output)])
