"""Evaluation metrics accumulated over mini-batches (``mx.metric``, MXNet 1.9.1 semantics).

A metric is fed batch by batch and asked for its value at any time::

    acc = mx.metric.Accuracy()
    for data, label in val_data:
        acc.update(labels=[label], preds=[net(data)])
    name, value = acc.get()              # ('accuracy', 0.93)

Every metric keeps two running totals, ``sum_metric / num_inst`` (the *local* value, which
:meth:`EvalMetric.reset_local` clears, e.g. every few batches) and ``global_sum_metric /
global_num_inst`` (cleared only by :meth:`EvalMetric.reset`, e.g. every epoch). ``get()``
and ``get_global()`` return ``(name, value)``; a metric that has seen nothing returns
``nan``. :class:`CompositeEvalMetric` holds several metrics and returns lists of names and
values.

``update(labels, preds)`` takes lists of arrays (one per output); a single NDArray is
wrapped into a list. Labels and predictions are NDArrays as in MXNet; NumPy arrays are
accepted too. The arithmetic runs on the host in NumPy, in the dtype of the arrays, and
each batch's result is added to the totals as a Python float, as MXNet does.

Metrics are found by name through a registry: ``mx.metric.create('acc')``,
``create(['acc', 'f1'])``, ``create(my_function)``; :func:`register` and :func:`alias`
add classes to it.
"""
import json
import math
import warnings
from collections import OrderedDict

import numpy

from .base import MXNetError, numeric_types, string_types
from .ndarray import NDArray

__all__ = ['check_label_shapes', 'EvalMetric', 'register', 'alias', 'create',
           'CompositeEvalMetric', 'Accuracy', 'TopKAccuracy', 'F1', 'MCC', 'Perplexity',
           'MAE', 'MSE', 'RMSE', 'CrossEntropy', 'NegativeLogLikelihood',
           'PearsonCorrelation', 'PCC', 'Loss', 'Torch', 'Caffe', 'CustomMetric', 'np']


def _is_array(x):
    return isinstance(x, (NDArray, numpy.ndarray))


def _host(x):
    """A NumPy array of an NDArray or NumPy array."""
    return x.asnumpy() if isinstance(x, NDArray) else numpy.asarray(x)


def check_label_shapes(labels, preds, wrap=False, shape=False):
    """Check that ``labels`` and ``preds`` agree; return them, as lists if ``wrap``.

    Parameters
    ----------
    labels, preds : list of arrays, or arrays
    wrap : bool
        Put a single array into a list.
    shape : bool
        Compare the arrays' shapes; otherwise only their lengths.

    Raises
    ------
    ValueError
        When the lengths (or shapes) differ.
    """
    if shape:
        label_shape, pred_shape = labels.shape, preds.shape
    else:
        label_shape, pred_shape = len(labels), len(preds)
    if label_shape != pred_shape:
        raise ValueError("Shape of labels {} does not match shape of predictions {}"
                         .format(label_shape, pred_shape))
    if wrap:
        if _is_array(labels):
            labels = [labels]
        if _is_array(preds):
            preds = [preds]
    return labels, preds


