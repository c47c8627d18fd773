"""The operator table: each operator declared once, with its inputs, typed parameters and code.

The parameter types live in :mod:`gluonedu.ndarray.param_types`; this module re-exports
them, so that an operator module imports its whole declaration vocabulary from here.

As in MXNet, an operator is a named entry — ``FullyConnected``, ``broadcast_add``,
``_plus_scalar`` (the names MXNet's symbol JSON uses) — that lists its array inputs, its
typed parameters and its implementation. The ``mx.nd`` functions are generated from the
entries, so every argument check lives here, in one place:

* arguments bind as MXNet's generated functions bind them: array inputs first, then the
  parameters in declared order, then ``out`` and ``name``; an unknown keyword is an
  ``MXNetError`` that lists the valid ones;
* each parameter parses a Python value or MXNet's string form (``"(3, 3)"``, ``"True"``,
  ``"None"``, ``"float32"``) to one canonical value, with MXNet's type, range and choice
  rules; axis parameters are checked against the input's ``ndim`` and made non-negative;
* inputs must be NDArrays on one context, of one dtype where the operator says so.

An implementation is ``forward(env, *arrays, **params) -> (result, backward)``: ``arrays``
are the inputs' NumPy/CuPy arrays, ``env`` gives the array module (``env.xp``), the context
and the training flag, and ``backward(out_grad) -> input grads`` (or ``None`` where no
gradient flows). ``docs/operators.md`` explains how to add one.
"""
import inspect
import re

import numpy as np

from .. import _backend
from ..base import MXNetError
from ..context import Context
from . import _graph
from .ndarray import NDArray, _move
# The parameter types are the table's declaration vocabulary: operator modules take them
# from here together with ``Op`` and ``add``.
from .param_types import (FLOATS, Axes, Axis, BadValue, Bool, DType, Enum, Float, Floats, Int,
                          Param, Shape, Str, check_size, frontend_dtype, numpy_dtype)

__all__ = ['Op', 'Param', 'Int', 'Float', 'Floats', 'Bool', 'Shape', 'Axis', 'Axes', 'Enum',
           'DType', 'Str', 'register', 'add', 'on_add', 'get', 'list_ops', 'make_function',
           'docstring', 'invoke',
           'numpy_dtype', 'check_size', 'check_arrays', 'FLOATS']

_OPS = {}      # name or alias -> Op
_ORDER = []    # every Op once, in registration order


# ---------------------------------------------------------------------- the operator
def _given_text(key, value):
    """A parameter's value as MXNet's frontend passes it to the engine: ``str`` of it (a
    dtype by its name)."""
    if key == 'dtype' and value is not None:
        return np.dtype(value).name
    return str(value)


class OpEnv:
    """What an implementation may use besides its arrays: ``xp``, ``ctx``, ``is_train``."""
    __slots__ = ('ctx', 'xp', 'gpu')

    def __init__(self, ctx):
        self.ctx = ctx
        self.xp = _backend.array_module(ctx)
        self.gpu = ctx.device_type == 'gpu'

    @property
    def is_train(self):
        """True inside ``autograd.record()`` / ``train_mode()``."""
        return _STATE.training


_STATE = _graph.STATE
_ENVS = {}


def _env(ctx):
    key = (ctx.device_typeid, ctx.device_id)
    env = _ENVS.get(key)
    if env is None:
        env = _ENVS[key] = OpEnv(ctx)
    return env


