"""Evaluating a symbol's graph on NDArrays: :class:`Plan` and MXNet's ``Executor``.

A :class:`Plan` is the graph compiled once into a list of steps — "run operator ``op``
with these parameters on slots 3 and 5, put its outputs in slot 7" — over a list of
slots that starts with the inputs' arrays. Running it calls each operator of the table
exactly as ``mx.nd`` does, so results are those of the imperative code and, inside
``autograd.record()``, every step is recorded: gradients flow through a graph as through
the NDArray code it was traced from. ``HybridBlock`` runs its cached graph with a Plan.

:class:`Executor` (``sym.bind``, ``sym.simple_bind``) is MXNet's classic interface on
top: arrays bound to the arguments, ``forward(is_train)``, ``backward(out_grads)``, and
the gradients in ``grad_arrays``.
"""
from collections import OrderedDict

from .. import autograd
from ..base import MXNetError
from ..context import Context
from .. import ndarray as nd
from ..ndarray import NDArray, _graph
from . import inference
from .graph import mutated_variables, topological

__all__ = ['Plan', 'Executor', 'simple_bind']

#: Operators whose outputs are losses: MXNet's backward needs no head gradient for them.
LOSS_OPERATORS = frozenset(('make_loss', 'LinearRegressionOutput', 'LogisticRegressionOutput',
                            'MAERegressionOutput'))


class Plan:
    """A symbol compiled for evaluation; ``run(inputs)`` gives the outputs.

    ``input_names`` lists the variables in ``list_inputs()`` order: ``run`` takes one
    NDArray for each, in that order. An array created inside the graph with sizes left
    unknown (``sym.zeros(shape=(2, 0, 4))``: a recurrent layer's default states) gets them,
    as in MXNet, from the shapes the inputs' shapes imply (inferred once per input shapes).
    """

    def __init__(self, symbol):
        order = topological(symbol._entries)
        variables = [node for node in order if node.op is None]
        self.input_names = [node.name for node in variables]
        slots = {(id(node), 0): k for k, node in enumerate(variables)}
        self.steps = []
        self.nodes = []      # the operator node of each step
        self._unsized = {}   # step index -> its node: a creation with unknown sizes
        count = len(variables)
        for node in order:
            if node.op is None:
                continue
            n = node.num_outputs()
            if not node.inputs and 0 in (node.params.get('shape') or ()):
                self._unsized[len(self.steps)] = node
            self.steps.append((node.op, node.params,
                               [slots[(id(child), i)] for child, i in node.inputs], count, n))
            self.nodes.append(node)
            for i in range(n):
                slots[(id(node), i)] = count + i
            count += n
        self.size = count
        self.outputs = [slots[(id(node), i)] for node, i in symbol._entries]
        #: The slots some step reads or the graph returns (the others are never used).
        self.used = {k for step in self.steps for k in step[2]} | set(self.outputs)
        self._symbol = symbol
        self._sized = {}     # input shapes -> steps with every creation's shape known

    def _steps_for(self, inputs):
        """The steps, the unknown sizes of creations filled in from the inputs' shapes."""
        if not self._unsized:
            return self.steps
        key = tuple(x.shape for x in inputs)
        steps = self._sized.get(key)
        if steps is None:
            known = inference.output_shapes(self._symbol, dict(zip(self.input_names, key)))
            steps = list(self.steps)
            for index, node in self._unsized.items():
                shape = known.get((id(node), 0))
                if shape is not None and all(shape):
                    op, params, sources, first, n = steps[index]
                    steps[index] = (op, dict(params, shape=tuple(shape)), sources, first, n)
            self._sized[key] = steps
        return steps

    @property
    def num_operators(self):
        """How many operator nodes the graph has (MXNet's measure for inlining)."""
        return len(self.steps)

    def run(self, inputs, hook=None):
        """The outputs (a list of NDArrays) for ``inputs`` in ``input_names`` order.

        Inside ``autograd.record()`` each step is recorded with its node's attributes.
        ``hook``, if given, is called ``hook(step index, arrays, False)`` before each step
        with its inputs and ``hook(step index, arrays, True)`` after it with its outputs.
        """
        values = list(inputs) + [None] * (self.size - len(inputs))
        recording = _graph.STATE.recording
        for k, (op, params, sources, first, n) in enumerate(self._steps_for(inputs)):
            arrays = [values[j] for j in sources]
            if hook is not None:
                hook(k, arrays, False)
            result = op.run(arrays, params)
            if n == 1:
                values[first] = result
            else:
                values[first:first + n] = result
            if recording:
                _graph.set_attrs(values[first:first + n], self.nodes[k].attrs)
            if hook is not None:
                hook(k, values[first:first + n], True)
        return [values[k] for k in self.outputs]


