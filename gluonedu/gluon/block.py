"""Blocks: the containers that hold layers, their Parameters and their children.

A :class:`Block` is a node of a tree. Assigning a Block to an attribute of another
(``self.dense = nn.Dense(10)``) makes it a child; :meth:`Block.collect_params` walks
the tree and gathers every Parameter. Calling a Block runs its forward pre-hooks, its
:meth:`~Block.forward` and its forward hooks.

Names follow MXNet 1.x. Each Block has a *prefix* that starts the names of its
Parameters. Outside any parent, the prefix is the lower-cased class name and a per-name
counter of the current :class:`gluonedu.name.NameManager` (``dense0_``, ``dense1_``);
inside ``with parent.name_scope():`` the counter is the parent's own and the parent's
prefix comes first (``sequential0_dense0_``). :mod:`gluonedu.name` explains how to get
reproducible names in tests and notebooks.

A :class:`HybridBlock` writes its computation once, as ``hybrid_forward(F, x, ...)``,
and receives its Parameters as keyword arguments: their values on the input's context
(``F`` is :mod:`gluonedu.ndarray`), or their variables when called on symbols (``F`` is
:mod:`gluonedu.symbol`). ``hybridize()`` makes the next call trace the computation into
a symbolic graph that later calls run (:mod:`.hybrid`); ``export`` writes that graph and
the Parameters in MXNet's files, which :class:`SymbolBlock` loads back.
"""
import re
import threading
import warnings
from collections import OrderedDict, defaultdict

from .. import initializer, ndarray, symbol
from .. import name as _name
from ..ndarray import NDArray
from . import hybrid
from .parameter import Parameter, ParameterDict, DeferredInitializationError, load_values
from .utils import _indent, _brief_print_list, HookHandle

__all__ = ['Block', 'HybridBlock', 'SymbolBlock']


# ---------------------------------------------------------------------- naming
class _BlockScope:
    """The naming scope a Block opens with ``name_scope()``.

    While it is active, Blocks created inside get prefixes from this scope's own
    per-hint counters, prepended with the owning Block's prefix, and their
    ParameterDicts share the owner's ``shared`` dict.
    """
    _current = threading.local()

    def __init__(self, block):
        self._block = block
        self._counter = {}
        self._old_scope = None
        self._name_scope = None

    @staticmethod
    def create(prefix, params, hint):
        """Return ``(prefix, params)`` for a new Block with name hint ``hint``.

        prefix : str or None
            The prefix the user asked for; None makes one from ``hint`` and a counter.
        params : ParameterDict or None
            Parameters to share: the new Block's dict looks names up there first.
        """
        current = getattr(_BlockScope._current, 'value', None)
        if current is None:
            # Top level: the thread's NameManager numbers the hint globally.
            if prefix is None:
                prefix = _name.current().get(None, hint) + '_'
            if params is None:
                params = ParameterDict(prefix)
            else:
                params = ParameterDict(params.prefix, params)
            return prefix, params

        # Inside a parent's name_scope: number the hint within the parent.
        if prefix is None:
            count = current._counter.get(hint, 0)
            current._counter[hint] = count + 1
            prefix = '%s%d_' % (hint, count)
        if params is None:
            parent = current._block.params
            params = ParameterDict(parent.prefix + prefix, parent._shared)
        else:
            params = ParameterDict(params.prefix, params)
        return current._block.prefix + prefix, params

    def __enter__(self):
        if self._block._empty_prefix:
            return self
        self._old_scope = getattr(_BlockScope._current, 'value', None)
        _BlockScope._current.value = self
        # Symbols made inside (hybrid_forward on symbols) are named under the prefix too.
        self._name_scope = _name.Prefix(self._block.prefix)
        self._name_scope.__enter__()
        return self

    def __exit__(self, ptype, value, trace):
        if self._block._empty_prefix:
            return
        self._name_scope.__exit__(ptype, value, trace)
        self._name_scope = None
        _BlockScope._current.value = self._old_scope
        self._old_scope = None


# ---------------------------------------------------------------------- helpers
def _flatten(args):
    """The leaves of a nested list/tuple structure, in order."""
    if isinstance(args, (list, tuple)):
        leaves = []
        for arg in args:
            leaves.extend(_flatten(arg))
        return leaves
    return [args]


