"""Synchronized batch normalization (MXNet's ``_contrib_SyncBatchNorm``, Zhang et al. 2018).

A network split over ``ndev`` devices normalizes each device's part of the batch with the
statistics of the *whole* batch. As MXNet 1.9.1's operator, per channel::

    mean_d = E_d[x],  sq_d = E_d[x²]          over device d's part (its samples, positions)
    mean = (1/ndev) Σ_d mean_d,  var = (1/ndev) Σ_d sq_d − mean²     (a plain average:
                                                unequal parts weigh the same, as in MXNet)
    y_d = γ_d · (x_d − mean) / √(var + eps) + β_d

and the gradient of each part sums the other parts' contributions (``m_d`` the values per
channel on device d; ``Σ`` sums over one device's part)::

    G = (1/ndev) Σ_d Σ dy_d,   P = (1/ndev) Σ_d Σ dy_d·(x_d − mean)
    dx_d = γ·dy_d/√(var+eps) − γ·P·(x_d − mean)/(m_d·(var+eps)^1.5) − γ·G/(m_d·√(var+eps))
    dγ_d = Σ dy_d·(x_d − mean)/√(var+eps),   dβ_d = Σ dy_d                (device d's own)

The running statistics of every device move towards ``mean``/``var`` during backward, as
BatchNorm's do. In prediction mode, or with ``use_global_stats``, each part is normalized
with its device's running statistics and nothing is shared.

**How the parts meet.** MXNet's operator waits at a barrier until all ``ndev`` parts have
arrived; its engine queues the calls of the usual ``for x in split_and_load(...)`` loop,
so one Python thread never waits. gluonedu runs each operation when it is called, so a
:class:`SyncRound` collects the parts instead: each call returns its output at once, but
the outputs stay *pending* until the last part arrives, which computes them all. Reading
a pending output (its values, shape, or an operation on it) in the thread that added
every part so far raises MXNetError saying what to do — call the layer on every part
before using any output; with one thread per device it waits for the other threads'
parts, as MXNet's operator does. The backward pass meets the same way: each output's
node depends on every part's data, keeps the gradient that reaches it, and the last of
them to arrive (in one ``autograd.backward([loss_0, ...])`` or over one ``backward()``
per device) computes and passes on the gradients of all.
"""
import threading
import time
import warnings

from ... import _backend
from ...base import MXNetError
from .. import _graph
from ..ndarray import NDArray

__all__ = ['SyncRound', 'sync_batch_norm']

#: The storage of NDArray's data, under the pending outputs' guard.
_DATA = NDArray.__dict__['_data']


class _PendingOutput(NDArray):
    """An output whose values wait for the other devices' parts of its round."""
    __slots__ = ('_waiting_for',)

    def __init__(self, data, ctx, waiting_for):
        self._waiting_for = waiting_for
        super().__init__(data, ctx)

    @property
    def _data(self):
        if self._waiting_for is not None:
            self._waiting_for.wait(self)  # returns once resolved, else raises MXNetError
        return _DATA.__get__(self)

    @_data.setter
    def _data(self, value):
        _DATA.__set__(self, value)

    def _resolve(self, data):
        _DATA.__set__(self, data)
        self._waiting_for = None


class _Part:
    __slots__ = ('data', 'gamma', 'beta', 'moving_mean', 'moving_var', 'output', 'thread')

    def __init__(self, data, gamma, beta, moving_mean, moving_var, output):
        self.data, self.gamma, self.beta = data, gamma, beta
        self.moving_mean, self.moving_var = moving_mean, moving_var
        self.output = output
        self.thread = threading.get_ident()


#: How long a pending output read in a thread waits for parts from other threads: once
#: other threads have called the layer, and before that (when other threads exist at
#: all: the first batch of threads may start unevenly). Alone, it raises at once.
_WAIT_FOR_THREADS_S = 60.0
_WAIT_FOR_FIRST_THREADS_S = 1.0


