"""Devices: ``cpu(i)`` and ``gpu(i)``, with MXNet's ``Context`` semantics.

``cpu(0)``, ``cpu(1)``, ... are distinct devices: an array lives on exactly one of them
and an operation whose inputs live on different devices is an error, exactly as with
several GPUs. That makes multi-device data parallelism real on a laptop.
"""
import threading

from . import _backend

__all__ = ['Context', 'cpu', 'gpu', 'cpu_pinned', 'current_context', 'num_gpus',
           'gpu_memory_info']


class Context:
    """A device on which arrays live and operations run.

    Parameters
    ----------
    device_type : {'cpu', 'gpu', 'cpu_pinned', 'cpu_shared'} or Context
    device_id : int, default 0

    Notes
    -----
    Use it as a ``with`` block to make it the default context of array creation.
    """
    _local = threading.local()
    devtype2str = {1: 'cpu', 2: 'gpu', 3: 'cpu_pinned', 5: 'cpu_shared'}
    devstr2type = {'cpu': 1, 'gpu': 2, 'cpu_pinned': 3, 'cpu_shared': 5}

    def __init__(self, device_type, device_id=0):
        if isinstance(device_type, Context):
            self.device_typeid = device_type.device_typeid
            self.device_id = device_type.device_id
        else:
            if device_type not in Context.devstr2type:
                raise ValueError("unknown device type %r: use one of %s"
                                 % (device_type, sorted(Context.devstr2type)))
            if not isinstance(device_id, int) or device_id < 0:
                raise ValueError("device_id must be a non-negative int, got %r" % (device_id,))
            self.device_typeid = Context.devstr2type[device_type]
            self.device_id = device_id
        self._old_ctx = None

    @property
    def device_type(self):
        """The device type as a string ('cpu', 'gpu', 'cpu_pinned' or 'cpu_shared')."""
        return Context.devtype2str[self.device_typeid]

    def __hash__(self):
        return hash((self.device_typeid, self.device_id))

    def __eq__(self, other):
        return (isinstance(other, Context) and self.device_typeid == other.device_typeid
                and self.device_id == other.device_id)

    def __str__(self):
        # Cached: the instrumentation names the context of every parameter on every step.
        text = self.__dict__.get('_str')
        if text is None:
            text = self._str = '%s(%d)' % (self.device_type, self.device_id)
        return text

    __repr__ = __str__

    def __enter__(self):
        stack = _stack()
        stack.append(self)
        return self

    def __exit__(self, *exc):
        _stack().pop()

    def empty_cache(self):
        """Release cached device memory (CuPy's memory pool); a no-op on CPU."""
        if self.device_type == 'gpu':
            cupy = _backend.cupy_or_raise(self.device_id)
            with cupy.cuda.Device(self.device_id):
                cupy.get_default_memory_pool().free_all_blocks()


def _stack():
    stack = getattr(Context._local, 'stack', None)
    if stack is None:
        stack = Context._local.stack = []
    return stack


def cpu(device_id=0):
    """The CPU context ``cpu(device_id)``; distinct ids are distinct devices."""
    return Context('cpu', device_id)


def cpu_pinned(device_id=0):
    """A pinned-memory CPU context (plain host memory here)."""
    return Context('cpu_pinned', device_id)


def gpu(device_id=0):
    """The GPU context ``gpu(device_id)``, backed by CuPy device ``device_id``.

    Creating the context always works; putting data on it needs CuPy and a GPU and
    raises MXNetError naming what is missing otherwise.
    """
    return Context('gpu', device_id)


def current_context():
    """The innermost context of an active ``with ctx:`` block, else the default context.

    The default is ``cpu(0)`` unless ``test_utils.set_default_context`` changed it.
    """
    stack = _stack()
    if stack:
        return stack[-1]
    return getattr(Context._local, 'default', None) or Context('cpu', 0)


def set_default_context(ctx):
    """Make ``ctx`` the default context of this thread (outside any ``with ctx:`` block);
    ``mx.test_utils.set_default_context``."""
    if not isinstance(ctx, Context):
        raise TypeError("set_default_context() takes a Context, got %r" % (ctx,))
    Context._local.default = ctx


def num_gpus():
    """The number of GPUs available to gluonedu (0 without CuPy)."""
    return _backend.gpu_count()


def gpu_memory_info(device_id=0):
    """(free, total) bytes of GPU ``device_id``."""
    cupy = _backend.cupy_or_raise(device_id)
    with cupy.cuda.Device(device_id):
        return cupy.cuda.runtime.memGetInfo()