class EvalMetric:
    """Base class of the metrics: running totals and the ``get`` family.

    Parameters
    ----------
    name : str
        The name ``get()`` reports.
    output_names, label_names : list of str, or None
        The predictions and labels :meth:`update_dict` takes, by name (None: all of
        them, in order).
    **kwargs
        The subclass's own arguments, kept for :meth:`get_config`. ``has_global_stats``
        (default False) says whether the subclass maintains the global totals;
        otherwise ``get_global()`` returns ``get()``.

    Notes
    -----
    Subclasses implement :meth:`update`, adding to ``sum_metric``/``num_inst`` and to
    ``global_sum_metric``/``global_num_inst``.
    """

    def __init__(self, name, output_names=None, label_names=None, **kwargs):
        self.name = str(name)
        self.output_names = output_names
        self.label_names = label_names
        self._has_global_stats = kwargs.pop('has_global_stats', False)
        self._kwargs = kwargs
        self.reset()

    def __str__(self):
        return 'EvalMetric: {}'.format(dict(self.get_name_value()))

    def get_config(self):
        """The arguments that rebuild this metric with ``create(**config)``."""
        config = self._kwargs.copy()
        config.update({'metric': type(self).__name__, 'name': self.name,
                       'output_names': self.output_names, 'label_names': self.label_names})
        return config

    def update_dict(self, label, pred):
        """Update with dicts name -> array (the names selected by ``label_names`` and
        ``output_names``, else all values in order)."""
        if self.output_names is not None:
            pred = [pred[name] for name in self.output_names]
        else:
            pred = list(pred.values())
        if self.label_names is not None:
            label = [label[name] for name in self.label_names]
        else:
            label = list(label.values())
        self.update(label, pred)

    def update(self, labels, preds):
        """Add one batch: ``labels`` and ``preds`` are lists of arrays, one per output."""
        raise NotImplementedError("%s must define update(labels, preds)" % type(self).__name__)

    def reset(self):
        """Clear the local and the global totals."""
        self.num_inst = 0
        self.sum_metric = 0.0
        self.global_num_inst = 0
        self.global_sum_metric = 0.0

    def reset_local(self):
        """Clear the local totals only."""
        self.num_inst = 0
        self.sum_metric = 0.0

    def _add(self, value, count):
        """Add one batch's ``value`` (a number or size-1 array) over ``count`` instances
        to both totals."""
        value = numpy.asarray(value, dtype=numpy.float64).item()
        self.sum_metric += value
        self.global_sum_metric += value
        self.num_inst += count
        self.global_num_inst += count

    def get(self):
        """``(name, sum_metric / num_inst)``; ``nan`` before any update."""
        if self.num_inst == 0:
            return (self.name, float('nan'))
        return (self.name, float(self.sum_metric / self.num_inst))

    def get_global(self):
        """``(name, value)`` over everything since the last :meth:`reset`."""
        if not self._has_global_stats:
            return self.get()
        if self.global_num_inst == 0:
            return (self.name, float('nan'))
        return (self.name, float(self.global_sum_metric / self.global_num_inst))

    def get_name_value(self):
        """``get()`` as a list of ``(name, value)`` pairs."""
        return _zip_name_value(*self.get())

    def get_global_name_value(self):
        """``get_global()`` as a list of ``(name, value)`` pairs."""
        return _zip_name_value(*self.get_global())


def _zip_name_value(name, value):
    names = name if isinstance(name, list) else [name]
    values = value if isinstance(value, list) else [value]
    return list(zip(names, values))


# ---------------------------------------------------------------------- the registry
_REGISTRY = {}


def register(klass, name=None):
    """Register a subclass of EvalMetric under ``name`` (default: its class name),
    case-insensitively, so that :func:`create` finds it. Returns ``klass`` (a decorator)."""
    if not (isinstance(klass, type) and issubclass(klass, EvalMetric)):
        raise AssertionError("Can only register subclass of EvalMetric, got %r" % (klass,))
    name = (klass.__name__ if name is None else name).lower()
    if name in _REGISTRY:
        old = _REGISTRY[name]
        warnings.warn("New metric %s.%s registered with name %s is overriding existing metric "
                      "%s.%s" % (klass.__module__, klass.__name__, name, old.__module__,
                                 old.__name__), UserWarning, stacklevel=2)
    _REGISTRY[name] = klass
    return klass


def alias(*aliases):
    """A class decorator registering the class under each of ``aliases`` too."""
    def register_aliases(klass):
        for name in aliases:
            register(klass, name)
        return klass
    return register_aliases


def _create_registered(*args, **kwargs):
    """A metric from a registered name, a config dict, a JSON string or an instance."""
    if args:
        metric, args = args[0], args[1:]
    else:
        metric = kwargs.pop('metric')
    if isinstance(metric, EvalMetric):
        if args or kwargs:
            raise AssertionError("metric is already an instance. Additional arguments are "
                                 "invalid")
        return metric
    if isinstance(metric, dict):
        return _create_registered(**metric)
    if not isinstance(metric, string_types):
        raise AssertionError("metric must be of string type (a registered name), an "
                             "EvalMetric, a list or a function; got %r" % (metric,))
    if metric.startswith('['):
        if args or kwargs:
            raise AssertionError("a JSON metric config takes no further arguments")
        metric, kwargs = json.loads(metric)
        return _create_registered(metric, **kwargs)
    if metric.startswith('{'):
        if args or kwargs:
            raise AssertionError("a JSON metric config takes no further arguments")
        return _create_registered(**json.loads(metric))
    name = metric.lower()
    if name not in _REGISTRY:
        raise AssertionError("%s is not registered. Please register with metric.register "
                             "first (registered: %s)" % (name, ', '.join(sorted(_REGISTRY))))
    return _REGISTRY[name](*args, **kwargs)


