"""Write small image data sets in their original file formats, for the tests to read.

(``tests/`` is on ``sys.path`` through its conftest, so any test can ``import
vision_files``.)

* MNIST / Fashion-MNIST: gzip-compressed IDX files. Labels: magic 2049, count, one byte
  per label. Images: magic 2051, count, rows, cols, then the pixels row by row.
  Header integers are big-endian uint32.
* CIFAR-10 / CIFAR-100 binary batches: one record per image, the label byte(s) (CIFAR-100:
  coarse, then fine) followed by 3 × 32 × 32 pixel bytes, channel by channel (R, G, B
  planes, each row by row).

Hostile files: :func:`gzip_zeros` (a gzip member that expands about 1000-fold; gzip
members concatenate, so ``gzip.compress(header) + gzip_zeros(n)`` is an IDX file whose
payload is ``n`` zero bytes) and :func:`png_claiming` (a valid PNG header announcing any
size, with almost no pixels).
"""
import gzip
import os
import struct
import zlib

import numpy as np

MNIST_FILES = {True: ('train-images-idx3-ubyte.gz', 'train-labels-idx1-ubyte.gz'),
               False: ('t10k-images-idx3-ubyte.gz', 't10k-labels-idx1-ubyte.gz')}


def write_idx_labels(path, labels):
    labels = np.asarray(labels, np.uint8)
    with gzip.open(path, 'wb') as out:
        out.write(struct.pack('>II', 2049, len(labels)) + labels.tobytes())


def write_idx_images(path, images):
    images = np.asarray(images, np.uint8)
    n, rows, cols = images.shape
    with gzip.open(path, 'wb') as out:
        out.write(struct.pack('>IIII', 2051, n, rows, cols) + images.tobytes())


def write_mnist(root, images, labels, train=True):
    """Write ``images`` (n, 28, 28) and ``labels`` (n,) as MNIST's train or test files."""
    os.makedirs(root, exist_ok=True)
    image_name, label_name = MNIST_FILES[train]
    write_idx_images(os.path.join(root, image_name), images)
    write_idx_labels(os.path.join(root, label_name), labels)
    return root


def random_mnist(root, n, seed, train=True, classes=10):
    """Random (images, labels) written as MNIST files; returns them."""
    rng = np.random.RandomState(seed)
    images = rng.randint(0, 256, (n, 28, 28)).astype(np.uint8)
    labels = rng.randint(0, classes, n).astype(np.uint8)
    write_mnist(root, images, labels, train)
    return images, labels


def cifar_records(images, labels):
    """CIFAR binary records: ``labels`` (n,) or (n, 2), ``images`` (n, 32, 32, 3) HWC."""
    images = np.asarray(images, np.uint8)
    labels = np.asarray(labels, np.uint8).reshape(len(images), -1)
    planes = images.transpose(0, 3, 1, 2).reshape(len(images), -1)
    return np.concatenate([labels, planes], axis=1).tobytes()


def write_cifar(root, batches, folder=''):
    """Write ``{file name: (images, labels)}`` as CIFAR batch files in ``root/folder``."""
    directory = os.path.join(root, folder)
    os.makedirs(directory, exist_ok=True)
    for name, (images, labels) in batches.items():
        with open(os.path.join(directory, name), 'wb') as out:
            out.write(cifar_records(images, labels))
    return root


def random_cifar10(root, n_per_batch, seed, folder=''):
    """Random CIFAR-10 train (5 batches) and test files; ``{name: (images, labels)}``."""
    rng = np.random.RandomState(seed)
    names = ['data_batch_%d.bin' % i for i in range(1, 6)] + ['test_batch.bin']
    batches = {name: (rng.randint(0, 256, (n_per_batch, 32, 32, 3)),
                      rng.randint(0, 10, n_per_batch)) for name in names}
    write_cifar(root, batches, folder)
    return batches


def random_cifar100(root, n, seed, folder=''):
    """Random CIFAR-100 train and test files; labels (n, 2): coarse, fine."""
    rng = np.random.RandomState(seed)
    batches = {name: (rng.randint(0, 256, (n, 32, 32, 3)),
                      np.stack([rng.randint(0, 20, n), rng.randint(0, 100, n)], 1))
               for name in ('train.bin', 'test.bin')}
    write_cifar(root, batches, folder)
    return batches


def write_png(path, pixels):
    """Save ``pixels`` (H, W, 3) or (H, W) uint8 as a PNG with Pillow."""
    from PIL import Image
    os.makedirs(os.path.dirname(path), exist_ok=True)
    Image.fromarray(np.asarray(pixels, np.uint8)).save(path)


def gzip_zeros(nbytes, chunk=1 << 24):
    """One gzip member of ``nbytes`` zero bytes, compressed as it is made."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)   # wbits 31: the gzip container
    parts, left = [], nbytes
    while left:
        parts.append(compressor.compress(bytes(min(chunk, left))))
        left -= min(chunk, left)
    return b''.join(parts) + compressor.flush()


def png_claiming(width, height):
    """A PNG whose header announces ``width`` × ``height`` RGB pixels, then a few rows."""
    def chunk(kind, data):
        return (struct.pack('>I', len(data)) + kind + data
                + struct.pack('>I', zlib.crc32(kind + data)))
    header = struct.pack('>IIBBBBB', width, height, 8, 2, 0, 0, 0)   # 8-bit RGB
    rows = zlib.compress(bytes((3 * width + 1) * 4))
    return (b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', header) + chunk(b'IDAT', rows)
            + chunk(b'IEND', b''))
