"""Pictures and tables of a symbolic graph: ``mx.viz.plot_network`` and ``print_summary``.

Both read the graph as MXNet's JSON (``symbol.tojson()``), the form a student can also
print and read, and label edges with the shapes :meth:`Symbol.infer_shape` finds.

* :func:`print_summary` prints MXNet's layer table (name and operator, output shape,
  parameter count, inputs), line for line as MXNet 1.9.1 prints it.
* :func:`plot_network` returns a Graphviz ``Digraph`` as MXNet does when the ``graphviz``
  package is installed; without it, a matplotlib Figure of the same graph (operators as
  boxes, inputs as ovals, data flowing upwards, edges labelled with shapes).
"""
import json
import re
import warnings

from ..symbol import Symbol

__all__ = ['print_summary', 'plot_network', 'network_graph']

#: MXNet's colours: inputs, matrix products, activations, norms, pooling, reshapes,
#: softmax, anything else.
_COLOURS = {'input': '#8dd3c7', 'FullyConnected': '#fb8072', 'Convolution': '#fb8072',
            'Activation': '#ffffb3', 'LeakyReLU': '#ffffb3', 'BatchNorm': '#bebada',
            'Pooling': '#80b1d3', 'Concat': '#fdb462', 'Flatten': '#fdb462',
            'Reshape': '#fdb462', 'Softmax': '#b3de69'}
_OTHER_COLOUR = '#fccde5'
_WEIGHT_SUFFIXES = ('_weight', '_bias', '_beta', '_gamma', '_moving_var', '_moving_mean',
                    '_running_var', '_running_mean')


def _numbers(text):
    """The integers written in an attribute such as ``'(3, 3)'``, as strings."""
    return re.findall(r'\d+', text)


def _output_shapes(symbol, shape):
    """``{internal output name: shape}`` from the input ``shape`` dict."""
    internals = symbol.get_internals()
    _, out_shapes, _ = internals.infer_shape(**shape)
    if out_shapes is None:
        raise ValueError('Input shape is incomplete: give the shape of every input '
                         '(data and any Parameter whose shape the graph cannot infer)')
    return dict(zip(internals.list_outputs(), out_shapes))


def _check_symbol(symbol):
    if not isinstance(symbol, Symbol):
        raise TypeError('symbol must be a Symbol, not %s: trace a HybridBlock on '
                        'mx.sym.var(\'data\') to get one' % type(symbol).__name__)


# ---------------------------------------------------------------------- print_summary
def _param_count(node, input_width, shapes, shown):
    """The parameter count MXNet's summary shows for an operator node."""
    op, attrs = node['op'], node.get('attrs', {})
    no_bias = attrs.get('no_bias') == 'True'
    if op == 'FullyConnected':
        return (input_width + (0 if no_bias else 1)) * int(attrs['num_hidden'])
    if op == 'Convolution':
        count = input_width * int(attrs['num_filter']) // int(attrs.get('num_group', '1'))
        for k in _numbers(attrs['kernel']):
            count *= int(k)
        return count + (0 if no_bias else int(attrs['num_filter']))
    if op == 'BatchNorm':
        return 2 * int(shapes[node['name'] + '_output'][1]) if shown else 0
    if op == 'Embedding':
        return int(attrs['input_dim']) * int(attrs['output_dim'])
    return 0


