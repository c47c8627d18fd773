"""Learning-rate schedules (``mx.lr_scheduler``), stateful exactly as MXNet 1.9.1's.

A scheduler maps ``num_update`` — the largest number of updates any weight has had —
to a learning rate. The optimizer calls it with non-decreasing ``num_update``; several
schedulers keep state between calls (``FactorScheduler`` multiplies its ``base_lr`` as
steps pass), so they are meant to be called in that order, as MXNet's are.

Every scheduler can start with a warm-up of ``warmup_steps`` updates, during which the
rate rises linearly from ``warmup_begin_lr`` to ``base_lr`` (``warmup_mode='linear'``)
or stays at ``warmup_begin_lr`` (``'constant'``).

A scheduler may also schedule the optimizer's momentum: :meth:`LRScheduler.momentum_at`
returns None for MXNet's schedulers and a number for :class:`OneCycleScheduler` (a
gluonedu addition), which the optimizer then uses as its ``momentum`` or ``beta1``
(see :class:`gluonedu.optimizer.optimizer.ScheduledMomentum`).
"""
import logging
import numbers
from math import ceil, cos, inf, pi

from .base import check_hyperparameter

__all__ = ['LRScheduler', 'FactorScheduler', 'MultiFactorScheduler', 'PolyScheduler',
           'CosineScheduler', 'OneCycleScheduler']

#: The most decays one call of FactorScheduler applies one by one, as MXNet's loop does;
#: any further decays due (a count far behind num_update) are applied at once, as
#: ``factor ** n``, so that no call takes longer than this many steps.
EXACT_DECAYS = 10000


class LRScheduler:
    """Base class: warm-up handling; subclasses implement ``__call__(num_update)``.

    Parameters
    ----------
    base_lr : float, default 0.01
    warmup_steps : int, default 0
    warmup_begin_lr : float, default 0
    warmup_mode : {'linear', 'constant'}
    """

    #: The attributes that change as the schedule runs; a state file restores them as
    #: saved and rebuilds every other attribute through the constructor.
    STATE_ATTRS = ('base_lr',)

    def __init__(self, base_lr=0.01, warmup_steps=0, warmup_begin_lr=0, warmup_mode='linear'):
        if not isinstance(warmup_steps, int):
            raise AssertionError("warmup_steps must be an int, got %r" % (warmup_steps,))
        if warmup_begin_lr > base_lr:
            raise ValueError("Base lr has to be higher than warmup_begin_lr (base_lr=%s, "
                             "warmup_begin_lr=%s)" % (base_lr, warmup_begin_lr))
        if warmup_steps < 0:
            raise ValueError("Warmup steps has to be positive or 0, got %d" % warmup_steps)
        if warmup_mode not in ('linear', 'constant'):
            raise ValueError("warmup_mode must be 'linear' or 'constant', got %r"
                             % (warmup_mode,))
        self.base_lr = base_lr
        self.warmup_steps = warmup_steps
        # The warm-up ends at the base_lr given here, even if base_lr is changed later.
        self.warmup_final_lr = base_lr
        self.warmup_begin_lr = warmup_begin_lr
        self.warmup_mode = warmup_mode

    def get_warmup_lr(self, num_update):
        """The rate during warm-up: a linear ramp, or the constant begin value."""
        if num_update >= self.warmup_steps:
            raise AssertionError("update %d is past the %d warm-up steps"
                                 % (num_update, self.warmup_steps))
        if self.warmup_mode == 'linear':
            fraction = float(num_update) / float(self.warmup_steps)
            return self.warmup_begin_lr + (self.warmup_final_lr - self.warmup_begin_lr) * fraction
        return self.warmup_begin_lr

    def __call__(self, num_update):
        raise NotImplementedError("%s must implement __call__(num_update)" % type(self).__name__)

    def momentum_at(self, num_update):
        """The momentum this schedule sets at ``num_update``; None: it leaves momentum alone."""
        return None

    def __repr__(self):
        return '%s(base_lr=%r)' % (type(self).__name__, self.base_lr)


