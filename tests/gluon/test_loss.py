"""Losses against their formulas computed in float64 NumPy, and their gradients against
central finite differences. Reference numbers were cross-checked with MXNet 1.9.1."""
import numpy as np
import pytest

import gluonedu as mx
from gluonedu import autograd, gluon, nd
from gluonedu.gluon import loss as gloss

RNG = np.random.default_rng(7)
PRED = RNG.standard_normal((4, 3)) * 3          # logits, some large
TARGET = RNG.uniform(size=(4, 3))               # regression / probability targets
SPARSE = np.array([0, 2, 1, 2])                 # class indices
SAMPLE_W = RNG.uniform(size=(4, 1))
POS_W = RNG.uniform(0.5, 2.0, size=(1, 3))


def f32(a):
    return nd.array(a, dtype='float32')


def f64(a):
    return nd.array(a, dtype='float64')


def log_softmax(x, axis=-1):
    shifted = x - x.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def assert_close(result, expected, rtol=1e-5, atol=1e-6):
    assert isinstance(result, nd.NDArray)
    assert result.shape == expected.shape
    np.testing.assert_allclose(result.asnumpy(), expected, rtol=rtol, atol=atol)


# ---------------------------------------------------------------------- values
def test_l2_loss_is_half_squared_error_meaned_per_sample():
    expected = (0.5 * (TARGET - PRED) ** 2).mean(axis=1)
    assert_close(gloss.L2Loss()(f32(PRED), f32(TARGET)), expected)


def test_l2_loss_reshapes_label_and_applies_weight_and_sample_weight():
    expected = (3.0 / 2 * (TARGET - PRED) ** 2 * SAMPLE_W).mean(axis=1)
    out = gloss.L2Loss(weight=3.)(f32(PRED), f32(TARGET.reshape(12)), f32(SAMPLE_W))
    assert_close(out, expected)


def test_l1_loss_default_weight_is_none_and_weight_scales():
    assert gloss.L1Loss()._weight is None
    assert_close(gloss.L1Loss()(f32(PRED), f32(TARGET)), np.abs(TARGET - PRED).mean(axis=1))
    assert_close(gloss.L1Loss(weight=0.5)(f32(PRED), f32(TARGET), f32(SAMPLE_W)),
                 (0.5 * np.abs(TARGET - PRED) * SAMPLE_W).mean(axis=1))


def test_softmax_ce_sparse_label_picks_minus_log_probability():
    expected = -log_softmax(PRED)[np.arange(4), SPARSE]
    assert_close(gloss.SoftmaxCrossEntropyLoss()(f32(PRED), f32(SPARSE)), expected)
    # the alias is the same class
    assert gloss.SoftmaxCELoss is gloss.SoftmaxCrossEntropyLoss


def test_softmax_ce_sample_weight_weighs_each_sample():
    expected = -log_softmax(PRED)[np.arange(4), SPARSE] * SAMPLE_W[:, 0] * 2.0
    out = gloss.SoftmaxCELoss(weight=2.)(f32(PRED), f32(SPARSE), f32(SAMPLE_W))
    assert_close(out, expected)


def test_softmax_ce_dense_label_is_minus_sum_label_times_log_probability():
    expected = -(TARGET * log_softmax(PRED)).sum(axis=1)
    assert_close(gloss.SoftmaxCELoss(sparse_label=False)(f32(PRED), f32(TARGET)), expected)


def test_softmax_ce_from_logits_uses_pred_as_log_probabilities():
    expected = -PRED[np.arange(4), SPARSE]
    assert_close(gloss.SoftmaxCELoss(from_logits=True)(f32(PRED), f32(SPARSE)), expected)


def test_softmax_ce_class_axis_and_batch_axis():
    # pred (classes=4, batch=3): softmax over axis 0, one loss per column.
    labels = np.array([0, 3, 1])
    expected = -log_softmax(PRED, axis=0)[labels, np.arange(3)]
    out = gloss.SoftmaxCELoss(axis=0, batch_axis=1)(f32(PRED), f32(labels))
    assert_close(out, expected)


