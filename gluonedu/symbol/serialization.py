"""MXNet's JSON graph format: writing it as MXNet writes it, reading it defensively.

The format (what ``Symbol.tojson`` and ``-symbol.json`` files hold)::

    {"nodes": [{"op": "null" | operator, "name": str, "attrs": {str: str},
                "inputs": [[node id, output index, version], ...]}, ...],
     "arg_nodes": [ids of the variable nodes],
     "node_row_ptr": [0, n0, n0 + n1, ...]    (running count of outputs per node),
     "heads": [[node id, output index, version], ...],
     "attrs": {"mxnet_version": ["int", 10901]}}

Nodes come in order, every node after its inputs. :func:`dumps` writes the same text as
MXNet 1.9.1 (its JSON writer's layout included), so files can be compared byte for byte.

:func:`loads` reads text from anyone, so it checks everything before building a node: the
structure and every type, that inputs only refer to earlier nodes (no cycles) and to
outputs that exist, that each operator exists in the table and its attributes parse as its
parameters. Anything else raises MXNetError; nothing is ever evaluated.
"""
import json
import os

from ..base import MXNetError
from ..ndarray import registry
from .graph import Node, is_dunder, topological
from .symbol import Symbol

__all__ = ['dumps', 'loads', 'load_file', 'MAX_JSON_BYTES']

#: The MXNet version gluonedu's files claim: the one whose format they follow.
MXNET_VERSION = 10901

#: Files of MXNet versions before this one (0.9.0) name no Parameter inputs.
LEGACY_BEFORE = 900

#: The largest symbol file read (real networks take kilobytes to a few megabytes).
MAX_JSON_BYTES = 64 * 2 ** 20


# ---------------------------------------------------------------------- writing
class _Writer:
    """dmlc's JSONWriter, which MXNet uses: its separators, indentation and choice of
    one-line or multi-line arrays and objects."""

    def __init__(self):
        self.parts = []
        self.multi_line = []
        self.counts = []

    def _separator(self):
        if not self.multi_line or self.multi_line[-1]:
            self.parts.append('\n' + ' ' * (2 * len(self.multi_line)))

    def begin(self, bracket, multi_line):
        self.parts.append(bracket)
        self.multi_line.append(multi_line)
        self.counts.append(0)

    def end(self, bracket):
        multi_line, count = self.multi_line.pop(), self.counts.pop()
        if multi_line and count:
            self._separator()
        self.parts.append(bracket)

    def key(self, name):
        if self.counts[-1]:
            self.parts.append(', ')
        self._separator()
        self.parts.append('%s: ' % _quote(name))
        self.counts[-1] += 1

    def item(self):
        if self.counts[-1]:
            self.parts.append(', ')
        self.counts[-1] += 1
        self._separator()

    def value(self, value):
        if isinstance(value, str):
            self.parts.append(_quote(value))
        elif isinstance(value, dict):
            self.begin('{', len(value) > 1)
            for k in sorted(value):
                self.key(k)
                self.value(value[k])
            self.end('}')
        elif isinstance(value, list):
            self.array(value, pod=True)
        else:
            self.parts.append(str(value))

    def array(self, items, pod):
        """An array: on one line if its items are plain values and at most 10."""
        self.begin('[', len(items) > 10 or not pod)
        for item in items:
            self.item()
            self.value(item)
        self.end(']')


def _quote(text):
    return '"%s"' % (text.replace('\\', '\\\\').replace('"', '\\"').replace('\n', '\\n')
                     .replace('\r', '\\r').replace('\t', '\\t'))


def dumps(symbol):
    """``symbol``'s graph as MXNet's JSON text."""
    order = topological(symbol._entries)
    index = {id(node): i for i, node in enumerate(order)}
    row_ptr = [0]
    for node in order:
        hidden = 0 if node.op is None else node.op.hidden_outputs(node.params)
        row_ptr.append(row_ptr[-1] + node.num_outputs() + hidden)
    w = _Writer()
    w.begin('{', True)
    w.key('nodes')
    w.begin('[', True)
    for node in order:
        w.item()
        w.begin('{', True)
        w.key('op')
        w.value('null' if node.op is None else node.op.name)
        w.key('name')
        w.value(node.name)
        if node.attrs:
            w.key('attrs')
            w.value(node.attrs)
        w.key('inputs')
        w.array([[index[id(n)], i, v] for (n, i), v in zip(node.inputs, node.versions)],
                pod=True)
        w.end('}')
    w.end(']')
    w.key('arg_nodes')
    w.array([i for i, node in enumerate(order) if node.op is None], pod=True)
    w.key('node_row_ptr')
    w.array(row_ptr, pod=True)
    w.key('heads')
    w.array([[index[id(n)], i, 0] for n, i in symbol._entries], pod=True)
    w.key('attrs')
    w.value({'mxnet_version': ['int', MXNET_VERSION]})
    w.end('}')
    return ''.join(w.parts)


# ---------------------------------------------------------------------- reading
def load_file(fname):
    """The Symbol of a ``-symbol.json`` file (at most :data:`MAX_JSON_BYTES`)."""
    size = os.path.getsize(fname)
    if size > MAX_JSON_BYTES:
        raise MXNetError('%s is %d bytes, more than a symbol file may hold (%d); it is not a '
                         'symbol file written by MXNet or gluonedu' % (fname, size,
                                                                       MAX_JSON_BYTES))
    with open(fname, 'rb') as f:
        data = f.read()
    try:
        text = data.decode('utf-8')
    except UnicodeDecodeError as err:
        raise MXNetError('%s is not a symbol file: it is not UTF-8 text (%s)'
                         % (fname, err)) from None
    return loads(text, source=fname)


