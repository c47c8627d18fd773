"""The layer operators' contract beyond their numbers: declarations, BatchNorm's running
statistics, rrelu's randomness, errors, and the GPU path (skipped without a GPU)."""
import inspect

import numpy as np
import pytest

import gluonedu as mx
from gluonedu import autograd, nd
from gluonedu.base import MXNetError


# ---------------------------------------------------------------------- declarations
def test_operator_signature_and_docstring_come_from_the_declaration():
    sig = inspect.signature(nd.Convolution)
    assert list(sig.parameters)[:3] == ['data', 'weight', 'bias']
    assert sig.parameters['num_group'].default == 1
    assert sig.parameters['workspace'].default == 1024
    assert nd.Convolution.op.params['kernel'].required  # shown as REQUIRED in the signature
    assert inspect.signature(nd.Deconvolution).parameters['no_bias'].default is True
    assert 'num_filter : int (non-negative), required' in nd.Convolution.__doc__
    assert "pool_type : {'avg', 'lp', 'max', 'sum'}" in nd.Pooling.__doc__
    assert nd.Pad.op is nd.pad.op  # one operator, two names
    assert nd.Convolution.declaration.inputs == ('data', 'weight', 'bias')


@pytest.mark.parametrize('kwargs,text', [
    (dict(kernel=(2, 2), num_filter=2, no_bias=True, stride=(1, 'a')), 'stride'),
    (dict(kernel=(2, 2), num_filter=2.5, no_bias=True), 'num_filter'),
    (dict(kernel=(2, 2), num_filter=2, no_bias=True, cudnn_tune='best'), 'cudnn_tune'),
    (dict(kernel=(2, 2), num_filter=2, no_bias='maybe'), 'no_bias'),
])
def test_bad_parameter_values_raise_mxnet_error(kwargs, text):
    x, w = nd.ones((1, 1, 3, 3)), nd.ones((2, 1, 2, 2))
    with pytest.raises(MXNetError, match=text):
        nd.Convolution(x, w, **kwargs)


def test_inputs_by_keyword_and_out():
    x, w = nd.ones((1, 1, 3, 3)), nd.ones((2, 1, 2, 2))
    out = nd.zeros((1, 2, 2, 2))
    result = nd.Convolution(data=x, weight=w, kernel=(2, 2), num_filter=2, no_bias=True,
                            out=out)
    assert result is out
    np.testing.assert_array_equal(out.asnumpy(), np.full((1, 2, 2, 2), 4.0))


def test_out_with_several_outputs_is_refused():
    x = nd.ones((2, 3))
    with pytest.raises(MXNetError, match='out='):
        nd.LayerNorm(x, nd.ones(3), nd.zeros(3), output_mean_var=True, out=nd.zeros((2, 3)))


def test_non_ndarray_input_is_a_type_error():
    with pytest.raises(TypeError, match='NDArray'):
        nd.Pooling(np.ones((1, 1, 4, 4)), kernel=(2, 2))


def test_pooling_same_convention_is_refused():
    with pytest.raises(MXNetError, match="'same'"):
        nd.Pooling(nd.ones((1, 1, 5)), kernel=(3,), pooling_convention='same')


def test_pooling_defaults_stride_one_and_global_ignores_kernel():
    x = nd.array(np.arange(16.0).reshape(1, 1, 4, 4))
    assert nd.Pooling(x, kernel=(2, 2)).shape == (1, 1, 3, 3)
    y = nd.Pooling(x, kernel=(3, 3), global_pool=True, pool_type='avg')
    np.testing.assert_allclose(y.asnumpy().ravel(), [7.5])


# ---------------------------------------------------------------------- BatchNorm
def _bn_inputs(seed=0):
    rng = np.random.RandomState(seed)
    x = nd.array(rng.standard_normal((8, 3, 4)))
    gamma, beta = nd.array([1.5, 0.5, 2.0]), nd.array([0.1, 0.0, -0.2])
    return x, gamma, beta, nd.zeros(3), nd.ones(3)


def test_batch_norm_running_statistics_move_during_backward_only():
    x, gamma, beta, mean, var = _bn_inputs()
    x.attach_grad()
    with autograd.record():
        y = nd.BatchNorm(x, gamma, beta, mean, var, fix_gamma=False, momentum=0.9)
    np.testing.assert_array_equal(mean.asnumpy(), 0)  # forward alone: unchanged
    y.backward()
    batch = x.asnumpy()
    np.testing.assert_allclose(mean.asnumpy(), 0.1 * batch.mean(axis=(0, 2)), rtol=1e-5)
    np.testing.assert_allclose(var.asnumpy(), 0.9 + 0.1 * batch.var(axis=(0, 2)), rtol=1e-5)


