"""Dynamic loss scaling for float16 training (MXNet's ``mx.contrib.amp``, loss-scaling part).

Float16 gradients underflow to zero when the loss is small. Loss scaling multiplies the
loss by a large factor ``S`` before backward, and the Trainer divides the gradients by
``S`` again (through its ``rescale_grad``). If a gradient overflows to inf/nan, that
step is skipped and ``S`` is halved; after ``2000`` clean steps in a row ``S`` doubles,
up to ``2**24``. Each skipped step emits an ``overflow`` event (source 'loss_scaler'),
and each gradient with inf/nan entries a ``nonfinite`` event (its parameter, context
and count).

The check covers every context's gradient (MXNet 1.9.1 checks the first context's
only). With ``update_on_kvstore`` it runs before the gradients are pushed, on each
device's own gradient, so the store never applies a poisoned update (MXNet checks after
the store has applied it); otherwise after the reduction, on the sum every context
holds, as MXNet. See docs/divergences.md.

Usage, as in MXNet::

    amp.init()
    net.cast('float16')                 # gluonedu does not rewrite operators for you
    trainer = gluon.Trainer(net.collect_params(), 'sgd', {'multi_precision': True})
    amp.init_trainer(trainer)
    with autograd.record():
        loss = loss_fn(net(x), y)
        with amp.scale_loss(loss, trainer) as scaled:
            autograd.backward(scaled)
    trainer.step(batch_size)

Unlike MXNet, :func:`init` does not patch operators to run in float16; cast the network
(or the data) yourself. Loss scaling, the part that changes what the optimizer sees, is
MXNet's.
"""
import contextlib
import logging

from ..instrument.events import BUS
from ..optimizer.reporting import nonfinite_count

__all__ = ['init', 'init_trainer', 'scale_loss', 'unscale', 'LossScaler']

_initialized = [False]


class LossScaler:
    """MXNet's dynamic loss scaler: halve on overflow, double after 2000 clean steps."""

    def __init__(self):
        self._loss_scale = 2.0 ** 16
        self._next_loss_scale = self._loss_scale
        self._max_loss_scale = 2.0 ** 24
        self._scale_seq_len = 2000
        self._unskipped = 0

    @property
    def loss_scale(self):
        """The factor the loss is multiplied by at this step."""
        return self._loss_scale

    def has_overflow(self, params):
        """Whether any gradient, on any context, holds inf/nan; adjusts the scale for next
        time. Each gradient with non-finite entries is reported as a ``nonfinite`` event
        (parameter, context, count) to whoever listens."""
        report = BUS.active and BUS.wants('nonfinite')
        finite = True
        for param in params:
            if param.grad_req == 'null':
                continue
            for grad in param.list_grad():
                count = nonfinite_count(grad)
                if count:
                    finite = False
                    if not report:
                        break
                    BUS.emit('nonfinite', 'loss_scaler', param.name, grad.context,
                             count=float(count))
            if not finite and not report:
                break
        self._loss_scale = self._next_loss_scale
        if not finite:
            self._next_loss_scale = self._loss_scale / 2.0
            self._unskipped = 0
            logging.info("AMP: decreasing loss scale to %f", self._next_loss_scale)
            if BUS.active:
                BUS.emit('overflow', 'loss_scaler', loss_scale=self._loss_scale)
        else:
            self._unskipped += 1
        if self._unskipped == self._scale_seq_len:
            self._unskipped = 0
            self._next_loss_scale = min(self._max_loss_scale, self._loss_scale * 2.0)
            logging.info("AMP: increasing loss scale to %f", self._next_loss_scale)
        return not finite


def init(target_dtype='float16', target_precision_ops=None, conditional_fp32_ops=None,
         fp32_ops=None):
    """Enable AMP's loss scaling (operators are not rewritten; see the module docstring)."""
    if target_dtype != 'float16':
        raise ValueError("gluonedu's AMP supports target_dtype='float16' only, got %r"
                         % (target_dtype,))
    _initialized[0] = True


def init_trainer(optimizer_or_trainer):
    """Give a Trainer a dynamic loss scaler (call :func:`init` first)."""
    from ..gluon.trainer import Trainer  # gluon sits above contrib's users, not below
    if not _initialized[0]:
        raise AssertionError("AMP not initialized, did you forget to call amp.init()?")
    if not isinstance(optimizer_or_trainer, Trainer):
        raise TypeError("AMP loss scaling works with a gluon.Trainer, got %s"
                        % type(optimizer_or_trainer).__name__)
    optimizer_or_trainer.use_loss_scaler(LossScaler())


@contextlib.contextmanager
def scale_loss(loss, optimizer_or_trainer):
    """Yield the loss (or list of losses) times the loss scale; the Trainer divides it back."""
    scaler = getattr(optimizer_or_trainer, 'loss_scaler', None)
    if scaler is None:
        raise AssertionError("Loss scaler is not initialized, did you forget to call "
                             "amp.init_trainer()?")
    optimizer_or_trainer.set_loss_scale(scaler.loss_scale)
    if isinstance(loss, (list, tuple)):
        yield [l * scaler.loss_scale for l in loss]
    else:
        yield scaler.loss_scale * loss


def unscale(optimizer_or_trainer):
    """Divide the gradients by the loss scale now (e.g. before clipping them by hand)."""
    from ..gluon.trainer import Trainer
    if not isinstance(optimizer_or_trainer, Trainer):
        raise TypeError("AMP loss scaling works with a gluon.Trainer, got %s"
                        % type(optimizer_or_trainer).__name__)
    optimizer_or_trainer.unscale_grads()
