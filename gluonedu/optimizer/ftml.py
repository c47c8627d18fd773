"""FTML ("Follow The Moving Leader"), as MXNet 1.9.1's ``ftml_update``.

From Zheng & Kwok, *Follow the Moving Leader in Deep Learning* (ICML 2017). Like FTRL,
FTML recomputes the weight from accumulators instead of stepping it: ``w = -z / d``,
where ``d`` is an Adam-like per-coordinate scale and ``z`` a moving average of
gradients corrected by how much ``d`` changed. With ``beta1 -> 0`` it behaves like
RMSProp; the moving average of past "leaders" makes it steadier than Adam early on.
"""
from typing import NamedTuple

import numpy as np

from .. import ndarray as nd
from .fastpath import Kernel
from .kernels import clip_constant, clipped, kernel_clip, kernel_scalars
from .optimizer import Optimizer, register, accepts_lists, check_hyperparameter, state_type

__all__ = ['ftml_scales', 'FTML', 'FTMLState']


@state_type
class FTMLState(NamedTuple):
    """FTML's previous scale ``d``, its squared-gradient average ``v`` and its leader ``z``."""
    prev_d: object
    prev_v: object
    prev_z: object


def ftml_step(weight, grad, prev_d, prev_v, prev_z, lr, beta1, beta2, epsilon, t, wd,
              rescale_grad, clip_gradient):
    """One FTML step at time ``t`` (1-based), in place, in the order of MXNet's kernel.

    All arrays are dense and of one dtype; ``clip_gradient`` is None for "no clipping".
    """
    scalar = np.dtype(weight.dtype).type
    # Unlike most MXNet kernels, FTML adds the weight decay *before* clipping.
    g = grad * rescale_grad + wd * weight
    if clip_gradient is not None:
        g = nd.clip(g, -clip_gradient, clip_gradient)
    prev_v[:] = beta2 * prev_v + (1 - beta2) * (g * g)
    # The per-coordinate scale d_t = (1 - beta1^t) / lr * (sqrt(v_hat) + eps).
    d_scale, v_correction = ftml_scales(beta1, beta2, lr, t)
    d_t = d_scale * (nd.sqrt(prev_v / v_correction) + epsilon)
    # sigma_t = d_t - beta1 * d_{t-1}: how much the scale grew.
    prev_z[:] = beta1 * prev_z + (1 - beta1) * g - (d_t - beta1 * prev_d) * weight
    prev_d[:] = d_t
    weight[:] = -prev_z / d_t


def ftml(weight, grad, prev_d, prev_v, prev_z, wd, d_scale, v_scale, rescale, clip, beta1, beta2,
         one_minus_beta1, one_minus_beta2, epsilon):
    """FTML on one element; ``d_scale = (1 - beta1**t) / lr``, ``v_scale = 1 - beta2**t``."""
    grad = grad * rescale + wd * weight
    if clip > 0:
        grad = clipped(grad, clip)
    prev_v = beta2 * prev_v + one_minus_beta2 * (grad * grad)
    d_t = d_scale * (np.sqrt(prev_v / v_scale) + epsilon)
    prev_z = beta1 * prev_z + one_minus_beta1 * grad - (d_t - beta1 * prev_d) * weight
    return -prev_z / d_t, d_t, prev_v, prev_z


def ftml_scales(beta1, beta2, lr, t):
    """The rule's ``d_scale = (1 - beta1**t) / lr`` and ``v_scale = 1 - beta2**t`` at step
    ``t``, rounded as the kernel rounds them (in the precision of the numbers given)."""
    scalar = type(beta1)
    return scalar(scalar(1 - beta1 ** t) / lr), scalar(1 - beta2 ** t)


FTML_KERNEL = Kernel(ftml, writes=('weight', 'prev_d', 'prev_v', 'prev_z'),
                     per_parameter=('wd', 'd_scale', 'v_scale'))


