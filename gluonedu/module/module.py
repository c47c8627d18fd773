"""Module: a symbol trained on one device with an executor and an optimizer, as MXNet
1.9.1's ``mx.mod.Module``.

The module keeps its own copy of the parameters (``get_params``) apart from the arrays
bound to the executor; a step changes the bound ones, and ``get_params`` copies them back
when a step has run since (the parameters are *dirty*).
"""
import logging
import warnings

from .. import initializer as init
from .. import ndarray as nd
from .. import optimizer as opt
from ..base import MXNetError
from ..context import Context, cpu
from ..io import DataDesc
from ..symbol import load as sym_load
from .base_module import BaseModule

__all__ = ['Module']


def _check_names(symbol, names, kind, required):
    """Every name in ``names`` must be an argument of ``symbol`` (labels only warn)."""
    arguments = symbol.list_arguments()
    for name in names:
        if name in arguments:
            continue
        message = ('You created Module with Module(..., %s_names=%s) but input with name '
                   "'%s' is not found in symbol.list_arguments(): %s. Name the %s inputs "
                   'as the symbol does.' % (kind, list(names), name, arguments, kind))
        if required:
            raise ValueError(message)
        warnings.warn(message)


def _as_descs(shapes):
    """``[('data', (5, 10))]`` or DataDesc objects as DataDesc objects."""
    return [shape if isinstance(shape, DataDesc) else DataDesc(*shape) for shape in shapes]


