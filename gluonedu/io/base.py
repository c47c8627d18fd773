"""The iterator protocol every data iterator of ``mx.io`` follows."""
from .desc import DataBatch

__all__ = ['DataIter']


class DataIter:
    """The base of MXNet's data iterators: a Python iterator of :class:`DataBatch`.

    A subclass moves to the next batch in :meth:`iter_next` and reports that batch through
    :meth:`getdata`, :meth:`getlabel`, :meth:`getpad` and :meth:`getindex`; :meth:`next`
    assembles them. Unlike most Python iterators it is reusable: :meth:`reset` starts the
    next pass (epoch) over the data.

    Parameters
    ----------
    batch_size : int, default 0
        The number of examples in a batch.
    """

    def __init__(self, batch_size=0):
        self.batch_size = batch_size

    def __iter__(self):
        return self

    def reset(self):
        """Go back to the beginning of the data, for the next epoch."""

    def next(self):
        """The next batch.

        Returns
        -------
        DataBatch

        Raises
        ------
        StopIteration
            At the end of the data (call :meth:`reset` to start again).
        """
        if self.iter_next():
            return DataBatch(data=self.getdata(), label=self.getlabel(), pad=self.getpad(),
                             index=self.getindex())
        raise StopIteration

    def __next__(self):
        return self.next()

    def iter_next(self):
        """Move to the next batch.

        Returns
        -------
        bool
            Whether there was one.
        """

    def getdata(self):
        """The data of the current batch (a list of NDArray)."""

    def getlabel(self):
        """The labels of the current batch (a list of NDArray)."""

    def getindex(self):
        """The positions of the current batch's examples (numpy.ndarray), or None."""
        return None

    def getpad(self):
        """How many examples at the end of the current batch are padding (int)."""


class BatchHoldingIter(DataIter):
    """A DataIter whose :meth:`iter_next` keeps the whole batch in ``current_batch`` (an
    iterator over other iterators): the accessors read it."""

    current_batch = None

    def getdata(self):
        return self.current_batch.data

    def getlabel(self):
        return self.current_batch.label

    def getindex(self):
        return self.current_batch.index

    def getpad(self):
        return self.current_batch.pad
