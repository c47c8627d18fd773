"""Image datasets (``mx.gluon.data.vision``): MNIST, FashionMNIST, CIFAR10, CIFAR100 and
ImageFolderDataset, with MXNet 1.9.1's constructors and samples.

gluonedu never downloads. The datasets read the original files from ``root``, by
default ``$MXNET_HOME/datasets/<name>`` (``~/.mxnet/datasets/<name>`` when MXNET_HOME is
not set), where MXNet keeps its downloads:

============  ==============================================================================
dataset       files in ``root``
============  ==============================================================================
MNIST         ``train-images-idx3-ubyte.gz``, ``train-labels-idx1-ubyte.gz`` (train=True),
              ``t10k-images-idx3-ubyte.gz``, ``t10k-labels-idx1-ubyte.gz`` (train=False)
FashionMNIST  the same four names (Zalando's files)
CIFAR10       ``data_batch_1.bin`` ... ``data_batch_5.bin`` (train), ``test_batch.bin``
CIFAR100      ``train.bin``, ``test.bin``
============  ==============================================================================

The CIFAR files may also sit in the sub-folder the original archives unpack to
(``cifar-10-batches-bin``, ``cifar-100-binary``). A missing file raises FileNotFoundError
naming every file to get and where to put it; a damaged one raises ValueError naming it.
(MXNet checks its own copies' SHA-1 sums; gluonedu accepts any file in the format.)

A hostile file costs no more memory than an honest one of the size it claims. An IDX
file's header (magic number, sizes) is read and checked before its payload is
decompressed: sizes that a gzip file of its length cannot hold (deflate expands at most
1032-fold) are refused before anything is allocated, and the payload is decompressed in
chunks into an array of exactly the announced size, so a file that holds more is
refused after one byte more. An image that Pillow refuses as a decompression bomb
(more than twice ``PIL.Image.MAX_IMAGE_PIXELS`` pixels) raises ValueError too.

``ImageRecordDataset`` (RecordIO files of JPEG-encoded images) is not provided.
"""
import gzip
import os
import struct
import warnings
import zlib

import numpy as np

from .... import image
from .... import ndarray as nd
from ....base import MXNetError
from ..dataset import Dataset

__all__ = ['MNIST', 'FashionMNIST', 'CIFAR10', 'CIFAR100', 'ImageFolderDataset']


def data_dir():
    """MXNet's data directory: ``$MXNET_HOME``, else ``~/.mxnet``."""
    return os.getenv('MXNET_HOME', os.path.join(os.path.expanduser('~'), '.mxnet'))


class _LocalDataset(Dataset):
    """Arrays of images and labels read once from files in ``root``.

    Samples are ``(image, label)``: the image an NDArray, the label a NumPy int32, or
    ``transform(image, label)`` when a transform is given.
    """

    #: Where the files come from, for the message when they are missing.
    _source = ''

    def __init__(self, root, transform):
        self._root = os.path.expanduser(root)
        self._transform = transform
        self._data, self._label = self._get_data()

    def __getitem__(self, idx):
        if self._transform is not None:
            return self._transform(self._data[idx], self._label[idx])
        return self._data[idx], self._label[idx]

    def __len__(self):
        return len(self._label)

    def _get_data(self):
        raise NotImplementedError

    def _find(self, names, subfolders=()):
        """The paths of ``names`` in ``root`` (or one of ``subfolders`` of it); a missing
        file raises FileNotFoundError saying what to put where."""
        for folder in ('',) + tuple(subfolders):
            paths = [os.path.join(self._root, folder, name) for name in names]
            if all(os.path.isfile(path) for path in paths):
                return paths
        missing = [name for name in names if not os.path.isfile(os.path.join(self._root, name))]
        raise FileNotFoundError(
            "%s needs the file(s) %s in %s, which %s missing. gluonedu does not download "
            "data sets: get them from %s and put them there (or pass root='/your/folder')."
            % (type(self).__name__, ', '.join(missing), self._root,
               'is' if len(missing) == 1 else 'are', self._source))


#: The most a deflate stream expands (zlib's technical notes: 1032:1); a gzip file of
#: ``n`` bytes holds at most ``_DEFLATE_RATIO * n`` bytes.
_DEFLATE_RATIO = 1032
#: Bytes decompressed at a time.
_CHUNK = 1 << 20


