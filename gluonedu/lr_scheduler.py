"""Learning-rate schedules (``mx.lr_scheduler``), stateful exactly as MXNet 1.9.1's.

A scheduler maps ``num_update`` — the largest number of updates any weight has had —
to a learning rate. The optimizer calls it with non-decreasing ``num_update``; several
schedulers keep state between calls (``FactorScheduler`` multiplies its ``base_lr`` as
steps pass), so they are meant to be called in that order, as MXNet's are.

Every scheduler can start with a warm-up of ``warmup_steps`` updates, during which the
rate rises linearly from ``warmup_begin_lr`` to ``base_lr`` (``warmup_mode='linear'``)
or stays at ``warmup_begin_lr`` (``'constant'``).
"""
import logging
from math import cos, pi

__all__ = ['LRScheduler', 'FactorScheduler', 'MultiFactorScheduler', 'PolyScheduler',
           'CosineScheduler']


class LRScheduler:
    """Base class: warm-up handling; subclasses implement ``__call__(num_update)``.

    Parameters
    ----------
    base_lr : float, default 0.01
    warmup_steps : int, default 0
    warmup_begin_lr : float, default 0
    warmup_mode : {'linear', 'constant'}
    """

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

    def __repr__(self):
        return '%s(base_lr=%r)' % (type(self).__name__, self.base_lr)


class FactorScheduler(LRScheduler):
    """lr = base_lr · factor^⌊(num_update - 1) / step⌋, never below ``stop_factor_lr``.

    The rate drops right *after* every ``step`` updates (at num_update = step + 1,
    2·step + 1, ...), as MXNet's.
    """

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
        while num_update > self.count + self.step:
            self.count += self.step
            self.base_lr *= self.factor
            if self.base_lr < self.stop_factor_lr:
                self.base_lr = self.stop_factor_lr
                logging.info("Update[%d]: learning rate reached its floor %0.5e", num_update,
                             self.base_lr)
            else:
                logging.info("Update[%d]: learning rate is now %0.5e", num_update, self.base_lr)
        return self.base_lr


class MultiFactorScheduler(LRScheduler):
    """lr = base_lr · factor^k after the k-th milestone of ``step`` has been passed.

    ``step`` is an increasing list of update counts; the rate drops right after each.
    """

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
