"""The recording tape behind ``gluonedu.autograd``, small enough to read in one sitting.

While ``autograd.record()`` is active, every operation whose inputs take part in
differentiation attaches a :class:`Node` to its output: the inputs, and a function that
maps the output's gradient to the inputs' gradients. ``backward`` walks the nodes from the
heads in reverse topological order, sums the gradients reaching each array, and writes
them into the gradient buffers of the variables (arrays with ``attach_grad`` or Parameters)
according to their ``grad_req``. Each variable it writes is marked as holding a fresh
gradient; the Trainer's stale-gradient check reads that mark.

The tape also names what it records, as MXNet's does for ``autograd.get_symbol``: each
recorded call ``node_<n>``, each variable ``var<n>`` when it is marked, each array a
recorded call reads without tracking it ``null<n>`` when first read. The numbers are
MXNet's two process-wide counters (one for calls, one shared by ``var`` and ``null``).
A ``null`` name lasts until a backward that does not retain the graph walks past it.
"""
import itertools
import threading
from contextlib import contextmanager

from ..base import MXNetError


class _State(threading.local):
    def __init__(self):
        self.recording = False
        self.training = False
        self.naming = True   # False while a hybridized block records as one call


_CALL_NUMBERS = itertools.count()
_LEAF_NUMBERS = itertools.count()


def variable_name():
    """The name of a newly marked variable: ``var<n>``."""
    return 'var%d' % next(_LEAF_NUMBERS)


STATE = _State()


class Node:
    """How one recorded output was computed: ``backward(out_grad) -> input grads``.

    ``op`` names the operation: ``(Op, params)`` for an operator of the table (the outputs
    of one call share that tuple; ``index`` tells which output this is), else a name.
    ``name`` is the call's (``node_<n>``; None for a call inside a hybridized block that
    records as one); ``attrs`` its attributes as a graph gave them (None: the parameters
    that differ from the defaults).
    """
    __slots__ = ('inputs', 'backward', 'op', 'index', 'name', 'attrs', 'call')

    def __init__(self, inputs, backward, op, index, name, call=None):
        self.inputs = inputs
        self.backward = backward
        self.op = op
        self.index = index
        self.name = name
        self.attrs = None
        self.call = call    # a JointCall when this output is one of several of a call

    def op_name(self):
        """The operation's name (an operator's MXNet name), for messages."""
        return self.op[0].name if isinstance(self.op, tuple) else self.op


class JointCall:
    """The call behind several recorded outputs: ``backward(out_grads)`` takes the
    gradients of all of them (None for an output no gradient reaches) and runs once, when
    every output's gradient is complete. One run, as MXNet's: a hybridized graph's
    backward (and the running statistics its BatchNorm updates there) or an
    ``autograd.Function``'s ``backward`` sees all the outputs' gradients together."""
    __slots__ = ('inputs', 'backward', 'count')

    def __init__(self, inputs, backward, count):
        self.inputs = inputs
        self.backward = backward
        self.count = count


class RowGrad:
    """A row-sparse gradient in flight: ``data[k]`` is the gradient of row ``indices[k]``.

    Indices may repeat until the gradient is written; writing sums duplicate rows.
    """
    __slots__ = ('indices', 'data', 'shape')

    def __init__(self, indices, data, shape):
        self.indices = indices
        self.data = data
        self.shape = shape

    def todense(self, xp):
        dense = xp.zeros(self.shape, dtype=self.data.dtype)
        xp.add.at(dense, self.indices, self.data)
        return dense


def is_tracked(arr):
    """Whether gradients must flow through ``arr``: a variable, or a recorded result."""
    return arr._node is not None or (arr._grad_req is not None and arr._grad_req != 'null')


def _name_call(inputs):
    """The name of a call being recorded; its untracked inputs get their ``null`` names."""
    if not STATE.naming:
        return None
    name = 'node_%d' % next(_CALL_NUMBERS)
    for x in inputs:
        if x._tape_name is None and not is_tracked(x):
            x._tape_name = 'null%d' % next(_LEAF_NUMBERS)
    return name