class SyncRound:
    """Where the parts of one synchronized layer meet, ``ndev`` at a time (MXNet's
    key-based barrier; a Gluon SyncBatchNorm owns one).

    A pending output read in the thread that added every part so far raises MXNetError
    (the other parts would have to come from that thread); read in a thread while others
    call the layer too (one thread per device), it waits for the round, as MXNet's
    operator does.

    Parameters
    ----------
    key : str
        Names the layer in messages (MXNet's ``key``, the Block's prefix).
    ndev : int
        How many parts make a round: the number of devices the batch is split over.
    """

    def __init__(self, key, ndev):
        self.key = key
        self.ndev = ndev
        self._parts = []
        self._threads = set()  # the threads that have added parts
        self._changed = threading.Condition()
        self.meeting = None  # the backward meeting of the last complete round

    def add(self, part):
        """Add ``part``; the parts of the round if it is now complete, else None."""
        with self._changed:
            if self._parts:
                _check_alike(self.key, self._parts[0].data, part.data)
            self._parts.append(part)
            self._threads.add(part.thread)
            self._changed.notify_all()
            if len(self._parts) < self.ndev:
                return None
            parts, self._parts = self._parts, []
            return parts

    def resolved(self):
        """Wake the threads waiting for the outputs of the round just computed."""
        with self._changed:
            self._changed.notify_all()

    def wait(self, output):
        """Return once ``output`` is computed; MXNetError if no other thread will add the
        parts it waits for (its round is then dropped)."""
        me = threading.get_ident()
        start = time.monotonic()
        with self._changed:
            while output._waiting_for is self:
                if not any(p.output is output for p in self._parts):
                    self._changed.wait()  # its round is complete and being computed
                    continue
                left = self._patience(me) - (time.monotonic() - start)
                if left <= 0:
                    raise MXNetError(self._abandon())
                self._changed.wait(left)
        if output._waiting_for is not None:
            output._waiting_for.wait(output)

    def _patience(self, me):
        if self._threads - {me}:
            return _WAIT_FOR_THREADS_S
        return _WAIT_FOR_FIRST_THREADS_S if threading.active_count() > 1 else 0

    def _abandon(self):
        """Drop the round's parts (their outputs will say so); the message to raise."""
        count = len(self._parts)
        for part in self._parts:
            part.output._waiting_for = _Abandoned(self.key)
        self._parts = []
        return ("SyncBatchNorm '%s': this output needs the batch statistics of all "
                "num_devices=%d parts of the batch and %d arrived: gluonedu runs each "
                "operation when it is called (MXNet's engine queues them), so call the layer "
                "on every device's part before using any of its outputs, e.g. layer by layer "
                "over the parts: `for layer in net: xs = [layer(x) for x in xs]`, or run each "
                "device's forward in a thread of its own. These parts are dropped; the next "
                "call starts a new batch." % (self.key, self.ndev, count))


class _Abandoned:
    """What a pending output of a dropped round says when read."""

    def __init__(self, key):
        self._key = key

    def wait(self, output):
        raise MXNetError("SyncBatchNorm '%s': this output belongs to a batch whose parts were "
                         "dropped when an output was read before all of them had arrived; "
                         "compute it again" % self._key)


def _check_alike(key, first, data):
    """MXNetError unless ``data`` can share statistics with the round's ``first`` part."""
    if first.shape[1:] != data.shape[1:] or first.dtype != data.dtype:
        raise MXNetError("SyncBatchNorm '%s': a batch's parts must differ in their batch size "
                         "only, got %s %s after %s %s; split one batch with "
                         "gluon.utils.split_and_load" % (key, data.shape, data.dtype.__name__,
                                                         first.shape, first.dtype.__name__))


def _reshaped(arr):
    """``(N, C, positions)`` view of an NDArray's data, as MXNet's operator sees it."""
    x = arr._data
    return x.reshape(x.shape[0], x.shape[1], -1)


def _mean_scale(x):
    """``C / size`` of an ``(N, C, positions)`` array, in its dtype (MXNet's ``scale``)."""
    dtype = x.dtype.type
    return dtype(x.shape[1]) / dtype(x.size)


def _per_channel(values):
    """A per-channel vector shaped to broadcast against ``(N, C, positions)``."""
    return values.reshape(1, -1, 1)