class FactorScheduler(LRScheduler):
    """lr = base_lr · factor^⌊(num_update - 1) / step⌋, never below ``stop_factor_lr``.

    The rate drops right *after* every ``step`` updates (at num_update = step + 1,
    2·step + 1, ...), as MXNet's. A call applies the decays due one by one, as MXNet
    does, up to :data:`EXACT_DECAYS` of them, and any further ones at once, so a count
    far behind ``num_update`` costs no more than that.
    """

    STATE_ATTRS = LRScheduler.STATE_ATTRS + ('count',)

    def __init__(self, step, factor=1, stop_factor_lr=1e-8, base_lr=0.01, warmup_steps=0,
                 warmup_begin_lr=0, warmup_mode='linear'):
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        if step < 1:
            raise ValueError("Schedule step must be greater or equal than 1 round, got %s"
                             % step)
        if factor > 1.0:
            raise ValueError("Factor must be no more than 1 to make lr reduce, got %s" % factor)
        self.step = step
        self.factor = factor
        self.stop_factor_lr = stop_factor_lr
        self.count = 0

    def __call__(self, num_update):
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        # The decays due, one by one as MXNet applies them (the same floats); a count far
        # behind num_update (one from a state file) has the rest applied at once.
        for _ in range(EXACT_DECAYS):
            if num_update <= self.count + self.step:
                return self.base_lr
            self.count += self.step
            self._decay(self.factor, num_update)
        skipped = self._decays_due(num_update)
        if skipped:
            self.count += skipped * self.step
            self._decay(self.factor ** skipped, num_update)
        return self.base_lr

    def _decays_due(self, num_update):
        """How many more ``step``s MXNet's loop would pass to reach ``num_update``."""
        behind = num_update - self.count
        if behind <= self.step:
            return 0
        if all(isinstance(n, numbers.Integral) for n in (behind, self.step)):
            return (behind - 1) // self.step
        return ceil(behind / self.step) - 1

    def _decay(self, by, num_update):
        self.base_lr *= by
        if self.base_lr < self.stop_factor_lr:
            self.base_lr = self.stop_factor_lr
            logging.info("Update[%d]: learning rate reached its floor %0.5e", num_update,
                         self.base_lr)
        else:
            logging.info("Update[%d]: learning rate is now %0.5e", num_update, self.base_lr)


class MultiFactorScheduler(LRScheduler):
    """lr = base_lr · factor^k after the k-th milestone of ``step`` has been passed.

    ``step`` is an increasing list of update counts; the rate drops right after each.
    """

    STATE_ATTRS = LRScheduler.STATE_ATTRS + ('count', 'cur_step_ind')

    def __init__(self, step, factor=1, base_lr=0.01, warmup_steps=0, warmup_begin_lr=0,
                 warmup_mode='linear'):
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        if not isinstance(step, list) or not step:
            raise AssertionError("step must be a non-empty list of increasing update counts")
        for i, milestone in enumerate(step):
            if i and milestone <= step[i - 1]:
                raise ValueError("Schedule step must be an increasing integer list, got %s"
                                 % step)
            if milestone < 1:
                raise ValueError("Schedule step must be greater or equal than 1 round, got %s"
                                 % step)
        if factor > 1.0:
            raise ValueError("Factor must be no more than 1 to make lr reduce, got %s" % factor)
        self.step = step
        self.cur_step_ind = 0
        self.factor = factor
        self.count = 0

    def __call__(self, num_update):
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        while self.cur_step_ind < len(self.step) and num_update > self.step[self.cur_step_ind]:
            self.count = self.step[self.cur_step_ind]
            self.cur_step_ind += 1
            self.base_lr *= self.factor
            logging.info("Update[%d]: learning rate is now %0.5e", num_update, self.base_lr)
        return self.base_lr