def _shape_str(args):
    """Shapes of the arrays in ``args`` as summary() prints them: '(2, 10)', '(1, 3), [...]'."""
    def shapes(arg):
        if isinstance(arg, (list, tuple)):
            return [shapes(a) for a in arg]
        return arg.shape if isinstance(arg, NDArray) else arg
    result = shapes(args)
    text = str(result)[1:-1] if isinstance(result, list) else str(result)
    return text


def _find_unregistered_blocks(value, registered):
    """Whether a (nested) list, tuple or dict holds a Block that is not a child."""
    if isinstance(value, (list, tuple)):
        return any(_find_unregistered_blocks(v, registered) for v in value)
    if isinstance(value, dict):
        return any(_find_unregistered_blocks(v, registered) for v in value.values())
    return isinstance(value, Block) and value not in registered


# ---------------------------------------------------------------------- Block
class Block:
    """Base class of all layers and models; subclass it and define ``forward``.

    Child Blocks assigned as attributes are registered automatically and their
    Parameters are gathered by :meth:`collect_params`::

        from gluonedu.gluon import Block, nn
        from gluonedu import ndarray as F

        class Model(Block):
            def __init__(self, **kwargs):
                super().__init__(**kwargs)
                with self.name_scope():          # children get this Block's prefix
                    self.dense0 = nn.Dense(20)
                    self.dense1 = nn.Dense(20)

            def forward(self, x):
                return F.relu(self.dense1(F.relu(self.dense0(x))))

    Parameters
    ----------
    prefix : str, optional
        Starts the names of this Block's Parameters and of the children created in
        its ``name_scope()``. By default, the lower-cased class name and a counter.
    params : ParameterDict, optional
        Parameters to share: ``nn.Dense(20, params=dense0.collect_params())`` uses
        ``dense0``'s weight and bias instead of creating new ones.
    """

    def __init__(self, prefix=None, params=None):
        self._empty_prefix = prefix == ''
        self._prefix, self._params = _BlockScope.create(prefix, params, self._alias())
        self._name = self._prefix[:-1] if self._prefix.endswith('_') else self._prefix
        self._scope = _BlockScope(self)
        self._children = OrderedDict()
        self._reg_params = {}
        self._forward_hooks = OrderedDict()
        self._forward_pre_hooks = OrderedDict()

    def __repr__(self):
        lines = ['  (%s): %s' % (key, _indent(repr(value), 2))
                 for key, value in self.__dict__.items() if isinstance(value, Block)]
        return '%s(\n%s\n)' % (self.__class__.__name__, '\n'.join(lines))

    def __setattr__(self, name, value):
        """Register Blocks as children and Parameters as this Block's own."""
        if hasattr(self, name):
            existing = getattr(self, name)
            if isinstance(existing, (Parameter, Block)) and not isinstance(value, type(existing)):
                raise TypeError(
                    "Changing attribute type for %s from %s to %s is not allowed. Use another "
                    "attribute name for the new value." % (name, type(existing), type(value)))
        if isinstance(value, Block):
            if '_children' not in self.__dict__:
                raise AttributeError(
                    "Cannot assign child Block %r before %s.__init__ ran: call "
                    "super().__init__(**kwargs) first in your __init__."
                    % (name, type(self).__name__))
            self.register_child(value, name)
        elif isinstance(value, Parameter):
            if name in self._reg_params:
                raise AssertionError(
                    "Overriding Parameter attribute %s is not allowed. To share Parameters "
                    "between Blocks, pass params=other.collect_params() when constructing "
                    "the Block." % name)
            self._reg_params[name] = value
        super().__setattr__(name, value)

    def _check_container_with_block(self):
        """Warn about Blocks kept in plain lists/dicts: they are not registered children."""
        children = set(self._children.values())
        for key, value in self.__dict__.items():
            if key.startswith('__') or key == '_children':
                continue
            if isinstance(value, (list, tuple, dict)) and \
                    _find_unregistered_blocks(value, children):
                warnings.warn(
                    '"%s.%s" is a list, tuple or dict holding Blocks that are not registered: '
                    'their Parameters are not collected. Register them with register_child() '
                    'or hold them in nn.Sequential / nn.HybridSequential.'
                    % (self.__class__.__name__, key), stacklevel=3)

    def _alias(self):
        """The hint of automatic prefixes: the lower-cased class name."""
        return self.__class__.__name__.lower()

    @property
    def prefix(self):
        """The prefix of this Block's names, e.g. ``'sequential0_dense0_'``."""
        return self._prefix

    @property
    def name(self):
        """The prefix without its trailing '_', e.g. ``'dense0'``."""
        return self._name

    def name_scope(self):
        """A ``with`` scope in which new child Blocks get names under this Block's prefix.

        Example::

            with self.name_scope():
                self.dense = nn.Dense(20)     # prefix: self.prefix + 'dense0_'
        """
        return self._scope

    @property
    def params(self):
        """This Block's own ParameterDict (children's Parameters not included)."""
        return self._params

    # ------------------------------------------------------------------ parameters
    def collect_params(self, select=None):
        """A ParameterDict of this Block's and all its descendants' Parameters.

        Parameters
        ----------
        select : str, optional
            A regular expression; only Parameters whose names match it (``re.match``,
            i.e. from the start) are kept, e.g. ``'.*weight|.*bias'``.
        """
        self._check_container_with_block()
        ret = ParameterDict(self._params.prefix)
        if not select:
            ret.update(self.params)
        else:
            pattern = re.compile(select)
            ret.update({name: value for name, value in self.params.items()
                        if pattern.match(name)})
        for child in self._children.values():
            ret.update(child.collect_params(select=select))
        return ret

    def _collect_params_with_prefix(self, prefix=''):
        """Parameters keyed by their place in the tree: ``'0.weight'``, ``'encoder.1.bias'``.

        These structural names do not depend on prefixes, so a file written by
        ``save_parameters`` loads into any identically built network.
        """
        if prefix:
            prefix += '.'
        ret = {prefix + key: value for key, value in self._reg_params.items()}
        for name, child in self._children.items():
            ret.update(child._collect_params_with_prefix(prefix + name))
        return ret

    def save_parameters(self, filename, deduplicate=False):
        """Save the Parameters' values (averaged over contexts) under structural names.

        Only values are saved, not the model's structure: load them with
        :meth:`load_parameters` into a network built the same way.

        Parameters
        ----------
        filename : str
        deduplicate : bool, default False
            Save a Parameter shared by several children once instead of once per child.
        """
        params = self._collect_params_with_prefix()
        if deduplicate:
            # Keep one structural name per Parameter (the last one walked, as MXNet).
            name_of = {param: key for key, param in params.items()}
            params = {key: param for param, key in name_of.items()}
        ndarray.save(filename, {key: param._reduce() for key, param in params.items()})

    def save_params(self, filename):
        """Deprecated: use :meth:`save_parameters` (this saves prefix-based names)."""
        warnings.warn("save_params is deprecated; use save_parameters instead. (It saves "
                      "Parameters by prefix-based names; save_parameters uses structural "
                      "names that do not depend on prefixes.)", stacklevel=2)
        try:
            self.collect_params().save(filename, strip_prefix=self.prefix)
        except ValueError as err:
            raise ValueError('%s\nsave_params is deprecated; save_parameters may avoid this '
                             'error.' % err) from err

    def load_parameters(self, filename, ctx=None, allow_missing=False, ignore_extra=False,
                        cast_dtype=False, dtype_source='current'):
        """Load values saved by :meth:`save_parameters` into this Block's Parameters.

        Parameters
        ----------
        filename : str
        ctx : Context or list of Context, default cpu()
            Where to initialise Parameters that are not initialised yet.
        allow_missing : bool, default False
            Leave Parameters that the file lacks as they are instead of failing.
        ignore_extra : bool, default False
            Skip values in the file that match no Parameter instead of failing.
        cast_dtype : bool, default False
            Convert between the saved dtype and the Parameter's dtype.
        dtype_source : {'current', 'saved'}, default 'current'
            With ``cast_dtype``, which of the two dtypes wins.

        Raises
        ------
        AssertionError
            A Parameter has no value in the file (and ``allow_missing`` is False).
        ValueError
            The file holds a value no Parameter matches (and ``ignore_extra`` is False).
        """
        loaded = ndarray.load(filename)
        params = self._collect_params_with_prefix()
        if not loaded and not params:
            return
        if not isinstance(loaded, dict):
            raise ValueError("%s holds a list of arrays, not the name -> array dict that "
                             "save_parameters writes." % filename)

        if not any('.' in key for key in loaded):
            # Names without dots: a file of prefix-based names (save_params, or a
            # childless Block), which the ParameterDict loads by prefix.
            self.collect_params().load(filename, ctx, allow_missing, ignore_extra, self.prefix,
                                       cast_dtype=cast_dtype, dtype_source=dtype_source)
            return

        if not allow_missing:
            # A shared Parameter is found under several structural names; a file saved
            # with deduplicate=True has it under one of them only, which is enough.
            names_of = defaultdict(list)
            for key, param in params.items():
                names_of[param].append(key)
            for key, param in params.items():
                if not any(alias in loaded for alias in names_of[param]):
                    raise AssertionError(
                        "Parameter '%s' is missing in file '%s', which contains parameters: "
                        "%s. Set allow_missing=True to leave missing Parameters as they are."
                        % (key, filename, _brief_print_list(loaded.keys())))
        for key in loaded:
            if key not in params and not ignore_extra:
                raise ValueError(
                    "Parameter '%s' loaded from file '%s' is not present in this Block, whose "
                    "parameters are: %s. Set ignore_extra=True to skip values the Block has no "
                    "Parameter for." % (key, filename, _brief_print_list(params.keys())))
        load_values([(params[key], value) for key, value in loaded.items() if key in params],
                    ctx, cast_dtype, dtype_source)

    def load_params(self, filename, ctx=None, allow_missing=False, ignore_extra=False):
        """Deprecated: use :meth:`load_parameters`."""
        warnings.warn("load_params is deprecated; use load_parameters instead.", stacklevel=2)
        self.load_parameters(filename, ctx, allow_missing, ignore_extra)

    # ------------------------------------------------------------------ tree
    def register_child(self, block, name=None):
        """Make ``block`` a child (attributes holding Blocks are registered automatically).

        ``name`` defaults to the number of children so far: '0', '1', ...
        """
        if name is None:
            name = str(len(self._children))
        self._children[name] = block

    def register_forward_pre_hook(self, hook):
        """Call ``hook(block, inputs)`` right before each ``forward``.

        Returns
        -------
        HookHandle
            ``handle.detach()`` removes the hook.
        """
        handle = HookHandle()
        handle.attach(self._forward_pre_hooks, hook)
        return handle

    def register_forward_hook(self, hook):
        """Call ``hook(block, inputs, outputs)`` right after each ``forward``.

        Returns
        -------
        HookHandle
            ``handle.detach()`` removes the hook.
        """
        handle = HookHandle()
        handle.attach(self._forward_hooks, hook)
        return handle

    def apply(self, fn):
        """Call ``fn(block)`` on every descendant (children first), then on self; return self."""
        for child in self._children.values():
            child.apply(fn)
        fn(self)
        return self

    def initialize(self, init=initializer.Uniform(), ctx=None, verbose=False,
                   force_reinit=False):
        """Initialise the Parameters of this Block and its descendants.

        Same as ``self.collect_params().initialize(init, ctx, verbose, force_reinit)``.

        Parameters
        ----------
        init : Initializer, default Uniform()
            For Parameters that have no initializer of their own.
        ctx : Context or list of Context, default the current context
            One copy of every Parameter is kept on each context.
        verbose : bool, default False
        force_reinit : bool, default False
            Re-initialise Parameters that are already initialised.
        """
        self.collect_params().initialize(init, ctx, verbose, force_reinit)

    def hybridize(self, active=True, **kwargs):
        """Turn hybridization of the HybridBlocks below on or off (see HybridBlock)."""
        for child in self._children.values():
            child.hybridize(active, **kwargs)

    def cast(self, dtype):
        """Convert the Parameters of this Block and its descendants to ``dtype``."""
        for child in self._children.values():
            child.cast(dtype)
        for param in self.params.values():
            param.cast(dtype)

    def zero_grad(self):
        """Set the gradients of all Parameters (descendants' too) to 0.

        Not in MXNet 1.9.1's Block (there: ``collect_params().zero_grad()``), as MXNet 2.
        """
        self.collect_params().zero_grad()

    def reset_ctx(self, ctx):
        """Move all Parameters (descendants' too) to ``ctx``, keeping their values.

        Not in MXNet 1.9.1's Block (there: ``collect_params().reset_ctx(ctx)``), as MXNet 2.
        """
        self.collect_params().reset_ctx(ctx)

    def register_op_hook(self, callback, monitor_all=False):
        """Install ``callback`` on the HybridBlocks below (see HybridBlock.register_op_hook).

        A plain Block runs no graph: only its hybridized descendants call the hook.
        """
        for child in self._children.values():
            child.register_op_hook(callback, monitor_all)

    # ------------------------------------------------------------------ calling
    def __call__(self, *args):
        """Run the pre-hooks, ``forward(*args)`` and the hooks; return forward's result."""
        for hook in self._forward_pre_hooks.values():
            hook(self, args)
        out = self.forward(*args)
        for hook in self._forward_hooks.values():
            hook(self, args, out)
        return out

    def forward(self, *args):
        """The computation of this Block on NDArrays; override it (positional args only)."""
        raise NotImplementedError(
            "%s does not define forward(self, *args): override it to compute the outputs."
            % type(self).__name__)

    def summary(self, *inputs):
        """Print a table of every layer's output shape and number of Parameters.

        Runs one forward pass on ``inputs``. The network must be initialised and must
        not be hybridized (as in MXNet).
        """
        from .nn.basic_layers import Sequential, HybridSequential
        summary = OrderedDict()
        seen = set()
        hooks = []

        def record(block, _, outputs):
            key = '%s-%i' % (block.__class__.__name__, len(summary))
            row = summary[key] = {'output_shape': _shape_str(outputs), 'n_params': 0,
                                  'trainable': 0, 'shared': 0}
            for param in block.params.values():
                size = param.data().size
                row['n_params'] += size
                row['trainable'] += 0 if param.grad_req == 'null' else size
                if param in seen:
                    row['shared'] += size
                else:
                    seen.add(param)

        def register(block):
            if isinstance(block, HybridBlock) and block._active:
                raise AssertionError('"%s" must not be hybridized to print summary: call '
                                     'hybridize(False) first.' % block.name)
            if not isinstance(block, (Sequential, HybridSequential)):
                hooks.append(block.register_forward_hook(record))

        summary['Input'] = {'output_shape': _shape_str(inputs), 'n_params': 0,
                            'trainable': 0, 'shared': 0}
        try:
            self.apply(register)
            self(*inputs)
            print(_summary_table(summary))
        finally:
            for handle in hooks:
                handle.detach()