def _read_idx(path, magic, ndim, labels=None):
    """The header sizes and uint8 payload of an IDX file (gzip-compressed).

    The header is checked before the payload is decompressed: the magic number, the
    first size against ``labels`` if given (an images file: the count and path of its
    labels file), and the payload's size against what the file's length can hold. The
    payload is then decompressed in chunks into an array of exactly that size.
    """
    header = 4 + 4 * ndim
    try:
        with gzip.open(path, 'rb') as fin:
            raw = fin.read(header)
            if len(raw) < header:
                raise ValueError("%s is truncated: %d bytes, shorter than the %d-byte IDX "
                                 "header" % (path, len(raw), header))
            found = struct.unpack('>I', raw[:4])[0]
            if found != magic:
                raise ValueError("%s is not an IDX file of this kind: its magic number is "
                                 "%d, expected %d" % (path, found, magic))
            sizes = struct.unpack('>' + 'I' * ndim, raw[4:])
            if labels is not None and sizes[0] != labels[0]:
                raise ValueError("%s holds %d images but %s holds %d labels: use files of "
                                 "the same set" % (path, sizes[0], labels[1], labels[0]))
            size = 1
            for n in sizes:   # Python ints: no product wraps around
                size *= n
            compressed = os.path.getsize(path)
            if size > _DEFLATE_RATIO * compressed:
                raise ValueError("%s is damaged: its header announces %s values, more than "
                                 "a gzip file of %d bytes can hold"
                                 % (path, ' x '.join(map(str, sizes)), compressed))
            payload = np.empty(size, dtype=np.uint8)
            view, done = memoryview(payload), 0
            while done < size:
                got = fin.readinto(view[done:done + _CHUNK])
                if not got:
                    break
                done += got
            if done < size or fin.read(1):
                raise ValueError("%s is damaged: its header announces %s values but it "
                                 "holds %s" % (path, ' x '.join(map(str, sizes)),
                                               done if done < size else 'more'))
    except (OSError, EOFError, zlib.error) as err:
        raise ValueError("%s is not a readable gzip file (%s); download it again" % (path, err)
                         ) from None
    return sizes, payload


class MNIST(_LocalDataset):
    """MNIST's handwritten digits (LeCun et al.): 28×28 gray images, labels 0-9.

    Each sample is ``(image, label)``: a uint8 NDArray of shape (28, 28, 1) and a NumPy
    int32. 60,000 training and 10,000 test images.

    Parameters
    ----------
    root : str, default ``$MXNET_HOME/datasets/mnist``
        The folder holding the four ``*-idx?-ubyte.gz`` files (see the module doc).
    train : bool, default True
        The training set, or the test set.
    transform : callable, optional
        ``transform(image, label)`` returns the sample, e.g.
        ``lambda data, label: (data.astype('float32') / 255, label)``.
    """

    _source = 'http://yann.lecun.com/exdb/mnist/'
    _files = {True: ('train-images-idx3-ubyte.gz', 'train-labels-idx1-ubyte.gz'),
              False: ('t10k-images-idx3-ubyte.gz', 't10k-labels-idx1-ubyte.gz')}

    def __init__(self, root=os.path.join(data_dir(), 'datasets', 'mnist'), train=True,
                 transform=None):
        self._train = train
        super().__init__(root, transform)

    def _get_data(self):
        image_path, label_path = self._find(self._files[bool(self._train)])
        (count,), labels = _read_idx(label_path, 2049, 1)
        (images, rows, cols), pixels = _read_idx(image_path, 2051, 3, (count, label_path))
        # the freshly read array itself becomes the NDArray's buffer (no second copy)
        return (nd.from_numpy(pixels.reshape(images, rows, cols, 1), copy=False),
                labels.astype(np.int32))


class FashionMNIST(MNIST):
    """Zalando's Fashion-MNIST (Xiao et al. 2017): 28×28 gray images of clothes in 10
    classes, a drop-in replacement for :class:`MNIST` (same files, same samples).

    Parameters
    ----------
    root : str, default ``$MXNET_HOME/datasets/fashion-mnist``
    train : bool, default True
    transform : callable, optional
    """

    _source = 'https://github.com/zalandoresearch/fashion-mnist'

    def __init__(self, root=os.path.join(data_dir(), 'datasets', 'fashion-mnist'),
                 train=True, transform=None):
        super().__init__(root, train, transform)


