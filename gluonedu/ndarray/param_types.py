"""The parameter types of the operator table (:mod:`gluonedu.ndarray.registry`).

An operator declares each parameter with one of these types — ``Int``, ``Float``,
``Floats``, ``Bool``, ``Shape``, ``Axis``, ``Axes``, ``Enum``, ``DType``, ``Str`` — and
the type parses a Python value or MXNet's string form of it (``"(3, 3)"``, ``"True"``,
``"None"``, ``"float32"``) to one canonical value, with MXNet's type, range and choice
rules. A value that does not parse raises :class:`BadValue`, which the operator turns
into an ``MXNetError`` naming the operator and the parameter.
"""
import math
import re

import numpy as np

from ..base import MXNetError, to_numpy_dtype

__all__ = ['Param', 'Int', 'Float', 'Floats', 'Bool', 'Shape', 'Axis', 'Axes', 'Enum',
           'DType', 'Str', 'REQUIRED', 'BadValue', 'is_none', 'frontend_dtype', 'numpy_dtype',
           'check_size', 'FLOATS', 'MAX_SIZE']


class _Required:
    def __repr__(self):
        return 'REQUIRED'


REQUIRED = _Required()


class BadValue(Exception):
    """A parameter value that does not parse; the Op turns it into an MXNetError."""


class Param:
    """One typed parameter of an operator.

    ``parse(value)`` accepts a Python value or MXNet's string form of it and returns the
    canonical value, or raises ``BadValue``. ``type_name`` is MXNet's name of the type as
    its registry prints it ("int", "Shape(tuple)", "{'clip', 'raise', 'wrap'}", ...).
    """
    type_name = '?'

    def __init__(self, name, default=REQUIRED, doc=''):
        self.name = name
        self.doc = doc
        self.default = default if default is REQUIRED or default is None \
            else self.parse(default)

    @property
    def required(self):
        return self.default is REQUIRED

    def parse(self, value):
        raise NotImplementedError

    def format(self, value):
        """The value as MXNet writes it into a symbol's attributes."""
        return str(value)

    def describe(self):
        """``type, optional, default=...`` as in MXNet's generated docs."""
        if self.required:
            return '%s, required' % self.type_name
        return '%s, optional, default=%s' % (self.type_name, self.format(self.default))


_INT_TEXT = re.compile(r'\s*[+-]?\d+\s*$')
_FLOAT_TEXT = re.compile(r'\s*[+-]?(nan|inf(inity)?|(\d+\.?\d*|\.\d+)(e[+-]?\d+)?f?)$', re.I)
_INT32 = (-2 ** 31, 2 ** 31 - 1)
_INT64 = (-2 ** 63, 2 ** 63 - 1)


def is_none(value):
    return value is None or (type(value) is str and value == 'None')


def _parse_int(value, bounds):
    """An int, or text that reads as one: MXNet parses ``str(value)``, so True, 3.0 and
    '3e0' are refused while np.int64(3) and ' 3' are accepted."""
    if type(value) is not int:
        text = str(value)
        if not _INT_TEXT.match(text):
            raise BadValue
        value = int(text)
    if not bounds[0] <= value <= bounds[1]:
        raise BadValue
    return value


def _parse_float(value):
    """A float, or text that reads as one (C's strtod: 'inf', 'nan', '1.5f' too)."""
    if type(value) is float or type(value) is int:
        return float(value)
    text = str(value).lstrip()  # as C's strtod: leading blanks only
    if not _FLOAT_TEXT.match(text):
        raise BadValue
    if text[-1] in 'fF' and not text.lower().endswith('inf'):
        text = text[:-1]
    return float(text)


def _check_bounds(param, value):
    low, high = param.low, param.high
    if (low is not None and value < low) or (high is not None and value > high):
        if high is None:
            raise MXNetError('value %s for parameter %s must be >= %s'
                             % (value, param.name, low))
        if low is None:
            raise MXNetError('value %s for parameter %s must be <= %s'
                             % (value, param.name, high))
        raise MXNetError('value %s for parameter %s must lie in [%s, %s]'
                         % (value, param.name, low, high))


class Int(Param):
    """An integer, or its decimal text. 32 bits, or 64 with ``long``."""

    def __init__(self, name, default=REQUIRED, low=None, high=None, optional=False,
                 long=False, doc=''):
        self.low, self.high, self.optional = low, high, optional
        self.bounds = _INT64 if long else _INT32
        # MXNet's registry prints a lower bound of 0 as '(non-negative)'
        self.type_name = ('long' if long else 'int') + (' or None' if optional else '') + (
            ' (non-negative)' if low == 0 else '')
        super().__init__(name, default, doc)

    def parse(self, value):
        if self.optional and is_none(value):
            return None
        value = _parse_int(value, self.bounds)
        if self.low is not None or self.high is not None:
            _check_bounds(self, value)
        return value