class Op:
    """One operator of the table.

    name : MXNet's operator name (as in symbol JSON); ``aliases`` are its other names.
    inputs : the names of its array inputs, in order (a single ``'*data'`` means any
        number, counted by the ``num_args`` parameter).
    count : for any number of inputs, ``(parameter, inputs per unit, more inputs)``: the
        parameter that counts units, how many inputs each unit takes and how many inputs
        follow them (``preloaded_multi_sgd_update``: ``('num_weights', 2, 2)``, a weight
        and its gradient each, then the lrs and the wds); ``('num_args', 1, 0)`` by
        default, the one count MXNet's frontend fills in itself.
    params : its :class:`Param` declarations, in MXNet's order.
    forward : ``forward(env, *arrays, **params) -> (result, backward)``; None for an
        operator implemented on NDArrays by ``compute_ex`` alone.
    num_outputs : an int, or ``f(params) -> int``.
    drop_inputs : ``f(params) -> names`` of inputs the params switch off (FullyConnected's
        ``bias`` with ``no_bias=True``).
    same_dtype : True (all inputs), or the names of the inputs that must share a dtype.
    dtypes : the dtype names the inputs may have (None: any), e.g. ``FLOATS`` for MXNet's
        softmax family.
    quiet : silence NumPy's divide/invalid/overflow warnings (log(0), 0/0, exp(1000) give
        -inf/nan/inf as MXNet, silently).
    compute_ex : ``compute_ex(inputs, params) -> NDArray`` (or a list) on the NDArray
        inputs themselves, recording its own gradient: for non-default storage (row_sparse,
        csr) inputs, or for every call when ``forward`` is None; without it sparse inputs
        are made dense first.
    from_out : a ``shape`` or ``dtype`` left unset ('None') is that of ``out=`` (the
        samplers).
    infer_shape : ``f(in_shapes, out_shapes, params) -> (in_shapes, out_shapes)``, the
        operator's shape rule for symbols (:mod:`.infer` has the common ones). Shapes are
        tuples, 0 marking an unknown size, or None where nothing is known; the rule fills in
        what it can and raises MXNetError on a contradiction.
    infer_type : ``f(in_dtypes, out_dtypes, params) -> (in_dtypes, out_dtypes)`` (NumPy
        dtypes or None); by default the inputs share one dtype and the outputs have it, or
        the ``dtype`` parameter's.
    mutate_inputs : the names of the inputs the operator updates in place (BatchNorm's
        running statistics): a symbol's auxiliary states.
    output_names : the names of the outputs (a tuple, or ``f(params) -> tuple``); by
        default ``output``, or ``output0``, ``output1``, ... for several.
    hidden_outputs : how many more outputs MXNet's operator has that it does not show
        (Dropout's mask); an int or ``f(params) -> int``. They count in a symbol file's
        ``node_row_ptr`` only.
    """

    def __init__(self, name, forward, inputs=('data',), params=(), aliases=(), num_outputs=1,
                 drop_inputs=None, same_dtype=True, dtypes=None, quiet=False,
                 compute_ex=None, from_out=False, infer_shape=None, infer_type=None,
                 mutate_inputs=(), output_names=None, hidden_outputs=0, doc=None,
                 count=('num_args', 1, 0)):
        self.name = name
        self.forward = forward
        self.aliases = tuple(aliases)
        self.variadic = len(inputs) == 1 and inputs[0].startswith('*')
        self.input_names = (inputs[0][1:],) if self.variadic else tuple(inputs)
        self.params = {p.name: p for p in params}
        self.count_param, self.inputs_per_count, self.more_inputs = count
        if self.variadic and self.count_param not in self.params:
            raise ValueError('%s: an operator of any number of inputs needs a %s '
                             'parameter' % (name, self.count_param))
        self._num_outputs = num_outputs
        self.drop_inputs = drop_inputs
        self.same_dtype = same_dtype
        self.dtypes = None if dtypes is None else frozenset(np.dtype(d) for d in dtypes)
        self.quiet = quiet
        self.compute_ex = compute_ex
        self.from_out = from_out
        self.infer_shape = infer_shape
        self.infer_type = infer_type
        self.mutate_inputs = tuple(mutate_inputs)
        self._output_names = output_names
        self._hidden_outputs = hidden_outputs
        self.doc = inspect.cleandoc(doc or (forward or compute_ex).__doc__ or '')
        self.defaults = {p.name: p.default for p in params if not p.required}
        self.required = tuple(p.name for p in params if p.required)
        self.axis_params = tuple(p for p in params if isinstance(p, (Axis, Axes)))
        self._positional = (() if self.variadic else self.input_names) + tuple(self.params)
        # A call with just its inputs needs no binding: no required params, no optional inputs.
        self._plain = not (self.variadic or self.required or drop_inputs)

    def __repr__(self):
        return '<Op %s>' % self.name

    # ---------------------------------------------------------------- introspection
    def num_outputs(self, params):
        """How many arrays the operator returns for ``params``."""
        n = self._num_outputs
        return n(params) if callable(n) else n

    def hidden_outputs(self, params):
        """How many outputs MXNet's operator keeps hidden for ``params``."""
        n = self._hidden_outputs
        return n(params) if callable(n) else n

    def output_names(self, params):
        """The names of the outputs for ``params`` (a symbol's ``<name>_<output>``)."""
        names = self._output_names
        if names is not None:
            return tuple(names(params) if callable(names) else names)
        n = self.num_outputs(params)
        return ('output',) if n == 1 else tuple('output%d' % i for i in range(n))

    def list_inputs(self, params):
        """The names of the array inputs the operator takes for ``params``."""
        if self.variadic:
            return tuple('%s%d' % (self.input_names[0], i)
                         for i in range(self.count_inputs(params)))
        dropped = self.drop_inputs(params) if self.drop_inputs is not None else ()
        if not dropped:
            return self.input_names
        return tuple(n for n in self.input_names if n not in dropped)

    def count_inputs(self, params):
        """How many array inputs an operator of any number of them takes for ``params``."""
        return params[self.count_param] * self.inputs_per_count + self.more_inputs

    def check_count(self, params, given):
        """MXNetError unless ``given`` inputs are as many as ``params`` call for."""
        expected = self.count_inputs(params)
        if expected != given:
            raise MXNetError('%s: %s=%d but %d arrays were given (it calls for %d)'
                             % (self.name, self.count_param, params[self.count_param],
                                given, expected))

    def parse_params(self, given):
        """Complete, validated params from ``{name: value}`` (Python values or MXNet's
        strings, as a symbol's attributes hold them); unknown names raise MXNetError."""
        params = dict(self.defaults)
        if 'dtype' in given and len(given) > 1:  # MXNet's frontend converts dtype first
            given = {'dtype': given['dtype'], **given}
        for key, value in given.items():
            param = self.params.get(key)
            if param is None:
                raise self._unknown_argument(key)
            try:
                params[key] = param.parse(value)
            except BadValue:
                raise self._bad_value(param, value) from None
        if self.required:
            for key in self.required:
                if key not in given:
                    raise MXNetError('%s: the required parameter %s (%s) is missing'
                                     % (self.name, key, self.params[key].type_name))
        return params

    def parse_param(self, name, value):
        """One parameter's canonical value; MXNetError if it does not parse."""
        return self._parse(self.params[name], value)

    def format_params(self, params):
        """``{name: text}`` as MXNet writes a node's attributes (non-defaults only)."""
        return {k: self.params[k].format(v) for k, v in params.items()
                if k not in self.defaults or self.defaults[k] != v}

    def _parse(self, param, value):
        try:
            return param.parse(value)
        except BadValue:
            raise self._bad_value(param, value) from None

    def _bad_value(self, param, value):
        return MXNetError('%s: invalid value %r for parameter %s: expected %s'
                          % (self.name, value, param.name, param.type_name))

    def _unknown_argument(self, key):
        valid = ', '.join(self.input_names + tuple(self.params) + ('out', 'name'))
        return MXNetError('%s: unknown argument %r. Its arguments are: %s'
                          % (self.name, key, valid))

    # ---------------------------------------------------------------- calling
    def __call__(self, *args, **kwargs):
        """Call as ``mx.nd.<name>`` is called."""
        if self._plain and not kwargs and len(args) == len(self.input_names):
            return self.run(list(args), self.defaults)  # e.g. nd.sqrt(x): nothing to bind
        if 'dtype' in kwargs and kwargs['dtype'] is not None and 'dtype' in self.params:
            frontend_dtype(kwargs['dtype'])
        inputs, given, out = self._bind(args, kwargs)
        if self.variadic and self.count_param == 'num_args':
            given.setdefault('num_args', len(inputs))
        params = self.parse_params(given) if given or self.required else self.defaults
        if not self.variadic:
            inputs = self._active_inputs(inputs, params)
        else:
            self.check_count(params, len(inputs))
        if self.from_out and isinstance(out, NDArray):
            params = self._params_from_out(params, out)
        result = self.run(inputs, params, out)
        if given and _STATE.recording:  # the tape keeps the parameters given, as MXNet's
            _graph.set_attrs(result if isinstance(result, list) else (result,),
                             {key: _given_text(key, value) for key, value in given.items()})
        return result

    def _params_from_out(self, params, out):
        """As MXNet's samplers infer them: an unset shape/dtype is out='s."""
        params = dict(params)
        if 'shape' in params and params['shape'] is None:
            params['shape'] = out.shape
        if params.get('dtype') == 'None':
            params['dtype'] = np.dtype(out.dtype).name
        return params

    def _bind(self, args, kwargs):
        """Split an nd-style call into (inputs, given params, out), binding positional
        arguments as MXNet does: inputs, then parameters in order, then out and name."""
        out = kwargs.pop('out', None)
        kwargs.pop('name', None)
        for key in [k for k in kwargs if k.startswith('__') and k.endswith('__')]:
            del kwargs[key]  # a hidden attribute (__layout__): MXNet's operators ignore it
        given = {}
        if self.variadic:
            for value in args:
                if not isinstance(value, NDArray):
                    raise TypeError('%s: positional arguments must be NDArrays, got %s'
                                    % (self.name, type(value).__name__))
            for key, value in kwargs.items():
                if key not in self.params:
                    raise self._unknown_argument(key)
                given[key] = value
            return list(args), given, out
        positional, n_inputs = self._positional, len(self.input_names)
        if len(args) > len(positional) + 2:
            raise TypeError('%s() takes at most %d positional arguments (%d given)'
                            % (self.name, len(positional) + 2, len(args)))
        inputs = {}
        for i, value in enumerate(args):
            if i < n_inputs:
                inputs[positional[i]] = value
            elif i < len(positional):
                given[positional[i]] = value
            elif i == len(positional):
                out = value
        for key, value in kwargs.items():
            if key in self.params:
                target = given
            elif key in self.input_names:
                target = inputs
            else:
                raise self._unknown_argument(key)
            if key in target:
                raise TypeError('%s() got multiple values for argument %r' % (self.name, key))
            target[key] = value
        return inputs, given, out

    def _active_inputs(self, bound, params):
        """The bound inputs, in order, checked against the ones ``params`` call for.

        As MXNet's generated functions, the arrays given (None left out) fill the inputs
        ``params`` call for in declared order: a GRU's ``RNN(data, parameters, state,
        sequence_length)`` binds its fourth array to ``sequence_length``.
        """
        names = self.list_inputs(params)
        inputs = [bound[key] for key in self.input_names if bound.get(key) is not None]
        if len(inputs) != len(names):
            self._check_bound(bound, names)
        return inputs

    def _check_bound(self, bound, names):
        for key in names:
            if bound.get(key) is None:
                raise MXNetError('%s: the input %r is missing (this call takes %s)'
                                 % (self.name, key, ', '.join(names)))
        for key, value in bound.items():
            if key not in names and value is not None:
                raise MXNetError('%s: the input %r is not used with these parameters '
                                 '(this call takes %s)' % (self.name, key, ', '.join(names)))

    def run(self, inputs, params, out=None):
        """Run on NDArray ``inputs`` (in :meth:`list_inputs` order) with complete ``params``
        (from :meth:`parse_params`, left unchanged); the entry point a symbol executor
        calls."""
        env = self._check_inputs(inputs, params)
        try:
            return self._run(env, inputs, params, out)
        except _graph.NUMPY_ERRORS as err:
            # NumPy's complaint about these inputs (an empty max, a reshape of an empty
            # array) is the operator's error, as MXNet reports it
            raise MXNetError('%s: %s (inputs of shapes %s)' % (
                self.name, err, ', '.join(str(x.shape) for x in inputs))) from None

    def _run(self, env, inputs, params, out):
        if self.compute_ex is not None and (self.forward is None or
                                            any(x.stype != 'default' for x in inputs)):
            return _write_out(self, self._as_call(self.compute_ex(inputs, params), params), out)
        arrays = [x._data if type(x) is NDArray or x.stype == 'default'
                  else x.tostype('default')._data for x in inputs]
        if self.axis_params:
            params = self._normalized_axes(params, arrays[0].ndim)
        try:
            if env.gpu:
                with _backend.device_scope(env.ctx):
                    result, backward = self._quiet_forward(env, arrays, params)
            elif self.quiet:
                result, backward = self._quiet_forward(env, arrays, params)
            else:
                result, backward = self.forward(env, *arrays, **params)
        except MemoryError as err:
            raise MXNetError('%s: out of memory (%s)' % (self.name, err)) from None
        if backward is None and arrays and _STATE.recording:
            backward = _no_gradient(env.xp, arrays)
        if type(result) is list or type(result) is tuple:
            output = self._wrap_outputs(result, backward, inputs, env.ctx, params)
        else:
            output = NDArray(result, env.ctx)
            if backward is not None and _STATE.recording:
                _graph.record(output, inputs, backward, (self, params))
        return output if out is None else _write_out(self, output, out)

    def _as_call(self, result, params):
        """``result`` with what ``compute_ex`` recorded under this operator's name made a
        call of it with ``params``, as ``autograd.get_symbol`` shows it."""
        call = (self, params)
        for y in (result if isinstance(result, (list, tuple)) else (result,)):
            node = y._node
            if node is not None and node.op == self.name:
                node.op = call
        return result

    def _quiet_forward(self, env, arrays, params):
        if self.quiet:  # as MXNet: log(0) is -inf, 0/0 is nan, without NumPy's warnings
            with np.errstate(divide='ignore', invalid='ignore', over='ignore'):
                return self.forward(env, *arrays, **params)
        return self.forward(env, *arrays, **params)

    def _normalized_axes(self, params, ndim):
        """``params`` with its axes checked against ``ndim`` and made non-negative (a copy
        when anything changes: the caller's dict is left as it was)."""
        normalized = None
        for param in self.axis_params:
            value = params[param.name]
            if value:  # None, () and axis 0 need no checking
                if normalized is None:
                    normalized = dict(params)
                normalized[param.name] = param.normalize(self, value, ndim)
        return params if normalized is None else normalized

    def _wrap_outputs(self, results, backward, inputs, ctx, params):
        """NDArrays of a multi-output result; ``backward(out_grads)`` gets None for the
        outputs that receive no gradient. A single output is returned as itself."""
        outputs = [NDArray(y, ctx) for y in results]
        if len(outputs) == 1:
            outputs = outputs[0]
            if backward is not None:
                _graph.record(outputs, inputs, lambda g: backward([g]), (self, params))
            return outputs
        if backward is not None:
            _graph.record_outputs(outputs, inputs, backward, (self, params))
        return outputs

    def _check_inputs(self, inputs, params):
        """The :class:`OpEnv` of ``inputs`` after checking their types, context, dtypes."""
        if not inputs:
            return _env(_ctx_param(params.get('ctx')))
        ctx = check_arrays(self.name, inputs)
        if self.same_dtype and len(inputs) > 1:
            self._check_dtypes(inputs, params)
        if self.dtypes is not None:
            for x in inputs:
                if _dtype_of(x) not in self.dtypes:
                    raise MXNetError('%s does not support %s inputs; convert with .astype() to '
                                     'one of %s' % (self.name, _dtype_of(x),
                                                    ', '.join(sorted(map(str, self.dtypes)))))
        return _env(ctx)

    def _check_dtypes(self, inputs, params):
        if self.same_dtype is True:
            checked = inputs
        else:
            names = self.list_inputs(params)
            checked = [x for n, x in zip(names, inputs) if n in self.same_dtype]
        dtype = _dtype_of(checked[0])
        for x in checked[1:]:
            if _dtype_of(x) != dtype:
                raise MXNetError('%s: inputs have different dtypes (%s and %s). Convert one '
                                 'with .astype(\'%s\') first.'
                                 % (self.name, dtype, _dtype_of(x), dtype))


