"""RMSProp, plain (Tieleman & Hinton, 2012) and centered (Graves, 2013), as MXNet 1.9.1."""
import numpy as np

from .. import ndarray as nd
from .optimizer import Optimizer, register, accepts_lists, check_hyperparameter

__all__ = ['RMSProp']


@register
class RMSProp(Optimizer):
    """The RMSProp optimizer: steps divided by a running root-mean-square of gradients.

    Both versions first form ``g = clip(rescale_grad * g + wd * w, clip_gradient)``.

    ``centered=False`` (Tieleman & Hinton; MXNet's ``rmsprop_update``), state ``n``::

        n = (1 - gamma1) * g**2 + gamma1 * n
        w = w - lr * g / sqrt(n + epsilon)

    ``centered=True`` (Graves, eqs. 38-45; MXNet's ``rmspropalex_update``), states
    ``n`` (mean square), ``g_avg`` (mean) and ``delta`` (momentum)::

        n     = (1 - gamma1) * g**2 + gamma1 * n
        g_avg = (1 - gamma1) * g + gamma1 * g_avg
        delta = gamma2 * delta - lr * g / sqrt(n - g_avg**2 + epsilon)
        w     = w + delta

    The centered version divides by an estimate of the gradient's standard deviation
    rather than its root mean square. In both, when ``clip_weights`` is positive the new
    weight is clipped to [-clip_weights, clip_weights]. As in MXNet's kernels, a
    ``clip_gradient`` or ``clip_weights`` of 0 (or below) means no clipping. A row-sparse
    gradient is used as the dense gradient it stands for.

    Parameters
    ----------
    learning_rate : float, default 0.001
    gamma1 : float, default 0.9
        Decay rate of the running averages, in [0, 1].
    gamma2 : float, default 0.9
        Momentum of ``delta`` (centered version only), in [0, 1].
    epsilon : float, default 1e-8
        Added under the square root; must be >= 0.
    centered : bool, default False
        Use Graves's centered version.
    clip_weights : float, optional
        Clip the updated weights to [-clip_weights, clip_weights].
    **kwargs
        Passed to :class:`Optimizer` (``wd``, ``rescale_grad``, ``clip_gradient``, ...).

    State: ``(n,)``, or ``(n, g_avg, delta)`` when centered; float32 zeros of the
    weight's shape and storage type.
    """

    state_names = ('mean_square', 'mean', 'delta')

    def __init__(self, learning_rate=0.001, gamma1=0.9, gamma2=0.9, epsilon=1e-8,
                 centered=False, clip_weights=None, **kwargs):
        check_hyperparameter('gamma1', gamma1, low=0, high=1)
        check_hyperparameter('gamma2', gamma2, low=0, high=1)
        check_hyperparameter('epsilon', epsilon, low=0)
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.gamma1 = gamma1
        self.gamma2 = gamma2
        self.centered = centered
        self.epsilon = epsilon
        self.clip_weights = clip_weights

    def create_state(self, index, weight):
        # As MXNet: the states have the default dtype (float32), whatever the weight's.
        def zeros():
            return nd.zeros(weight.shape, weight.context, stype=weight.stype)
        if self.centered:
            return (zeros(), zeros(), zeros())  # n, g_avg, delta
        return (zeros(),)  # n

    @accepts_lists
    def update(self, index, weight, grad, state):
        self._update_count(index)
        lr = self._get_lr(index)
        wd = self._get_wd(index)

        if grad.stype == 'row_sparse':
            grad = grad.tostype('default')
        grad = grad * self.rescale_grad + wd * weight
        if self.clip_gradient is not None and self.clip_gradient > 0:
            grad = nd.clip(grad, -self.clip_gradient, self.clip_gradient)

        # The kernels round gamma1 to the weight's dtype and form 1 - gamma1 in that dtype;
        # so do we. The two kernels also group their products differently (g * g first, or
        # lr * g first); each branch below follows its kernel, to match it bit for bit.
        one_minus_gamma1 = 1 - np.dtype(weight.dtype).type(self.gamma1)
        if not self.centered:
            (n,) = state
            n[:] = one_minus_gamma1 * (grad * grad) + self.gamma1 * n
            new_weight = weight - lr * (grad / nd.sqrt(n + self.epsilon))
        else:
            n, g_avg, delta = state
            n[:] = one_minus_gamma1 * grad * grad + self.gamma1 * n
            g_avg[:] = one_minus_gamma1 * grad + self.gamma1 * g_avg
            delta[:] = self.gamma2 * delta - \
                lr * grad / nd.sqrt(n - g_avg * g_avg + self.epsilon)
            new_weight = weight + delta

        if self.clip_weights is not None and self.clip_weights > 0:
            new_weight = nd.clip(new_weight, -self.clip_weights, self.clip_weights)
        weight[:] = new_weight
