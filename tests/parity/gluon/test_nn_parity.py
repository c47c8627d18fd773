"""Convolution, pooling, normalization and their Gluon layers against MXNet 1.9.1.

Every case of :mod:`nn_driver` runs the same code on both sides:

* operators (Convolution and Deconvolution 1-D/2-D/3-D with random shapes, strides,
  pads, dilations and groups; Pooling max/avg/sum/lp, valid/full, global, both layouts;
  BatchNorm in training and inference; LayerNorm, InstanceNorm, GroupNorm,
  L2Normalization, LeakyReLU's act types, UpSampling, pad): the outputs and the
  gradients of every input after one backward pass with a seeded head gradient, and
  BatchNorm's running statistics after it;
* bad input (a kernel larger than the padded input, a channel mismatch, an unknown
  layout, a wrong number of dimensions, ...): both sides raise; ours is MXNetError and
  its message names the shapes;
* Gluon layers: parameter names, shapes and grad_req before and after deferred
  initialisation, reprs, outputs and gradients;
* the model zoo: every model's parameter names and shapes, and the outputs of the small
  ones.

Exact cases use dyadic inputs (multiples of 1/4), exact in float32 whatever the order of
the additions: they must match bit for bit. The others: rtol 1e-5 with atol 1e-5 × the
array's largest magnitude (float32 sums in another order). Where MXNet 1.9.1's gradient
is wrong (docs/divergences.md), gradients are not compared here;
tests/ndarray/test_nn_ops_grad.py checks ours against finite differences. All cases go
to the oracle in ONE subprocess; without it the tests skip (fail in CI).
"""
import json
from pathlib import Path

import numpy as np
import pytest

import nn_driver
from harness import oracle_case_arrays, run_oracle

ZOO_NAMES = sorted([
    'resnet18_v1', 'resnet34_v1', 'resnet50_v1', 'resnet101_v1', 'resnet152_v1',
    'resnet18_v2', 'resnet34_v2', 'resnet50_v2', 'resnet101_v2', 'resnet152_v2',
    'vgg11', 'vgg13', 'vgg16', 'vgg19', 'vgg11_bn', 'vgg13_bn', 'vgg16_bn', 'vgg19_bn',
    'alexnet', 'densenet121', 'densenet161', 'densenet169', 'densenet201', 'squeezenet1.0',
    'squeezenet1.1', 'inceptionv3', 'mobilenet1.0', 'mobilenet0.75', 'mobilenet0.5',
    'mobilenet0.25', 'mobilenetv2_1.0', 'mobilenetv2_0.75', 'mobilenetv2_0.5',
    'mobilenetv2_0.25'])
# Through JSON, as the oracle gets them (tuples become lists on both sides).
OP_CASES = json.loads(json.dumps(nn_driver.op_cases()))
LAYER_CASES = json.loads(json.dumps(nn_driver.layer_cases()))
ZOO_CASES = json.loads(json.dumps(nn_driver.zoo_cases(ZOO_NAMES)))
ORACLE_SCRIPT = Path(__file__).with_name('oracle_nn_mxnet.py')


@pytest.fixture(scope='module')
def nn_oracle(tmp_path_factory):
    """``(arrays by "<id>|<name>", meta)`` of every case, run once on MXNet 1.9.1."""
    return run_oracle(ORACLE_SCRIPT, tmp_path_factory.mktemp('mxnet_nn_oracle'),
                      cases=OP_CASES + LAYER_CASES + ZOO_CASES)


def _split(arrays):
    """``(arrays, info)``: the case's arrays and its decoded ``info`` entry."""
    arrays = dict(arrays)
    return arrays, json.loads(str(arrays.pop('info')))


def _assert_close(case, name, ours, theirs):
    assert ours.shape == theirs.shape, '%s: %s has shape %s, MXNet %s' % (
        case['id'], name, ours.shape, theirs.shape)
    assert ours.dtype == theirs.dtype, '%s: %s has dtype %s, MXNet %s' % (
        case['id'], name, ours.dtype, theirs.dtype)
    message = '%s: %s differs from MXNet 1.9.1' % (case['id'], name)
    if case.get('exact'):
        np.testing.assert_array_equal(ours, theirs, err_msg=message)
    else:
        scale = float(np.abs(theirs).max()) if theirs.size else 1.0
        tol = 2e-3 if theirs.dtype == np.float16 else 1e-5   # float16: about one ulp
        np.testing.assert_allclose(ours, theirs, rtol=tol, atol=tol * max(1.0, scale),
                                   err_msg=message)


def _compare_arrays(case, ours, theirs):
    skipped = {k for k in theirs if case.get('divergent_grads') and 'grad' in k}
    assert sorted(set(ours) - skipped) == sorted(set(theirs) - skipped)
    for name in sorted(set(theirs) - skipped):
        _assert_close(case, name, ours[name], theirs[name])


def _run_ours(case):
    import gluonedu
    return _split(nn_driver.run_case(gluonedu, case))


@pytest.mark.parametrize('case', [c for c in OP_CASES if not c.get('error')],
                         ids=lambda c: c['id'])
def test_operator_matches_mxnet(case, nn_oracle):
    theirs, _ = _split(oracle_case_arrays(*nn_oracle, case['id']))
    ours, _ = _run_ours(case)
    _compare_arrays(case, ours, theirs)


@pytest.mark.parametrize('case', [c for c in OP_CASES if c.get('error')], ids=lambda c: c['id'])
def test_bad_input_raises_as_mxnet(case, nn_oracle):
    import gluonedu
    _, meta = nn_oracle
    assert case['id'] in meta['errors'], 'MXNet 1.9.1 accepted %s' % case['id']
    assert meta['errors'][case['id']]['type'] == 'MXNetError'
    with pytest.raises(gluonedu.base.MXNetError) as raised:
        nn_driver.run_case(gluonedu, case)
    for text in case['error']:
        assert text in str(raised.value), '%r not in our message %r' % (text, str(raised.value))


@pytest.mark.parametrize('case', LAYER_CASES + ZOO_CASES, ids=lambda c: c['id'])
def test_layer_matches_mxnet(case, nn_oracle):
    theirs, info = _split(oracle_case_arrays(*nn_oracle, case['id']))
    ours, our_info = _run_ours(case)
    for key in ('params_before', 'params_after', 'repr_before', 'repr_after'):
        assert our_info.get(key) == info.get(key), '%s: %s' % (case['id'], key)
    _compare_arrays(case, ours, theirs)
