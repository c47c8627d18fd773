"""The learning-rate range test (a gluonedu addition; MXNet 1.9.1 has none).

The form fastai's ``lr_find`` gave L. Smith's test (*Cyclical Learning Rates for Training
Neural Networks*, https://arxiv.org/abs/1506.01186, section 3.3, which raises the rate
linearly over a few epochs and watches the accuracy): train for about a hundred batches
while the learning rate grows exponentially from tiny to huge, and watch the smoothed
loss. At first nothing happens (the rate is too small), then the loss falls
faster and faster, bottoms out, and finally blows up. A good rate lies where the loss
falls fastest — well before the bottom, since at the bottom the rate is already about
to diverge.

    result = mx.contrib.lr_find(net, trainer, loader, loss_fn)
    result.suggested_lr          # steepest descent of the smoothed loss
    result.plot()                # loss against lr, the suggestion marked
    result.table.to_pandas()     # the Recorder table: lr, loss, smoothed_loss per step

Afterwards the network's parameters and the trainer's state are as they were. The
trainer is restored with ``Trainer.load_states``, so, as after any ``load_states``,
``trainer.optimizer`` is then an equal but new object (with its own copy of the lr
scheduler): go on through the trainer (``trainer.set_learning_rate(...)``,
``trainer.optimizer``), not through an optimizer object kept from before.

Layers: this drives a ``gluon.Trainer`` and records into an ``instrument.Recorder``
(both below it) and plots through ``gluonedu.viz``, imported only by :meth:`plot`; no
lower layer imports it.
"""
import math
import os
import tempfile

import numpy as np

from .. import autograd
from ..base import check_hyperparameter
from ..gluon.parameter import DeferredInitializationError
from ..gluon.utils import split_and_load
from ..instrument.recorder import Recorder

__all__ = ['lr_find', 'LRFinderResult']


class LRFinderResult:
    """What :func:`lr_find` found.

    Attributes
    ----------
    table : instrument.Recorder
        Metric rows ``lr``, ``loss`` (the batch's mean loss, before its step) and
        ``smoothed_loss`` (bias-corrected exponential average), step 1, 2, ...
    lrs, losses, smoothed_losses : numpy arrays, one entry per step taken.
    suggested_lr : float
        Where the smoothed loss falls fastest per decade of lr: its steepest descent
        before the minimum, after the first tenth of the steps; ``min_loss_lr / 10``
        when the curve has no descent to speak of there.
    min_loss_lr : float
        The lr at the lowest smoothed loss. fastai's other rule of thumb is a tenth of it.
    diverged_at : int or None
        The step at which the smoothed loss passed ``diverge_factor`` times its best
        (or stopped being finite) and the test stopped; None if it ran to the end.
    """

    def __init__(self, table, diverged_at):
        self.table = table
        self.diverged_at = diverged_at
        self.lrs = table.series('metric', 'lr')[1]
        self.losses = table.series('metric', 'loss')[1]
        self.smoothed_losses = table.series('metric', 'smoothed_loss')[1]
        finite = np.where(np.isfinite(self.smoothed_losses), self.smoothed_losses, np.inf)
        lowest = int(np.argmin(finite))
        self.min_loss_lr = float(self.lrs[lowest])
        # The first tenth is skipped: there the average is of a few noisy batches
        # (fastai skips 10 of its 100 steps).
        first = len(self.lrs) // 10
        if lowest - first >= 2:
            window = slice(first, lowest + 1)
            slopes = np.diff(finite[window]) / np.diff(np.log(self.lrs[window]))
            self.suggested_lr = float(self.lrs[first + int(np.argmin(slopes))])
        else:
            self.suggested_lr = self.min_loss_lr / 10

    def plot(self, ax=None, **kwargs):
        """The loss against the lr (log scale), the suggestion marked; returns the Figure."""
        from ..viz import plot_lr_find
        return plot_lr_find(self.table, suggested_lr=self.suggested_lr, ax=ax, **kwargs)

    def __repr__(self):
        return ('<LRFinderResult: %d steps, suggested_lr=%.3g, min_loss_lr=%.3g%s>'
                % (len(self.lrs), self.suggested_lr, self.min_loss_lr,
                   '' if self.diverged_at is None else ', diverged at step %d'
                   % self.diverged_at))


