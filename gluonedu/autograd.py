"""Recording computations and differentiating them (``mx.autograd``).

Inside ``with autograd.record():`` every operation on arrays that take part in
differentiation (variables made with ``attach_grad`` or by Parameters, and results of
recorded operations) is recorded; ``backward`` then writes the gradients of the
variables. ``record`` also switches to training mode (Dropout active) unless
``train_mode=False``. See ``gluonedu/ndarray/_graph.py`` for the engine itself.
"""
from . import _backend
from .base import MXNetError
from .ndarray import NDArray, _graph
from .ndarray.ndarray import check_same_device, is_variable, mark_variable, write_grad

__all__ = ['record', 'pause', 'train_mode', 'predict_mode', 'is_recording', 'is_training',
           'set_recording', 'set_training', 'backward', 'grad', 'mark_variables', 'get_symbol',
           'Function']

_STATE = _graph.STATE


def is_recording():
    """Whether operations are being recorded for differentiation."""
    return _STATE.recording


def is_training():
    """Whether layers such as Dropout behave as in training."""
    return _STATE.training


def set_recording(is_recording):  # pylint: disable=redefined-outer-name
    """Turn recording on or off; returns the previous state."""
    previous, _STATE.recording = _STATE.recording, bool(is_recording)
    return previous


def set_training(train_mode):  # pylint: disable=redefined-outer-name
    """Turn training mode on or off; returns the previous state."""
    previous, _STATE.training = _STATE.training, bool(train_mode)
    return previous


class _Scope:
    """Sets recording and/or training on entry and restores both on exit."""

    def __init__(self, recording, training):
        self._enter = (recording, training)
        self._saved = None

    def __enter__(self):
        self._saved = (_STATE.recording, _STATE.training)
        recording, training = self._enter
        if recording is not None:
            _STATE.recording = recording
        if training is not None:
            _STATE.training = training
        return self

    def __exit__(self, *exc):
        _STATE.recording, _STATE.training = self._saved


def record(train_mode=True):  # pylint: disable=redefined-outer-name
    """Record operations for ``backward`` in this block (training mode by default)."""
    return _Scope(True, train_mode)


def pause(train_mode=False):  # pylint: disable=redefined-outer-name
    """Stop recording inside a ``record`` block (prediction mode by default)."""
    return _Scope(False, train_mode)


def train_mode():
    """Training-mode behaviour (Dropout active) without changing recording."""
    return _Scope(None, True)


def predict_mode():
    """Prediction-mode behaviour (Dropout off) without changing recording."""
    return _Scope(None, False)


def mark_variables(variables, gradients, grad_reqs='write'):
    """Make ``variables`` leaves of differentiation with gradient buffers ``gradients``.

    grad_reqs : str or list of str, each 'write', 'add' or 'null'.
    """
    if isinstance(variables, NDArray):
        variables, gradients = [variables], [gradients]
    if isinstance(grad_reqs, str):
        grad_reqs = [grad_reqs] * len(variables)
    if not len(variables) == len(gradients) == len(grad_reqs):
        raise ValueError("mark_variables: got %d variables, %d gradients and %d grad_reqs; "
                         "give one of each per variable"
                         % (len(variables), len(gradients), len(grad_reqs)))
    for var, grad_buf, req in zip(variables, gradients, grad_reqs):
        if var.shape != grad_buf.shape:
            raise MXNetError("mark_variables: a variable of shape %s needs a gradient buffer of "
                             "the same shape, got %s" % (var.shape, grad_buf.shape))
        check_same_device('mark_variables', [var, grad_buf])
        mark_variable(var, grad_buf, req)


def _raw_full(like, fill):
    """A raw (NumPy/CuPy) array of ``like``'s shape and dtype, on its device, all ``fill``:
    a head's default gradient, an output's zero one (nd.ones takes ~50 µs through the
    operator table; this ~3 µs, once per backward)."""
    return _backend.array_module(like.context).full(like.shape, fill, dtype=like.dtype)


def _head_grads(heads, head_grads):
    if head_grads is None:
        return [_raw_full(h, 1) for h in heads]
    if isinstance(head_grads, NDArray):
        head_grads = [head_grads]
    if len(head_grads) != len(heads):
        raise ValueError("got %d head_grads for %d heads" % (len(head_grads), len(heads)))
    result = []
    for h, g in zip(heads, head_grads):
        if g is None:
            result.append(_raw_full(h, 1))
            continue
        if g.shape != h.shape:
            raise MXNetError("head gradient of shape %s does not match its head's shape %s"
                             % (g.shape, h.shape))
        check_same_device('backward', [h, g])
        result.append(g.handle)
    return result


def _as_list(heads):
    return [heads] if isinstance(heads, NDArray) else list(heads)


def backward(heads, head_grads=None, retain_graph=False, train_mode=True):  # noqa: F811
    """Differentiate ``heads`` and write the gradients of all variables reached.

    Each variable written is marked as holding a fresh gradient, which the Trainer's
    stale-gradient check reads.
    """
    heads = _as_list(heads)
    if not heads:
        raise MXNetError('backward: no arrays to differentiate; pass the outputs (a loss) '
                         'computed inside autograd.record()')
    with _Scope(False, train_mode):
        leaves = _graph.run_backward(heads, _head_grads(heads, head_grads), retain_graph)
        for var, g in leaves.values():
            write_grad(var, g)