def create(metric, *args, **kwargs):
    """Create a metric.

    Parameters
    ----------
    metric : str, EvalMetric, list, dict or callable
        A registered name (``'acc'``, ``'ce'``, ``'top_k_accuracy'``, ...), a config
        (dict or JSON string, as :meth:`EvalMetric.get_config` gives), an instance
        (returned as is), a list of any of these (a :class:`CompositeEvalMetric`), or a
        function ``feval(label, pred)`` of NumPy arrays (a :class:`CustomMetric`).
    *args, **kwargs
        Arguments of the metric's constructor.

    Examples
    --------
    >>> mx.metric.create(['acc', 'f1']).get()
    (['accuracy', 'f1'], [nan, nan])
    """
    if callable(metric):
        return CustomMetric(metric, *args, **kwargs)
    if isinstance(metric, list):
        composite = CompositeEvalMetric()
        for child in metric:
            composite.add(create(child, *args, **kwargs))
        return composite
    return _create_registered(metric, *args, **kwargs)


@register
@alias('composite')
class CompositeEvalMetric(EvalMetric):
    """Several metrics updated together; ``get()`` returns ``([names], [values])``.

    Parameters
    ----------
    metrics : list, optional
        Child metrics, or anything :func:`create` accepts for each.
    name, output_names, label_names : see :class:`EvalMetric`.
        ``update_dict`` passes on only the labels/outputs named here (all if None).
    """

    def __init__(self, metrics=None, name='composite', output_names=None, label_names=None):
        self.metrics = []
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self.metrics = [create(m) for m in (metrics or [])]

    def add(self, metric):
        """Add a child metric (anything :func:`create` accepts)."""
        self.metrics.append(create(metric))

    def get_metric(self, index):
        """The child metric at ``index``; ValueError if there is none."""
        try:
            return self.metrics[index]
        except IndexError:
            raise ValueError("Metric index {} is out of range 0 and {}".format(
                index, len(self.metrics))) from None

    def update_dict(self, labels, preds):
        if self.label_names is not None:
            labels = OrderedDict([i for i in labels.items() if i[0] in self.label_names])
        if self.output_names is not None:
            preds = OrderedDict([i for i in preds.items() if i[0] in self.output_names])
        for metric in self.metrics:
            metric.update_dict(labels, preds)

    def update(self, labels, preds):
        for metric in self.metrics:
            metric.update(labels, preds)

    def reset(self):
        for metric in self.metrics:
            metric.reset()

    def reset_local(self):
        for metric in self.metrics:
            metric.reset_local()

    def _collect(self, getter):
        names, values = [], []
        for metric in self.metrics:
            name, value = getter(metric)
            names.extend([name] if isinstance(name, string_types) else name)
            values.extend([value] if isinstance(value, numeric_types) else value)
        return (names, values)

    def get(self):
        """``([child names], [child values])``."""
        return self._collect(lambda metric: metric.get())

    def get_global(self):
        """``([child names], [child global values])``."""
        return self._collect(lambda metric: metric.get_global())

    def get_config(self):
        config = super().get_config()
        config.update({'metrics': [m.get_config() for m in self.metrics]})
        return config


