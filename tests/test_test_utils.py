"""mx.test_utils: comparisons with MXNet's tolerances, random data, assert_exception."""
import os

import numpy as np
import pytest

import gluonedu as mx
from gluonedu import nd
from gluonedu import test_utils as tu


def test_default_tolerances_match_mxnet_1_9_1():
    assert tu.default_rtols()[np.dtype(np.float16)] == 1e-2
    assert tu.default_rtols()[np.dtype(np.float32)] == 1e-4
    assert tu.default_rtols()[np.dtype(np.float64)] == 1e-5
    assert tu.default_atols()[np.dtype(np.float16)] == 1e-1
    assert tu.default_atols()[np.dtype(np.float32)] == 1e-3
    assert tu.default_atols()[np.dtype(np.float64)] == 1e-20
    assert tu.default_rtols()[np.dtype(np.int32)] == 0


def test_tolerances_follow_the_looser_dtype():
    assert tu.get_tols(np.zeros(1, np.float32), np.zeros(1, np.float64), None, None) == \
        (1e-4, 1e-3)
    assert tu.get_tols(nd.zeros(1, dtype='float16'), 1.0, None, None) == (1e-2, 1e-1)
    assert tu.get_tols(np.zeros(1), np.zeros(1), 0.5, 0.25) == (0.5, 0.25)
    assert tu.get_tols(np.zeros(1, np.float32), np.zeros(1, np.float32),
                       {np.dtype(np.float32): 0.3}, None) == (0.3, 1e-3)


@pytest.mark.parametrize('a, b', [(nd.array([1, 2]), np.array([1, 2.00001])),
                                  (np.array([1.0]), nd.array([1.0])),
                                  (nd.array([3.0]), 3.0), (2.0, 2.0),
                                  (nd.ones((2, 3)), np.ones(3)),  # broadcasting
                                  ([1.0, 2.0], nd.array([1, 2]))])
def test_assert_almost_equal_accepts_ndarrays_numpy_and_scalars(a, b):
    tu.assert_almost_equal(a, b)


def test_assert_almost_equal_reports_the_worst_element():
    with pytest.raises(AssertionError) as err:
        tu.assert_almost_equal(nd.array([1, 2, 3]), np.array([1, 2.5, 3], dtype=np.float32),
                               names=('got', 'want'))
    message = str(err.value)
    assert 'got=2.0' in message and 'want=2.5' in message and '(1,)' in message


def test_assert_almost_equal_dtype_dependent_defaults():
    tu.assert_almost_equal(nd.array([1.0], dtype='float16'), np.array([1.05], np.float16))
    with pytest.raises(AssertionError):
        tu.assert_almost_equal(np.array([1.0]), np.array([1.0001]))  # float64: rtol 1e-5
    with pytest.raises(AssertionError):
        tu.assert_almost_equal(nd.array([1, 2], dtype='int32'), np.array([1, 3], np.int32))


def test_assert_almost_equal_nan_handling_and_shapes():
    nan = np.array([np.nan, 1.0])
    with pytest.raises(AssertionError):
        tu.assert_almost_equal(nan, nan)
    tu.assert_almost_equal(nan, nan, equal_nan=True)
    with pytest.raises(AssertionError):
        tu.assert_almost_equal(np.ones(2), np.ones(3))


def test_almost_equal_and_same():
    assert tu.almost_equal(nd.array([1.0]), np.array([1.0]))
    assert not tu.almost_equal(np.array([1.0]), np.array([1.001]))
    assert tu.almost_equal(np.array([1.0]), np.array([1.001]), rtol=1e-2)
    assert tu.same(nd.array([1, 2]), np.array([1, 2]))
    assert not tu.same(np.array([1, 2]), np.array([1, 3]))


def test_assert_exception():
    tu.assert_exception(nd.ones((2, 3)).asscalar, ValueError)
    tu.assert_exception(lambda a, b: a + b, mx.MXNetError, nd.ones(2), nd.ones(3, ctx=mx.cpu(1)))
    with pytest.raises(AssertionError):
        tu.assert_exception(lambda: None, ValueError)
    with pytest.raises(KeyError):  # another exception type is not swallowed
        tu.assert_exception(lambda: {}['k'], ValueError)


def test_rand_ndarray_and_shapes():
    np.random.seed(1)
    a = tu.rand_ndarray((3, 4))
    assert a.shape == (3, 4) and a.dtype == np.float32 and a.context == mx.cpu(0)
    b = tu.rand_ndarray((2, 2), dtype='float64', ctx=mx.cpu(1))
    assert b.dtype == np.float64 and b.context == mx.cpu(1)
    c = tu.rand_ndarray((20, 50), stype='csr', density=0.1)
    assert c.stype == 'csr' and c.shape == (20, 50) and c.data.shape == (100,)
    assert ((c.asnumpy() >= 0) & (c.asnumpy() < 1)).all()
    with pytest.raises(ValueError):
        tu.rand_ndarray((2, 2, 2), stype='csr')
    doubled = tu.rand_ndarray((10, 10), stype='csr', density=0.3, modifier_func=lambda v: 2 + v)
    assert ((doubled.data.asnumpy() >= 2) & (doubled.data.asnumpy() < 3)).all()
    with pytest.raises(ValueError, match='sorted'):
        tu.rand_ndarray((4, 4), stype='csr', density=0.5, shuffle_csr_indices=True)
    with pytest.raises(ValueError):
        tu.rand_ndarray((2, 2), stype='dense')
    for _ in range(20):
        d0, d1 = tu.rand_shape_2d(3, 4)
        assert 1 <= d0 <= 3 and 1 <= d1 <= 4
        assert all(1 <= n <= 5 for n in tu.rand_shape_3d(5, 5, 5))
        shape = tu.rand_shape_nd(4, dim=2)
        assert len(shape) == 4 and all(1 <= n <= 2 for n in shape)
    assert 0 in {n for _ in range(50) for n in tu.rand_shape_2d(1, 1, allow_zero_size=True)}


