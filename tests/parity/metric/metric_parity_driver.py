"""Runs one ``mx.metric`` parity case against an MXNet-like module ``mx`` (MXNet 1.9.1 or gluonedu).

Both sides execute this same code: ``oracle_metric.py`` passes the real ``mxnet``, the
tests pass ``gluonedu``. Batches are drawn here from ``np.random.RandomState(seed)``
(the same stream under the oracle's NumPy 1.23 and the project's NumPy 2) and handed
over as NDArrays. This module imports neither library.

A case (plain JSON, from :func:`metric_cases`)::

    {"id": "acc-axis0", "create": ["acc", {"axis": 0}] | "<json config string>" | ...,
     "batches": "scores", "steps": 4, "reset_local_at": 2, "seed": 3}

Result (:func:`run_metric_case`): ``"<step>/get"`` and ``"<step>/global"`` (the values
after each update, float64, NaN when nothing was seen), ``"<step>/names"``, the config
(``"config"``, JSON) where the metric has one, and for an error case ``"error"``: the
name of the exception type raised.
"""
import json

import numpy as np


# Batch makers: one step's [(labels, preds), ...] as NumPy arrays, one pair per output.
def _classes(rng, n=8, k=5):
    return rng.randint(0, k, n).astype(np.float32), rng.rand(n, k).astype(np.float32)


def _binary(rng, n=10):
    labels = rng.randint(0, 2, n).astype(np.float32)
    if rng.rand() < 0.3:                       # a batch of one class only
        labels[:] = labels[0]
    return labels, rng.rand(n, 2).astype(np.float32)


def _probabilities(rng, n=8, k=4):
    scores = rng.rand(n, k).astype(np.float32) + 0.05
    return rng.randint(0, k, n).astype(np.float32), scores / scores.sum(1, keepdims=True)


BATCHES = {
    'scores': lambda rng: [_classes(rng)],
    'indices': lambda rng: [(rng.randint(0, 4, 9).astype(np.float32),
                             rng.randint(0, 4, 9).astype(np.float32))],
    'scores_t': lambda rng: [(lab, pred.T.copy()) for lab, pred in [_classes(rng)]],
    'two_outputs': lambda rng: [_classes(rng), _classes(rng, 6, 3)],
    'binary': lambda rng: [_binary(rng)],
    'probs': lambda rng: [_probabilities(rng)],
    'probs_ignore': lambda rng: [(np.where(rng.rand(8) < 0.3, -1, lab).astype(np.float32), p)
                                 for lab, p in [_probabilities(rng)]],
    'regress_1d': lambda rng: [(rng.randn(7).astype(np.float32),
                                rng.randn(7).astype(np.float32))],
    'regress_2d': lambda rng: [(rng.randn(5, 3).astype(np.float32),
                                rng.randn(5, 3).astype(np.float32))],
    'regress_bcast': lambda rng: [(rng.randn(4).astype(np.float32),
                                   rng.randn(4, 2).astype(np.float32))],
    'correlated': lambda rng: [(lab, (lab + 0.5 * rng.randn(*lab.shape)).astype(np.float32))
                               for lab in [rng.randn(6, 2).astype(np.float32)]],
    'growing_classes': None,                   # filled in by _batches (depends on step)
    'losses': lambda rng: [(np.zeros(3, np.float32), rng.rand(3).astype(np.float32)),
                           (np.zeros(2, np.float32), rng.rand(2, 2).astype(np.float32))],
}


def _batches(kind, rng, step):
    if kind == 'growing_classes':   # PCC's confusion matrix grows with the classes seen
        k = 2 + step
        return [(rng.randint(0, k, 12).astype(np.float32), rng.rand(12, k).astype(np.float32))]
    return BATCHES[kind](rng)


def custom_sum_count(label, pred):
    """A CustomMetric function returning (sum, count)."""
    return float(np.abs(label - pred.reshape(label.shape)).sum()), label.size


def custom_scalar(label, pred):
    """A CustomMetric function returning one number per batch."""
    return float((label == pred.argmax(1)).mean())


FUNCTIONS = {'custom_sum_count': custom_sum_count, 'custom_scalar': custom_scalar}


def _case(case_id, create, batches, steps=4, reset_local_at=None, seed=0, **extra):
    case = {'id': case_id, 'create': create, 'batches': batches, 'steps': steps,
            'reset_local_at': reset_local_at, 'seed': seed}
    case.update(extra)
    return case


