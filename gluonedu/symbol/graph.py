"""The graph behind a Symbol: nodes, their order, and the names MXNet derives from them.

A :class:`Node` is a variable (``op is None``: an input of the computation, named) or
one application of an operator of the table to the outputs of other nodes. An *entry*
``(node, index)`` names one output of a node. A Symbol is a list of entries; the graph is
everything reachable from them.

Nodes are visited in MXNet's order (a depth-first walk from the outputs, each node after
its inputs, inputs in order): the order of ``list_arguments()``, of ``get_internals()``
and of the nodes in the JSON file, so that gluonedu writes the files MXNet writes.
"""
from ..base import MXNetError

#: Attribute names MXNet also accepts without the underscores (``ctx_group`` means
#: ``__ctx_group__``) and lists both ways on a variable.
HIDDEN_KEYS = ('ctx_group', 'lr_mult', 'wd_mult', 'force_mirroring', 'mirror_stage',
               'profiler_scope')


class Node:
    """One variable or operator application.

    op : the table's Op, or None for a variable.
    name : the node's name (``fc1``, ``data``).
    attrs : ``{str: str}``: the operator's parameters as given (MXNet's text forms) and
        the ``__attribute__``\\ s (``__shape__``, ``__lr_mult__``, ...).
    inputs : the entries ``(node, index)`` it reads, in the operator's input order.
    params : the parsed parameters (from ``attrs``), as the operator runs with them.
    versions : each input entry's version (MXNet's JSON writes it): by default 0, and for
        a variable the operator updates in place (BatchNorm's running statistics), how many
        operators updating it have been built so far, this one included.
    """
    __slots__ = ('op', 'name', 'attrs', 'inputs', 'params', 'versions', 'updates')

    def __init__(self, op, name, attrs=None, inputs=(), params=None, versions=None):
        self.op = op
        self.name = name
        self.attrs = dict(attrs or {})
        self.inputs = list(inputs)
        self.params = params
        self.updates = 0  # a variable's count of operators built to update it
        self.versions = list(versions) if versions is not None else self._count_updates()

    def _count_updates(self):
        mutated = () if self.op is None else self.op.mutate_inputs
        if not mutated:
            return [0] * len(self.inputs)
        names = self.op.list_inputs(self.params)
        versions = []
        for name, (child, _) in zip(names, self.inputs):
            if name in mutated and child.op is None:
                child.updates += 1
                versions.append(child.updates)
            else:
                versions.append(0)
        return versions

    def __repr__(self):
        return '<Node %s %s>' % ('null' if self.op is None else self.op.name, self.name)

    @property
    def is_variable(self):
        return self.op is None

    def num_outputs(self):
        return 1 if self.op is None else self.op.num_outputs(self.params)

    def output_name(self, index):
        """The name of output ``index``: a variable's own name, else ``<name>_<output>``."""
        if self.op is None:
            return self.name
        return '%s_%s' % (self.name, self.op.output_names(self.params)[index])

    def op_attrs(self):
        """The attributes that are operator parameters (text forms)."""
        return {k: v for k, v in self.attrs.items() if k in self.op.params}

    def reparse(self):
        """Parse ``params`` again from ``attrs`` (after they changed)."""
        if self.op is not None:
            self.params = self.op.parse_params(self.op_attrs())


def is_dunder(key):
    return len(key) > 4 and key.startswith('__') and key.endswith('__')


def normalize_attr_keys(attrs):
    """``attrs`` with MXNet's hidden keys given plainly (``lr_mult``) in their ``__``
    form."""
    return {('__%s__' % k if k in HIDDEN_KEYS else k): v for k, v in attrs.items()}


def topological(heads):
    """Every node reachable from the entries ``heads``, each after its inputs (MXNet's
    depth-first post-order)."""
    order, visited = [], set()
    for head, _ in heads:
        if id(head) in visited:
            continue
        visited.add(id(head))
        stack = [[head, 0]]
        while stack:
            top = stack[-1]
            node, position = top
            if position == len(node.inputs):
                order.append(node)
                stack.pop()
                continue
            top[1] += 1
            child = node.inputs[position][0]
            if id(child) not in visited:
                visited.add(id(child))
                stack.append([child, 0])
    return order


def mutated_variables(order):
    """The ids of the variables some operator updates in place (auxiliary states)."""
    mutated = set()
    for node in order:
        if node.op is not None and node.op.mutate_inputs:
            names = node.op.list_inputs(node.params)
            for name, (child, _) in zip(names, node.inputs):
                if name in node.op.mutate_inputs and child.op is None:
                    mutated.add(id(child))
    return mutated


def copy_graph(heads):
    """Entries like ``heads`` over fresh copies of every node reachable from them."""
    copies = {}
    for node in topological(heads):
        copies[id(node)] = Node(node.op, node.name, node.attrs,
                                [(copies[id(n)], i) for n, i in node.inputs], node.params,
                                node.versions)
        copies[id(node)].updates = node.updates
    return [(copies[id(n)], i) for n, i in heads]


def check_single_output(symbol, op_name, arg_name):
    """The one entry of ``symbol``, used as input ``arg_name`` of ``op_name``."""
    entries = symbol._entries
    if len(entries) != 1:
        raise MXNetError('%s: the input %s is a symbol of %d outputs (%s); pass one of them, '
                         'e.g. sym[0]' % (op_name, arg_name, len(entries),
                                          ', '.join(symbol.list_outputs())))
    return entries[0]
