"""Element-wise operators of two operands: arithmetic, comparisons, logic.

One formula per kind (``add``, ``div``, ``maximum``, ...) gives MXNet's three operator
families: ``broadcast_<kind>`` (size-1 axes stretch), the same-shape ``elemwise_add`` /
``_mul`` / ... and the scalar forms ``_plus_scalar``, ``_rminus_scalar``, ... (an array and a
number; ``_r*`` puts the number on the left). The Python-level ``add``, ``maximum``, ... and
the ``+``, ``*``, ``==`` of NDArray pick one of them by the operands' types, as MXNet's do.

As in MXNet, a scalar is first converted to the array's dtype (``int32 * 1.5`` multiplies
by 1), and comparisons give 0/1 in the input's dtype.
"""
import math
import operator

import numpy as np

from ...base import MXNetError, numeric_types
from ..infer import broadcast, same_shape
from ..ndarray import NDArray, _unbroadcast
from ..registry import Bool, Float, Int, Op, add as _register

__all__ = ['add', 'subtract', 'multiply', 'divide', 'true_divide', 'modulo', 'power',
           'maximum', 'minimum', 'equal', 'not_equal', 'greater', 'greater_equal', 'lesser',
           'lesser_equal', 'logical_and', 'logical_or', 'logical_xor', 'hypot']


def _zero(xp, g, a, b, y):
    return xp.zeros_like(g)


def _power_grad_base(xp, g, a, b, y):
    return g * b * xp.power(a, b - 1)


def _power_grad_exponent(xp, g, a, b, y):
    return g * y * xp.log(a)


def _hypot_grad(xp, g, side, y):
    return xp.where(y == 0, 0, g * side / y).astype(y.dtype)


class _Kind:
    """How ``y = f(a, b)`` is computed and differentiated: ``grad_a/grad_b(xp, g, a, b, y)``.

    Either operand may be a NumPy scalar; ``compute`` returns y in ``dtype`` (comparisons
    and logic as 0/1).
    """

    def __init__(self, ufunc, grad_a=_zero, grad_b=_zero, python=None, quiet=False,
                 boolean=False, logical=False, int_via_float=False):
        self.ufunc = ufunc
        self.grad_a, self.grad_b = grad_a, grad_b
        self.python = python          # the operator on two Python numbers (nd.add(2, 3))
        self.quiet = quiet
        self.boolean = boolean        # comparisons and logic: 0/1 in the input's dtype
        self.logical = logical        # operands read as true (non-zero) / false
        self.int_via_float = int_via_float  # integer powers: no error on negative exponents

    def compute(self, xp, a, b, dtype):
        func = getattr(xp, self.ufunc)
        if self.boolean:
            return (func(a != 0, b != 0) if self.logical else func(a, b)).astype(dtype)
        if self.int_via_float and dtype.kind in 'iub':
            y = func(_as_float64(a), _as_float64(b))
        else:
            y = func(a, b)
        if self.ufunc == 'mod':  # as MXNet: x mod 0 is 0, not NaN
            y = xp.where(b == 0, xp.zeros_like(y), y)
        return y if y.dtype == dtype else y.astype(dtype)


def _as_float64(x):
    return np.float64(x) if np.isscalar(x) else x.astype(np.float64)


def _as_int(test):
    """A test of two numbers giving 1 or 0, as MXNet's comparisons of two numbers do."""
    return lambda a, b: 1 if test(a, b) else 0


