"""The loops every module shares: ``fit``, ``score``, ``predict`` over data iterators,
written against the step interface (``bind``, ``forward``, ``update``...) of a subclass."""
import logging
import time
from collections import namedtuple

import numpy as np

from .. import metric
from .. import ndarray as nd
from ..initializer import Uniform
from ..io import DataBatch, DataIter

__all__ = ['BaseModule', 'BatchEndParam']

#: What a ``batch_end_callback`` receives after each batch.
BatchEndParam = namedtuple('BatchEndParams', ['epoch', 'nbatch', 'eval_metric', 'locals'])


def _as_list(obj):
    return obj if isinstance(obj, (list, tuple)) else [obj]


def _as_metric(eval_metric):
    if isinstance(eval_metric, metric.EvalMetric):
        return eval_metric
    return metric.create(eval_metric)


class BaseModule:
    """The base of modules: the training and evaluation loops over a subclass's steps.

    The state flags say how far a module is prepared: ``binded`` (arrays allocated),
    ``params_initialized``, ``optimizer_initialized``; ``for_training`` and
    ``inputs_need_grad`` are what ``bind`` was asked for.
    """

    def __init__(self, logger=logging):
        self.logger = logger
        self.binded = False
        self.for_training = False
        self.inputs_need_grad = False
        self.params_initialized = False
        self.optimizer_initialized = False
        self._symbol = None

    @property
    def symbol(self):
        """The symbol this module computes."""
        return self._symbol

    def _check_ready(self, optimizer=False):
        """MXNet asserts a module is bound (and initialized) before a step."""
        if not (self.binded and self.params_initialized):
            raise AssertionError('call bind() and init_params() (or fit) before using the '
                                 'module')
        if optimizer and not self.optimizer_initialized:
            raise AssertionError('call init_optimizer() (or fit) before update()')

    # ------------------------------------------------------------------ one step
    def forward_backward(self, data_batch):
        """A training step's forward and backward computation."""
        self.forward(data_batch, is_train=True)
        self.backward()

    def prepare(self, data_batch, sparse_row_id_fn=None):
        """Get ready for ``data_batch`` (nothing to do for a module on one device)."""

    # ------------------------------------------------------------------ loops
    def score(self, eval_data, eval_metric, num_batch=None, batch_end_callback=None,
              score_end_callback=None, reset=True, epoch=0, sparse_row_id_fn=None):
        """Evaluate ``eval_metric`` over ``eval_data``: a list of ``(name, value)``."""
        self._check_ready()
        if reset:
            eval_data.reset()
        eval_metric = _as_metric(eval_metric)
        eval_metric.reset()
        for nbatch, eval_batch in enumerate(eval_data):
            if num_batch is not None and nbatch == num_batch:
                break
            self.prepare(eval_batch, sparse_row_id_fn=sparse_row_id_fn)
            self.forward(eval_batch, is_train=False)
            self.update_metric(eval_metric, eval_batch.label)
            for callback in _as_list(batch_end_callback or []):
                callback(BatchEndParam(epoch=epoch, nbatch=nbatch, eval_metric=eval_metric,
                                       locals=locals()))
        for callback in _as_list(score_end_callback or []):
            callback(BatchEndParam(epoch=epoch, nbatch=num_batch, eval_metric=eval_metric,
                                   locals=locals()))
        return eval_metric.get_global_name_value()

    def predict(self, eval_data, num_batch=None, merge_batches=True, reset=True,
                always_output_list=False, sparse_row_id_fn=None):
        """The outputs over ``eval_data`` (a DataIter, or one batch as an NDArray), the
        padding of each batch left out; with ``merge_batches``, concatenated."""
        self._check_ready()
        if isinstance(eval_data, (nd.NDArray, np.ndarray)):
            self.forward(DataBatch([nd.array(eval_data) if isinstance(eval_data, np.ndarray)
                                    else eval_data]))
            return self.get_outputs()[0]
        if not isinstance(eval_data, DataIter):
            raise ValueError('eval_data must be of type NDArray or DataIter')
        if reset:
            eval_data.reset()
        output_list = []
        for nbatch, eval_batch in enumerate(eval_data):
            if num_batch is not None and nbatch == num_batch:
                break
            self.prepare(eval_batch, sparse_row_id_fn=sparse_row_id_fn)
            self.forward(eval_batch, is_train=False)
            pad = eval_batch.pad or 0
            output_list.append([out[0:out.shape[0] - pad].copy()
                                for out in self.get_outputs()])
        if not output_list or not merge_batches:
            return output_list
        num_outputs = len(output_list[0])
        merged = [nd.concatenate([outs[i] for outs in output_list])
                  for i in range(num_outputs)]
        if num_outputs == 1 and not always_output_list:
            return merged[0]
        return merged

    def fit(self, train_data, eval_data=None, eval_metric='acc', epoch_end_callback=None,
            batch_end_callback=None, kvstore='local', optimizer='sgd',
            optimizer_params=(('learning_rate', 0.01),), eval_end_callback=None,
            eval_batch_end_callback=None, initializer=Uniform(0.01), arg_params=None,
            aux_params=None, allow_missing=False, force_rebind=False, force_init=False,
            begin_epoch=0, num_epoch=None, validation_metric=None, monitor=None,
            sparse_row_id_fn=None):
        """Train on ``train_data`` for epochs ``begin_epoch`` to ``num_epoch - 1``: bind,
        initialize, then forward, backward, update and the metric on every batch."""
        if num_epoch is None:
            raise AssertionError('please specify number of epochs (num_epoch=...)')
        self.bind(data_shapes=train_data.provide_data, label_shapes=train_data.provide_label,
                  for_training=True, force_rebind=force_rebind)
        if monitor is not None:
            self.install_monitor(monitor)
        self.init_params(initializer=initializer, arg_params=arg_params,
                         aux_params=aux_params, allow_missing=allow_missing,
                         force_init=force_init)
        self.init_optimizer(kvstore=kvstore, optimizer=optimizer,
                            optimizer_params=optimizer_params)
        if validation_metric is None:
            validation_metric = eval_metric
        eval_metric = _as_metric(eval_metric)
        for epoch in range(begin_epoch, num_epoch):
            tic = time.time()
            eval_metric.reset()
            for nbatch, data_batch in enumerate(train_data):
                self.forward_backward(data_batch)
                self.update()
                self.update_metric(eval_metric, data_batch.label)
                for callback in _as_list(batch_end_callback or []):
                    callback(BatchEndParam(epoch=epoch, nbatch=nbatch,
                                           eval_metric=eval_metric, locals=locals()))
            for name, value in eval_metric.get_global_name_value():
                self.logger.info('Epoch[%d] Train-%s=%f', epoch, name, value)
            self.logger.info('Epoch[%d] Time cost=%.3f', epoch, time.time() - tic)
            arg_params, aux_params = self.get_params()
            for callback in _as_list(epoch_end_callback or []):
                callback(epoch, self.symbol, arg_params, aux_params)
            if eval_data:
                results = self.score(eval_data, validation_metric,
                                     score_end_callback=eval_end_callback,
                                     batch_end_callback=eval_batch_end_callback, epoch=epoch)
                for name, value in results:
                    self.logger.info('Epoch[%d] Validation-%s=%f', epoch, name, value)
            train_data.reset()
