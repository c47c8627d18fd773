"""gluon.utils: splitting batches across devices, global-norm clipping and small helpers.
Expected behaviours (slice sizes, error types, return types, NaN handling) were checked
against MXNet 1.9.1."""
import collections
import hashlib
import pickle
import warnings

import numpy as np
import pytest

import gluonedu as mx
from gluonedu import gluon, nd
from gluonedu.gluon import utils


# ---------------------------------------------------------------------- split_data
def test_split_data_even():
    data = nd.arange(12).reshape((6, 2))
    parts = utils.split_data(data, 3)
    assert [p.shape for p in parts] == [(2, 2)] * 3
    np.testing.assert_array_equal(np.concatenate([p.asnumpy() for p in parts]), data.asnumpy())


def test_split_data_uneven_gives_the_first_slices_one_more():
    parts = utils.split_data(nd.arange(10), 3, even_split=False)
    assert [p.asnumpy().tolist() for p in parts] == [[0, 1, 2, 3], [4, 5, 6], [7, 8, 9]]


def test_split_data_uneven_raises_value_error_by_default():
    with pytest.raises(ValueError, match='even_split=False'):
        utils.split_data(nd.arange(10), 3)


def test_split_data_along_another_axis():
    data = nd.arange(10).reshape((2, 5))
    parts = utils.split_data(data, 2, batch_axis=1, even_split=False)
    assert [p.shape for p in parts] == [(2, 3), (2, 2)]
    np.testing.assert_array_equal(parts[1].asnumpy(), data.asnumpy()[:, 3:])


def test_split_data_returns_a_list_for_one_slice():
    parts = utils.split_data(nd.ones((3, 2)), 1)
    assert isinstance(parts, list) and len(parts) == 1 and parts[0].shape == (3, 2)


# ---------------------------------------------------------------------- split_and_load
def test_split_and_load_puts_each_slice_on_its_context():
    ctxs = [mx.cpu(0), mx.cpu(1)]
    parts = gluon.utils.split_and_load(nd.arange(8).reshape((4, 2)), ctxs)
    assert [p.context for p in parts] == ctxs
    assert [p.shape for p in parts] == [(2, 2), (2, 2)]


def test_split_and_load_accepts_numpy_and_single_context():
    parts = utils.split_and_load(np.arange(6).reshape(3, 2), [mx.cpu(0), mx.cpu(1)],
                                 even_split=False)
    assert [p.shape for p in parts] == [(2, 2), (1, 2)]
    assert parts[0].dtype == np.float32      # nd.array's default dtype
    whole = utils.split_and_load([[1, 2]], [mx.cpu(1)])
    assert len(whole) == 1 and whole[0].context == mx.cpu(1) and whole[0].shape == (1, 2)


def test_split_helpers_are_exported_from_gluon():
    assert gluon.split_data is utils.split_data
    assert gluon.split_and_load is utils.split_and_load
    assert gluon.clip_global_norm is utils.clip_global_norm


# ---------------------------------------------------------------------- clip_global_norm
def test_clip_global_norm_rescales_across_contexts():
    a_np = np.arange(12, dtype=np.float32).reshape(3, 4)
    b_np = np.ones((2, 2), dtype=np.float32)
    a, b = nd.array(a_np), nd.array(b_np, ctx=mx.cpu(1))
    total = np.sqrt((a_np.astype(np.float64) ** 2).sum() + 4.0)
    result = utils.clip_global_norm([a, b], 5.0)
    assert isinstance(result, np.floating)
    np.testing.assert_allclose(result, total, rtol=1e-6)
    scale = 5.0 / (total + 1e-8)
    np.testing.assert_allclose(a.asnumpy(), a_np * scale, rtol=1e-6)
    np.testing.assert_allclose(b.asnumpy(), b_np * scale, rtol=1e-6)
    assert b.context == mx.cpu(1)
    # the joint norm is now max_norm
    joint = np.sqrt((a.asnumpy() ** 2).sum() + (b.asnumpy() ** 2).sum())
    np.testing.assert_allclose(joint, 5.0, rtol=1e-5)


def test_clip_global_norm_leaves_small_arrays_alone():
    a = nd.array([3., 4.])
    assert utils.clip_global_norm([a], 10.0) == pytest.approx(5.0)
    np.testing.assert_array_equal(a.asnumpy(), [3., 4.])


def test_clip_global_norm_without_finiteness_check_returns_an_ndarray():
    a = nd.array([3., 4.])
    total = utils.clip_global_norm([a], 1.0, check_isfinite=False)
    assert isinstance(total, nd.NDArray) and total.shape == (1,)
    assert total.asscalar() == pytest.approx(5.0)
    np.testing.assert_allclose(a.asnumpy(), [0.6, 0.8], rtol=1e-6)