# ---------------------------------------------------------------------- classification
@register
@alias('acc')
class Accuracy(EvalMetric):
    """The fraction of correct predictions: ``mean(pred_class == label)``.

    Parameters
    ----------
    axis : int, default 1
        The class axis of the predictions. A prediction of the label's shape is taken
        as class indices; otherwise the class is its argmax along ``axis``.
        Labels and predicted classes are truncated to int32 before comparing.
    """

    def __init__(self, axis=1, name='accuracy', output_names=None, label_names=None):
        super().__init__(name, axis=axis, output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self.axis = axis

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            pred = _host(pred)
            label = _host(label)
            if pred.shape != label.shape:
                pred = pred.argmax(axis=self.axis)
            pred = pred.astype('int32').ravel()
            label = label.astype('int32').ravel()
            check_label_shapes(label, pred)
            self._add((pred == label).sum(), len(pred))


@register
@alias('top_k_accuracy', 'top_k_acc')
class TopKAccuracy(EvalMetric):
    """The fraction of samples whose label is among the ``top_k`` highest scores.

    Parameters
    ----------
    top_k : int, default 1
        Must be above 1 (use :class:`Accuracy` otherwise). The name gets ``_<top_k>``.

    Notes
    -----
    Predictions have shape (batch, classes). (A 1-D prediction is compared, as in
    MXNet, element by element: the index of each position in ``argpartition`` with the
    label at that position.)
    """

    def __init__(self, top_k=1, name='top_k_accuracy', output_names=None, label_names=None):
        super().__init__(name, top_k=top_k, output_names=output_names,
                         label_names=label_names, has_global_stats=True)
        self.top_k = top_k
        if not self.top_k > 1:
            raise AssertionError('Please use Accuracy if top_k is no more than 1')
        self.name += '_%d' % self.top_k

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            if not len(pred.shape) <= 2:
                raise AssertionError('Predictions should be no more than 2 dims, got shape %s'
                                     % (pred.shape,))
            # Only membership in the top k matters, so a partial sort is enough.
            ranked = numpy.argpartition(_host(pred).astype('float32'), -self.top_k)
            label = _host(label).astype('int32')
            check_label_shapes(label, ranked)
            if ranked.ndim == 1:
                correct = (ranked.ravel() == label.ravel()).sum()
            else:
                num_classes = ranked.shape[1]
                top = ranked[:, num_classes - min(num_classes, self.top_k):]
                correct = (top == label.reshape(-1, 1)).sum()
            self._add(correct, ranked.shape[0])


class _BinaryConfusion:
    """True/false positive/negative counts of a binary classifier, local and global.

    Predictions are scores of shape (batch, 2) (the class is their argmax); labels are
    0 or 1.
    """

    _COUNTS = ('true_positives', 'false_positives', 'false_negatives', 'true_negatives')

    def __init__(self):
        self.reset_stats()

    def update_binary_stats(self, label, pred, metric_name):
        pred = _host(pred)
        label = _host(label).astype('int32')
        pred_label = numpy.argmax(pred, axis=1)
        check_label_shapes(label, pred)
        if len(numpy.unique(label)) > 2:
            raise ValueError("%s currently only supports binary classification: the labels "
                             "hold more than two classes" % metric_name)
        pred_true = pred_label == 1
        label_true = label == 1
        counts = ((pred_true & label_true).sum(), (pred_true & ~label_true).sum(),
                  (~pred_true & label_true).sum(), (~pred_true & ~label_true).sum())
        for name, count in zip(self._COUNTS, counts):
            setattr(self, name, getattr(self, name) + int(count))
            setattr(self, 'global_' + name, getattr(self, 'global_' + name) + int(count))

    def _counts(self, use_global):
        prefix = 'global_' if use_global else ''
        return [getattr(self, prefix + name) for name in self._COUNTS]

    def total_examples(self, use_global=False):
        return sum(self._counts(use_global))

    def fscore(self, use_global=False):
        """``2·precision·recall / (precision + recall)``, 0 where undefined."""
        tp, fp, fn, _ = self._counts(use_global)
        precision = tp / (tp + fp) if tp + fp > 0 else 0.
        recall = tp / (tp + fn) if tp + fn > 0 else 0.
        if precision + recall > 0:
            return 2 * precision * recall / (precision + recall)
        return 0.

    def matthewscc(self, use_global=False):
        """``(TP·TN − FP·FN) / sqrt((TP+FP)(TP+FN)(TN+FP)(TN+FN))``, zero factors taken
        as 1; 0 before any example."""
        tp, fp, fn, tn = (float(c) for c in self._counts(use_global))
        if not tp + fp + fn + tn:
            return 0.
        denominator = 1.
        for term in (tp + fp, tp + fn, tn + fp, tn + fn):
            if term != 0.:
                denominator *= term
        return (tp * tn - fp * fn) / math.sqrt(denominator)

    def local_reset_stats(self):
        for name in self._COUNTS:
            setattr(self, name, 0)

    def reset_stats(self):
        self.local_reset_stats()
        for name in self._COUNTS:
            setattr(self, 'global_' + name, 0)


class _BinaryMetric(EvalMetric):
    """F1 and MCC: a score of the confusion counts, averaged over batches ('macro') or
    computed once over all batches ('micro', any value but 'macro')."""

    def __init__(self, name, output_names, label_names, average):
        self.average = average
        self._confusion = _BinaryConfusion()
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=True)

    def _score(self, use_global):
        raise NotImplementedError

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            self._confusion.update_binary_stats(label, pred, type(self).__name__)
        confusion = self._confusion
        if self.average == 'macro':
            self.sum_metric += self._score(False)
            self.global_sum_metric += self._score(True)
            self.num_inst += 1
            self.global_num_inst += 1
            confusion.reset_stats()
        else:
            self.sum_metric = self._score(False) * confusion.total_examples()
            self.global_sum_metric = self._score(True) * confusion.total_examples(True)
            self.num_inst = confusion.total_examples()
            self.global_num_inst = confusion.total_examples(True)

    def reset(self):
        super().reset()
        self._confusion.reset_stats()

    def reset_local(self):
        super().reset_local()
        self._confusion.local_reset_stats()