def _check_part(key, data, gamma, beta, moving_mean, moving_var):
    if data.ndim < 2:
        raise MXNetError("SyncBatchNorm '%s' needs data of shape (batch, channels, ...), got "
                         "%s" % (key, data.shape))
    channels = data.shape[1]
    for name, arr in (('gamma', gamma), ('beta', beta), ('running_mean', moving_mean),
                      ('running_var', moving_var)):
        if arr.shape != (channels,):
            raise MXNetError("SyncBatchNorm '%s': %s has shape %s, the data's %d channels "
                             "need (%d,)" % (key, name, arr.shape, channels, channels))
        if arr.context != data.context:
            raise MXNetError("SyncBatchNorm '%s': %s is on %s, the data on %s"
                             % (key, name, arr.context, data.context))


def sync_batch_norm(sync_round, data, gamma, beta, moving_mean, moving_var, eps=1e-5,
                    momentum=0.9, fix_gamma=False, use_global_stats=False):
    """Normalize ``data`` (one device's part, channels on axis 1) with the statistics of
    all parts of its ``sync_round``; returns the output, pending until the round is
    complete (see the module's notes)."""
    _check_part(sync_round.key, data, gamma, beta, moving_mean, moving_var)
    if fix_gamma:
        gamma._data[...] = 1  # as MXNet, which writes the ones into gamma
    if not _graph.STATE.training or use_global_stats:
        return _with_running_stats(data, gamma, beta, moving_mean, moving_var, eps, fix_gamma)
    placeholder = data._xp.empty(0, dtype=data.dtype)  # its values come with the round
    output = _PendingOutput(placeholder, data.context, sync_round)
    parts = sync_round.add(_Part(data, gamma, beta, moving_mean, moving_var, output))
    if parts is not None:
        try:
            _normalize_round(sync_round, parts, eps, momentum, fix_gamma)
        except BaseException:
            for part in parts:
                part.output._waiting_for = _Abandoned(sync_round.key)
            raise
        finally:
            sync_round.resolved()
    return output


def _host_average(arrays):
    """The average of per-device vectors, on the host (MXNet sums them on the CPU)."""
    total = _backend.to_host(arrays[0]).copy()
    for arr in arrays[1:]:
        total += _backend.to_host(arr)
    return total / total.dtype.type(len(arrays))


def _on(part, host):
    with _backend.device_scope(part.data.context):
        return part.data._xp.asarray(host)


def _normalize_round(sync_round, parts, eps, momentum, fix_gamma):
    """Compute every part's output from the shared statistics; record one node."""
    means, squares = [], []
    for part in parts:
        x = _reshaped(part.data)
        scale = _mean_scale(x)
        with _backend.device_scope(part.data.context):
            means.append(x.sum(axis=(0, 2)) * scale)
            squares.append((x * x).sum(axis=(0, 2)) * scale)
    mean = _host_average(means)
    var = _host_average(squares) - mean * mean
    eps = mean.dtype.type(eps)
    for part in parts:
        x = _reshaped(part.data)
        xp = part.data._xp
        with _backend.device_scope(part.data.context):
            mean_d, var_d = _on(part, mean), _on(part, var)
            y = (_per_channel(part.gamma._data) * (x - _per_channel(mean_d))
                 / xp.sqrt(_per_channel(var_d) + eps) + _per_channel(part.beta._data))
        part.output._resolve(y.reshape(part.data.shape))
    _record_round(sync_round, parts, mean, var, eps, momentum, fix_gamma)


class _BackwardMeeting:
    """Where the output gradients of one round meet during backward: the last to arrive
    computes the gradients of every part (MXNet's backward barrier)."""

    def __init__(self, parts, mean, var, eps, momentum, fix_gamma):
        self._parts = parts
        self._statistics = (mean, var, eps, momentum, fix_gamma)
        self._grads = {}
        self._lock = threading.Lock()  # one backward pass per device may run in threads

    @property
    def arrived(self):
        """How many parts' output gradients are waiting for the others."""
        return len(self._grads)

    def receive(self, index, grad):
        """Keep part ``index``'s output gradient; when every part's has arrived, the
        gradients of all data, gammas and betas, else one None for each."""
        with self._lock:
            self._grads[index] = grad
            if len(self._grads) < len(self._parts):
                return (None,) * (3 * len(self._parts))
            grads, self._grads = self._grads, {}
        return _round_backward(self._parts, grads, *self._statistics)


