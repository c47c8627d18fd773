"""Parameters: named weights with a copy on each context, and dictionaries of them.

A :class:`Parameter` holds one array per context it is initialised on (``data(ctx)``),
and, unless ``grad_req='null'``, a gradient buffer beside each (``grad(ctx)``). Each
copy is an autograd variable, so ``backward`` writes its gradient and marks it fresh —
the Trainer's stale-gradient check depends on that mark.

Initialisation may be *deferred*: a layer that does not yet know its input size
creates its weight with an unknown (0) dimension; ``initialize`` then only records the
initializer and contexts, and the first forward pass fills in the shape and finishes
initialisation. Until then, reading the data raises
:class:`DeferredInitializationError`.
"""
from collections import OrderedDict
import warnings

import numpy as np

from .. import autograd, initializer, symbol
from .. import ndarray as nd
from ..base import MXNetError, mx_real_t
from ..context import Context, cpu, current_context
from ..util import is_np_shape
from .utils import _brief_print_list, _indent, shape_is_known

__all__ = ['DeferredInitializationError', 'Parameter', 'Constant', 'ParameterDict',
           'tensor_types']

tensor_types = (nd.NDArray,)

_STYPES = ('default', 'row_sparse', 'csr')
_NAMING_HELP = ("Make sure the source and target networks have the same prefixes: create "
                "child blocks inside `with self.name_scope():`.")


class DeferredInitializationError(MXNetError):
    """A Parameter was read before its deferred initialisation could finish."""


