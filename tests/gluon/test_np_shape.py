"""NumPy shape semantics (mx.np_shape): unknown dimensions read -1 inside the scope, 0
outside, and deferred initialization works in both."""
import threading

import numpy as np
import pytest

import gluonedu as mx
from gluonedu import autograd, gluon


@pytest.fixture(autouse=True)
def switch_off_afterwards():
    yield
    mx.set_np_shape(False)


def test_a_deferred_dense_trains_inside_the_scope():
    net = gluon.nn.Dense(4)
    with mx.np_shape():
        assert net.weight.shape == (4, -1)
        net.initialize(mx.init.One())
        x = mx.nd.ones((2, 3))
        with autograd.record():
            loss = net(x).sum()
        loss.backward()
        assert net.weight.shape == (4, 3)
    np.testing.assert_array_equal(net.weight.grad().asnumpy(), np.full((4, 3), 2.0))


def test_the_scope_restores_the_switch_when_its_block_raises():
    with pytest.raises(KeyError):
        with mx.np_shape():
            raise KeyError('inside')
    assert not mx.is_np_shape()


def test_the_switch_of_one_thread_leaves_the_others_alone():
    seen = []
    with mx.np_shape():
        thread = threading.Thread(target=lambda: seen.append(mx.is_np_shape()))
        thread.start()
        thread.join()
    assert seen == [False]


def test_a_parameter_given_minus_one_is_unknown_inside_and_an_error_outside():
    param = gluon.Parameter('w', shape=(3, -1))
    with mx.np_shape():
        assert not gluon.utils.shape_is_known(param.shape)
    with pytest.raises(AssertionError):
        gluon.utils.shape_is_known(param.shape)


def test_use_np_shape_keeps_the_function_and_refuses_what_is_not_callable():
    @mx.use_np_shape
    def shapes():
        """Doc."""
        return gluon.nn.Dense(2).weight.shape
    assert shapes() == (2, -1) and shapes.__doc__ == 'Doc.'
    with pytest.raises(TypeError, match='decorates a function or a class'):
        mx.use_np_shape('shapes')
