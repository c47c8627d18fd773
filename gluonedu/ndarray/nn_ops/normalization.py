"""Normalization operators: BatchNorm, LayerNorm, InstanceNorm, GroupNorm, L2Normalization.

The first four share one formula and differ only in the axes ``R`` they average over::

    x̂ = (x − mean_R(x)) / √(var_R(x) + eps)          var is the biased variance
    y = γ · x̂ + β                                     γ, β broadcast along one axis

    BatchNorm     R = every axis but the channel axis; γ, β per channel
    LayerNorm     R = the one ``axis``;                γ, β along that axis
    InstanceNorm  R = the spatial axes (per sample and channel); γ, β per channel
    GroupNorm     R = a group's channels and the spatial axes; γ, β per group (MXNet 1.x)

and one gradient (:func:`_normalized_backward`), with ``g = dy·γ``::

    dx = (g − mean_R(g) − x̂ · mean_R(g · x̂)) / √(var + eps)
    dγ = Σ dy · x̂,   dβ = Σ dy      (over every axis but γ's)

BatchNorm at inference (``use_global_stats``, or outside training mode) uses the running
``moving_mean``/``moving_var`` instead of the batch's, and its gradient is then
``dy · γ / √(moving_var + eps)``. With ``fix_gamma`` (the operator's default), γ is 1:
as MXNet, the operator writes ones into ``gamma``. As in MXNet 1.x, the running
statistics move towards
the batch's during *backward*: ``moving = moving·momentum + batch·(1 − momentum)``, each
time a gradient flows through a training-mode BatchNorm — a forward pass alone (even
inside ``autograd.record()``) leaves them unchanged.
"""
import numpy as np

from ... import _backend
from ...base import MXNetError
from . import kernels
from .. import _graph
from .common import axis_index, check_inputs, check_shape, float_dtype, record, shape_text
from .declare import OpDef, Param

__all__ = ['BatchNorm', 'LayerNorm', 'InstanceNorm', 'GroupNorm', 'L2Normalization']

def _per_channel(axis, *names):
    """A shape rule's answer: each named input holds one value per entry of ``axis``."""
    def shapes(params, data):
        size = data[axis(params) if callable(axis) else axis]
        return dict({name: (size,) for name in names}, out=data)
    return shapes


def _batch_norm_types(ins, outs, params):
    """MXNet's BatchNorm dtypes: the output is the data's, the parameters, statistics and
    mean/var outputs the data's too, except float32 for float16 data."""
    data = ins[0] if ins[0] is not None else outs[0]
    if data is None:
        return ins, outs
    stats = np.dtype(np.float32) if data == np.float16 else data
    return ([data] + [stats if t is None else t for t in ins[1:]],
            [data] + [stats if t is None else t for t in outs[1:]])


# MXNet's BatchNorm has three outputs (the batch's mean and variance for its backward),
# two of them hidden unless output_mean_var; its running statistics are auxiliary states.
BATCH_NORM = OpDef('BatchNorm', inputs=('data', 'gamma', 'beta', 'moving_mean', 'moving_var'),
                   shapes=_per_channel(lambda p: p.axis, 'gamma', 'beta', 'moving_mean',
                                       'moving_var'),
                   mutate_inputs=('moving_mean', 'moving_var'),
                   infer_type=_batch_norm_types,
                   num_outputs=lambda p: 3 if p['output_mean_var'] else 1,
                   output_names=lambda p: ('output', 'mean', 'var')[:3 if p['output_mean_var']
                                                                   else 1],
                   hidden_outputs=lambda p: 0 if p['output_mean_var'] else 2,
                   params=(
    # MXNet's default is the float 1e-3 held in a double: 0.0010000000474974513
    Param('eps', 'double', float(np.float32(1e-3)), 'Added to the variance before the '
          'square root.'),
    Param('momentum', 'float', 0.9, 'Weight of the old value in the running averages.'),
    Param('fix_gamma', 'bool', True, 'Use γ = 1: gamma is set to ones, its gradient is 0.'),
    Param('use_global_stats', 'bool', False, 'Normalize with the running statistics, '
          'also in training.'),
    Param('output_mean_var', 'bool', False, 'Also return the mean and 1/√(var + eps).'),
    Param('axis', 'int', 1, 'The channel axis.'),
    Param('cudnn_off', 'bool', False, 'Turn cuDNN off (unused here).'),
    Param('min_calib_range', 'float_or_none', None, 'Quantization calibration (unused).'),
    Param('max_calib_range', 'float_or_none', None, 'Quantization calibration (unused).')))