@pytest.mark.parametrize('bad', [np.nan, np.inf, -np.inf])
def test_clip_global_norm_leaves_arrays_alone_and_says_so_on_a_non_finite_norm(bad):
    # MXNet scales by max_norm / norm anyway: every array NaN (or zero for an inf norm)
    a, b = nd.array([bad, 1.]), nd.array([30., 40.], ctx=mx.cpu(1))
    with pytest.warns(UserWarning, match='left as they were'):
        total = utils.clip_global_norm([a, b], 1.0)
    assert np.isnan(total) if np.isnan(bad) else total == np.inf
    np.testing.assert_array_equal(a.asnumpy(), [bad, 1.])
    np.testing.assert_array_equal(b.asnumpy(), [30., 40.])


def test_clip_global_norm_leaves_arrays_alone_whose_squares_overflow():
    a = nd.array([3e20, 1.])   # finite, but 9e40 overflows float32: the norm is inf
    with pytest.warns(UserWarning, match='norm is inf'):
        assert utils.clip_global_norm([a], 1.0) == np.inf
    np.testing.assert_array_equal(a.asnumpy(), np.array([3e20, 1.], dtype=np.float32))


def test_clip_global_norm_without_check_does_not_warn():
    a = nd.array([np.nan, 2.])
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        total = utils.clip_global_norm([a], 1.0, check_isfinite=False)
    assert isinstance(total, nd.NDArray) and np.isnan(total.asscalar())
    np.testing.assert_array_equal(a.asnumpy(), [np.nan, 2.])   # left as it was


def test_clip_global_norm_on_gradients_in_a_training_loop():
    w = nd.array([[3., 0.], [0., 4.]])
    w.attach_grad()
    with mx.autograd.record():
        loss = (w * w).sum() / 2     # gradient = w, norm 5
    loss.backward()
    assert utils.clip_global_norm([w.grad], 1.0) == pytest.approx(5.0)
    np.testing.assert_allclose(w.grad.asnumpy(), [[0.6, 0.], [0., 0.8]], rtol=1e-6)


def test_clip_global_norm_needs_arrays():
    with pytest.raises(ValueError):
        utils.clip_global_norm([], 1.0)


# ---------------------------------------------------------------------- small helpers
def test_check_sha1(tmp_path):
    path = tmp_path / 'blob.bin'
    path.write_bytes(b'gluonedu' * 1000)
    digest = hashlib.sha1(b'gluonedu' * 1000).hexdigest()
    assert utils.check_sha1(str(path), digest)
    assert not utils.check_sha1(str(path), '0' * 40)


def test_there_is_no_download():
    assert not hasattr(utils, 'download')


def test_indent_indents_every_line_but_the_first():
    assert utils._indent('one line', 4) == 'one line'
    assert utils._indent('a\nb\nc', 2) == 'a\n  b\n  c'


def test_brief_print_list():
    assert utils._brief_print_list(['x', 'y']) == "'x', 'y'"
    assert utils._brief_print_list('abcdefg') == "'a', 'b', 'c', 'd', 'e', 'f', 'g'"
    assert utils._brief_print_list('abcdefghijk') == "'a', 'b', 'c', ..., 'h', 'i', 'j', 'k'"
    assert utils._brief_print_list(range(10), limit=4) == "'0', '1', ..., '8', '9'"


def test_shape_is_known():
    assert utils.shape_is_known((2, 3))
    assert not utils.shape_is_known((2, 0))
    assert not utils.shape_is_known(())
    assert not utils.shape_is_known(None)
    with pytest.raises(AssertionError):
        utils.shape_is_known((2, -1))


# ---------------------------------------------------------------------- HookHandle
def test_hook_handle_attach_and_detach():
    hooks = collections.OrderedDict()

    def hook(*args):
        return None
    handle = utils.HookHandle()
    handle.attach(hooks, hook)
    assert list(hooks.values()) == [hook]
    with pytest.raises(AssertionError):
        handle.attach(hooks, hook)
    handle.detach()
    assert len(hooks) == 0
    handle.detach()   # a second detach is harmless


def test_hook_handle_as_context_manager():
    hooks = collections.OrderedDict()
    with utils.HookHandle() as handle:
        handle.attach(hooks, print)
        assert len(hooks) == 1
    assert len(hooks) == 0


def test_hook_handle_pickles():
    hooks = collections.OrderedDict()
    handle = utils.HookHandle()
    handle.attach(hooks, print)
    copy = pickle.loads(pickle.dumps(handle))
    copy.detach()             # detaches from its own (unpickled) dict, not ours
    assert len(hooks) == 1


def test_block_forward_hook_handle_detaches():
    calls = []

    class Double(gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            return x * 2

    net = Double()
    handle = net.register_forward_hook(lambda block, inputs, output: calls.append(1))
    assert isinstance(handle, utils.HookHandle)
    net(nd.ones((1,)))
    handle.detach()
    net(nd.ones((1,)))
    assert calls == [1]