def not_differentiable(op_name):
    """The backward function of an operator MXNet registers no gradient for: differentiating
    through it raises MXNetError, as in MXNet."""
    def backward(*_):
        raise MXNetError('%s is not differentiable (MXNet registers no gradient for it): '
                         'compute it outside autograd.record()' % op_name)
    return backward


def _no_gradient(xp, arrays):
    """The backward function of an operator that passes no gradient on (argmax, one_hot,
    BlockGrad, ...): MXNet records it all the same, and its inputs receive zeros."""
    return lambda *_: tuple(xp.zeros_like(a) for a in arrays)


def _dtype_of(x):
    """An input's dtype (a sparse array's without making it dense)."""
    return x._data.dtype if type(x) is NDArray else np.dtype(x.dtype)


def check_arrays(op, arrays):
    """The one context of ``arrays``: TypeError unless each is an NDArray, MXNetError unless
    they share a context (what every operator checks of its inputs)."""
    ctx = None
    for x in arrays:
        if not isinstance(x, NDArray):
            raise TypeError('%s: array inputs must be NDArrays, got %s; convert with '
                            'mx.nd.array(...)' % (op, type(x).__name__))
        if ctx is None:
            ctx = x._ctx
        elif x._ctx is not ctx and x._ctx != ctx:
            raise MXNetError('%s: inputs live on different contexts (%s and %s). Move one '
                             'with .as_in_context(%s) or .copyto(ctx) first.'
                             % (op, ctx, x._ctx, ctx))
    return ctx


