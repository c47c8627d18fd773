"""The Trainer: applies an Optimizer to a set of Parameters (MXNet 1.9.1 semantics).

One training step, as ``step(batch_size)`` runs it::

    rescale_grad = 1 / batch_size            (the optimizer multiplies gradients by it)
    allreduce_grads()   sum each parameter's gradients over its contexts (KVStore
                        pushpull) — or, with updates on the store, push the gradients
                        and pull back the weights the store's optimizer produced
    update()            per context, one Updater applies the optimizer to every
                        parameter whose gradient is fresh

Call ``allreduce_grads()`` and ``update(batch_size)`` yourself to act on the reduced
gradients in between (e.g. ``gluon.utils.clip_global_norm``).

Where the store lives (``_init_kvstore``, on the first step; MXNet's rules):

* one context and a non-distributed store named by string: no store at all — the
  gradients are already in one place;
* otherwise the store is created (``kvstore='device'`` or ``'local'``, or your KVStore);
  ``update_on_kvstore`` then defaults to True if the store can run an optimizer (unless
  the environment variable ``MXNET_UPDATE_ON_KVSTORE=0``, or a ``'local'`` store holds a
  parameter of more than 16M elements); an explicit argument wins over both;
* row_sparse *weights* need the store and updates on it; row_sparse *gradients* prefer
  updates off the store (a pushed and pulled sparse gradient, a local update).

Stale gradients: a parameter whose gradient backward did not write since the last
step raises ``UserWarning`` (as an exception, as MXNet does). ``ignore_stale_grad=True``
skips exactly those (parameter, context) copies and updates the rest.

NaN and infinite gradients: before each update the Trainer looks at the gradients it
applies and, by default, warns (``RuntimeWarning``) the first time a parameter's holds
NaN or ±Inf; ``nonfinite='raise'`` stops there instead, ``'ignore'`` looks at nothing
(:mod:`gluonedu.gluon.trainer_nonfinite`).

Instrumentation (source ``'trainer'``, see :mod:`gluonedu.instrument.events`):
``BUS.step`` holds the number of steps taken (counted when ``step``/``update`` begins);
``step_begin``/``step_end`` carry ``batch_size`` and ``rescale``; ``stale_grad`` is
emitted per (parameter, context) with ``raised=1`` (before the error) or ``skipped=1``.

State files (``save_states``/``load_states``) are described in
:mod:`gluonedu.gluon.trainer_states`: a ZIP of ``.npy`` arrays and a JSON document,
written atomically and validated completely before anything changes.
"""
import os
from types import MappingProxyType

import numpy as np

from .. import kvstore as kvs
from .. import optimizer as opt
from ..instrument.events import BUS
from ..ndarray.ndarray import has_fresh_grad, mark_grad_used
from .parameter import Parameter, ParameterDict
from . import flat_layout, trainer_nonfinite, trainer_states

__all__ = ['Trainer']

#: A 'local' store keeps updates off the store above this many elements (as MXNet).
_LOCAL_UPDATE_MAX_SIZE = 1024 * 1024 * 16


def _create_sparse_kvstore(kvstore):
    """(store, True): row_sparse weights always live on, and are updated by, a store."""
    if isinstance(kvstore, kvs.KVStoreBase):
        kv = kvstore
    elif isinstance(kvstore, str):
        kv = kvs.create(kvstore)
    else:
        raise TypeError("Cannot create '%s' KVStore with row_sparse parameters: pass the "
                        "store's type as a string ('device', 'local') or a KVStore."
                        % (kvstore,))
    if not kv.is_capable(kvs.KVStoreBase.OPTIMIZER):
        raise AssertionError("Parameters with row_sparse weights need a KVStore that can run "
                             "the optimizer, and %s cannot; use 'device' or 'local'."
                             % type(kv).__name__)
    return kv, True


