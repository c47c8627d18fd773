"""LAMB (Layer-wise Adaptive Moments for Batch training), as MXNet 1.9.1's.

From You et al., *Large Batch Optimization for Deep Learning: Training BERT in 76
minutes* (https://arxiv.org/abs/1904.00962). LAMB is Adam whose step, per layer
(per parameter tensor), is rescaled by the *trust ratio* ``||w|| / ||step||``: every
layer moves by the same fraction of its own size, which keeps very large batches stable.

MXNet splits it into two kernels and we follow the same two phases:

* phase 1 (``lamb_update_phase1``): update the moments and form the Adam direction
  ``g`` (with weight decay added to it);
* phase 2 (``lamb_update_phase2``): scale ``lr`` by ``||w|| / ||g||`` and step.

MXNet's multi-tensor ``multi_lamb_update`` (used for list calls and by the Updater,
``aggregate_num`` tensors at a time) computes the same numbers tensor by tensor.
"""
import os
from typing import NamedTuple

import numpy as np

from .. import ndarray as nd
from .fastpath import Kernel, per_t
from .kernels import clip_constant, clipped, kernel_clip, kernel_scalars
from .optimizer import Optimizer, register, accepts_lists, check_hyperparameter, state_type

__all__ = ['LAMB', 'LAMBState', 'lamb_moment_scales', 'trust_scaled_lr']


@state_type
class LAMBState(NamedTuple):
    """LAMB's running estimates of the gradient's first and second moments."""
    mean: object
    var: object


def lamb_direction(weight, grad, mean, var, beta1, beta2, epsilon, t, bias_correction, wd,
                   rescale_grad, clip_gradient):
    """Phase 1: update ``mean``/``var`` in place and return the direction ``g``.

    ``weight`` is the float32 master copy under multi-precision; all arrays dense.
    """
    scalar = np.dtype(weight.dtype).type
    grad = grad * rescale_grad
    if clip_gradient is not None:
        grad = nd.clip(grad, -clip_gradient, clip_gradient)
    mean[:] = beta1 * mean + (1 - beta1) * grad
    var[:] = beta2 * var + (1 - beta2) * grad * grad
    if bias_correction:
        mean_hat = mean / scalar(1 - beta1 ** t)
        var_hat = var / scalar(1 - beta2 ** t)
        return mean_hat / (nd.sqrt(var_hat) + epsilon) + wd * weight
    return mean / (nd.sqrt(var) + epsilon) + wd * weight


def l2norm(array):
    """||array||_2 as a float32 number, as MXNet's ``multi_sum_sq`` measures it.

    The squares are taken in the array's own dtype (so float16 squares are rounded to
    float16) and summed in higher precision.
    """
    squares = (array * array).asnumpy().astype(np.float64)
    return np.float32(np.sqrt(np.float32(squares.sum())))


def lamb_step(weight, direction, lr, lower_bound, upper_bound, weight_norm):
    """Phase 2: ``weight -= lr * trust_ratio * direction`` in place.

    ``trust_ratio = r1 / r2`` with ``r1 = weight_norm`` (clamped to the bounds, each
    None when unset) and ``r2 = ||direction||``; it is 1 when either norm is zero.
    """
    scalar = np.dtype(weight.dtype).type
    r1 = scalar(weight_norm)
    r2 = scalar(l2norm(direction))
    if lower_bound is not None:
        r1 = max(r1, scalar(lower_bound))
    if upper_bound is not None:
        r1 = min(r1, scalar(upper_bound))
    scaled_lr = scalar(trust_scaled_lr(lr, r1, r2))
    weight[:] = weight - scaled_lr * direction


def lamb_moment_scales(beta1, beta2, t, bias_correction=True):
    """The moments' bias corrections ``(1 - beta1**t, 1 - beta2**t)`` at step ``t``, in the
    precision of the betas given (MXNet's float32 numbers); ``(1, 1)`` without bias
    correction."""
    scalar = type(beta1)
    if not bias_correction:
        return scalar(1), scalar(1)
    return scalar(1 - beta1 ** t), scalar(1 - beta2 ** t)


def trust_scaled_lr(lr, r1, r2):
    """``lr * r1 / r2``, the learning rate times the trust ratio (numbers or arrays of
    them); ``lr`` itself where either norm is 0."""
    with np.errstate(divide='ignore', invalid='ignore'):
        return np.where((r1 == 0) | (r2 == 0), lr, lr * r1 / r2)