class Module(BaseModule):
    """A symbol with its data, label and parameter arrays, trained on one device.

    Parameters
    ----------
    symbol : Symbol
        What the module computes; its last operator is usually a loss (``make_loss``).
    data_names, label_names : sequence of str
        The symbol's arguments fed from a batch's data and label (None: no labels); every
        other argument is a parameter.
    logger : logging.Logger, default logging
        Where ``fit`` reports each epoch's metrics.
    context : Context or list of one Context, default cpu()
        The device (gluonedu's Module runs on one).
    fixed_param_names : list of str, optional
        Parameters that training leaves as they are.
    state_names : list of str, optional
        Arguments held as states: not parameters, set by the caller.
    """

    def __init__(self, symbol, data_names=('data',), label_names=('softmax_label',),
                 logger=logging, context=cpu(), work_load_list=None, fixed_param_names=None,
                 state_names=None, group2ctxs=None, compression_params=None):
        super().__init__(logger=logger)
        contexts = context if isinstance(context, (list, tuple)) else [context]
        if len(contexts) != 1 or not isinstance(contexts[0], Context):
            raise MXNetError('gluonedu.mod.Module runs on one context (such as mx.cpu()); '
                             'got %r. Train on several devices with gluon.Trainer and a '
                             'kvstore instead.' % (context,))
        self._context = contexts[0]
        self._symbol = symbol
        self._data_names = list(data_names or [])
        self._label_names = list(label_names or [])
        self._state_names = list(state_names or [])
        self._fixed_param_names = list(fixed_param_names or [])
        _check_names(symbol, self._data_names, 'data', True)
        _check_names(symbol, self._label_names, 'label', False)
        _check_names(symbol, self._state_names, 'state', True)
        _check_names(symbol, self._fixed_param_names, 'fixed_param', True)
        inputs = set(self._data_names + self._label_names + self._state_names)
        self._param_names = [n for n in symbol.list_arguments() if n not in inputs]
        self._aux_names = symbol.list_auxiliary_states()
        self._output_names = symbol.list_outputs()
        self._arg_params = None
        self._aux_params = None
        self._params_dirty = False
        self._exec = None
        self._data_shapes = None
        self._label_shapes = None
        self._optimizer = None
        self._updater = None
        self._preloaded_states = None  # a checkpoint's optimizer states, for init_optimizer

    # ------------------------------------------------------------------ names and shapes
    @property
    def data_names(self):
        """The names of the data inputs."""
        return self._data_names

    @property
    def label_names(self):
        """The names of the label inputs."""
        return self._label_names

    @property
    def output_names(self):
        """The names of the symbol's outputs."""
        return self._output_names

    @property
    def data_shapes(self):
        """The DataDesc of each data input, as bound."""
        self._check_bound()
        return self._data_shapes

    @property
    def label_shapes(self):
        """The DataDesc of each label input, as bound (None without labels)."""
        self._check_bound()
        return self._label_shapes

    @property
    def output_shapes(self):
        """``(name, shape)`` of each output, as bound."""
        self._check_bound()
        _, out_shapes, _ = self._symbol.infer_shape(**self._input_shapes())
        return list(zip(self._output_names, out_shapes))

    def _check_bound(self):
        if not self.binded:
            raise AssertionError('call bind() before asking the module for its shapes')

    def _input_shapes(self):
        return {d.name: d.shape for d in self._data_shapes + (self._label_shapes or [])}

    # ------------------------------------------------------------------ binding
    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False,
             force_rebind=False, shared_module=None, grad_req='write'):
        """Allocate the arrays for inputs of ``data_shapes`` (and ``label_shapes``):
        ``[('data', (batch, ...))]`` or DataDesc objects."""
        if force_rebind:
            self._exec = None
            self.binded = False
        if self.binded:
            self.logger.warning('Already bound, ignoring bind()')
            return
        if shared_module is not None:
            raise MXNetError('gluonedu.mod.Module does not share memory between modules '
                             '(shared_module); bind each module on its own')
        self.for_training = for_training
        self.inputs_need_grad = for_training and inputs_need_grad
        self._grad_req = grad_req
        self._data_shapes, self._label_shapes = self._checked_shapes(data_shapes,
                                                                     label_shapes)
        self._exec = self._bound_executor()
        self.binded = True
        if self.params_initialized:  # a rebind keeps the parameters it had
            self._exec.copy_params_from(self._arg_params, self._aux_params)
        else:
            self._arg_params = {n: nd.zeros_like(self._exec.arg_dict[n])
                                for n in self._param_names}
            self._aux_params = {n: nd.zeros_like(a) for n, a in self._exec.aux_dict.items()}

    def _checked_shapes(self, data_shapes, label_shapes):
        data_shapes = _as_descs(data_shapes)
        label_shapes = None if label_shapes is None else _as_descs(label_shapes)
        for descs, names, kind in ((data_shapes, self._data_names, 'data'),
                                   (label_shapes, self._label_names, 'label')):
            if descs is None or (kind == 'label' and not descs and not names):
                continue
            given = [d.name for d in descs]
            if sorted(given) != sorted(names):
                raise ValueError('Module: %s_shapes name %s, but the module\'s %s_names are '
                                 '%s; give a shape for each of them'
                                 % (kind, given, kind, names))
        return data_shapes, label_shapes or None

    def _bound_executor(self):
        """An executor for the bound shapes: gradients for the trained parameters (and
        the data, with ``inputs_need_grad``), none for the other inputs."""
        reqs = {}
        for name in self._symbol.list_arguments():
            if name in self._param_names and name not in self._fixed_param_names:
                trained = self.for_training
            else:
                trained = self.inputs_need_grad and name in self._data_names
            reqs[name] = self._param_req(name) if trained else 'null'
        descs = self._data_shapes + (self._label_shapes or [])
        return self._symbol.simple_bind(self._context, grad_req=reqs,
                                        type_dict={d.name: d.dtype for d in descs},
                                        **{d.name: d.shape for d in descs})

    def _param_req(self, name):
        return self._grad_req if isinstance(self._grad_req, str) else \
            self._grad_req.get(name, 'null')

    def reshape(self, data_shapes, label_shapes=None):
        """Bind again for other input shapes, keeping the parameters."""
        self._check_bound()
        self._sync_params_from_devices()
        self._data_shapes, self._label_shapes = self._checked_shapes(data_shapes,
                                                                     label_shapes)
        self._exec = self._bound_executor()
        self._exec.copy_params_from(self._arg_params, self._aux_params)

    # ------------------------------------------------------------------ parameters
    def init_params(self, initializer=init.Uniform(0.01), arg_params=None, aux_params=None,
                    allow_missing=False, force_init=False, allow_extra=False):
        """Give every parameter its initial value: from ``arg_params``/``aux_params`` where
        they name it, otherwise from ``initializer``."""
        if self.params_initialized and not force_init:
            warnings.warn('Parameters already initialized and force_init=False. '
                          'init_params call ignored.', stacklevel=2)
            return
        if not self.binded:
            raise AssertionError('call bind before initializing the parameters')
        attrs = self._symbol.attr_dict()
        for params, given in ((self._arg_params, arg_params), (self._aux_params, aux_params)):
            for name, array in sorted(params.items()):
                if given is not None and name in given:
                    given[name].copyto(array)
                elif given is not None and not allow_missing:
                    raise RuntimeError('%s is not presented' % name)
                elif initializer is not None:
                    initializer(init.InitDesc(name, attrs.get(name)), array)
        self.params_initialized = True
        self._params_dirty = False
        self._exec.copy_params_from(self._arg_params, self._aux_params,
                                    allow_extra_params=allow_extra)

    def set_params(self, arg_params, aux_params, allow_missing=False, force_init=True,
                   allow_extra=False):
        """Set the parameters' values (``allow_missing``: keep those not named)."""
        if not allow_missing:
            self.init_params(initializer=None, arg_params=arg_params, aux_params=aux_params,
                             allow_missing=allow_missing, force_init=force_init,
                             allow_extra=allow_extra)
            return
        if self.params_initialized and not force_init:
            warnings.warn('Parameters already initialized and force_init=False. '
                          'set_params call ignored.', stacklevel=2)
            return
        self._exec.copy_params_from(arg_params, aux_params, allow_extra_params=allow_extra)
        self._params_dirty = True
        self.params_initialized = True

    def get_params(self):
        """``(arg_params, aux_params)``: copies of the current parameters, by name."""
        self._check_ready()
        self._sync_params_from_devices()
        return self._arg_params, self._aux_params

    def _sync_params_from_devices(self):
        if not self._params_dirty:
            return
        for name, array in self._arg_params.items():
            self._exec.arg_dict[name].copyto(array)
        for name, array in self._aux_params.items():
            self._exec.aux_dict[name].copyto(array)
        self._params_dirty = False

    # ------------------------------------------------------------------ optimizer
    def init_optimizer(self, kvstore='local', optimizer='sgd',
                       optimizer_params=(('learning_rate', 0.01),), force_init=False):
        """Create the optimizer (a name and its parameters, or an Optimizer). A named one
        reads ``lr_mult``/``wd_mult`` from the symbol and rescales gradients by
        1/batch_size unless ``rescale_grad`` is given."""
        self._check_ready()
        if self.optimizer_initialized and not force_init:
            self.logger.warning('optimizer already initialized, ignoring...')
            return
        self._sync_params_from_devices()
        if kvstore is not None and (not isinstance(kvstore, str) or 'dist' in kvstore):
            raise MXNetError("gluonedu.mod.Module updates on its one device; give "
                             "kvstore='local' or None (got %r), or train across workers "
                             'with gluon.Trainer and mx.kv.create' % (kvstore,))
        rescale_grad = 1.0 / self._data_shapes[0].shape[0]
        idx2name = dict(enumerate(self._param_names))
        if isinstance(optimizer, str):
            optimizer_params = dict(optimizer_params)
            optimizer_params.setdefault('rescale_grad', rescale_grad)
            optimizer = opt.create(optimizer, sym=self._symbol, param_idx2name=idx2name,
                                   **optimizer_params)
        elif not isinstance(optimizer, opt.Optimizer):
            raise AssertionError('optimizer must be a name or an mx.optimizer.Optimizer, '
                                 'got %r' % (optimizer,))
        else:
            if optimizer.rescale_grad != rescale_grad:
                warnings.warn('Optimizer created manually outside Module but rescale_grad '
                              'is not normalized to 1.0/batch_size (%s vs. %s). Is this '
                              'intended?' % (optimizer.rescale_grad, rescale_grad),
                              stacklevel=2)
            if not optimizer.idx2name:
                optimizer.idx2name = idx2name.copy()
        self._optimizer = optimizer
        self._updater = opt.get_updater(optimizer)
        self.optimizer_initialized = True
        if self._preloaded_states is not None:
            self.load_optimizer_states(self._preloaded_states)
            self._preloaded_states = None

    # ------------------------------------------------------------------ one step
    def forward(self, data_batch, is_train=None):
        """Compute the outputs for ``data_batch`` (training mode: ``is_train``, by
        default as bound); other input shapes rebind the module."""
        self._check_ready()
        if is_train is None:
            is_train = self.for_training
        shapes = {name: array.shape for name, array in zip(self._data_names, data_batch.data)}
        if data_batch.label is not None:
            shapes.update((name, array.shape)
                          for name, array in zip(self._label_names, data_batch.label))
        bound = self._input_shapes()
        if any(bound.get(name) != tuple(shape) for name, shape in shapes.items()):
            self.reshape([DataDesc(n, shapes[n], d.dtype) for n, d in
                          zip(self._data_names, self._data_shapes)],
                         None if self._label_shapes is None or data_batch.label is None else
                         [DataDesc(n, shapes[n], d.dtype) for n, d in
                          zip(self._label_names, self._label_shapes)])
        inputs = dict(zip(self._data_names, data_batch.data))
        if data_batch.label is not None and self._label_shapes is not None:
            inputs.update(zip(self._label_names, data_batch.label))
        for name, array in inputs.items():
            self._exec.arg_dict[name][:] = array
        self._exec.forward(is_train=is_train)

    def backward(self, out_grads=None):
        """The gradients of the last training forward (head gradients ``out_grads``
        unless the outputs are losses)."""
        self._check_ready()
        self._exec.backward(out_grads=out_grads)

    def update(self):
        """One optimizer step on the trained parameters, from their gradients."""
        self._check_ready(optimizer=True)
        self._params_dirty = True
        steps = [(index, self._exec.grad_dict[name], self._exec.arg_dict[name])
                 for index, name in enumerate(self._param_names)
                 if self._exec.grad_dict[name] is not None]
        if steps:
            indices, grads, weights = zip(*steps)
            self._updater(list(indices), list(grads), list(weights))

    def get_outputs(self, merge_multi_context=True):
        """The outputs of the last forward."""
        self._check_ready()
        return list(self._exec.outputs)

    def get_input_grads(self, merge_multi_context=True):
        """The data inputs' gradients (bound with ``inputs_need_grad=True``)."""
        self._check_ready()
        if not self.inputs_need_grad:
            raise AssertionError('bind with inputs_need_grad=True to get the input gradients')
        return [self._exec.grad_dict[name] for name in self._data_names]

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        """Update ``eval_metric`` with the last outputs against ``labels``."""
        eval_metric.update_dict(dict(zip(self._label_names, labels or [])),
                                dict(zip(self._output_names, self._exec.outputs)))

    def install_monitor(self, mon):
        """MXNet's executor monitor, which gluonedu does not have."""
        raise MXNetError('gluonedu has no mx.monitor.Monitor for a Module; watch the '
                         'operators of a HybridBlock with register_op_hook instead')

    # ------------------------------------------------------------------ checkpoints
    def save_checkpoint(self, prefix, epoch, save_optimizer_states=False,
                        remove_amp_cast=True):
        """Save the symbol to ``prefix-symbol.json`` and the parameters to
        ``prefix-EPOCH.params`` (and the optimizer's states to ``prefix-EPOCH.states``),
        MXNet's checkpoint files."""
        self._symbol.save('%s-symbol.json' % prefix)
        self.save_params('%s-%04d.params' % (prefix, epoch))
        self.logger.info('Saved checkpoint to "%s-%04d.params"', prefix, epoch)
        if save_optimizer_states:
            self.save_optimizer_states('%s-%04d.states' % (prefix, epoch))

    @staticmethod
    def load(prefix, epoch, load_optimizer_states=False, **kwargs):
        """A Module of the checkpoint :meth:`save_checkpoint` saved (its parameters set
        when it is bound); ``kwargs`` go to the constructor."""
        mod = Module(symbol=sym_load('%s-symbol.json' % prefix), **kwargs)
        mod._arg_params, mod._aux_params = _load_params('%s-%04d.params' % (prefix, epoch))
        mod.params_initialized = True
        if load_optimizer_states:
            mod._preloaded_states = '%s-%04d.states' % (prefix, epoch)
        return mod

    def save_optimizer_states(self, fname):
        """Save the optimizer's states to ``fname``: its per-parameter states (momenta...),
        as MXNet's Module does, not its update counts (a loaded Adam counts from 1)."""
        self._check_ready(optimizer=True)
        with open(fname, 'wb') as fout:
            fout.write(self._updater.get_states())

    def load_optimizer_states(self, fname):
        """Load optimizer states that :meth:`save_optimizer_states` saved."""
        self._check_ready(optimizer=True)
        with open(fname, 'rb') as fin:
            self._updater.set_states(fin.read())

    def save_params(self, fname):
        """Save the parameters to ``fname`` as MXNet does (``arg:``/``aux:`` names)."""
        arg_params, aux_params = self.get_params()
        saved = {'arg:%s' % n: v.as_in_context(cpu()) for n, v in arg_params.items()}
        saved.update({'aux:%s' % n: v.as_in_context(cpu()) for n, v in aux_params.items()})
        nd.save(fname, saved)

    def load_params(self, fname):
        """Load parameters that :meth:`save_params` saved."""
        self.set_params(*_load_params(fname))


def _load_params(fname):
    """``(arg_params, aux_params)`` of a file of ``arg:``/``aux:`` names."""
    arg_params, aux_params = {}, {}
    for key, value in nd.load(fname).items():
        kind, _, name = key.partition(':')
        if kind not in ('arg', 'aux') or not name:
            raise ValueError('Invalid param file %s: the key %r is not arg:NAME or aux:NAME'
                             % (fname, key))
        (arg_params if kind == 'arg' else aux_params)[name] = value
    return arg_params, aux_params