def lr_find(net, trainer, data, loss_fn, start_lr=1e-7, end_lr=10., num_steps=100,
            smoothing=0.98, diverge_factor=4.):
    """Run the lr range test on ``net`` with ``trainer``; an :class:`LRFinderResult`.

    Step ``k`` (0-based) trains one batch at ``lr_k = start_lr * (end_lr /
    start_lr) ** (k / (num_steps - 1))``, recording the batch's loss and the smoothed
    loss ``s_k = a_k / (1 - smoothing**(k+1))`` with ``a_k = smoothing * a_(k-1) +
    (1 - smoothing) * loss_k``. The test stops early once ``s_k > diverge_factor * min(s)``
    or the loss is not finite. Then the parameters and the trainer (optimizer states,
    update counts, learning rate and scheduler) are restored — also if it is interrupted.

    Parameters
    ----------
    net : gluon.Block
        The network; batches go to the contexts of its parameters (split evenly).
    trainer : gluon.Trainer
        Over ``net``'s parameters. An ``lr_scheduler`` on its optimizer is set aside
        during the test (the test sets the lr itself) and restored afterwards; so is
        its ``nonfinite`` setting, 'ignore' during the test (which stops at divergence
        itself), and everything else (see the module docstring).
    data : iterable of (data, label) batches
        A DataLoader or a list of batches; started again when exhausted.
    loss_fn : callable(output, label) -> per-sample losses, e.g. gluon.loss.L2Loss().
    start_lr, end_lr : float, default 1e-7, 10
        The range, ``0 < start_lr < end_lr < inf``.
    num_steps : int, default 100
        Batches to train at most (>= 2).
    smoothing : float, default 0.98
        The exponential average's weight of the past, in [0, 1).
    diverge_factor : float, default 4
        Stop when the smoothed loss exceeds this many times its minimum (> 1).
    """
    check_hyperparameter('start_lr', start_lr, low=0, low_open=True)
    check_hyperparameter('end_lr', end_lr, low=start_lr, high=math.inf, low_open=True,
                         high_open=True)
    if isinstance(num_steps, bool) or not isinstance(num_steps, int) or num_steps < 2:
        raise ValueError("num_steps must be an int >= 2, got %r" % (num_steps,))
    check_hyperparameter('smoothing', smoothing, low=0, high=1, high_open=True)
    check_hyperparameter('diverge_factor', diverge_factor, low=1, low_open=True)
    batches = _cycle(data)
    first = next(batches, None)
    if first is None:
        raise ValueError("data is empty: lr_find needs at least one (data, label) batch")
    params = list(net.collect_params().values())
    contexts = params[0].list_ctx()
    _finish_deferred_init(net, params, first[0], contexts)

    saved_params = [[array.copy() for array in p.list_data()] for p in params]
    with tempfile.TemporaryDirectory(prefix='gluonedu-lr-find-') as tmp:
        saved_trainer = os.path.join(tmp, 'trainer.states')
        trainer.save_states(saved_trainer)
        nonfinite = trainer.nonfinite
        try:
            trainer.optimizer.lr_scheduler = None   # the test sets the lr itself
            # The test runs into divergence on purpose and stops there itself: the
            # Trainer's warning (or error) about NaN gradients would be noise.
            trainer.nonfinite = 'ignore'
            table, diverged_at = _range_test(net, trainer, loss_fn, first, batches, contexts,
                                             start_lr, end_lr, num_steps, smoothing,
                                             diverge_factor)
        finally:
            # Parameters first: with updates on the kvstore, set_data makes the trainer
            # put them into the store again, and load_states then loads the store's states.
            for param, saved in zip(params, saved_params):
                if param.grad_req == 'null':   # e.g. BatchNorm's statistics, per device
                    for array, copy in zip(param.list_data(), saved):
                        array[:] = copy
                else:                          # trained: the copies are equal
                    param.set_data(saved[0])
            trainer.load_states(saved_trainer)
            trainer.nonfinite = nonfinite
    return LRFinderResult(table, diverged_at)


def _cycle(data):
    """The batches of ``data``, over and over (stops if a pass yields nothing)."""
    while True:
        produced = False
        for batch in data:
            produced = True
            yield _data_and_label(batch)
        if not produced:
            return


def _data_and_label(batch):
    """``batch`` if it is a (data, label) pair; TypeError saying how to make one else."""
    if isinstance(batch, (tuple, list)) and len(batch) == 2:
        return batch
    what = ('a %s of %d items' % (type(batch).__name__, len(batch))
            if isinstance(batch, (tuple, list)) else
            'an array of shape %s' % (batch.shape,) if hasattr(batch, 'shape') else
            'a %s' % type(batch).__name__)
    raise TypeError("lr_find needs batches of (data, label), got %s; pass e.g. "
                    "gluon.data.DataLoader(gluon.data.ArrayDataset(X, y), batch_size) or "
                    "list(zip(data_batches, label_batches))" % what)


def _finish_deferred_init(net, params, sample, contexts):
    """One forward pass (not recorded) if some parameter still waits for its shape."""
    try:
        for param in params:
            param.list_data()
    except DeferredInitializationError:
        with autograd.pause():
            net(split_and_load(sample, contexts)[0])


def _range_test(net, trainer, loss_fn, first, batches, contexts, start_lr, end_lr,
                num_steps, smoothing, diverge_factor):
    """Train ``num_steps`` batches at growing rates; (Recorder table, diverged_at)."""
    table = Recorder(kinds=())
    table.detach()   # it listens to nothing: its rows are the ones logged here
    average, best, batch = 0.0, math.inf, first
    for k in range(num_steps):
        if k:
            batch = next(batches, None)
            if batch is None:
                break
        progress = k / (num_steps - 1)
        # start_lr * (end_lr / start_lr) ** progress, without the ratio (which overflows
        # for end_lr=1e308)
        lr = start_lr ** (1 - progress) * end_lr ** progress
        trainer.set_learning_rate(lr)
        loss = _train_batch(net, trainer, loss_fn, batch, contexts)
        average = smoothing * average + (1 - smoothing) * loss
        smoothed = average / (1 - smoothing ** (k + 1))
        table.log_metric(lr=lr, loss=loss, smoothed_loss=smoothed, step=k + 1)
        if not math.isfinite(smoothed) or smoothed > diverge_factor * best:
            return table, k + 1
        best = min(best, smoothed)
    return table, None


def _train_batch(net, trainer, loss_fn, batch, contexts):
    """One training step on ``batch``, split over ``contexts``; the batch's mean loss."""
    data, label = batch
    parts = list(zip(split_and_load(data, contexts), split_and_load(label, contexts)))
    with autograd.record():
        losses = [loss_fn(net(x), y) for x, y in parts]
    autograd.backward(losses)
    trainer.step(data.shape[0])
    return sum(float(l.sum().asscalar()) for l in losses) / data.shape[0]
