"""SymbolBlock: a Block made from a symbolic graph — the other half of ``export``.

``SymbolBlock(outputs, inputs, params)`` wraps the graph from the variables ``inputs``
to ``outputs``; every other variable of the graph becomes a Parameter (its auxiliary
states, such as BatchNorm's running statistics, Parameters without gradient).
``SymbolBlock.imports('net-symbol.json', ['data'], 'net-0000.params')`` rebuilds what
``HybridBlock.export`` (or MXNet's ``Module.save_checkpoint``) wrote, and the result
trains like any Block.
"""

import numpy as np

from .. import symbol
from ..base import MXNetError, mx_real_t, STYPE_TO_MX
from ..ndarray import NDArray
from ..symbol import Symbol
from . import hybrid
from .block import HybridBlock
from .parameter import ParameterDict

__all__ = ['SymbolBlock']


class SymbolBlock(HybridBlock):
    """A Block running the graph from ``inputs`` to ``outputs``.

    Parameters
    ----------
    outputs : Symbol or list of Symbol
        What the Block computes (e.g. ``net(mx.sym.var('data')).get_internals()[...]``
        to extract features).
    inputs : Symbol or list of Symbol
        The variables the caller gives, in order.
    params : ParameterDict, optional
        Parameters to share for the graph's other variables (e.g. the traced network's
        ``collect_params()``); the others are created, to be initialised or loaded.
    """

    @staticmethod
    def imports(symbol_file, input_names, param_file=None, ctx=None, allow_missing=False,
                ignore_extra=False):
        """A SymbolBlock of the graph in ``symbol_file`` with the values of ``param_file``.

        Reads the files of ``HybridBlock.export`` and ``Module.save_checkpoint`` (MXNet's
        or gluonedu's): ``input_names`` names the graph's inputs (usually ``['data']``),
        the other variables are loaded from ``param_file`` (in the dtypes saved there)
        onto ``ctx``.
        """
        sym = symbol.load(symbol_file)
        if isinstance(input_names, str):
            input_names = [input_names]
        if param_file is None:  # fp32 inputs give the Parameters a dtype to infer
            inputs = [symbol.var(name, dtype=mx_real_t) for name in input_names]
        else:
            inputs = [symbol.var(name) for name in input_names]
        block = SymbolBlock(sym, inputs)
        if param_file is not None:
            block.collect_params().load(param_file, ctx, allow_missing, ignore_extra,
                                        cast_dtype=True, dtype_source='saved')
        return block

    def __init__(self, outputs, inputs, params=None):
        super().__init__(prefix=None, params=None)
        self._prefix = ''
        self._params = ParameterDict('', params)
        if isinstance(inputs, Symbol) and len(inputs.list_outputs()) == 1:
            inputs = [inputs]
        if isinstance(outputs, (list, tuple)) and len(outputs) == 1:
            outputs = outputs[0]
        syms, self._in_format = hybrid.flatten(inputs, 'input')
        out, self._out_format = hybrid.flatten(outputs, 'output')
        input_names = set()
        for var in syms:
            assert len(var.get_internals().list_outputs()) == 1, \
                "Input symbols must be variable, but %s is an output of operators" % var
            input_names.add(var.name)
        row_sparse = str(STYPE_TO_MX['row_sparse'])
        for sym in out:
            for internal in sym.get_internals():
                assert internal.attr('__storage_type__') != row_sparse, \
                    "SymbolBlock doesn't support Parameter '%s' because its storage type " \
                    "is 'row_sparse'." % internal.name
        out = symbol.Group(out) if len(out) > 1 else out[0]
        arg_names, aux_names = out.list_arguments(), out.list_auxiliary_states()
        arg_types, aux_types = _param_types(syms, out, arg_names, aux_names)
        for name, dtype in zip(arg_names, arg_types):
            if name not in input_names:
                self.params.get(name, allow_deferred_init=True, dtype=dtype)
        for name, dtype in zip(aux_names, aux_types):
            if name not in input_names:
                self.params.get(name, grad_req='null', allow_deferred_init=True, dtype=dtype)
        self._cached_graph = syms, out
        strip = len(_common_prefix(list(self._params.keys())))
        self._reg_params = {key[strip:]: value for key, value in self._params.items()}

    def __repr__(self):
        inputs, out = self._cached_graph
        return '%s(\n%s : %d -> %d\n)' % (type(self).__name__, out, len(inputs),
                                          len(out.list_outputs()))

    def forward(self, x, *args):
        if isinstance(x, NDArray):
            with x.ctx:
                return self._call_cached_op(x, *args)
        if not isinstance(x, Symbol):
            raise AssertionError('HybridBlock requires the first argument to forward be either '
                                 'Symbol or NDArray, but got %s' % type(x))
        args, fmt = hybrid.flatten([x] + list(args), 'input')
        assert fmt == self._in_format, 'Invalid input format'
        inputs, out = self._cached_graph
        result = out(**{var.name: arg for var, arg in zip(inputs, args)})
        return hybrid.regroup(list(result), self._out_format)

    def _clear_cached_op(self):
        graph = self._cached_graph
        super()._clear_cached_op()
        self._cached_graph = graph

    def cast(self, dtype):
        self._clear_cached_op()
        super().cast(dtype)
        if np.dtype(dtype).name == 'float16':
            self._keep_batch_norm_float32()

    def _keep_batch_norm_float32(self):
        """As MXNet: BatchNorm's statistics and affine Parameters stay float32 in a
        float16 network (found by their names' endings)."""
        names = self._cached_graph[1].get_internals().list_inputs()
        for var_suffix, mean_suffix in (('running_var', 'running_mean'),
                                        ('moving_var', 'moving_mean')):
            for name in names:
                if not name.endswith(var_suffix):
                    continue
                stem = name[:-len(var_suffix)]
                family = [stem + t for t in (mean_suffix, 'gamma', 'beta')]
                if all(f in names for f in family):
                    for member in [name] + family:
                        self.params.get(member).cast('float32')

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise NotImplementedError(
            'a SymbolBlock computes its graph; it has no hybrid_forward to call')

    def reset_ctx(self, ctx):
        """Move all Parameters to ``ctx``."""
        for param in self.collect_params().values():
            param.reset_ctx(ctx)


def _common_prefix(names):
    """The longest prefix all ``names`` share."""
    if not names:
        return ''
    prefix = names[0]
    for name in names[1:]:
        i = 0
        while i < min(len(prefix), len(name)) and prefix[i] == name[i]:
            i += 1
        prefix = prefix[:i]
    return prefix


def _param_types(inputs, out, arg_names, aux_names, default=mx_real_t):
    """The dtypes of the arguments and auxiliary states, inferred from the inputs' dtypes
    where they have one; ``default`` where inference cannot tell."""
    arg_types = aux_types = None
    known = {}
    for var in inputs:
        dtypes = var.infer_type_partial()[0]
        if not dtypes or dtypes[0] is None:
            known = None
            break
        known[var.name] = dtypes[0]
    if known is not None:
        try:
            arg_types, _, aux_types = out.infer_type(**known)
        except MXNetError:
            arg_types = aux_types = None
    if arg_types is None or len(arg_types) != len(arg_names):
        arg_types = [default] * len(arg_names)
    if aux_types is None or len(aux_types) != len(aux_names):
        aux_types = [default] * len(aux_names)
    return arg_types, aux_types
