"""Normalization layers: BatchNorm (and BatchNormReLU), LayerNorm, InstanceNorm, GroupNorm.

Each normalizes its input and applies a learned scale ``gamma`` and shift ``beta``
(see :mod:`gluonedu.ndarray.nn_ops.normalization` for the formulas). ``scale=False``
fixes gamma at 1 and ``center=False`` beta at 0: the Parameter then has
``grad_req='null'`` and no optimizer touches it.

BatchNorm also keeps ``running_mean`` and ``running_var``: auxiliary states, not
trained (``grad_req='null'``, so the Trainer skips them) but moved towards each training
batch's statistics — in MXNet 1.x during the *backward* pass — and used instead of the
batch's at inference. Weight decay pulls gamma towards 0, which has no good reason for a
scale; the usual practice is ``net.collect_params('.*gamma|.*beta').setattr('wd_mult', 0)``.
"""
import numpy as np

from ..block import HybridBlock

__all__ = ['BatchNorm', 'BatchNormReLU', 'LayerNorm', 'InstanceNorm', 'GroupNorm']


def _kwargs_text(kwargs):
    return ', '.join('%s=%r' % item for item in kwargs.items())


class _BatchNorm(HybridBlock):
    """Batch normalization (then a ReLU in :class:`BatchNormReLU`).

    Parameters
    ----------
    axis : int, default 1
        The channel axis (1 for NCHW, -1 or 3 for NHWC).
    momentum : float, default 0.9
        ``running = running·momentum + batch·(1 − momentum)``.
    epsilon : float, default 1e-5
    center, scale : bool, default True
        Learn beta / gamma (False: fixed at 0 / 1).
    use_global_stats : bool, default False
        Always normalize with the running statistics (also in training).
    beta_initializer, gamma_initializer, running_mean_initializer,
    running_variance_initializer : Initializer or str
        Defaults 'zeros', 'ones', 'zeros', 'ones'.
    in_channels : int, default 0
        Number of channels; 0 infers it from the first input.
    """

    fuse_relu = False

    def __init__(self, axis=1, momentum=0.9, epsilon=1e-5, center=True, scale=True,
                 use_global_stats=False, beta_initializer='zeros', gamma_initializer='ones',
                 running_mean_initializer='zeros', running_variance_initializer='ones',
                 in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self._kwargs = {'axis': axis, 'eps': epsilon, 'momentum': momentum,
                        'fix_gamma': not scale, 'use_global_stats': use_global_stats}
        if in_channels != 0:
            self.in_channels = in_channels
        shape = (in_channels,)
        self.gamma = self.params.get('gamma', grad_req='write' if scale else 'null',
                                     shape=shape, init=gamma_initializer,
                                     allow_deferred_init=True, differentiable=scale)
        self.beta = self.params.get('beta', grad_req='write' if center else 'null',
                                    shape=shape, init=beta_initializer,
                                    allow_deferred_init=True, differentiable=center)
        self.running_mean = self.params.get('running_mean', grad_req='null', shape=shape,
                                            init=running_mean_initializer,
                                            allow_deferred_init=True, differentiable=False)
        self.running_var = self.params.get('running_var', grad_req='null', shape=shape,
                                           init=running_variance_initializer,
                                           allow_deferred_init=True, differentiable=False)

    def cast(self, dtype):
        """Convert the Parameters; float16 becomes float32 (statistics need the range)."""
        if np.dtype(dtype).name == 'float16':
            dtype = 'float32'
        super().cast(dtype)

    def hybrid_forward(self, F, x, gamma, beta, running_mean, running_var):
        out = F.BatchNorm(x, gamma, beta, running_mean, running_var, name='fwd',
                          **self._kwargs)
        return F.relu(out) if self.fuse_relu else out

    def __repr__(self):
        channels = self.gamma.shape[0]
        return '%s(%s, in_channels=%s)' % (self.__class__.__name__, _kwargs_text(self._kwargs),
                                           channels if channels else None)


class BatchNorm(_BatchNorm):
    """Batch normalization (Ioffe & Szegedy, 2015): normalize each channel with the
    batch's mean and variance in training, the running averages at inference; then
    ``gamma · x̂ + beta``. Arguments as :class:`_BatchNorm`."""


class BatchNormReLU(_BatchNorm):
    """BatchNorm followed by ReLU (MXNet fuses the two into one operator)."""
    fuse_relu = True


class _AffineNorm(HybridBlock):
    """The gamma/beta pair of LayerNorm, InstanceNorm and GroupNorm."""

    def __init__(self, kwargs, center, scale, gamma_initializer, beta_initializer, shape,
                 prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._kwargs = kwargs
        self.gamma = self.params.get('gamma', grad_req='write' if scale else 'null',
                                     shape=shape, init=gamma_initializer,
                                     allow_deferred_init=True)
        self.beta = self.params.get('beta', grad_req='write' if center else 'null',
                                    shape=shape, init=beta_initializer,
                                    allow_deferred_init=True)

    def __repr__(self):
        return '%s(%s, in_channels=%s)' % (self.__class__.__name__, _kwargs_text(self._kwargs),
                                           self.gamma.shape[0])


class LayerNorm(_AffineNorm):
    """Layer normalization (Ba et al., 2016): normalize along ``axis`` (default: the last),
    separately at every position of the other axes; then ``gamma · x̂ + beta``.

    Parameters
    ----------
    axis : int, default -1
    epsilon : float, default 1e-5
    center, scale : bool, default True
    beta_initializer, gamma_initializer : default 'zeros', 'ones'
    in_channels : int, default 0
        Size of ``axis``; 0 infers it from the first input.
    """

    def __init__(self, axis=-1, epsilon=1e-5, center=True, scale=True,
                 beta_initializer='zeros', gamma_initializer='ones', in_channels=0,
                 prefix=None, params=None):
        super().__init__({'eps': epsilon, 'axis': axis, 'center': center, 'scale': scale},
                         center, scale, gamma_initializer, beta_initializer, (in_channels,),
                         prefix=prefix, params=params)

    def hybrid_forward(self, F, data, gamma, beta):
        return F.LayerNorm(data, gamma=gamma, beta=beta, axis=self._kwargs['axis'],
                           eps=self._kwargs['eps'])


class InstanceNorm(_AffineNorm):
    """Instance normalization (Ulyanov et al., 2016): normalize each sample's channel over
    its spatial positions; then ``gamma · x̂ + beta`` per channel.

    Parameters
    ----------
    axis : int, default 1
        The channel axis.
    epsilon : float, default 1e-5
    center : bool, default True
    scale : bool, default False
    beta_initializer, gamma_initializer : default 'zeros', 'ones'
    in_channels : int, default 0
    """

    def __init__(self, axis=1, epsilon=1e-5, center=True, scale=False,
                 beta_initializer='zeros', gamma_initializer='ones', in_channels=0, **kwargs):
        super().__init__({'eps': epsilon, 'axis': axis, 'center': center, 'scale': scale},
                         center, scale, gamma_initializer, beta_initializer, (in_channels,),
                         **kwargs)

    def hybrid_forward(self, F, x, gamma, beta):
        axis, eps = self._kwargs['axis'], self._kwargs['eps']
        if axis == 1:
            return F.InstanceNorm(x, gamma, beta, name='fwd', eps=eps)
        x = x.swapaxes(1, axis)
        return F.InstanceNorm(x, gamma, beta, name='fwd', eps=eps).swapaxes(1, axis)


class GroupNorm(_AffineNorm):
    """Group normalization (Wu & He, 2018): split the channels into ``num_groups`` groups
    and normalize each sample's group over its channels and positions.

    As MXNet 1.x, gamma and beta hold one value per *group* (shape ``(num_groups,)``).

    Parameters
    ----------
    num_groups : int, default 1
    epsilon : float, default 1e-5
    center, scale : bool, default True
    beta_initializer, gamma_initializer : default 'zeros', 'ones'
    """

    def __init__(self, num_groups=1, epsilon=1e-5, center=True, scale=True,
                 beta_initializer='zeros', gamma_initializer='ones', prefix=None, params=None):
        super().__init__({'eps': epsilon, 'num_groups': num_groups, 'center': center,
                          'scale': scale}, center, scale, gamma_initializer, beta_initializer,
                         (num_groups,), prefix=prefix, params=params)

    def hybrid_forward(self, F, data, gamma, beta):
        return F.GroupNorm(data, gamma=gamma, beta=beta, num_groups=self._kwargs['num_groups'],
                           eps=self._kwargs['eps'])

    def __repr__(self):
        return '%s(%s)' % (self.__class__.__name__, _kwargs_text(self._kwargs))
