"""Declaring an operator once: its MXNet name, its inputs and its typed parameters.

Every operator of :mod:`gluonedu.ndarray.nn_ops` is one :class:`OpDef`::

    POOLING = OpDef('Pooling', inputs=('data',), params=(
        Param('kernel', 'shape', (), 'window size'),
        Param('pool_type', 'enum', 'max', 'what a window computes',
              choices=('avg', 'lp', 'max', 'sum')),
        ...))
    Pooling = POOLING.function(_pooling)

The declaration is the only place that knows an operator's parameter names, types and
defaults (MXNet 1.9.1's). From it come the Python function (``nd.Pooling``), its
signature and the "Parameters" part of its docstring, and the parsing every call goes
through: unknown names, missing required parameters and values outside an enum raise
:class:`~gluonedu.base.MXNetError`, as MXNet's own parameter parser does. The
implementation receives the parsed values as a named tuple (``params.kernel``) and the
input arrays by name.
"""
import inspect
import numbers
from collections import namedtuple

from ...base import MXNetError
from ..ops import _write_out

__all__ = ['Param', 'OpDef', 'REQUIRED']

#: The default of a parameter the caller must give.
REQUIRED = inspect.Parameter.empty

_KIND_TEXT = {'shape': 'Shape(tuple)', 'int': 'int', 'float': 'float', 'bool': 'boolean',
              'enum': 'str', 'int_or_none': 'int or None', 'bool_or_none': 'boolean or None',
              'float_or_none': 'float or None'}


class Param:
    """One typed operator parameter.

    kind : 'shape' (a tuple of ints; an int ``n`` means ``(n,)``), 'int', 'float', 'bool',
        'enum' (one of ``choices``; None only if listed), or 'int_or_none',
        'float_or_none', 'bool_or_none'.
    """
    __slots__ = ('name', 'kind', 'default', 'doc', 'choices')

    def __init__(self, name, kind, default, doc, choices=None):
        if kind not in _KIND_TEXT:
            raise ValueError('unknown parameter kind %r' % kind)
        self.name, self.kind, self.default, self.doc = name, kind, default, doc
        self.choices = choices

    def parse(self, op, value):
        """``value`` converted to this parameter's type; MXNetError if it is not one."""
        kind = self.kind
        if value is None and (kind.endswith('_or_none') or
                              (kind == 'enum' and None in self.choices)):
            return None
        try:
            if kind == 'shape':
                if isinstance(value, numbers.Integral):
                    return (int(value),)
                return tuple(int(v) for v in value)
            if kind in ('int', 'int_or_none'):
                if isinstance(value, bool) or int(value) != value:
                    raise ValueError(value)
                return int(value)
            if kind in ('float', 'float_or_none'):
                return float(value)
            if kind in ('bool', 'bool_or_none'):
                if value in (0, 1, True, False):
                    return bool(value)
                raise ValueError(value)
        except (TypeError, ValueError):
            raise MXNetError("%s: parameter %s=%r is not a valid %s"
                             % (op, self.name, value, _KIND_TEXT[kind])) from None
        if value not in self.choices:
            raise MXNetError("%s: invalid %s=%r; valid values are %s"
                             % (op, self.name, value, self._choices_text()))
        return value

    def _choices_text(self):
        return '{%s}' % ', '.join(repr(c) if c is not None else 'None' for c in self.choices)

    def describe(self):
        """The parameter's line in a docstring, as MXNet writes its operator docs."""
        kind = self._choices_text() if self.kind == 'enum' else _KIND_TEXT[self.kind]
        default = 'required' if self.default is REQUIRED else 'optional, default=%r' % (
            self.default,)
        return '%s : %s, %s\n    %s' % (self.name, kind, default, self.doc)


class OpDef:
    """An operator: its MXNet name, its input names and its :class:`Param` list.

    inputs : tuple of str
        The input arrays' names in MXNet's order; ``'*data'`` takes any number of
        arrays (UpSampling). Optional inputs (a bias) may be None.
    """

    def __init__(self, name, inputs, params):
        self.name = name
        self.inputs = tuple(inputs)
        self.params = tuple(params)
        self._by_name = {p.name: p for p in self.params}
        self.Params = namedtuple(name + 'Params', [p.name for p in self.params])

    @property
    def variadic(self):
        """Whether the operator takes any number of input arrays."""
        return self.inputs[0].startswith('*')

    def parse(self, kwargs):
        """The parameters as a named tuple, defaults filled in, every value checked."""
        unknown = sorted(set(kwargs) - set(self._by_name))
        if unknown:
            raise MXNetError("%s has no parameter %s; its parameters are: %s"
                             % (self.name, ', '.join(unknown),
                                ', '.join(p.name for p in self.params)))
        values = []
        for param in self.params:
            if param.name in kwargs:
                values.append(param.parse(self.name, kwargs[param.name]))
            elif param.default is REQUIRED:
                raise MXNetError("%s needs the parameter %s (%s)"
                                 % (self.name, param.name, _KIND_TEXT[param.kind]))
            else:
                values.append(param.default)
        return self.Params(*values)

    def bind_inputs(self, args, kwargs):
        """The input arrays by name, from positional arguments and keywords (removed)."""
        if self.variadic:
            return {'data': list(args)}
        if len(args) > len(self.inputs):
            raise MXNetError("%s takes at most %d input arrays (%s), got %d positional "
                             "arguments" % (self.name, len(self.inputs), ', '.join(self.inputs),
                                            len(args)))
        arrays = dict(zip(self.inputs, args))
        for name in self.inputs[len(args):]:
            arrays[name] = kwargs.pop(name, None)
        return arrays

    def function(self, implementation):
        """The user-facing ``nd`` function calling ``implementation(params, **arrays)``.

        ``implementation``'s docstring (the math) opens the function's docstring; the
        parameter list is appended from this declaration.
        """
        def operator(*args, out=None, name=None, **kwargs):
            arrays = self.bind_inputs(args, kwargs)
            result = implementation(self.parse(kwargs), **arrays)
            if isinstance(result, list):
                if out is not None:
                    raise MXNetError("%s returns %d arrays here; out= takes one: leave it "
                                     "out and use the returned list" % (self.name, len(result)))
                return result
            return _write_out(result, out)

        operator.__name__ = operator.__qualname__ = self.name
        operator.__module__ = 'gluonedu.ndarray'
        operator.__doc__ = self._docstring(implementation.__doc__ or '')
        operator.__signature__ = self._signature()
        operator.declaration = self
        return operator

    def _signature(self):
        kind = inspect.Parameter
        if self.variadic:
            head = [kind(self.inputs[0][1:], kind.VAR_POSITIONAL)]
        else:
            head = [kind(n, kind.POSITIONAL_OR_KEYWORD, default=None) for n in self.inputs]
        rest = [kind(p.name, kind.KEYWORD_ONLY, default=p.default) for p in self.params]
        rest += [kind('out', kind.KEYWORD_ONLY, default=None),
                 kind('name', kind.KEYWORD_ONLY, default=None)]
        return inspect.Signature(head + rest)

    def _docstring(self, summary):
        lines = [inspect.cleandoc(summary), '', 'Parameters', '----------']
        for name in self.inputs:
            lines.append('%s : NDArray%s' % (name.lstrip('*'), '[]' if name[0] == '*' else ''))
        lines.extend(p.describe() for p in self.params)
        lines.append('out : NDArray, optional\n    The array to write the result into.')
        return '\n'.join(lines)

