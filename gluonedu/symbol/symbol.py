"""Symbol: a computation described without values, as MXNet 1.x's ``mx.sym``.

A Symbol is one or more outputs of a graph whose leaves are named *variables*
(``mx.sym.var('data')``) and whose other nodes apply operators of the table
(``mx.sym.FullyConnected(data, num_hidden=10, name='fc1')``). Nothing is computed when a
Symbol is built; the graph can be inspected (``list_arguments``, ``get_internals``,
``infer_shape``), written to MXNet's JSON format (``tojson``, ``save``) and evaluated on
NDArrays (``eval``, ``bind``). ``HybridBlock.hybridize()`` builds one by calling
``hybrid_forward`` with ``F = mx.sym``.

Arithmetic follows MXNet: ``a + b`` of two symbols is ``elemwise_add`` (same shapes, no
broadcasting: use ``mx.sym.broadcast_add``), ``a + 1`` is ``_plus_scalar``, ``a == b`` is
``_equal``.
"""
import copy as _copy
import json
import numbers
import os
import warnings

import numpy as np

from .. import attribute
from ..base import (MXNetError, NotImplementedForSymbol, DTYPE_TO_MX, STYPE_TO_MX)
from .graph import (HIDDEN_KEYS, Node, copy_graph, is_dunder, mutated_variables,
                    normalize_attr_keys, topological)

__all__ = ['Symbol', 'var', 'Variable', 'Group', 'load', 'load_json']