# The ``python`` formulas are MXNet's for two numbers (``nd.maximum(2, nan)`` is nan):
# comparisons and logic give the ints 0/1, maximum and minimum keep the right operand
# unless the left one is strictly larger (smaller).
_KINDS = {
    'add': _Kind('add', lambda xp, g, a, b, y: g, lambda xp, g, a, b, y: g, operator.add,
                 quiet=True),
    'sub': _Kind('subtract', lambda xp, g, a, b, y: g, lambda xp, g, a, b, y: -g,
                 operator.sub, quiet=True),
    'mul': _Kind('multiply', lambda xp, g, a, b, y: g * b, lambda xp, g, a, b, y: g * a,
                 operator.mul, quiet=True),
    'div': _Kind('divide', lambda xp, g, a, b, y: g / b, lambda xp, g, a, b, y: -g * a / (b * b),
                 operator.truediv, quiet=True),
    'mod': _Kind('mod', lambda xp, g, a, b, y: g, lambda xp, g, a, b, y: -g * xp.floor(a / b),
                 operator.mod, quiet=True),
    'power': _Kind('power', _power_grad_base, _power_grad_exponent, operator.pow, quiet=True,
                   int_via_float=True),
    'maximum': _Kind('maximum', lambda xp, g, a, b, y: g * (a >= b),
                     lambda xp, g, a, b, y: g * (a < b), lambda a, b: a if a > b else b,
                     quiet=True),
    'minimum': _Kind('minimum', lambda xp, g, a, b, y: g * (a <= b),
                     lambda xp, g, a, b, y: g * (a > b), lambda a, b: a if a < b else b,
                     quiet=True),
    'hypot': _Kind('hypot', lambda xp, g, a, b, y: _hypot_grad(xp, g, a, y),
                   lambda xp, g, a, b, y: _hypot_grad(xp, g, b, y), math.hypot, quiet=True),
    'equal': _Kind('equal', python=_as_int(operator.eq), boolean=True),
    'not_equal': _Kind('not_equal', python=_as_int(operator.ne), boolean=True),
    'greater': _Kind('greater', python=_as_int(operator.gt), boolean=True),
    'greater_equal': _Kind('greater_equal', python=_as_int(operator.ge), boolean=True),
    'lesser': _Kind('less', python=_as_int(operator.lt), boolean=True),
    'lesser_equal': _Kind('less_equal', python=_as_int(operator.le), boolean=True),
    'logical_and': _Kind('logical_and', python=_as_int(lambda a, b: a and b), boolean=True,
                         logical=True),
    'logical_or': _Kind('logical_or', python=_as_int(lambda a, b: a or b), boolean=True,
                        logical=True),
    'logical_xor': _Kind('logical_xor', python=_as_int(lambda a, b: bool(a) != bool(b)),
                         boolean=True, logical=True),
}


# ---------------------------------------------------------------------- array (op) array
def _two_arrays(kind, same_shape):
    def forward(env, lhs, rhs):
        xp = env.xp
        if lhs.shape != rhs.shape:
            if same_shape:
                raise MXNetError('element-wise operator needs two arrays of one shape, got %s '
                                 'and %s; use the broadcast_* operators to broadcast'
                                 % (lhs.shape, rhs.shape))
            _check_broadcast(lhs.shape, rhs.shape)
        y = kind.compute(xp, lhs, rhs, lhs.dtype)
        if kind.boolean:
            return y, lambda g: (xp.zeros_like(lhs), xp.zeros_like(rhs))

        def backward(g):
            return (_unbroadcast(xp, kind.grad_a(xp, g, lhs, rhs, y), lhs.shape),
                    _unbroadcast(xp, kind.grad_b(xp, g, lhs, rhs, y), rhs.shape))
        return y, backward
    return forward


def _check_broadcast(lshape, rshape):
    """MXNet's rule: aligned from the right, each pair of sizes equal or one of them 1."""
    for left, right in zip(reversed(lshape), reversed(rshape)):
        if left != right and left != 1 and right != 1:
            raise MXNetError('operands of shapes %s and %s cannot be broadcast together: each '
                             'axis needs equal sizes or a size of 1' % (lshape, rshape))