class _DecayToFinal(LRScheduler):
    """A rate falling from base_lr to final_lr over updates warmup_steps..max_update.

    Subclasses give the curve: ``_fraction(progress)`` for progress in [0, 1], 1 at the
    start and 0 at the end. Past max_update the rate stays at final_lr.
    """

    def __init__(self, max_update, base_lr, final_lr, warmup_steps, warmup_begin_lr,
                 warmup_mode):
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        if not isinstance(max_update, int):
            raise AssertionError("max_update must be an int, got %r" % (max_update,))
        if max_update < 1:
            raise ValueError("maximum number of updates must be strictly positive, got %d"
                             % max_update)
        # As MXNet: the curve starts from the base_lr given here, even if the optimizer
        # later overrides base_lr.
        self.base_lr_orig = base_lr
        self.max_update = max_update
        self.final_lr = final_lr
        self.max_steps = self.max_update - self.warmup_steps

    def _fraction(self, progress):
        raise NotImplementedError

    def __call__(self, num_update):
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        if num_update <= self.max_update:
            progress = float(num_update - self.warmup_steps) / float(self.max_steps)
            self.base_lr = self.final_lr + (self.base_lr_orig - self.final_lr) * \
                self._fraction(progress)
        return self.base_lr


class PolyScheduler(_DecayToFinal):
    """lr = final_lr + (base_lr - final_lr) · (1 - n / N)^pwr, after warm-up.

    n counts updates after warm-up and N = max_update - warmup_steps; past max_update
    the rate stays at final_lr.
    """

    def __init__(self, max_update, base_lr=0.01, pwr=2, final_lr=0, warmup_steps=0,
                 warmup_begin_lr=0, warmup_mode='linear'):
        super().__init__(max_update, base_lr, final_lr, warmup_steps, warmup_begin_lr,
                         warmup_mode)
        self.power = pwr

    def _fraction(self, progress):
        return pow(1 - progress, self.power)


class CosineScheduler(_DecayToFinal):
    """lr = final_lr + (base_lr - final_lr) · (1 + cos(π n / N)) / 2, after warm-up.

    n counts updates after warm-up and N = max_update - warmup_steps; past max_update
    the rate stays at final_lr.
    """

    def __init__(self, max_update, base_lr=0.01, final_lr=0, warmup_steps=0, warmup_begin_lr=0,
                 warmup_mode='linear'):
        super().__init__(max_update, base_lr, final_lr, warmup_steps, warmup_begin_lr,
                         warmup_mode)

    def _fraction(self, progress):
        return (1 + cos(pi * progress)) / 2


def _cosine_between(start, end, progress):
    """From ``start`` (progress 0) to ``end`` (progress 1) along half a cosine wave.

    A weighted mean of the two ends, never beyond them: ``start - end`` would overflow
    for rates near the largest float (``max_lr=1e308``)."""
    weight = (1 + cos(pi * progress)) / 2
    value = start * weight + end * (1 - weight)
    return min(max(value, min(start, end)), max(start, end))


