"""mx.viz.plot_network / network_graph / print_summary on traced Gluon graphs.

(print_summary's text is compared with MXNet 1.9.1's in tests/parity's symbol suite.)
"""
import sys
import types

import matplotlib

matplotlib.use('Agg')

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

import gluonedu as mx  # noqa: E402


@pytest.fixture(autouse=True)
def _fresh_names_and_figures():
    with mx.name.NameManager():
        yield
    plt.close('all')


def _graph():
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Dense(8, activation='relu'), mx.gluon.nn.Dense(4))
    out = net(mx.sym.var('data'))
    return mx.sym.Concat(out, mx.sym.split(out, num_outputs=2, axis=1)[1], dim=1)


def test_network_graph_lists_operators_inputs_and_labelled_edges():
    nodes, edges = mx.viz.network_graph(_graph(), shape={'data': (2, 6)},
                                        dtype={'data': 'float32'})
    assert [(n['name'], n['label'], n['is_input']) for n in nodes] == [
        ('data', 'data', True), ('dense0_fwd', 'FullyConnected\n8', False),
        ('dense0_relu_fwd', 'Activation\nrelu', False),
        ('dense1_fwd', 'FullyConnected\n4', False), ('split0', 'split0', False),
        ('concat0', 'concat0', False)]
    assert edges == [('data', 'dense0_fwd', '6(float32)'),
                     ('dense0_fwd', 'dense0_relu_fwd', '8(float32)'),
                     ('dense0_relu_fwd', 'dense1_fwd', '8(float32)'),
                     ('dense1_fwd', 'split0', '4(float32)'),
                     ('dense1_fwd', 'concat0', '4(float32)'),
                     ('split0', 'concat0', '2(float32)')]  # output 1 of the split


def test_weights_are_hidden_unless_asked_for():
    graph = _graph()
    names = [n['name'] for n in mx.viz.network_graph(graph)[0]]
    assert not any(n.endswith(('_weight', '_bias')) for n in names)
    # shown, as MXNet, they draw as edges only: Parameters get no box
    _, edges = mx.viz.network_graph(graph, hide_weights=False)
    assert ('dense0_weight', 'dense0_fwd', '') in edges


def test_plot_network_without_graphviz_draws_a_figure(monkeypatch):
    monkeypatch.setitem(sys.modules, 'graphviz', None)  # import graphviz fails
    fig = mx.viz.plot_network(_graph(), title='mlp', shape={'data': (2, 6)})
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    assert ax.get_title() == 'mlp'
    assert sorted(p.get_gid() for p in ax.patches) == sorted(
        ['data', 'dense0_fwd', 'dense0_relu_fwd', 'dense1_fwd', 'split0', 'concat0'])
    texts = {t.get_text() for t in ax.texts}
    assert {'FullyConnected\n8', '6', '2'} <= texts
    # data at the bottom, each operator above its inputs
    height = {p.get_gid(): p.get_y() for p in ax.patches}
    assert height['data'] < height['dense0_fwd'] < height['dense1_fwd'] < height['split0'] \
        < height['concat0']


def test_plot_network_with_graphviz_builds_mxnets_digraph(monkeypatch):
    made = []

    class Digraph:
        def __init__(self, name, format):  # pylint: disable=redefined-builtin
            self.name, self.format, self.nodes, self.edges = name, format, [], []
            made.append(self)

        def node(self, name, label, **attrs):
            self.nodes.append((name, label, attrs))

        def edge(self, tail_name, head_name, **attrs):
            self.edges.append((tail_name, head_name, attrs))

    monkeypatch.setitem(sys.modules, 'graphviz', types.SimpleNamespace(Digraph=Digraph))
    dot = mx.viz.plot_network(_graph(), save_format='png', shape={'data': (2, 6)},
                              node_attrs={'fixedsize': 'false'})
    assert dot is made[0] and dot.format == 'png' and dot.name == 'plot'
    name, label, attrs = dot.nodes[0]
    assert (name, label, attrs['shape'], attrs['fixedsize']) == ('data', 'data', 'oval', 'false')
    assert dot.nodes[1][2]['shape'] == 'box' and dot.nodes[1][2]['fillcolor'] == '#fb8072'
    assert dot.edges[0] == ('dense0_fwd', 'data',
                            {'dir': 'back', 'arrowtail': 'open', 'label': '6'})


def test_bad_input_says_what_to_give():
    with pytest.raises(TypeError, match='Symbol'):
        mx.viz.plot_network(mx.nd.ones((2,)))
    with pytest.raises(ValueError, match='Input shape is incomplete'):
        mx.viz.print_summary(_graph(), shape={})


def test_print_summary_counts_parameters(capsys):
    mx.viz.print_summary(_graph(), shape={'data': (2, 6)})
    text = capsys.readouterr().out
    assert 'dense0_fwd(FullyConnected)' in text
    assert 'Total params: %d' % (7 * 8 + 9 * 4) in text