class Parameter:
    """A weight of a Block, with a copy (and a gradient buffer) on each context.

    Parameters
    ----------
    name : str
    grad_req : {'write', 'add', 'null'}, default 'write'
        How backward stores gradients: overwrite, accumulate (call ``zero_grad``
        yourself), or not at all (no gradient buffer is allocated).
    shape : int or tuple of int, optional
        0 marks a dimension unknown until the first forward pass (deferred init).
    dtype : numpy dtype or str, default 'float32'
    lr_mult, wd_mult : float, default 1.0
        Multipliers of the optimizer's learning rate and weight decay for this weight.
    init : Initializer or str, optional
        Overrides the global initializer given to ``initialize``.
    allow_deferred_init : bool, default False
    differentiable : bool, default True
        If False, ``grad_req`` is always 'null'.
    stype, grad_stype : {'default', 'row_sparse', 'csr'}
        Storage types of the data and of the gradient.
    """

    def __init__(self, name, grad_req='write', shape=None, dtype=mx_real_t, lr_mult=1.0,
                 wd_mult=1.0, init=None, allow_deferred_init=False, differentiable=True,
                 stype='default', grad_stype='default'):
        self._var = None
        self._data = None
        self._grad = None
        self._ctx_list = None
        self._ctx_index = None
        self._trainer = None
        self._deferred_init = ()
        self._differentiable = differentiable
        self._allow_deferred_init = allow_deferred_init
        self._grad_req = None
        self._shape = (shape,) if isinstance(shape, int) else shape
        self.name = name
        self._dtype = dtype
        self.lr_mult = lr_mult
        self.wd_mult = wd_mult
        self.grad_req = grad_req
        self.init = init
        for kind, value in (('stype', stype), ('grad_stype', grad_stype)):
            if value not in _STYPES:
                raise AssertionError("%s of Parameter '%s' must be one of %s, got %r"
                                     % (kind, name, ', '.join(_STYPES), value))
        self._stype = stype
        self._grad_stype = grad_stype

    def __repr__(self):
        return 'Parameter %s (shape=%s, dtype=%s)' % (self.name, self.shape, self.dtype)

    # ------------------------------------------------------------------ attributes
    @property
    def grad_req(self):
        """'write', 'add' or 'null'; settable before or after initialisation."""
        return self._grad_req

    @grad_req.setter
    def grad_req(self, req):
        if req not in ('write', 'add', 'null'):
            raise AssertionError("grad_req must be 'write', 'add' or 'null', got %r" % (req,))
        if not self._differentiable:
            req = 'null'
        if self._grad_req == req:
            return
        self._grad_req = req
        if req == 'null' and self._grad is not None:
            self._grad = None
            self._data = [arr.detach() for arr in self._data]
        elif self._data is not None:
            self._init_grad()

    @property
    def dtype(self):
        """The element type; assigning it casts the data (see :meth:`cast`)."""
        return self._dtype

    @dtype.setter
    def dtype(self, dtype):
        self.cast(dtype)

    @property
    def shape(self):
        """The shape; 0 marks a dimension not known yet (-1 under ``mx.np_shape()``)."""
        if self._shape is not None and is_np_shape():
            return tuple(-1 if dim == 0 else dim for dim in self._shape)
        return self._shape

    @shape.setter
    def shape(self, new_shape):
        if self._shape is None:
            self._shape = new_shape
            return
        compatible = len(self._shape) == len(new_shape) and all(
            known in (0, -1, given) for given, known in zip(new_shape, self._shape))
        if not compatible:
            raise AssertionError("Parameter '%s' has shape %s, which the new shape %s does not "
                                 "fit (only unknown 0 dimensions may change)"
                                 % (self.name, self._shape, new_shape))
        self._shape = tuple(new_shape)

    @property
    def stype(self):
        return self._stype

    def _set_trainer(self, trainer):
        """Remember the Trainer that updates this Parameter (one only, if sparse)."""
        if self._stype != 'default' and self._trainer and trainer and \
                self._trainer is not trainer:
            raise RuntimeError(
                "Parameter '%s' is already updated by another Trainer; a %s Parameter can "
                "belong to one Trainer only." % (self.name, self._stype))
        self._trainer = trainer

    # ------------------------------------------------------------------ lookup
    def _check_and_get(self, arr_list, ctx):
        """The copy of ``arr_list`` for ``ctx`` (``list``: all copies)."""
        if arr_list is not None:
            if ctx is list:
                return arr_list
            if ctx is None:
                if len(arr_list) == 1:
                    return arr_list[0]
                ctx = current_context()
            index = self._ctx_index.get(ctx)
            if index is not None:
                return arr_list[index]
            raise RuntimeError(self._wrong_context_message(ctx))
        if self._deferred_init:
            raise DeferredInitializationError(
                "Parameter '%s' has not been initialized yet because its initialization was "
                "deferred: its shape %s is only known after the first forward pass. Pass one "
                "batch of data through the network before reading it, or give layers their "
                "input sizes (e.g. in_units=...) to initialize at once."
                % (self.name, self._shape))
        raise RuntimeError(
            "Parameter '%s' has not been initialized. Call .initialize() on it, or on the "
            "Block's collect_params() (Block.params misses nested children's Parameters)."
            % self.name)

    def _wrong_context_message(self, ctx):
        """Why there is no copy on ``ctx``, and how to bring data and Parameter together."""
        where = self._ctx_list
        if len(where) == 1:
            move_data = "x.as_in_context(mx.%s) (or x.copyto(mx.%s))" % (where[0], where[0])
        else:
            move_data = ("gluon.utils.split_and_load(x, [%s]), one slice per context"
                         % ', '.join('mx.%s' % c for c in where))
        return ("Parameter '%s' was not initialized on context %s. It was only initialized "
                "on %s. The data and the Parameters must be on the same context: move the "
                "data with %s, or move the Parameters with "
                "net.collect_params().reset_ctx(mx.%s)."
                % (self.name, ctx, where, move_data, ctx))

    def _get_row_sparse(self, arr_list, ctx, row_id):
        if not isinstance(row_id, nd.NDArray):
            raise TypeError("row_id must be an NDArray, got %s" % type(row_id).__name__)
        if not self._trainer:
            raise RuntimeError("Cannot get row_sparse data for Parameter '%s': create a "
                               "Trainer with it first (the Trainer pulls the rows)."
                               % self.name)
        results = self._check_and_get(arr_list, ctx)
        # The pull refreshes the rows of the copies, which are leaves of any recorded graph
        # (never results of it): not an operation to record, so it may run in record().
        with autograd.pause(train_mode=autograd.is_training()):
            self._trainer._row_sparse_pull(self, results, row_id)
        return results

    # ------------------------------------------------------------------ initialisation
    def initialize(self, init=None, ctx=None, default_init=initializer.Uniform(),
                   force_reinit=False):
        """Create the data (and gradient) on ``ctx``, filled by an initializer.

        Parameters
        ----------
        init : Initializer, optional
            Takes precedence over ``self.init`` and ``default_init``.
        ctx : Context or list of Context, default the current context
            One independent copy is made per context; the Trainer keeps them in step.
        default_init : Initializer
            Used when neither ``init`` nor ``self.init`` is given.
        force_reinit : bool
            Re-initialise even if already initialised (otherwise warn and keep).
        """
        if self._data is not None and not force_reinit:
            warnings.warn("Parameter '%s' is already initialized, ignoring. Set "
                          "force_reinit=True to re-initialize." % self.name, stacklevel=2)
            return
        self._data = self._grad = None
        if ctx is None:
            ctx = [current_context()]
        if isinstance(ctx, Context):
            ctx = [ctx]
        if init is None:
            init = default_init if self.init is None else self.init
        if not shape_is_known(self.shape):
            if self._allow_deferred_init:
                self._deferred_init = (init, ctx, default_init, None)
                return
            raise ValueError("Cannot initialize Parameter '%s' because its shape %s is not "
                             "fully known. Give the full shape, or allow_deferred_init=True."
                             % (self.name, self._shape))
        self._deferred_init = (init, ctx, default_init, None)
        self._finish_deferred_init()

    def _finish_deferred_init(self):
        """Initialise now that the shape is known (called by layers on first forward)."""
        if not self._deferred_init:
            return
        init, ctx, default_init, data = self._deferred_init
        self._deferred_init = ()
        if not shape_is_known(self.shape):
            raise AssertionError("Cannot initialize Parameter '%s' because its shape %s is "
                                 "still unknown. Give layers their input sizes (in_units, "
                                 "in_channels, ...)." % (self.name, self._shape))
        with autograd.pause():
            if data is None:
                data = nd.zeros(self._shape, dtype=self._dtype, ctx=cpu(), stype=self._stype)
                initializer.create(default_init)(
                    initializer.InitDesc(self.name, {'__init__': init}), data)
            self._init_impl(data, ctx)

    def _init_impl(self, data, ctx_list):
        """Copy ``data`` to every context and allocate the gradients."""
        self._ctx_list = list(ctx_list)
        self._ctx_index = {}
        for i, ctx in enumerate(self._ctx_list):
            self._ctx_index.setdefault(ctx, i)
        self._data = [data.copyto(ctx) for ctx in self._ctx_list]
        self._init_grad()

    def _init_grad(self):
        if self.grad_req == 'null':
            self._grad = None
            return
        self._grad = [nd.zeros(arr.shape, dtype=arr.dtype, ctx=arr.ctx, stype=self._grad_stype)
                      for arr in self._data]
        autograd.mark_variables(self._check_and_get(self._data, list), self._grad,
                                self.grad_req)

    def _reduce(self):
        """The average of the copies, on cpu (all rows of a row_sparse Parameter)."""
        ctx = cpu()
        if self._stype == 'default':
            copies = self.list_data()
            if len(copies) == 1:
                return copies[0].copyto(ctx)
            return nd.add_n(*(w.copyto(ctx) for w in copies)) / len(copies)
        all_rows = nd.arange(0, self._shape[0], dtype='int64', ctx=ctx)
        data = nd.zeros(self._shape, stype='row_sparse', ctx=ctx)
        self._trainer._row_sparse_pull(self, data, all_rows, full_idx=True)
        return data

    def _load_init(self, data, ctx, cast_dtype=False, dtype_source='current'):
        """(Re)initialise from loaded ``data`` on ``ctx``."""
        self._apply_load(*self._check_load(data, ctx, cast_dtype, dtype_source))

    def _check_load(self, data, ctx, cast_dtype=False, dtype_source='current'):
        """Check that ``data`` can be loaded on ``ctx``, changing nothing.

        Returns what :meth:`_apply_load` needs: ``(data, contexts, new dtype or None)``,
        the data converted to this Parameter's dtype and storage type where it must be.
        """
        if cast_dtype and dtype_source not in ('current', 'saved'):
            raise AssertionError("dtype_source must be 'current' or 'saved', got %r"
                                 % (dtype_source,))
        if self._shape and (len(self._shape) != len(data.shape) or any(
                mine not in (0, -1, saved) for mine, saved in zip(self._shape, data.shape))):
            raise AssertionError(
                "Failed loading Parameter '%s' from saved params: shape incompatible, "
                "expected %s vs saved %s" % (self.name, self._shape, data.shape))
        new_dtype = None
        if self._dtype and np.dtype(self._dtype).type != data.dtype:
            if not cast_dtype:
                raise AssertionError(
                    "Failed loading Parameter '%s' from saved params: dtype incompatible, "
                    "expected %s vs saved %s. Set cast_dtype=True to cast the saved values."
                    % (self.name, np.dtype(self._dtype), np.dtype(data.dtype)))
            if dtype_source == 'current':
                data = data.astype(self._dtype, copy=False)
            else:
                new_dtype = data.dtype
        if self._stype != data.stype:
            data = data.tostype(self._stype)
        if isinstance(ctx, Context):
            ctx = [ctx]
        if self._data is None:
            if self._deferred_init:
                if ctx is not None and set(ctx) != set(self._deferred_init[1]):
                    raise AssertionError(
                        "Failed to load Parameter '%s' on %s: it is to be initialized on %s."
                        % (self.name, ctx, self._deferred_init[1]))
                ctx = self._deferred_init[1]
            elif ctx is None:
                ctx = [cpu()]
        elif ctx is not None and set(ctx) != set(self.list_ctx()):
            raise AssertionError(
                "Failed to load Parameter '%s' on %s: it was initialized on %s."
                % (self.name, ctx, self.list_ctx()))
        return data, ctx, new_dtype

    def _apply_load(self, data, ctx, new_dtype):
        """Load what :meth:`_check_load` checked."""
        if self._shape:
            self._shape = tuple(data.shape)
        if new_dtype is not None:
            self.dtype = new_dtype
        if self._data is None:
            self._init_impl(data, ctx)
        else:
            self.set_data(data)
        self._deferred_init = ()

    # ------------------------------------------------------------------ data access
    def reset_ctx(self, ctx):
        """Move the Parameter to ``ctx`` (one or several contexts), keeping its value."""
        if ctx is None:
            ctx = [current_context()]
        if isinstance(ctx, Context):
            ctx = [ctx]
        if self._data:
            data = self._reduce()
            with autograd.pause():
                self._init_impl(data, ctx)
        elif self._deferred_init:
            init, _, default_init, data = self._deferred_init
            self._deferred_init = (init, ctx, default_init, data)
        else:
            raise ValueError("Cannot reset context for Parameter '%s' because it has not been "
                             "initialized." % self.name)

    def set_data(self, data):
        """Set the value on every context (before deferred init: remember it for then)."""
        self.shape = data.shape
        if self._data is None:
            if not self._deferred_init:
                raise AssertionError("Parameter '%s' has not been initialized; call "
                                     "initialize() before set_data()." % self.name)
            self._deferred_init = self._deferred_init[:3] + (data,)
            return
        trainer = self._trainer
        # With updates on the kvstore, the store's copy must be refreshed too.
        if trainer and trainer._kv_initialized and trainer._update_on_kvstore:
            if self not in trainer._params_to_init:
                trainer._reset_kvstore()
        for arr in self._check_and_get(self._data, list):
            arr[:] = data

    def row_sparse_data(self, row_id):
        """A copy of the rows ``row_id`` of a row_sparse Parameter, on row_id's context."""
        if self._stype != 'row_sparse':
            raise RuntimeError("Cannot return a copy of Parameter %s via row_sparse_data() "
                               "because its storage type is %s. Use data() instead."
                               % (self.name, self._stype))
        return self._get_row_sparse(self._data, row_id.ctx, row_id)

    def list_row_sparse_data(self, row_id):
        """Copies of the rows ``row_id`` of a row_sparse Parameter, on every context."""
        if self._stype != 'row_sparse':
            raise RuntimeError("Cannot return copies of Parameter '%s' via "
                               "list_row_sparse_data() because its storage type is %s. Use "
                               "list_data() instead." % (self.name, self._stype))
        return self._get_row_sparse(self._data, list, row_id)

    def data(self, ctx=None):
        """The copy on ``ctx`` (default: the only copy, or the current context's)."""
        if self._stype != 'default':
            raise RuntimeError("Cannot return a copy of Parameter '%s' on ctx %s via data() "
                               "because its storage type is %s. Use row_sparse_data() "
                               "instead." % (self.name, ctx, self._stype))
        return self._check_and_get(self._data, ctx)

    def list_data(self):
        """The copies on all contexts, in the order of ``list_ctx()``."""
        if self._stype != 'default':
            raise RuntimeError("Cannot return copies of Parameter '%s' via list_data() "
                               "because its storage type is %s. Use list_row_sparse_data() "
                               "instead." % (self.name, self._stype))
        return self._check_and_get(self._data, list)

    def grad(self, ctx=None):
        """The gradient buffer on ``ctx``."""
        if self._data is not None and self._grad is None:
            raise RuntimeError("Cannot get gradient array for Parameter '%s' because "
                               "grad_req='null'" % self.name)
        return self._check_and_get(self._grad, ctx)

    def list_grad(self):
        """The gradient buffers on all contexts."""
        if self._data is not None and self._grad is None:
            raise RuntimeError("Cannot get gradient array for Parameter '%s' because "
                               "grad_req='null'" % self.name)
        return self._check_and_get(self._grad, list)

    def list_ctx(self):
        """The contexts this Parameter is (or will be, if deferred) initialised on."""
        if self._data is None:
            if self._deferred_init:
                return self._deferred_init[1]
            raise RuntimeError("Parameter '%s' has not been initialized" % self.name)
        return self._ctx_list

    def zero_grad(self):
        """Set the gradient buffers to 0 (nothing happens if there are none)."""
        if self._grad is None:
            return
        for g in self._grad:
            nd.zeros_like(g, out=g)

    def var(self):
        """This Parameter's variable for symbolic graphs (made once): its name, with its
        shape, dtype, lr_mult, wd_mult, initializer and storage type as attributes."""
        if self._var is None:
            self._var = symbol.var(self.name, shape=self.shape, dtype=self.dtype,
                                   lr_mult=self.lr_mult, wd_mult=self.wd_mult, init=self.init,
                                   stype=self._stype)
        return self._var

    def cast(self, dtype):
        """Convert the data and gradients to ``dtype``."""
        self._dtype = dtype
        if self._data is None:
            return
        with autograd.pause():
            self._data = [arr.astype(dtype) for arr in self._data]
            if self._grad is None:
                return
            self._grad = [g.astype(dtype) for g in self._grad]
            autograd.mark_variables(self._data, self._grad, self.grad_req)


