"""Helpers for Gluon training loops (``mx.gluon.utils``).

* :func:`split_data` / :func:`split_and_load` cut a batch into one slice per device,
  the first step of data parallelism.
* :func:`clip_global_norm` rescales a set of gradients so that their joint L2 norm is at
  most ``max_norm``.
* :func:`check_sha1` verifies a file's content.
* :class:`HookHandle` is what ``Block.register_forward_hook`` & co. return.
* ``_indent``, ``_brief_print_list`` and :func:`shape_is_known` serve ``parameter.py``
  and ``block.py``.

There is no ``download``: gluonedu never touches the network.
"""
import collections
import hashlib
import warnings
import weakref

import numpy as np

from .. import ndarray as nd
from ..instrument.events import BUS
from ..ndarray import NDArray
from ..util import is_np_shape

__all__ = ['split_data', 'split_and_load', 'clip_global_norm', 'check_sha1', 'shape_is_known',
           'HookHandle']


# ---------------------------------------------------------------------- data parallelism
def split_data(data, num_slice, batch_axis=0, even_split=True):
    """Cut ``data`` into ``num_slice`` consecutive slices along ``batch_axis``.

    With ``n = data.shape[batch_axis]``, the first ``n % num_slice`` slices hold
    ``n // num_slice + 1`` samples and the rest ``n // num_slice``, so sizes differ by at
    most one. With ``even_split=True`` (the default) a batch that ``num_slice`` does not
    divide is refused with ``ValueError``.

    Parameters
    ----------
    data : NDArray
        A batch of data.
    num_slice : int
        How many slices to make (usually the number of devices).
    batch_axis : int, default 0
        The axis that indexes the samples.
    even_split : bool, default True
        Insist that every slice has the same size.

    Returns
    -------
    list of NDArray
        Always a list, also for ``num_slice=1``.
    """
    size = data.shape[batch_axis]
    if even_split and size % num_slice != 0:
        raise ValueError(
            "data of shape %s cannot be cut into %d equal slices along axis %d. Use a batch "
            "size that is a multiple of %d, or pass even_split=False to allow slices whose "
            "sizes differ by one." % (str(data.shape), num_slice, batch_axis, num_slice))
    base, extra = divmod(size, num_slice)
    sizes = [base + 1] * extra + [base] * (num_slice - extra)
    bounds = np.concatenate([[0], np.cumsum(sizes)]).astype(int)
    if batch_axis == 0:
        return [data[int(bounds[i]):int(bounds[i + 1])] for i in range(num_slice)]
    return [nd.slice_axis(data, axis=batch_axis, begin=int(bounds[i]), end=int(bounds[i + 1]))
            for i in range(num_slice)]


def split_and_load(data, ctx_list, batch_axis=0, even_split=True):
    """Split ``data`` with :func:`split_data` and put slice ``i`` on ``ctx_list[i]``.

    ``data`` may be an NDArray or anything :func:`gluonedu.nd.array` accepts (a NumPy
    array, nested lists); the latter is first made an NDArray on ``ctx_list[0]``. With a
    single context the whole batch is returned (moved there if needed), unsplit.

    Returns
    -------
    list of NDArray
        One per context, in the order of ``ctx_list``.
    """
    if not isinstance(data, NDArray):
        data = nd.array(data, ctx=ctx_list[0])
    if len(ctx_list) == 1:
        return [data.as_in_context(ctx_list[0])]
    slices = split_data(data, len(ctx_list), batch_axis, even_split)
    return [piece.as_in_context(ctx) for piece, ctx in zip(slices, ctx_list)]


# ---------------------------------------------------------------------- gradient clipping
def _squared_norm(array):
    """‖array‖², as an NDArray of shape (1,) on the array's context."""
    if array.stype == 'default':
        flat = array.reshape((-1,))
        return nd.dot(flat, flat)
    return nd.square(nd.norm(array))


def clip_global_norm(arrays, max_norm, check_isfinite=True):
    """Rescale ``arrays`` in place so that their joint L2 norm is at most ``max_norm``.

    .. math::

        \\text{total} = \\sqrt{\\textstyle\\sum_k \\lVert a_k \\rVert_2^2}, \\qquad
        s = \\min\\Big(1, \\frac{\\text{max\\_norm}}{\\text{total} + 10^{-8}}\\Big), \\qquad
        a_k \\leftarrow s \\cdot a_k

    The squared norms are summed on the context of ``arrays[0]`` (each is moved there),
    so the arrays may live on different devices. Arrays already within the bound are
    multiplied by exactly 1.

    A total norm that is NaN or infinite (some entry is, or the sum of squares overflows)
    leaves every array as it was: scaling by it would make every array NaN or zero, not
    only the one at fault. MXNet 1.9.1 scales anyway (see docs/divergences.md).

    Parameters
    ----------
    arrays : list of NDArray
        Usually the gradients of all parameters (one context each).
    max_norm : float
        The largest joint norm allowed.
    check_isfinite : bool, default True
        Read the total norm back to the host and warn (``UserWarning``) if it is NaN or
        infinite, saying that the arrays were left as they were. This read blocks until
        the norm is computed.

    Returns
    -------
    float or NDArray
        The total norm before clipping: a NumPy float scalar if ``check_isfinite``, else
        an NDArray of shape (1,) on ``arrays[0]``'s context (no blocking read).
    """
    if len(arrays) == 0:
        raise ValueError("clip_global_norm needs at least one array, got an empty list")
    ctx = arrays[0].context
    total_norm = nd.sqrt(nd.add_n(*[_squared_norm(a).as_in_context(ctx) for a in arrays]))
    if check_isfinite and not np.isfinite(total_norm.asscalar()):
        warnings.warn(UserWarning(
            "clip_global_norm: the total norm is %s, so the arrays were left as they were "
            "(not clipped). A gradient holds NaN or infinite values (or values whose squares "
            "overflow): check the data and the loss, lower the learning rate, or skip this "
            "batch's update."
            % total_norm.asscalar()), stacklevel=2)
    one = nd.ones((1,), ctx=ctx, dtype=total_norm.dtype)
    # min(scale, 1): arrays within the bound are left as they are; and so are all of them
    # when the norm is not finite (x - x is 0 exactly when x is finite), with no host read.
    scale = nd.min(nd.concat(max_norm / (total_norm + 1e-8), one, dim=0))
    scale = nd.where((total_norm - total_norm) == 0, scale, one)
    for array in arrays:
        array *= scale.as_in_context(array.context)
    if BUS.active:
        BUS.emit('clip', 'clip_global_norm', total_norm=float(total_norm.asscalar()),
                 max_norm=float(max_norm), scale=float(scale.asscalar()))
    if check_isfinite:
        return total_norm.asscalar()
    return total_norm


