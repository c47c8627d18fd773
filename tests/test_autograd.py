"""autograd: recording and training scopes, backward, grad_req, grad(), fresh-grad marks."""
import numpy as np
import pytest

import gluonedu as mx
from gluonedu import autograd, nd
from gluonedu.test_utils import assert_almost_equal


def variable(values, grad_req='write'):
    x = nd.array(values)
    x.attach_grad(grad_req)
    return x


def test_scopes_nest_and_restore_as_mxnet():
    assert not autograd.is_recording() and not autograd.is_training()
    with autograd.record():
        assert autograd.is_recording() and autograd.is_training()
        with autograd.pause():
            assert not autograd.is_recording() and not autograd.is_training()
            with autograd.train_mode():
                assert autograd.is_training() and not autograd.is_recording()
            assert not autograd.is_training()
        with autograd.predict_mode():
            assert autograd.is_recording() and not autograd.is_training()
        assert autograd.is_recording() and autograd.is_training()
    with autograd.record(train_mode=False):
        assert autograd.is_recording() and not autograd.is_training()
        with autograd.pause(train_mode=True):
            assert not autograd.is_recording() and autograd.is_training()
    assert not autograd.is_recording() and not autograd.is_training()


def test_scopes_restore_after_an_exception():
    with pytest.raises(KeyError):
        with autograd.record():
            raise KeyError
    assert not autograd.is_recording() and not autograd.is_training()


def test_set_recording_and_set_training_return_the_previous_state():
    assert autograd.set_recording(True) is False
    assert autograd.set_recording(False) is True
    assert autograd.set_training(True) is False
    assert autograd.set_training(False) is True


def test_backward_default_head_grad_is_ones():
    x = variable([1., 2., 3.])
    with autograd.record():
        y = x * x
    y.backward()
    assert x.grad.asnumpy().tolist() == [2, 4, 6]


def test_backward_with_head_grads():
    x = variable([1., 2., 3.])
    with autograd.record():
        y = x * x
    y.backward(nd.array([1., 0., 10.]))
    assert x.grad.asnumpy().tolist() == [2, 0, 60]


def test_backward_of_several_heads():
    x = variable([1., 2.])
    with autograd.record():
        a, b = x * 2, x * x
    autograd.backward([a, b], [nd.ones(2), nd.array([1., 3.])])
    assert x.grad.asnumpy().tolist() == [4, 14]


def test_backward_twice_needs_retain_graph():
    x = variable([1., 2.])
    with autograd.record():
        y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()  # the first call retained the graph
    assert x.grad.asnumpy().tolist() == [2, 4]
    with pytest.raises(mx.MXNetError, match='retain_graph'):
        y.backward()


def test_backward_of_an_unrecorded_array_raises():
    x = variable([1.])
    with pytest.raises(mx.MXNetError):
        (x * 2).backward()


def test_grad_req_write_overwrites_and_add_accumulates():
    w, a = variable([1., 2.]), variable([1., 2.], grad_req='add')
    for _ in range(3):
        with autograd.record():
            y = (w * 3).sum() + (a * 3).sum()
        y.backward()
    assert w.grad.asnumpy().tolist() == [3, 3]
    assert a.grad.asnumpy().tolist() == [9, 9]


def test_grad_req_null_gets_no_gradient():
    x = variable([1., 2.], grad_req='null')
    y_var = variable([1., 1.])
    with autograd.record():
        y = (x * y_var).sum()
    y.backward()
    assert x.grad.asnumpy().tolist() == [0, 0]
    assert y_var.grad.asnumpy().tolist() == [1, 2]


def test_bad_grad_req_raises():
    with pytest.raises(ValueError):
        nd.ones(2).attach_grad('sometimes')


def test_mark_variables():
    x, g = nd.array([1., 2.]), nd.zeros(2)
    autograd.mark_variables([x], [g], grad_reqs='add')
    for _ in range(2):
        with autograd.record():
            y = x * 5
        y.backward()
    assert x.grad is g
    assert g.asnumpy().tolist() == [10, 10]
    with pytest.raises(mx.MXNetError):
        autograd.mark_variables([nd.ones(2)], [nd.zeros(3)])


def test_grad_returns_gradients_without_touching_grad_buffers():
    x, z = variable([1., 2.]), variable([3., 4.])
    with autograd.record():
        y = (x * x * z).sum()
    gx, gz = autograd.grad(y, [x, z])
    assert gx.asnumpy().tolist() == [6, 16] and gz.asnumpy().tolist() == [1, 4]
    assert x.grad.asnumpy().tolist() == [0, 0] and not x._fresh_grad
    single = variable([2.])
    with autograd.record():
        out = single * single
    assert autograd.grad(out, single).asnumpy().tolist() == [4]


def test_grad_with_head_grads_and_retain_graph():
    x = variable([1., 2.])
    with autograd.record():
        y = x * 3
    g1 = autograd.grad(y, [x], head_grads=nd.array([1., 2.]), retain_graph=True)[0]
    g2 = autograd.grad(y, [x], head_grads=nd.array([1., 1.]))[0]
    assert g1.asnumpy().tolist() == [3, 6] and g2.asnumpy().tolist() == [3, 3]