class _CopyValue(initializer.Initializer):
    """Initialises a Constant with its value."""

    def __init__(self, value):
        super().__init__()
        self._value = value

    def _init_weight(self, _, arr):
        self._value.copyto(arr)

    def dumps(self):
        return initializer.Constant(self._value.asnumpy().tolist()).dumps()


class Constant(Parameter):
    """A Parameter whose value autograd and the Trainer leave alone.

    ``Constant('const', [[1, 2], [3, 4]])``, or ``self.params.get_constant(name, value)``
    inside a Block. The value can still be changed by hand with ``set_data``.
    """

    def __init__(self, name, value):
        if not isinstance(value, nd.NDArray):
            value = nd.array(value)
        self.value = value
        super().__init__(name, grad_req='null', shape=value.shape, dtype=value.dtype,
                         init=_CopyValue(value))

    def __repr__(self):
        return 'Constant %s (shape=%s, dtype=%s)' % (self.name, self.shape, self.dtype)

    @property
    def grad_req(self):
        return 'null'

    @grad_req.setter
    def grad_req(self, req):
        if req != 'null':
            warnings.warn('Constant parameter "%s" does not support grad_req other than '
                          '"null"; the new value "%s" is ignored.' % (self.name, req))
        # What the Parameter keeps (no gradient buffer, detached data) is that of 'null'.
        Parameter.grad_req.fset(self, 'null')