# ---------------------------------------------------------------------- array (op) scalar
def scalar_as(dtype, value):
    """``value`` converted to ``dtype`` as MXNet's C++ cast does on x86-64: truncated to a
    32-bit integer (64-bit for 8-byte dtypes; the lowest one where it is out of range or not
    finite, as the CPU's conversion gives), then wrapped around to the dtype's width."""
    if dtype.kind in 'iu':
        lowest = -(1 << (63 if dtype.itemsize == 8 else 31))
        whole = int(value) if np.isfinite(value) and lowest - 1 < value < -lowest else lowest
        low_bits = whole & ((1 << (8 * dtype.itemsize)) - 1)  # two's complement wrap
        return np.array(low_bits, dtype=np.uint64).astype(dtype)[()]
    return dtype.type(value)


def _with_scalar(kind, reverse):
    """``kind(data, scalar)``, or ``kind(scalar, data)`` when ``reverse``."""
    def forward(env, data, scalar, is_int):
        xp = env.xp
        if is_int or data.dtype.kind == 'f':
            x, s = data, scalar_as(data.dtype, scalar)
        else:  # is_int=False on an integer array: NumPy's promotion to float64
            x, s = data.astype(np.float64), np.float64(scalar)
        a, b = (s, x) if reverse else (x, s)
        y = kind.compute(xp, a, b, x.dtype)
        if kind.boolean:
            return y, lambda g: (xp.zeros_like(data),)
        grad = kind.grad_b if reverse else kind.grad_a

        def backward(g):
            return (grad(xp, g, a, b, y).astype(data.dtype, copy=False),)
        return y, backward
    return forward


_SCALAR_PARAMS = (Float('scalar', 1.0, doc='The number on the other side.'),
                  Bool('is_int', True, doc='Convert the number to the array\'s dtype first '
                                          '(MXNet\'s legacy behaviour).'))

#: kind: (broadcast op and aliases, same-shape op and aliases, scalar op and aliases, the
#: scalar on the left). The last says how ``scalar <kind> array`` is computed: by a reversed
#: scalar op (its names: ``2 - x`` is ``_rminus_scalar(x, 2)``), or by the scalar op of the
#: kind named (the kind itself where it commutes, ``2 + x`` is ``x + 2``; a comparison's
#: mirror image, ``2 > x`` is ``x < 2``).
_NAMES = {
    'add': (('broadcast_add', 'broadcast_plus'), ('elemwise_add', '_add', '_plus', '_Plus'),
            ('_plus_scalar', '_PlusScalar'), 'add'),
    'sub': (('broadcast_sub', 'broadcast_minus'), ('elemwise_sub', '_sub', '_minus', '_Minus'),
            ('_minus_scalar', '_MinusScalar'), ('_rminus_scalar', '_RMinusScalar')),
    'mul': (('broadcast_mul',), ('elemwise_mul', '_mul', '_Mul'), ('_mul_scalar', '_MulScalar'),
            'mul'),
    'div': (('broadcast_div',), ('elemwise_div', '_div', '_Div'), ('_div_scalar', '_DivScalar'),
            ('_rdiv_scalar', '_RDivScalar')),
    'mod': (('broadcast_mod',), ('_mod', '_Mod'), ('_mod_scalar', '_ModScalar'),
            ('_rmod_scalar', '_RModScalar')),
    'power': (('broadcast_power',), ('_power', '_Power'), ('_power_scalar', '_PowerScalar'),
              ('_rpower_scalar', '_RPowerScalar')),
    'maximum': (('broadcast_maximum',), ('_maximum', '_Maximum'),
                ('_maximum_scalar', '_MaximumScalar'), 'maximum'),
    'minimum': (('broadcast_minimum',), ('_minimum', '_Minimum'),
                ('_minimum_scalar', '_MinimumScalar'), 'minimum'),
    'hypot': (('broadcast_hypot',), ('_hypot',), ('_hypot_scalar',), 'hypot'),
    'equal': (('broadcast_equal',), ('_equal',), ('_equal_scalar', '_EqualScalar'), 'equal'),
    'not_equal': (('broadcast_not_equal',), ('_not_equal',),
                  ('_not_equal_scalar', '_NotEqualScalar'), 'not_equal'),
    'greater': (('broadcast_greater',), ('_greater',), ('_greater_scalar', '_GreaterScalar'),
                'lesser'),
    'greater_equal': (('broadcast_greater_equal',), ('_greater_equal',),
                      ('_greater_equal_scalar', '_GreaterEqualScalar'), 'lesser_equal'),
    'lesser': (('broadcast_lesser',), ('_lesser',), ('_lesser_scalar', '_LesserScalar'),
               'greater'),
    'lesser_equal': (('broadcast_lesser_equal',), ('_lesser_equal',),
                     ('_lesser_equal_scalar', '_LesserEqualScalar'), 'greater_equal'),
    'logical_and': (('broadcast_logical_and',), ('_logical_and',), ('_logical_and_scalar',),
                    'logical_and'),
    'logical_or': (('broadcast_logical_or',), ('_logical_or',), ('_logical_or_scalar',),
                   'logical_or'),
    'logical_xor': (('broadcast_logical_xor',), ('_logical_xor',), ('_logical_xor_scalar',),
                    'logical_xor'),
}