class Float(Param):
    """A real number, or its text. ``single`` rounds it to float32 as MXNet's ``float``
    parameters do (its ``double`` ones keep 64 bits)."""

    def __init__(self, name, default=REQUIRED, low=None, high=None, optional=False,
                 single=False, doc=''):
        self.low, self.high, self.optional, self.single = low, high, optional, single
        self.type_name = ('float' if single else 'double') + (' or None' if optional else '')
        super().__init__(name, default, doc)

    def parse(self, value):
        if type(value) is float:
            pass
        elif self.optional and is_none(value):
            return None
        else:
            value = _parse_float(value)
        if self.single and math.isfinite(value):
            value = float(np.float32(value))
        if self.low is not None or self.high is not None:
            _check_bounds(self, value)
        return value


class Floats(Param):
    """A tuple of float32 numbers (MXNet's ``tuple of <float>``): a number, a tuple/list of
    numbers, or their text ``"(0.1, 0.2)"``."""
    type_name = 'tuple of <float>'

    def parse(self, value):
        if isinstance(value, str):
            text = value.strip()
            if len(text) >= 2 and (text[0], text[-1]) in (('(', ')'), ('[', ']')):
                text = text[1:-1]
            value = [item for item in text.split(',') if item.strip()]
        elif not isinstance(value, (tuple, list)):
            value = [value]
        return tuple(float(np.float32(_parse_float(v))) for v in value)


class Bool(Param):
    """True/False, 1/0, or the text 'true'/'false'/'1'/'0' (any case)."""

    def __init__(self, name, default=REQUIRED, optional=False, doc=''):
        self.optional = optional
        self.type_name = 'boolean or None' if optional else 'boolean'
        super().__init__(name, default, doc)

    def parse(self, value):
        if type(value) is bool:
            return value
        if self.optional and is_none(value):
            return None
        text = str(value).lower()
        if text in ('true', '1'):
            return True
        if text in ('false', '0'):
            return False
        raise BadValue


def _parse_shape_text(text, none_items):
    text = text.strip()
    if _INT_TEXT.match(text):
        return (int(text),)
    if len(text) >= 2 and (text[0], text[-1]) in (('(', ')'), ('[', ']')):
        body = text[1:-1].strip()
        if not body:
            return ()
        items = [item.strip() for item in body.split(',')]
        if items[-1] == '':
            items = items[:-1]
        dims = []
        for item in items:
            if none_items and item == 'None':
                dims.append(None)
            elif _INT_TEXT.match(item):
                dims.append(int(item))
            else:
                raise BadValue
        return tuple(dims)
    raise BadValue


def _parse_dims(value, none_items=False):
    """A tuple of ints (or None where ``none_items``) from an int, a tuple/list, or text."""
    if type(value) is tuple and all(type(v) is int for v in value):
        return value
    if isinstance(value, str):
        return _parse_shape_text(value, none_items)
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return (int(value),)
    if isinstance(value, (tuple, list)):
        dims = []
        for v in value:
            if v is None and none_items:
                dims.append(None)
            elif isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
                raise BadValue
            else:
                dims.append(int(v))
        return tuple(dims)
    raise BadValue


class Shape(Param):
    """A tuple of integers, e.g. ``(3, 3)``, ``[3, 3]``, ``3`` or the text ``"(3, 3)"``.

    ``none_items`` allows None entries (slice bounds). ``None`` itself is a value of an
    ``optional`` shape; MXNet also reads it as an unknown shape where a ``Shape(tuple)`` is
    declared, which a few operators accept (``accepts_none``: tile's reps, Dropout's axes)
    and the others refuse.
    """

    def __init__(self, name, default=REQUIRED, optional=False, none_items=False,
                 accepts_none=False, doc=''):
        self.optional, self.none_items, self.accepts_none = optional, none_items, accepts_none
        self.type_name = 'Shape or None' if optional else 'Shape(tuple)'
        super().__init__(name, default, doc)

    def parse(self, value):
        if is_none(value):
            if self.optional or self.accepts_none:
                return None
            raise BadValue
        return _parse_dims(value, self.none_items)

    def format(self, value):
        return 'None' if value is None else str(tuple(value))


