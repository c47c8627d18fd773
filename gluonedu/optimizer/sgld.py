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

import numpy as np

from .. import ndarray as nd
from ..ndarray import random as nd_random
from .fastpath import Kernel
from .kernels import clip_constant, clipped, negative_clip_refusal
from .optimizer import Optimizer, register, accepts_lists

__all__ = ['SGLD']


def sgld(weight, grad, noise, neg_half_lr, wd, rescale, clip):
    """SGLD on one element: w += -lr/2 * (clip(rescale*g) + wd*w), rounded; then w += noise.

    ``neg_half_lr`` is ``-lr / 2`` (the reference's Python number, rounded to float32);
    ``noise`` holds the reference's own N(0, lr) draws (see :meth:`SGLD.fused_step`).
    """
    grad = grad * rescale
    if clip >= 0:
        grad = clipped(grad, clip)
    weight = weight + neg_half_lr * (grad + wd * weight)
    return (weight + noise,)


SGLD_KERNEL = Kernel(sgld, writes=('weight',), reads=('grad', 'noise'),
                     per_parameter=('neg_half_lr', 'wd'))


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

    # ------------------------------------------------------------------ fast path
    def fused_refusal(self, indices, weights, grads):
        if getattr(self._noise, '__func__', None) is not _OWN_NOISE or \
                nd_random.normal is not _NORMAL:
            return ('SGLD._noise or mx.nd.random.normal is replaced (the reference draws its '
                    'noise through them)')
        return negative_clip_refusal(self.clip_gradient) or \
            super().fused_refusal(indices, weights, grads)

    def fused_step(self, run):
        """:meth:`update` over a flat run: the deterministic half-step and the reference's
        own noise in one pass.

        The reference draws, parameter by parameter in order, ``nd.random.normal(0,
        sqrt(lr), shape=w.shape, dtype=w.dtype, ctx=w.context)``, and nothing else draws
        in between; so the run's noise can be drawn before the pass into a scratch buffer
        (:func:`_noise_of`), the very same numbers.
        """
        step = self.begin_step(list(run.indices))
        run(SGLD_KERNEL, arrays={'noise': _noise_of(run, step.lr)}, neg_half_lr=-step.lr / 2,
            wd=step.wd, rescale=np.float32(self.rescale_grad),
            clip=clip_constant(self.clip_gradient, kernel=False))


_OWN_NOISE = SGLD._noise      # what the reference draws through, as defined here
_NORMAL = nd_random.normal


def _noise_of(run, lrs):
    """SGLD's noise for a flat run: N(0, lr_k) for parameter k, drawn as the reference
    draws it, in a float32 scratch buffer.

    With NumPy's Generator (CPU contexts) one ``standard_normal`` call fills a float64
    scratch: ``normal(0, s, n)`` computes ``0 + s * z`` from the same standard normals z,
    one after the other, wherever calls split the stream; we scale each parameter's
    piece by its ``math.sqrt(lr)`` and round to float32 (the reference's ``astype``).
    Other generators (CuPy's draws in pairs, so splits matter) get the reference's own
    call per parameter, copied in.
    """
    noise = run.scratch('sgld_noise')
    context = run.weights[0].context
    scales = np.array([math.sqrt(lr) for lr in lrs.tolist()])   # the reference's own sqrt
    generator = nd_random.random_state(context)
    if isinstance(generator, np.random.Generator):
        normals = run.scratch('sgld_normals', np.float64)
        generator.standard_normal(out=normals)
        normals *= scales[0] if (scales == scales[0]).all() else run.expand(scales)
        np.add(normals, 0.0, out=noise)   # "0 + s*z" (a -0.0 becomes 0.0), then rounded
        return noise
    for piece, weight, scale in zip(run.views_of(noise), run.weights, scales.tolist()):
        sample = nd_random.normal(0, scale, shape=weight.shape, dtype=np.float32,
                                  ctx=context)
        piece[:] = sample.reshape(-1)
    return noise
