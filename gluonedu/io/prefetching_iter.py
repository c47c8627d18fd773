"""PrefetchingIter: reads the next batch of other iterators in background threads."""
import threading

from .base import BatchHoldingIter
from .desc import DataBatch, DataDesc

__all__ = ['PrefetchingIter']


class PrefetchingIter(BatchHoldingIter):
    """Read the next batch of one or more iterators in the background, one thread each.

    While the caller works on a batch, each thread already reads its iterator's next one,
    so the loading overlaps the training, at the cost of one batch per iterator in memory.
    The batches of several iterators are joined: data after data, label after label.
    An exception raised by an iterator in its thread is raised again by :meth:`next`.

    Parameters
    ----------
    iters : DataIter or list of DataIter
        The iterators to read; several must yield the same number of batches and pads.
    rename_data : list of dict, optional
        For each iterator, ``{old name: new name}`` of its ``provide_data`` (names must
        not clash when several iterators are joined).
    rename_label : list of dict, optional
        The same for ``provide_label``.

    Examples
    --------
    >>> import gluonedu as mx
    >>> first = mx.io.NDArrayIter({'data': mx.nd.ones((100, 10))}, batch_size=25)
    >>> second = mx.io.NDArrayIter({'data': mx.nd.ones((100, 10))}, batch_size=25)
    >>> both = mx.io.PrefetchingIter([first, second],
    ...                              rename_data=[{'data': 'data_1'}, {'data': 'data_2'}])
    >>> [desc.name for desc in both.provide_data]
    ['data_1', 'data_2']
    """

    def __init__(self, iters, rename_data=None, rename_label=None):
        super().__init__()
        if not isinstance(iters, list):
            iters = [iters]
        if not iters:
            raise AssertionError('PrefetchingIter needs at least one iterator')
        self.n_iter = len(iters)
        self.iters = iters
        self.rename_data = rename_data
        self.rename_label = rename_label
        self.batch_size = self.provide_data[0][1][0]
        self.current_batch = None
        # The threads hold their _Prefetcher, not this object, so it can be collected.
        self._prefetchers = [_Prefetcher(it, 'PrefetchingIter-%d' % i)
                             for i, it in enumerate(iters)]

    def __del__(self):
        for prefetcher in getattr(self, '_prefetchers', ()):
            prefetcher.stop()

    @property
    def provide_data(self):
        """The :class:`DataDesc` of every iterator's data, renamed, in order."""
        return _renamed([it.provide_data for it in self.iters], self.rename_data)

    @property
    def provide_label(self):
        """The :class:`DataDesc` of every iterator's labels, renamed, in order."""
        return _renamed([it.provide_label for it in self.iters], self.rename_label)

    def reset(self):
        """Reset every iterator (once its thread has finished the batch in hand)."""
        for prefetcher in self._prefetchers:
            prefetcher.wait()
        for it in self.iters:
            it.reset()
        for prefetcher in self._prefetchers:
            prefetcher.request()

    def iter_next(self):
        """Take the batches the threads have read and ask for the next ones."""
        batches = [prefetcher.wait() for prefetcher in self._prefetchers]
        if batches[0] is None:
            if any(batch is not None for batch in batches):
                raise AssertionError('PrefetchingIter: the iterators yield different numbers '
                                     'of batches')
            return False
        if any(batch is None or batch.pad != batches[0].pad for batch in batches):
            raise AssertionError('PrefetchingIter: the iterators yield different numbers '
                                 'of examples')
        self.current_batch = DataBatch(sum([batch.data for batch in batches], []),
                                       sum([batch.label for batch in batches], []),
                                       batches[0].pad, batches[0].index,
                                       provide_data=self.provide_data,
                                       provide_label=self.provide_label)
        for prefetcher in self._prefetchers:
            prefetcher.request()
        return True

    def next(self):
        """The next joined batch."""
        if self.iter_next():
            return self.current_batch
        raise StopIteration


def _renamed(descs_per_iter, renames):
    if renames is None:
        return sum(descs_per_iter, [])
    return sum([[DataDesc(rename[d.name], d.shape, d.dtype) if isinstance(d, DataDesc)
                 else DataDesc(*d) for d in descs]
                for rename, descs in zip(renames, descs_per_iter)], [])


class _Prefetcher:
    """A thread that reads one iterator one batch ahead of its consumer.

    ``taken`` tells the thread to read the next batch; ``ready`` tells the consumer it is
    there (None at the end of the data).
    """

    def __init__(self, data_iter, name):
        self.data_iter = data_iter
        self.batch = None
        self.error = None
        self.running = True
        self.ready = threading.Event()
        self.taken = threading.Event()
        self.taken.set()
        self.thread = threading.Thread(target=self._run, name=name, daemon=True)
        self.thread.start()

    def _run(self):
        while True:
            self.taken.wait()
            if not self.running:
                return
            try:
                self.batch = self.data_iter.next()
            except StopIteration:
                self.batch = None
            except Exception as err:  # handed to the consumer, which raises it
                self.batch, self.error = None, err
            self.taken.clear()
            self.ready.set()

    def wait(self):
        """The batch read, once it is there; raises what the iterator raised."""
        self.ready.wait()
        if self.error is not None:
            error, self.error = self.error, None
            raise error
        return self.batch

    def request(self):
        """Ask for the next batch."""
        self.ready.clear()
        self.taken.set()

    def stop(self):
        self.running = False
        self.taken.set()
        if self.thread is not threading.current_thread():
            self.thread.join()