def record(out, inputs, backward, op):
    """Attach a node to ``out`` if recording and any input is tracked; returns ``out``."""
    if STATE.recording and any(is_tracked(x) for x in inputs):
        inputs = tuple(inputs)
        out._node = Node(inputs, backward, op, 0, _name_call(inputs))
    return out


def record_outputs(outs, inputs, backward, op):
    """:func:`record` for a call of several outputs: ``backward(out_grads)`` maps the
    outputs' gradients (None for an output that gets none) to the inputs' gradients, once
    for all (:class:`JointCall`); one node name for all."""
    if STATE.recording and any(is_tracked(x) for x in inputs):
        inputs = tuple(inputs)
        name = _name_call(inputs)
        call = JointCall(inputs, backward, len(outs))
        for i, out in enumerate(outs):
            out._node = Node(inputs, None, op, i, name, call)
    return outs


@contextmanager
def unnamed():
    """Record without naming calls or leaves: the calls inside one recorded as a whole."""
    previous, STATE.naming = STATE.naming, False
    try:
        yield
    finally:
        STATE.naming = previous


def stand_in(arr):
    """Where the calls recorded as a whole start (:func:`grads_through` stops there):
    for a tracked ``arr``, a tracked leaf with its data; an untracked one is a leaf
    already."""
    if not is_tracked(arr):
        return arr
    leaf = arr.detach()
    leaf._grad_req = 'write'
    return leaf


def grads_through(heads, leaves, grads):
    """The gradients (raw arrays or None) that ``grads`` flowing into ``heads`` (None: no
    gradient) give the stand-in ``leaves``, in one backward pass; the graph between is
    kept for another call."""
    pairs = [(head, grad) for head, grad in zip(heads, grads)
             if grad is not None and is_tracked(head)]
    if not pairs:
        return (None,) * len(leaves)
    found = run_backward([head for head, _ in pairs], [grad for _, grad in pairs],
                         retain_graph=True)
    return tuple(found.get(id(leaf), (None, None))[1] for leaf in leaves)


def set_attrs(outputs, attrs):
    """Give the recorded call of ``outputs`` the attributes ``attrs`` (a graph node's)."""
    for y in outputs:
        node = y._node
        if node is not None and node.name is not None:
            node.attrs = attrs


def leaf_name(arr):
    """The name the tape gives ``arr`` as a leaf (a fresh ``null<n>`` if a backward freed
    its name since)."""
    if arr._tape_name is None:
        arr._tape_name = 'null%d' % next(_LEAF_NUMBERS)
    return arr._tape_name


def recorded_calls(head):
    """How ``head`` was computed, for ``autograd.get_symbol``: ``(leaves, calls, output)``.

    ``leaves`` are the arrays the recording started from, ``calls`` the operator calls in
    order, each ``(key, name, op, params, attrs, inputs)`` with ``inputs`` a list of
    ``('leaf', i)`` or ``(call key, output index)``, and ``output`` the reference of
    ``head``. MXNetError if an operation outside the operator table (indexing, in-place
    writes) took part.
    """
    if head._node is None and head._tape_name is None:
        raise MXNetError('get_symbol: this array is not part of a recorded computation: '
                         'compute it inside autograd.record() from arrays with '
                         'attach_grad() (or Parameters)')
    leaves, calls, refs = [], [], {}

    def ref(arr):
        node = arr._node
        if node is None:
            if id(arr) not in refs:
                refs[id(arr)] = ('leaf', len(leaves))
                leaves.append(arr)
            return refs[id(arr)]
        return (id(node.op), node.index)

    order, visited = [], set()
    stack = [(head, False)]
    while stack:  # depth-first, each call after the calls it reads
        arr, expanded = stack.pop()
        node = arr._node
        if node is None:
            ref(arr)
        elif expanded:
            order.append(node)
        elif id(node.op) not in visited:
            visited.add(id(node.op))
            if not isinstance(node.op, tuple):
                raise MXNetError("get_symbol: this array was computed with %r, which has no "
                                 "symbolic form; use the operators of mx.nd (e.g. nd.slice "
                                 "instead of x[...])" % (node.op,))
            stack.append((arr, True))
            stack.extend((x, False) for x in reversed(node.inputs))
    for node in order:
        op, params = node.op
        calls.append((id(node.op), node.name, op, params, node.attrs,
                      [ref(x) for x in node.inputs]))
    return leaves, calls, ref(head)