def test_backward_marks_only_reached_variables_fresh():
    used, unused = variable([1.]), variable([1.])
    assert not used._fresh_grad
    with autograd.record():
        y = used * 2
        _ = unused * 2
    y.backward()
    assert used._fresh_grad and not unused._fresh_grad
    used.attach_grad()  # a new buffer is not fresh
    assert not used._fresh_grad


def test_in_place_write_to_a_recorded_array_raises_while_recording():
    x = variable([1., 2.])
    with autograd.record():
        y = x * 2
        with pytest.raises(mx.MXNetError):
            y[:] = 1
        with pytest.raises(mx.MXNetError):
            x += 1
        with pytest.raises(mx.MXNetError):
            y *= 2
        fresh = nd.zeros(2)
        fresh[:] = 1  # arrays outside the graph stay writable
    x[:] = 5  # and so is everything once recording stops
    assert x.asnumpy().tolist() == [5, 5]


def test_attach_grad_on_an_intermediate_makes_it_a_leaf():
    x = variable([1., 2.])
    with autograd.record():
        h = x * 3
    h.attach_grad()
    with autograd.record():
        y = (h * h).sum()
    y.backward()
    assert h.grad.asnumpy().tolist() == [6, 12]
    assert x.grad.asnumpy().tolist() == [0, 0]  # the path to x was cut


def test_detach_and_stop_gradient_cut_the_graph():
    x = variable([1., 2.])
    with autograd.record():
        y = (x.detach() * x + nd.stop_gradient(x) * x).sum()
    y.backward()
    assert x.grad.asnumpy().tolist() == [2, 4]


def test_unrecorded_ops_do_not_build_a_graph():
    x = variable([1.])
    y = x * 2
    assert y._node is None
    with autograd.record():
        with autograd.pause():
            z = x * 2
    assert z._node is None


def test_dropout_is_active_only_in_training_mode():
    x = nd.ones((20, 20))
    assert (nd.Dropout(x, p=0.5).asnumpy() == 1).all()
    with autograd.record(train_mode=False):
        assert (nd.Dropout(x, p=0.5).asnumpy() == 1).all()
    with autograd.train_mode():
        dropped = nd.Dropout(x, p=0.5).asnumpy()
    assert set(np.unique(dropped)) == {0.0, 2.0}
    with autograd.record():
        assert (nd.Dropout(x, p=0.5).asnumpy() == 0).any()


def test_backward_runs_in_training_mode_by_default():
    x = variable([1.])
    seen = []
    with autograd.record():
        y = x * 2
    original = y._node.backward

    def spy(g):
        seen.append((autograd.is_training(), autograd.is_recording()))
        return original(g)
    y._node.backward = spy
    y.backward()
    assert seen == [(True, False)]


def test_gradient_flows_through_a_long_chain_and_shared_subgraphs():
    x = variable(np.linspace(0.1, 1, 5))
    with autograd.record():
        h = x
        for _ in range(50):
            h = h * 1.01
        y = (h + h * x).sum()
    y.backward()
    xs = np.linspace(0.1, 1, 5)
    assert_almost_equal(x.grad, 1.01 ** 50 * (1 + 2 * xs), rtol=1e-4)


def test_row_sparse_grad_buffer_through_dense_ops():
    w = variable(np.ones((4, 2)))
    w.attach_grad(stype='row_sparse')
    with autograd.record():
        y = (w[1:3] * 2).sum()
    y.backward()
    assert w.grad.stype == 'row_sparse'
    assert w.grad.indices.asnumpy().tolist() == [1, 2]
    assert w.grad.asnumpy().tolist() == [[0, 0], [2, 2], [2, 2], [0, 0]]


def test_out_argument_while_recording_carries_the_gradient():
    x = variable([1., 2.])
    with autograd.record():
        o = nd.zeros(2)
        nd.exp(x, out=o)
        s = o.sum()
    s.backward()
    assert_almost_equal(x.grad, np.exp([1., 2.]))


def test_overwriting_a_whole_array_with_a_recorded_value_is_recorded_as_a_copy():
    # MXNet 1.9.1 gives [8, 12] here: o[:] = v broadcasts v and records the copy.
    x = variable([1., 2.])
    with autograd.record():
        o = nd.zeros((2, 2))
        o[:] = x * 2
        s = (o * nd.array([[1., 2.], [3., 4.]])).sum()
    s.backward()
    assert x.grad.asnumpy().tolist() == [8, 12]


@pytest.mark.parametrize('write', [lambda o, v: o.__setitem__(slice(1, None), v),
                                   lambda o, v: o.__setitem__(0, v),
                                   lambda o, v: o.__iadd__(v)],
                         ids=['partial-slice', 'row', 'iadd'])
def test_partial_or_in_place_write_of_a_recorded_value_raises(write):
    x = variable([1., 2.])
    with autograd.record():
        o = nd.zeros((2, 2))
        with pytest.raises(mx.MXNetError, match='in-place'):
            write(o, x * 2)


def test_backward_of_a_variable_itself_gives_ones():
    x = variable([1., 2.])
    x.backward()
    assert x.grad.asnumpy().tolist() == [1, 1] and x._fresh_grad