@register
class FTML(Optimizer):
    """The FTML optimizer.

    At step ``t`` (per parameter, from 1), with ``g = clip(rescale_grad * grad + wd * w,
    clip_gradient)`` (weight decay inside the clip)::

        v   = beta2 * v + (1 - beta2) * g**2
        d_t = (1 - beta1**t) / lr * (sqrt(v / (1 - beta2**t)) + epsilon)
        z   = beta1 * z + (1 - beta1) * g - (d_t - beta1 * d_{t-1}) * w
        w   = -z / d_t

    Parameters
    ----------
    beta1 : float, default 0.6
        Decay of the moving leader, in [0, 1). Generally close to 0.5.
    beta2 : float, default 0.999
        Decay of the squared-gradient average, in [0, 1). Generally close to 1.
    epsilon : float, default 1e-8
        Added to ``sqrt(v_hat)`` (>= 0).
    **kwargs
        Passed to :class:`Optimizer` (``learning_rate``, ``wd``, ``rescale_grad``, ...).
        ``learning_rate`` must be above 0: the update divides by it.

    Notes
    -----
    The state is ``FTMLState(prev_d, prev_v, prev_z)``, dense, in the weight's dtype.
    Row-sparse gradients are used as the dense arrays they stand for.
    """

    state_type = FTMLState

    def __init__(self, beta1=0.6, beta2=0.999, epsilon=1e-8, **kwargs):
        check_hyperparameter('beta1', beta1, low=0, high=1, high_open=True)
        check_hyperparameter('beta2', beta2, low=0, high=1, high_open=True)
        check_hyperparameter('epsilon', epsilon, low=0)
        if kwargs.get('learning_rate') is not None:
            # d_t divides by the learning rate: 0 would make every weight NaN.
            check_hyperparameter('learning_rate', kwargs['learning_rate'], low=0,
                                 low_open=True)
        super().__init__(**kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon

    def create_state(self, index, weight):
        def zeros():
            return nd.zeros(weight.shape, weight.context, dtype=weight.dtype)
        return FTMLState(zeros(), zeros(), zeros())

    @accepts_lists
    def update(self, index, weight, grad, state):
        """Update ``weight`` and its state ``(prev_d, prev_v, prev_z)`` in place."""
        lr, wd, t = self.begin_step(index)
        prev_d, prev_v, prev_z = state

        # Scalars reach MXNet's kernel in the weight's precision.
        dtype = weight.dtype
        lr, beta1, beta2, epsilon, wd, rescale = kernel_scalars(
            dtype, lr, self.beta1, self.beta2, self.epsilon, wd, self.rescale_grad)
        ftml_step(weight, grad.tostype('default'), prev_d, prev_v, prev_z, lr=lr,
                  beta1=beta1, beta2=beta2, epsilon=epsilon, t=t, wd=wd,
                  rescale_grad=rescale, clip_gradient=kernel_clip(self.clip_gradient, dtype))

    # ------------------------------------------------------------------ fast path
    def fused_step(self, run):
        """:meth:`update` over a fused run (the scales in float32, as the kernel's)."""
        lr, wd, t = self.begin_step(list(run.indices))
        beta1, beta2 = np.float32(self.beta1), np.float32(self.beta2)
        # The reference: scalar(scalar(1 - beta1 ** t) / lr), all float32 numbers.
        d_scale, v_scale = np.array([ftml_scales(beta1, beta2, rate, int(k)) for k, rate in
                                     zip(t, lr.astype(np.float32))], dtype=np.float32).T
        run(FTML_KERNEL, wd=wd, d_scale=d_scale, v_scale=v_scale,
            rescale=np.float32(self.rescale_grad), clip=clip_constant(self.clip_gradient),
            beta1=beta1, beta2=beta2, one_minus_beta1=1 - beta1, one_minus_beta2=1 - beta2,
            epsilon=np.float32(self.epsilon))
