"""The arrays an :class:`~gluonedu.io.NDArrayIter` reads, in one canonical form: a list
of ``(name, NDArray)`` pairs sorted by name."""
import numpy as np

from .. import ndarray as nd
from ..ndarray.csr import CSRNDArray, is_scipy_sparse

__all__ = ['named_arrays', 'rows_in_order']


def named_arrays(data, allow_empty, default_name):
    """``[(name, NDArray)]`` sorted by name, from an array, a list of arrays or a dict.

    A single array is named ``default_name``; the arrays of a list ``_0_<default_name>``,
    ``_1_<default_name>``, …; a dict names its own. NumPy arrays, nested lists and SciPy
    sparse matrices become NDArrays (float32 unless they are NDArrays already).
    """
    if data is None and not allow_empty:
        raise AssertionError('NDArrayIter needs data: give an array, a list of arrays or a '
                             'dict of them')  # AssertionError: MXNet's type
    if data is None:
        data = []
    if isinstance(data, (np.ndarray, nd.NDArray)) or is_scipy_sparse(data):
        data = [data]
    if isinstance(data, list):
        if not data and not allow_empty:
            raise AssertionError('NDArrayIter got an empty list of data arrays')
        if len(data) == 1:
            data = {default_name: data[0]}
        else:
            data = {'_%d_%s' % (i, default_name): d for i, d in enumerate(data)}
    if not isinstance(data, dict):
        raise TypeError('NDArrayIter takes an NDArray or a NumPy array, a list of them or a '
                        'dict of them; got %s' % type(data).__name__)
    return sorted(((name, _as_ndarray(name, value)) for name, value in data.items()),
                  key=lambda pair: pair[0])


def _as_ndarray(name, value):
    if isinstance(value, nd.NDArray):
        return value
    if is_scipy_sparse(value):
        return nd.sparse.csr_matrix(value)
    try:
        return nd.array(value)
    except (TypeError, ValueError) as err:
        raise TypeError('cannot use %s as the array %r of an NDArrayIter: give an NDArray, '
                        'a NumPy array or nested lists of numbers'
                        % (type(value).__name__, name)) from err


def rows_in_order(named, order):
    """``named`` with the rows of each array taken in ``order`` (MXNet's copy: dense
    arrays come back as NDArrays of its default dtype, as ``nd.array`` makes them)."""
    taken = []
    for name, array in named:
        if isinstance(array, CSRNDArray):
            taken.append((name, nd.sparse.csr_matrix(array.asscipy()[order],
                                                      ctx=array.context)))
        else:
            taken.append((name, nd.array(array.asnumpy()[order], ctx=array.context)))
    return taken