def test_sigmoid_bce_matches_the_textbook_formula():
    p = sigmoid(PRED)
    expected = -(TARGET * np.log(p) + (1 - TARGET) * np.log(1 - p)).mean(axis=1)
    assert_close(gloss.SigmoidBinaryCrossEntropyLoss()(f32(PRED), f32(TARGET)), expected)
    assert gloss.SigmoidBCELoss is gloss.SigmoidBinaryCrossEntropyLoss


def test_sigmoid_bce_is_stable_for_huge_logits():
    pred = np.array([[1000., -1000.]])
    label = np.array([[0., 1.]])
    out = gloss.SigmoidBCELoss()(f32(pred), f32(label)).asnumpy()
    assert np.isfinite(out).all()
    np.testing.assert_allclose(out, [1000.], rtol=1e-6)


def test_sigmoid_bce_pos_weight_weighs_the_positive_term():
    p = sigmoid(PRED)
    expected = -(POS_W * TARGET * np.log(p) + (1 - TARGET) * np.log(1 - p)).mean(axis=1)
    out = gloss.SigmoidBCELoss()(f32(PRED), f32(TARGET), None, f32(POS_W))
    assert_close(out, expected, rtol=1e-5, atol=1e-5)


def test_sigmoid_bce_from_sigmoid_with_sample_weight_and_pos_weight():
    p = sigmoid(PRED)
    eps = 1e-12
    expected = -(POS_W * TARGET * np.log(p + eps) + (1 - TARGET) * np.log(1 - p + eps))
    expected = (expected * SAMPLE_W).mean(axis=1)
    out = gloss.SigmoidBCELoss(from_sigmoid=True)(f32(p), f32(TARGET), f32(SAMPLE_W),
                                                  f32(POS_W))
    assert_close(out, expected, rtol=1e-5, atol=1e-5)


def test_kl_div_loss_sums_over_classes():
    label = TARGET / TARGET.sum(axis=1, keepdims=True)
    expected = (label * (np.log(label + 1e-12) - log_softmax(PRED))).sum(axis=1)
    assert_close(gloss.KLDivLoss(from_logits=False)(f32(PRED), f32(label)), expected)


def test_huber_hinge_and_logistic_losses():
    d = np.abs(TARGET - PRED)
    huber = np.where(d > 2, d - 1, d ** 2 / 4).mean(axis=1)
    assert_close(gloss.HuberLoss(rho=2)(f32(PRED), f32(TARGET)), huber)
    signs = np.where(TARGET > 0.5, 1., -1.)
    assert_close(gloss.HingeLoss()(f32(PRED), f32(signs)),
                 np.maximum(0, 1 - PRED * signs).mean(axis=1))
    assert_close(gloss.SquaredHingeLoss(margin=2)(f32(PRED), f32(signs)),
                 (np.maximum(0, 2 - PRED * signs) ** 2).mean(axis=1), rtol=1e-5)
    assert_close(gloss.LogisticLoss()(f32(PRED), f32(signs)),
                 np.log1p(np.exp(-PRED * signs)).mean(axis=1))
    assert_close(gloss.LogisticLoss(label_format='binary')(f32(PRED), f32((signs + 1) / 2)),
                 np.log1p(np.exp(-PRED * signs)).mean(axis=1))
    with pytest.raises(ValueError):
        gloss.LogisticLoss(label_format='0/1')


def test_batch_axis_keeps_that_axis_and_means_the_others():
    pred = RNG.standard_normal((2, 3, 4))
    out = gloss.L2Loss(batch_axis=1)(f32(pred), f32(np.zeros_like(pred)))
    assert_close(out, (0.5 * pred ** 2).mean(axis=(0, 2)))


def test_one_dimensional_loss_is_returned_per_sample():
    pred, label = RNG.standard_normal(5), RNG.standard_normal(5)
    assert_close(gloss.L1Loss()(f32(pred), f32(label)), np.abs(pred - label))