@register
class F1(_BinaryMetric):
    """The F1 score of a binary classifier: ``2·precision·recall / (precision + recall)``.

    ``precision = TP / (TP + FP)``, ``recall = TP / (TP + FN)``; predictions are scores
    of shape (batch, 2), labels 0 or 1 (more classes raise ValueError).

    Parameters
    ----------
    average : str, default 'macro'
        'macro': the mean of the batches' F1 scores; 'micro': one F1 score of the counts
        summed over all batches.
    """

    def __init__(self, name='f1', output_names=None, label_names=None, average='macro'):
        super().__init__(name, output_names, label_names, average)

    def _score(self, use_global):
        return self._confusion.fscore(use_global)


@register
class MCC(_BinaryMetric):
    """The Matthews correlation coefficient of a binary classifier.

    ``MCC = (TP·TN − FP·FN) / sqrt((TP+FP)(TP+FN)(TN+FP)(TN+FN))`` with zero factors in
    the denominator replaced by 1: 1 is perfect, 0 uncorrelated, −1 inverted. Inputs and
    ``average`` as :class:`F1`.
    """

    def __init__(self, name='mcc', output_names=None, label_names=None, average='macro'):
        super().__init__(name, output_names, label_names, average)

    def _score(self, use_global):
        return self._confusion.matthewscc(use_global)

    def reset(self):
        super().reset()
        self.num_inst = self.global_num_inst = 0.   # MXNet counts MCC's instances as floats

    def reset_local(self):
        super().reset_local()
        self.num_inst = 0.


@register
class Perplexity(EvalMetric):
    """Perplexity: ``exp(−mean(log p(label)))``, the exponentiated cross-entropy.

    Parameters
    ----------
    ignore_label : int or None
        Samples with this label are not counted (None: count all). Required.
    axis : int, default -1
        The class axis of the predicted probabilities.

    Notes
    -----
    Predictions are probabilities of shape (batch, classes) and labels hold one class
    per row; the probability of each label is picked (indices clipped to the valid
    range) and floored at 1e-10 before the log.
    """

    def __init__(self, ignore_label, axis=-1, name='perplexity', output_names=None,
                 label_names=None):
        super().__init__(name, ignore_label=ignore_label, output_names=output_names,
                         label_names=label_names, has_global_stats=True)
        self.ignore_label = ignore_label
        self.axis = axis

    def update(self, labels, preds):
        if len(labels) != len(preds):
            raise AssertionError("Perplexity: %d labels but %d predictions"
                                 % (len(labels), len(preds)))
        loss = 0.
        num = 0
        for label, pred in zip(labels, preds):
            if label.size != pred.size / pred.shape[-1]:
                raise AssertionError("shape mismatch: %s vs. %s" % (label.shape, pred.shape))
            pred = _host(pred)
            label = _host(label).reshape(-1)
            picked = _pick(pred, label.astype('int32'), self.axis)
            if self.ignore_label is not None:
                ignore = (label == self.ignore_label).astype(picked.dtype)
                num -= float(ignore.sum())
                picked = picked * (1 - ignore) + ignore
            loss -= float(numpy.log(numpy.maximum(picked.dtype.type(1e-10), picked)).sum())
            num += picked.size
        self._add(loss, num)

    def get(self):
        """``(name, exp(sum_metric / num_inst))``."""
        if self.num_inst == 0:
            return (self.name, float('nan'))
        return (self.name, math.exp(self.sum_metric / self.num_inst))

    def get_global(self):
        if self.global_num_inst == 0:
            return (self.name, float('nan'))
        return (self.name, math.exp(self.global_sum_metric / self.global_num_inst))