class Symbol:
    """Outputs of a graph of operators over named variables; see the module's docs."""
    __slots__ = ('_entries',)

    def __init__(self, entries):
        self._entries = list(entries)

    # ------------------------------------------------------------------ structure
    def _nodes(self):
        return topological(self._entries)

    def _single_node(self):
        """The node all outputs come from, or None (a group of several nodes)."""
        nodes = {id(node): node for node, _ in self._entries}
        return next(iter(nodes.values())) if len(nodes) == 1 else None

    @property
    def name(self):
        """The name of the node the outputs come from (None for a group of nodes)."""
        node = self._single_node()
        return None if node is None else node.name

    def __repr__(self):
        name = self.name
        if name is None:
            return '<%s group [%s]>' % (type(self).__name__, ', '.join(s.name for s in self))
        return '<%s %s>' % (type(self).__name__, name)

    def __len__(self):
        return len(self._entries)

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __getitem__(self, index):
        """Output ``index`` (an int, an output name such as ``'fc1_output'``, or a slice)."""
        if isinstance(index, slice):
            return Group([self[i] for i in range(*index.indices(len(self)))])
        if isinstance(index, str):
            names = self.list_outputs()
            matches = [i for i, name in enumerate(names) if name == index]
            if len(matches) > 1:
                raise ValueError('There are multiple outputs with name "%s"' % index)
            if not matches:
                raise ValueError('Cannot find output that matches name "%s"' % index)
            index = matches[0]
        if not isinstance(index, int):
            raise TypeError('Symbol only support integer index to fetch i-th output')
        if index >= len(self._entries):
            raise IndexError('this symbol has %d outputs' % len(self._entries))
        return Symbol([self._entries[index]])

    def list_outputs(self):
        """The outputs' names: ``<node>_output`` (``_output0``, ...), a variable's name."""
        return [node.output_name(i) for node, i in self._entries]

    def list_inputs(self):
        """Every variable the outputs depend on (arguments and auxiliary states), in order."""
        return [node.name for node in self._nodes() if node.op is None]

    def list_arguments(self):
        """The variables the outputs depend on that no operator updates: data and weights."""
        order = self._nodes()
        mutated = mutated_variables(order)
        return [n.name for n in order if n.op is None and id(n) not in mutated]

    def list_auxiliary_states(self):
        """The variables operators update in place (BatchNorm's running statistics)."""
        order = self._nodes()
        mutated = mutated_variables(order)
        return [n.name for n in order if n.op is None and id(n) in mutated]

    def get_internals(self):
        """A symbol of every output of every node of the graph, in order."""
        return Symbol([(node, i) for node in self._nodes() for i in range(node.num_outputs())])

    def get_children(self):
        """A symbol of the inputs of this symbol's nodes (None for a variable)."""
        entries, seen = [], set()
        for node, _ in self._entries:
            if id(node) not in seen:
                seen.add(id(node))
                entries.extend(node.inputs)
        return Symbol(entries) if entries else None

    # ------------------------------------------------------------------ attributes
    def attr(self, key):
        """The attribute ``key`` of this symbol's node (text), or None."""
        node = self._single_node()
        return None if node is None else _listed_attrs(node).get(key)

    def list_attr(self, recursive=False):
        """The attributes of this symbol's node, ``{name: text}``."""
        if recursive:
            raise DeprecationWarning('Symbol.list_attr with recursive=True has been '
                                     'deprecated. Please use attr_dict instead.')
        node = self._single_node()
        return {} if node is None else _listed_attrs(node)

    def attr_dict(self):
        """``{node name: attributes}`` of every node that has attributes."""
        return {node.name: _listed_attrs(node) for node in self._nodes() if node.attrs}

    def _set_attr(self, **kwargs):
        """Set attributes (text values) of this symbol's node."""
        for value in kwargs.values():
            if not isinstance(value, str):
                raise ValueError('Set Attr only accepts string values')
        node = self._single_node()
        if node is None:
            raise MXNetError('cannot set attributes of a group of symbols; set them on each '
                             'symbol of the group')
        node.attrs.update(normalize_attr_keys(kwargs))
        node.reparse()

    # ------------------------------------------------------------------ composition
    def __copy__(self):
        return Symbol(copy_graph(self._entries))

    def __deepcopy__(self, memo):
        return self.__copy__()

    def __call__(self, *args, **kwargs):
        """A copy with its variables replaced by the given symbols (``net(data=x)``)."""
        result = self.__copy__()
        result._compose(*args, **kwargs)
        return result

    def _compose(self, *args, **kwargs):
        """Replace this symbol's free variables, named as keywords, with the outputs of
        other symbols."""
        name = kwargs.pop('name', None)
        if args and kwargs:
            raise TypeError('compose only accept input Symbols either as positional or '
                            'keyword arguments, not both')
        for value in list(args) + list(kwargs.values()):
            if not isinstance(value, Symbol):
                raise TypeError('Compose expect `Symbol` as arguments')
        if args:  # as MXNet: an operator's inputs are given when it is created
            raise MXNetError('General composition only supports keyword arguments: name the '
                             'variables to replace, e.g. net(data=x)')
        arguments = self.list_arguments()
        unknown = sorted(set(kwargs) - set(arguments))
        if unknown:
            raise MXNetError('compose: %s name no argument of this symbol, whose arguments '
                             'are %s' % (unknown, arguments))
        entries = {key: _single_entry(sym, key) for key, sym in kwargs.items()}
        for node in self._nodes():
            node.inputs = [entries.get(child.name, (child, i)) if child.op is None
                           else (child, i) for child, i in node.inputs]
        self._entries = [entries.get(n.name, (n, i)) if n.op is None else (n, i)
                         for n, i in self._entries]
        head = self._single_node()
        if name and head is not None and head.op is not None:
            head.name = name

    # ------------------------------------------------------------------ inference
    def infer_shape(self, *args, **kwargs):
        """Shapes of the arguments, outputs and auxiliary states from some input shapes.

        Give shapes by position (``list_arguments`` order) or by name
        (``infer_shape(data=(32, 10))``). Returns ``(arg_shapes, out_shapes, aux_shapes)``;
        ``(None, None, None)`` with a warning naming what is missing if some shape cannot
        be decided.
        """
        from . import inference
        return inference.infer_shape(self, args, kwargs, partial=False)

    def infer_shape_partial(self, *args, **kwargs):
        """As :meth:`infer_shape`, leaving ``()`` (or 0 sizes) where a shape is unknown."""
        from . import inference
        return inference.infer_shape(self, args, kwargs, partial=True)

    def infer_type(self, *args, **kwargs):
        """dtypes of the arguments, outputs and auxiliary states from some input dtypes;
        ``(None, None, None)`` with a warning if some cannot be decided."""
        from . import inference
        return inference.infer_type(self, args, kwargs, partial=False)

    def infer_type_partial(self, *args, **kwargs):
        """As :meth:`infer_type`, leaving None where a dtype is unknown."""
        from . import inference
        return inference.infer_type(self, args, kwargs, partial=True)

    # ------------------------------------------------------------------ files
    def tojson(self, remove_amp_cast=True):
        """The graph in MXNet's JSON format (what ``mx.sym.load_json`` reads)."""
        from . import serialization
        return serialization.dumps(self)

    def save(self, fname, remove_amp_cast=True):
        """Write :meth:`tojson` to ``fname`` (MXNet's ``-symbol.json`` files)."""
        if not isinstance(fname, str):
            raise TypeError('fname must be a string')
        from ..files import atomic_write
        text = self.tojson(remove_amp_cast).encode('utf-8')
        atomic_write(fname, lambda f: f.write(text))

    def __getstate__(self):
        return {'handle': self.tojson()}

    def __setstate__(self, state):
        self._entries = load_json(state['handle'])._entries

    def debug_str(self):
        """A readable listing of the graph: one line per variable and operator."""
        lines = []
        for node in self._nodes():
            if node.op is None:
                lines.append('Variable:%s' % node.name)
                continue
            lines.append('--------------------')
            lines.append('Op:%s, Name=%s' % (node.op.name, node.name))
            lines.append('Inputs:')
            for k, (child, i) in enumerate(node.inputs):
                lines.append('\targ[%d]=%s(%d)' % (k, child.output_name(i), i))
            if node.attrs:
                lines.append('Attrs:')
                lines.extend('\t%s=%s' % kv for kv in sorted(node.attrs.items()))
        return '\n'.join(lines) + '\n'

    # ------------------------------------------------------------------ evaluation
    def bind(self, ctx, args, args_grad=None, grad_req='write', aux_states=None,
             group2ctx=None, shared_exec=None):
        """An :class:`~gluonedu.symbol.executor.Executor` over the given arrays."""
        from .executor import Executor
        return Executor(self, ctx, args, args_grad, grad_req, aux_states)

    def simple_bind(self, ctx, grad_req='write', type_dict=None, stype_dict=None,
                    group2ctx=None, shared_arg_names=None, shared_exec=None,
                    shared_buffer=None, **kwargs):
        """An Executor with zero-filled arrays of the shapes inferred from ``kwargs``."""
        from .executor import simple_bind
        return simple_bind(self, ctx, grad_req, type_dict or {}, stype_dict or {}, kwargs)

    def eval(self, ctx=None, **kwargs):
        """The outputs (a list of NDArrays) for the arrays given by name."""
        from ..context import cpu
        return self.bind(ctx or cpu(), kwargs).forward()

    # ------------------------------------------------------------------ not for symbols
    def __bool__(self):
        raise NotImplementedForSymbol(self.__bool__, 'bool')

    def _no_values(self, *args, **kwargs):
        raise NotImplementedForSymbol(self._no_values, None)

    wait_to_read = asnumpy = asscalar = copy = as_in_context = detach = backward = _no_values

    # ------------------------------------------------------------------ arithmetic
    def _binary(self, other, op, hint, scalar_op, scalar_hint):
        if isinstance(other, Symbol):
            return _apply(op, hint, self, other)
        if isinstance(other, numbers.Number):
            return _apply(scalar_op, scalar_hint, self, scalar=other)
        raise TypeError('type %s not supported' % str(type(other)))

    def _reflected(self, other, scalar_op, scalar_hint):
        if isinstance(other, numbers.Number):
            return _apply(scalar_op, scalar_hint, self, scalar=other)
        raise TypeError('type %s not supported' % str(type(other)))

    def __add__(self, other):
        return self._binary(other, 'elemwise_add', '_plus', '_plus_scalar', '_plusscalar')

    __iadd__ = __radd__ = __add__

    def __sub__(self, other):
        return self._binary(other, 'elemwise_sub', '_minus', '_minus_scalar', '_minusscalar')

    __isub__ = __sub__

    def __rsub__(self, other):
        return self._reflected(other, '_rminus_scalar', '_rminusscalar')

    def __mul__(self, other):
        return self._binary(other, 'elemwise_mul', '_mul', '_mul_scalar', '_mulscalar')

    __imul__ = __rmul__ = __mul__

    def __truediv__(self, other):
        return self._binary(other, 'elemwise_div', '_div', '_div_scalar', '_divscalar')

    __itruediv__ = __div__ = __truediv__

    def __rtruediv__(self, other):
        return self._reflected(other, '_rdiv_scalar', '_rdivscalar')

    __rdiv__ = __rtruediv__

    def __mod__(self, other):
        return self._binary(other, '_mod', '_mod', '_mod_scalar', '_modscalar')

    __imod__ = __mod__

    def __rmod__(self, other):
        return self._reflected(other, '_rmod_scalar', '_rmodscalar')

    def __pow__(self, other):
        return self._binary(other, '_power', '_power', '_power_scalar', '_powerscalar')

    def __rpow__(self, other):
        return self._reflected(other, '_rpower_scalar', '_rpower_scalar')

    def __neg__(self):
        return self.__mul__(-1.0)

    def __abs__(self):
        return _apply('abs', 'abs', self)

    def __eq__(self, other):
        return self._binary(other, '_equal', '_equal', '_equal_scalar', '_equal_scalar')

    def __ne__(self, other):
        return self._binary(other, '_not_equal', '_not_equal', '_not_equal_scalar',
                            '_not_equal_scalar')

    def __gt__(self, other):
        return self._binary(other, '_greater', '_greater', '_greater_scalar',
                            '_greater_scalar')

    def __ge__(self, other):
        return self._binary(other, '_greater_equal', '_greater_equal',
                            '_greater_equal_scalar', '_greater_equal_scalar')

    def __lt__(self, other):
        return self._binary(other, '_lesser', '_lesser', '_lesser_scalar', '_lesser_scalar')

    def __le__(self, other):
        return self._binary(other, '_lesser_equal', '_lesser_equal', '_lesser_equal_scalar',
                            '_lesser_equal_scalar')

    __hash__ = None  # as MXNet: == builds a symbol, so symbols are not dict keys

    # ------------------------------------------------------------------ methods
    def astype(self, dtype, **kwargs):
        """Same as ``mx.sym.cast(self, dtype=dtype)``."""
        return _apply('Cast', 'cast', self, dtype=dtype, **kwargs)

    def flatten(self, inplace=False, **kwargs):
        """Same as ``mx.sym.flatten(self)`` (``inplace`` is ignored, as in MXNet)."""
        return _apply('Flatten', 'flatten', self, **kwargs)

    def expand_dims(self, axis, inplace=False, **kwargs):
        """Same as ``mx.sym.expand_dims(self, axis)`` (``inplace`` is ignored)."""
        return _apply('expand_dims', 'expand_dims', self, axis=axis, **kwargs)

    def squeeze(self, axis=None, inplace=False, **kwargs):
        """Same as ``mx.sym.squeeze(self, axis)`` (``inplace`` is ignored)."""
        return _apply('squeeze', 'squeeze', self, axis=axis, **kwargs)