def _create_kvstore(kvstore, num_device, arg_params):
    """(store or None, update_on_kvstore) for dense weights on ``num_device`` contexts."""
    update_on_kvstore = bool(int(os.getenv('MXNET_UPDATE_ON_KVSTORE', '1')))
    if kvstore is None:
        kv = None
    elif isinstance(kvstore, str):
        if num_device == 1 and 'dist' not in kvstore:
            kv = None  # one device, one machine: nothing to reduce
        else:
            kv = kvs.create(kvstore)
            if kvstore == 'local':
                largest = max(int(np.prod(arr.shape)) for arr in arg_params.values())
                if largest > _LOCAL_UPDATE_MAX_SIZE:
                    update_on_kvstore = False
    elif isinstance(kvstore, kvs.KVStoreBase):
        kv = kvstore
    else:
        raise TypeError("kvstore must be a KVStore, a string such as 'device' or 'local', or "
                        "None; got %s" % type(kvstore).__name__)
    if kv is None:
        update_on_kvstore = False
    else:
        update_on_kvstore &= kv.is_capable(kvs.KVStoreBase.OPTIMIZER)
    return kv, update_on_kvstore


class Trainer:
    """Applies an Optimizer to a set of Parameters; use it with ``autograd``.

    Updates always run on the store (``update_on_kvstore=False`` is refused) for a
    distributed store with sparse weights or gradients, and for an asynchronous store.

    Parameters
    ----------
    params : ParameterDict, dict or list of Parameter
        What to optimise. A dict is taken in sorted key order, so every process
        numbers the parameters alike.
    optimizer : str or Optimizer
        A registered name ('sgd', 'adam', ...) or an instance.
    optimizer_params : dict, optional
        Keyword arguments of the optimizer's constructor, e.g. ``{'learning_rate': 0.1}``;
        must be empty when ``optimizer`` is an instance.
    kvstore : str or KVStore, default 'device'
        How gradients of several contexts are combined (see :func:`mx.kv.create`).
    compression_params : dict, optional
        Gradient compression for the store, e.g. ``{'type': '2bit', 'threshold': 0.5}``.
    update_on_kvstore : bool, optional
        Run the optimizer on the store. None chooses as described in the module
        docstring; an explicit value overrides ``MXNET_UPDATE_ON_KVSTORE``.
    fused : bool, default True
        (gluonedu only.) Update through flat multi-tensor buffers and fused kernels
        (:mod:`gluonedu.optimizer._fused`: numba when installed, else NumPy; CuPy on
        GPUs), with the same numbers as the readable per-parameter path. ``False``
        runs the reference Updater, one parameter at a time — to step through it.
        Parameters the fast path does not cover fall back to the reference anyway.
    nonfinite : {'warn', 'raise', 'ignore'}, default 'warn'
        (gluonedu only, keyword only.) What a step does about gradients holding NaN or
        ±Inf: ``'warn'`` names each such parameter once (``RuntimeWarning``) and updates
        as MXNet does; ``'raise'`` raises ``FloatingPointError`` before the update,
        which leaves the weights as they were; ``'ignore'`` does not look (MXNet's
        behaviour). See :mod:`gluonedu.gluon.trainer_nonfinite`.

    Properties
    ----------
    learning_rate : float
        The optimizer's current learning rate.
    optimizer : Optimizer
    params : tuple of Parameter
        (gluonedu) The parameters, in the optimizer's (and the store's) index order.
    kvstore : KVStore or None
        (gluonedu) The store in use, once the first step created it.
    update_on_kvstore : bool or None
        (gluonedu) Where the optimizer runs, once the first step decided it.
    nonfinite : str
        (gluonedu) ``'warn'``, ``'raise'`` or ``'ignore'``, as the argument; may be
        changed between steps.

    Notes
    -----
    ``optimizer_states(param, ctx=None)`` (gluonedu) reads the optimizer's state of a
    parameter (momentum, Adam's running averages, ...) by name.
    """

    def __init__(self, params, optimizer, optimizer_params=None, kvstore='device',
                 compression_params=None, update_on_kvstore=None, fused=True, *,
                 nonfinite='warn'):
        if isinstance(params, (dict, ParameterDict)):
            params = [params[key] for key in sorted(params.keys())]
        if not isinstance(params, (list, tuple)):
            raise ValueError("First argument must be a list or dict of Parameters (e.g. "
                             "net.collect_params()), got %s." % type(params))
        self._params = []
        self._contains_sparse_weight = False
        self._contains_sparse_grad = False
        self._param2idx = {}
        for i, param in enumerate(params):
            if not isinstance(param, Parameter):
                raise ValueError("First argument must be a list or dict of Parameters (e.g. "
                                 "net.collect_params()), got list of %s." % type(param))
            self._param2idx[param.name] = i
            self._params.append(param)
            param._set_trainer(self)
            if param._stype != 'default':
                self._contains_sparse_weight = True
            if param._grad_stype != 'default':
                self._contains_sparse_grad = True
        self._compression_params = compression_params
        self._fused = fused
        self._contexts = self._check_contexts()
        self._init_optimizer(optimizer, optimizer_params or {})
        self._scale = self._optimizer.rescale_grad
        self._loss_scaler = None   # contrib.amp's, see use_loss_scaler
        self._unscaled = self._scale
        self._kvstore_params = {'kvstore': kvstore, 'update_on_kvstore': update_on_kvstore}
        self._kv_initialized = False
        self._kvstore = None
        self._update_on_kvstore = None
        self._distributed = None
        self._params_to_init = []
        self._num_steps = 0
        self._step_entries = {}   # (batch_size, rescale) -> the step events' one entry
        self._layout = None   # the flat layout (flat_layout.FlatLayout), once built
        self._nonfinite = trainer_nonfinite.NonFiniteCheck(nonfinite)
        self._reset_kvstore()

    # ------------------------------------------------------------------ setup
    def _check_contexts(self):
        contexts = None
        for param in self._params:
            ctx = param.list_ctx()
            if contexts is not None and contexts != ctx:
                raise AssertionError(
                    "All Parameters must be initialized on the same set of contexts, but "
                    "Parameter %s is initialized on %s while previous Parameters are "
                    "initialized on %s. Initialize them all with the same ctx list."
                    % (param.name, ctx, contexts))
            contexts = ctx
        return contexts

    def _init_optimizer(self, optimizer, optimizer_params):
        # Not a copy: lr_mult/wd_mult changed on a Parameter later still take effect.
        param_dict = dict(enumerate(self._params))
        if isinstance(optimizer, opt.Optimizer):
            if optimizer_params:
                raise AssertionError("optimizer_params must be None if optimizer is an "
                                     "instance of Optimizer instead of str: give those "
                                     "settings to the Optimizer's constructor.")
            self._optimizer = optimizer
            self._optimizer.param_dict = param_dict
        else:
            self._optimizer = opt.create(optimizer, param_dict=param_dict, **optimizer_params)
        # One Updater (and so one set of states) per context; they share the optimizer.
        self._updaters = flat_layout.make_updaters(self._optimizer, self._contexts,
                                                     self._fused)

    def _init_params(self):
        """Put initialised parameters into the store; deferred ones wait for a later call."""
        if not self._kv_initialized:
            raise AssertionError("Cannot initialize parameters in KVStore when KVStore is "
                                 "not initialized.")
        still_deferred = []
        if self._kvstore:
            for param in self._params_to_init:
                if param._deferred_init:
                    still_deferred.append(param)
                    continue
                arrays = param._check_and_get(param._data, list)
                idx = self._param2idx[param.name]
                if param._stype != 'default':
                    self._kvstore.init(idx, arrays[0])
                else:
                    self._kvstore.broadcast(idx, arrays[0], arrays)
        self._params_to_init = still_deferred

    def _reset_kvstore(self):
        """Forget the store; the next step creates it again and re-puts every parameter."""
        if self._kvstore and 'dist' in self._kvstore.type:
            raise RuntimeError("Cannot reset distributed KVStore.")
        self._kv_initialized = False
        self._kvstore = None
        self._distributed = None
        self._update_on_kvstore = None
        self._params_to_init = list(self._params)

    def _init_kvstore(self):
        """Create the store and decide update_on_kvstore (MXNet's rules, three cases)."""
        config = self._kvstore_params
        if self._contains_sparse_weight:
            # row_sparse_pull(weight) -> forward -> backward -> push(grad) -> pull(weight)
            kvstore, update_on_kvstore = _create_sparse_kvstore(config['kvstore'])
            self._distributed = 'dist' in kvstore.type
            if config['update_on_kvstore'] is False:
                raise ValueError("Cannot set update_on_kvstore=False when sparse weights are "
                                 "present: row_sparse weights are updated on the store.")
        elif self._contains_sparse_grad:
            # Single machine: push and pull the sparse gradient, update locally (faster).
            # Distributed: only push(grad) + pull(dense weight) exists, on the store.
            arg_arrays = {p.name: p.data(self._contexts[0]) for p in self._params}
            kvstore, _ = _create_kvstore(config['kvstore'], len(self._contexts), arg_arrays)
            self._distributed = 'dist' in kvstore.type if kvstore else False
            update_on_kvstore = self._distributed
            if config['update_on_kvstore'] is not None:
                if config['update_on_kvstore'] is False and self._distributed:
                    raise ValueError("Cannot set update_on_kvstore=False on dist kvstore when "
                                     "sparse gradients are present.")
                update_on_kvstore = config['update_on_kvstore']
            if kvstore is not None and not kvstore.sums_row_sparse:
                raise ValueError("Cannot use {} for multi-device training with sparse "
                                 "gradients".format(type(kvstore)))
        else:
            # Dense weights and gradients: everything works but async without the store.
            arg_arrays = {p.name: p.data(self._contexts[0]) for p in self._params}
            kvstore, update_on_kvstore = _create_kvstore(config['kvstore'],
                                                         len(self._contexts), arg_arrays)
            self._distributed = 'dist' in kvstore.type if kvstore else False
            if self._distributed and 'async' in kvstore.type:
                update_on_kvstore = True
                if config['update_on_kvstore'] is False:
                    raise ValueError("Please set update_on_kvstore=True when training in "
                                     "async mode.")
            if config['update_on_kvstore'] is not None:
                update_on_kvstore = config['update_on_kvstore']
            # (MXNet fails here with an AttributeError when no store was needed; without
            # a store there is nothing to update on, so the request is moot.)
            if kvstore is not None and update_on_kvstore and \
                    not kvstore.is_capable(kvs.KVStoreBase.OPTIMIZER):
                if config['update_on_kvstore']:
                    raise ValueError("Please set update_on_kvstore=False when training with "
                                     "{}".format(type(kvstore)))
                update_on_kvstore = False

        if kvstore:
            if self._compression_params:
                kvstore.set_gradient_compression(self._compression_params)
            if update_on_kvstore:
                # Before init: the store may need the optimizer to set up its copies.
                if isinstance(kvstore, kvs.KVStore):   # it runs the fused kernels too
                    kvstore.set_optimizer(self._optimizer, fused=self._fused)
                else:
                    kvstore.set_optimizer(self._optimizer)
            self._kvstore = kvstore
            self._update_on_kvstore = update_on_kvstore
        else:
            self._kvstore = None
            self._update_on_kvstore = None
        self._kv_initialized = True

    def _ensure_store(self):
        """Create the store (first call) and put any newly initialised parameters in it."""
        if not self._kv_initialized:
            self._init_kvstore()
        if self._params_to_init:
            self._init_params()

    def _flat_layout(self):
        """The flat layout of the parameters (fused Trainers; built on first use and again
        when a parameter's arrays were replaced), handed to the Updaters; None where it
        does not apply."""
        if not self._fused:
            return None
        layout = self._layout
        if layout is None or not layout.is_current():
            layout = self._layout = flat_layout.FlatLayout.build(self._params,
                                                                   self._contexts)
            for c, updater in enumerate(self._updaters):
                updater.use_flat_groups(layout.groups_of(c) if layout else [])
        return layout

    @property
    def nonfinite(self):
        """What a step does about NaN/±Inf gradients ('warn', 'raise' or 'ignore')."""
        return self._nonfinite.mode

    @nonfinite.setter
    def nonfinite(self, mode):
        self._nonfinite.mode = mode

    # ------------------------------------------------------------------ learning rate
    @property
    def learning_rate(self):
        """The optimizer's current learning rate."""
        if not isinstance(self._optimizer, opt.Optimizer):
            raise UserWarning("Optimizer has to be defined before its learning rate can be "
                              "accessed.")
        return self._optimizer.learning_rate

    @property
    def params(self):
        """(gluonedu) The Parameters this Trainer updates, in order; a parameter's position
        is its index for the optimizer and its key in the KVStore."""
        return tuple(self._params)

    @property
    def kvstore(self):
        """(gluonedu) The KVStore the steps go through; None before the first step (the
        store is created then) and when no store is needed (one context, a store named
        by string)."""
        return self._kvstore

    @property
    def update_on_kvstore(self):
        """(gluonedu) Whether the optimizer runs on the store (True) or on every context
        (False), as decided on the first step; None before it and without a store."""
        return self._update_on_kvstore

    def optimizer_states(self, param, ctx=None):
        """(gluonedu) The optimizer's state for ``param``: ``{name: NDArray}``, copies.

        Names as :meth:`Optimizer.named_states` gives them (Adam: ``'mean'``, ``'var'``;
        SGD with momentum: ``'momentum'``; a float32 master copy: ``'weight_fp32'``); an
        optimizer that keeps nothing (SGD without momentum) gives ``{}``. None while the
        optimizer has not yet updated ``param`` (its state is created by the first update).

        ``param`` is one of :attr:`params` (or its name); ``ctx`` picks the context whose
        Updater holds the state (default: the parameter's first). With updates on the
        store, the store holds the one state of each parameter and ``ctx`` is not used.
        """
        name = param.name if isinstance(param, Parameter) else param
        if name not in self._param2idx or (isinstance(param, Parameter) and
                                           self._params[self._param2idx[name]] is not param):
            raise ValueError("%s is not a parameter of this Trainer; pass one of "
                             "trainer.params or its name." % (name,))
        index = self._param2idx[name]
        if self._kvstore and self._update_on_kvstore:
            if not isinstance(self._kvstore, kvs.KVStore):
                raise ValueError("The optimizer runs on the servers of a '%s' store; its "
                                 "states are not in this process." % self._kvstore.type)
            states = self._kvstore.optimizer_states
        else:
            contexts = self._params[index].list_ctx()
            if ctx is not None and ctx not in contexts:
                raise ValueError("%s lives on %s, not on %s." % (name, contexts, ctx))
            states = self._updaters[0 if ctx is None else contexts.index(ctx)].states
        if index not in states:
            return None
        return {key: array.copy()
                for key, array in self._optimizer.named_states(states[index])}

    @property
    def optimizer(self):
        """The Optimizer this Trainer applies."""
        if isinstance(self._optimizer, opt.Optimizer):
            return self._optimizer
        raise UserWarning("Optimizer has not been initialized yet")

    def set_learning_rate(self, lr):
        """Set the optimizer's learning rate (refused when an lr_scheduler drives it)."""
        if not isinstance(self._optimizer, opt.Optimizer):
            raise UserWarning("Optimizer has to be defined before its learning rate is "
                              "mutated.")
        self._optimizer.set_learning_rate(lr)

    # ------------------------------------------------------------------ sparse weights
    def _row_sparse_pull(self, parameter, out, row_id, full_idx=False):
        """Pull rows ``row_id`` of a row_sparse weight into ``out`` (all rows: a plain pull)."""
        self._ensure_store()
        idx = self._param2idx[parameter.name]
        if full_idx and 'dist' not in self._kvstore.type:
            if row_id.size != out.shape[0]:
                raise AssertionError("a full pull needs one row id per row of the output")
            self._kvstore.pull(idx, out=out, priority=-idx, ignore_sparse=False)
        else:
            self._kvstore.row_sparse_pull(idx, out=out, row_ids=row_id, priority=-idx)

    # ------------------------------------------------------------------ one step
    def _check_and_rescale_grad(self, scale):
        if self._update_on_kvstore and self._distributed and self._kv_initialized:
            if self._optimizer.rescale_grad != scale:
                raise UserWarning("Possible change in the `batch_size` from previous `step` "
                                  "detected. Optimizer gradient normalizing factor will not "
                                  "change w.r.t new batch_size when update_on_kvstore=True "
                                  "and when distributed kvstore is used.")
        self._optimizer.rescale_grad = scale

    def _begin_step(self, batch_size, rescale):
        """Count the step and emit step_begin; what :meth:`_end_step` needs.

        A step has a step_end if it had a step_begin (somebody was listening when it
        began): a first listener that arrives during a step hears the next step whole.
        Plain methods rather than a context manager: they run on every step.
        """
        self._num_steps += 1
        BUS.step = self._num_steps
        if not BUS.active:
            return None
        entry = self._step_entries.get((batch_size, rescale))
        if entry is None:   # read-only values, so that steps alike share the entry
            values = {'batch_size': float(batch_size), 'rescale': float(rescale)}
            entry = self._step_entries[batch_size, rescale] = (
                (None, None, MappingProxyType(values)),)
        BUS.emit_batch('step_begin', 'trainer', entry)
        return entry

    def _end_step(self, begun):
        """Emit step_end for a step whose step_begin was emitted (``begun`` not None)."""
        if begun is not None:
            BUS.emit_batch('step_end', 'trainer', begun)

    def _abandon_step(self):
        """A step that raised (e.g. on a stale gradient) is not counted: the next one
        reuses its number."""
        self._num_steps -= 1
        BUS.step = self._num_steps

    def step(self, batch_size, ignore_stale_grad=False):
        """One parameter update: ``allreduce_grads()`` then ``update()``.

        Call it after ``autograd.backward()``, outside ``record()``.

        Parameters
        ----------
        batch_size : int
            Gradients are scaled by ``1/batch_size``; pass 1 if the loss is already a mean.
        ignore_stale_grad : bool, default False
            Skip parameters whose gradient backward has not written since the last step,
            instead of raising.
        """
        rescale_grad = self._scale / batch_size
        self._check_and_rescale_grad(rescale_grad)
        begun = self._begin_step(batch_size, rescale_grad)
        try:
            self._ensure_store()
            on_store = bool(self._kvstore and self._update_on_kvstore)
            # AMP's overflow is checked before the push: the store never applies a
            # poisoned update (the step still counts)
            if not (on_store and self._amp_overflow()):
                layout = self._flat_layout()
                if on_store:   # the store updates the weights as it reduces: look first
                    self._check_gradients(
                        ((i, grad) for i, param in enumerate(self._params)
                         if param.grad_req != 'null' for grad in param._grad), stacklevel=2)
                self._allreduce_grads(layout)
                self._update(ignore_stale_grad)
        except BaseException:
            self._abandon_step()
            raise
        self._end_step(begun)

    def _check_gradients(self, grads, stacklevel):
        """Warn or raise, as ``nonfinite`` says, if one of ``grads`` (an iterable of
        (index, gradient) pairs about to be applied) holds NaN or ±Inf. ``stacklevel``
        counts from the caller, as ``warnings.warn``'s does from its caller."""
        if self._nonfinite.mode == 'ignore':
            return
        layout = self._layout
        flat = None if layout is None else [group.grad for groups in layout.by_dtype
                                            for group in groups]
        self._nonfinite.check(self._num_steps, self._params, grads, flat, stacklevel + 1)

    def _amp_overflow(self):
        """Whether AMP's loss scaler finds inf/nan in a gradient (on any context) and so
        skips this step; False without AMP. Called once per step."""
        scaler = self._loss_scaler
        return scaler is not None and scaler.has_overflow(self._params)

    # ------------------------------------------------------------------ loss scaling (AMP)
    # gluonedu's own methods, through which contrib.amp steers the Trainer.
    @property
    def loss_scaler(self):
        """The dynamic loss scaler ``contrib.amp.init_trainer`` gave this Trainer, or None."""
        return self._loss_scaler

    def use_loss_scaler(self, scaler):
        """Steer the steps with ``scaler`` (contrib.amp's LossScaler): a step whose
        gradients hold inf/nan is skipped, and :meth:`set_loss_scale` says how much the
        loss was multiplied by."""
        self._loss_scaler = scaler
        self._unscaled = self._scale

    def set_loss_scale(self, loss_scale):
        """The coming gradients are those of a loss multiplied by ``loss_scale``: the
        step divides them by it (on top of its ``1 / batch_size``)."""
        self._scale = self._unscaled / loss_scale

    def unscale_grads(self):
        """Divide the gradients by the loss scale now (e.g. to clip them by hand); the
        step then leaves them as they are."""
        for param in self._params:
            if param._grad is not None:
                for grad in param._grad:
                    grad[:] *= self._scale
        self._scale = 1.0

    def allreduce_grads(self):
        """Sum each parameter's gradients over its contexts (then call ``update``).

        Not available when updates run on the store (the store reduces and updates at
        once); create the Trainer with ``update_on_kvstore=False`` to split the step.
        """
        self._ensure_store()
        if self._kvstore and self._update_on_kvstore:
            raise AssertionError("allreduce_grads() when parameters are updated on kvstore is "
                                 "not supported. Try setting `update_on_kvstore` to False "
                                 "when creating trainer.")
        self._allreduce_grads(self._flat_layout())

    def _allreduce_grads(self, layout=None):
        if not self._kvstore:
            return  # one context: nothing to reduce
        if layout is not None:
            # All gradients dense, laid out flat: the store reduces (and, on the store,
            # updates) them per dtype, at once where it can (KVStoreBase.allreduce_flat).
            for groups in layout.by_dtype:
                self._kvstore.allreduce_flat(groups, update=bool(self._update_on_kvstore))
            return
        dense = []  # (index, gradients, outputs or None): pushpulls of dense gradients
        for i, param in enumerate(self._params):
            if param.grad_req == 'null':
                continue
            grad_list = param.list_grad()
            if grad_list[0].stype != 'default':
                # Sparse gradients: push, then pull the weight (updated on the store) or
                # the summed gradient (updated here). Dense pulls only for dense weights;
                # sparse weights are pulled row by row before the next forward pass.
                self._kvstore.push(i, grad_list, priority=-i)
                if param._stype == 'default':
                    pull_list = param.list_data() if self._update_on_kvstore else grad_list
                    self._kvstore.pull(i, pull_list, priority=-i,
                                       ignore_sparse=self._distributed)
            else:
                dense.append((i, grad_list,
                              param.list_data() if self._update_on_kvstore else None))
        if dense and self._kvstore.overlaps_keys:
            # One call with every key: gluonedu's distributed store sends them all before
            # waiting for any answer (one round trip per step instead of one per key).
            self._kvstore.pushpull([i for i, _, _ in dense], [g for _, g, _ in dense],
                                   out=[g if o is None else o for _, g, o in dense])
            return
        for i, grad_list, out in dense:
            if out is None:
                self._kvstore.pushpull(i, grad_list, priority=-i)
            else:
                self._kvstore.pushpull(i, grad_list, out=out, priority=-i)

    def update(self, batch_size, ignore_stale_grad=False):
        """Apply the optimizer to the (already reduced) gradients.

        Call it after ``allreduce_grads()``; not available when updates run on the store.
        Parameters as for :meth:`step`.
        """
        self._ensure_store()
        if self._kvstore and self._update_on_kvstore:
            raise AssertionError("update() when parameters are updated on kvstore is not "
                                 "supported. Try setting `update_on_kvstore` to False when "
                                 "creating trainer.")
        rescale_grad = self._scale / batch_size
        self._check_and_rescale_grad(rescale_grad)
        begun = self._begin_step(batch_size, rescale_grad)
        try:
            self._flat_layout()
            self._update(ignore_stale_grad)
        except BaseException:
            self._abandon_step()
            raise
        self._end_step(begun)

    def _raise_stale(self, param, data):
        if BUS.active:
            BUS.emit('stale_grad', 'trainer', param=param.name, context=data.context,
                     raised=1.0)
        # The first sentence as MXNet words it (what users search for); then the usual
        # cause, before ignore_stale_grad=True, which would hide a missing backward().
        raise UserWarning(
            "Gradient of Parameter `%s` on context %s has not been updated by backward since "
            "last `step`. Each step needs gradients of its own: run the forward pass inside "
            "`with autograd.record():` and call `loss.backward()` before every "
            "`trainer.step()`. If backward did run, the forward pass did not use this "
            "parameter: check that forward calls every layer it should. Only for parameters "
            "left out of the forward pass on purpose, call step(..., ignore_stale_grad=True), "
            "which updates the others and skips them." % (param.name, data.context))

    def _update(self, ignore_stale_grad=False):
        on_store = bool(self._kvstore and self._update_on_kvstore)
        if not on_store and self._amp_overflow():
            return  # inf/nan gradients: skip this step (the scaler lowers its scale)
        # per context: the indices, gradients and weights to update
        updates = [([], [], []) for _ in self._updaters]
        for i, param in enumerate(self._params):
            if param.grad_req == 'null':
                continue
            arrays = param._check_and_get(param._data, list)
            if not ignore_stale_grad:
                for data in arrays:
                    if not has_fresh_grad(data):
                        self._raise_stale(param, data)
            if on_store:
                continue  # the store already updated the weights during allreduce
            for (indices, grads, weights), arr, grad in zip(updates, arrays, param._grad):
                if not ignore_stale_grad or has_fresh_grad(arr):   # (dense: checked)
                    indices.append(i)
                    grads.append(grad)
                    weights.append(arr)
                    mark_grad_used(arr)
                elif BUS.active:
                    BUS.emit('stale_grad', 'trainer', param=param.name, context=arr.context,
                             skipped=1.0)
        if on_store:
            return
        self._check_gradients(((i, grad) for indices, grads, _ in updates
                               for i, grad in zip(indices, grads)), stacklevel=3)
        for updater, (indices, grads, weights) in zip(self._updaters, updates):
            if indices:
                updater(indices, grads, weights)

    # ------------------------------------------------------------------ state files
    def save_states(self, fname):
        """Save the optimizer and its states (momentum, ...) to ``fname``.

        The file format is documented in :mod:`gluonedu.gluon.trainer_states` (no
        pickle); it is written atomically. Parameters' lr_mult/wd_mult are not saved.
        With updates on the store, the store writes the file (``save_optimizer_states``).
        """
        if self._optimizer is None:
            raise AssertionError("the Trainer has no optimizer to save")
        self._ensure_store()
        if self._update_on_kvstore:
            if self._params_to_init:
                raise AssertionError("Cannot save trainer states when some parameters are not "
                                     "yet initialized in kvstore: run a forward pass first.")
            self._kvstore.save_optimizer_states(fname, dump_optimizer=True)
        else:
            trainer_states.write_states(fname, trainer_states.states_bytes(
                self._updaters[0], self._params, self._num_steps))

    def load_states(self, fname):
        """Load the optimizer and its states from ``fname`` (written by save_states).

        The whole file is validated first (format, optimizer, parameter count, shapes,
        dtypes); a damaged or foreign file raises MXNetError and changes nothing.
        lr_mult/wd_mult come from this Trainer's parameters, not from the file.
        """
        self._ensure_store()
        on_store = self._update_on_kvstore
        copies = 1 if on_store else len(self._updaters)
        states, optimizer, extra = trainer_states.check_states(self._params, fname, copies)
        if on_store:
            del states, optimizer   # the store reads the file itself
            self._kvstore.load_optimizer_states(fname)
            self._optimizer = self._kvstore.optimizer
        else:
            # One optimizer for every device; each device's updater its own state buffers.
            for updater, device_states in zip(self._updaters, states):
                updater.restore(device_states, optimizer)
            self._optimizer = optimizer
        self._optimizer.param_dict = dict(enumerate(self._params))
        if extra is not None:
            self._num_steps = int(extra.get('steps', self._num_steps))