def test_weight_must_be_a_number():
    with pytest.raises(AssertionError):
        gloss.L1Loss(weight=f32([2.]))(f32(PRED), f32(TARGET))


# ---------------------------------------------------------------------- blocks
def test_losses_are_hybrid_blocks_with_mxnet_repr():
    loss = gloss.SoftmaxCELoss(weight=2.)
    assert isinstance(loss, gluon.HybridBlock)
    assert isinstance(loss, gloss.Loss)
    assert repr(gloss.L2Loss()) == 'L2Loss(batch_axis=0, w=1.0)'
    assert repr(loss) == 'SoftmaxCrossEntropyLoss(batch_axis=0, w=2.0)'
    assert len(loss.collect_params()) == 0


def test_call_equals_hybrid_forward_with_the_ndarray_module():
    loss = gloss.SigmoidBCELoss()
    direct = loss.hybrid_forward(nd, f32(PRED), f32(TARGET))
    np.testing.assert_array_equal(loss(f32(PRED), f32(TARGET)).asnumpy(), direct.asnumpy())


def test_hybridized_loss_gives_the_same_values():
    loss = gloss.SoftmaxCELoss()
    eager = loss(f32(PRED), f32(SPARSE)).asnumpy()
    loss.hybridize()
    np.testing.assert_array_equal(loss(f32(PRED), f32(SPARSE)).asnumpy(), eager)


def test_loss_base_class_requires_hybrid_forward():
    with pytest.raises(NotImplementedError):
        gloss.Loss(None, 0)(f32(PRED), f32(TARGET))


def test_loss_follows_the_inputs_context():
    out = gloss.L2Loss()(f32(PRED).as_in_context(mx.cpu(1)),
                         f32(TARGET).as_in_context(mx.cpu(1)))
    assert out.context == mx.cpu(1)


# ---------------------------------------------------------------------- gradients
def numeric_grad(fn, x, h=1e-6):
    """Central differences of sum(fn(x)) with respect to the float64 array x."""
    grad = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        plus, minus = x.copy(), x.copy()
        plus[idx] += h
        minus[idx] -= h
        grad[idx] = (fn(plus).sum() - fn(minus).sum()) / (2 * h)
    return grad


GRAD_CASES = [
    ('l2', lambda: gloss.L2Loss(weight=3.), lambda: (f64(TARGET), f64(SAMPLE_W))),
    ('l1', lambda: gloss.L1Loss(), lambda: (f64(TARGET),)),
    ('sce', lambda: gloss.SoftmaxCELoss(), lambda: (f64(SPARSE), f64(SAMPLE_W))),
    ('sce_dense', lambda: gloss.SoftmaxCELoss(sparse_label=False), lambda: (f64(TARGET),)),
    ('bce', lambda: gloss.SigmoidBCELoss(weight=0.7), lambda: (f64(TARGET),)),
    ('bce_pos', lambda: gloss.SigmoidBCELoss(), lambda: (f64(TARGET), None, f64(POS_W))),
    ('huber', lambda: gloss.HuberLoss(), lambda: (f64(TARGET),)),
]


@pytest.mark.parametrize('name,make_loss,make_args', GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_gradient_matches_finite_differences(name, make_loss, make_args):
    loss = make_loss()
    args = make_args()
    x = f64(PRED)
    x.attach_grad()
    with autograd.record():
        out = loss(x, *args)
    out.backward()
    expected = numeric_grad(lambda v: loss(f64(v), *args).asnumpy(), PRED.copy())
    np.testing.assert_allclose(x.grad.asnumpy(), expected, rtol=1e-5, atol=1e-7)


def test_softmax_ce_gradient_is_softmax_minus_one_hot():
    x = f32(PRED)
    x.attach_grad()
    with autograd.record():
        out = gloss.SoftmaxCELoss()(x, f32(SPARSE))
    out.backward()
    expected = np.exp(log_softmax(PRED)) - np.eye(3)[SPARSE]
    np.testing.assert_allclose(x.grad.asnumpy(), expected, rtol=1e-5, atol=1e-6)