def test_batch_norm_predict_mode_uses_and_keeps_the_running_statistics():
    x, gamma, beta, mean, var = _bn_inputs()
    mean[:] = nd.array([0.5, -0.5, 0.0])
    y = nd.BatchNorm(x, gamma, beta, mean, var, fix_gamma=False, eps=1e-3)
    expected = ((x.asnumpy() - mean.asnumpy()[:, None]) / np.sqrt(var.asnumpy()[:, None] + 1e-3)
                * gamma.asnumpy()[:, None] + beta.asnumpy()[:, None])
    np.testing.assert_allclose(y.asnumpy(), expected, rtol=1e-5)
    x.attach_grad()
    with autograd.record():
        y = nd.BatchNorm(x, gamma, beta, mean, var, fix_gamma=False, use_global_stats=True)
    y.backward()
    np.testing.assert_allclose(mean.asnumpy(), [0.5, -0.5, 0.0])


def test_batch_norm_fix_gamma_uses_ones_and_writes_them():
    x, gamma, beta, mean, var = _bn_inputs()
    gamma.attach_grad()
    with autograd.record():
        y = nd.BatchNorm(x, gamma, beta, mean, var)  # fix_gamma=True by default, as MXNet
    y.backward()
    np.testing.assert_array_equal(gamma.asnumpy(), 1)
    np.testing.assert_array_equal(gamma.grad.asnumpy(), 0)
    np.testing.assert_allclose(y.asnumpy().mean(axis=(0, 2)), beta.asnumpy(), atol=1e-6)


def test_batch_norm_output_mean_var_gives_mean_and_inverse_std():
    x, gamma, beta, mean, var = _bn_inputs()
    with autograd.record():
        y, batch_mean, inv_std = nd.BatchNorm(x, gamma, beta, mean, var, output_mean_var=True)
    np.testing.assert_allclose(batch_mean.asnumpy(), x.asnumpy().mean(axis=(0, 2)), rtol=1e-5)
    np.testing.assert_allclose(inv_std.asnumpy(),
                               1 / np.sqrt(x.asnumpy().var(axis=(0, 2)) + 1e-3), rtol=1e-5)


# ---------------------------------------------------------------------- rrelu
def test_rrelu_draws_seeded_slopes_in_training_and_averages_them_otherwise():
    x = nd.array(-np.ones((4, 5)))
    out, slopes = nd.LeakyReLU(x, act_type='rrelu', lower_bound=0.1, upper_bound=0.3)
    np.testing.assert_allclose(slopes.asnumpy(), 0.2)
    np.testing.assert_allclose(out.asnumpy(), -0.2)
    draws = []
    for _ in range(2):
        mx.random.seed(7)
        with autograd.train_mode():
            draws.append(nd.LeakyReLU(x, act_type='rrelu', lower_bound=0.1,
                                      upper_bound=0.3)[1].asnumpy())
    np.testing.assert_array_equal(draws[0], draws[1])
    assert 0.1 <= draws[0].min() and draws[0].max() <= 0.3 and draws[0].std() > 0


# ---------------------------------------------------------------------- GPU
def _gpu_or_skip():
    if mx.context.num_gpus() == 0:
        pytest.skip('needs a GPU with CuPy (pip install -e ".[gpu]"); none on this machine')


@pytest.mark.parametrize('op', ['Convolution', 'Pooling', 'BatchNorm'])
def test_gpu_gives_the_cpu_results(op):
    _gpu_or_skip()
    rng = np.random.RandomState(0)
    host = [rng.standard_normal((2, 3, 6, 5)), rng.standard_normal((4, 3, 3, 3)),
            rng.standard_normal(4)]
    calls = {'Convolution': lambda a: nd.Convolution(a[0], a[1], a[2], kernel=(3, 3), pad=(1, 1),
                                                     num_filter=4),
             'Pooling': lambda a: nd.Pooling(a[0], kernel=(2, 2), stride=(2, 2)),
             'BatchNorm': lambda a: nd.BatchNorm(a[0], nd.ones(3, ctx=a[0].context),
                                                 nd.zeros(3, ctx=a[0].context),
                                                 nd.zeros(3, ctx=a[0].context),
                                                 nd.ones(3, ctx=a[0].context))}
    results = []
    for ctx in (mx.cpu(), mx.gpu(0)):
        arrays = [nd.array(h, ctx=ctx) for h in host]
        arrays[0].attach_grad()
        with autograd.record():
            y = calls[op](arrays)
        y.backward()
        results.append((y.asnumpy(), arrays[0].grad.asnumpy()))
    for cpu_value, gpu_value in zip(*results):
        np.testing.assert_allclose(gpu_value, cpu_value, rtol=1e-5, atol=1e-5)
