"""gluon.data.vision datasets read from files the tests write: samples, defaults, and the
errors for missing and damaged files. (Parity with MXNet's readers:
tests/parity/vision/test_vision_datasets_parity.py.)"""
import gzip
import inspect
import os
import warnings

import numpy as np
import pytest

import gluonedu as mx
import vision_files
from gluonedu import gluon
from gluonedu.gluon.data import vision


def test_mnist_samples(tmp_path):
    images, labels = vision_files.random_mnist(str(tmp_path), 5, seed=0)
    test_images, _ = vision_files.random_mnist(str(tmp_path), 3, seed=1, train=False)
    train = vision.MNIST(root=str(tmp_path))
    assert len(train) == 5 and len(vision.MNIST(root=str(tmp_path), train=False)) == 3
    image, label = train[2]
    assert isinstance(image, mx.nd.NDArray) and image.shape == (28, 28, 1)
    assert image.dtype == np.uint8 and isinstance(label, np.int32)
    np.testing.assert_array_equal(image.asnumpy()[:, :, 0], images[2])
    assert label == labels[2]
    np.testing.assert_array_equal(vision.MNIST(str(tmp_path), False)[0][0].asnumpy()[..., 0],
                                  test_images[0])


def test_transform_argument_and_transform_first(tmp_path):
    vision_files.random_mnist(str(tmp_path), 4, seed=0)
    scaled = vision.FashionMNIST(str(tmp_path),
                                 transform=lambda data, label: (data.astype('float32') / 255,
                                                                label + 1))
    image, label = scaled[0]
    assert image.dtype == np.float32 and float(image.max().asscalar()) <= 1.0
    plain = vision.FashionMNIST(str(tmp_path))
    assert label == plain[0][1] + 1
    tensors = plain.transform_first(vision.transforms.ToTensor())
    data, labels = next(iter(gluon.data.DataLoader(tensors, batch_size=4)))
    assert data.shape == (4, 1, 28, 28) and labels.dtype == np.int32


def test_default_roots_follow_mxnet_home():
    for cls, name in ((vision.MNIST, 'mnist'), (vision.FashionMNIST, 'fashion-mnist'),
                      (vision.CIFAR10, 'cifar10'), (vision.CIFAR100, 'cifar100')):
        default = inspect.signature(cls).parameters['root'].default
        assert default == os.path.join(vision.datasets.data_dir(), 'datasets', name)
    home = os.environ.get('MXNET_HOME')
    expected = home if home else os.path.join(os.path.expanduser('~'), '.mxnet')
    assert vision.datasets.data_dir() == expected


def test_missing_files_say_which_files_to_put_where(tmp_path):
    with pytest.raises(FileNotFoundError) as err:
        vision.MNIST(root=str(tmp_path / 'nowhere'))
    message = str(err.value)
    assert 'train-images-idx3-ubyte.gz' in message and 'train-labels-idx1-ubyte.gz' in message
    assert str(tmp_path / 'nowhere') in message and 'does not download' in message
    vision_files.random_cifar10(str(tmp_path), 1, seed=0)
    os.remove(tmp_path / 'data_batch_3.bin')
    with pytest.raises(FileNotFoundError, match=r'data_batch_3\.bin') as err:
        vision.CIFAR10(root=str(tmp_path))
    assert 'data_batch_1.bin' not in str(err.value)
    assert len(vision.CIFAR10(root=str(tmp_path), train=False)) == 1


@pytest.mark.parametrize('damage, message', [
    (lambda raw: b'not a gzip file at all', 'gzip'),
    (lambda raw: gzip.compress(gzip.decompress(raw)[:-30])[:-9], 'gzip'),   # cut short
    (lambda raw: gzip.compress(gzip.decompress(raw)[:-30]), 'damaged'),
    (lambda raw: gzip.compress(b'\x00\x00\x08\x01' + gzip.decompress(raw)[4:]), 'magic'),
    (lambda raw: gzip.compress(b'\x00\x00'), 'truncated'),
])
def test_damaged_mnist_files_are_named(tmp_path, damage, message):
    vision_files.random_mnist(str(tmp_path), 3, seed=0)
    path = tmp_path / 'train-images-idx3-ubyte.gz'
    path.write_bytes(damage(path.read_bytes()))
    with pytest.raises(ValueError, match=message) as err:
        vision.MNIST(root=str(tmp_path))
    assert str(path) in str(err.value)


