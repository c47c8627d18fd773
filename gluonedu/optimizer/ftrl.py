"""FTRL-Proximal ("Follow The Regularized Leader"), as MXNet 1.9.1's ``ftrl_update``.

From McMahan et al., *Ad Click Prediction: a View from the Trenches* (KDD 2013). FTRL
keeps, per coordinate, a running sum ``n`` of squared gradients (AdaGrad's) and a
"z" accumulator; the weight is *recomputed* from ``z`` at every step rather than moved
by a step. Coordinates with ``|z| <= lamda1`` come out exactly zero: the L1 term makes
the model sparse, which is why FTRL is popular for huge, sparse linear models.

Row-sparse gradients: as MXNet, the update is lazy (only the rows in
``grad.indices`` of the weight, ``z`` and ``n`` are touched) when the weight itself is
row-sparse — its states are then row-sparse too. A dense weight with a row-sparse
gradient gets the ordinary dense update (MXNet falls back to the dense kernel there):
every row of the weight is recomputed from its ``z`` and ``n``.
"""
from typing import NamedTuple

import numpy as np

from .. import ndarray as nd
from .fastpath import Kernel
from .kernels import clip_constant, clipped, kernel_clip, kernel_scalars
from .optimizer import Optimizer, register, accepts_lists, check_hyperparameter, state_type

__all__ = ['Ftrl', 'FtrlState']


@state_type
class FtrlState(NamedTuple):
    """FTRL's accumulator ``z`` and its sum of squared gradients ``n``."""
    z: object
    n: object


def ftrl_step(weight, grad, z, n, lr, lamda1, beta, wd, rescale_grad, clip_gradient):
    """One FTRL step in place, in the order of MXNet's float kernel.

    All arrays are dense and of one dtype; ``clip_gradient`` is None for "no clipping".
    """
    g = grad * rescale_grad
    if clip_gradient is not None:
        g = nd.clip(g, -clip_gradient, clip_gradient)
    g_squared = g * g
    # sqrt(n + g^2) - sqrt(n) is how much the per-coordinate 1/eta grows this step.
    z[:] = z + (g - (nd.sqrt(n + g_squared) - nd.sqrt(n)) * weight / lr)
    n[:] = n + g_squared
    # The closed-form minimiser: soft-threshold z by lamda1, scale by 1/eta + wd.
    outside_l1_ball = nd.abs(z) > lamda1
    weight[:] = (nd.sign(z) * lamda1 - z) / ((beta + nd.sqrt(n)) / lr + wd) * outside_l1_ball


def ftrl(weight, grad, z, n, lr, wd, rescale, clip, lamda1, beta):
    """FTRL-Proximal on one element: coordinates inside the lamda1 ball become 0."""
    grad = grad * rescale
    if clip > 0:
        grad = clipped(grad, clip)
    g_squared = grad * grad
    z = z + (grad - (np.sqrt(n + g_squared) - np.sqrt(n)) * weight / lr)
    n = n + g_squared
    weight = (np.sign(z) * lamda1 - z) / ((beta + np.sqrt(n)) / lr + wd) * (np.abs(z) > lamda1)
    return weight, z, n


FTRL = Kernel(ftrl, writes=('weight', 'z', 'n'), per_parameter=('lr', 'wd'))


