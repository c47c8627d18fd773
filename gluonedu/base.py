"""Base definitions shared by every layer: the library error and dtype helpers."""
import numpy as np

__all__ = ['MXNetError', 'mx_real_t', 'numeric_types', 'integer_types', 'string_types']


class MXNetError(RuntimeError):
    """The base error of gluonedu, named as MXNet names it.

    Raised where MXNet's backend would raise: arrays on different contexts in one
    operation, incompatible shapes or dtypes, misuse of autograd.
    """


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