LAYER_NORM = OpDef('LayerNorm', inputs=('data', 'gamma', 'beta'),
                   shapes=_per_channel(lambda p: p.axis, 'gamma', 'beta'), params=(
    Param('axis', 'int', -1, 'The axis normalized over.'),
    Param('eps', 'float', 1e-5, 'Added to the variance before the square root.'),
    Param('output_mean_var', 'bool', False, 'Also return the mean and √(var + eps).')))

INSTANCE_NORM = OpDef('InstanceNorm', inputs=('data', 'gamma', 'beta'),
                      shapes=_per_channel(1, 'gamma', 'beta'), params=(
    Param('eps', 'float', 1e-3, 'Added to the variance before the square root.'),))

GROUP_NORM = OpDef('GroupNorm', inputs=('data', 'gamma', 'beta'),
                   shapes=lambda p, data: {'gamma': (p.num_groups,), 'beta': (p.num_groups,),
                                           'out': data}, params=(
    Param('num_groups', 'int', 1, 'Number of channel groups.'),
    Param('eps', 'float', 1e-5, 'Added to the variance before the square root.'),
    Param('output_mean_var', 'bool', False, 'Also return the mean and √(var + eps).')))

L2_NORMALIZATION = OpDef('L2Normalization', inputs=('data',), params=(
    Param('eps', 'float', 1e-10, 'Added to the sum of squares before the square root.'),
    Param('mode', 'enum', 'instance', 'Which axes one norm spans.',
          choices=('channel', 'instance', 'spatial'))))


# ---------------------------------------------------------------------- the shared math
def _broadcast_shape(ndim, axis):
    """Shape that broadcasts a per-``axis`` vector against ``ndim``-D data."""
    return tuple(-1 if i == axis else 1 for i in range(ndim))


def _normalized(xp, x, axes, eps):
    """``(x̂, mean, 1/√(var + eps))`` over ``axes`` (statistics keep their dims)."""
    mean = x.mean(axis=axes, keepdims=True)
    centered = x - mean
    var = (centered * centered).mean(axis=axes, keepdims=True)
    inv_std = 1 / xp.sqrt(var + x.dtype.type(eps))
    return centered * inv_std, mean, inv_std


def _normalized_backward(xp, dy, x_hat, inv_std, gamma_b, axes, param_axes):
    """``(dx, dγ, dβ)`` of ``y = γ·x̂ + β`` with x̂ normalized over ``axes``."""
    g = dy * gamma_b
    dx = inv_std * (g - g.mean(axis=axes, keepdims=True)
                    - x_hat * (g * x_hat).mean(axis=axes, keepdims=True))
    return dx, (dy * x_hat).sum(axis=param_axes), dy.sum(axis=param_axes)


def _affine_inputs(op, data, gamma, beta):
    if data is None or gamma is None or beta is None:
        raise MXNetError("%s needs the data, gamma and beta inputs" % op)
    check_inputs(op, (data, gamma, beta))
    float_dtype(op, data)


def _normalize_along(op, data, gamma, beta, axes, param_axis, eps, outputs=None):
    """The shared forward/backward of LayerNorm and InstanceNorm (γ, β along one axis).

    ``outputs(mean, inv_std)`` gives the extra outputs of ``output_mean_var``.
    """
    xp, x = data._xp, data._data
    shape = _broadcast_shape(x.ndim, param_axis)
    param_axes = tuple(i for i in range(x.ndim) if i != param_axis)
    with _backend.device_scope(data._ctx):
        x_hat, mean, inv_std = _normalized(xp, x, axes, eps)
        gamma_b = gamma._data.reshape(shape)
        y = x_hat * gamma_b + beta._data.reshape(shape)

    def backward(grad):
        with _backend.device_scope(data._ctx):
            return _normalized_backward(xp, grad, x_hat, inv_std, gamma_b, axes, param_axes)
    inputs = (data, gamma, beta)
    result = record(y, data, inputs, backward, op)
    if outputs is None:
        return result
    return [result] + _statistics(op, data, inputs, outputs(mean, inv_std))


