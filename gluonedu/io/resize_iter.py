"""ResizeIter: an epoch of a fixed number of batches from any iterator."""
from .base import BatchHoldingIter

__all__ = ['ResizeIter']


class ResizeIter(BatchHoldingIter):
    """Make an epoch of ``size`` batches from ``data_iter``, whatever its own length.

    When ``data_iter`` runs out before ``size`` batches, it is reset and read on; when it
    has more, the rest waits for the next epoch.

    Parameters
    ----------
    data_iter : DataIter
        The iterator to read.
    size : int
        Batches per epoch.
    reset_internal : bool, default True
        Whether :meth:`reset` also resets ``data_iter`` (False: the next epoch continues
        where this one stopped).

    Examples
    --------
    >>> import gluonedu as mx
    >>> batches = mx.io.NDArrayIter(mx.nd.ones((100, 10)), batch_size=25)
    >>> [batch.data[0].shape for batch in mx.io.ResizeIter(batches, 2)]
    [(25, 10), (25, 10)]
    """

    def __init__(self, data_iter, size, reset_internal=True):
        super().__init__()
        self.data_iter = data_iter
        self.size = size
        self.reset_internal = reset_internal
        self.cur = 0
        self.current_batch = None
        self.provide_data = data_iter.provide_data
        self.provide_label = data_iter.provide_label
        self.batch_size = data_iter.batch_size
        if hasattr(data_iter, 'default_bucket_key'):
            self.default_bucket_key = data_iter.default_bucket_key

    def reset(self):
        """Start the next epoch of ``size`` batches."""
        self.cur = 0
        if self.reset_internal:
            self.data_iter.reset()

    def iter_next(self):
        """Read the next batch (resetting ``data_iter`` when it runs out)."""
        if self.cur == self.size:
            return False
        try:
            self.current_batch = self.data_iter.next()
        except StopIteration:
            self.data_iter.reset()
            self.current_batch = self.data_iter.next()
        self.cur += 1
        return True