#: The operators ``_dispatch`` picks per kind: both operands arrays, the scalar on the
#: right, the scalar on the left.
_BROADCAST, _SCALAR, _LEFT_SCALAR = {}, {}, {}
for _kind_name, (_bcast, _same, _scalar, _left) in _NAMES.items():
    _kind = _KINDS[_kind_name]
    _doc = "Element-wise %s of two arrays" % _kind_name
    _BROADCAST[_kind_name] = _register(Op(
        _bcast[0], _two_arrays(_kind, False), ('lhs', 'rhs'), aliases=_bcast[1:],
        quiet=_kind.quiet, doc=_doc + ", broadcasting axes of size 1.", infer_shape=broadcast))
    _register(Op(_same[0], _two_arrays(_kind, True), ('lhs', 'rhs'), aliases=_same[1:],
                 quiet=_kind.quiet, doc=_doc + " of one shape.", infer_shape=same_shape))
    _SCALAR[_kind_name] = _register(Op(
        _scalar[0], _with_scalar(_kind, False), params=_SCALAR_PARAMS, aliases=_scalar[1:],
        quiet=_kind.quiet, doc="Element-wise %s of an array and a scalar." % _kind_name,
        infer_shape=same_shape))
    if isinstance(_left, tuple):
        _LEFT_SCALAR[_kind_name] = _register(Op(
            _left[0], _with_scalar(_kind, True), params=_SCALAR_PARAMS, aliases=_left[1:],
            quiet=_kind.quiet,
            doc="Element-wise %s of a scalar (on the left) and an array." % _kind_name,
            infer_shape=same_shape))
for _kind_name, (_, _, _, _left) in _NAMES.items():
    if isinstance(_left, str):
        _LEFT_SCALAR[_kind_name] = _SCALAR[_left]


# ---------------------------------------------------------------------- Python-level helpers
def _dispatch(kind_name, lhs, rhs):
    """MXNet's choice of operator for ``lhs <kind> rhs`` from the operands' types (a
    number is one of MXNet's ``numeric_types``, bool included: ``True`` is 1.0)."""
    if isinstance(lhs, NDArray):
        if isinstance(rhs, NDArray):
            return _BROADCAST[kind_name].run([lhs, rhs], {})
        if isinstance(rhs, numeric_types):
            return _SCALAR[kind_name].run([lhs], {'scalar': float(rhs), 'is_int': True})
        bad = rhs
    elif isinstance(lhs, numeric_types):
        if isinstance(rhs, NDArray):
            return _LEFT_SCALAR[kind_name].run([rhs], {'scalar': float(lhs), 'is_int': True})
        if isinstance(rhs, numeric_types):
            return _two_numbers(kind_name, lhs, rhs)
        bad = rhs
    else:
        bad = lhs
    raise TypeError('type %s is not supported in an NDArray operation; use an NDArray or a '
                    'number (wrap NumPy arrays with mx.nd.array(...))' % type(bad).__name__)


