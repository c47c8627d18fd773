"""What a hybridized Block runs: its inputs flattened, its graph compiled, its outputs
regrouped.

``HybridBlock.hybridize()`` makes the next call trace ``hybrid_forward`` with symbols
(``F = mx.sym``) into one graph, whose inputs are the call's arrays (``data``, or
``data0``, ``data1``, ...) and the Block's Parameters. Later calls run that graph with a
:class:`CachedOp`: the graph compiled once (:class:`~gluonedu.symbol.executor.Plan`), each
input taken from the call's arrays or a Parameter's data on the call's context.

Nested inputs and outputs (lists of arrays, None) are flattened into one list and a
*format* that :func:`regroup` uses to rebuild the structure, as MXNet does: 0 for an
array, -1 for None, n > 1 for a symbol of n outputs, a list for a list.
"""
import sys
import traceback

from .. import autograd
from ..ndarray import NDArray
from ..symbol import Symbol
from ..symbol import monitor
from ..symbol.executor import Plan
from ..symbol.recorded import graph_operator, run_as_one_call

__all__ = ['flatten', 'regroup', 'gather_type_ctx_info', 'CachedOp', 'OpHook']


def gather_type_ctx_info(args):
    """``(has_symbol, has_ndarray, contexts, first context)`` of a nested structure."""
    if isinstance(args, NDArray):
        return False, True, {args.ctx}, args.ctx
    if isinstance(args, Symbol):
        return True, False, set(), None
    if isinstance(args, (list, tuple)):
        has_symbol = has_ndarray = False
        contexts, first = set(), None
        for item in args:
            sym, arr, ctxs, ctx = gather_type_ctx_info(item)
            has_symbol, has_ndarray = has_symbol or sym, has_ndarray or arr
            contexts |= ctxs
            first = first if first is not None else ctx
        return has_symbol, has_ndarray, contexts, first
    return False, False, set(), None


def flatten(args, what):
    """``(flat list, format)`` of arrays/symbols/None in a nested list or tuple."""
    if isinstance(args, NDArray):
        return [args], 0
    if isinstance(args, Symbol):
        n = len(args.list_outputs())
        return [args], n if n > 1 else 0
    if args is None:
        return [None], -1
    if not isinstance(args, (list, tuple)):
        raise ValueError('When hybridized, the %s of HybridBlock must be (nested) lists of '
                         'Symbol or NDArray, but got %s of type %s'
                         % (what, args, type(args).__name__))
    flat, formats = [], []
    for item in args:
        items, fmt = flatten(item, what)
        flat.extend(items)
        formats.append(fmt)
    return flat, formats


def regroup(args, fmt):
    """The nested structure ``fmt`` describes, filled from the flat list ``args``."""
    def take(args, fmt):
        if isinstance(fmt, int):
            if fmt < -1:
                raise ValueError('Unsupported encoded format %s.' % fmt)
            if fmt == 0:
                return args[0], args[1:]
            if fmt == -1:
                if args[0] is not None:
                    raise ValueError('A HybridBlock hybridized with None for an input must be '
                                     'called with None there, got %s' % (args[0],))
                return None, args[1:]
            return args[:fmt], args[fmt:]
        if not isinstance(args, (list, tuple)):
            raise ValueError('When hybridized, the output of HybridBlock must be (nested) '
                             'lists of Symbol or NDArray, but got %s of type %s'
                             % (args, type(args).__name__))
        result = []
        for item in fmt:
            value, args = take(args, item)
            result.append(value)
        return result, args
    return take(args, fmt)[0]


def check_format(fmt, cached):
    """ValueError unless a call's input format ``fmt`` fits the cached one (trailing None
    inputs may be left out, as MXNet allows)."""
    if fmt == cached:
        return
    shorter, longer = sorted((fmt, cached), key=len)
    if isinstance(fmt, list) and isinstance(cached, list) and \
            longer[:len(shorter)] == shorter and all(f == -1 for f in longer[len(shorter):]):
        return
    raise ValueError('The argument structure of HybridBlock does not match the cached '
                     'version. Stored format = %s, input format = %s' % (cached, fmt))


class CachedOp:
    """A traced graph ready to run: each input of the graph comes from the call's arrays
    (``(True, index)``) or a Parameter (``(False, parameter)``).

    Inside ``autograd.record()``, as MXNet's CachedOp, a graph of at most ``inline_limit``
    operators is recorded operator by operator ("inlined"), a larger one (or any, with
    ``static_alloc``) as one call of the operator ``_CachedOp``: what
    ``autograd.get_symbol`` shows. Gradients are the same either way.
    """

    def __init__(self, symbol, sources, static_alloc=False, inline_limit=2):
        self.plan = Plan(symbol)
        self.sources = sources
        self.inline = not static_alloc and self.plan.num_operators <= inline_limit
        self.op = graph_operator(symbol, self.plan)

    def __call__(self, args, hook=None):
        """The graph's outputs for the call's (flattened, None-free) arrays; ``hook`` as
        :meth:`Plan.run`'s."""
        inputs = [args[source] if is_data else source.data()
                  for is_data, source in self.sources]
        if self.inline or not autograd.is_recording():
            return self.plan.run(inputs, hook)
        return run_as_one_call(self.plan, self.op, inputs, hook)


class OpHook:
    """What ``HybridBlock.register_op_hook`` installs on a graph's run: for each operator,
    ``callback(name, op name, array)`` for its outputs (and, with ``monitor_all``, first
    for its inputs), the names as MXNet 1.9.1 gives them (:mod:`gluonedu.symbol.monitor`),
    as bytes, and each array a view of the value. Outputs nothing reads are left out, as
    MXNet leaves them (it does not compute them).
    """

    def __init__(self, plan, callback, monitor_all):
        self._callback = callback
        self._monitor_all = monitor_all
        self._steps = []
        for node, (_, _, _, first, n) in zip(plan.nodes, plan.steps):
            prefix = node.name + '_'
            ins = [(prefix + name).encode() for name in monitor.input_names(node.op,
                                                                            node.params)]
            outs = [(prefix + name).encode() if first + i in plan.used else None
                    for i, name in enumerate(monitor.output_names(node.op, node.params))]
            self._steps.append((node.op.name.encode(), ins, outs))

    def __call__(self, step, arrays, are_outputs):
        op_name, ins, outs = self._steps[step]
        if not (are_outputs or self._monitor_all):
            return
        for name, array in zip(outs if are_outputs else ins, arrays):
            if name is not None and array is not None:
                self._report(name, op_name, array.detach())

    def _report(self, name, op_name, array):
        try:
            self._callback(name, op_name, array)
        except Exception:  # pylint: disable=broad-except
            # As MXNet, whose engine calls the hook: the error is printed, the run goes on.
            print('Exception ignored in the op hook %r:' % (self._callback,), file=sys.stderr)
            traceback.print_exc()