def lamb_phase1(weight, grad, mean, var, direction, wd, mean_scale, var_scale, rescale, clip,
                beta1, beta2, one_minus_beta1, one_minus_beta2, epsilon):
    """Phase 1 on one element: the moments and the direction (the scales are
    ``1 - beta**t``, or 1 without bias correction)."""
    grad = grad * rescale
    if clip > 0:
        grad = clipped(grad, clip)
    mean = beta1 * mean + one_minus_beta1 * grad
    var = beta2 * var + one_minus_beta2 * grad * grad
    direction = (mean / mean_scale) / (np.sqrt(var / var_scale) + epsilon) + wd * weight
    return mean, var, direction


def lamb_phase2(weight, direction, scaled_lr):
    """Phase 2 on one element: w -= lr * trust_ratio * d (the ratio folded into scaled_lr)."""
    return (weight - scaled_lr * direction,)


LAMB_PHASE1 = Kernel(lamb_phase1, writes=('mean', 'var', 'direction'), reads=('weight', 'grad'),
                     per_parameter=('wd', 'mean_scale', 'var_scale'))
LAMB_PHASE2 = Kernel(lamb_phase2, writes=('weight',), reads=('direction',),
                     per_parameter=('scaled_lr',))


@register
class LAMB(Optimizer):
    """The LAMB optimizer.

    At step ``t`` (per parameter, from 1), with ``g = clip(rescale_grad * grad,
    clip_gradient)``::

        mean = beta1 * mean + (1 - beta1) * g
        var  = beta2 * var + (1 - beta2) * g**2
        if bias_correction:
            mean_hat = mean / (1 - beta1**t);  var_hat = var / (1 - beta2**t)
        else:
            mean_hat = mean;                   var_hat = var
        d  = mean_hat / (sqrt(var_hat) + epsilon) + wd * w
        r1 = clamp(||w||, lower_bound, upper_bound);  r2 = ||d||
        w  = w - lr * (r1 / r2) * d          (lr * d if r1 == 0 or r2 == 0)

    Parameters
    ----------
    learning_rate : float, default 0.001
    beta1 : float, default 0.9
        Decay of the first moment, in [0, 1).
    beta2 : float, default 0.999
        Decay of the second moment, in [0, 1).
    epsilon : float, default 1e-6
        Added to ``sqrt(var_hat)`` (>= 0).
    lower_bound, upper_bound : float, optional
        Clamp ``||w||`` in the trust ratio. As MXNet, None and 0 mean "no bound".
    bias_correction : bool, default True
        Divide the moments by ``1 - beta**t``.
    **kwargs
        Passed to :class:`Optimizer` (``wd``, ``rescale_grad``, ``multi_precision``, ...).

    Notes
    -----
    The state is ``LAMBState(mean, var)``; with ``multi_precision=True`` a float16 weight's
    state is ``MultiPrecisionState(weight_fp32, LAMBState(mean, var))``, the moments float32, and the float16 weight receives
    the updated master copy. ``aggregate_num`` (how many tensors the Updater passes per
    call) is ``MXNET_OPTIMIZER_AGGREGATION_SIZE`` clamped to [1, 45], default 45.
    Row-sparse gradients are used as the dense arrays they stand for.
    """

    state_type = LAMBState

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-6,
                 lower_bound=None, upper_bound=None, bias_correction=True, **kwargs):
        check_hyperparameter('beta1', beta1, low=0, high=1, high_open=True)
        check_hyperparameter('beta2', beta2, low=0, high=1, high_open=True)
        check_hyperparameter('epsilon', epsilon, low=0)
        for name, bound in (('lower_bound', lower_bound), ('upper_bound', upper_bound)):
            if bound is not None:
                check_hyperparameter(name, bound, low=0)
        if lower_bound and upper_bound and lower_bound > upper_bound:
            raise ValueError("lower_bound (%r) must not exceed upper_bound (%r)"
                             % (lower_bound, upper_bound))
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1 = beta1
        self.beta2 = beta2
        self.epsilon = epsilon
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        self.bias_correction = bias_correction
        self.aggregate_num = max(1, min(45, int(os.getenv('MXNET_OPTIMIZER_AGGREGATION_SIZE',
                                                          '45'))))

    def create_state(self, index, weight):
        def zeros():
            return nd.zeros(weight.shape, weight.context, dtype=weight.dtype, stype=weight.stype)
        return LAMBState(zeros(), zeros())

    @accepts_lists
    def update(self, index, weight, grad, state):
        """Update ``weight`` and its state ``(mean, var)`` in place."""
        self._update(index, weight, grad, state, model_weight=weight)

    def update_multi_precision(self, index, weight, grad, state):
        """As :meth:`update`, going through the float32 master copies of float16 weights.

        As MXNet's ``multi_mp_lamb_update``, the trust ratio's ``||w||`` is measured on
        the float16 weight; everything else runs on the master copy.
        """
        if isinstance(index, (list, tuple)):
            for i, w, g, s in zip(index, weight, grad, state):
                self.update_multi_precision(i, w, g, s)
        elif self.multi_precision and weight.dtype == np.float16:
            master, moments = state
            self._update(index, master, grad.astype(np.float32), moments, model_weight=weight)
            nd.cast(master, dtype=weight.dtype, out=weight)
        else:
            self.update(index, weight, grad, state)

    def _update(self, index, weight, grad, state, model_weight):
        """One tensor's update; ``model_weight`` is the weight whose norm enters the
        trust ratio (``weight`` itself, or the float16 weight of a master copy)."""
        lr, wd, t = self.begin_step(index)
        mean, var = state

        # Scalars reach MXNet's kernels in the weight's precision.
        dtype = weight.dtype
        lr, beta1, beta2, epsilon, wd, rescale = kernel_scalars(
            dtype, lr, self.beta1, self.beta2, self.epsilon, wd, self.rescale_grad)
        direction = lamb_direction(
            weight, grad.tostype('default'), mean, var, beta1=beta1, beta2=beta2,
            epsilon=epsilon, t=t, bias_correction=self.bias_correction, wd=wd,
            rescale_grad=rescale, clip_gradient=kernel_clip(self.clip_gradient, dtype))
        # As MXNet, a bound of 0 (falsy) is no bound.
        lamb_step(weight, direction, lr, lower_bound=self.lower_bound or None,
                  upper_bound=self.upper_bound or None, weight_norm=l2norm(model_weight))

    # ------------------------------------------------------------------ fast path
    fused_one_pass = False   # two kernels, and the second sees the direction, not g

    def fused_step(self, run):
        """:meth:`update` over a flat run: phase 1 per element; trust ratios from the
        norms per parameter of the weight (the float16 one under multi_precision, as
        MXNet) and the direction; phase 2 per element."""
        lr, wd, t = self.begin_step(list(run.indices))
        beta1, beta2 = np.float32(self.beta1), np.float32(self.beta2)
        if self.bias_correction:
            # The reference: scalar(1 - beta1 ** t), beta1 a float32 number.
            mean_scale = per_t(t, lambda t: lamb_moment_scales(beta1, beta2, t)[0])
            var_scale = per_t(t, lambda t: lamb_moment_scales(beta1, beta2, t)[1])
        else:
            mean_scale = var_scale = np.ones(len(t), dtype=np.float32)
        direction = run.scratch('direction')
        run(LAMB_PHASE1, arrays={'direction': direction}, wd=wd, mean_scale=mean_scale,
            var_scale=var_scale, rescale=np.float32(self.rescale_grad),
            clip=clip_constant(self.clip_gradient), beta1=beta1, beta2=beta2,
            one_minus_beta1=1 - beta1, one_minus_beta2=1 - beta2,
            epsilon=np.float32(self.epsilon))
        r1 = _norms(run.sums_of_squares(run.model_weight))
        r2 = _norms(run.sums_of_squares(direction))
        if self.lower_bound:
            r1 = np.maximum(r1, np.float32(self.lower_bound))
        if self.upper_bound:
            r1 = np.minimum(r1, np.float32(self.upper_bound))
        lr = lr.astype(np.float32)
        scaled = trust_scaled_lr(lr, r1, r2)
        run(LAMB_PHASE2, arrays={'direction': direction}, scaled_lr=scaled)


def _norms(sums_of_squares):
    """float32 norms from float64 sums of squares, as :func:`l2norm` rounds them."""
    return np.sqrt(np.asarray(sums_of_squares, dtype=np.float64).astype(np.float32))