class OneCycleScheduler(LRScheduler):
    """The one-cycle policy: the lr rises, then anneals far below where it started, while
    the momentum cycles the other way (a gluonedu addition; MXNet 1.9.1 has none).

    From L. Smith, *A disciplined approach to neural network hyper-parameters*
    (https://arxiv.org/abs/1803.09820), as fastai's ``fit_one_cycle`` and PyTorch's
    ``OneCycleLR`` run it. Over ``n = 0 .. total_steps`` updates, with
    ``peak = pct_start * total_steps``::

        lr(n)       = cos_between(max_lr / div_factor, max_lr, n / peak)          n <= peak
                    = cos_between(max_lr, max_lr / (div_factor * final_div_factor),
                                  (n - peak) / (total_steps - peak))              n > peak
        momentum(n) = cos_between(max_momentum, base_momentum, n / peak)          n <= peak
                    = cos_between(base_momentum, max_momentum, ...)               n > peak

    where ``cos_between(a, b, p) = a * w + b * (1 - w)``, ``w = (1 + cos(pi * p)) / 2``,
    goes from ``a`` to ``b`` as ``p`` goes from 0 to 1. Past ``total_steps`` both stay at
    their final values. The first update sees ``n = 1``, as with every MXNet scheduler.

    The high lr in the middle acts as a regulariser and moves fast through flat
    regions; the low momentum there keeps the large steps from compounding. The optimizer
    uses :meth:`momentum_at` as its ``momentum`` (SGD, NAG, LARS) or ``beta1`` (Adam,
    AdamW) at every update, on the readable and the fused path alike.

    The curve is fixed by ``max_lr`` at construction: an optimizer's ``learning_rate``
    overriding ``base_lr`` (MXNet's rule, with its warning) does not change it; give the
    optimizer ``learning_rate=max_lr``, or none, to avoid the warning.

    Parameters
    ----------
    max_lr : float
        The peak learning rate, finite and > 0.
    total_steps : int
        Updates in the cycle, >= 2.
    pct_start : float, default 0.25
        Fraction of the cycle spent rising, in (0, 1) (fastai's default; PyTorch's is 0.3).
    div_factor : float, default 25
        The lr starts at ``max_lr / div_factor``; finite, >= 1.
    final_div_factor : float, default 1e4
        The lr ends at ``max_lr / (div_factor * final_div_factor)``; finite, >= 1.
    base_momentum, max_momentum : float, default 0.85, 0.95
        The momentum's low point (at the lr's peak) and its value at both ends;
        ``0 < base_momentum <= max_momentum < 1``.
    cycle_momentum : bool, default True
        False: schedule only the lr (for optimizers without a momentum, e.g. AdaGrad).
    """

    def __init__(self, max_lr, total_steps, pct_start=0.25, div_factor=25.,
                 final_div_factor=1e4, base_momentum=0.85, max_momentum=0.95,
                 cycle_momentum=True):
        # A finite peak and divisors: an infinite one makes every lr NaN or 0.
        check_hyperparameter('max_lr', max_lr, low=0, high=inf, low_open=True, high_open=True)
        if isinstance(total_steps, bool) or not isinstance(total_steps, numbers.Integral) \
                or total_steps < 2:
            raise ValueError("total_steps must be an int >= 2 (a rise and a fall), got %r"
                             % (total_steps,))
        check_hyperparameter('pct_start', pct_start, low=0, high=1, low_open=True,
                             high_open=True)
        check_hyperparameter('div_factor', div_factor, low=1, high=inf, high_open=True)
        check_hyperparameter('final_div_factor', final_div_factor, low=1, high=inf,
                             high_open=True)
        if cycle_momentum:
            check_hyperparameter('max_momentum', max_momentum, low=0, high=1, low_open=True,
                                 high_open=True)
            check_hyperparameter('base_momentum', base_momentum, low=0, high=max_momentum,
                                 low_open=True)
        super().__init__(base_lr=max_lr)
        self.max_lr = max_lr
        self.total_steps = int(total_steps)
        self.pct_start = pct_start
        self.div_factor = div_factor
        self.final_div_factor = final_div_factor
        self.base_momentum = base_momentum
        self.max_momentum = max_momentum
        self.cycle_momentum = cycle_momentum
        self.initial_lr = max_lr / div_factor
        self.final_lr = self.initial_lr / final_div_factor
        self.peak_step = pct_start * self.total_steps

    def _phase(self, num_update):
        """(rising?, progress in [0, 1] within that phase)."""
        if num_update <= self.peak_step:
            return True, num_update / self.peak_step
        fall = (num_update - self.peak_step) / (self.total_steps - self.peak_step)
        return False, min(fall, 1.0)

    def __call__(self, num_update):
        rising, progress = self._phase(num_update)
        if rising:
            return _cosine_between(self.initial_lr, self.max_lr, progress)
        return _cosine_between(self.max_lr, self.final_lr, progress)

    def momentum_at(self, num_update):
        if not self.cycle_momentum:
            return None
        rising, progress = self._phase(num_update)
        if rising:
            return _cosine_between(self.max_momentum, self.base_momentum, progress)
        return _cosine_between(self.base_momentum, self.max_momentum, progress)

    def __repr__(self):
        return ('OneCycleScheduler(max_lr=%r, total_steps=%d, pct_start=%r)'
                % (self.max_lr, self.total_steps, self.pct_start))
