"""MXNet's multi-tensor SGD operators (``multi_sgd_update``, ``multi_mp_sgd_mom_update``,
``preloaded_multi_sgd_update``, ...) and ``multi_lars``, run by SGD's and LARS's own rules.

They update several weights in one call, as MXNet's optimizers do in groups
(``aggregate_num``): the inputs are the weights' arrays one weight after the other
(weight, grad[, mom][, weight32]), each weight has its own learning rate and weight decay
(``lrs``, ``wds``; the ``preloaded_`` operators take them as the last two arrays), and
the results are the new weights, one output each. Everything else is as the one-tensor
operators of :mod:`.update_ops`.
"""
from ..base import MXNetError
from ..ndarray.registry import FLOATS, Float, Floats, Int, Op, add
from .kernels import kernel_scalars
from .lars import multi_lars_lr
from .sgd import SGD_KERNELS
from .update_ops import MOMENTUM, clip_bound, gradient_of, new_weight, precision, sgd_mom, tail

def _multi_sgd(arrays, lrs, wds, momentum, rescale_grad, clip_gradient, num_weights,
               per_weight, mp):
    """The multi-tensor SGD operators: ``arrays`` holds ``per_weight`` arrays for each
    weight (weight, grad[, mom][, weight32]); each weight gets its own lr and wd."""
    for name, values in (('lrs', lrs), ('wds', wds)):
        if len(values) != num_weights:
            raise MXNetError('%s has %d entries but num_weights=%d: give one per weight'
                             % (name, len(values), num_weights))
    results = []
    for k in range(num_weights):
        weight, grad, *rest = arrays[k * per_weight:(k + 1) * per_weight]
        master = rest.pop() if mp else None
        if momentum is None:   # multi_sgd_update: the momentum form with a zero buffer
            lr, wd, rescale, clip, zero = kernel_scalars(
                precision(weight, master), lrs[k], wds[k], rescale_grad,
                clip_bound(clip_gradient), 0)
            results.append(new_weight(SGD_KERNELS['multi'], weight,
                                      {'grad': gradient_of(grad, master)},
                                      dict(lr=lr, wd=wd, zero=zero, rescale=rescale,
                                           clip=clip), master))
        else:
            results.append(sgd_mom(weight, grad, rest[0], lrs[k], momentum, wds[k],
                                   rescale_grad, clip_gradient, master))
    return results, None


def _multi_sgd_op(with_momentum, mp, preloaded):
    """Declare one of the eight multi-tensor SGD operators."""
    name = '%smulti_%ssgd_%supdate' % ('preloaded_' if preloaded else '', 'mp_' if mp else '',
                                       'mom_' if with_momentum else '')
    per_weight = 2 + with_momentum + mp

    def forward(env, *arrays, num_weights, rescale_grad, clip_gradient, momentum=None,
                lrs=None, wds=None):
        if preloaded:   # the learning rates and weight decays are the last two arrays
            *arrays, lrs, wds = arrays
            lrs, wds = lrs.tolist(), wds.tolist()
        return _multi_sgd(arrays, lrs, wds, momentum, rescale_grad, clip_gradient,
                          num_weights, per_weight, mp)
    forward.__doc__ = 'SGD%s on several weights at once%s, each with its own lr and wd.' % (
        ' with momentum' if with_momentum else '', ' through float32 master copies' if mp else '')
    params = [] if preloaded else [Floats('lrs', doc='One learning rate per weight.'),
                                   Floats('wds', doc='One weight decay per weight.')]
    if with_momentum:
        params.append(MOMENTUM)
    params += tail()[1:] + [Int('num_weights', 1, doc='How many weights are updated.')]
    add(Op(name, forward, ('*data',), params, dtypes=FLOATS, same_dtype=False, quiet=True,
           num_outputs=lambda p: p['num_weights'],
           count=('num_weights', per_weight, 2 if preloaded else 0)))


for _mp in (False, True):
    for _with_momentum in (False, True):
        for _preloaded in (False, True):
            _multi_sgd_op(_with_momentum, _mp, _preloaded)


def multi_lars(env, lrs, weights_sum_sq, grads_sum_sq, wds, eta, eps, rescale_grad):
    """LARS's layer-wise learning rates, one per weight, from the sums of squares of the
    weights and the gradients (as LARS computes them)."""
    if not lrs.ndim == 1 or {lrs.shape, weights_sum_sq.shape, grads_sum_sq.shape,
                                wds.shape} != {lrs.shape}:
        raise MXNetError('multi_lars takes four vectors of one length (one entry per weight)')
    rates = [multi_lars_lr(*values, eta, eps, rescale_grad) for values in zip(
        lrs.tolist(), weights_sum_sq.tolist(), grads_sum_sq.tolist(), wds.tolist())]
    return env.xp.asarray(rates, dtype=lrs.dtype), None


add(Op('multi_lars', multi_lars, ('lrs', 'weights_sum_sq', 'grads_sum_sq', 'wds'), [
    Float('eta', single=True, doc='The trust coefficient.'),
    Float('eps', single=True, doc='Added to the denominator.'),
    Float('rescale_grad', 1, single=True, doc='Multiplies the gradient norms.')],
    dtypes=('float32',)))