def _single_entry(symbol, key):
    if len(symbol._entries) != 1:
        raise MXNetError('compose: %s must be a symbol of one output, not %d'
                         % (key, len(symbol._entries)))
    return symbol._entries[0]


def _listed_attrs(node):
    """A node's attributes as MXNet lists them: hidden keys also without underscores."""
    attrs = dict(node.attrs)
    for key in HIDDEN_KEYS:
        if '__%s__' % key in node.attrs:
            attrs[key] = node.attrs['__%s__' % key]
    return attrs


def _apply(op_name, hint, *args, **kwargs):
    from . import register
    return register.create(op_name, hint, args, kwargs)


# ---------------------------------------------------------------------- construction
def var(name, attr=None, shape=None, lr_mult=None, wd_mult=None, dtype=None, init=None,
        stype=None, **kwargs):
    """A variable: a named input of the computation (data, a weight).

    shape, dtype : hints for ``infer_shape`` / ``infer_type`` (0 marks an unknown size).
    lr_mult, wd_mult : the optimizer's multipliers for this weight.
    init : an Initializer (or its name) for this weight.
    stype : 'default', 'row_sparse' or 'csr'.
    attr, kwargs : more attributes; keyword ones must be ``__named__`` like this.
    """
    if not isinstance(name, str):
        raise TypeError('Expect a string for variable `name`')
    attrs = attribute.current().get(attr)
    if shape is not None:
        attrs['__shape__'] = str(shape)
    if lr_mult is not None:
        attrs['__lr_mult__'] = str(lr_mult)
    if wd_mult is not None:
        attrs['__wd_mult__'] = str(wd_mult)
    if dtype is not None:
        attrs['__dtype__'] = str(_dtype_code(dtype))
    if init is not None:
        attrs['__init__'] = init if isinstance(init, str) else init.dumps()
    if stype is not None:
        if stype not in STYPE_TO_MX:
            raise MXNetError("unknown storage type %r: use 'default', 'row_sparse' or 'csr'"
                             % (stype,))
        attrs['__storage_type__'] = str(STYPE_TO_MX[stype])
    for key, value in kwargs.items():
        if not is_dunder(key):
            raise ValueError('Attribute name=%s is not supported. Additional attributes must '
                             'start and end with double underscores, e.g, __yourattr__' % key)
        attrs[key] = str(value)
    for value in attrs.values():
        if not isinstance(value, str):
            raise ValueError('Set Attr only accepts string values')
    return Symbol([(Node(None, name, normalize_attr_keys(attrs)), 0)])


