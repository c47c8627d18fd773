"""``autograd.get_symbol``: the symbol of a computation recorded by ``autograd.record()``.

The recorded operator calls become nodes named as the tape named them (``node_<n>``, their
attributes the parameters given: those that differ from the defaults, or all of a
hybridized block's graph node), the arrays the computation
started from become variables ``var<n>`` (marked variables) or ``null<n>`` (arrays read
without a gradient) — MXNet's names. A hybridized block that did not inline its graph is
one ``_CachedOp`` node.
"""
import functools

from ..ndarray import _graph
from ..ndarray.registry import Op
from .graph import Node
from .symbol import Symbol

__all__ = ['symbol_of', 'graph_operator', 'run_as_one_call']


def symbol_of(array):
    """The Symbol of how ``array`` was computed while recording."""
    leaves, calls, output = _graph.recorded_calls(array)
    variables = [Node(None, _graph.leaf_name(leaf)) for leaf in leaves]
    nodes = {}

    def entry(ref):
        kind, index = ref
        return (variables[index], 0) if kind == 'leaf' else (nodes[kind], index)
    for key, name, op, params, attrs, inputs in calls:
        if attrs is None:
            attrs = op.format_params(params)
        # (the tape keeps no versions of the arrays operators update: all are 0, as MXNet's)
        nodes[key] = Node(op, name, attrs, [entry(r) for r in inputs], params,
                          [0] * len(inputs))
    return Symbol([entry(output)])


def graph_operator(symbol, plan):
    """The operator ``_CachedOp`` that runs ``plan`` (``symbol`` compiled): how the tape
    and ``autograd.get_symbol`` see a graph recorded as one call. Its outputs are named as
    the graph's."""
    def run_graph(inputs, params):
        """Runs a hybridized block's graph."""
        outputs = plan.run(inputs)
        return outputs[0] if len(outputs) == 1 else outputs
    names = tuple(symbol.list_outputs())
    return Op('_CachedOp', None, inputs=tuple(plan.input_names), num_outputs=len(names),
              output_names=names, mutate_inputs=symbol.list_auxiliary_states(),
              same_dtype=False, compute_ex=run_graph)


def run_as_one_call(plan, op, inputs, hook=None):
    """``plan.run(inputs, hook)`` recorded as one call of ``op`` (:func:`graph_operator`):
    the operators inside are recorded unnamed, from stand-ins of the inputs, and the call's
    gradient flows through them."""
    stand_ins = [_graph.stand_in(x) for x in inputs]
    with _graph.unnamed():
        inner = plan.run(stand_ins, hook)
    # The call's outputs are new arrays where an inner output is tracked (its node serves
    # the gradient) or is an input itself; the others (sparse ones among them) are kept.
    outputs = [y.detach() if _graph.is_tracked(y) or any(y is x for x in inputs) else y
               for y in inner]
    _graph.record_outputs(outputs, inputs,
                          functools.partial(_graph.grads_through, inner, stand_ins), (op, {}))
    return outputs