class ParameterDict:
    """An ordered dictionary of Parameters whose new entries get a name prefix.

    Parameters
    ----------
    prefix : str, default ''
        Prepended to the names of Parameters created with :meth:`get`.
    shared : ParameterDict, optional
        Looked up first by :meth:`get`, to share Parameters with another Block.
    """

    def __init__(self, prefix='', shared=None):
        self._prefix = prefix
        self._params = OrderedDict()
        self._shared = shared

    def __repr__(self):
        name = self._prefix + ' ' if self._prefix else ''
        content = '\n'.join(_indent('  %s' % v, 2) for v in self.values())
        return '%s(\n%s\n)' % (name, content)

    def __getitem__(self, key):
        return self._params[key]

    def __iter__(self):
        return iter(self._params)

    def __len__(self):
        return len(self._params)

    def __contains__(self, key):
        return key in self._params

    def items(self):
        return self._params.items()

    def keys(self):
        return self._params.keys()

    def values(self):
        return self._params.values()

    @property
    def prefix(self):
        """Prepended to the names of Parameters created by :meth:`get`."""
        return self._prefix

    def _get_impl(self, name):
        if name in self._params:
            return self._params[name]
        if self._shared is not None and name in self._shared._params:
            self._params[name] = self._shared._params[name]
            return self._params[name]
        return None

    def get(self, name, **kwargs):
        """The Parameter ``prefix + name``: found here, in ``shared``, or created.

        When it exists, each given attribute must agree with the stored one (unknown 0
        dimensions of a shape are filled in); an attribute stored as None is set.
        """
        name = self.prefix + name
        param = self._get_impl(name)
        if param is None:
            param = Parameter(name, **kwargs)
            self._params[name] = param
            return param
        for key, value in kwargs.items():
            existing = getattr(param, key, None)
            if existing is None:
                setattr(param, key, value)
                continue
            if key == 'shape':
                merged = _merge_shapes(value, existing)
                if merged is not None:
                    param._shape = merged
                    continue
            elif key == 'dtype' and np.dtype(value) == np.dtype(existing):
                continue
            if value is not None and value != existing:
                raise AssertionError(
                    "Cannot retrieve Parameter '%s' because the requested %s %r does not match "
                    "the stored %r. Use another name, or request a matching value."
                    % (name, key, value, existing))
        return param

    def get_constant(self, name, value=None):
        """The Constant ``prefix + name``: found here, in ``shared``, or created from value."""
        name = self.prefix + name
        param = self._get_impl(name)
        if param is None:
            if value is None:
                raise KeyError("No constant named '%s'. Give a value to create it." % name)
            param = Constant(name, value)
            self._params[name] = param
        elif value is not None:
            if not isinstance(param, Constant):
                raise AssertionError("Parameter '%s' already exists but is not a Constant; "
                                     "use another name." % name)
            value = value.asnumpy() if isinstance(value, nd.NDArray) else np.asarray(value)
            if param.shape != value.shape or not (param.value.asnumpy() == value).all():
                raise AssertionError("Constant '%s' already exists with a different value; use "
                                     "another name." % name)
        return param

    def update(self, other):
        """Add every Parameter of ``other`` (a same-named different Parameter is an error)."""
        for key, value in other.items():
            if key in self._params and self._params[key] is not value:
                raise AssertionError(
                    "Cannot update self with other because they have different Parameters "
                    "with the same name '%s'. Rename one of them (e.g. with a prefix)." % key)
        for key, value in other.items():
            self._params[key] = value

    def initialize(self, init=initializer.Uniform(), ctx=None, verbose=False,
                   force_reinit=False):
        """Initialise every Parameter (``init`` is the default for those without their own)."""
        if verbose:
            init.set_verbosity(verbose=verbose)
        for param in self.values():
            param.initialize(None, ctx, init, force_reinit=force_reinit)

    def zero_grad(self):
        """Set every gradient buffer to 0."""
        for param in self.values():
            param.zero_grad()

    def reset_ctx(self, ctx):
        """Move every Parameter to ``ctx``."""
        for param in self.values():
            param.reset_ctx(ctx)

    def list_ctx(self):
        """All contexts the Parameters live on."""
        contexts = []
        for param in self.values():
            for ctx in param.list_ctx():
                if ctx not in contexts:
                    contexts.append(ctx)
        return contexts

    def setattr(self, name, value):
        """Set attribute ``name`` of every Parameter, e.g. ``setattr('grad_req', 'null')``."""
        for param in self.values():
            setattr(param, name, value)

    def save(self, filename, strip_prefix=''):
        """Save the values (averaged over contexts) by name, minus ``strip_prefix``."""
        arrays = {}
        for param in self.values():
            if not param.name.startswith(strip_prefix):
                raise ValueError(
                    "Prefix '%s' is to be stripped before saving, but Parameter '%s' does not "
                    "start with it. %s" % (strip_prefix, param.name, _NAMING_HELP))
            arrays[param.name[len(strip_prefix):]] = param._reduce()
        nd.save(filename, arrays)

    def load(self, filename, ctx=None, allow_missing=False, ignore_extra=False,
             restore_prefix='', cast_dtype=False, dtype_source='current'):
        """Load values saved by :meth:`save` (names get ``restore_prefix`` prepended)."""
        if restore_prefix:
            for name in self.keys():
                if not name.startswith(restore_prefix):
                    raise AssertionError(
                        "restore_prefix is '%s' but Parameter '%s' does not start with it. %s"
                        % (restore_prefix, name, _NAMING_HELP))
        self.load_dict(nd.load(filename), ctx, allow_missing, ignore_extra, restore_prefix,
                       filename, cast_dtype, dtype_source)

    def load_dict(self, param_dict, ctx=None, allow_missing=False, ignore_extra=False,
                  restore_prefix='', filename=None, cast_dtype=False, dtype_source='current'):
        """Load values from a dict of name -> NDArray, or a list of (name, NDArray) pairs
        ('arg:'/'aux:' prefixes accepted)."""
        items = param_dict.items() if isinstance(param_dict, dict) else list(param_dict)
        if not all(isinstance(item, (tuple, list)) and len(item) == 2 and
                   isinstance(item[0], str) for item in items):
            raise ValueError("%s holds arrays without names (a list, as nd.save(fname, "
                             "[arrays]) writes); loading needs a dict of name -> array, as "
                             "ParameterDict.save writes" % (filename or 'param_dict'))
        arrays = {restore_prefix + (k[4:] if k.startswith(('arg:', 'aux:')) else k): v
                  for k, v in items}
        source = 'file: %s' % filename if filename else 'param_dict'
        pairs = []
        if not allow_missing:
            for name in self.keys():
                if name not in arrays:
                    raise AssertionError(
                        "Parameter '%s' is missing in %s, which contains parameters: %s. Set "
                        "allow_missing=True to skip it. %s"
                        % (name[len(restore_prefix):], source,
                           _brief_print_list(arrays.keys()), _NAMING_HELP))
        for name, value in arrays.items():
            if name not in self._params:
                if not ignore_extra:
                    raise AssertionError(
                        "Parameter '%s' loaded from %s is not present in this ParameterDict, "
                        "whose parameters are: %s. Set ignore_extra=True to ignore it. %s"
                        % (name[len(restore_prefix):], source,
                           _brief_print_list(self._params.keys()), _NAMING_HELP))
                continue
            pairs.append((self[name], value))
        load_values(pairs, ctx, cast_dtype, dtype_source)


def load_values(pairs, ctx=None, cast_dtype=False, dtype_source='current'):
    """Load ``(Parameter, NDArray)`` pairs: every pair is checked before any Parameter
    changes, so a value that does not fit leaves all of them as they were."""
    checked = [(param, param._check_load(value, ctx, cast_dtype, dtype_source))
               for param, value in pairs]
    for param, plan in checked:
        param._apply_load(*plan)


def _merge_shapes(requested, stored):
    """The shape agreeing with both (0/-1 are unknown), or None if they conflict."""
    if len(requested) != len(stored):
        return None
    merged = []
    for a, b in zip(requested, stored):
        if a == b or a in (0, -1):
            merged.append(b)
        elif b in (0, -1):
            merged.append(a)
        else:
            return None
    return tuple(merged)