def print_summary(symbol, shape=None, line_length=120, positions=(.44, .64, .74, 1.)):
    """Print a table of the graph's layers: name (operator), output shape (without the
    batch axis), parameter count and the layers feeding it, then the total.

    Parameters
    ----------
    symbol : Symbol
    shape : dict of str -> tuple, optional
        The inputs' shapes; without them the shapes and some counts stay empty.
    line_length : int
        Width of the table in characters.
    positions : sequence of float or int
        Where each column ends, as fractions of ``line_length`` (or in characters).

    Notes
    -----
    As MXNet, an input counts towards a layer's parameters when it is an operator's output
    or one of the numbers in the graph's first head entry (in practice: the data variable,
    node 0), and an input's width is its shape's second axis.
    """
    _check_symbol(symbol)
    shapes = _output_shapes(symbol, shape) if shape is not None else {}
    graph = json.loads(symbol.tojson())
    nodes = graph['nodes']
    head_numbers = set(graph['heads'][0])
    if positions[-1] <= 1:
        positions = [int(line_length * p) for p in positions]

    def row(fields):
        line = ''
        for field, end in zip(fields, positions):
            line = (line + str(field))[:end]
            line += ' ' * (end - len(line))
        print(line)

    def shape_key(i):
        node = nodes[i]
        return node['name'] + ('_output' if node['op'] != 'null' else '')

    print('_' * line_length)
    row(['Layer (type)', 'Output Shape', 'Param #', 'Previous Layer'])
    print('=' * line_length)
    total = 0
    for i, node in enumerate(nodes):
        if node['op'] == 'null' and i > 0:
            continue
        shown = node['op'] != 'null' or i in head_numbers
        out_shape = shapes.get(shape_key(i), ())[1:] if shown else ()
        previous, width = [], 0
        if node['op'] != 'null':
            for source, _, *_ in node['inputs']:
                if nodes[source]['op'] != 'null' or source in head_numbers:
                    previous.append(nodes[source]['name'])
                    if shape_key(source) in shapes:
                        width += int(shapes[shape_key(source)][1])
        count = _param_count(node, width, shapes, bool(shapes))
        total += count
        row(['%s(%s)' % (node['name'], node['op']), 'x'.join(map(str, out_shape)), count,
             previous[0] if previous else ''])
        for name in previous[1:]:
            row(['', '', '', name])
        print(('=' if i == len(nodes) - 1 else '_') * line_length)
    print('Total params: %d' % total)
    print('_' * line_length)


# ---------------------------------------------------------------------- plot_network
def _label(node):
    """The text MXNet writes in an operator's box."""
    op, attrs = node['op'], node.get('attrs', {})
    if op == 'FullyConnected':
        return 'FullyConnected\n%s' % attrs['num_hidden']
    if op == 'Convolution':
        return 'Convolution\n%s/%s, %s' % ('x'.join(_numbers(attrs['kernel'])),
                                           'x'.join(_numbers(attrs.get('stride', '1'))),
                                           attrs['num_filter'])
    if op in ('Activation', 'LeakyReLU'):
        return '%s\n%s' % (op, attrs.get('act_type', 'Leaky'))
    if op == 'Pooling':
        return 'Pooling\n%s, %s/%s' % (attrs['pool_type'],
                                       'x'.join(_numbers(attrs.get('kernel', '[]'))),
                                       'x'.join(_numbers(attrs.get('stride', '1'))))
    return node['name']


def network_graph(symbol, shape=None, dtype=None, hide_weights=True):
    """The drawing of a graph as data: ``(nodes, edges)``.

    ``nodes`` is a list of dicts ``{'name', 'op', 'label', 'colour', 'is_input'}`` in the
    graph's order (inputs first); ``edges`` a list of ``(input name, consumer name,
    label)``, the label giving the input's shape (without the batch axis) and dtype when
    ``shape``/``dtype`` dicts of the inputs are given. With ``hide_weights``, Parameters
    (names ending in ``_weight``, ``_bias``, ...) are left out, as in MXNet's plots.
    """
    _check_symbol(symbol)
    shapes = _output_shapes(symbol, shape) if shape is not None else None
    dtypes = None
    if dtype is not None:
        internals = symbol.get_internals()
        _, out_types, _ = internals.infer_type(**dtype)
        if out_types is None:
            raise ValueError('Input type is incomplete: give the dtype of every input')
        dtypes = dict(zip(internals.list_outputs(), out_types))
    graph = json.loads(symbol.tojson())
    specs = graph['nodes']
    names = [n['name'] for n in specs]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        warnings.warn('There are multiple variables with the same name in your graph, this '
                      'may result in cyclic graph. Repeated names: ' + ','.join(repeated),
                      RuntimeWarning, stacklevel=3)
    nodes, hidden = [], set()
    for spec in specs:
        is_input = spec['op'] == 'null'
        if is_input and spec['name'].endswith(_WEIGHT_SUFFIXES):
            if hide_weights:
                hidden.add(spec['name'])
            continue
        colour = _COLOURS['input'] if is_input else _COLOURS.get(spec['op'], _OTHER_COLOUR)
        nodes.append({'name': spec['name'], 'op': spec['op'], 'is_input': is_input,
                      'label': spec['name'] if is_input else _label(spec), 'colour': colour})
    outputs = _outputs_by_node(symbol)
    edges = []
    for spec in specs:
        for source, index, *_ in spec.get('inputs', []):
            src = specs[source]
            if src['name'] in hidden:
                continue
            key = outputs[src['name']][index]
            label = ''
            if shapes is not None:
                label = 'x'.join(map(str, shapes[key][1:]))
            if dtypes is not None:
                label += '(%s)' % dtypes[key].__name__
            edges.append((src['name'], spec['name'], label))
    return nodes, edges