def _two_numbers(kind_name, lhs, rhs):
    """``lhs <kind> rhs`` of two numbers, as Python computes it (MXNet's rule), and so
    Python's errors (``ZeroDivisionError`` for ``divide(1, 0)``), naming the numbers."""
    try:
        return _KINDS[kind_name].python(lhs, rhs)
    except ArithmeticError as err:
        raise type(err)('%r and %r are two numbers, computed as Python computes them: %s'
                        % (lhs, rhs, err)) from None


def _helper(kind_name, formula):
    def helper(lhs, rhs):
        return _dispatch(kind_name, lhs, rhs)
    helper.__doc__ = ('Element-wise %s with broadcasting; either operand may be a number '
                      '(MXNet picks ``broadcast_<op>``, or the ``<op>_scalar`` operators).'
                      % formula)
    return helper


add = _helper('add', 'lhs + rhs')
subtract = _helper('sub', 'lhs - rhs')
multiply = _helper('mul', 'lhs * rhs')
divide = true_divide = _helper('div', 'lhs / rhs')
modulo = _helper('mod', 'lhs mod rhs')
power = _helper('power', 'lhs ** rhs')
maximum = _helper('maximum', 'max(lhs, rhs)')
minimum = _helper('minimum', 'min(lhs, rhs)')
hypot = _helper('hypot', 'sqrt(lhs² + rhs²)')
equal = _helper('equal', 'lhs == rhs as 0/1')
not_equal = _helper('not_equal', 'lhs != rhs as 0/1')
greater = _helper('greater', 'lhs > rhs as 0/1')
greater_equal = _helper('greater_equal', 'lhs >= rhs as 0/1')
lesser = _helper('lesser', 'lhs < rhs as 0/1')
lesser_equal = _helper('lesser_equal', 'lhs <= rhs as 0/1')
logical_and = _helper('logical_and', 'lhs AND rhs as 0/1')
logical_or = _helper('logical_or', 'lhs OR rhs as 0/1')
logical_xor = _helper('logical_xor', 'lhs XOR rhs as 0/1')
for _f, _n in ((add, 'add'), (subtract, 'subtract'), (multiply, 'multiply'),
               (divide, 'divide'), (modulo, 'modulo'), (power, 'power'),
               (maximum, 'maximum'), (minimum, 'minimum'), (hypot, 'hypot'), (equal, 'equal'),
               (not_equal, 'not_equal'), (greater, 'greater'),
               (greater_equal, 'greater_equal'), (lesser, 'lesser'),
               (lesser_equal, 'lesser_equal'), (logical_and, 'logical_and'),
               (logical_or, 'logical_or'), (logical_xor, 'logical_xor')):
    _f.__name__ = _f.__qualname__ = _n


_KIND_OF_UFUNC = {kind.ufunc: name for name, kind in _KINDS.items()}


def apply(ufunc, lhs, rhs):
    """``lhs <ufunc> rhs`` by NumPy's name of the operation ('add', 'less', 'power', ...),
    with MXNet's choice of operator (what ``+``, ``<``, ``**`` on NDArrays do)."""
    return _dispatch(_KIND_OF_UFUNC[ufunc], lhs, rhs)


def negate(data):
    """``-data`` as MXNet computes it: ``_mul_scalar(data, -1)``."""
    return _SCALAR['mul'].run([data], {'scalar': -1.0, 'is_int': True})


def add_n(env, *args, num_args):
    """The element-wise sum of all arguments (MXNet's ElementWiseSum)."""
    total = args[0].copy()
    for a in args[1:]:
        if a.shape != total.shape:
            raise MXNetError('add_n: all arrays need the same shape, got %s and %s'
                             % (total.shape, a.shape))
        total += a
    return total, lambda g: (g,) * len(args)


_register(Op('add_n', add_n, ('*args',), aliases=('ElementWiseSum',), infer_shape=same_shape,
             params=[Int('num_args', low=1, doc='The number of arrays (set from the call).')]))