Variable = var


def _dtype_code(dtype):
    try:
        return DTYPE_TO_MX[np.dtype(dtype)]
    except (KeyError, TypeError):
        raise MXNetError('dtype %r has no MXNet type code; use one of %s'
                         % (dtype, ', '.join(sorted(d.name for d in DTYPE_TO_MX)))) from None


def Group(symbols):  # pylint: disable=invalid-name
    """One symbol whose outputs are those of ``symbols``, in order."""
    if not symbols or any(not isinstance(s, Symbol) for s in symbols):
        raise TypeError('Expected a list of symbols as input')
    return Symbol([entry for s in symbols for entry in s._entries])


def load_json(json_str):
    """The Symbol of MXNet JSON text (checked completely first: MXNetError if invalid)."""
    if not isinstance(json_str, str):
        raise TypeError('fname required to be string')
    from . import serialization
    return serialization.loads(json_str)


def load(fname):
    """The Symbol saved in the file ``fname`` (``-symbol.json``), checked completely."""
    if not isinstance(fname, str):
        raise TypeError('fname need to be string')
    from . import serialization
    return serialization.load_file(fname)


def _operator_method(name):
    def method(self, *args, **kwargs):
        from . import register
        return register.function(name)(self, *args, **kwargs)
    method.__name__ = method.__qualname__ = name
    method.__doc__ = 'Same as ``mx.sym.%s(self, ...)``.' % name
    return method


