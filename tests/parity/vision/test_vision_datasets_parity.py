"""The vision datasets against MXNet 1.9.1, on the same test-written files.

MNIST and Fashion-MNIST (IDX .gz), CIFAR-10 and CIFAR-100 (binary batches, coarse and
fine labels) and ImageFolderDataset (PNGs of several modes, in colour and gray) are
read by both sides from one folder; lengths, images (values, dtype, type), labels
(value and type) and synsets must be identical. MNIST files that MXNet's reader refuses
(pixels cut short or one image too many, too few labels) raise its exception type.
"""
import gzip
import os
from pathlib import Path

import numpy as np
import pytest

import datasets_parity_driver as driver
import vision_files
from harness import oracle_case_arrays, run_oracle

ORACLE_SCRIPT = Path(__file__).with_name('oracle_vision_datasets.py')


def _write_all(root):
    vision_files.random_mnist(os.path.join(root, 'mnist'), 7, seed=1, train=True)
    vision_files.random_mnist(os.path.join(root, 'mnist'), 4, seed=2, train=False)
    vision_files.random_mnist(os.path.join(root, 'fashion-mnist'), 5, seed=3)
    vision_files.random_cifar10(os.path.join(root, 'cifar10'), 3, seed=4)
    vision_files.random_cifar100(os.path.join(root, 'cifar100'), 6, seed=5)
    rng = np.random.RandomState(6)
    folder = os.path.join(root, 'folder')
    vision_files.write_png(os.path.join(folder, 'bus', 'b1.png'),
                           rng.randint(0, 256, (9, 7, 3)))
    vision_files.write_png(os.path.join(folder, 'bus', 'b0.png'), rng.randint(0, 256, (5, 6)))
    grayish = np.repeat(rng.randint(0, 256, (4, 4, 1)), 3, axis=2)
    grayish[0, 0] = [10, 200, 30]
    vision_files.write_png(os.path.join(folder, 'car', 'c.png'), grayish)
    from PIL import Image
    Image.fromarray(rng.randint(0, 256, (6, 5, 4)).astype(np.uint8), 'RGBA').save(
        os.path.join(folder, 'car', 'd.png'))
    images, labels = rng.randint(0, 256, (3, 28, 28)), rng.randint(0, 10, 3)
    for case_id, (kept, extra, label_count) in {'mnist-images-short': (-30, 0, 3),
                                                'mnist-images-long': (None, 784, 3),
                                                'mnist-labels-fewer': (None, 0, 2)}.items():
        damaged = os.path.join(root, driver.DAMAGED[case_id])
        vision_files.write_mnist(damaged, images, labels[:label_count])
        path = os.path.join(damaged, vision_files.MNIST_FILES[True][0])
        with gzip.open(path, 'rb') as fin:
            raw = fin.read()
        with gzip.open(path, 'wb') as out:
            out.write(raw[:kept] + bytes(extra))


@pytest.fixture(scope='session')
def datasets_oracle(tmp_path_factory):
    """``(data root, (results, meta))``: the files, and MXNet 1.9.1's reading of them."""
    workdir = tmp_path_factory.mktemp('mxnet_datasets_oracle')
    data_root = workdir / 'data'
    _write_all(str(data_root))
    return str(data_root), run_oracle(ORACLE_SCRIPT, workdir, data_root)


@pytest.mark.parametrize('case_id', sorted(driver.DATASETS))
def test_dataset_reads_what_mxnet_reads(case_id, datasets_oracle):
    import gluonedu
    data_root, oracle = datasets_oracle
    expected = oracle_case_arrays(*oracle, case_id)
    got = driver.read_dataset(gluonedu, case_id, data_root)
    assert sorted(got) == sorted(expected)
    for name in sorted(expected):
        assert got[name].dtype.kind == expected[name].dtype.kind, (case_id, name)
        np.testing.assert_array_equal(got[name], expected[name], err_msg='%s: %s'
                                      % (case_id, name))


@pytest.mark.parametrize('case_id', sorted(driver.DAMAGED))
def test_a_damaged_mnist_file_raises_what_mxnet_raises(case_id, datasets_oracle):
    import gluonedu
    data_root, oracle = datasets_oracle
    expected = oracle_case_arrays(*oracle, case_id)['error']
    assert str(expected) != 'none', 'MXNet 1.9.1 read the damaged file'
    assert str(driver.read_damaged(gluonedu, case_id, data_root)['error']) == str(expected)
