"""The ``mx.sym`` operator functions, generated from the operator table as ``mx.nd``'s are.

``mx.sym.FullyConnected(data, num_hidden=10, name='fc1')`` binds its arguments as the nd
function does (inputs, then the parameters in declared order), checks and parses the
parameters with the table's declarations, and returns a Symbol of a new node:

* the node is named ``name``, or automatically by the current NameManager from the
  function's name (``fullyconnected0``; ``_plusscalar0`` for ``_PlusScalar``), prefixed
  inside a Block's ``name_scope()``;
* inputs left out become new variables named ``<node>_<input>`` (``fc1_weight``,
  ``fc1_bias``) — unless the parameters drop them (``no_bias=True``);
* the node's attributes keep the parameters as given, in MXNet's text form
  (``str(value)``), plus ``attr=`` and the current AttrScope's attributes.
"""
import inspect

from .. import attribute
from ..base import MXNetError
from .. import name as _name
from ..ndarray import registry
from .graph import HIDDEN_KEYS, Node, check_single_output, is_dunder, normalize_attr_keys
from .symbol import Symbol

__all__ = ['create', 'make_function', 'function']

_FUNCTIONS = {}  # name -> generated function (filled by the symbol package)


def create(op_name, hint, args, kwargs):
    """The Symbol of operator ``op_name`` applied as ``mx.sym.<hint>(*args, **kwargs)``."""
    op = registry.get(op_name)
    kwargs = dict(kwargs)
    name = kwargs.pop('name', None)
    attr = kwargs.pop('attr', None)
    kwargs.pop('out', None)
    inputs, given = _bind(op, hint, args, kwargs)
    return _new_node(op, hint, inputs, given, name, attr)


def _bind(op, hint, args, kwargs):
    """Split a call into (inputs: a list, or {name: Symbol}; given parameters), binding
    positional arguments as MXNet does: inputs, then parameters in declared order."""
    given = {}
    if op.variadic:
        for value in args:
            _check_symbol(op, op.input_names[0], value)
        inputs = list(args)
    else:
        positional = op.input_names + tuple(op.params)
        if len(args) > len(positional):
            raise TypeError('%s() takes at most %d positional arguments (%d given)'
                            % (hint, len(positional), len(args)))
        inputs = {}
        for key, value in zip(positional, args):
            if key in op.params:
                given[key] = value
            elif value is not None:
                _check_symbol(op, key, value)
                inputs[key] = value
    for key, value in kwargs.items():
        if key in op.input_names and not op.variadic:
            if value is None:
                continue
            _check_symbol(op, key, value)
            target = inputs
        elif isinstance(value, Symbol):
            raise _unknown(op, key)
        else:
            target = given
        if key in target:
            raise TypeError('%s() got multiple values for argument %r' % (hint, key))
        target[key] = value
    return inputs, given


def _unknown(op, key):
    valid = ', '.join(op.input_names + tuple(op.params) + ('name', 'attr'))
    return MXNetError('%s: unknown argument %r. Its arguments are: %s' % (op.name, key, valid))


def _check_symbol(op, key, value):
    if not isinstance(value, Symbol):
        raise AssertionError('Argument %s of %s must be Symbol instances, but got %s'
                             % (key, op.name, type(value).__name__))


def _new_node(op, hint, inputs, given, name, attr):
    attrs = attribute.current().get(attr)
    # __attribute__s, and MXNet's hidden keys given plainly (lr_mult=0: the node and the
    # variables it makes carry __lr_mult__)
    for key in [k for k in given if is_dunder(k) or k in HIDDEN_KEYS]:
        attrs[key] = str(given.pop(key))
    attrs = normalize_attr_keys(attrs)
    if op.variadic and op.count_param == 'num_args':
        given.setdefault('num_args', len(inputs))
    params = op.parse_params(given)
    if op.variadic:
        op.check_count(params, len(inputs))
    texts = {key: _text(op, key, value, params) for key, value in given.items()}
    node_name = _name.current().get(name, hint.lower())
    node_attrs = dict(texts, **attrs)
    names = op.list_inputs(params)
    if op.variadic:
        entries = [check_single_output(s, op.name, key) for key, s in zip(names, inputs)]
    else:
        for key in inputs:
            if key not in names:
                raise MXNetError('%s: the input %r is not used with these parameters (this '
                                 'call takes %s)' % (op.name, key, ', '.join(names)))
        entries = []
        for key in names:
            if key in inputs:
                entries.append(check_single_output(inputs[key], op.name, key))
            else:  # as MXNet: a new variable, carrying the node's attributes
                entries.append((Node(None, '%s_%s' % (node_name, key), node_attrs), 0))
    node = Node(op, node_name, node_attrs, entries, params)
    return Symbol([(node, i) for i in range(op.num_outputs(params))])


def _text(op, key, value, params):
    """A parameter as MXNet's frontend writes it into the node: ``str(value)``, and a
    dtype by its name."""
    if key == 'dtype' and params.get('dtype') is not None:
        return str(params['dtype'])
    return str(value)


def make_function(op, name):
    """The ``mx.sym.<name>`` function of ``op``: its signature and docs from the table."""
    def function(*args, **kwargs):
        return create(op.name, name, args, kwargs)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = registry.docstring(op, 'Symbol')
    function.__signature__ = _signature(op)
    function.__module__ = 'gluonedu.symbol'
    function.op = op
    return function


def _signature(op):
    kind = inspect.Parameter
    if op.variadic:
        items = [kind(op.input_names[0], kind.VAR_POSITIONAL)]
        style = kind.KEYWORD_ONLY
    else:
        items = [kind(n, kind.POSITIONAL_OR_KEYWORD, default=None) for n in op.input_names]
        style = kind.POSITIONAL_OR_KEYWORD
    for p in op.params.values():
        if not (op.variadic and p.name == 'num_args'):
            items.append(kind(p.name, style, default=None if p.required else p.default))
    items += [kind('name', kind.KEYWORD_ONLY, default=None),
              kind('attr', kind.KEYWORD_ONLY, default=None)]
    return inspect.Signature(items)


def function(name):
    """The generated ``mx.sym`` function ``name`` (public or ``_internal``)."""
    return _FUNCTIONS[name]


def operator_functions():
    """``{name: function}`` for every name and alias of the table."""
    if not _FUNCTIONS:
        for op in registry.list_ops():
            for name in (op.name,) + op.aliases:
                _FUNCTIONS[name] = make_function(op, name)
    return _FUNCTIONS
