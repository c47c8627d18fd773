"""Initializers: registry, dumps/create, name-suffix dispatch, distributions and scales."""
import json

import numpy as np
import pytest

import gluonedu as mx
from gluonedu import nd


def filled(init, shape, name='fc_weight', dtype='float32'):
    arr = nd.zeros(shape, dtype=dtype)
    init(name, arr)
    return arr.asnumpy()


@pytest.mark.parametrize('name, klass', [('xavier', mx.init.Xavier), ('Uniform', mx.init.Uniform),
                                         ('normal', mx.init.Normal), ('zeros', mx.init.Zero),
                                         ('zero', mx.init.Zero), ('ones', mx.init.One),
                                         ('msraprelu', mx.init.MSRAPrelu),
                                         ('orthogonal', mx.init.Orthogonal)])
def test_create_by_name(name, klass):
    assert type(mx.init.create(name)) is klass


def test_create_passes_kwargs_and_instances_through():
    init = mx.init.create('uniform', scale=0.5)
    assert init.scale == 0.5
    assert mx.init.create(init) is init
    assert mx.initializer.create(None) is None


@pytest.mark.parametrize('init', [mx.init.Xavier(rnd_type='gaussian', factor_type='in',
                                                 magnitude=2),
                                  mx.init.Uniform(0.1), mx.init.Normal(0.5), mx.init.Zero(),
                                  mx.init.Constant(3), mx.init.MSRAPrelu(slope=0.1)])
def test_dumps_round_trips_through_create(init):
    text = init.dumps()
    name, kwargs = json.loads(text)
    assert name == type(init).__name__.lower()
    again = mx.init.create(text)
    assert type(again) is type(init) and again.dumps() == text


def test_dumps_format_matches_mxnet():
    assert mx.init.Xavier(rnd_type='gaussian', factor_type='in', magnitude=2).dumps() == \
        '["xavier", {"rnd_type": "gaussian", "factor_type": "in", "magnitude": 2}]'
    assert mx.init.MSRAPrelu().dumps() == '["msraprelu", {"factor_type": "avg", "slope": 0.25}]'
    assert mx.init.Zero().dumps() == '["zero", {}]'


def test_unknown_name_is_value_and_assertion_error_listing_names():
    with pytest.raises(ValueError) as err:
        mx.init.create('nope')
    assert isinstance(err.value, AssertionError)
    assert 'xavier' in str(err.value) and 'uniform' in str(err.value)


def test_register_a_custom_initializer():
    @mx.init.register
    class FortyTwo(mx.init.Initializer):
        def _init_weight(self, _, arr):
            arr[:] = 42
    assert (filled(mx.init.create('fortytwo'), (2, 2)) == 42).all()
    with pytest.raises(TypeError):
        mx.init.register(object)


@pytest.mark.parametrize('factor_type', ['avg', 'in', 'out'])
@pytest.mark.parametrize('rnd_type', ['uniform', 'gaussian'])
def test_xavier_scale(rnd_type, factor_type):
    shape, magnitude = (64, 32, 3, 3), 3.0
    fan_in, fan_out = 32 * 9, 64 * 9
    factor = {'avg': (fan_in + fan_out) / 2, 'in': fan_in, 'out': fan_out}[factor_type]
    scale = np.sqrt(magnitude / factor)
    mx.random.seed(0)
    w = filled(mx.init.Xavier(rnd_type, factor_type, magnitude), shape)
    if rnd_type == 'uniform':
        assert np.abs(w).max() <= scale
        assert np.abs(w).max() > 0.98 * scale
        expected_std = scale / np.sqrt(3)
    else:
        expected_std = scale
    assert abs(w.mean()) < 0.05 * expected_std
    assert abs(w.std() / expected_std - 1) < 0.03


def test_xavier_on_a_vector_raises_value_error():
    with pytest.raises(ValueError, match='2'):
        filled(mx.init.Xavier(), (5,))


def test_xavier_rejects_bad_arguments():
    with pytest.raises(ValueError):
        mx.init.Xavier(rnd_type='cauchy')
    with pytest.raises(ValueError):
        mx.init.Xavier(factor_type='sum')


def test_msra_prelu_is_gaussian_xavier_with_prelu_magnitude():
    mx.random.seed(1)
    w = filled(mx.init.MSRAPrelu(factor_type='in', slope=0.25), (200, 300))
    expected = np.sqrt(2.0 / (1 + 0.25 ** 2) / 300)
    assert abs(w.std() / expected - 1) < 0.03


def test_uniform_normal_zero_one_constant():
    mx.random.seed(2)
    u = filled(mx.init.Uniform(0.2), (100, 100))
    assert u.min() >= -0.2 and u.max() <= 0.2 and u.max() > 0.19
    n = filled(mx.init.Normal(0.5), (100, 100))
    assert abs(n.std() - 0.5) < 0.02
    assert (filled(mx.init.Zero(), (3, 2)) == 0).all()
    assert (filled(mx.init.One(), (3, 2)) == 1).all()
    assert (filled(mx.init.Constant(3.5), (3, 2)) == 3.5).all()
    assert filled(mx.init.Constant([1, 2]), (3, 2)).tolist() == [[1, 2]] * 3
    assert filled(mx.init.Uniform(), (4, 4), dtype='float64').dtype == np.float64


def test_default_scales_match_mxnet():
    assert mx.init.Uniform().scale == 0.07 and mx.init.Normal().sigma == 0.01
    xavier = mx.init.Xavier()
    assert (xavier.rnd_type, xavier.factor_type, xavier.magnitude) == ('uniform', 'avg', 3)


@pytest.mark.parametrize('name, value', [('fc_bias', 0), ('bn_gamma', 1), ('bn_beta', 0),
                                         ('bn_moving_mean', 0), ('bn_moving_var', 1)])
def test_name_suffix_dispatch(name, value):
    init = mx.init.Uniform(5)
    assert (filled(init, (3, 2), name=name) == value).all()


def test_weight_suffix_uses_the_distribution():
    mx.random.seed(3)
    w = filled(mx.init.Uniform(5), (10, 10), name='dense0_weight')
    assert w.std() > 1


def test_unknown_name_pattern_raises_value_error():
    with pytest.raises(ValueError, match='foo'):
        filled(mx.init.Uniform(), (2, 2), name='foo')


def test_init_desc_attr_overrides_the_name():
    desc = mx.init.InitDesc('fc_bias', attrs={'__init__': mx.init.One().dumps()})
    arr = nd.zeros(3)
    mx.init.Uniform()(desc, arr)
    assert (arr.asnumpy() == 1).all()
    desc = mx.init.InitDesc('anything', attrs={'__init__': 'ones'})
    mx.init.Zero()(desc, arr)
    assert (arr.asnumpy() == 1).all()


def test_init_desc_is_a_str_with_attrs():
    desc = mx.init.InitDesc('w')
    assert desc == 'w' and isinstance(desc, str)
    assert desc.attrs == {} and desc.global_init is None


def test_orthogonal_rows_are_orthonormal_times_scale():
    mx.random.seed(4)
    w = filled(mx.init.Orthogonal(scale=1.0), (4, 6))
    assert np.allclose(w @ w.T, np.eye(4), atol=1e-5)


def test_initializer_needs_an_ndarray():
    with pytest.raises(TypeError):
        mx.init.One()('w', np.zeros(3))
