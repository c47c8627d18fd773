"""MXNet's trivial 'test' optimizer: w += rescale_grad * g, state = copy of w."""
import numpy as np

import gluonedu as mx
from gluonedu import nd


def test_it_adds_the_rescaled_gradient_and_copies_the_weight_into_the_state():
    opt = mx.optimizer.create('test', rescale_grad=0.5, learning_rate=10.0, wd=3.0)
    w = nd.array([1.0, 2.0])
    state = opt.create_state(0, w)
    assert state.dtype == np.float32 and float(state.abs().sum().asscalar()) == 0
    for _ in range(3):
        opt.update(0, w, nd.array([2.0, -4.0]), state)
    # No learning rate, no weight decay: three times +0.5 * g.
    np.testing.assert_array_equal(w.asnumpy(), [4.0, -4.0])
    np.testing.assert_array_equal(state.asnumpy(), w.asnumpy())
    assert opt.num_update == 0 and opt._index_update_count == {}   # MXNet does not count


def test_state_is_float32_whatever_the_weight():
    opt = mx.optimizer.Test()
    state = opt.create_state(0, nd.ones((2, 2), dtype='float16'))
    assert state.dtype == np.float32 and state.shape == (2, 2)


def test_lists_and_updater():
    opt = mx.optimizer.Test()
    ws = [nd.zeros((2,)), nd.zeros((3,))]
    updater = mx.optimizer.get_updater(opt)
    updater([0, 1], [nd.ones((2,)), nd.ones((3,)) * 2], ws)
    np.testing.assert_array_equal(ws[1].asnumpy(), [2, 2, 2])
    np.testing.assert_array_equal(updater.states[0].asnumpy(), [1, 1])
    states = [opt.create_state(i, w) for i, w in enumerate(ws)]
    opt.update([0, 1], ws, [nd.ones((2,)), nd.ones((3,))], states)
    np.testing.assert_array_equal(ws[0].asnumpy(), [2, 2])


def test_sparse_gradient_adds_its_rows():
    w = nd.zeros((4, 2))
    g = nd.sparse.row_sparse_array((np.ones((1, 2)), [2]), shape=(4, 2))
    mx.optimizer.Test().update(0, w, g, nd.zeros((4, 2)))
    np.testing.assert_array_equal(w.asnumpy()[:, 0], [0, 0, 1, 0])