def _pick(data, index, axis):
    """``data``'s element at ``index`` along ``axis`` (indices clipped), as ``nd.pick``."""
    axis = axis % data.ndim
    kept_shape = data.shape[:axis] + data.shape[axis + 1:]
    if index.shape != kept_shape:
        raise MXNetError("Shape inconsistent: the labels have shape %s, but picking along "
                         "axis %d of predictions of shape %s needs labels of shape %s"
                         % (index.shape, axis, data.shape, kept_shape))
    index = numpy.clip(index, 0, data.shape[axis] - 1)
    return numpy.take_along_axis(data, numpy.expand_dims(index, axis), axis).squeeze(axis)


# ---------------------------------------------------------------------- regression
class _RegressionMetric(EvalMetric):
    """MAE, MSE and RMSE: one error value per batch, averaged over batches.

    1-D labels and predictions become columns; the error of a batch is computed from
    ``label − pred`` with NumPy broadcasting, in the arrays' dtype.
    """

    def __init__(self, name, output_names, label_names):
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=True)

    @staticmethod
    def _batch_error(difference):
        raise NotImplementedError

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            label, pred = _host(label), _host(pred)
            if label.ndim == 1:
                label = label.reshape(label.shape[0], 1)
            if pred.ndim == 1:
                pred = pred.reshape(pred.shape[0], 1)
            self._add(self._batch_error(label - pred), 1)


@register
class MAE(_RegressionMetric):
    """Mean absolute error: ``mean(|label − pred|)`` per batch, averaged over batches."""

    def __init__(self, name='mae', output_names=None, label_names=None):
        super().__init__(name, output_names, label_names)

    @staticmethod
    def _batch_error(difference):
        return numpy.abs(difference).mean()


@register
class MSE(_RegressionMetric):
    """Mean squared error: ``mean((label − pred)²)`` per batch, averaged over batches."""

    def __init__(self, name='mse', output_names=None, label_names=None):
        super().__init__(name, output_names, label_names)

    @staticmethod
    def _batch_error(difference):
        return (difference ** 2.0).mean()


@register
class RMSE(_RegressionMetric):
    """Root mean squared error: ``sqrt(mean((label − pred)²))`` per batch, averaged over
    batches (so not the RMSE of all samples at once)."""

    def __init__(self, name='rmse', output_names=None, label_names=None):
        super().__init__(name, output_names, label_names)

    @staticmethod
    def _batch_error(difference):
        return numpy.sqrt((difference ** 2.0).mean())