def _ctx_param(text):
    """The Context named by a creation operator's ``ctx`` text ('' is the current one)."""
    from ..context import current_context
    if text is None or text == '':
        return current_context()
    if isinstance(text, Context):
        return text
    name, _, rest = str(text).partition('(')
    if name not in ('cpu', 'gpu', 'cpu_pinned') or not re.fullmatch(r'\d*\)?', rest):
        raise MXNetError('invalid context %r: use e.g. mx.cpu(0) or "gpu(0)"' % (text,))
    return Context(name, int(rest.rstrip(')') or 0))


def _write_out(op, result, out):
    """Honour ``out=``: MXNet writes the result into ``out``, which must have its shape and
    dtype, and returns ``out``."""
    if out is None:
        return result
    if isinstance(out, (list, tuple)) and isinstance(result, NDArray) and len(out) == 1:
        _write_out(op, result, out[0])  # one output given as a list, as MXNet accepts
        return out
    if isinstance(result, list):
        if not isinstance(out, (list, tuple)) or len(out) != len(result):
            raise MXNetError('%s returns %d arrays: out= must be a list of %d NDArrays'
                             % (op.name, len(result), len(result)))
        return [_write_out(op, r, o) for r, o in zip(result, out)]
    if not isinstance(out, NDArray):
        raise TypeError('%s: out= must be an NDArray, got %s' % (op.name, type(out).__name__))
    if out.shape != result.shape or out.dtype != result.dtype:
        raise MXNetError('%s: out= has shape %s and dtype %s, but the result has shape %s and '
                         'dtype %s' % (op.name, out.shape, out.dtype.__name__, result.shape,
                                       result.dtype.__name__))
    if result._node is None and not _graph.STATE.recording and out.stype == 'default':
        out._data[...] = _move(result._data, result._ctx, out._ctx, copy=False)
    else:
        out._assign(result)
    return out