def test_default_context():
    assert tu.default_context() == mx.cpu(0)
    with mx.cpu(2):
        assert tu.default_context() == mx.cpu(2)


def test_list_gpus_counts_the_gpus_gluonedu_can_use():
    assert list(tu.list_gpus()) == list(range(mx.num_gpus()))


def test_nothing_is_downloaded(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FileNotFoundError, match='does not download') as err:
        tu.download('http://example.com/data/file.bin', dirname='data')
    assert str(tmp_path / 'data' / 'file.bin') in str(err.value)
    (tmp_path / 'file.bin').write_bytes(b'here')
    assert tu.download('http://example.com/data/file.bin') == 'file.bin'
    with pytest.raises(FileNotFoundError):
        tu.download('http://example.com/data/file.bin', overwrite=True)
    with pytest.raises(FileNotFoundError, match='train-labels-idx1-ubyte.gz'):
        tu.get_mnist()
    for helper, name in ((tu.get_mnist_ubyte, 'train-images-idx3-ubyte'),
                         (tu.get_mnist_pkl, 'mnist.pkl.gz'), (tu.get_cifar10, 'train.rec')):
        with pytest.raises(FileNotFoundError, match=name):
            helper()
    assert not (tmp_path / 'data').exists()


def test_get_mnist_reads_the_files_in_the_working_folder(tmp_path, monkeypatch):
    import vision_files
    images, labels = vision_files.random_mnist(str(tmp_path), 4, seed=0)
    vision_files.random_mnist(str(tmp_path), 2, seed=1, train=False)
    monkeypatch.chdir(tmp_path)
    data = tu.get_mnist()
    assert data['train_data'].shape == (4, 1, 28, 28) and data['train_data'].dtype == np.float32
    np.testing.assert_allclose(data['train_data'][:, 0] * 255, images, rtol=1e-6)
    assert data['train_label'].dtype == np.int8 and data['test_label'].shape == (2,)
    np.testing.assert_array_equal(data['train_label'], labels)


def test_environment_restores_after_an_error():
    name = 'GLUONEDU_TEST_UTILS_ENV'
    with pytest.raises(KeyError):
        with tu.environment(name, '1'):
            assert os.environ[name] == '1'
            raise KeyError('inside')
    assert name not in os.environ


def test_assert_almost_equal_lists_further_mismatches():
    with pytest.raises(AssertionError) as err:
        tu.assert_almost_equal(np.zeros(4), np.array([0, 1.0, 3.0, 2.0]), mismatches=(3, 3))
    message = str(err.value)
    assert 'Location of maximum error: (2,)' in message
    assert '(3,):' in message and '(1,):' in message


def test_chi_square_check_agrees_with_scipy_on_continuous_and_discrete_samples():
    scipy_stats = pytest.importorskip('scipy.stats')
    tu = mx.test_utils
    buckets, probs = tu.gen_buckets_probs_with_ppf(lambda x: scipy_stats.norm.ppf(x), 4)
    np.random.seed(3)
    samples = np.random.normal(size=4000)
    p, observed, expected = tu.chi_square_check(lambda n: samples[:n], buckets, probs, 4000)
    edges = [scipy_stats.norm.ppf(q) for q in (0.25, 0.5, 0.75)]
    assert observed.tolist() == np.bincount(np.searchsorted(edges, samples), minlength=4).tolist()
    assert expected.tolist() == [1000] * 4
    assert p == pytest.approx(scipy_stats.chisquare(observed, expected)[1])
    p, observed, _ = tu.chi_square_check(lambda n: np.array([0, 1, 1, 2] * (n // 4)), [0, 1, 2],
                                         [0.25, 0.5, 0.25], 400)
    assert observed.tolist() == [100, 200, 100] and p == pytest.approx(1.0)


def test_verify_generator_fails_a_wrong_generator():
    pytest.importorskip('scipy.stats')
    tu = mx.test_utils
    np.random.seed(4)
    uniform = ([(0, .5), (.5, 1)], [.5, .5])
    assert len(tu.verify_generator(lambda n: np.random.uniform(size=n), *uniform,
                                   nsamples=2000, nrepeat=3)) == 3
    with pytest.raises(AssertionError, match='Generator test fails'):
        tu.verify_generator(lambda n: np.random.uniform(size=n) * 0.4, *uniform,
                            nsamples=2000, nrepeat=3)


def test_csr_helpers_refuse_unsorted_column_indices():
    csr = mx.test_utils.rand_ndarray((3, 4), 'csr', density=0.5)
    with pytest.raises(ValueError, match='sorted'):
        mx.test_utils.shuffle_csr_column_indices(csr)
