"""What the differential fuzz suite (tests/parity/ndarray/test_ops_fuzz.py) found, pinned down as
MXNet 1.9.1 behaves, so that it holds without the oracle too."""
import numpy as np
import pytest

import gluonedu as mx
from gluonedu import autograd, nd


@pytest.mark.parametrize('make', [
    lambda x: nd.argmax(x, axis=1), lambda x: nd.BlockGrad(x), lambda x: nd.zeros_like(x),
    lambda x: nd.one_hot(x, depth=3)], ids=['argmax', 'BlockGrad', 'zeros_like', 'one_hot'])
def test_an_operator_without_a_gradient_passes_zeros_back(make):
    x = nd.array([[0.0, 2.0], [1.0, 0.0]])
    x.attach_grad()
    with autograd.record():
        y = make(x)
    y.backward()
    assert x.grad.asnumpy().tolist() == [[0.0, 0.0], [0.0, 0.0]]


def test_argmax_channel_is_not_differentiable():
    x = nd.array([[0.0, 2.0]])
    x.attach_grad()
    with autograd.record():
        y = nd.argmax_channel(x)
    with pytest.raises(mx.MXNetError, match='not differentiable'):
        y.backward()


def test_backward_of_nothing_is_an_error():
    with pytest.raises(mx.MXNetError, match='no arrays to differentiate'):
        autograd.backward([])


@pytest.mark.parametrize('dtype', ['bfloat16', 'None', 'flaot32'])
def test_a_dtype_numpy_does_not_know_raises_a_type_error_first(dtype):
    # MXNet's class (its frontend calls numpy.dtype first), with the dtypes to use instead
    x = nd.ones((2,))
    with pytest.raises(TypeError, match="NumPy understands; use e.g. 'float32'"):
        nd.Cast(x, dtype=dtype, bogus=1)


def test_float_only_operators_refuse_integers():
    ints = nd.array([1, 2], dtype='int32')
    for call in (lambda: nd.Activation(ints, act_type='relu'),
                 lambda: nd.random.uniform_like(ints),
                 lambda: nd.sample_multinomial(ints)):
        with pytest.raises(mx.MXNetError, match='int32'):
            call()


def test_samplers_give_float32_unless_asked():
    lam = nd.array([1.0, 2.0], dtype='float64')
    assert nd.sample_exponential(lam).dtype == np.float32
    assert nd.sample_exponential(lam, dtype='float64').dtype == np.float64


def test_degrees_and_radians_use_mxnets_single_precision_constants():
    x = nd.array([1.0], dtype='float64')
    assert nd.degrees(x).asscalar() == float(np.float32(180) / np.float32(np.pi))
    assert nd.radians(x).asscalar() == float(np.float32(np.pi) / np.float32(180))


def test_shape_operators_check_what_mxnet_checks():
    lhs, rhs = nd.ones((1, 2)), nd.ones((1, 2))
    with pytest.raises(mx.MXNetError, match='only an axis of size 1'):
        nd.broadcast_like(lhs, rhs, lhs_axes=(1,), rhs_axes=(1,))
    with pytest.raises(mx.MXNetError, match='out of range'):
        nd.reshape_like(nd.ones((1, 2, 1)), nd.ones((2,)), lhs_begin=1, lhs_end=1)
    with pytest.raises(mx.MXNetError, match='negative'):
        nd.sample_multinomial(nd.array([0.5, 0.5]), shape=-1)


def test_numpys_complaints_about_the_data_are_the_operators_errors():
    empty = nd.array(np.zeros((0, 3)))
    with pytest.raises(mx.MXNetError, match='max'):
        nd.max(empty, axis=0)
    empty.attach_grad()
    with autograd.record():
        y = nd.mean(empty)
    with pytest.raises(mx.MXNetError, match='gradient of mean'):
        y.backward()