class CIFAR10(_LocalDataset):
    """CIFAR-10 (Krizhevsky 2009): 32×32 colour images in 10 classes.

    Each sample is ``(image, label)``: a uint8 NDArray of shape (32, 32, 3) and a NumPy
    int32. Read from the binary version's batch files (see the module doc).

    Parameters
    ----------
    root : str, default ``$MXNET_HOME/datasets/cifar10``
    train : bool, default True
    transform : callable, optional
    """

    _source = 'https://www.cs.toronto.edu/~kriz/cifar.html (the binary version)'
    _subfolder = 'cifar-10-batches-bin'
    _label_bytes = 1

    def __init__(self, root=os.path.join(data_dir(), 'datasets', 'cifar10'), train=True,
                 transform=None):
        self._train = train
        super().__init__(root, transform)

    def _names(self):
        if self._train:
            return ['data_batch_%d.bin' % i for i in range(1, 6)]
        return ['test_batch.bin']

    def _label_column(self):
        return 0

    def _read_batch(self, path):
        record = self._label_bytes + 3 * 32 * 32
        with open(path, 'rb') as fin:
            raw = np.frombuffer(fin.read(), dtype=np.uint8)
        if raw.size == 0 or raw.size % record:
            raise ValueError("%s is damaged: %d bytes is not a whole number of %d-byte "
                             "records (%d label byte(s) and 32 x 32 x 3 pixels)"
                             % (path, raw.size, record, self._label_bytes))
        rows = raw.reshape(-1, record)
        images = rows[:, self._label_bytes:].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1)
        return images, rows[:, self._label_column()].astype(np.int32)

    def _get_data(self):
        paths = self._find(self._names(), (self._subfolder,))
        data, label = zip(*(self._read_batch(path) for path in paths))
        data = np.concatenate(data)
        return nd.array(data, dtype=data.dtype), np.concatenate(label)


class CIFAR100(CIFAR10):
    """CIFAR-100 (Krizhevsky 2009): 32×32 colour images in 100 classes grouped into 20
    super-classes.

    Parameters
    ----------
    root : str, default ``$MXNET_HOME/datasets/cifar100``
    fine_label : bool, default False
        Label with the 100 fine classes, or the 20 coarse super-classes.
    train : bool, default True
    transform : callable, optional
    """

    _subfolder = 'cifar-100-binary'
    _label_bytes = 2

    def __init__(self, root=os.path.join(data_dir(), 'datasets', 'cifar100'),
                 fine_label=False, train=True, transform=None):
        self._fine_label = fine_label
        super().__init__(root, train, transform)

    def _names(self):
        return ['train.bin' if self._train else 'test.bin']

    def _label_column(self):
        return 1 if self._fine_label else 0


class ImageFolderDataset(Dataset):
    """Images stored one folder per class::

        root/car/0001.png
        root/car/xxxa.jpg
        root/bus/123.png

    Each sample is ``(image, label)``: a uint8 NDArray of shape (H, W, 3) (``flag=1``,
    RGB) or (H, W, 1) (``flag=0``, gray), and the class index, an int. Images are
    decoded with Pillow: PNGs give MXNet's (OpenCV's) pixels exactly, in colour and in
    gray; JPEG decoders may differ from OpenCV's by a level or so.

    Parameters
    ----------
    root : str
    flag : {0, 1}, default 1
    transform : callable, optional
        ``transform(image, label)`` returns the sample.

    Attributes
    ----------
    synsets : list of str
        The class names (sub-folders, sorted); ``synsets[i]`` is label ``i``.
    items : list of (str, int)
        Every image file and its label.
    """

    _exts = ('.jpg', '.jpeg', '.png')

    def __init__(self, root, flag=1, transform=None):
        self._root = os.path.expanduser(root)
        self._flag = flag
        self._transform = transform
        if not os.path.isdir(self._root):
            raise FileNotFoundError("ImageFolderDataset: %s is not a folder: give the folder "
                                    "that holds one sub-folder of images per class"
                                    % self._root)
        self._list_images(self._root)

    def _list_images(self, root):
        self.synsets = []
        self.items = []
        for folder in sorted(os.listdir(root)):
            path = os.path.join(root, folder)
            if not os.path.isdir(path):
                warnings.warn('Ignoring %s, which is not a directory.' % path, stacklevel=3)
                continue
            label = len(self.synsets)
            self.synsets.append(folder)
            for filename in sorted(os.listdir(path)):
                filename = os.path.join(path, filename)
                ext = os.path.splitext(filename)[1]
                if ext.lower() not in self._exts:
                    warnings.warn('Ignoring %s of type %s. Only support %s'
                                  % (filename, ext, ', '.join(self._exts)), stacklevel=3)
                    continue
                self.items.append((filename, label))

    def __getitem__(self, idx):
        path, label = self.items[idx]
        image = _read_image(path, self._flag)
        if self._transform is not None:
            return self._transform(image, label)
        return image, label

    def __len__(self):
        return len(self.items)


def _read_image(path, flag):
    """A uint8 NDArray (H, W, 3) RGB (flag 1) or (H, W, 1) gray (flag 0) of an image file,
    decoded as ``mx.image.imread`` decodes it; a damaged file raises ValueError naming it."""
    try:
        return image.imread(path, flag)
    except MXNetError as err:
        raise ValueError(str(err)) from None