def loads(text, source='the symbol JSON'):
    """The Symbol of MXNet JSON ``text``; MXNetError naming the problem if it is not one."""
    if len(text) > MAX_JSON_BYTES:
        raise MXNetError('%s is longer than a symbol file may be (%d characters)'
                         % (source, MAX_JSON_BYTES))
    try:
        graph = json.loads(text)
    except (ValueError, RecursionError) as err:
        raise MXNetError('%s is not valid JSON: %s' % (source, err)) from None
    return _Reader(source).symbol(graph)


def _version(graph):
    """The MXNet version that wrote ``graph`` (0 when it does not say: before 0.9)."""
    attrs = graph.get('attrs')
    version = attrs.get('mxnet_version') if isinstance(attrs, dict) else None
    if isinstance(version, list) and len(version) == 2 and isinstance(version[1], int):
        return version[1]
    return 0


class _Reader:
    def __init__(self, source):
        self.source = source
        self.nodes = []
        self.legacy = False  # written before MXNet 0.9, which left Parameters implicit

    def fail(self, what):
        return MXNetError('%s is not a valid symbol graph: %s' % (self.source, what))

    def field(self, obj, key, kind, where, default=None):
        value = obj.get(key, default)
        if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
            raise self.fail('%s has no valid "%s" (found %s)'
                            % (where, key, type(obj.get(key)).__name__))
        return value

    def symbol(self, graph):
        if not isinstance(graph, dict):
            raise self.fail('the top level is a %s, not an object' % type(graph).__name__)
        specs = self.field(graph, 'nodes', list, 'the graph')
        self.legacy = _version(graph) < LEGACY_BEFORE
        for i, spec in enumerate(specs):
            self.nodes.append(self.node(i, spec))
        heads = self.field(graph, 'heads', list, 'the graph')
        if not heads:
            raise self.fail('it has no outputs ("heads" is empty)')
        entries = [self.entry(h, len(self.nodes), 'heads') for h in heads]
        self.check_ids(graph, 'arg_nodes')
        self.check_ids(graph, 'node_row_ptr', limit=None)
        if not isinstance(graph.get('attrs', {}), dict):
            raise self.fail('its "attrs" is not an object')
        return Symbol(entries)

    def check_ids(self, graph, key, limit=-1):
        values = graph.get(key, [])
        if not isinstance(values, list) or not all(
                isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in values):
            raise self.fail('its "%s" is not a list of non-negative integers' % key)
        if limit is not None and any(v >= len(self.nodes) for v in values):
            raise self.fail('its "%s" names nodes that do not exist' % key)

    def node(self, i, spec):
        where = 'node %d' % i
        if not isinstance(spec, dict):
            raise self.fail('%s is a %s, not an object' % (where, type(spec).__name__))
        op_name = self.field(spec, 'op', str, where)
        name = self.field(spec, 'name', str, where)
        where = 'node %d (%r)' % (i, name)
        attrs = {}
        for key in ('param', 'attr', 'attrs'):  # MXNet < 0.9 wrote "param" and "attr"
            found = self.field(spec, key, dict, where, default={})
            for k, v in found.items():
                if not isinstance(v, str):
                    raise self.fail('%s has attribute %r of type %s, not a string'
                                    % (where, k, type(v).__name__))
            attrs.update(found)
        specs = self.field(spec, 'inputs', list, where, default=[])
        inputs = [self.entry(e, i, where) for e in specs]
        versions = [e[2] if len(e) == 3 else 0 for e in specs]
        if op_name == 'null':
            if inputs:
                raise self.fail('%s is a variable but has inputs' % where)
            return Node(None, name, attrs)
        try:
            op = registry.get(op_name)
        except MXNetError:
            raise self.fail('%s uses the operator %r, which gluonedu does not have'
                            % (where, op_name)) from None
        given = {k: v for k, v in attrs.items() if not is_dunder(k)}
        try:
            params = op.parse_params(given)
        except MXNetError as err:
            raise self.fail('%s: %s' % (where, err)) from None
        expected = op.list_inputs(params)
        if self.legacy and len(inputs) < len(expected):
            # as MXNet upgrades such files: each missing input becomes a variable that
            # carries the operator's attributes
            versions += [0] * (len(expected) - len(inputs))
            inputs += [(Node(None, '%s_%s' % (name, missing), attrs), 0)
                       for missing in expected[len(inputs):]]
        if len(inputs) != len(expected):
            raise self.fail('%s (%s) has %d inputs, but the operator takes %d with these '
                            'parameters' % (where, op_name, len(inputs), len(expected)))
        for (child, _), version in zip(inputs, versions):
            child.updates = max(child.updates, version)
        return Node(op, name, attrs, inputs, params, versions)

    def entry(self, spec, limit, where):
        """``(node, index)`` of ``[node id, index(, version)]``; the node must come before
        ``limit`` (inputs refer to earlier nodes only, so the graph has no cycle)."""
        if not isinstance(spec, list) or len(spec) not in (2, 3) or not all(
                isinstance(v, int) and not isinstance(v, bool) for v in spec):
            raise self.fail('%s has an input %r that is not [node id, output index, version]'
                            % (where, spec))
        node_id, index = spec[0], spec[1]
        if len(spec) == 3 and spec[2] < 0:
            raise self.fail('%s has an input %r with a negative version' % (where, spec))
        if not 0 <= node_id < limit:
            raise self.fail('%s refers to node %d, which does not come before it (nodes must '
                            'be in order; a later node would make a cycle)' % (where, node_id))
        node = self.nodes[node_id]
        if not 0 <= index < node.num_outputs():
            raise self.fail('%s refers to output %d of node %d (%r), which has %d outputs'
                            % (where, index, node_id, node.name, node.num_outputs()))
        return (node, index)