def _summary_table(summary):
    """The text of ``Block.summary``: one row per layer, then the totals."""
    row = '{:>20}  {:>42} {:>15}'
    lines = ['-' * 80, row.format('Layer (type)', 'Output Shape', 'Param #'), '=' * 80]
    total = trainable = shared = 0
    for layer, info in summary.items():
        lines.append(row.format(layer, str(info['output_shape']), info['n_params']))
        total += info['n_params']
        trainable += info['trainable']
        shared += info['shared']
    lines += ['=' * 80,
              'Parameters in forward computation graph, duplicate included',
              '   Total params: %d' % total,
              '   Trainable params: %d' % trainable,
              '   Non-trainable params: %d' % (total - trainable),
              'Shared params in forward computation graph: %d' % shared,
              'Unique parameters in model: %d' % (total - shared),
              '-' * 80]
    return '\n'.join(lines)


# ---------------------------------------------------------------------- HybridBlock
class HybridBlock(Block):
    """A Block whose computation is written once as ``hybrid_forward(F, x, *args, **params)``.

    ``forward`` passes this Block's own Parameters to ``hybrid_forward`` as keyword
    arguments named like the attributes::

        class Model(HybridBlock):
            def __init__(self, **kwargs):
                super().__init__(**kwargs)
                with self.name_scope():
                    self.dense0 = nn.Dense(20)
                    self.dense1 = nn.Dense(20)

            def hybrid_forward(self, F, x):
                return F.relu(self.dense1(F.relu(self.dense0(x))))

    On NDArrays, ``F`` is :mod:`gluonedu.ndarray` and the Parameters are their values on
    the input's context; on Symbols, ``F`` is :mod:`gluonedu.symbol` and they are the
    Parameters' variables, so calling the Block builds a graph.

    After :meth:`hybridize`, the first call traces that graph (the inputs become the
    variables ``data``, or ``data0``, ``data1``, ...) and every call runs it instead of
    ``hybrid_forward``: same values, same gradients, as one compiled computation. The
    graph does not depend on the inputs' shapes, dtypes or contexts: it is traced again
    only when the Block changes (a child added or replaced, ``cast``, ``hybridize``).
    Children of a HybridBlock must be HybridBlocks, as in MXNet.

    Parameters whose shapes depend on the input (``in_units=0``) are initialised on the
    first call, from shapes inferred through the graph (:meth:`infer_shape`).
    """

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._cached_graph = ()
        self._cached_op = None
        self._in_format = None
        self._out_format = None
        self._active = False
        self._flags = []
        self._backend = None
        self._backend_opts = {}
        self._op_hook = None   # (callback, monitor_all) of register_op_hook

    def __setattr__(self, name, value):
        super().__setattr__(name, value)
        if isinstance(value, HybridBlock):
            self._clear_cached_op()

    def register_child(self, block, name=None):
        if not isinstance(block, HybridBlock):
            raise ValueError(
                "Children of HybridBlock must also be HybridBlock, but %s has type %s. Use "
                "HybridSequential instead of Sequential, or derive %s from Block instead."
                % (block, type(block), type(self).__name__))
        super().register_child(block, name)
        self._clear_cached_op()

    def _clear_cached_op(self):
        self._cached_graph = ()
        self._cached_op = None

    def hybridize(self, active=True, backend=None, clear=True, static_alloc=False,
                  static_shape=False, inline_limit=2, forward_bulk_size=None,
                  backward_bulk_size=None, **kwargs):
        """Turn hybridization on or off for this Block and its descendants.

        The next call traces the graph afresh (``clear=False`` keeps a graph already
        traced). Inside ``autograd.record()`` a graph of at most ``inline_limit`` operators
        is recorded operator by operator, a larger one as one ``_CachedOp`` call (what
        ``autograd.get_symbol`` shows; any graph with ``static_alloc``), as MXNet does.
        ``static_alloc``, ``static_shape`` and the bulk sizes otherwise tune MXNet's
        memory planning and engine: accepted and recorded, they change no result.
        """
        if kwargs:
            self._backend_opts = kwargs
        self._backend = backend
        self._active = active
        self._flags = [('static_alloc', static_alloc), ('static_shape', static_shape),
                       ('inline_limit', inline_limit)]
        if forward_bulk_size is not None:
            self._flags.append(('forward_bulk_size', forward_bulk_size))
        if backward_bulk_size is not None:
            self._flags.append(('backward_bulk_size', backward_bulk_size))
        if clear:
            self._clear_cached_op()
        # Same condition as MXNet 1.9.1 (which also warns for pre-hooks when deactivating).
        if (active and self._forward_hooks) or self._forward_pre_hooks:
            warnings.warn('"%s" is being hybridized while still having forward hook/pre-hook. '
                          'If "%s" is a child of HybridBlock, the hooks will not take effect.'
                          % (self, self), stacklevel=2)
        super().hybridize(active, static_alloc=static_alloc, static_shape=static_shape,
                          inline_limit=inline_limit, forward_bulk_size=forward_bulk_size,
                          backward_bulk_size=backward_bulk_size)

    def cast(self, dtype):
        self._clear_cached_op()
        super().cast(dtype)

    def register_op_hook(self, callback, monitor_all=False):
        """Call ``callback(name, op_name, array)`` for every operator the hybridized graph
        runs, as MXNet 1.9.1's CachedOp does: ``name`` (bytes) is the node's name and the
        output's (``b'dense0_fwd_output'``), ``op_name`` the operator's
        (``b'FullyConnected'``), ``array`` a view of the value. With ``monitor_all``, each
        operator's inputs are reported first (``b'dense0_fwd_weight'``; ``b'..._input0'``
        for operators that do not name them).

        Only a hybridized Block's forward on NDArrays calls the hook (not its backward).
        As in MXNet, the hook is installed on this Block and its direct children, and an
        exception the callback raises is printed, not raised. ``callback=None`` removes it.
        """
        if callback is not None and not callable(callback):
            raise TypeError('register_op_hook: callback must be a function '
                            'callback(name, op_name, array) or None, got %r' % (callback,))
        if not isinstance(monitor_all, int):  # (bool is an int, as MXNet takes it)
            raise TypeError('register_op_hook: monitor_all must be True or False, got %r'
                            % (monitor_all,))
        self._op_hook = None if callback is None else (callback, monitor_all)
        for child in self._children.values():
            child._op_hook = self._op_hook

    def optimize_for(self, x, *args, backend=None, **kwargs):
        """Not supported: subgraph backends partition graphs for MXNet's accelerators."""
        raise NotImplementedError(
            "optimize_for partitions the graph for an MXNet backend library (TensorRT, "
            "oneDNN, ...), which gluonedu does not have. hybridize() and export() work.")

    # ------------------------------------------------------------------ the graph
    def _get_graph(self, *args):
        """``(input variables, output symbol)``, traced on first use and kept."""
        if not self._cached_graph:
            flat, self._in_format = hybrid.flatten(args, 'input')
            count = sum(a is not None for a in flat)
            if not count:
                raise ValueError('All args are None and we do not support such a case. '
                                 'Received args=%s' % (args,))
            names = iter(['data'] if count == 1 else ['data%d' % i for i in range(count)])
            variables = [None if a is None else symbol.var(next(names)) for a in flat]
            inputs = hybrid.regroup(variables, self._in_format)
            params = {key: p.var() for key, p in self._reg_params.items()}
            with self.name_scope():
                out = self.hybrid_forward(symbol, *inputs, **params)
            out, self._out_format = hybrid.flatten(out, 'output')
            self._cached_graph = ([v for v in variables if v is not None],
                                  symbol.Group(out))
        return self._cached_graph

    def _build_cache(self, *args):
        inputs, out = self._get_graph(*args)
        data_index = {v.name: i for i, v in enumerate(inputs)}
        input_names = out.list_inputs()
        params = self.collect_params()
        for name in input_names:
            assert name in params or name in data_index, \
                "Unknown input to HybridBlock: %s" % name
        unused = ', '.join('%d-th' % i for name, i in data_index.items()
                           if name not in input_names)
        if unused:
            warnings.warn('The %s input to HybridBlock is not used by any computation. Is this '
                          'intended?' % unused, stacklevel=4)
        unused = sorted(set(params.keys()) - set(input_names))
        if unused:
            warnings.warn('Parameter %s is not used by any computation. Is this intended?'
                          % ', '.join(unused), stacklevel=4)
        flat = [a for a in hybrid.flatten(args, 'input')[0] if a is not None]
        try:
            for name in input_names:
                if name in params:
                    params[name].data()
        except DeferredInitializationError:
            self._deferred_infer_shape(*flat)
            for name in input_names:
                if name in params:
                    params[name]._finish_deferred_init()
        sources = [(True, data_index[name]) if name in data_index else (False, params[name])
                   for name in input_names]
        flags = dict(self._flags)
        self._cached_op = hybrid.CachedOp(out, sources, flags.get('static_alloc', False),
                                          flags.get('inline_limit', 2))

    def _call_cached_op(self, *args):
        if self._cached_op is None:
            self._build_cache(*args)
        hook = None
        if self._op_hook is not None:
            hook = hybrid.OpHook(self._cached_op.plan, *self._op_hook)
            if len(self._flags) >= 2:  # MXNet 1.9.1 warns whenever hybridize() was called
                warnings.warn('register_op_hook is experimental when static_alloc=True / '
                              'static_shape=True and may not work correctly', stacklevel=4)
        flat, fmt = hybrid.flatten(args, 'input')
        hybrid.check_format(fmt, self._in_format)
        out = self._cached_op([a for a in flat if a is not None], hook)
        return hybrid.regroup(out, self._out_format)

    def _deferred_infer_shape(self, *args):
        try:
            self.infer_shape(*args)
        except Exception as err:
            raise ValueError("Deferred initialization failed because shape cannot be "
                             "inferred. %s" % err) from err

    def _infer_attrs(self, infer_fn, attr, *args):
        """Set ``attr`` ('shape' or 'dtype') of every Parameter from the graph, inferred
        from the inputs' ones."""
        inputs, out = self._get_graph(*args)
        flat = [a for a in hybrid.flatten(args, 'input')[0] if a is not None]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter('always')
            arg_attrs, _, aux_attrs = getattr(out, infer_fn)(
                **{v.name: getattr(a, attr) for v, a in zip(inputs, flat)})
        if arg_attrs is None:
            raise ValueError(caught[0].message if caught else
                             '%s could not decide every Parameter\'s %s' % (infer_fn, attr))
        inferred = dict(zip(out.list_arguments(), arg_attrs))
        inferred.update(zip(out.list_auxiliary_states(), aux_attrs))
        for param in self.collect_params().values():
            if param.name not in inferred:
                raise KeyError("%s cannot infer the %s of Parameter '%s': its graph does not "
                               "use it. Give the Parameter a full %s, or override "
                               "infer_%s." % (self.name, attr, param.name, attr,
                                              'shape' if attr == 'shape' else 'type'))
            setattr(param, attr, inferred[param.name])

    def infer_shape(self, *args):
        """Set the unknown (0) dimensions of the Parameters from the inputs' shapes, by
        inferring shapes through the graph."""
        self._infer_attrs('infer_shape', 'shape', *args)

    def infer_type(self, *args):
        """Set the dtypes of the Parameters from the inputs' dtypes through the graph."""
        self._infer_attrs('infer_type', 'dtype', *args)

    # ------------------------------------------------------------------ calling
    def forward(self, x, *args):
        """Run the computation on NDArrays (the cached graph once hybridized), or build it
        on Symbols.

        On NDArrays, Parameters are fetched on the context of the first NDArray among the
        inputs; if their initialisation was deferred, their shapes are inferred from the
        inputs and they are initialised now.
        """
        has_symbol, has_ndarray, contexts, ctx = hybrid.gather_type_ctx_info([x] + list(args))
        if has_symbol and has_ndarray:
            raise ValueError('In HybridBlock, we do not support mixed NDArrays and Symbols '
                             'types for the input. Please check the type of the args.')
        if not has_symbol and not has_ndarray:
            raise ValueError("In HybridBlock, there must be one NDArray or one Symbol in the "
                             "input (got %s). Convert inputs with mx.nd.array(...)."
                             % ', '.join(type(a).__name__ for a in [x] + list(args)))
        if has_symbol:
            params = {key: p.var() for key, p in self._reg_params.items()}
            with self.name_scope():
                return self.hybrid_forward(symbol, x, *args, **params)
        if self._active:
            if len(contexts) > 1:
                raise ValueError("A hybridized HybridBlock takes inputs on one context only, "
                                 "but got inputs on %s. Move them with as_in_context(ctx)."
                                 % sorted(contexts, key=str))
            with ctx:
                return self._call_cached_op(x, *args)
        with ctx:
            try:
                params = {key: p.data(ctx) for key, p in self._reg_params.items()}
            except DeferredInitializationError:
                self._deferred_infer_shape(x, *args)
                for param in self.params.values():
                    param._finish_deferred_init()
                params = {key: p.data(ctx) for key, p in self._reg_params.items()}
            return self.hybrid_forward(ndarray, x, *args, **params)

    def hybrid_forward(self, F, x, *args, **kwargs):
        """The computation, with ``F`` the operator namespace; override it.

        Parameters
        ----------
        F : module
            :mod:`gluonedu.ndarray` on NDArrays, :mod:`gluonedu.symbol` on Symbols.
        x : NDArray or Symbol
            The first input.
        *args : NDArray or Symbol
            Further inputs.
        **kwargs : NDArray or Symbol
            This Block's Parameters (values on ``x``'s context, or variables).
        """
        raise NotImplementedError(
            "%s does not define hybrid_forward(self, F, x, *args, **params): override it."
            % type(self).__name__)

    def export(self, path, epoch=0, remove_amp_cast=True):
        """Write the traced graph to ``path-symbol.json`` and the Parameters to
        ``path-%04d.params`` (``epoch``), in MXNet's formats.

        Call :meth:`hybridize` and run the Block once first. The files load into
        :meth:`SymbolBlock.imports` — gluonedu's or MXNet's — and MXNet's Module or C++
        API. With one input, it is called ``data``; with several, ``data0``, ``data1``, ...
        """
        if not self._cached_graph:
            raise RuntimeError(
                "Please first call block.hybridize() and then run forward with this block at "
                "least once before calling export.")
        sym = self._cached_graph[1]
        sym.save('%s-symbol.json' % path, remove_amp_cast=remove_amp_cast)
        params = self.collect_params()
        aux_names = set(sym.list_auxiliary_states())
        arrays = {('aux:%s' if name in aux_names else 'arg:%s') % name: params[name]._reduce()
                  for name in sym.list_inputs() if name in params}
        ndarray.save('%s-%04d.params' % (path, epoch), arrays, format='mxnet')


from .symbol_block import SymbolBlock  # noqa: E402  (builds on HybridBlock)