def _statistics(op, data, inputs, arrays):
    """The extra outputs of ``output_mean_var``: recorded with the call, so that a backward
    pass may start from them as in MXNet, which passes no gradient back through them."""
    def no_gradient(grad):
        return (None,) * len(inputs)
    return [record(a, data, inputs, no_gradient, op) for a in arrays]


# ---------------------------------------------------------------------- BatchNorm
def _batch_norm(params, data=None, gamma=None, beta=None, moving_mean=None, moving_var=None):
    """Batch normalization (Ioffe & Szegedy, 2015) over every axis but ``axis``.

    Training: ``y = γ·(x − mean_B)/√(var_B + eps) + β`` with the batch's statistics;
    inference or ``use_global_stats``: the running ``moving_mean``/``moving_var``. The
    running statistics are updated in place during backward (MXNet 1.x's behaviour).
    """
    op = 'BatchNorm'
    if moving_mean is None or moving_var is None:
        raise MXNetError("BatchNorm needs the data, gamma, beta, moving_mean and moving_var "
                         "inputs")
    _affine_inputs(op, data, gamma, beta)
    check_inputs(op, (data, moving_mean, moving_var))
    xp, x = data._xp, data._data
    axis = axis_index(op, params.axis, x.ndim)
    channels = x.shape[axis]
    for name, arr in (('gamma', gamma), ('beta', beta), ('moving_mean', moving_mean),
                      ('moving_var', moving_var)):
        check_shape(op, name, arr.shape, (channels,))
    # (A, C, B) view: the channel axis between the product of the axes before and after it
    x3 = x.reshape(int(np.prod(x.shape[:axis])), channels, -1)
    bn = kernels.get('batchnorm')
    batch_stats = _graph.STATE.training and not params.use_global_stats
    eps = x.dtype.type(params.eps)
    with _backend.device_scope(data._ctx):
        if params.fix_gamma:
            gamma._data[...] = 1  # as MXNet, which writes the ones into gamma
        if batch_stats:
            mean, var = bn.stats(xp, x3)
        else:
            mean, var = moving_mean._data, moving_var._data
        inv_std = 1 / xp.sqrt(var + eps)
        scale = gamma._data * inv_std
        y = bn.normalize(xp, x3, mean, scale, beta._data).reshape(x.shape)

    def backward(grad):
        g3 = grad.reshape(x3.shape)
        with _backend.device_scope(data._ctx):
            if batch_stats:
                _update_running(moving_mean, mean, params.momentum)
                _update_running(moving_var, var, params.momentum)
            sum_dy, sum_dy_x_hat = bn.backward_sums(xp, x3, g3, mean, inv_std)
            dx = bn.backward_data(xp, x3, g3, mean, inv_std, scale, sum_dy, sum_dy_x_hat,
                                  batch_stats)
            dgamma = xp.zeros_like(sum_dy_x_hat) if params.fix_gamma else sum_dy_x_hat
        return dx.reshape(x.shape), dgamma, sum_dy, None, None
    inputs = (data, gamma, beta, moving_mean, moving_var)
    result = record(y, data, inputs, backward, op)
    if not params.output_mean_var:
        return result
    return [result] + _statistics(op, data, inputs, (xp.array(mean), inv_std))


def _update_running(running, batch_value, momentum):
    """``running ← running·momentum + batch·(1 − momentum)``, in place."""
    dtype = running._data.dtype.type
    running._data[...] = running._data * dtype(momentum) + batch_value * dtype(1 - momentum)


