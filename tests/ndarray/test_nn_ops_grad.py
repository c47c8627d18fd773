"""Every layer operator's gradient against float64 central finite differences.

Covers what the MXNet parity suite cannot: float64, the channel-last convolution
layouts MXNet's CPU build lacks, and the gradients where MXNet 1.9.1 is wrong (SELU,
BatchNorm differentiated in predict mode; docs/divergences.md).
"""
import numpy as np
import pytest

from gluonedu import autograd, nd

from test_ops_grad import check_grad, rand


def _params(**kw):
    return kw


CONV = [
    _params(kernel=(3,), stride=(2,), pad=(1,), num_filter=4),
    _params(kernel=(3, 2), stride=(2, 1), pad=(1, 1), dilate=(1, 2), num_filter=4,
            num_group=2),
    _params(kernel=(2, 2, 2), pad=(1, 0, 1), num_filter=2, no_bias=True),
]


def _conv_inputs(params, deconv, channels=4):
    nd_ = len(params['kernel'])
    groups = params.get('num_group', 1)
    data = rand(2, channels, *([5, 4, 3][:nd_]), seed=1)
    if deconv:
        weight = rand(channels, params['num_filter'] // groups, *params['kernel'], seed=2)
    else:
        weight = rand(params['num_filter'], channels // groups, *params['kernel'], seed=2)
    inputs = [data, weight]
    if not params.get('no_bias'):
        inputs.append(rand(params['num_filter'], seed=3))
    return inputs


@pytest.mark.parametrize('params', CONV, ids=['1d', '2d-groups-dilate', '3d-nobias'])
@pytest.mark.parametrize('op', ['Convolution', 'Deconvolution'])
def test_convolution_gradients(op, params):
    # Deconvolution has no bias unless asked (MXNet's default no_bias=True)
    params = dict(params, no_bias=params.get('no_bias', False))
    if op == 'Deconvolution' and 'dilate' in params:
        params = dict(params, adj=(1, 0))
    check_grad(lambda *a: getattr(nd, op)(*a, **params),
               _conv_inputs(params, op == 'Deconvolution'))


@pytest.mark.parametrize('op,layout', [('Convolution', 'NHWC'),
                                       ('Deconvolution', 'NHWC'), ('Convolution', 'NDHWC')])
def test_channel_last_layouts_equal_transposed_channel_first(op, layout):
    nd_ = len(layout) - 2
    params = dict(kernel=(2,) * nd_, stride=(2,) + (1,) * (nd_ - 1), pad=(1,) * nd_,
                  num_filter=3, num_group=1, no_bias=False)
    data, weight, bias = _conv_inputs(params, op == 'Deconvolution', channels=2)
    first = getattr(nd, op)(nd.array(data, dtype='float64'), nd.array(weight, dtype='float64'),
                            nd.array(bias, dtype='float64'), **params).asnumpy()
    last = getattr(nd, op)(nd.array(np.moveaxis(data, 1, -1), dtype='float64'),
                           nd.array(np.moveaxis(weight, 1, -1), dtype='float64'),
                           nd.array(bias, dtype='float64'), layout=layout, **params)
    np.testing.assert_allclose(np.moveaxis(last.asnumpy(), -1, 1), first, rtol=1e-12)
    check_grad(lambda *a: getattr(nd, op)(*a, layout=layout, **params),
               [np.moveaxis(data, 1, -1), np.moveaxis(weight, 1, -1), bias])


POOL = [
    _params(kernel=(3,), stride=(2,), pad=(1,), pool_type='max'),
    _params(kernel=(2, 3), stride=(2, 2), pad=(1, 1), pool_type='avg',
            pooling_convention='full'),
    _params(kernel=(3, 2), stride=(1, 2), pad=(1, 0), pool_type='avg', count_include_pad=False),
    _params(kernel=(2, 2, 2), stride=(1, 2, 1), pool_type='sum'),
    _params(kernel=(2, 2), stride=(2, 2), pool_type='lp', p_value=2),
    _params(kernel=(2, 2), stride=(2, 2), pool_type='lp', p_value=3),
    _params(kernel=(1, 1), global_pool=True, pool_type='max'),
    _params(kernel=(2, 2), stride=(2, 2), pool_type='max', layout='NHWC'),
]


@pytest.mark.parametrize('params', POOL, ids=lambda p: '%s-%dd' % (p['pool_type'],
                                                                    len(p['kernel'])))
def test_pooling_gradients(params):
    shape = [2, 3] + [5, 6, 4][:len(params['kernel'])]
    rng = np.random.RandomState(0)
    # distinct values, far apart: no ties for max pooling to break
    data = rng.permutation(int(np.prod(shape))).reshape(shape) * 0.1 - 1.0
    check_grad(lambda x: nd.Pooling(x, **params), [data])


def _bn(train, **params):
    def op(x, gamma, beta):
        channels = x.shape[params.get('axis', 1)]
        mean, var = nd.zeros(channels, dtype='float64'), nd.ones(channels, dtype='float64')
        with autograd.record(train_mode=train):
            return nd.BatchNorm(x, gamma, beta, mean, var, **params)
    return op


@pytest.mark.parametrize('train,params', [
    (True, dict(fix_gamma=False)), (True, dict(fix_gamma=False, axis=-1)),
    (True, dict(fix_gamma=False, use_global_stats=True)),
    (False, dict(fix_gamma=False)),  # predict mode: MXNet's gradient differs (divergences)
])
def test_batch_norm_gradients(train, params):
    shape = (4, 3, 2) if params.get('axis') != -1 else (4, 2, 3)
    channels = shape[params.get('axis', 1)]
    check_grad(_bn(train, **params), [rand(*shape, seed=1), rand(channels, low=0.5, seed=2),
                                      rand(channels, seed=3)])


@pytest.mark.parametrize('op,params,gamma_size', [
    ('LayerNorm', {}, 5), ('LayerNorm', {'axis': 1}, 4),
    ('InstanceNorm', {}, 4), ('GroupNorm', {'num_groups': 2}, 2),
])
def test_normalization_gradients(op, params, gamma_size):
    check_grad(lambda *a: getattr(nd, op)(*a, **params),
               [rand(2, 4, 5, seed=1), rand(gamma_size, seed=2), rand(gamma_size, seed=3)])


@pytest.mark.parametrize('mode', ['instance', 'channel', 'spatial'])
def test_l2_normalization_gradients(mode):
    check_grad(lambda x: nd.L2Normalization(x, mode=mode), [rand(2, 3, 4, seed=1)])


@pytest.mark.parametrize('act,params', [('leaky', {'slope': 0.1}), ('elu', {'slope': 0.7}),
                                        ('selu', {}), ('gelu', {})])
def test_leaky_relu_gradients(act, params):
    x = rand(3, 4, seed=1)
    x[np.abs(x) < 0.05] = 0.3  # away from the kink at 0
    check_grad(lambda a: nd.LeakyReLU(a, act_type=act, **params), [x])


@pytest.mark.parametrize('gamma_size', [1, 3])
def test_prelu_gradients(gamma_size):
    x = rand(2, 3, 4, seed=1)
    x[np.abs(x) < 0.05] = 0.3
    check_grad(lambda a, g: nd.LeakyReLU(a, g, act_type='prelu'),
               [x, rand(gamma_size, seed=2)])


@pytest.mark.parametrize('params', [
    dict(scale=2, sample_type='nearest'), dict(scale=3, sample_type='nearest'),
])
def test_up_sampling_gradients(params):
    check_grad(lambda x: nd.UpSampling(x, **params), [rand(2, 3, 2, 3, seed=1)])


def test_up_sampling_several_inputs_gradients():
    check_grad(lambda a, b: nd.UpSampling(a, b, scale=2, sample_type='nearest', num_args=2,
                                          multi_input_mode='sum'),
               [rand(1, 2, 2, 3, seed=1), rand(1, 2, 4, 6, seed=2)])


@pytest.mark.parametrize('mode,widths', [
    ('constant', (0, 0, 0, 0, 1, 2, 0, 3)), ('edge', (0, 0, 0, 0, 3, 1, 2, 4)),
    ('reflect', (0, 0, 0, 0, 2, 1, 3, 2)), ('reflect', (0, 0, 0, 0, 1, 1, 2, 0, 1, 2)),
])
def test_pad_gradients(mode, widths):
    shape = (1, 2, 3, 4) if len(widths) == 8 else (1, 2, 3, 4, 3)
    check_grad(lambda x: nd.pad(x, mode=mode, pad_width=widths), [rand(*shape, seed=1)])
