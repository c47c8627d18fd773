"""The nd names and NDArray methods classroom code uses (issue 11), beyond what the parity
suite (tests/parity/ndarray/test_ops_parity.py) compares with MXNet 1.9.1 call by call."""
import numpy as np
import pytest

import gluonedu as mx
from gluonedu import nd
from gluonedu.ndarray.ndarray import _OPERATOR_METHODS

#: Names of mx.nd (and mx.nd.random) that the courses call.
IN_SCOPE = [
    'arcsin', 'arccos', 'arctan', 'sinh', 'cosh', 'tanh', 'arcsinh', 'arccosh', 'arctanh',
    'degrees', 'radians', 'erf', 'erfinv', 'gamma', 'gammaln', 'logical_and', 'logical_or',
    'logical_xor', 'logical_not', 'nansum', 'nanprod', 'eye', 'take', 'pick', 'one_hot',
    'gather_nd', 'scatter_nd', 'slice', 'slice_axis', 'slice_like', 'squeeze', 'expand_dims',
    'flip', 'tile', 'repeat', 'pad', 'sort', 'argsort', 'topk', 'cumsum', 'norm', 'diag',
    'linspace', 'L2Normalization', 'uniform', 'normal', 'random_uniform', 'random_normal',
    'random_randint', 'random_exponential', 'random_gamma', 'random_poisson',
    'random_negative_binomial', 'shuffle', 'sample_uniform', 'sample_normal',
    'sample_multinomial', 'sample_gamma', 'sample_poisson', 'sample_exponential',
    'concatenate', 'moveaxis', 'split_v2', 'softmin', 'hard_sigmoid', 'smooth_l1']
RANDOM = ['uniform', 'normal', 'randn', 'randint', 'exponential', 'gamma', 'poisson',
          'negative_binomial', 'generalized_negative_binomial', 'multinomial', 'shuffle',
          'uniform_like', 'normal_like', 'exponential_like', 'gamma_like', 'poisson_like',
          'negative_binomial_like', 'generalized_negative_binomial_like', 'seed']


@pytest.mark.parametrize('name', IN_SCOPE)
def test_nd_has_the_name(name):
    assert callable(getattr(nd, name))


@pytest.mark.parametrize('name', RANDOM)
def test_nd_random_has_the_name(name):
    assert callable(getattr(nd.random, name))


@pytest.mark.parametrize('name', _OPERATOR_METHODS)
def test_ndarray_has_mxnets_operator_method(name):
    assert callable(getattr(nd.NDArray, name)), name


def test_operator_methods_call_the_operator_on_self():
    x = nd.array([[3, 1, 2], [0, 5, 4]])
    assert x.take(nd.array([1])).asnumpy().tolist() == [[0, 5, 4]]
    assert x.slice(begin=(0, 1), end=(2, 3)).asnumpy().tolist() == [[1, 2], [5, 4]]
    assert x.topk(k=2).asnumpy().tolist() == [[0, 2], [1, 2]]
    assert x.sort(axis=None).asnumpy().tolist() == [0, 1, 2, 3, 4, 5]
    assert x.nansum().asscalar() == 15
    assert x.diag().asnumpy().tolist() == [3, 5]


def test_array_of_an_object_array_of_numbers_like_pandas_values():
    mixed = np.array([[1, 2.5], [3, 4]], dtype=object)  # DataFrame(...).values of int+float
    a = nd.array(mixed)
    assert a.dtype == np.float32 and a.asnumpy().tolist() == [[1, 2.5], [3, 4]]
    with pytest.raises(ValueError):
        nd.array(np.array([1, 'a'], dtype=object))
    with pytest.raises(TypeError):
        nd.array([[1, 2], [3]])


def test_assigning_one_element_arrays_element_by_element():
    a, b, c = nd.array([1, 2, 3]), nd.array([10, 20, 30]), nd.zeros(3)
    for i in range(3):
        c[i] = a[i] + b[i]
    assert c.asnumpy().tolist() == [11, 22, 33]
    m = nd.zeros((2, 3))
    m[1, 2] = nd.array([7])
    assert m.asnumpy()[1, 2] == 7


def test_seeded_sampling_repeats_and_flat_names_share_the_generator():
    mx.random.seed(42)
    first = [nd.random.uniform(shape=(3,)), nd.uniform(shape=(3,)),
             nd.random.randint(0, 10, shape=(4,)), nd.sample_multinomial(nd.array([[.5, .5]]))]
    mx.random.seed(42)
    second = [nd.random.uniform(shape=(3,)), nd.uniform(shape=(3,)),
              nd.random.randint(0, 10, shape=(4,)), nd.sample_multinomial(nd.array([[.5, .5]]))]
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    assert not np.array_equal(first[0].asnumpy(), first[1].asnumpy())


def test_shuffle_permutes_whole_rows():
    x = nd.arange(12).reshape((4, 3))
    y = nd.random.shuffle(x).asnumpy()
    assert sorted(map(tuple, y)) == sorted(map(tuple, x.asnumpy()))


def test_sampler_statistics():
    mx.random.seed(0)
    n = 50000
    cases = [(nd.random.normal(1.0, 2.0, shape=n), 1.0, 4.0),
             (nd.random.exponential(2.0, shape=n), 2.0, 4.0),
             (nd.random.gamma(3.0, 0.5, shape=n), 1.5, 0.75),
             (nd.random.poisson(4.0, shape=n), 4.0, 4.0),
             (nd.random.negative_binomial(3, 0.4, shape=n), 4.5, 11.25),
             (nd.random.generalized_negative_binomial(3.0, 0.4, shape=n), 3.0, 6.6)]
    for samples, mean, var in cases:
        values = samples.asnumpy().astype(np.float64)
        assert abs(values.mean() - mean) < 0.05 * max(1.0, mean)
        assert abs(values.var() - var) < 0.06 * var
    ids = nd.random.multinomial(nd.array([0.1, 0.2, 0.7]), shape=n).asnumpy()
    np.testing.assert_allclose(np.bincount(ids, minlength=3) / n, [0.1, 0.2, 0.7], atol=0.01)