# ---------------------------------------------------------------------- the others
def _layer_norm(params, data=None, gamma=None, beta=None):
    """Layer normalization (Ba et al., 2016) over one axis, per position of the others."""
    op = 'LayerNorm'
    _affine_inputs(op, data, gamma, beta)
    axis = axis_index(op, params.axis, data.ndim)
    for name, arr in (('gamma', gamma), ('beta', beta)):
        check_shape(op, name, arr.shape, (data.shape[axis],))
    outputs = (lambda mean, inv_std: (mean, 1 / inv_std)) if params.output_mean_var else None
    return _normalize_along(op, data, gamma, beta, (axis,), axis, params.eps, outputs)


def _instance_norm(params, data=None, gamma=None, beta=None):
    """Instance normalization (Ulyanov et al., 2016): per sample and channel, over space."""
    op = 'InstanceNorm'
    _affine_inputs(op, data, gamma, beta)
    if data.ndim < 3:
        raise MXNetError("InstanceNorm needs data with a batch, a channel and at least one "
                         "spatial axis, got shape %s" % shape_text(data.shape))
    for name, arr in (('gamma', gamma), ('beta', beta)):
        check_shape(op, name, arr.shape, (data.shape[1],))
    return _normalize_along(op, data, gamma, beta, tuple(range(2, data.ndim)), 1, params.eps)


def _group_norm(params, data=None, gamma=None, beta=None):
    """Group normalization (Wu & He, 2018): per sample, over each group of channels.

    As MXNet 1.x, ``gamma`` and ``beta`` hold one value per *group*.
    """
    op = 'GroupNorm'
    _affine_inputs(op, data, gamma, beta)
    groups = params.num_groups
    if data.ndim < 2 or groups < 1 or data.shape[1] % groups:
        raise MXNetError("GroupNorm: the %s channels of data shape %s cannot be split into "
                         "num_groups=%d groups" % (data.shape[1] if data.ndim > 1 else 'no',
                                                   shape_text(data.shape), groups))
    for name, arr in (('gamma', gamma), ('beta', beta)):
        check_shape(op, name, arr.shape, (groups,))
    grouped = data.reshape((data.shape[0], groups, -1))
    outputs = None
    if params.output_mean_var:
        def outputs(mean, inv_std):
            return mean.reshape(mean.shape[:2]), (1 / inv_std).reshape(mean.shape[:2])
    result = _normalize_along(op, grouped, gamma, beta, (2,), 1, params.eps, outputs)
    if isinstance(result, list):
        return [result[0].reshape(data.shape)] + result[1:]
    return result.reshape(data.shape)


def _l2_normalization(params, data=None):
    """``y = x / √(Σ x² + eps)``, the sum over each sample ('instance'), over the channels
    at each position ('channel'), or over the spatial positions of each channel
    ('spatial')."""
    op = 'L2Normalization'
    if data is None:
        raise MXNetError("L2Normalization needs the data input")
    check_inputs(op, (data,))
    float_dtype(op, data)
    least = 1 if params.mode == 'instance' else 3  # 1-D: each element is an instance
    if data.ndim < least:
        raise MXNetError("L2Normalization: mode '%s' needs at least %d-D data, got shape %s"
                         % (params.mode, least, shape_text(data.shape)))
    axes = {'instance': tuple(range(1, data.ndim)), 'channel': (1,),
            'spatial': tuple(range(2, data.ndim))}[params.mode]
    xp, x = data._xp, data._data
    with _backend.device_scope(data._ctx):
        norm = xp.sqrt((x * x).sum(axis=axes, keepdims=True) + x.dtype.type(params.eps))
        y = x / norm

    def backward(grad):
        with _backend.device_scope(data._ctx):
            return ((grad - y * (grad * y).sum(axis=axes, keepdims=True)) / norm,)
    return record(y, data, (data,), backward, op)


BatchNorm = BATCH_NORM.function(_batch_norm)
LayerNorm = LAYER_NORM.function(_layer_norm)
InstanceNorm = INSTANCE_NORM.function(_instance_norm)
GroupNorm = GROUP_NORM.function(_group_norm)
L2Normalization = L2_NORMALIZATION.function(_l2_normalization)
