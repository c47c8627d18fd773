"""2-bit gradient compression: hand-computed residual sequences, bytes, and its rules."""
import math

import numpy as np
import pytest

import gluonedu as mx
from gluonedu.base import MXNetError
from gluonedu.kvstore.compression import TwoBitCompression, compressed_nbytes

# Two devices, threshold 0.5, three pushes. Worked by hand from
#   r += g;  q = +t if r >= t, -t if r <= -t, else 0;  r -= q;  merged = sum of q.
GRADS = [
    ([0.3, 0.6, -0.7, 0.2, 1.7], [-0.5, 0.5, 0.25, 0.0, 0.0]),
    ([0.3, 0.0, -0.4, 0.2, 0.0], [0.0, 0.0, 0.25, 0.0, 0.0]),
    ([0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0]),
]
MERGED = [[-0.5, 1.0, -0.5, 0.0, 0.5],     # dev0 q = [0, .5, -.5, 0, .5], dev1 [-.5, .5, 0, 0, 0]
          [0.5, 0.0, 0.0, 0.0, 0.5],       # dev0 q = [.5, 0, -.5, 0, .5], dev1 [0, 0, .5, 0, 0]
          [0.0, 0.0, 0.0, 0.0, 0.5]]       # dev0 still owes 1.2 - 0.5 - 0.5 on the last one
RESIDUALS = [([0.3, 0.1, -0.2, 0.2, 1.2], [0.0, 0.0, 0.25, 0.0, 0.0]),
             ([0.1, 0.1, -0.1, 0.4, 0.7], [0.0, 0.0, 0.0, 0.0, 0.0]),
             ([0.1, 0.1, -0.1, 0.4, 0.2], [0.0, 0.0, 0.0, 0.0, 0.0])]


def _compressed_store(threshold=0.5):
    kv = mx.kv.create('device')
    kv.set_gradient_compression({'type': '2bit', 'threshold': threshold})
    return kv


@pytest.mark.parametrize('call', ['push_pull', 'pushpull'])
def test_two_devices_follow_the_hand_computed_residuals(call):
    kv = _compressed_store()
    kv.init(0, mx.nd.zeros(5))
    for (g0, g1), merged, (r0, r1) in zip(GRADS, MERGED, RESIDUALS):
        values = [mx.nd.array(g0), mx.nd.array(g1, ctx=mx.cpu(1))]
        outs = [mx.nd.zeros(5), mx.nd.zeros(5, ctx=mx.cpu(1))]
        if call == 'pushpull':
            kv.pushpull(0, values, out=outs)
        else:
            kv.push(0, values)
            kv.pull(0, out=outs)
        for o in outs:     # every device pulls the same, uncompressed value
            np.testing.assert_array_equal(o.asnumpy(), np.array(merged, np.float32))
        comp = kv.gradient_compression
        np.testing.assert_allclose(comp.residual(0, 0).asnumpy(), r0, atol=1e-6)
        np.testing.assert_allclose(comp.residual(0, 1).asnumpy(), r1, atol=1e-6)
        assert comp.residual(0, 1).context == mx.cpu(1)   # kept on the pushing device


def test_a_single_device_push_is_compressed_too():
    kv = _compressed_store()
    kv.init(0, mx.nd.zeros(5))
    out = mx.nd.zeros(5)
    for expected in ([0, 0.5, -0.5, 0, 0], [0.5, 0.5, -0.5, 0, 0]):
        kv.push(0, mx.nd.array([0.3, 0.6, -0.7, 0.2, 0.1]))
        kv.pull(0, out=out)
        np.testing.assert_array_equal(out.asnumpy(), np.array(expected, np.float32))


def test_the_optimizer_on_the_store_sees_the_dequantised_sum():
    kv = _compressed_store()
    kv.init(0, mx.nd.ones(5))
    kv.set_optimizer(mx.optimizer.create('sgd', learning_rate=0.1))
    g = [0.3, 0.6, -0.7, 0.2, 0.1]
    kv.push(0, [mx.nd.array(g), mx.nd.array(g, ctx=mx.cpu(1))])
    out = mx.nd.zeros(5)
    kv.pull(0, out=out)
    np.testing.assert_allclose(out.asnumpy(), [1, 0.9, 1.1, 1, 1], rtol=1e-6)


def test_changing_the_threshold_keeps_the_residuals():
    kv = _compressed_store()
    kv.init(0, mx.nd.zeros(2))
    kv.push(0, mx.nd.array([0.3, 0.0]))
    kv.set_gradient_compression({'type': '2bit', 'threshold': 0.25})
    kv.push(0, mx.nd.array([0.0, 0.0]))
    out = mx.nd.zeros(2)
    kv.pull(0, out=out)
    assert out.asnumpy().tolist() == [0.25, 0.0]


def test_pulls_are_not_compressed():
    kv = _compressed_store()
    kv.init(0, mx.nd.array([0.3, -0.1]))
    out = mx.nd.zeros(2)
    kv.pull(0, out=out)
    np.testing.assert_array_equal(out.asnumpy(), np.array([0.3, -0.1], np.float32))


def test_only_float32_dense_gradients_can_be_compressed():
    kv = _compressed_store()
    kv.init(0, mx.nd.zeros(4, dtype='float16'))
    with pytest.raises(MXNetError, match='float32'):
        kv.push(0, mx.nd.ones(4, dtype='float16'))
    kv.init(1, mx.nd.zeros((4, 3)))
    grad = mx.nd.sparse.row_sparse_array((np.ones((1, 3), np.float32), [1]), shape=(4, 3))
    with pytest.raises(MXNetError, match='dense gradients'):
        kv.push(1, grad)


@pytest.mark.parametrize('n, expected', [(1, 4), (16, 4), (17, 8), (64, 16), (1000, 252)])
def test_compressed_bytes_pack_16_values_per_word(n, expected):
    assert compressed_nbytes(n) == expected


def test_quantize_reference_on_random_input():
    rng = np.random.RandomState(3)
    comp = TwoBitCompression(0.3)
    residual = np.zeros(50, np.float32)
    t = np.float32(0.3)
    for _ in range(6):
        g = rng.randn(50).astype(np.float32)
        sent = comp.quantize('k', 0, mx.nd.array(g)).asnumpy()
        residual += g
        expected = np.where(residual >= t, t, np.where(residual <= -t, -t, 0)).astype(np.float32)
        residual -= expected
        np.testing.assert_array_equal(sent, expected)
        np.testing.assert_array_equal(comp.residual('k', 0).asnumpy(), residual)
    assert math.isclose(comp.residual_norm('k'), float(np.linalg.norm(residual)), rel_tol=1e-6)
