"""mx.metric: documented values, the registry, local/global totals, and where gluonedu
deliberately differs from MXNet 1.9.1 (docs/divergences.md). Parity with MXNet, update by
update and error by error, is in tests/parity/metric/test_metric_parity.py."""
import math
import warnings

import numpy as np
import pytest

import gluonedu as mx
from gluonedu import nd

PROBS = [nd.array([[0.3, 0.7], [0, 1.], [0.4, 0.6]])]
LABELS = [nd.array([0, 1, 1])]
REG_PRED = [nd.array(np.array([3, -0.5, 2, 7]).reshape(4, 1))]
REG_LABEL = [nd.array(np.array([2.5, 0.0, 2, 8]).reshape(4, 1))]


@pytest.mark.parametrize('metric, labels, preds, expected', [
    (mx.metric.Accuracy(), LABELS, PROBS, 2 / 3),
    (mx.metric.F1(), LABELS, PROBS, 0.8),
    (mx.metric.Perplexity(ignore_label=None), LABELS, PROBS, 1.7710976285155853),
    (mx.metric.MAE(), REG_LABEL, REG_PRED, 0.5),
    (mx.metric.MSE(), REG_LABEL, REG_PRED, 0.375),
    (mx.metric.RMSE(), REG_LABEL, REG_PRED, 0.612372457981),
    (mx.metric.CrossEntropy(), LABELS, PROBS, 0.57159948348999023),
    (mx.metric.NegativeLogLikelihood(), LABELS, PROBS, 0.57159948348999023),
    (mx.metric.PearsonCorrelation(), [nd.array([[1, 0], [0, 1], [0, 1]])], PROBS,
     0.42163704544016178),
    (mx.metric.CustomMetric(lambda x, y: (x + y).mean()), REG_LABEL, REG_PRED, 6.0),
])
def test_the_documented_examples(metric, labels, preds, expected):
    """The values of the examples in MXNet's docstrings."""
    assert math.isnan(metric.get()[1])
    metric.update(labels, preds)
    assert metric.get()[1] == pytest.approx(expected, rel=1e-6)
    assert isinstance(metric.get()[1], float)


def test_mcc_and_pcc_see_a_classifier_that_always_says_yes():
    fp, fn, tp, tn = 1000, 1, 10000, 1
    preds = [nd.array([[.3, .7]] * fp + [[.7, .3]] * tn + [[.7, .3]] * fn + [[.3, .7]] * tp)]
    labels = [nd.array([0.] * (fp + tn) + [1.] * (fn + tp))]
    f1, mcc, pcc = mx.metric.F1(), mx.metric.MCC(), mx.metric.PCC()
    for metric in (f1, mcc, pcc):
        metric.update(labels=labels, preds=preds)
    assert f1.get()[1] == pytest.approx(0.95233560306652054)
    assert mcc.get()[1] == pytest.approx(0.01917751877733392)
    assert pcc.get()[1] == pytest.approx(0.01917751877733392)


def test_local_and_global_totals():
    acc = mx.metric.Accuracy()
    acc.update([nd.array([0, 1])], [nd.array([[1, 0], [1, 0]])])    # 1 of 2
    acc.reset_local()
    assert math.isnan(acc.get()[1]) and acc.get_global() == ('accuracy', 0.5)
    acc.update([nd.array([0, 1])], [nd.array([[1, 0], [0, 1]])])    # 2 of 2
    assert acc.get() == ('accuracy', 1.0) and acc.get_global() == ('accuracy', 0.75)
    assert (acc.num_inst, acc.global_num_inst) == (2, 4)
    assert acc.get_name_value() == [('accuracy', 1.0)]
    assert acc.get_global_name_value() == [('accuracy', 0.75)]
    assert str(acc) == "EvalMetric: {'accuracy': 1.0}"
    acc.reset()
    assert math.isnan(acc.get_global()[1])


def test_composite_returns_lists_and_passes_named_arrays_on():
    composite = mx.metric.create(['acc', 'ce'])
    assert isinstance(composite, mx.metric.CompositeEvalMetric)
    composite.update(LABELS, PROBS)
    names, values = composite.get()
    assert names == ['accuracy', 'cross-entropy']
    assert values == pytest.approx([2 / 3, 0.5715994834])
    assert composite.get_metric(1).name == 'cross-entropy'
    assert composite.get_name_value()[0] == ('accuracy', pytest.approx(2 / 3))
    named = mx.metric.CompositeEvalMetric([mx.metric.Accuracy()], output_names=['out'],
                                          label_names=['lab'])
    named.update_dict({'lab': LABELS[0], 'other': nd.array([9, 9, 9])},
                      {'out': PROBS[0], 'junk': nd.zeros((3, 2))})
    assert named.get() == (['accuracy'], [pytest.approx(2 / 3)])


