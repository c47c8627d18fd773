"""Reading symbol JSON from anyone: every malformed graph is an MXNetError naming the
problem, found before a node is built, and nothing in the file is ever run.

(What MXNet 1.9.1 also rejects, and the files it writes, are in tests/parity's symbol
suite; these are the cases where gluonedu is stricter: cycles and graphs MXNet would
only fail on later, or crash on.)
"""
import json
import re

import pytest

import gluonedu as mx
from gluonedu.symbol.serialization import MAX_JSON_BYTES


def _graph(nodes, heads=((1, 0, 0),), **extra):
    graph = {'nodes': nodes, 'arg_nodes': [0], 'heads': [list(h) for h in heads],
             'attrs': {'mxnet_version': ['int', 10901]}}
    graph.update(extra)
    return json.dumps(graph)


X = {'op': 'null', 'name': 'x', 'inputs': []}


def _relu(name, source):
    return {'op': 'relu', 'name': name, 'inputs': [[source, 0, 0]]}


@pytest.mark.parametrize('text, says', [
    # a cycle: f reads g, g reads f (MXNet 1.9.1 loads this and hangs or crashes later)
    (_graph([X, _relu('f', 2), _relu('g', 1)], heads=[(2, 0, 0)]), 'cycle'),
    (_graph([X, _relu('f', 1)]), 'cycle'),  # a node reading itself
    (_graph([X, _relu('f', -1)]), 'does not come before'),
    (_graph([X, {'op': 'relu', 'name': 'f', 'inputs': [[0, 3, 0]]}]), 'output 3'),
    (_graph([X, {'op': 'relu', 'name': 'f', 'inputs': [['0', 0, 0]]}]), 'not [node id'),
    (_graph([X, {'op': 'relu', 'name': 'f', 'inputs': [[0, 0, 0, 0]]}]), 'not [node id'),
    (_graph([X, {'op': 'relu', 'name': 'f', 'inputs': [[True, 0, 0]]}]), 'not [node id'),
    (_graph([X, {'op': 7, 'name': 'f', 'inputs': [[0, 0, 0]]}]), '"op"'),
    (_graph([X, {'op': 'relu', 'name': None, 'inputs': [[0, 0, 0]]}]), '"name"'),
    (_graph([X, {'op': 'relu', 'name': 'f', 'inputs': 'x'}]), '"inputs"'),
    (_graph([X, {'op': 'relu', 'name': 'f', 'attrs': [], 'inputs': [[0, 0, 0]]}]), '"attrs"'),
    (_graph([X, {'op': 'relu', 'name': 'f', 'attrs': {'a': 1}, 'inputs': [[0, 0, 0]]}]),
     'not a string'),
    (_graph([{'op': 'null', 'name': 'x', 'inputs': [[0, 0, 0]]}], heads=[(0, 0, 0)]),
     'does not come before'),
    (_graph([X, 'relu']), 'not an object'),
    (_graph([X, _relu('f', 0)], heads=[]), 'no outputs'),
    (_graph([X, _relu('f', 0)], arg_nodes=[9]), 'arg_nodes'),
    (_graph([X, _relu('f', 0)], node_row_ptr=[-1]), 'node_row_ptr'),
    # a current file must name every input (only pre-0.9 files may leave Parameters out)
    (_graph([X, {'op': 'FullyConnected', 'name': 'f', 'attrs': {'num_hidden': '3'},
                 'inputs': [[0, 0, 0]]}]), 'takes 3'),
    (_graph([X, {'op': 'relu', 'name': 'f', 'inputs': [[0, 0, 0], [0, 0, 0]]}]), 'takes 1'),
    (_graph([X, {'op': '__import__', 'name': 'f', 'inputs': [[0, 0, 0]]}]),
     'gluonedu does not have'),
    ('{"nodes": ' + '[' * 100000 + ']' * 100000 + '}', 'not valid JSON'),
    ('"just a string"', 'top level'),
])
def test_malformed_graphs_raise_mxnet_error(text, says):
    with pytest.raises(mx.MXNetError, match=re.escape(says)):
        mx.sym.load_json(text)


def test_a_file_too_large_is_refused_before_it_is_read(tmp_path):
    fname = tmp_path / 'big-symbol.json'
    with open(fname, 'wb') as f:
        f.truncate(MAX_JSON_BYTES + 1)  # sparse: no disk used
    with pytest.raises(mx.MXNetError, match='more than a symbol file may hold'):
        mx.sym.load(str(fname))


def test_a_binary_file_is_not_a_symbol_file(tmp_path):
    fname = tmp_path / 'net-symbol.json'
    fname.write_bytes(b'\xff\xfe\x00binary')
    with pytest.raises(mx.MXNetError, match='not UTF-8'):
        mx.sym.load(str(fname))


def test_a_missing_symbol_file_is_file_not_found(tmp_path):
    # as nd.load: the one error a student fixes by checking the path
    with pytest.raises(FileNotFoundError):
        mx.sym.load(str(tmp_path / 'nothing-symbol.json'))


def test_huge_shapes_in_a_graph_fail_when_allocated_not_when_read():
    text = _graph([{'op': 'null', 'name': 'x', 'attrs': {'__shape__': '(100000000000, 100000)'},
                    'inputs': []}, _relu('f', 0)])
    net = mx.sym.load_json(text)
    assert net.infer_shape()[1] == [(100000000000, 100000)]
    with pytest.raises(mx.MXNetError, match='limit'):
        net.simple_bind(mx.cpu(), type_dict={'x': 'float32'})
    big = mx.sym.load_json(_graph([X, {'op': '_zeros', 'name': 'z',
                                        'attrs': {'shape': '(1000000, 1000000)'},
                                        'inputs': []}], heads=[(1, 0, 0)]))
    with pytest.raises(mx.MXNetError, match='limit'):
        big.eval()


def test_round_trip_keeps_the_graph_and_its_attributes(tmp_path):
    data = mx.sym.var('data', shape=(0, 5), lr_mult=2)
    net = mx.sym.softmax(mx.sym.FullyConnected(data, num_hidden=3, name='fc'), name='out')
    fname = str(tmp_path / 'net-symbol.json')
    net.save(fname)
    again = mx.sym.load(fname)
    assert again.tojson() == net.tojson()
    assert again.attr_dict() == net.attr_dict()
    assert again.infer_shape(data=(2, 5)) == net.infer_shape(data=(2, 5))