def _record_round(sync_round, parts, mean, var, eps, momentum, fix_gamma):
    """Record each output with every part's data, gamma and beta as its inputs: the tape
    then reaches all of them from any output, and orders each part's data after every
    output in a backward pass over several."""
    inputs = tuple(p.data for p in parts) + tuple(p.gamma for p in parts) + \
        tuple(p.beta for p in parts)
    if not (_graph.STATE.recording and any(_graph.is_tracked(x) for x in inputs)):
        return
    meeting = _BackwardMeeting(parts, mean, var, eps, momentum, fix_gamma)
    previous, sync_round.meeting = sync_round.meeting, meeting
    if previous is not None and previous.arrived:
        warnings.warn("SyncBatchNorm '%s': the backward pass of the previous batch reached "
                      "the outputs of %d of its %d parts, so no gradient went on to the "
                      "layers before it; differentiate the loss of every device"
                      % (sync_round.key, previous.arrived, len(parts)), RuntimeWarning,
                      stacklevel=2)
    for index, part in enumerate(parts):
        _graph.record(part.output, inputs,
                      lambda grad, index=index: meeting.receive(index, grad), 'SyncBatchNorm')


def _round_backward(parts, grads, mean, var, eps, momentum, fix_gamma):
    """The gradients of every part's data, gamma and beta (see the module's formulas);
    the running statistics move towards the round's."""
    views, sums, products = [], [], []
    for index, part in enumerate(parts):
        x = _reshaped(part.data)
        g = grads[index].reshape(x.shape)
        with _backend.device_scope(part.data.context):
            centered = x - _per_channel(_on(part, mean))
            sums.append(g.sum(axis=(0, 2)))
            products.append((g * centered).sum(axis=(0, 2)))
        views.append((x, g, centered))
    grad_sum, prod_sum = _host_average(sums), _host_average(products)
    data_grads, gamma_grads, beta_grads = [], [], []
    for part, (x, g, centered) in zip(parts, views):
        xp, dtype = part.data._xp, x.dtype.type
        with _backend.device_scope(part.data.context):
            mean_d, var_d = _on(part, mean), _on(part, var)
            _move_running(part, mean_d, var_d, momentum)
            slope = part.gamma._data
            inv_std = 1 / xp.sqrt(var_d + eps)
            grad_var = -_on(part, prod_sum) * slope * (var_d + eps) ** dtype(-1.5)
            grad_mean = -_on(part, grad_sum) * slope * inv_std
            scale = _mean_scale(x)
            dx = (g * _per_channel(slope * inv_std)
                  + _per_channel(grad_var) * scale * centered
                  + _per_channel(grad_mean) * scale)
            dgamma = xp.zeros_like(slope) if fix_gamma else \
                (g * centered * _per_channel(inv_std)).sum(axis=(0, 2))
            data_grads.append(dx.reshape(part.data.shape))
            gamma_grads.append(dgamma)
            beta_grads.append(g.sum(axis=(0, 2)))
    return tuple(data_grads) + tuple(gamma_grads) + tuple(beta_grads)


def _move_running(part, mean, var, momentum):
    """``running ← running·momentum + batch·(1 − momentum)`` on the part's device."""
    for running, batch in ((part.moving_mean, mean), (part.moving_var, var)):
        dtype = running._data.dtype.type
        running._data[...] = running._data * dtype(momentum) + batch * dtype(1 - momentum)


def _with_running_stats(data, gamma, beta, moving_mean, moving_var, eps, fix_gamma):
    """Prediction mode or use_global_stats: this device's running statistics, no sharing."""
    x, xp = _reshaped(data), data._xp
    with _backend.device_scope(data.context):
        eps = x.dtype.type(eps)
        inv_std = 1 / xp.sqrt(moving_var._data + eps)
        slope = gamma._data * inv_std
        y = (x * _per_channel(slope)
             + _per_channel(beta._data - gamma._data * moving_mean._data * inv_std))

    def backward(grad):
        g = grad.reshape(x.shape)
        with _backend.device_scope(data.context):
            centered = x - _per_channel(moving_mean._data)
            dgamma = xp.zeros_like(slope) if fix_gamma else \
                (g * centered * _per_channel(inv_std)).sum(axis=(0, 2))
            return ((g * _per_channel(slope)).reshape(data.shape), dgamma,
                    g.sum(axis=(0, 2)))
    return _graph.record(NDArray(y.reshape(data.shape), data.context), (data, gamma, beta),
                         backward, 'SyncBatchNorm')