def grad(heads, variables, head_grads=None, retain_graph=None, create_graph=False,
         train_mode=True):  # noqa: F811
    """Gradients of ``heads`` with respect to ``variables``, returned as new arrays.

    Unlike :func:`backward`, the variables' ``grad`` buffers are left untouched. Only
    first-order gradients are supported (``create_graph=False``).
    """
    if create_graph:
        raise NotImplementedError("gluonedu computes first-order gradients only; "
                                  "create_graph=True is not supported")
    heads = _as_list(heads)
    single = isinstance(variables, NDArray)
    variables = _as_list(variables)
    for var in variables:
        if not is_variable(var):
            raise MXNetError("grad(): every variable needs attach_grad() (or must be a "
                             "Parameter's data) before the computation is recorded")
    retain = create_graph if retain_graph is None else retain_graph
    with _Scope(False, train_mode):
        leaves = _graph.run_backward(heads, _head_grads(heads, head_grads), retain)
    results = []
    for var in variables:
        g = leaves.get(id(var), (None, None))[1]
        if g is None:
            g = _raw_full(var, 0)
        elif isinstance(g, _graph.RowGrad):
            g = g.todense(_backend.array_module(var.context))
        results.append(NDArray(g.astype(var.dtype, copy=False), var.ctx))
    return results[0] if single else results


def get_symbol(x):
    """The Symbol of the computation that produced ``x`` while recording.

    Its variables are the arrays the computation started from (``var0``, ``var1``, ...),
    its nodes the operators applied (``node_0``, ...), as MXNet names them.
    """
    from .symbol.recorded import symbol_of  # symbols sit above autograd
    return symbol_of(x)


class Function:
    """A differentiable function with a hand-written gradient.

    Subclass it with ``forward(self, *inputs)`` (NDArrays in, an NDArray or a tuple of
    them out) and ``backward(self, *output_grads)`` (one gradient per output in, one per
    input out); ``save_for_backward(*arrays)`` keeps what the backward needs in
    ``self.saved_tensors``. Call an instance like a function, once::

        class Cube(mx.autograd.Function):
            def forward(self, x):
                self.save_for_backward(x)
                return x ** 3

            def backward(self, dy):
                x, = self.saved_tensors
                return dy * 3 * x ** 2

        with mx.autograd.record():
            z = Cube()(x)
        z.backward()          # x.grad is 3 * x ** 2

    Neither ``forward`` nor ``backward`` is recorded: inside ``record()`` the call becomes
    one node of the tape whose gradient is ``backward``'s. With several outputs the tape
    asks each output's gradient separately (the others given as zeros), so ``backward``
    must be linear in the output gradients, as every gradient is.
    """

    def __init__(self):
        self._used = False
        self.saved_tensors = ()

    def save_for_backward(self, *args):
        """Keep ``args`` for :meth:`backward` (as ``self.saved_tensors``)."""
        self.saved_tensors = args

    def __call__(self, *inputs):
        if self._used:
            raise AssertionError('each Function instance can be called only once; create '
                                 'another instance for another call')
        self._used = True
        with _Scope(False, None):
            outputs = self.forward(*inputs)
        if not _STATE.recording:
            return outputs
        outs = (outputs,) if isinstance(outputs, NDArray) else tuple(outputs)
        if any(out is x for out in outs for x in inputs):
            raise MXNetError('%s.forward returned one of its inputs: inside record() the '
                             'outputs must be new arrays (return x.copy())'
                             % type(self).__name__)
        _graph.record_outputs(outs, inputs,
                              lambda grads: self._input_grads(outs, grads, len(inputs)),
                              'Function')
        return outputs

    def _input_grads(self, outs, grads, n_inputs):
        """The ``n_inputs`` gradients (raw arrays) for the outputs' gradients ``grads``
        (None: zeros), from one call of ``backward``, as MXNet calls it."""
        ograds = [NDArray(_raw_full(out, 0) if grad is None else grad, out.ctx)
                  for out, grad in zip(outs, grads)]
        with _Scope(False, None):
            igrads = self.backward(*ograds)
        igrads = (igrads,) if isinstance(igrads, NDArray) else tuple(igrads)
        if len(igrads) != n_inputs:
            raise AssertionError('%s.backward returned %d gradients for %d inputs: return one '
                                 'per input of forward' % (type(self).__name__, len(igrads),
                                                           n_inputs))
        return tuple(g.handle for g in igrads)

    def forward(self, *inputs):
        """The function's values; subclasses implement it."""
        raise NotImplementedError('%s must implement forward(*inputs)' % type(self).__name__)

    def backward(self, *output_grads):
        """The inputs' gradients from the outputs'; subclasses implement it."""
        raise NotImplementedError('%s must implement backward(*output_grads)'
                                  % type(self).__name__)