def test_mnist_image_and_label_counts_must_agree(tmp_path):
    vision_files.random_mnist(str(tmp_path), 3, seed=0)
    vision_files.write_idx_labels(str(tmp_path / 'train-labels-idx1-ubyte.gz'), [1, 2])
    with pytest.raises(ValueError, match='3 images but .* 2 labels'):
        vision.MNIST(root=str(tmp_path))


def test_cifar10_layout_and_labels(tmp_path):
    batches = vision_files.random_cifar10(str(tmp_path), 2, seed=3)
    train = vision.CIFAR10(root=str(tmp_path))
    assert len(train) == 10
    image, label = train[4]                    # the first record of data_batch_3.bin
    assert image.shape == (32, 32, 3) and image.dtype == np.uint8
    assert isinstance(label, np.int32)
    np.testing.assert_array_equal(image.asnumpy(), batches['data_batch_3.bin'][0][0])
    assert label == batches['data_batch_3.bin'][1][0]


def test_cifar_files_in_the_archives_subfolder(tmp_path):
    vision_files.random_cifar10(str(tmp_path), 1, seed=0, folder='cifar-10-batches-bin')
    assert len(vision.CIFAR10(root=str(tmp_path))) == 5
    vision_files.random_cifar100(str(tmp_path), 2, seed=0, folder='cifar-100-binary')
    assert len(vision.CIFAR100(root=str(tmp_path), train=False)) == 2


def test_cifar100_coarse_and_fine_labels(tmp_path):
    batches = vision_files.random_cifar100(str(tmp_path), 4, seed=1)
    coarse = vision.CIFAR100(root=str(tmp_path))
    fine = vision.CIFAR100(root=str(tmp_path), fine_label=True)
    labels = batches['train.bin'][1]
    assert [coarse[i][1] for i in range(4)] == labels[:, 0].tolist()
    assert [fine[i][1] for i in range(4)] == labels[:, 1].tolist()


def test_damaged_cifar_file_is_named(tmp_path):
    vision_files.random_cifar100(str(tmp_path), 2, seed=1)
    path = tmp_path / 'train.bin'
    path.write_bytes(path.read_bytes()[:-5])
    with pytest.raises(ValueError, match='whole number of 3074-byte records') as err:
        vision.CIFAR100(root=str(tmp_path))
    assert str(path) in str(err.value)


@pytest.mark.filterwarnings('ignore:Ignoring')
def test_image_folder_dataset(tmp_path):
    rng = np.random.RandomState(0)
    cat = rng.randint(0, 256, (5, 7, 3))
    vision_files.write_png(str(tmp_path / 'cat' / 'a.png'), cat)
    vision_files.write_png(str(tmp_path / 'dog' / 'b.png'), rng.randint(0, 256, (4, 4)))
    (tmp_path / 'dog' / 'notes.txt').write_text('not an image')
    (tmp_path / 'README').write_text('not a class')
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        dataset = vision.ImageFolderDataset(str(tmp_path))
    assert len(caught) == 2
    assert dataset.synsets == ['cat', 'dog'] and len(dataset) == 2
    image, label = dataset[0]
    assert label == 0 and image.shape == (5, 7, 3) and image.dtype == np.uint8
    np.testing.assert_array_equal(image.asnumpy(), cat)
    gray, label = vision.ImageFolderDataset(str(tmp_path), flag=0)[1]
    assert label == 1 and gray.shape == (4, 4, 1)
    flipped = vision.ImageFolderDataset(str(tmp_path), transform=lambda img, lab: (img, -lab))
    assert flipped[1][1] == -1


def test_image_folder_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match='not a folder'):
        vision.ImageFolderDataset(str(tmp_path / 'missing'))
    (tmp_path / 'cls').mkdir()
    (tmp_path / 'cls' / 'broken.png').write_bytes(b'\x89PNG but not really')
    dataset = vision.ImageFolderDataset(str(tmp_path))
    with pytest.raises(ValueError, match='broken.png'):
        dataset[0]
    # Pillow's decompression-bomb guard, from the header (memory: test_hostile_datasets)
    (tmp_path / 'cls' / 'broken.png').write_bytes(vision_files.png_claiming(20000, 20000))
    with pytest.raises(ValueError, match='broken.png is too large to decode safely'):
        dataset[0]


def test_vision_is_exported_from_gluon_data():
    assert mx.gluon.data.vision is vision
    assert set(vision.__all__) >= {'MNIST', 'FashionMNIST', 'CIFAR10', 'CIFAR100',
                                   'ImageFolderDataset', 'transforms'}