def test_create_and_get_config_round_trip():
    for metric in (mx.metric.F1(average='micro'), mx.metric.CrossEntropy(eps=1e-3),
                   mx.metric.Accuracy(axis=0, name='a0'), mx.metric.create(['acc', 'mse'])):
        config = metric.get_config()
        again = mx.metric.create(config)
        assert type(again) is type(metric) and again.get_config() == config
    assert mx.metric.create('top_k_acc', top_k=2).name == 'top_k_accuracy_2'
    assert mx.metric.create('ACC').name == 'accuracy'             # case-insensitive
    acc = mx.metric.Accuracy()
    assert mx.metric.create(acc) is acc


def test_numpy_function_metrics():
    def mean_abs(label, pred):
        return np.abs(label - pred).mean()
    metric = mx.metric.np(mean_abs)
    assert metric.name == 'mean_abs'
    metric.update(REG_LABEL, REG_PRED)
    assert metric.get() == ('mean_abs', 0.5)
    by_create = mx.metric.create(mean_abs, name='mae_by_hand')
    assert isinstance(by_create, mx.metric.CustomMetric) and by_create.name == 'mae_by_hand'
    assert mx.metric.np(lambda label, pred: 0.0).name == 'custom(<lambda>)'


def test_register_and_alias_a_new_metric():
    @mx.metric.register
    @mx.metric.alias('halves_for_test')
    class Halves(mx.metric.EvalMetric):
        def __init__(self, name='halves'):
            super().__init__(name)

        def update(self, labels, preds):
            self.sum_metric += 0.5
            self.num_inst += 1

    metric = mx.metric.create('halves_for_test')
    metric.update(None, None)
    assert metric.get() == ('halves', 0.5) and metric.get_global() == ('halves', 0.5)
    assert isinstance(mx.metric.create('halves'), Halves)
    with pytest.warns(UserWarning, match='overriding'):
        mx.metric.register(Halves)


def test_numpy_arrays_are_accepted_as_well_as_ndarrays():
    acc = mx.metric.Accuracy()
    acc.update(np.array([0, 1, 1]), np.array([[0.3, 0.7], [0, 1.], [0.4, 0.6]]))
    assert acc.get()[1] == pytest.approx(2 / 3)


def test_nothing_seen_gives_nan_everywhere():
    for name in ('acc', 'f1', 'mcc', 'mae', 'mse', 'rmse', 'ce', 'nll_loss', 'pearsonr',
                 'pcc', 'loss'):
        metric = mx.metric.create(name)
        assert math.isnan(metric.get()[1]) and math.isnan(metric.get_global()[1]), name
    assert math.isnan(mx.metric.Perplexity(None).get()[1])
    assert mx.metric.CompositeEvalMetric().get() == ([], [])


# ------------------------------------------------------------------ divergences
def test_get_metric_out_of_range_raises():
    """MXNet 1.9.1 returns the ValueError instead of raising it (docs/divergences.md)."""
    with pytest.raises(ValueError, match='out of range'):
        mx.metric.CompositeEvalMetric(['acc']).get_metric(1)


def test_pearson_micro_global_value_is_the_correlation():
    """MXNet 1.9.1's micro get_global() is always 0.0 (docs/divergences.md)."""
    rng = np.random.RandomState(0)
    label = rng.randn(40)
    pred = label + 0.5 * rng.randn(40)
    micro = mx.metric.PearsonCorrelation(average='micro')
    for part in np.split(np.arange(40), 4):
        micro.update([nd.array(label[part])], [nd.array(pred[part])])
    reference = np.corrcoef(label.astype(np.float32), pred.astype(np.float32))[0, 1]
    assert micro.get()[1] == pytest.approx(reference, rel=1e-4)
    assert micro.get_global() == micro.get()


def test_top_k_on_one_dimensional_predictions_counts_globally_too():
    """MXNet 1.9.1 adds the 1-D case to the local totals only (docs/divergences.md)."""
    topk = mx.metric.TopKAccuracy(top_k=3)
    topk.update([nd.array([2, 0, 1, 3, 1])], [nd.array([0.1, 0.5, 0.3, 0.9, 0.2])])
    assert topk.num_inst == topk.global_num_inst == 5
    assert topk.get_global() == topk.get()


def test_no_warning_when_creating_builtin_metrics():
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        mx.metric.create(['acc', 'f1', 'mcc', 'pcc', 'pearsonr', 'loss'])
