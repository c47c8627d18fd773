"""Runs one operator call against an MXNet-like module ``mx`` — MXNet 1.9.1 or gluonedu.

Both sides of the operator parity suite execute this same code (the oracle script with the
real ``mxnet``, the tests with ``gluonedu``), so a case is the same call on both sides and
only the outcome can differ. This module imports neither mxnet nor gluonedu and runs on
NumPy 1.23 (the oracle's) as well as NumPy 2.

Case format (plain JSON, built by :mod:`ops_cases`)::

    {"id": "sum/axis-out-of-range",
     "call": "sum" | "random.uniform" | "_internal._plus_scalar",   # a function of mx.nd
        or "method": "take" with "self": <value>                   # x.take(...)
        or "operator": "add" | "setitem" | ...                      # lhs + rhs, x[k] = v
        or "scenario": "parameter_dict_load" | ...                 # several steps, written
                                                                   # once in edge_scenarios
     "args": [<value>, ...], "kwargs": {"name": <value>, ...},
     "grad": [0, ...],           # positions of the args to differentiate (float NDArrays)
     "compare": "values" | "shape" | "stats",
     "mutates": true,            # also compare the NDArray args after the call (arg<i>)
     "stype": true}              # also compare the outputs' storage types

A ``<value>`` is JSON, or one of ``{"nd": input name}`` (``mx.nd.array`` of that input, in
its dtype; ``"ctx": "cpu(1)"`` puts it there), ``{"np": input name}`` (the raw NumPy
array), ``{"tuple": [...]}``, ``{"float": "nan" | "inf" | "-inf"}``, ``{"dtype": "int32"}``
(NumPy's type object), ``{"ctx": "cpu(1)"}``, ``{"zeros": shape, "dtype": ...}`` (an
``mx.nd.zeros`` array, e.g. for ``out=``), ``{"slice": [start, stop, step]}``,
``{"list": [...]}``, ``{"arg": i}`` (the call's positional argument i itself, e.g.
``out=`` the weight), ``{"row_sparse": input name, "rows": [...]}`` (those rows of the
input as a RowSparseNDArray), ``{"csr": input name}`` (the input as a CSRNDArray),
``{"bytes": input name}`` (the input's bytes, e.g. a file's) or ``{"scalar": number,
"dtype": "int8"}`` (a NumPy scalar).

The outcome (:func:`run_case`): ``("ok", arrays)`` with ``out0, out1, ...`` (the outputs;
for ``"stats"`` their shape, mean, std, min and max instead of the values; for
``"shape"`` only shape and dtype), ``grad<i>`` (the gradient of arg i for the head
gradient :func:`head_gradient`), or ``("error", type name, message)`` — and, where the
caller asks (``origin``), what ``origin`` says of the exception as a fourth item.
"""
import operator

import numpy as np

import edge_scenarios

OPERATORS = {'add': operator.add, 'sub': operator.sub, 'mul': operator.mul,
             'truediv': operator.truediv, 'mod': operator.mod, 'pow': operator.pow,
             'neg': operator.neg, 'eq': operator.eq, 'ne': operator.ne, 'lt': operator.lt,
             'le': operator.le, 'gt': operator.gt, 'ge': operator.ge,
             'getitem': operator.getitem}


def head_gradient(shape):
    """A deterministic, non-constant output gradient of ``shape``."""
    n = int(np.prod(shape)) if len(shape) else 1
    if n == 0:
        return np.zeros(shape)
    return (np.linspace(-1.0, 1.5, n) if n > 1 else np.ones(1)).reshape(shape)


def _ctx(mx, text):
    name, _, rest = text.partition('(')
    return getattr(mx, name)(int(rest.rstrip(')') or 0))