@register
class Ftrl(Optimizer):
    """The FTRL-Proximal optimizer.

    With ``g = clip(rescale_grad * grad, clip_gradient)``, per coordinate::

        z += g - (sqrt(n + g**2) - sqrt(n)) * w / lr
        n += g**2
        w  = (sign(z) * lamda1 - z) / ((beta + sqrt(n)) / lr + wd) * (|z| > lamda1)

    so the per-coordinate learning rate is ``lr / (beta + sqrt(n))`` and coordinates
    with ``|z| <= lamda1`` are exactly zero.

    If the weight is row-sparse (its states then are too) and the gradient is
    row-sparse, only the rows in ``grad.indices`` are updated (weight, ``z``, ``n``).

    Parameters
    ----------
    lamda1 : float, default 0.01
        L1 regularisation strength (>= 0). MXNet spells it ``lamda1``.
    learning_rate : float, default 0.1
        The base learning rate (> 0: the update divides by it).
    beta : float, default 1
        Added to ``sqrt(n)`` in the per-coordinate learning rate (>= 0).
    **kwargs
        Passed to :class:`Optimizer` (``wd``, ``rescale_grad``, ``clip_gradient``, ...).

    Notes
    -----
    The state is ``FtrlState(z, n)``.
    """

    state_type = FtrlState

    def __init__(self, lamda1=0.01, learning_rate=0.1, beta=1, **kwargs):
        check_hyperparameter('lamda1', lamda1, low=0)
        check_hyperparameter('beta', beta, low=0)
        # The update divides by the learning rate, so 0 is not allowed here.
        check_hyperparameter('learning_rate', learning_rate, low=0, low_open=True)
        super().__init__(**kwargs)
        self.lamda1 = lamda1
        self.beta = beta
        # As MXNet: Ftrl's own default (0.1) replaces the base class's, even beside an
        # lr_scheduler (which then still decides the learning rate).
        self.lr = learning_rate

    def create_state(self, index, weight):
        # MXNet makes these float32 whatever the weight's dtype (its kernel then refuses
        # float16 weights without multi_precision); we follow the weight's dtype.
        z = nd.zeros(weight.shape, weight.context, dtype=weight.dtype, stype=weight.stype)
        n = nd.zeros(weight.shape, weight.context, dtype=weight.dtype, stype=weight.stype)
        return FtrlState(z, n)

    @accepts_lists
    def update(self, index, weight, grad, state):
        """Update ``weight`` and its state ``(z, n)`` in place."""
        lr, wd, _ = self.begin_step(index)
        z, n = state

        # Scalars reach MXNet's kernel in the weight's precision.
        dtype = weight.dtype
        lr, lamda1, beta, wd, rescale = kernel_scalars(dtype, lr, self.lamda1, self.beta, wd,
                                                       self.rescale_grad)
        clip = kernel_clip(self.clip_gradient, dtype)

        lazy = grad.stype == 'row_sparse' and weight.stype == 'row_sparse'
        if not lazy:
            dense_weight = weight.tostype('default') if weight.stype != 'default' else weight
            dense_z, dense_n = (s.tostype('default') if s.stype != 'default' else s
                                for s in (z, n))
            ftrl_step(dense_weight, grad.tostype('default'), dense_z, dense_n,
                      lr, lamda1, beta, wd, rescale, clip)
            for target, result in ((weight, dense_weight), (z, dense_z), (n, dense_n)):
                if target is not result:
                    target[:] = result
            return

        # Lazy update of a row-sparse weight: work on the touched rows of dense copies,
        # then store the copies back.
        rows = grad.indices
        dense = [a.tostype('default') for a in (weight, z, n)]
        w_rows, z_rows, n_rows = (a[rows] for a in dense)
        ftrl_step(w_rows, grad.data, z_rows, n_rows, lr, lamda1, beta, wd, rescale, clip)
        for target, full, updated in zip((weight, z, n), dense, (w_rows, z_rows, n_rows)):
            full[rows] = updated
            target[:] = full

    # ------------------------------------------------------------------ fast path
    def fused_refusal(self, indices, weights, grads):
        if any(g.stype == 'row_sparse' for g in grads):
            return ('Ftrl updates a dense weight densely from a row_sparse gradient (its lazy '
                    'update needs row_sparse weights)')
        return None

    def fused_step(self, run):
        """:meth:`update` over a fused run."""
        lr, wd, _ = self.begin_step(list(run.indices))
        run(FTRL, lr=lr, wd=wd, rescale=np.float32(self.rescale_grad),
            clip=clip_constant(self.clip_gradient), lamda1=np.float32(self.lamda1),
            beta=np.float32(self.beta))
