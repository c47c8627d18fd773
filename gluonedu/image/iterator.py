"""``ImageIter``: batches of augmented images read from a folder of image files.

The images are listed in a ``.lst`` file (``path_imglist``: one line per image, tab
separated: an integer key, one or more labels, the path relative to ``path_root``), as
MXNet's ``tools/im2rec.py --list`` writes it, or given as a Python list (``imglist``).
Each image is decoded (:func:`~gluonedu.image.imdecode`), run through the augmenter list
(by default :func:`~gluonedu.image.CreateAugmenter` of the keyword arguments) and put
into the batch as (channels, height, width) float32. RecordIO files (``path_imgrec``)
are not read: gluonedu has no RecordIO codec.
"""
import numbers
import os

from .. import ndarray as nd
from ..io import DataBatch, DataIter
from .augmenters import CreateAugmenter
from .codec import imdecode
from .geometry import generator

__all__ = ['ImageIter']

_LABEL_DTYPES = ('int32', 'float32', 'int64', 'float64')


class ImageIter(DataIter):
    """Batches of images from files, augmented, as ``data`` (N, C, H, W) float32 and
    ``softmax_label`` (N,) or (N, label_width).

    Parameters
    ----------
    batch_size : int
        Images per batch.
    data_shape : tuple of int
        (3, height, width): every augmented image must have this shape.
    label_width : int, default 1
        Labels per image.
    path_imgrec, path_imgidx : str, optional
        RecordIO files: not supported (NotImplementedError); use path_imglist.
    path_imglist : str, optional
        The ``.lst`` file: ``key<TAB>label[<TAB>label…]<TAB>relative path`` per line.
    imglist : list, optional
        Instead of a file: ``[label or [labels…], path]`` per image.
    path_root : str, optional
        The folder the paths are relative to.
    shuffle : bool, default False
        Shuffle the images at each :meth:`reset` (draws from ``mx.random.seed``'s
        generator of cpu(0)).
    part_index, num_parts : int
        Read only part ``part_index`` of ``num_parts`` equal parts (distributed training).
    aug_list : list of Augmenter, optional
        The augmenters; default ``CreateAugmenter(data_shape, **kwargs)``.
    data_name, label_name : str
        The names in provide_data and provide_label.
    dtype : str, default 'float32'
        The labels' dtype: int32, float32, int64 or float64.
    last_batch_handle : {'pad', 'discard', 'roll_over'}
        The last, incomplete batch: filled up from the start of the data (``pad`` says
        how many), dropped, or completed with the first images of the next epoch.
    **kwargs
        CreateAugmenter's arguments (resize, rand_crop, mean, std, …).
    """

    def __init__(self, batch_size, data_shape, label_width=1, path_imgrec=None,
                 path_imglist=None, path_root=None, path_imgidx=None, shuffle=False,
                 part_index=0, num_parts=1, aug_list=None, imglist=None, data_name='data',
                 label_name='softmax_label', dtype='float32', last_batch_handle='pad',
                 **kwargs):
        super().__init__(batch_size)
        if path_imgrec or path_imgidx:
            raise NotImplementedError('ImageIter: RecordIO files (path_imgrec) are not '
                                      'supported in gluonedu; list the image files in a .lst '
                                      'file and pass path_imglist= and path_root=')
        if not (path_imglist or isinstance(imglist, list)):
            raise AssertionError('ImageIter needs path_imglist (a .lst file) or imglist (a '
                                 'list of [label, path])')
        if dtype not in _LABEL_DTYPES:
            raise AssertionError('%s label not supported: use one of %s'
                                 % (dtype, ', '.join(_LABEL_DTYPES)))
        if path_imglist:
            self.imglist, self.seq = _read_imglist(path_imglist, dtype)
        else:
            self.imglist, self.seq = _from_list(imglist, dtype)
        self.path_root = path_root
        self.check_data_shape(data_shape)
        self.provide_data = [(data_name, (batch_size,) + tuple(data_shape))]
        self.provide_label = [(label_name, (batch_size, label_width) if label_width > 1
                               else (batch_size,))]
        self.data_shape = tuple(data_shape)
        self.label_width = label_width
        self.shuffle = shuffle
        if num_parts > 1:
            if part_index >= num_parts:
                raise AssertionError('ImageIter: part_index %d must be below num_parts %d'
                                     % (part_index, num_parts))
            part = len(self.seq) // num_parts
            self.seq = self.seq[part_index * part:(part_index + 1) * part]
        self.auglist = CreateAugmenter(data_shape, **kwargs) if aug_list is None else aug_list
        self.last_batch_handle = last_batch_handle
        self.num_image = len(self.seq)
        self.cur = 0
        self._allow_read = True
        self._cache = None      # roll_over: (data, label, count) of the unfinished batch
        self.reset()

    def reset(self):
        """Start the next epoch (shuffling first if asked); with ``roll_over``, a
        batch left unfinished is completed by the next :meth:`next`."""
        if self.shuffle:
            self._shuffle()
        if self.last_batch_handle != 'roll_over' or self._cache is None:
            self.cur = 0
            self._allow_read = True

    def hard_reset(self):
        """Start the next epoch, dropping any rolled-over images."""
        if self.shuffle:
            self._shuffle()
        self.cur = 0
        self._allow_read = True
        self._cache = None

    def _shuffle(self):
        order = generator().permutation(len(self.seq))
        self.seq = [self.seq[i] for i in order]

    def next_sample(self):
        """(label, encoded bytes) of the next image; StopIteration at the end."""
        if not self._allow_read:
            raise StopIteration
        if self.cur >= self.num_image:
            if self.last_batch_handle != 'discard':
                self.cur = 0
            raise StopIteration
        label, fname = self.imglist[self.seq[self.cur]]
        self.cur += 1
        return label, self.read_image(fname)

    def _batchify(self, batch_data, batch_label, start=0):
        """Fill the batch from position ``start``; how many positions are filled."""
        i = start
        try:
            while i < self.batch_size:
                label, encoded = self.next_sample()
                data = self.augmentation_transform(self.imdecode(encoded))
                batch_data[i] = self.postprocess_data(data)
                batch_label[i] = label
                i += 1
        except StopIteration:
            if not i:
                raise
        return i

    def next(self):
        """The next :class:`~gluonedu.io.DataBatch`; StopIteration at the end of the epoch."""
        if self._cache is not None:
            batch_data, batch_label, i = self._cache
        else:
            batch_data = nd.zeros((self.batch_size,) + self.data_shape)
            batch_label = nd.empty(self.provide_label[0][1])
            i = self._batchify(batch_data, batch_label)
        pad = self.batch_size - i
        if pad:
            if self.last_batch_handle == 'discard':
                raise StopIteration
            if self.last_batch_handle == 'roll_over' and self._cache is None:
                self._cache = (batch_data, batch_label, i)
                raise StopIteration
            self._batchify(batch_data, batch_label, i)
            if self.last_batch_handle == 'pad':
                self._allow_read = False
            else:
                self._cache = None
        return DataBatch([batch_data], [batch_label], pad=pad)

    def check_data_shape(self, data_shape):
        """data_shape must be (3, height, width)."""
        if len(data_shape) != 3:
            raise ValueError('data_shape should have length 3, with dimensions CxHxW')
        if data_shape[0] != 3:
            raise ValueError('This iterator expects inputs to have 3 channels.')

    def imdecode(self, s):
        """Decode the bytes ``s`` of the image being read; RuntimeError naming its file if
        they do not decode."""
        try:
            return imdecode(s)
        except Exception as err:  # any failure: say which file
            fname = self.imglist[self.seq[(self.cur - 1) % self.num_image]][1]
            raise RuntimeError('Broken image filename: %s, %s' % (fname, err)) from err

    def read_image(self, fname):
        """The bytes of the file ``fname`` (relative to ``path_root``)."""
        with open(os.path.join(self.path_root or '', fname), 'rb') as stream:
            return stream.read()

    def augmentation_transform(self, data):
        """``data`` through every augmenter of the list, in order."""
        for aug in self.auglist:
            data = aug(data)
        return data

    def postprocess_data(self, datum):
        """(height, width, channels) -> (channels, height, width), for the batch."""
        return nd.transpose(datum, axes=(2, 0, 1))


def _read_imglist(path, dtype):
    """{key: (label NDArray, relative path)} and the keys in file order, from a .lst file."""
    imglist, keys = {}, []
    with open(path) as lines:
        for number, line in enumerate(lines, 1):
            fields = line.strip().split('\t')
            if len(fields) < 3:
                raise ValueError('%s line %d: expected key<TAB>label<TAB>path, got %r'
                                 % (path, number, line))
            key = int(fields[0])
            imglist[key] = (nd.array([float(v) for v in fields[1:-1]], dtype=dtype),
                            fields[-1])
            keys.append(key)
    return imglist, keys


def _from_list(imglist, dtype):
    """{key: (label NDArray, path)} and the keys, from ``[label(s), path]`` items."""
    result, keys = {}, []
    for index, item in enumerate(imglist, 1):
        if len(item) > 2:
            label = item[:-1]
        elif isinstance(item[0], numbers.Number):
            label = [item[0]]
        else:
            label = item[0]
        key = str(index)
        result[key] = (nd.array(label, dtype=dtype), item[-1])
        keys.append(key)
    return result, keys