def _as_dict(values, names, what):
    """``{name: array}`` from a list in ``names`` order or a dict."""
    if values is None:
        return {}
    if isinstance(values, dict):
        unknown = sorted(set(values) - set(names))
        if unknown:
            raise MXNetError('bind: %s %s are not among the symbol\'s %s (%s)'
                             % (what, unknown, what, ', '.join(names)))
        return dict(values)
    values = list(values)
    if len(values) != len(names):
        raise MXNetError('bind: %d %s given for %d (%s)' % (len(values), what, len(names),
                                                           ', '.join(names)))
    return dict(zip(names, values))


class Executor:
    """A symbol bound to arrays: ``forward`` computes the outputs, ``backward`` the
    gradients of the arguments (into ``grad_arrays``, per ``grad_req``).

    Build one with ``sym.bind(ctx, args, args_grad, grad_req, aux_states)`` or
    ``sym.simple_bind(ctx, data=(32, 10))``.
    """

    def __init__(self, symbol, ctx, args, args_grad=None, grad_req='write', aux_states=None):
        if not isinstance(ctx, Context):
            raise TypeError('bind: ctx must be a Context such as mx.cpu(), got %r' % (ctx,))
        self._symbol = symbol
        self._ctx = ctx
        self._plan = Plan(symbol)
        order = topological(symbol._entries)
        mutated = mutated_variables(order)
        arg_names = [n.name for n in order if n.op is None and id(n) not in mutated]
        aux_names = [n.name for n in order if n.op is None and id(n) in mutated]
        args = _as_dict(args, arg_names, 'arguments')
        missing = [n for n in arg_names if n not in args]
        if missing:
            raise MXNetError('bind: no array given for the arguments %s' % missing)
        aux = _as_dict(aux_states, aux_names, 'auxiliary states')
        missing = [n for n in aux_names if n not in aux]
        if missing:
            raise MXNetError('bind: no array given for the auxiliary states %s' % missing)
        for name, value in list(args.items()) + list(aux.items()):
            if not isinstance(value, NDArray):
                raise TypeError('bind: %s must be an NDArray, got %s'
                                % (name, type(value).__name__))
        self.arg_dict = OrderedDict((n, args[n]) for n in arg_names)
        self.aux_dict = OrderedDict((n, aux[n]) for n in aux_names)
        self.grad_dict = self._bind_grads(arg_names, args_grad, grad_req)
        self.outputs = []
        self._recorded = False

    def _bind_grads(self, arg_names, args_grad, grad_req):
        if isinstance(grad_req, str):
            reqs = {n: grad_req for n in arg_names}
        else:
            reqs = _as_dict(grad_req, arg_names, 'grad_req')
        grads = _as_dict(args_grad, arg_names, 'gradients')
        if args_grad is None:
            reqs = {n: 'null' for n in arg_names}
        for name, req in reqs.items():
            if req not in ('write', 'add', 'null'):
                raise ValueError("grad_req must be 'write', 'add' or 'null', got %r" % (req,))
            if req != 'null' and grads.get(name) is None:
                raise MXNetError('bind: %s has grad_req=%r but no gradient array'
                                 % (name, req))
        self._reqs = {n: reqs.get(n, 'null') for n in arg_names}
        return OrderedDict((n, grads.get(n)) for n in arg_names)

    # ------------------------------------------------------------------ arrays
    @property
    def arg_arrays(self):
        return list(self.arg_dict.values())

    @property
    def grad_arrays(self):
        return list(self.grad_dict.values())

    @property
    def aux_arrays(self):
        return list(self.aux_dict.values())

    @property
    def output_dict(self):
        return OrderedDict(zip(self._symbol.list_outputs(), self.outputs))

    def copy_params_from(self, arg_params, aux_params=None, allow_extra_params=False):
        """Copy values into the bound arguments and auxiliary states, by name."""
        for source, target, what in ((arg_params, self.arg_dict, 'argument'),
                                     (aux_params or {}, self.aux_dict, 'auxiliary state')):
            for name, value in source.items():
                if name in target:
                    value.copyto(target[name])
                elif not allow_extra_params:
                    raise ValueError('Find name "%s" that is not in the %ss' % (name, what))

    # ------------------------------------------------------------------ running
    def _inputs(self, record):
        """The arrays of the plan's inputs: for gradients, views of the bound arrays made
        variables of differentiation (so the caller's arrays keep their own state)."""
        values = dict(self.aux_dict)
        for name, value in self.arg_dict.items():
            if record and self._reqs[name] != 'null':
                value = value.detach()  # shares the data, not the autograd state
                autograd.mark_variables(value, self.grad_dict[name], self._reqs[name])
            values[name] = value
        return [values[name] for name in self._plan.input_names]

    def forward(self, is_train=False, **kwargs):
        """Compute the outputs (training mode with ``is_train``); keyword arrays are first
        copied into the bound arguments of those names."""
        for name, value in kwargs.items():
            if name not in self.arg_dict:
                raise MXNetError('forward: unknown argument %r (the arguments are %s)'
                                 % (name, ', '.join(self.arg_dict)))
            self.arg_dict[name][:] = value
        record = is_train and any(req != 'null' for req in self._reqs.values())
        scope = autograd.record(train_mode=True) if record else \
            autograd.pause(train_mode=is_train)
        with scope:
            self.outputs = self._plan.run(self._inputs(record))
        self._recorded = record
        return self.outputs

    def backward(self, out_grads=None, is_train=True):
        """Write the arguments' gradients for the last ``forward(is_train=True)``."""
        if not self._recorded:
            raise MXNetError('backward: call forward(is_train=True) first, with gradients '
                             'bound (args_grad) for some argument')
        if out_grads is None and self._ends_in_losses():
            autograd.backward(self.outputs, train_mode=is_train)
            return
        if out_grads is None:  # as MXNet, without a loss operator at the end
            raise MXNetError('backward: the last operator is not a loss function, so give the '
                             'head gradient: backward(out_grads=[mx.nd.ones(shape)]) to '
                             'minimize the output\'s sum')
        if isinstance(out_grads, NDArray):
            out_grads = [out_grads]
        autograd.backward(self.outputs, out_grads, train_mode=is_train)

    def _ends_in_losses(self):
        """Whether every output is a loss operator's (whose gradient needs no head)."""
        return all(node.op is not None and node.op.name in LOSS_OPERATORS
                   for node, _ in self._symbol._entries)