class Axis(Param):
    """One axis of the first input: an int in [-ndim - extra, ndim + extra), made
    non-negative once the input is known (``extra=1`` for ops that insert an axis)."""

    def __init__(self, name, default=REQUIRED, optional=False, extra=0, doc=''):
        self.optional, self.extra = optional, extra
        self.type_name = 'int or None' if optional else 'int'
        super().__init__(name, default, doc)

    def parse(self, value):
        if self.optional and is_none(value):
            return None
        return _parse_int(value, _INT32)

    def normalize(self, op, value, ndim):
        if value is None:
            return None
        n = ndim + self.extra
        if not -n <= value < n:
            raise MXNetError('%s: %s=%d is out of range for an input of %d dimensions: use '
                             'a value in [%d, %d]' % (op.name, self.name, value, ndim, -n, n - 1))
        return value + n if value < 0 else value


class Axes(Param):
    """Axes of the first input: None (all), an int, or a tuple of ints; made a sorted tuple
    of distinct non-negative axes once the input is known."""
    type_name = 'Shape or None'

    def parse(self, value):
        if is_none(value):
            return None
        return _parse_dims(value)

    def normalize(self, op, value, ndim):
        if not value:
            return value
        if len(value) == 1 and -ndim <= value[0] < ndim:
            return (value[0] + ndim if value[0] < 0 else value[0],)
        axes = []
        for a in value:
            if not -ndim <= a < ndim:
                raise MXNetError('%s: axis %d is out of range for an input of %d dimensions'
                                 % (op.name, a, ndim))
            axes.append(a + ndim if a < 0 else a)
        if len(set(axes)) != len(axes):
            raise MXNetError('%s: axis %s names an axis twice' % (op.name, tuple(value)))
        return tuple(sorted(axes))

    def format(self, value):
        return 'None' if value is None else str(tuple(value))


class Enum(Param):
    """One of a fixed set of strings (``None`` too when ``None`` is among the choices)."""

    def __init__(self, name, choices, default=REQUIRED, doc=''):
        self.choices = tuple(choices)
        names = sorted(repr(c) for c in self.choices if c is not None)
        self.type_name = '{%s}' % ', '.join((['None'] if None in self.choices else []) + names)
        super().__init__(name, default, doc)

    def parse(self, value):
        text = str(value)  # as MXNet's parser: None is the text 'None'
        if text in self.choices:
            return text
        if text == 'None' and None in self.choices:
            return None
        raise BadValue


class DType(Enum):
    """A dtype among ``choices``, by name (``'float32'``).

    MXNet's generated functions pass a parameter called ``dtype`` through ``numpy.dtype``
    first, so there a NumPy type or an alias works (``np.float32``, ``'f4'``), a name NumPy
    does not know raises NumPy's TypeError, and a Python ``None`` means float64
    (``np.dtype(None)``); the text ``'None'`` (a symbol attribute) stays None. Other dtype
    parameters (``norm``'s ``out_dtype``) take the names only, as MXNet.
    """

    def parse(self, value):
        if self.name == 'dtype' and (not isinstance(value, str) or (
                value not in self.choices and value != 'None')):
            value = to_numpy_dtype(value).name
        return super().parse(value)


def frontend_dtype(value):
    """What MXNet's generated ``nd`` functions do to a ``dtype`` argument before anything
    else: ``numpy.dtype(value)``, whose TypeError ('bfloat16', 'None', a typo) escapes
    (here with a message that names the usual dtypes)."""
    to_numpy_dtype(value)


#: The floating-point dtypes (an ``Op``'s ``dtypes`` for float-only operators).
FLOATS = ('float16', 'float32', 'float64')

#: As MXNet 1.9.1 built without 64-bit tensor sizes: at most 2**31 - 1 elements.
MAX_SIZE = 2 ** 31 - 1


def check_size(op, size):
    """MXNetError if a result of ``size`` elements exceeds MXNet's limit (before any memory
    is asked for)."""
    if size >= MAX_SIZE:
        raise MXNetError('%s: a result of %d elements is larger than MXNet\'s limit of 2^31 '
                         'elements' % (op, size))


def numpy_dtype(name):
    """The NumPy dtype of a dtype parameter's value (MXNetError for 'bfloat16')."""
    if name == 'bfloat16':
        raise MXNetError('bfloat16 is not supported by gluonedu (NumPy has no such type); use '
                         'float16 or float32')
    return np.dtype(name)


class Str(Param):
    """Free text (e.g. the ``ctx`` of creation operators)."""
    type_name = 'string'

    def parse(self, value):
        return str(value)