# ---------------------------------------------------------------------- the table
def register(name, inputs=('data',), params=(), aliases=(), **options):
    """Decorator: declare ``forward`` as the operator ``name`` (see :class:`Op`)."""
    def decorate(forward):
        add(Op(name, forward, inputs, params, aliases, **options))
        return forward
    return decorate


def add(op):
    """Put ``op`` in the table under its name and aliases; returns it."""
    for key in (op.name,) + op.aliases:
        if key in _OPS:
            raise ValueError('operator name %r is already registered (by %s)'
                             % (key, _OPS[key].name))
    for key in (op.name,) + op.aliases:
        _OPS[key] = op
    _ORDER.append(op)
    for listener in _LISTENERS:
        listener(op)
    return op


_LISTENERS = []


def on_add(listener):
    """Call ``listener(op)`` for every operator added from now on.

    The namespaces generated from the table (``mx.nd``, ``mx.sym``) listen, so that an
    operator a higher layer declares (the optimizer's update operators, which run the
    optimizers' own rules) gets its functions as the others do.
    """
    _LISTENERS.append(listener)


def get(name):
    """The Op registered as ``name`` (its name or an alias); MXNetError if none."""
    op = _OPS.get(name)
    if op is None:
        raise MXNetError('operator %r is not registered in gluonedu' % (name,))
    return op