class _LikelihoodMetric(EvalMetric):
    """CrossEntropy and NegativeLogLikelihood: ``−log(p(label) + eps)`` averaged over
    samples; predictions are probabilities of shape (batch, classes)."""

    def __init__(self, eps, name, output_names, label_names):
        super().__init__(name, eps=eps, output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self.eps = eps

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            label, pred = _host(label).ravel(), _host(pred)
            num_examples = pred.shape[0]
            if label.shape[0] != num_examples:
                raise AssertionError("%s: %d labels for %d predictions"
                                     % (type(self).__name__, label.shape[0], num_examples))
            prob = pred[numpy.arange(num_examples, dtype=numpy.int64), numpy.int64(label)]
            self._add((-numpy.log(prob + self.eps)).sum(), num_examples)


@register
@alias('ce')
class CrossEntropy(_LikelihoodMetric):
    """Cross-entropy: ``−(1/N)·Σ log(p_n(label_n) + eps)``.

    Parameters
    ----------
    eps : float, default 1e-12
        Added to the probabilities, so that a probability of 0 gives a finite loss.
    """

    def __init__(self, eps=1e-12, name='cross-entropy', output_names=None, label_names=None):
        super().__init__(eps, name, output_names, label_names)


@register
@alias('nll_loss')
class NegativeLogLikelihood(_LikelihoodMetric):
    """Negative log-likelihood: ``−(1/N)·Σ log(p_n(label_n) + eps)`` (the same formula as
    :class:`CrossEntropy`, under its other name).

    Parameters
    ----------
    eps : float, default 1e-12
    """

    def __init__(self, eps=1e-12, name='nll-loss', output_names=None, label_names=None):
        super().__init__(eps, name, output_names, label_names)


@register
@alias('pearsonr')
class PearsonCorrelation(EvalMetric):
    """The Pearson correlation ``cov(label, pred) / (σ_label·σ_pred)`` of the flattened
    arrays (labels and predictions of one shape).

    Parameters
    ----------
    average : str, default 'macro'
        'macro': the mean of the batches' correlations. 'micro': one correlation over
        all samples since the last :meth:`reset`, from running means, variances
        (Welford's algorithm) and co-moment.
    """

    def __init__(self, name='pearsonr', output_names=None, label_names=None, average='macro'):
        self.average = average
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=True)

    def reset(self):
        super().reset()
        if self.average == 'micro':
            self._count = 0
            self._mean_label = self._mean_pred = 0.
            self._m2_label = self._m2_pred = 0.
            self._comoment = 0.

    @staticmethod
    def _welford(values, count, mean, m2):
        """Running count, mean and sum of squared deviations after adding ``values``."""
        count += len(values)
        delta = values - mean
        mean += numpy.sum(delta / count)
        m2 += numpy.sum(delta * (values - mean))
        return count, mean, m2

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            check_label_shapes(label, pred, False, True)
            label = _host(label).ravel().astype(numpy.float64)
            pred = _host(pred).ravel().astype(numpy.float64)
            if self.average == 'macro':
                self._add(numpy.corrcoef(pred, label)[0, 1], 1)
                continue
            self.num_inst += 1
            self.global_num_inst += 1
            count = self._count
            self._count, self._mean_label, self._m2_label = self._welford(
                label, count, self._mean_label, self._m2_label)
            # The co-moment uses the label mean after and the prediction mean before
            # this batch, as MXNet does.
            self._comoment += numpy.sum((label - self._mean_label) * (pred - self._mean_pred))
            _, self._mean_pred, self._m2_pred = self._welford(
                pred, count, self._mean_pred, self._m2_pred)

    def _micro_value(self):
        n = self._count
        return float(self._comoment / ((n - 1) * numpy.sqrt(self._m2_pred / (n - 1))
                                       * numpy.sqrt(self._m2_label / (n - 1))))

    def get(self):
        if self.num_inst == 0:
            return (self.name, float('nan'))
        if self.average == 'macro':
            return super().get()
        return (self.name, self._micro_value())

    def get_global(self):
        if self.average == 'macro':
            return super().get_global()
        if self.global_num_inst == 0:
            return (self.name, float('nan'))
        return (self.name, self._micro_value())