#: MXNet 1.9.1's Symbol methods that call the operator of the same name on ``self``.
_OPERATOR_METHODS = (
    'reshape', 'reshape_like', 'zeros_like', 'ones_like', 'broadcast_axes', 'repeat', 'pad',
    'swapaxes', 'split', 'split_v2', 'slice', 'slice_axis', 'slice_like', 'take', 'one_hot',
    'pick', 'sort', 'topk', 'argsort', 'argmax', 'argmax_channel', 'argmin', 'clip', 'abs',
    'sign', 'shape_array', 'size_array', 'broadcast_to', 'broadcast_like', 'tile',
    'transpose', 'flip', 'depth_to_space', 'space_to_depth', 'diag', 'sum', 'nansum', 'prod',
    'nanprod', 'mean', 'max', 'min', 'norm', 'round', 'rint', 'fix', 'floor', 'ceil', 'trunc',
    'sin', 'cos', 'tan', 'arcsin', 'arccos', 'arctan', 'degrees', 'radians', 'sinh', 'cosh',
    'tanh', 'arcsinh', 'arccosh', 'arctanh', 'exp', 'expm1', 'log', 'log10', 'log2', 'log1p',
    'sqrt', 'rsqrt', 'cbrt', 'rcbrt', 'square', 'reciprocal', 'relu', 'sigmoid', 'softmax',
    'log_softmax', 'softmin')

for _name in _OPERATOR_METHODS:
    setattr(Symbol, _name, _operator_method(_name))