def resolve(mx, value, inputs, args=()):
    """The Python value a case's JSON ``value`` stands for (``args``: the call's resolved
    positional arguments, which ``{"arg": i}`` names)."""
    if isinstance(value, list):
        return [resolve(mx, v, inputs, args) for v in value]
    if not isinstance(value, dict):
        return value
    if 'arg' in value:
        return args[value['arg']]
    if 'csr' in value:
        return mx.nd.array(inputs[value['csr']]).tostype('csr')
    if 'row_sparse' in value:
        rows = np.array(value['rows'], dtype=np.int64)
        data = inputs[value['row_sparse']]
        return mx.nd.sparse.row_sparse_array((data[rows], rows), shape=data.shape,
                                             dtype=data.dtype)
    if 'nd' in value:
        data = inputs[value['nd']]
        ctx = _ctx(mx, value['ctx']) if 'ctx' in value else None
        return mx.nd.array(data, ctx=ctx, dtype=data.dtype)
    if 'np' in value:
        return inputs[value['np']].copy()
    if 'bytes' in value:
        return inputs[value['bytes']].tobytes()
    if 'scalar' in value:
        return np.dtype(value['dtype']).type(resolve(mx, value['scalar'], inputs))
    if 'tuple' in value:
        return tuple(resolve(mx, v, inputs) for v in value['tuple'])
    if 'list' in value:
        return [resolve(mx, v, inputs, args) for v in value['list']]
    if 'float' in value:
        return float(value['float'])
    if 'dtype' in value and len(value) == 1:
        return np.dtype(value['dtype']).type
    if 'ctx' in value and len(value) == 1:
        return _ctx(mx, value['ctx'])
    if 'zeros' in value:
        return mx.nd.zeros(tuple(value['zeros']), dtype=value.get('dtype', 'float32'))
    if 'slice' in value:
        return slice(*value['slice'])
    raise ValueError('unknown value %r' % (value,))


def _call(mx, case, args, kwargs):
    if 'call' in case:
        target = mx.nd
        for part in case['call'].split('.'):
            target = getattr(target, part)
        return target(*args, **kwargs)
    if 'method' in case:
        return getattr(args[0], case['method'])(*args[1:], **kwargs)
    if 'scenario' in case:
        return getattr(edge_scenarios, case['scenario'])(mx, *args, **kwargs)
    if case['operator'] == 'setitem':  # args: target, key, value; the target is the result
        args[0][args[1]] = args[2]
        return args[0]
    return OPERATORS[case['operator']](*args)


def _summary(mx, out, compare):
    if not hasattr(out, 'asnumpy'):
        return {'python': np.asarray(out)}
    data = out.asnumpy()
    if compare == 'values':
        return {'': data}
    info = {'shape': np.array(data.shape, dtype=np.int64),
            'dtype': np.array(data.dtype.str)}
    if compare == 'stats':
        values = data.astype(np.float64)
        info.update(mean=values.mean(), std=values.std(), min=values.min(),
                    max=values.max())
    return info


def run_case(mx, case, inputs, origin=None):
    """Run one case on ``mx``: ``("ok", {name: array})`` or ``("error", type, message)``
    (with ``origin(exception)`` after the message where ``origin`` is given)."""
    try:
        args = [resolve(mx, a, inputs) for a in ([case['self']] if 'self' in case else [])
                + case.get('args', [])]
        kwargs = {k: resolve(mx, v, inputs, args) for k, v in case.get('kwargs', {}).items()}
        grad_args = [args[i] for i in case.get('grad', [])]
        for a in grad_args:
            a.attach_grad()
        if grad_args:
            with mx.autograd.record():
                result = _call(mx, case, args, kwargs)
        else:
            result = _call(mx, case, args, kwargs)
        outputs = list(result) if isinstance(result, (list, tuple)) else [result]
        arrays = {}
        for i, out in enumerate(outputs):
            for key, value in _summary(mx, out, case.get('compare', 'values')).items():
                arrays['out%d%s' % (i, ('.' + key) if key else '')] = value
            if case.get('stype'):
                arrays['out%d.stype' % i] = np.array(out.stype)
        if case.get('mutates'):   # the arguments the call updates in place
            for i, a in enumerate(args):
                if hasattr(a, 'asnumpy'):
                    arrays['arg%d' % i] = a.asnumpy()
        if grad_args:
            heads = [o for o in outputs if o.dtype in (np.float16, np.float32, np.float64)]
            mx.autograd.backward(heads, [mx.nd.array(head_gradient(o.shape), dtype=o.dtype)
                                         for o in heads])
            for i, a in zip(case['grad'], grad_args):
                arrays['grad%d' % i] = a.grad.asnumpy()
        return 'ok', arrays
    except Exception as exc:  # the outcome to compare, whatever it is
        message = str(exc).strip().splitlines()
        outcome = 'error', type(exc).__name__, _first_useful_line(message)
        return outcome + (origin(exc),) if origin else outcome


def _first_useful_line(lines):
    """MXNet's messages start with a C++ traceback; keep the line that says what failed."""
    for line in lines:
        if 'Check failed' in line or 'MXNetError:' in line:
            return line.strip()[:300]
    return (lines[0] if lines else '')[:300]
