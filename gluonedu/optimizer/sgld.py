"""Stochastic gradient Langevin dynamics (Welling & Teh, 2011), as MXNet 1.9.1's SGLD.

SGLD turns SGD into a sampler: half a gradient step plus Gaussian noise whose variance
equals the learning rate, so that with a decaying rate the weights wander over the
posterior instead of settling at its mode.

**Testing it.** The noise comes from ``mx.nd.random.normal`` on the weight's context,
so ``mx.random.seed(s)`` makes a run reproducible. Two checks pin the optimizer down:

* *the deterministic part, exactly:* seed, update, then re-seed with the same ``s`` and
  draw ``noise = mx.nd.random.normal(0, sqrt(lr), shape=w.shape, dtype=w.dtype,
  ctx=w.context)`` — the same numbers the update drew — and compare the new weight with
  ``(w - lr/2 * (clip(rescale_grad * g) + wd * w)) + noise``. Against MXNet (whose
  generator differs) replace the noise by zeros on both sides: patch
  ``mxnet.optimizer.optimizer.normal`` and :meth:`SGLD._noise` to return zeros;
* *the noise statistics:* with a zero gradient and ``wd = 0`` the change of a large
  weight is pure noise, whose mean is ~0 and standard deviation ~``sqrt(lr)``.
"""
import math

from .. import ndarray as nd
from .optimizer import Optimizer, register, accepts_lists

__all__ = ['SGLD']


@register
class SGLD(Optimizer):
    """Stochastic gradient Langevin dynamics.

    For a weight ``w`` with gradient ``g``, learning rate ``lr`` and weight decay ``wd``::

        g = clip(rescale_grad * g, clip_gradient)
        w = w - lr / 2 * (g + wd * w)
        w = w + N(0, lr)          (a fresh standard-deviation-sqrt(lr) sample per element)

    The noise is drawn from ``mx.nd.random`` on the weight's context (seed it with
    ``mx.random.seed``). SGLD keeps no state. Row-sparse gradients count as the dense
    arrays they stand for.

    Parameters
    ----------
    **kwargs
        Passed to :class:`Optimizer` (``learning_rate``, ``wd``, ``rescale_grad``, ...).
    """

    def __init__(self, **kwargs):
        super().__init__(**kwargs)

    def create_state(self, index, weight):
        return None

    @accepts_lists
    def update(self, index, weight, grad, state):
        lr, wd, _ = self.begin_step(index)
        if grad.stype == 'row_sparse':
            grad = grad.tostype('default')

        grad = self._rescaled(grad)
        weight[:] += -lr / 2 * (grad + wd * weight)
        weight[:] += self._noise(lr, weight)

    def _noise(self, lr, weight):
        """Gaussian noise of variance ``lr``, shaped, typed and placed like ``weight``."""
        return nd.random.normal(0, math.sqrt(lr), shape=weight.shape, dtype=weight.dtype,
                                ctx=weight.context)