def list_ops():
    """Every registered Op once, in registration order."""
    return list(_ORDER)


def invoke(name, /, *args, **kwargs):
    """Call the operator ``name`` as its ``mx.nd`` function would be called."""
    return get(name)(*args, **kwargs)


_FUNCTIONS = {}  # (op name, function name) -> the function, made once


def make_function(op, name):
    """The ``mx.nd.<name>`` function of ``op``: its signature and docs from the table (one
    function object per name)."""
    function = _FUNCTIONS.get((op.name, name))
    if function is None:
        function = _FUNCTIONS[op.name, name] = _new_function(op, name)
    return function


def _new_function(op, name):
    def function(*args, **kwargs):
        return op(*args, **kwargs)
    function.__name__ = function.__qualname__ = name
    function.__doc__ = docstring(op)
    function.__signature__ = _signature(op)
    function.__module__ = 'gluonedu.ndarray'
    function.op = op
    return function


def _signature(op):
    kind = inspect.Parameter
    if op.variadic:
        items = [kind(op.input_names[0], kind.VAR_POSITIONAL)]
    else:
        items = [kind(n, kind.POSITIONAL_OR_KEYWORD, default=None) for n in op.input_names]
    style = kind.KEYWORD_ONLY if op.variadic else kind.POSITIONAL_OR_KEYWORD
    for p in op.params.values():
        if op.variadic and p.name == 'num_args':
            continue
        items.append(kind(p.name, style, default=p.default))  # REQUIRED shows as such
    items += [kind('out', style, default=None), kind('name', style, default=None)]
    return inspect.Signature(items)


def docstring(op, array_type='NDArray'):
    """The docstring of ``op``'s function in ``mx.nd`` (``array_type='NDArray'``) or
    ``mx.sym`` (``'Symbol'``): its doc, inputs and parameters."""
    aliases = ' (also %s)' % ', '.join(op.aliases) if op.aliases else ''
    # The operator's name comes before the Parameters section: napoleon would read a
    # paragraph after it as one more parameter.
    lines = [op.doc, '', 'MXNet operator: ``%s``%s.' % (op.name, aliases), '',
             'Parameters', '----------']
    for n in op.input_names:
        lines.append('%s : %s%s' % (n, array_type, ' (any number)' if op.variadic else ''))
    for p in op.params.values():
        lines.append('%s : %s' % (p.name, p.describe()))
        if p.doc:
            lines.append('    ' + p.doc)
    if array_type == 'NDArray':
        lines.append('out : NDArray, optional')
        lines.append('    Where to write the result (its shape and dtype must match).')
    else:
        lines.append('name : str, optional')
        lines.append('    The name of the node (default: automatic, e.g. %s0).' % op.name.lower())
        lines.append('attr : dict of str to str, optional')
        lines.append('    Attributes of the node.')
    return '\n'.join(lines)
