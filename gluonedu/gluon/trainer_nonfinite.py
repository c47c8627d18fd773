"""What a Trainer does about NaN and infinite gradients (``Trainer(..., nonfinite=...)``).

One NaN in one gradient reaches every weight within a few steps: the update makes that
weight NaN, the next forward pass carries it through every layer after it, and the next
backward pass into every gradient. Nothing fails on the way, so without a check the run
goes on training NaN. Each step, the Trainer looks at the gradients it is about to apply
(after contrib.amp's overflow check: a step the loss scaler skips is not looked at):

* ``'warn'`` (the default): a ``RuntimeWarning`` the first time a parameter's gradient
  holds NaN or ±Inf, naming it, its context and the step, and saying what usually
  causes it; the step goes on, as in MXNet. Each parameter is named once per Trainer;
  several found at one step share one warning.
* ``'raise'``: ``FloatingPointError`` before the update, so the weights and the
  optimizer's states keep their last finite values (the step is not counted).
* ``'ignore'``: no check (MXNet 1.9.1, which has none).

Cost, when every value is finite (the usual case): one dot product per gradient buffer
-- per context and dtype for a fused Trainer's flat buffers, per gradient otherwise --
since Σg² is finite exactly when every entry is. (A square that overflows,
``abs(g) > 1e19`` in float32, makes the sum infinite although every entry is finite; the
exact count that follows then finds nothing to report.) A GPU buffer's sum is read back to
the host.
"""
import warnings

import numpy as np

from ..optimizer.reporting import all_finite, nonfinite_counts

__all__ = ['MODES', 'NonFiniteCheck']

#: The values of ``Trainer(..., nonfinite=...)``.
MODES = ('warn', 'raise', 'ignore')


class NonFiniteCheck:
    """A Trainer's check of the gradients it applies (see the module docstring)."""

    def __init__(self, mode='warn'):
        self.mode = mode
        self._named = set()   # parameters a warning has named

    @property
    def mode(self):
        """``'warn'``, ``'raise'`` or ``'ignore'``."""
        return self._mode

    @mode.setter
    def mode(self, mode):
        if mode not in MODES:
            raise ValueError("nonfinite must be one of %s, got %r"
                             % (', '.join(repr(m) for m in MODES), mode))
        self._mode = mode

    def check(self, step, params, grads, flat_buffers=None, stacklevel=2):
        """Warn or raise if a gradient of ``grads`` holds NaN or ±Inf.

        Parameters
        ----------
        step : int
            The step about to apply them (for the message).
        params : sequence of Parameter
            The Trainer's parameters, by index.
        grads : iterable of (index, NDArray)
            The gradients about to be applied, each with its parameter's index (read
            only if a flat buffer is not finite, or without flat buffers).
        flat_buffers : list of arrays, optional
            Flat NumPy/CuPy buffers that hold all of ``grads`` (and maybe more): looked
            at first, one dot product each; only if one is not finite are ``grads``
            counted one by one.
        stacklevel : int
            Of the warning, counted from the caller of this method.
        """
        if self._mode == 'ignore' or (self._mode == 'warn' and len(self._named) == len(params)):
            return
        with np.errstate(over='ignore', invalid='ignore'):
            if flat_buffers is not None and all(all_finite(b) for b in flat_buffers):
                return
        grads = list(grads)
        counts = nonfinite_counts([grad for _, grad in grads])
        found = [(params[index].name, grad.context, count)
                 for (index, grad), count in zip(grads, counts) if count]
        if self._mode == 'raise':
            if found:
                raise FloatingPointError(_message(found, step, raised=True))
            return
        new = [entry for entry in found if entry[0] not in self._named]
        if new:
            self._named.update(name for name, _, _ in new)
            warnings.warn(_message(new, step, raised=False), RuntimeWarning,
                          stacklevel=stacklevel + 1)


#: How many (parameter, context) entries a message lists before 'and N more'.
_LISTED = 6


def _message(found, step, raised):
    """What the warning or the error says about ``found``: (name, context, count)."""
    if len(found) == 1:
        (name, context, count), = found
        text = ('Gradient of Parameter `%s` on context %s holds %d NaN or infinite value%s '
                'at step %d. ' % (name, context, count, '' if count == 1 else 's', step))
    else:
        listed = ', '.join('`%s` on %s (%d)' % entry for entry in found[:_LISTED])
        if len(found) > _LISTED:
            listed += ' and %d more' % (len(found) - _LISTED)
        text = ('Gradients of %d Parameters hold NaN or infinite values at step %d: %s. '
                % (len(found), step, listed))
    if raised:
        text += ("The update was not made: the weights and the optimizer's states keep "
                 "their last finite values. ")
    else:
        text += ("The update makes the weight%s NaN or infinite, and the next forward pass "
                 "spreads that to every layer. " % ('' if len(found) == 1 else 's'))
    text += ("Usual causes: a learning rate too large (lower it), gradients that explode "
             "(clip them: the optimizer's clip_gradient, or gluon.utils.clip_global_norm "
             "between allreduce_grads() and update()), or NaN/inf in the data or the loss "
             "(check the batch).")
    if not raised:
        text += (" Each parameter is named once; Trainer(..., nonfinite='raise') stops "
                 "at the first such step instead.")
    return text