def metric_cases():
    """Every value case: each metric and option, through the names ``create`` knows."""
    cases = [
        _case('acc', 'acc', 'scores', reset_local_at=2),
        _case('accuracy-indices', 'accuracy', 'indices'),
        _case('acc-axis0', ['acc', {'axis': 0}], 'scores_t'),
        _case('acc-two-outputs', 'acc', 'two_outputs', reset_local_at=1),
        _case('top_k_acc-2', ['top_k_acc', {'top_k': 2}], 'scores', reset_local_at=2),
        _case('top_k_accuracy-3', ['top_k_accuracy', {'top_k': 3}], 'scores'),
        _case('topkaccuracy-5', ['topkaccuracy', {'top_k': 5}], 'scores'),
        _case('f1-macro', 'f1', 'binary', steps=6, reset_local_at=3),
        _case('f1-micro', ['f1', {'average': 'micro'}], 'binary', steps=6, reset_local_at=3),
        _case('mcc-macro', 'mcc', 'binary', steps=6, reset_local_at=3),
        _case('mcc-micro', ['mcc', {'average': 'micro'}], 'binary', steps=6, reset_local_at=3),
        _case('perplexity-none', ['perplexity', {'ignore_label': None}], 'probs',
              reset_local_at=2),
        _case('perplexity-ignore', ['perplexity', {'ignore_label': -1}], 'probs_ignore'),
        _case('perplexity-axis1', ['perplexity', {'ignore_label': 0, 'axis': 1}], 'probs'),
        _case('mae-1d', 'mae', 'regress_1d', reset_local_at=2),
        _case('mae-2d', 'mae', 'regress_2d'),
        _case('mse-1d', 'mse', 'regress_1d'),
        _case('mse-bcast', 'mse', 'regress_bcast'),
        _case('rmse-2d', 'rmse', 'regress_2d', reset_local_at=2),
        _case('ce', 'ce', 'probs', reset_local_at=2),
        _case('crossentropy-eps', ['crossentropy', {'eps': 1e-3}], 'probs'),
        _case('nll_loss', 'nll_loss', 'probs'),
        _case('negativeloglikelihood', ['negativeloglikelihood', {'eps': 0.1}], 'probs'),
        _case('pearsonr-macro', 'pearsonr', 'correlated', reset_local_at=2),
        _case('pearsoncorrelation-micro-local',
              ['pearsoncorrelation', {'average': 'micro'}], 'correlated', compare='local'),
        _case('pcc-growing', 'pcc', 'growing_classes', reset_local_at=2),
        _case('pcc-indices', 'pcc', 'indices'),
        _case('loss', 'loss', 'losses', reset_local_at=2),
        _case('torch', 'torch', 'losses'),
        _case('caffe', 'caffe', 'losses'),
        _case('np-sum-count', {'np': 'custom_sum_count'}, 'regress_1d', reset_local_at=2),
        _case('np-scalar', {'np': 'custom_scalar'}, 'scores'),
        _case('custommetric-extra-outputs', {'custom': 'custom_scalar',
                                             'allow_extra_outputs': True}, 'scores',
              extra_output=True),
        _case('create-function', {'function': 'custom_scalar'}, 'scores'),
        _case('composite-list', ['list', ['acc', 'ce', ['top_k_acc', {'top_k': 2}]]],
              'probs', reset_local_at=2),
        _case('composite-config', '{"metric": "composite", "metrics": ["acc", "mse"]}',
              'probs'),
        _case('json-list', '["acc", {"axis": 1, "name": "my_acc"}]', 'scores'),
        _case('json-dict', '{"metric": "mae", "name": "abs_err"}', 'regress_1d'),
    ]
    for i, case in enumerate(cases):
        case['seed'] = 100 + i
    return cases


def error_cases():
    """Bad input: ``(id, action)``; both sides must raise the same exception type."""
    return [{'id': name, 'action': name} for name in sorted(ERROR_ACTIONS)]


def _create(mx, spec):
    if isinstance(spec, dict) and 'np' in spec:
        return mx.metric.np(FUNCTIONS[spec['np']])
    if isinstance(spec, dict) and 'custom' in spec:
        return mx.metric.CustomMetric(FUNCTIONS[spec['custom']],
                                      allow_extra_outputs=spec['allow_extra_outputs'])
    if isinstance(spec, dict) and 'function' in spec:
        return mx.metric.create(FUNCTIONS[spec['function']])
    if isinstance(spec, list) and spec[0] == 'list':
        return mx.metric.create([_create(mx, s) if isinstance(s, list) else s
                                 for s in spec[1]])
    if isinstance(spec, list):
        return mx.metric.create(spec[0], **spec[1])
    return mx.metric.create(spec)


def _values(value):
    return np.array(value if isinstance(value, list) else [value], dtype=np.float64)