def simple_bind(symbol, ctx, grad_req, type_dict, stype_dict, shapes):
    """An Executor with zero-filled arguments, gradients and auxiliary states, their
    shapes and dtypes inferred from ``shapes`` (and ``type_dict``)."""
    arg_shapes, _, aux_shapes = symbol.infer_shape(**shapes)
    if arg_shapes is None:
        raise MXNetError('simple_bind: the shapes %s do not decide every argument\'s shape; '
                         'give more of them' % (shapes,))
    arg_types, _, aux_types = symbol.infer_type(**type_dict)
    if arg_types is None:
        arg_types = [None] * len(arg_shapes)
        aux_types = [None] * len(aux_shapes)
    names = symbol.list_arguments()

    def zeros(shape, dtype):
        return nd.zeros(shape, ctx=ctx, dtype=dtype)
    args = [zeros(s, t) for s, t in zip(arg_shapes, arg_types)]
    grads = None if grad_req == 'null' else [zeros(s, t) for s, t in zip(arg_shapes,
                                                                          arg_types)]
    aux = [zeros(s, t) for s, t in zip(aux_shapes, aux_types)]
    return Executor(symbol, ctx, dict(zip(names, args)),
                    None if grads is None else dict(zip(names, grads)), grad_req,
                    dict(zip(symbol.list_auxiliary_states(), aux)))
