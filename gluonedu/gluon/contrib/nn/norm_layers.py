"""SyncBatchNorm: batch normalization with the statistics of a batch split over devices.

Standard BatchNorm on ``n`` devices normalizes each device's slice of the batch with that
slice's statistics; with small slices they are noisy. SyncBatchNorm (Zhang et al., 2018,
"Context Encoding for Semantic Segmentation") shares the statistics of every slice, so
the result equals BatchNorm on the whole batch (when the slices are equal in size). The
operator and how the slices meet: :mod:`gluonedu.ndarray.nn_ops.sync_batch_norm`.
"""
import warnings

from .... import symbol
from ....base import MXNetError
from ....context import num_gpus
from ....ndarray.nn_ops.sync_batch_norm import SyncRound, sync_batch_norm
from ...nn import BatchNorm

__all__ = ['SyncBatchNorm']


class SyncBatchNorm(BatchNorm):
    """Cross-device synchronized batch normalization (channels on axis 1).

    Call it once per device on that device's slice of the batch (the usual
    ``for x in gluon.utils.split_and_load(batch, ctx_list)`` loop): in training, each
    slice is normalized with the mean and variance of all ``num_devices`` slices; at
    inference, with the running statistics, as BatchNorm.

    gluonedu runs each operation when it is called, so the outputs of a batch's slices
    are computed when its last slice arrives: use them after calling the layer on every
    slice (reading one earlier raises MXNetError), or run each device's forward and
    backward in a thread of its own (a read then waits for the other threads' slices,
    as in MXNet, so any network works). In backward, the gradients of all
    slices' outputs meet likewise: differentiate the loss of every device, in one
    ``autograd.backward([loss_0, loss_1, ...])`` or one ``backward()`` each.

    Parameters
    ----------
    in_channels : int, default 0
        Number of channels; 0 infers it from the first input.
    num_devices : int, default None
        Number of slices (devices) a batch is split into; None counts the GPUs (1
        without any) and warns.
    momentum : float, default 0.9
    epsilon : float, default 1e-5
    center, scale : bool, default True
        Learn beta / gamma (False: fixed at 0 / 1).
    use_global_stats : bool, default False
        Always normalize with the running statistics (nothing is shared).
    beta_initializer, gamma_initializer, running_mean_initializer,
    running_variance_initializer : Initializer or str
        Defaults 'zeros', 'ones', 'zeros', 'ones'.
    """

    def __init__(self, in_channels=0, num_devices=None, momentum=0.9, epsilon=1e-5,
                 center=True, scale=True, use_global_stats=False, beta_initializer='zeros',
                 gamma_initializer='ones', running_mean_initializer='zeros',
                 running_variance_initializer='ones', **kwargs):
        super().__init__(axis=1, momentum=momentum, epsilon=epsilon, center=center,
                         scale=scale, use_global_stats=use_global_stats,
                         beta_initializer=beta_initializer, gamma_initializer=gamma_initializer,
                         running_mean_initializer=running_mean_initializer,
                         running_variance_initializer=running_variance_initializer,
                         in_channels=in_channels, **kwargs)
        if num_devices is None:
            num_devices = self._get_num_devices()
        if isinstance(num_devices, bool) or not isinstance(num_devices, int) or num_devices < 1:
            raise ValueError("SyncBatchNorm: num_devices must be the number of devices the "
                             "batch is split over (an int >= 1), got %r" % (num_devices,))
        self._kwargs = {'eps': epsilon, 'momentum': momentum, 'fix_gamma': not scale,
                        'use_global_stats': use_global_stats, 'ndev': num_devices,
                        'key': self.prefix}
        self._round = SyncRound(self.prefix, num_devices)

    def _get_num_devices(self):
        warnings.warn("SyncBatchNorm: num_devices not given, so it is the number of GPUs "
                      "(1 without any); give num_devices=len(ctx_list) when the batch is "
                      "split over other devices", UserWarning, stacklevel=3)
        return max(num_gpus(), 1)

    def infer_shape(self, x, *args):
        """One gamma, beta and running statistic per channel of ``x`` (axis 1)."""
        channels = x.shape[1] if len(x.shape) > 1 else 1
        for param in (self.gamma, self.beta, self.running_mean, self.running_var):
            param.shape = (channels,)

    def hybrid_forward(self, F, x, gamma, beta, running_mean, running_var):
        kwargs = self._kwargs
        if F is symbol:
            if kwargs['ndev'] > 1:
                raise MXNetError(
                    "SyncBatchNorm '%s' with num_devices=%d cannot be hybridized in gluonedu "
                    "(its slices meet as they are called); leave it, and the blocks holding "
                    "it, imperative: do not call hybridize() on them"
                    % (self.prefix, kwargs['ndev']))
            # One device shares nothing: BatchNorm's graph computes the same.
            return F.BatchNorm(x, gamma, beta, running_mean, running_var, name='fwd', axis=1,
                               eps=kwargs['eps'], momentum=kwargs['momentum'],
                               fix_gamma=kwargs['fix_gamma'],
                               use_global_stats=kwargs['use_global_stats'])
        return sync_batch_norm(self._round, x, gamma, beta, running_mean, running_var,
                               eps=kwargs['eps'], momentum=kwargs['momentum'],
                               fix_gamma=kwargs['fix_gamma'],
                               use_global_stats=kwargs['use_global_stats'])