@register
class PCC(EvalMetric):
    """A multiclass Matthews correlation from the K×K confusion matrix C (rows:
    predicted, columns: true class)::

        PCC = Σ_k (C_kk·n − x_k·y_k) / sqrt(Σ_k x_k·(n − x_k) · Σ_k y_k·(n − y_k))

    with ``n`` the number of samples, ``x``/``y`` the row/column sums. ``nan`` when
    either sum in the denominator is 0. Equals :class:`MCC` for two classes. The matrix
    grows with the largest class index seen; predictions are class indices (the
    label's shape) or scores of shape (batch, classes).

    Parameters
    ----------
    has_global_stats : bool, default True
    """

    def __init__(self, name='pcc', output_names=None, label_names=None,
                 has_global_stats=True):
        self.k = 2
        super().__init__(name=name, output_names=output_names, label_names=label_names,
                         has_global_stats=has_global_stats)

    def _grow(self, inc):
        self.lcm = numpy.pad(self.lcm, ((0, inc), (0, inc)), 'constant', constant_values=0)
        self.gcm = numpy.pad(self.gcm, ((0, inc), (0, inc)), 'constant', constant_values=0)
        self.k += inc

    @staticmethod
    def _calc_mcc(cmat):
        n = cmat.sum()
        x = cmat.sum(axis=1)
        y = cmat.sum(axis=0)
        cov_xx = numpy.sum(x * (n - x))
        cov_yy = numpy.sum(y * (n - y))
        if cov_xx == 0 or cov_yy == 0:
            return float('nan')
        cov_xy = numpy.sum(cmat.diagonal() * n - x * y)
        return cov_xy / (cov_xx * cov_yy) ** 0.5

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            label = _host(label).astype('int32')
            pred = _host(pred)
            pred = pred.argmax(axis=1) if pred.shape != label.shape else pred.astype('int32')
            pred, label = pred.ravel(), label.ravel()
            n = max(pred.max(), label.max())
            if n >= self.k:
                self._grow(n + 1 - self.k)
            batch = numpy.zeros((self.k, self.k))
            numpy.add.at(batch, (pred, label), 1)
            self.lcm += batch
            self.gcm += batch
        self.num_inst += 1
        self.global_num_inst += 1

    @property
    def sum_metric(self):
        return self._calc_mcc(self.lcm) * self.num_inst

    @property
    def global_sum_metric(self):
        return self._calc_mcc(self.gcm) * self.global_num_inst

    def reset(self):
        self.global_num_inst = 0.
        self.gcm = numpy.zeros((self.k, self.k))
        self.reset_local()

    def reset_local(self):
        self.num_inst = 0.
        self.lcm = numpy.zeros((self.k, self.k))


@register
class Loss(EvalMetric):
    """The mean of the given loss values (the labels are ignored):
    ``update(_, preds)`` adds ``sum(pred)`` over ``pred.size`` instances."""

    def __init__(self, name='loss', output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=True)

    def update(self, _, preds):
        if _is_array(preds):
            preds = [preds]
        for pred in preds:
            self._add(_host(pred).sum(), pred.size)


@register
class Torch(Loss):
    """:class:`Loss` under the name 'torch' (MXNet's placeholder for Torch criteria)."""

    def __init__(self, name='torch', output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names)


@register
class Caffe(Loss):
    """:class:`Loss` under the name 'caffe' (MXNet's placeholder for Caffe criteria)."""

    def __init__(self, name='caffe', output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names)


@register
class CustomMetric(EvalMetric):
    """A metric computed by a function ``feval(label, pred)`` of NumPy arrays.

    ``feval`` returns either a number (the batch's value, counted as one instance) or a
    tuple ``(sum_metric, num_inst)``.

    Parameters
    ----------
    feval : callable
    name : str, optional
        Default: ``feval.__name__``, written ``custom(<lambda>)`` for lambdas.
    allow_extra_outputs : bool, default False
        Allow more predictions than labels (e.g. an RNN that also outputs its states);
        the extra ones are ignored.
    """

    def __init__(self, feval, name=None, allow_extra_outputs=False, output_names=None,
                 label_names=None):
        if name is None:
            name = feval.__name__
            if '<' in name:
                name = 'custom(%s)' % name
        super().__init__(name, feval=feval, allow_extra_outputs=allow_extra_outputs,
                         output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self._feval = feval
        self._allow_extra_outputs = allow_extra_outputs

    def update(self, labels, preds):
        if not self._allow_extra_outputs:
            labels, preds = check_label_shapes(labels, preds, True)
        for pred, label in zip(preds, labels):
            result = self._feval(_host(label), _host(pred))
            if isinstance(result, tuple):
                sum_metric, num_inst = result
                self._add(sum_metric, num_inst)
            else:
                self._add(result, 1)

    def get_config(self):
        raise NotImplementedError("CustomMetric cannot be serialized: its function is code, "
                                  "not configuration")


def np(numpy_feval, name=None, allow_extra_outputs=False):  # pylint: disable=invalid-name
    """A :class:`CustomMetric` from ``numpy_feval(label, pred)`` of NumPy arrays.

    >>> def mean_abs(label, pred):
    ...     return numpy.abs(label - pred).mean()
    >>> metric = mx.metric.np(mean_abs)          # named 'mean_abs'
    """
    def feval(label, pred):
        return numpy_feval(label, pred)
    feval.__name__ = numpy_feval.__name__
    return CustomMetric(feval, name, allow_extra_outputs)