def _accumulate(xp, total, grad):
    if total is None:
        return grad
    if isinstance(total, RowGrad) and isinstance(grad, RowGrad):
        return RowGrad(xp.concatenate([total.indices, grad.indices]),
                       xp.concatenate([total.data, grad.data]), total.shape)
    if isinstance(total, RowGrad):
        total = total.todense(xp)
    if isinstance(grad, RowGrad):
        grad = grad.todense(xp)
    return total + grad


def _sources(item):
    """What an array (through its node) or a JointCall was computed from, in the tape."""
    if type(item) is JointCall:
        return item.inputs
    node = item._node
    if node is None:
        return ()
    return (node.call,) if node.call is not None else node.inputs


def _topological_order(heads):
    """Arrays reachable from ``heads`` through nodes, each after all its consumers; the
    JointCall of several outputs after all of them."""
    order, seen = [], set()
    for head in heads:
        stack = [(head, False)]
        while stack:
            item, expanded = stack.pop()
            if expanded:
                order.append(item)
                continue
            if id(item) in seen:
                continue
            seen.add(id(item))
            stack.append((item, True))
            stack.extend((x, False) for x in _sources(item) if id(x) not in seen)
    order.reverse()
    return order


#: What NumPy raises about the values or shapes it is given: an operator reports it as its
#: own MXNetError (IndexError is not among them: MXNet raises it too, e.g. gather_nd's).
NUMPY_ERRORS = (ValueError, ZeroDivisionError, FloatingPointError)


def run_backward(heads, head_grads, retain_graph):
    """Back-propagate from ``heads``; return {id(variable): (variable, gradient)}."""
    grads = {}
    for head, grad in zip(heads, head_grads):
        if not is_tracked(head):  # a variable itself is fine: d head / d head = 1, as MXNet
            raise MXNetError(
                "cannot differentiate: this array is not the result of a recorded computation. "
                "Compute it inside `with autograd.record():` from arrays that have "
                "attach_grad() (or from Parameters) before calling backward().")
        grads[id(head)] = _accumulate(head._xp, grads.get(id(head)), grad)
    leaves = {}
    joint = {}    # id(JointCall) -> (its outputs' gradients, one of them, its node)
    for item in _topological_order(heads):
        if type(item) is JointCall:
            if id(item) not in joint:
                continue
            out_grads, arr, node = joint.pop(id(item))
            _backward_call(item, out_grads, arr, node, grads, retain_graph)
            continue
        arr = item
        if not retain_graph and not is_tracked(arr):
            arr._tape_name = None  # the graph is freed: its null<n> names with it
        grad = grads.pop(id(arr), None)
        if grad is None:
            continue
        node = arr._node
        if node is None:
            if arr._grad_req is not None and arr._grad_req != 'null':
                leaves[id(arr)] = (arr, grad)
            continue
        if isinstance(grad, RowGrad):
            grad = grad.todense(arr._xp)
        if node.call is not None:     # run with the call's other outputs' gradients
            out_grads = joint.setdefault(id(node.call),
                                         ([None] * node.call.count, arr, node))[0]
            out_grads[node.index] = grad
            continue
        _backward_call(node, grad, arr, node, grads, retain_graph)
    return leaves


def _backward_call(call, out_grad, arr, node, grads, retain_graph):
    """Run ``call.backward(out_grad)`` (a Node's or a JointCall's) and add the inputs'
    gradients to ``grads``; ``arr``/``node``: an output of the call and its node."""
    if call.backward is None:
        raise MXNetError(
            "the graph of this computation was already used by backward() and freed. "
            "Pass retain_graph=True to the first backward() to differentiate twice.")
    try:
        input_grads = call.backward(out_grad)
    except NUMPY_ERRORS as err:
        raise MXNetError('the gradient of %s: %s' % (node.op_name(), err)) from None
    if not retain_graph:
        call.backward = None
    for x, g in zip(call.inputs, input_grads):
        if g is not None and is_tracked(x):
            grads[id(x)] = _accumulate(arr._xp, grads.get(id(x)), g)