# ---------------------------------------------------------------------- files
def check_sha1(filename, sha1_hash):
    """Whether the SHA-1 digest of the file ``filename`` equals ``sha1_hash`` (hex string)."""
    digest = hashlib.sha1()
    with open(filename, 'rb') as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b''):
            digest.update(chunk)
    return digest.hexdigest() == sha1_hash


# ---------------------------------------------------------------------- printing helpers
def _indent(text, num_spaces):
    """``text`` with every line but the first indented by ``num_spaces`` spaces."""
    lines = text.split('\n')
    if len(lines) == 1:
        return text
    return '\n'.join([lines[0]] + [' ' * num_spaces + line for line in lines[1:]])


def _brief_print_list(lst, limit=7):
    """The items of ``lst`` quoted and comma-separated, eliding the middle of long lists.

    A list longer than ``limit`` shows its first ``limit // 2`` and last ``limit // 2 + 1``
    items (as MXNet): ``"'a', 'b', 'c', ..., 'w', 'x', 'y', 'z'"``.
    """
    lst = list(lst)
    if len(lst) > limit:
        # -limit // 2 rounds towards -inf, so the tail is one longer than the head.
        return (_brief_print_list(lst[:limit // 2], limit) + ', ..., '
                + _brief_print_list(lst[-limit // 2:], limit))
    return ', '.join("'%s'" % str(item) for item in lst)


def shape_is_known(shape):
    """Whether every dimension of ``shape`` is known.

    As MXNet 1.x: in the legacy shape semantics 0 marks an unknown dimension (deferred
    initialization fills it in later) and the empty shape ``()`` counts as unknown; under
    ``mx.np_shape()`` -1 marks it, 0 is a dimension of size zero and ``()`` a scalar's
    shape. ``None`` is unknown. A dimension below the unknown mark is an error
    (``AssertionError``, as MXNet).
    """
    if shape is None:
        return False
    unknown = -1 if is_np_shape() else 0
    if len(shape) == 0:
        return unknown == -1
    for dim in shape:
        if dim == unknown:
            return False
        if dim < unknown:
            raise AssertionError("a shape dimension cannot be below %d, got %s in %s"
                                 % (unknown, dim, tuple(shape)))
    return True


# ---------------------------------------------------------------------- hooks
class HookHandle:
    """A handle on one hook registered in a dict of hooks; ``detach()`` removes it.

    ``Block.register_forward_hook`` (and friends) create a handle, ``attach`` it to the
    block's hook dict and return it. Use it as a context manager to remove the hook when
    the ``with`` block ends::

        with net.register_forward_hook(print_shapes):
            net(x)

    The handle holds the dict weakly, so it does not keep a deleted block alive.
    """

    def __init__(self):
        self._hooks_dict_ref = None
        self._id = None

    def attach(self, hooks_dict, hook):
        """Insert ``hook`` into ``hooks_dict`` (keyed by ``id(hook)``); once per handle."""
        if self._hooks_dict_ref is not None:
            raise AssertionError("this HookHandle is already attached; register the hook "
                                 "again to get a new handle")
        self._id = id(hook)
        hooks_dict[self._id] = hook
        self._hooks_dict_ref = weakref.ref(hooks_dict)

    def detach(self):
        """Remove the hook; a no-op if it is already gone (or was never attached)."""
        hooks_dict = self._hooks_dict_ref() if self._hooks_dict_ref is not None else None
        if hooks_dict is not None and self._id in hooks_dict:
            del hooks_dict[self._id]

    def __getstate__(self):
        hooks_dict = self._hooks_dict_ref() if self._hooks_dict_ref is not None else None
        return (hooks_dict, self._id)

    def __setstate__(self, state):
        hooks_dict, self._id = state
        # A handle unpickled without its dict points at an empty one, so detach() is a no-op.
        self._hooks_dict_ref = weakref.ref(hooks_dict if hooks_dict is not None
                                           else collections.OrderedDict())

    def __enter__(self):
        return self

    def __exit__(self, ptype, value, trace):
        self.detach()