def _outputs_by_node(symbol):
    """``{node name: [its output names]}`` (``fc1_output``, ``split0_output1``, ...)."""
    internals = symbol.get_internals()
    outputs = {}
    for i, name in enumerate(internals.list_outputs()):
        outputs.setdefault(internals[i].name, []).append(name)
    return outputs


def plot_network(symbol, title='plot', save_format='pdf', shape=None, dtype=None,
                 node_attrs=None, hide_weights=True):
    """Draw the graph that computes ``symbol``.

    With the ``graphviz`` package installed, return a ``graphviz.Digraph`` as MXNet does
    (``.render()``/``.view()`` it; ``save_format`` and ``node_attrs`` apply); otherwise a
    matplotlib Figure of the same nodes and edges (see :func:`network_graph`), data at the
    bottom and the output on top. ``shape`` / ``dtype``: dicts of the inputs' shapes and
    dtypes, written on the edges.
    """
    nodes, edges = network_graph(symbol, shape=shape, dtype=dtype, hide_weights=hide_weights)
    try:
        from graphviz import Digraph
    except ImportError:
        return _draw(nodes, edges, title)
    attrs = {'shape': 'box', 'fixedsize': 'true', 'width': '1.3', 'height': '0.8034',
             'style': 'filled'}
    attrs.update(node_attrs or {})
    dot = Digraph(name=title, format=save_format)
    for node in nodes:
        dot.node(name=node['name'], label=node['label'],
                 **dict(attrs, fillcolor=node['colour'],
                        **({'shape': 'oval'} if node['is_input'] else {})))
    for source, consumer, label in edges:
        dot.edge(tail_name=consumer, head_name=source, dir='back', arrowtail='open',
                 label=label)
    return dot


def _levels(nodes, edges):
    """Each node's height in the drawing: 0 for inputs, 1 + its highest input otherwise."""
    inputs = {}
    for source, consumer, _ in edges:
        inputs.setdefault(consumer, []).append(source)
    level = {}
    for node in nodes:  # JSON order is topological: inputs come before their consumers
        level[node['name']] = 1 + max((level[s] for s in inputs.get(node['name'], [])),
                                      default=-1)
    return level


def _draw(nodes, edges, title):
    import matplotlib.pyplot as plt  # imported on first use: viz is optional
    from matplotlib.patches import FancyBboxPatch
    level = _levels(nodes, edges)
    rows = {}
    for node in nodes:
        rows.setdefault(level[node['name']], []).append(node['name'])
    where = {name: (i - (len(row) - 1) / 2, height)
             for height, row in rows.items() for i, name in enumerate(row)}
    width = max(len(row) for row in rows.values())
    fig, ax = plt.subplots(figsize=(max(3.0, 2.2 * width), 1.1 * len(rows) + 0.6))
    for source, consumer, label in edges:
        (x0, y0), (x1, y1) = where[source], where[consumer]
        skips = y1 - y0 > 1  # bend an edge that passes other levels around their boxes
        ax.annotate('', xy=(x1, y1 - 0.25), xytext=(x0, y0 + 0.25),
                    arrowprops={'arrowstyle': '->', 'color': '0.3',
                                'connectionstyle': 'arc3,rad=%s' % (-0.6 if skips else 0)})
        if label:
            ax.text((x0 + x1) / 2 + (-0.62 if skips else 0.05), (y0 + y1) / 2, label,
                    fontsize=8, color='0.2')
    for node in nodes:
        x, y = where[node['name']]
        style = 'round,pad=0.02,rounding_size=0.2' if node['is_input'] else 'square,pad=0.02'
        ax.add_patch(FancyBboxPatch((x - 0.45, y - 0.25), 0.9, 0.5, boxstyle=style,
                                    facecolor=node['colour'], edgecolor='0.3',
                                    gid=node['name']))
        ax.text(x, y, node['label'], ha='center', va='center', fontsize=8)
    ax.set_xlim(-width / 2 - 0.4, width / 2 + 0.3)
    ax.set_ylim(-0.5, len(rows) - 0.5)
    ax.set_title(title)
    ax.axis('off')
    return fig
