"""The fast layer kernels held equal to the readable references, on random inputs.

Convolution (forward, input gradient, weight gradient) and pooling (every pool type,
both conventions, with and without padding), 1-D to 3-D, in float64 so that the two
orders of summation agree to 1e-12. The reference convolution itself is checked
against its definition by the adjoint identities ⟨conv(x), dy⟩ = ⟨x, ∂x⟩ = ⟨w, ∂w⟩.
BatchNorm's numba loops against its NumPy formulas. Also: the operators give the same
results with ``use_kernels('reference')``.
"""
import numpy as np
import pytest

from gluonedu import _numba, autograd, nd
from gluonedu.ndarray.nn_ops import use_kernels
from gluonedu.ndarray.nn_ops.kernels import (batchnorm_fast, batchnorm_reference, blas,
                                             conv_fast, conv_reference, conv_winograd,
                                             pool_fast, pool_reference)

SEEDS = range(40)


def _conv_geometry(seed):
    rng = np.random.RandomState(seed)
    nd_ = 1 + seed % 3
    groups = int(rng.choice([1, 2, 3]))
    kernel = tuple(int(k) for k in rng.randint(1, 4, nd_))
    stride = tuple(int(s) for s in rng.randint(1, 3, nd_))
    dilate = tuple(int(d) for d in rng.randint(1, 3, nd_))
    pad = tuple(int(p) for p in rng.randint(0, 3, nd_))
    spatial = tuple(max(1, d * (k - 1) + 1 - 2 * p + int(rng.randint(0, 4)))
                    for k, d, p in zip(kernel, dilate, pad))
    x = rng.standard_normal((int(rng.randint(1, 3)), groups * int(rng.randint(1, 4))) + spatial)
    w = rng.standard_normal((groups * int(rng.randint(1, 4)), x.shape[1] // groups) + kernel)
    return rng, x, w, (stride, pad, dilate, groups)


def _check_weight_gradient(x, w, dy, geometry, expected, tol):
    """The fast weight gradient equals ``expected``, computed afresh or from what the
    forward pass kept."""
    _, kept = conv_fast.forward_keeping(np, x, w, *geometry)
    for reuse in (None, kept):
        np.testing.assert_allclose(conv_fast.backward_weight(np, x, dy, w.shape, *geometry,
                                                             reuse),
                                   expected, rtol=tol, atol=tol)


@pytest.mark.parametrize('seed', SEEDS)
def test_fast_convolution_equals_reference(seed):
    rng, x, w, geometry = _conv_geometry(seed)
    y = conv_reference.forward(np, x, w, *geometry)
    np.testing.assert_allclose(conv_fast.forward(np, x, w, *geometry), y, rtol=1e-12,
                               atol=1e-12)
    dy = rng.standard_normal(y.shape)
    dx = conv_reference.backward_data(np, dy, w, x.shape, *geometry)
    dw = conv_reference.backward_weight(np, x, dy, w.shape, *geometry)
    np.testing.assert_allclose(conv_fast.backward_data(np, dy, w, x.shape, *geometry), dx,
                               rtol=1e-12, atol=1e-12)
    _check_weight_gradient(x, w, dy, geometry, dw, 1e-12)
    # the gradients are the adjoints of the (bilinear) convolution
    assert np.isclose((y * dy).sum(), (x * dx).sum())
    assert np.isclose((y * dy).sum(), (w * dw).sum())


def test_reference_convolution_matches_its_definition():
    """A direct six-loop 2-D convolution, term by term."""
    rng = np.random.RandomState(0)
    x, w = rng.standard_normal((2, 4, 5, 6)), rng.standard_normal((6, 2, 2, 3))
    stride, pad, dilate, groups = (2, 1), (1, 0), (1, 2), 2
    y = conv_reference.forward(np, x, w, stride, pad, dilate, groups)
    xpad = np.pad(x, ((0, 0), (0, 0), (1, 1), (0, 0)))
    expected = np.zeros_like(y)
    for n, o, i, j in np.ndindex(*y.shape):
        g = o // 3
        for c, ki, kj in np.ndindex(2, 2, 3):
            expected[n, o, i, j] += w[o, c, ki, kj] * xpad[n, 2 * g + c, i * 2 + ki,
                                                           j + 2 * kj]
    np.testing.assert_allclose(y, expected, rtol=1e-12)


def _pool_geometry(seed):
    rng = np.random.RandomState(100 + seed)
    nd_ = 1 + seed % 3
    kernel = tuple(int(k) for k in rng.randint(1, 4, nd_))
    stride = tuple(int(s) for s in rng.randint(1, 4, nd_))
    pad = tuple(int(rng.randint(0, k // 2 + 1)) for k in kernel)
    spatial = tuple(k + int(rng.randint(0, 5)) for k in kernel)
    full = bool(seed % 2)
    out = tuple(int((np.ceil if full else np.floor)((n + 2 * p - k) / s)) + 1
                for n, k, s, p in zip(spatial, kernel, stride, pad))
    x = rng.standard_normal((2, 3) + spatial)
    return rng, x, (kernel, stride, pad, out)


@pytest.mark.parametrize('pool_type', ['max', 'avg', 'sum', 'lp'])
@pytest.mark.parametrize('seed', range(16))
def test_fast_pooling_equals_reference(pool_type, seed):
    rng, x, (kernel, stride, pad, out) = _pool_geometry(seed)
    include_pad, p_value = bool(seed % 3), 1 + seed % 3
    y_ref, saved_ref = pool_reference.forward(np, x, kernel, stride, pad, out, pool_type,
                                              include_pad, p_value)
    y, saved = pool_fast.forward(np, x, kernel, stride, pad, out, pool_type, include_pad,
                                 p_value)
    np.testing.assert_allclose(y, y_ref, rtol=1e-12, atol=1e-12)
    dy = rng.standard_normal(y.shape)
    dx_ref = pool_reference.backward(np, dy, y_ref, saved_ref, x.shape, kernel, stride, pad,
                                     pool_type, include_pad, p_value)
    dx = pool_fast.backward(np, dy, y, saved, x.shape, kernel, stride, pad, pool_type,
                            include_pad, p_value)
    np.testing.assert_allclose(dx, dx_ref, rtol=1e-12, atol=1e-12)


def test_max_pooling_gradient_goes_to_the_first_largest_entry():
    x = np.array([[[1.0, 3.0, 3.0, 2.0, 2.0, 0.5]]])
    for kernels in (pool_reference, pool_fast):
        y, saved = kernels.forward(np, x, (3,), (3,), (0,), (2,), 'max', True, None)
        dx = kernels.backward(np, np.ones_like(y), y, saved, x.shape, (3,), (3,), (0,), 'max',
                              True, None)
        np.testing.assert_array_equal(dx, [[[0, 1, 0, 1, 0, 0]]])


@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('batch_stats', [True, False])
@pytest.mark.parametrize('shape', [(4, 3, 7), (1, 5, 1), (6, 2, 20)])
def test_fast_batch_norm_equals_reference(shape, batch_stats, dtype):
    if not _numba.available():
        pytest.skip('numba is not installed (pip install gluonedu[fast])')
    rng = np.random.RandomState(sum(shape))
    x, dy = (rng.standard_normal(shape).astype(dtype) for _ in range(2))
    scale, shift = rng.uniform(0.5, 2, shape[1]).astype(dtype), rng.standard_normal(shape[1])
    tol = 1e-5 if dtype == 'float32' else 1e-12
    results = []
    for kernels in (batchnorm_reference, batchnorm_fast):
        mean, var = kernels.stats(np, x)
        inv_std = 1 / np.sqrt(var + 1e-3)
        sums = kernels.backward_sums(np, x, dy, mean, inv_std)
        results.append([mean, var, kernels.normalize(np, x, mean, scale, shift.astype(dtype)),
                        *sums, kernels.backward_data(np, x, dy, mean, inv_std, scale, *sums,
                                                     batch_stats)])
    for ours, reference in zip(*results):
        assert ours.dtype == reference.dtype
        np.testing.assert_allclose(ours, reference, rtol=tol, atol=tol)


def _run_ops(seed):
    """Convolution, Deconvolution and Pooling with their gradients, on NDArrays."""
    rng = np.random.RandomState(seed)
    x = nd.array(rng.standard_normal((2, 4, 7, 6)), dtype='float64')
    w = nd.array(rng.standard_normal((6, 2, 3, 2)), dtype='float64')
    for a in (x, w):
        a.attach_grad()
    with autograd.record():
        y = nd.Convolution(x, w, kernel=(3, 2), stride=(2, 1), pad=(1, 1), num_filter=6,
                           num_group=2, no_bias=True)
        z = nd.Deconvolution(y, w, kernel=(3, 2), stride=(2, 1), num_filter=4, num_group=2)
        z = nd.BatchNorm(z, nd.ones(4, dtype='float64'), nd.zeros(4, dtype='float64'),
                         nd.zeros(4, dtype='float64'), nd.ones(4, dtype='float64'),
                         fix_gamma=False)
        out = nd.Pooling(z, kernel=(2, 2), pool_type='max', pooling_convention='full')
    out.backward(nd.array(rng.standard_normal(out.shape), dtype='float64'))
    return [out.asnumpy(), x.grad.asnumpy(), w.grad.asnumpy()]


def test_operators_give_the_same_results_on_either_kernels():
    fast = _run_ops(3)
    with use_kernels('reference'):
        reference = _run_ops(3)
    for a, b in zip(fast, reference):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_use_kernels_refuses_unknown_names():
    with pytest.raises(ValueError, match='reference'):
        with use_kernels('numba'):
            pass


def _check_kernels(rng, x, w, geometry, tol):
    """conv_fast's forward pass and both gradients equal conv_reference's."""
    y = conv_reference.forward(np, x, w, *geometry)
    np.testing.assert_allclose(conv_fast.forward(np, x, w, *geometry), y, rtol=tol, atol=tol)
    dy = rng.standard_normal(y.shape).astype(x.dtype)
    np.testing.assert_allclose(conv_fast.backward_data(np, dy, w, x.shape, *geometry),
                               conv_reference.backward_data(np, dy, w, x.shape, *geometry),
                               rtol=tol, atol=tol)
    _check_weight_gradient(x, w, dy, geometry,
                           conv_reference.backward_weight(np, x, dy, w.shape, *geometry), tol)


@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('seed', range(12))
def test_shifted_gemm_kernels_equal_reference(seed, dtype, monkeypatch):
    """Stride-1 ungrouped convolutions take the shifted-GEMM path (here from any width)."""
    monkeypatch.setattr(conv_fast, 'SHIFTED_FROM_CHANNELS', 1)
    rng = np.random.RandomState(200 + seed)
    nd_ = 1 + seed % 3
    kernel = tuple(int(k) for k in rng.randint(1, 4, nd_))
    dilate = tuple(int(d) for d in rng.randint(1, 3, nd_))
    pad = tuple(int(p) for p in rng.randint(0, 3, nd_))
    spatial = tuple(max(1, d * (k - 1) + 1 - 2 * p + int(rng.randint(0, 4)))
                    for k, d, p in zip(kernel, dilate, pad))
    x = rng.standard_normal((2, 3) + spatial).astype(dtype)
    w = rng.standard_normal((4, 3) + kernel).astype(dtype)
    geometry = ((1,) * nd_, pad, dilate, 1)
    assert conv_fast._shifted(np, x.dtype, geometry[0], 1, 3)
    tol = 1e-5 if dtype == 'float32' else 1e-12
    _check_kernels(rng, x, w, geometry, tol)


def test_blas_accumulate_adds_a_product_in_place():
    rng = np.random.RandomState(0)
    c, a, b = rng.standard_normal((5, 3)), rng.standard_normal((5, 4)), rng.standard_normal((4, 3))
    expected = c + a @ b
    target = c.copy()
    blas.accumulate(target, a, b)
    np.testing.assert_allclose(target, expected, rtol=1e-12)
    blas.accumulate(target, a, np.asfortranarray(b))  # a transposed (Fortran-order) operand
    np.testing.assert_allclose(target, expected + a @ b, rtol=1e-12)


def test_small_kernels_run_on_one_blas_thread():
    threadpoolctl = pytest.importorskip('threadpoolctl')
    libraries = threadpoolctl.ThreadpoolController().select(user_api='blas').lib_controllers
    before = [lib.num_threads for lib in libraries]
    with blas.threads_for(np, blas.SINGLE_THREAD_BELOW - 1):
        assert all(lib.num_threads == 1 for lib in libraries)
    assert [lib.num_threads for lib in libraries] == before
    with blas.threads_for(np, blas.SINGLE_THREAD_BELOW):
        assert [lib.num_threads for lib in libraries] == before


class _FakeBlas:
    """A BLAS library's thread control, recording every switch."""

    def __init__(self, threads):
        self.num_threads = threads
        self.sets = []

    def set_num_threads(self, threads):
        self.sets.append(threads)
        self.num_threads = threads


def test_one_blas_thread_switches_only_libraries_on_several(monkeypatch):
    single, several = _FakeBlas(1), _FakeBlas(4)
    monkeypatch.setattr(blas, '_blas_libraries', [single, several])
    with blas.threads_for(np, blas.ALREADY_SINGLE_BELOW):
        assert (single.num_threads, several.num_threads) == (1, 1)
    assert single.sets == [] and several.sets == [1, 4]
    several.num_threads = 1           # every library on one thread: nothing to switch
    with blas.threads_for(np, blas.ALREADY_SINGLE_BELOW):
        pass
    assert single.sets == [] and several.sets == [1, 4]
    several.num_threads = 2
    with pytest.raises(ValueError):   # restored when the product raises
        with blas.threads_for(np, blas.ALREADY_SINGLE_BELOW):
            raise ValueError
    assert several.sets == [1, 4, 1, 2] and several.num_threads == 2


@pytest.mark.parametrize('chunk_bytes', [1, conv_winograd.CHUNK_BYTES])
@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('seed', range(8))
def test_winograd_kernels_equal_reference(seed, dtype, chunk_bytes, monkeypatch):
    """3×3 stride-1 convolutions with enough channels take Winograd's F(2×2, 3×3): odd and
    even sizes (partial tiles at the edges), pads 0 to 2, each axis its own; the whole
    batch at once, or one sample at a time."""
    if not _numba.available():
        pytest.skip('numba is not installed (pip install gluonedu[fast])')
    monkeypatch.setattr(conv_winograd, 'CHUNK_BYTES', chunk_bytes)
    rng = np.random.RandomState(300 + seed)
    pad = tuple(int(p) for p in rng.randint(0, 3, 2))
    spatial = tuple(int(n) for n in rng.randint(max(1, 3 - 2 * min(pad)), 9, 2))
    channels = conv_winograd.WINOGRAD_FROM_CHANNELS + int(rng.randint(0, 4))
    x = rng.standard_normal((int(rng.randint(1, 3)), channels) + spatial).astype(dtype)
    w = rng.standard_normal((channels + int(rng.randint(0, 4)), channels, 3, 3)).astype(dtype)
    geometry = ((1, 1), pad, (1, 1), 1)
    assert conv_winograd.applies(np, x.dtype, (3, 3), *geometry, channels, w.shape[0])
    # float32: Winograd's transforms round differently from the direct sum
    tol = 1e-4 if dtype == 'float32' else 1e-12
    _check_kernels(rng, x, w, geometry, tol)


def test_winograd_leaves_other_convolutions_to_the_gemm_kernels():
    applies = conv_winograd.applies
    wide = conv_winograd.WINOGRAD_FROM_CHANNELS
    assert not applies(np, np.float32, (3, 3), (2, 2), (1, 1), (1, 1), 1, wide, wide)
    assert not applies(np, np.float32, (3, 3), (1, 1), (1, 1), (2, 2), 1, wide, wide)
    assert not applies(np, np.float32, (3, 3), (1, 1), (1, 1), (1, 1), 2, wide, wide)
    assert not applies(np, np.float32, (5, 5), (1, 1), (1, 1), (1, 1), 1, wide, wide)
    assert not applies(np, np.float32, (3, 3), (1, 1), (3, 3), (1, 1), 1, wide, wide)
    assert not applies(np, np.float32, (3, 3), (1, 1), (1, 1), (1, 1), 1, wide - 1, wide)
    assert not applies(np, np.int32, (3, 3), (1, 1), (1, 1), (1, 1), 1, wide, wide)


@pytest.mark.parametrize('dtype', ['float32', 'float64'])
@pytest.mark.parametrize('kernels', [pool_reference, pool_fast], ids=['reference', 'fast'])
def test_max_pooling_breaks_ties_and_nans_as_mxnet(dtype, kernels):
    """Max pooling (the reference, the NumPy and the numba paths): ties go to the first
    entry; NaN and -inf never win, so a window of nothing else gives the dtype's lowest
    value and its gradient goes to the window's first entry. The expected values are
    MXNet 1.9.1's for float32 (``nd.Pooling`` on the same input); for float64 MXNet drops
    that window's gradient (docs/divergences.md, "Max pooling: a window with nothing but
    NaN and -inf")."""
    nan, inf = np.nan, np.inf
    x = np.array([[[[1, 3, nan, nan], [3, 2, -inf, nan], [nan, -1, nan, 4], [0, 0, inf, 4]]]],
                 dtype=dtype)
    geometry = ((2, 2), (2, 2), (0, 0), (2, 2))
    y, saved = kernels.forward(np, x, *geometry, 'max', True, None)
    dx = kernels.backward(np, np.arange(1.0, 5.0, dtype=dtype).reshape(y.shape), y, saved,
                          x.shape, *geometry[:3], 'max', True, None)
    lowest = np.finfo(dtype).min
    np.testing.assert_array_equal(y, [[[[3, lowest], [0, inf]]]])
    np.testing.assert_array_equal(dx, [[[[0, 1, 2, 0], [0, 0, 0, 0], [0, 0, 0, 0],
                                         [3, 0, 4, 0]]]])


@pytest.mark.parametrize('stride', [(1, 1), (2, 2), (3, 1), (2,), (1, 2, 2)])
def test_pointwise_kernels_equal_reference(stride):
    """1×1 kernels without padding are one channel product per sample (any stride)."""
    rng = np.random.RandomState(len(stride) * 10 + sum(stride))
    x = rng.standard_normal((2, 5) + (7, 6, 5)[:len(stride)])
    w = rng.standard_normal((4, 5) + (1,) * len(stride))
    geometry = (stride, (0,) * len(stride), (2,) * len(stride), 1)
    assert conv_fast._pointwise(w.shape[2:], geometry[1], 1)
    _check_kernels(rng, x, w, geometry, 1e-12)
