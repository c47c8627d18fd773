"""Base definitions shared by every layer: the library error and dtype helpers."""
import numpy as np

__all__ = ['MXNetError', 'NotSupportedForSparseNDArray', 'mx_real_t', 'numeric_types',
           'integer_types', 'string_types']


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


def normalize_dtype(dtype):
    """Return ``dtype`` as a NumPy dtype; ``None`` means MXNet's default float32."""
    if dtype is None:
        return np.dtype(mx_real_t)
    try:
        return np.dtype(dtype)
    except TypeError as err:
        raise TypeError("%r is not a data type NumPy understands; use e.g. 'float32', "
                        "'float16', 'float64', 'int32' or 'int64'" % (dtype,)) from err
