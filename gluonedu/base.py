"""Base definitions shared by every layer: the library error, dtype helpers, and the check
of a hyperparameter's range."""
import numbers
import warnings

import numpy as np

__all__ = ['MXNetError', 'NotSupportedForSparseNDArray', 'mx_real_t', 'numeric_types',
           'integer_types', 'string_types', 'py_str', 'check_hyperparameter']


class MXNetError(RuntimeError):
    """The base error of gluonedu, named as MXNet names it.

    Raised where MXNet's backend would raise: arrays on different contexts in one
    operation, incompatible shapes or dtypes, misuse of autograd.
    """


class NotSupportedForSparseNDArray(MXNetError):
    """An NDArray method that a sparse array (csr, row_sparse) does not offer, as MXNet.

    ``NotSupportedForSparseNDArray(method, alias, *args)`` names the method, the operator
    spelling it stands for (``alias``, or None) and the types of its arguments.
    """

    def __init__(self, function, alias, *args):
        self.function = function.__name__
        self.alias = alias
        self.arg_types = [type(a).__name__ for a in args]
        what = 'Function %s' % self.function
        if alias:
            what += ' (operator "%s")' % alias
        if self.arg_types:
            what += ' with arguments (%s)' % ', '.join(self.arg_types)
        super().__init__(what + " is not supported for sparse arrays; convert with "
                         "tostype('default') first to use it on the dense equivalent.")


#: MXNet's default real type.
mx_real_t = np.float32

numeric_types = (float, int, np.generic)
integer_types = (int, np.integer)
string_types = (str,)


def py_str(raw):
    """A name MXNet hands to callbacks (an operator hook's node and operator names) as
    UTF-8 bytes, as text. Like MXNet's, it takes bytes only: a str has no ``decode``."""
    return raw.decode('utf-8')


def normalize_dtype(dtype):
    """Return ``dtype`` as a NumPy dtype; ``None`` means MXNet's default float32."""
    return np.dtype(mx_real_t) if dtype is None else to_numpy_dtype(dtype)


def to_numpy_dtype(value):
    """``numpy.dtype(value)`` (``None`` is float64 there), with a TypeError that names
    the usual dtypes when NumPy does not know ``value``."""
    try:
        with warnings.catch_warnings():  # NumPy 2 deprecates some old aliases ('a')
            warnings.simplefilter('ignore', DeprecationWarning)
            return np.dtype(value)
    except TypeError as err:
        raise TypeError("%r is not a data type NumPy understands; use e.g. 'float32', "
                        "'float16', 'float64', 'int32' or 'int64'" % (value,)) from err


class NotImplementedForSymbol(MXNetError):
    """An NDArray feature that a Symbol, which holds no values, cannot offer (as MXNet)."""

    def __init__(self, function, alias, *args):
        name = getattr(function, '__name__', str(function))
        what = 'Function %s' % name + (' (namely operator "%s")' % alias if alias else '')
        super().__init__(what + ' is not supported for Symbol: a Symbol describes a '
                         'computation and holds no values. Evaluate it first (sym.eval(...), '
                         'or call the hybridized Block on NDArrays).')


#: MXNet's numbers for dtypes, as its files write them (symbol ``__dtype__`` attributes,
#: the type flags of ``.params`` files). 12 is bfloat16, which NumPy lacks.
DTYPE_TO_MX = {np.dtype(name): code for code, name in enumerate(
    ('float32', 'float64', 'float16', 'uint8', 'int32', 'int8', 'int64', 'bool', 'int16',
     'uint16', 'uint32', 'uint64'))}
DTYPE_FROM_MX = {code: dtype for dtype, code in DTYPE_TO_MX.items()}

#: MXNet's numbers for storage types (``__storage_type__``, ``.params`` files).
STYPE_TO_MX = {'default': 0, 'row_sparse': 1, 'csr': 2}
STYPE_FROM_MX = {code: stype for stype, code in STYPE_TO_MX.items()}


def check_hyperparameter(name, value, low=None, high=None, low_open=False, high_open=False):
    """Raise ValueError naming ``name`` unless ``value`` lies in the given interval."""
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        raise ValueError("%s must be a real number, got %r" % (name, value))
    too_low = low is not None and (value <= low if low_open else value < low)
    too_high = high is not None and (value >= high if high_open else value > high)
    if too_low or too_high or value != value:
        interval = '%s%s, %s%s' % ('(' if low_open else '[', '-inf' if low is None else low,
                                   'inf' if high is None else high, ')' if high_open else ']')
        raise ValueError("%s must lie in %s, got %r" % (name, interval, value))
