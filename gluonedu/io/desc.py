"""What an iterator yields: :class:`DataBatch`, and :class:`DataDesc`, the name, shape,
dtype and layout of one of its arrays."""
from collections import namedtuple

from ..base import mx_real_t

__all__ = ['DataDesc', 'DataBatch']


class DataDesc(namedtuple('DataDesc', ['name', 'shape'])):
    """The name and shape of one input (or label) of a batch, with its dtype and layout.

    It is the tuple ``(name, shape)``, so code that unpacks pairs keeps working; ``dtype``
    and ``layout`` ride along as attributes.

    Parameters
    ----------
    name : str
        The input's name, e.g. ``'data'`` or ``'softmax_label'``.
    shape : tuple of int
        The shape of one batch of it.
    dtype : numpy type, default numpy.float32
        Its element type.
    layout : str, default 'NCHW'
        What each axis of ``shape`` means: ``N`` is the batch axis (``'NCHW'``: batch,
        channel, height, width; ``'NTC'``: batch, time, channel).
    """

    def __new__(cls, name, shape, dtype=mx_real_t, layout='NCHW'):
        desc = super().__new__(cls, name, shape)
        desc.dtype = dtype
        desc.layout = layout
        return desc

    def __repr__(self):
        return 'DataDesc[%s,%s,%s,%s]' % (self.name, self.shape, self.dtype, self.layout)

    @staticmethod
    def get_batch_axis(layout):
        """The axis of the batch in ``layout``: the position of ``'N'``.

        Parameters
        ----------
        layout : str or None
            A layout such as ``'NCHW'`` or ``'TNC'``; None means axis 0.

        Returns
        -------
        int
            The batch axis, or -1 if ``layout`` has no ``'N'``.
        """
        if layout is None:
            return 0
        return layout.find('N')

    @staticmethod
    def get_list(shapes, types):
        """DataDescs from ``(name, shape)`` pairs and, optionally, ``(name, dtype)`` pairs.

        Parameters
        ----------
        shapes : sequence of (str, tuple)
            The name and shape of each input.
        types : sequence of (str, dtype) or None
            The dtype of each name; None gives every input the default float32.

        Returns
        -------
        list of DataDesc
        """
        if types is None:
            return [DataDesc(name, shape) for name, shape in shapes]
        dtypes = dict(types)
        return [DataDesc(name, shape, dtypes[name]) for name, shape in shapes]


class DataBatch:
    """One batch of an iterator: its data and labels, and how many examples are padding.

    Parameters
    ----------
    data : list of NDArray
        The inputs, each holding ``batch_size`` examples along its batch axis.
    label : list of NDArray, optional
        The labels, in the same order as the examples.
    pad : int, optional
        How many examples at the end of the batch are filling (repeated or left over
        from before) rather than new data; ignore them when predicting.
    index : numpy.ndarray, optional
        The position of each example in the data set, where the iterator knows it.
    bucket_key : int, optional
        The bucket of a bucketing iterator.
    provide_data, provide_label : list of DataDesc, optional
        What ``data[i]`` and ``label[i]`` are (name, shape, dtype, layout).
    """

    def __init__(self, data, label=None, pad=None, index=None, bucket_key=None,
                 provide_data=None, provide_label=None):
        # AssertionError: the type MXNet raises here.
        if data is not None and not isinstance(data, (list, tuple)):
            raise AssertionError('DataBatch data must be a list of NDArrays, got %s; wrap '
                                 'a single array in a list: DataBatch([x])'
                                 % type(data).__name__)
        if label is not None and not isinstance(label, (list, tuple)):
            raise AssertionError('DataBatch label must be a list of NDArrays, got %s; wrap '
                                 'a single array in a list: DataBatch([x], [y])'
                                 % type(label).__name__)
        self.data = data
        self.label = label
        self.pad = pad
        self.index = index
        self.bucket_key = bucket_key
        self.provide_data = provide_data
        self.provide_label = provide_label

    def __str__(self):
        data_shapes = [d.shape for d in self.data]
        label_shapes = [lab.shape for lab in self.label] if self.label else None
        return '%s: data shapes: %s label shapes: %s' % (type(self).__name__, data_shapes,
                                                          label_shapes)