def run_metric_case(mx, case):
    """``{name: array}`` of one value case (see the module docstring)."""
    rng = np.random.RandomState(case['seed'])
    metric = _create(mx, case['create'])
    out = {}
    try:
        out['config'] = np.array(json.dumps(metric.get_config(), sort_keys=True))
    except NotImplementedError:
        out['config'] = np.array(json.dumps('get_config raises NotImplementedError'))
    out['initial/get'] = _values(metric.get()[1])
    for step in range(case['steps']):
        if step == case['reset_local_at']:
            metric.reset_local()
        pairs = _batches(case['batches'], rng, step)
        labels = [mx.nd.array(lab) for lab, _ in pairs]
        preds = [mx.nd.array(pred) for _, pred in pairs]
        if case.get('extra_output'):                # e.g. an RNN's states after its output
            preds.append(mx.nd.zeros((2, 2)))
        if case['create'] == 'loss' and step % 2:
            metric.update(None, preds[0])           # Loss takes a single NDArray too
        else:
            metric.update(labels, preds)
        name, value = metric.get()
        out['%d/names' % step] = np.array(json.dumps(name))
        out['%d/get' % step] = _values(value)
        if case.get('compare') != 'local':
            out['%d/global' % step] = _values(metric.get_global()[1])
        pairs = metric.get_name_value()
        out['%d/name_value_names' % step] = np.array(json.dumps([n for n, _ in pairs]))
        out['%d/name_value_values' % step] = _values([v for _, v in pairs])
    metric.reset()
    out['reset/get'] = _values(metric.get()[1])
    return out


def _update(metric_factory, labels, preds):
    def action(mx):
        nd = mx.nd
        metric_factory(mx).update([nd.array(x) for x in labels], [nd.array(x) for x in preds])
    return action


ERROR_ACTIONS = {
    'topk-1': lambda mx: mx.metric.TopKAccuracy(top_k=1),
    'topk-3d-preds': _update(lambda mx: mx.metric.TopKAccuracy(2), [[1.]], [np.ones((1, 2, 2))]),
    'topk-k-above-classes': _update(lambda mx: mx.metric.TopKAccuracy(7), [[1., 0.]],
                                    [np.random.RandomState(0).rand(2, 5)]),
    'f1-three-classes': _update(lambda mx: mx.metric.F1(), [[0., 1., 2.]], [np.ones((3, 3))]),
    'mcc-three-classes': _update(lambda mx: mx.metric.MCC(), [[0., 1., 2.]], [np.ones((3, 3))]),
    'acc-list-lengths': _update(lambda mx: mx.metric.Accuracy(), [[1.], [0.]], [np.ones((1, 2))]),
    'acc-sizes': _update(lambda mx: mx.metric.Accuracy(), [[1., 0., 1.]], [np.ones((2, 2))]),
    'perplexity-no-ignore-label': lambda mx: mx.metric.Perplexity(),
    'perplexity-sizes': _update(lambda mx: mx.metric.Perplexity(None), [[0., 1., 2.]],
                                [np.ones((2, 3))]),
    'perplexity-axis0': _update(lambda mx: mx.metric.Perplexity(None, axis=0), [[0., 1., 0.]],
                                [np.full((3, 2), 0.5)]),
    'ce-sizes': _update(lambda mx: mx.metric.CrossEntropy(), [[0., 1., 2.]], [np.ones((2, 3))]),
    'nll-sizes': _update(lambda mx: mx.metric.NegativeLogLikelihood(), [[0., 1.]],
                         [np.ones((3, 3))]),
    'pearsonr-shapes': _update(lambda mx: mx.metric.PearsonCorrelation(), [[0., 1., 2.]],
                               [np.ones((3, 1))]),
    'mae-list-lengths': _update(lambda mx: mx.metric.MAE(), [[1.]], []),
    'create-unknown': lambda mx: mx.metric.create('no-such-metric'),
    'create-number': lambda mx: mx.metric.create(42),
    'create-instance-with-args': lambda mx: mx.metric.create(mx.metric.Accuracy(), 3),
    'custom-config': lambda mx: mx.metric.CustomMetric(custom_scalar).get_config(),
    'update-dict-missing-name': lambda mx: mx.metric.Accuracy(output_names=['p']).update_dict(
        {'label': mx.nd.array([1.])}, {'q': mx.nd.array([[0., 1.]])}),
    'register-non-metric': lambda mx: mx.metric.register(dict),
}


def run_error_case(mx, case):
    """``{'error': type name}`` of the exception ``case``'s action raises ('none' if none)."""
    try:
        ERROR_ACTIONS[case['action']](mx)
    except Exception as exc:  # the type is the result
        return {'error': np.array(type(exc).__name__)}
    return {'error': np.array('none')}
