"""MXNet's optimizer update operators (``mx.nd.sgd_update``, ``adam_update``, ...), run by
the optimizers' own rules.

MXNet's optimizers call these operators; gluonedu's optimizers carry their arithmetic
themselves — one rule per kernel, beside each readable update (docs/fused.md) — so the
operators are declared here, one layer above the operator table, and each runs the rule
its optimizer's fast path runs. As MXNet's:

* the result is the new weight: the ``weight`` input itself changes only when it is also
  ``out`` (``nd.sgd_update(w, g, lr=0.1, out=w)``, as optimizer code calls them); the
  state inputs (``mom``, ``mean``, ``var``, ``n``, ``z``, ..., ``weight32``) are updated in
  place;
* the hyperparameters are float32 numbers, used in the weight's precision; a negative
  ``clip_gradient`` (the default -1) means no clipping, 0 clips the gradient to 0;
* an ``mp_`` operator updates the float32 master copy ``weight32`` (and float32 states)
  from the gradient made float32, and returns the master copy rounded to the weight's
  dtype;
* ``sgd_update``, ``sgd_mom_update`` and ``adam_update`` with a row_sparse gradient and
  ``lazy_update=True`` update only the rows the gradient holds (other rows of the weight
  and the states stay as they are); other operators see the gradient as the dense array
  it stands for.
"""
import numpy as np

from ..base import MXNetError
from ..ndarray.registry import FLOATS, Bool, Float, Int, Op, add, get
from .adam import ADAM
from .ftml import FTML_KERNEL, ftml_scales
from .ftrl import FTRL
from .kernels import kernel_scalars
from .lamb import LAMB_PHASE1, LAMB_PHASE2, lamb_moment_scales, trust_scaled_lr
from .nag import NAG_MOMENTUM
from .rmsprop import RMSPROP, RMSPROP_CENTERED
from .sgd import SGD_KERNELS
from .signum import SIGNSGD, SIGNUM

__all__ = ['run_rule', 'new_weight', 'clip_bound', 'gradient_of', 'precision', 'sgd_mom', 'tail',
           'MOMENTUM']


def run_rule(kernel, arrays, scalars):
    """Apply ``kernel``'s rule to the whole ``arrays`` (by name), writing the ones it
    writes in place; MXNetError unless they have one shape."""
    shapes = {n: arrays[n].shape for n in kernel.arrays}
    if len(set(shapes.values())) > 1:
        raise MXNetError('the arrays of an update must have one shape; got %s' % ', '.join(
            '%s %s' % item for item in shapes.items()))
    with np.errstate(divide='ignore', invalid='ignore', over='ignore'):
        values = kernel.rule(**{n: arrays[n] for n in kernel.arrays}, **scalars)
    for name, value in zip(kernel.writes, values):
        arrays[name][...] = value


def new_weight(kernel, weight, arrays, scalars, master=None):
    """The new weight (new memory) by ``kernel``, its states written in place; an ``mp_``
    operator's ``master`` copy is updated in place instead and returned in the weight's
    dtype."""
    if master is not None:
        _check_float32(dict(arrays, weight32=master))
    target = weight.copy() if master is None else master
    run_rule(kernel, dict(arrays, weight=target), scalars)
    return target if master is None else target.astype(weight.dtype)


def precision(weight, master):
    """The dtype the kernel computes in: the master copy's, else the weight's."""
    return (weight if master is None else master).dtype


def clip_bound(clip):
    """A clip bound of the operators for the rules: the operators clip for a bound >= 0
    (-1: off), the rules for a bound > 0; a bound of 0 becomes the smallest float, which
    clips every gradient to (the float nearest) 0."""
    return np.nextafter(np.float32(0), np.float32(1)) if clip == 0 else clip


def gradient_of(grad, master):
    """The gradient the rule reads: float32 for an ``mp_`` operator's master copy."""
    return grad if master is None else grad.astype(np.float32)


def _check_float32(arrays):
    """An ``mp_`` operator's master copy, states and direction are float32 (MXNetError
    else)."""
    for name, array in arrays.items():
        if array.dtype != np.float32:
            raise MXNetError('the %s of a multi-precision update must be float32, not %s: '
                             "convert it with .astype('float32')" % (name, array.dtype))


# ---------------------------------------------------------------------------- the rules
def _sgd(weight, grad, lr, wd, rescale_grad, clip_gradient, master=None):
    lr, wd, rescale, clip, one = kernel_scalars(
        precision(weight, master), lr, wd, rescale_grad, clip_bound(clip_gradient), 1)
    return new_weight(SGD_KERNELS['plain'], weight, {'grad': gradient_of(grad, master)},
                      dict(lr=lr, wd=wd, one=one, rescale=rescale, clip=clip), master)


def sgd_mom(weight, grad, mom, lr, momentum, wd, rescale_grad, clip_gradient, master=None):
    """``sgd_mom_update``'s rule (``master``: the ``mp_`` operator's float32 copy)."""
    lr, momentum, wd, rescale, clip = kernel_scalars(
        precision(weight, master), lr, momentum, wd, rescale_grad, clip_bound(clip_gradient))
    return new_weight(SGD_KERNELS['momentum'], weight,
                      {'grad': gradient_of(grad, master), 'momentum': mom},
                      dict(lr=lr, wd=wd, momentum_coef=momentum, rescale=rescale, clip=clip),
                      master)


def _nag_mom(weight, grad, mom, lr, momentum, wd, rescale_grad, clip_gradient, master=None):
    lr, momentum, wd, rescale, clip = kernel_scalars(
        precision(weight, master), lr, momentum, wd, rescale_grad, clip_bound(clip_gradient))
    return new_weight(NAG_MOMENTUM, weight, {'grad': gradient_of(grad, master), 'momentum': mom},
                      dict(lr=lr, wd=wd, momentum_coef=momentum,
                           momentum_plus_one=momentum + 1, rescale=rescale, clip=clip),
                      master)


def sgd_update(env, weight, grad, lr, wd, rescale_grad, clip_gradient, lazy_update):
    """SGD: ``weight = (1 - lr*wd)*weight - lr*clip(rescale_grad*grad)``."""
    return _sgd(weight, grad, lr, wd, rescale_grad, clip_gradient), None


def sgd_mom_update(env, weight, grad, mom, lr, momentum, wd, rescale_grad, clip_gradient,
                   lazy_update):
    """SGD with momentum: ``mom = momentum*mom - lr*wd*weight - lr*clip(rescale_grad*grad);
    weight = weight + mom`` (``mom`` is updated in place)."""
    return sgd_mom(weight, grad, mom, lr, momentum, wd, rescale_grad, clip_gradient), None


def mp_sgd_update(env, weight, grad, weight32, lr, wd, rescale_grad, clip_gradient,
                  lazy_update):
    """``sgd_update`` on the float32 master copy ``weight32`` (updated in place)."""
    return _sgd(weight, grad, lr, wd, rescale_grad, clip_gradient, master=weight32), None


def mp_sgd_mom_update(env, weight, grad, mom, weight32, lr, momentum, wd, rescale_grad,
                      clip_gradient, lazy_update):
    """``sgd_mom_update`` on the float32 master copy ``weight32`` (updated in place)."""
    return sgd_mom(weight, grad, mom, lr, momentum, wd, rescale_grad, clip_gradient,
                    master=weight32), None


def nag_mom_update(env, weight, grad, mom, lr, momentum, wd, rescale_grad, clip_gradient):
    """Nesterov momentum, as NAG's rule (``gluonedu.optimizer.nag``)."""
    return _nag_mom(weight, grad, mom, lr, momentum, wd, rescale_grad, clip_gradient), None


def mp_nag_mom_update(env, weight, grad, mom, weight32, lr, momentum, wd, rescale_grad,
                      clip_gradient):
    """``nag_mom_update`` on the float32 master copy ``weight32`` (updated in place)."""
    return _nag_mom(weight, grad, mom, lr, momentum, wd, rescale_grad, clip_gradient,
                    master=weight32), None


def adam_update(env, weight, grad, mean, var, lr, beta1, beta2, epsilon, wd, rescale_grad,
                clip_gradient, lazy_update):
    """Adam without bias correction (fold it into ``lr``), as Adam's rule; ``mean`` and
    ``var`` are updated in place."""
    lr, beta1, beta2, epsilon, wd, rescale, clip = kernel_scalars(
        weight.dtype, lr, beta1, beta2, epsilon, wd, rescale_grad, clip_bound(clip_gradient))
    return new_weight(ADAM, weight, {'grad': grad, 'mean': mean, 'var': var}, dict(
        lr=lr, wd=wd, rescale=rescale, clip=clip, beta1=beta1, beta2=beta2,
        one_minus_beta1=1 - beta1, one_minus_beta2=1 - beta2, epsilon=epsilon)), None


def rmsprop_update(env, weight, grad, n, lr, gamma1, epsilon, wd, rescale_grad,
                   clip_gradient, clip_weights):
    """RMSProp, as its rule; ``n`` (the mean square) is updated in place."""
    lr, gamma1, epsilon, wd, rescale, clip, clip_weights = kernel_scalars(
        weight.dtype, lr, gamma1, epsilon, wd, rescale_grad, clip_bound(clip_gradient),
        clip_bound(clip_weights))
    return new_weight(RMSPROP, weight, {'grad': grad, 'mean_square': n}, dict(
        lr=lr, wd=wd, rescale=rescale, clip=clip, gamma1=gamma1, one_minus_gamma1=1 - gamma1,
        epsilon=epsilon, clip_weights=clip_weights)), None


def rmspropalex_update(env, weight, grad, n, g, delta, lr, gamma1, gamma2, epsilon, wd,
                       rescale_grad, clip_gradient, clip_weights):
    """Centered RMSProp (Graves, 2013), as its rule; ``n``, ``g``, ``delta`` in place."""
    lr, gamma1, gamma2, epsilon, wd, rescale, clip, clip_weights = kernel_scalars(
        weight.dtype, lr, gamma1, gamma2, epsilon, wd, rescale_grad, clip_bound(clip_gradient),
        clip_bound(clip_weights))
    return new_weight(RMSPROP_CENTERED, weight,
                      {'grad': grad, 'mean_square': n, 'mean': g, 'delta': delta}, dict(
                          lr=lr, wd=wd, rescale=rescale, clip=clip, gamma1=gamma1,
                          one_minus_gamma1=1 - gamma1, gamma2=gamma2, epsilon=epsilon,
                          clip_weights=clip_weights)), None


def ftrl_update(env, weight, grad, z, n, lr, lamda1, beta, wd, rescale_grad, clip_gradient):
    """FTRL-Proximal, as Ftrl's rule; ``z`` and ``n`` are updated in place."""
    lr, lamda1, beta, wd, rescale, clip = kernel_scalars(
        weight.dtype, lr, lamda1, beta, wd, rescale_grad, clip_bound(clip_gradient))
    return new_weight(FTRL, weight, {'grad': grad, 'z': z, 'n': n}, dict(
        lr=lr, wd=wd, rescale=rescale, clip=clip, lamda1=lamda1, beta=beta)), None


def ftml_update(env, weight, grad, d, v, z, lr, beta1, beta2, epsilon, t, wd, rescale_grad,
                clip_grad):
    """FTML at step ``t``, as FTML's rule; ``d``, ``v``, ``z`` are updated in place."""
    lr, beta1, beta2, epsilon, wd, rescale, clip = kernel_scalars(
        weight.dtype, lr, beta1, beta2, epsilon, wd, rescale_grad, clip_bound(clip_grad))
    d_scale, v_scale = ftml_scales(beta1, beta2, lr, t)
    return new_weight(FTML_KERNEL, weight, {
        'grad': grad, 'prev_d': d, 'prev_v': v, 'prev_z': z}, dict(
            wd=wd, d_scale=d_scale, v_scale=v_scale, rescale=rescale, clip=clip, beta1=beta1,
            beta2=beta2, one_minus_beta1=1 - beta1, one_minus_beta2=1 - beta2,
            epsilon=epsilon)), None


def signsgd_update(env, weight, grad, lr, wd, rescale_grad, clip_gradient):
    """signSGD: ``weight = (1 - lr*wd)*weight - lr*sign(clip(rescale_grad*grad))``."""
    lr, wd, rescale, clip, one = kernel_scalars(weight.dtype, lr, wd, rescale_grad,
                                                clip_bound(clip_gradient), 1)
    return new_weight(SIGNSGD, weight, {'grad': grad}, dict(
        lr=lr, wd_total=wd, one=one, rescale=rescale, clip=clip)), None


def signum_update(env, weight, grad, mom, lr, momentum, wd, rescale_grad, clip_gradient,
                  wd_lh):
    """Signum, as its rule; ``mom`` is updated in place."""
    lr, momentum, wd, rescale, clip, wd_lh, one = kernel_scalars(
        weight.dtype, lr, momentum, wd, rescale_grad, clip_bound(clip_gradient), wd_lh, 1)
    return new_weight(SIGNUM, weight, {'grad': grad, 'momentum': mom}, dict(
        lr=lr, wd=wd, one=one, momentum_coef=momentum, one_minus_coef=1 - momentum,
        rescale=rescale, clip=clip, wd_lh=wd_lh)), None


def _lamb_phase1(weight, grad, mean, var, beta1, beta2, epsilon, t, bias_correction, wd,
                 rescale_grad, clip_gradient, master=None):
    beta1, beta2, epsilon, wd, rescale, clip = kernel_scalars(precision(weight, master), beta1,
                                                              beta2, epsilon, wd, rescale_grad,
                                                              clip_bound(clip_gradient))
    mean_scale, var_scale = lamb_moment_scales(beta1, beta2, t, bias_correction)
    direction = np.empty_like(mean)
    if master is not None:
        if weight.dtype != np.float16:
            raise MXNetError('mp_lamb_update_phase1 updates float16 weights (their float32 '
                             'copy is weight32), not %s: use lamb_update_phase1' % weight.dtype)
        _check_float32({'mean': mean, 'var': var, 'weight32': master})
    run_rule(LAMB_PHASE1, {
        'weight': weight if master is None else master, 'grad': gradient_of(grad, master),
        'mean': mean, 'var': var, 'direction': direction}, dict(
            wd=wd, mean_scale=mean_scale, var_scale=var_scale, rescale=rescale, clip=clip,
            beta1=beta1, beta2=beta2, one_minus_beta1=1 - beta1, one_minus_beta2=1 - beta2,
            epsilon=epsilon))
    return direction


def lamb_update_phase1(env, weight, grad, mean, var, beta1, beta2, epsilon, t, bias_correction,
                       wd, rescale_grad, clip_gradient):
    """LAMB's first phase: updates ``mean`` and ``var`` in place and returns the direction
    ``g`` (bias-corrected ``mean / (sqrt(var) + epsilon) + wd * weight``)."""
    return _lamb_phase1(weight, grad, mean, var, beta1, beta2, epsilon, t, bias_correction, wd,
                        rescale_grad, clip_gradient), None


def mp_lamb_update_phase1(env, weight, grad, mean, var, weight32, beta1, beta2, epsilon, t,
                          bias_correction, wd, rescale_grad, clip_gradient):
    """``lamb_update_phase1`` on the float32 master copy ``weight32``."""
    return _lamb_phase1(weight, grad, mean, var, beta1, beta2, epsilon, t, bias_correction, wd,
                        rescale_grad, clip_gradient, master=weight32), None


def _lamb_phase2(weight, g, r1, r2, lr, lower_bound, upper_bound, master=None):
    if r1.shape[:1] != (1,) or r2.shape[:1] != (1,) or not r1.size or not r2.size:
        raise MXNetError('the norms r1 and r2 must have shape (1,), got %s and %s'
                         % (r1.shape, r2.shape))
    dtype = precision(weight, master)
    lr, lower, upper = kernel_scalars(dtype, lr, lower_bound, upper_bound)
    r1 = dtype.type(r1.reshape(-1)[0].item())
    r1 = max(r1, lower) if lower >= 0 else r1
    r1 = min(r1, upper) if upper >= 0 else r1
    scaled_lr = trust_scaled_lr(lr, r1, dtype.type(r2.reshape(-1)[0].item()))
    return new_weight(LAMB_PHASE2, weight, {'direction': g}, {'scaled_lr': scaled_lr}, master)


def lamb_update_phase2(env, weight, g, r1, r2, lr, lower_bound, upper_bound):
    """LAMB's second phase: ``weight - lr * (r1 / r2) * g`` with ``r1 = ||weight||`` clamped
    to the bounds (a negative bound is none), ``r2 = ||g||``; ratio 1 if either is 0."""
    return _lamb_phase2(weight, g, r1, r2, lr, lower_bound, upper_bound), None


def mp_lamb_update_phase2(env, weight, g, r1, r2, weight32, lr, lower_bound, upper_bound):
    """``lamb_update_phase2`` from the float32 master copy ``weight32``, which (as MXNet
    1.9.1's operator) is left as it is."""
    return _lamb_phase2(weight, g, r1, r2, lr, lower_bound, upper_bound,
                        master=weight32.copy()), None


# ---------------------------------------------------------------------------- lazy rows
def _lazy_rows(name):
    """``compute_ex`` of ``name`` for a row_sparse gradient: with ``lazy_update`` the dense
    operator runs on the rows the gradient holds (their states written back), the other
    rows keep their values; without it, on the gradient made dense."""
    def compute_ex(inputs, params):
        weight, grad, *states = inputs
        if any(x.stype != 'default' for x in [weight] + states):
            raise MXNetError('%s: gluonedu updates dense weights and states; convert them '
                             "with .tostype('default')" % name)
        op = get(name)
        if grad.stype != 'row_sparse' or not params['lazy_update']:
            return op.run([weight, grad.tostype('default')] + states, params)
        rows = grad.indices
        state_rows = [state[rows] for state in states]
        new_rows = op.run([weight[rows], grad.data] + state_rows, params)
        for state, updated in zip(states, state_rows):
            state[rows] = updated
        result = weight.copy()
        result[rows] = new_rows
        return result
    return compute_ex


# ---------------------------------------------------------------------------- the table
def _lr():
    return Float('lr', single=True, doc='The learning rate.')


def tail(clip='clip_gradient'):
    """The parameters most update operators end with: wd, rescale_grad and the clip."""
    return [Float('wd', 0, single=True, doc='Weight decay (L2 penalty).'),
            Float('rescale_grad', 1, single=True, doc='Multiplies the gradient first.'),
            Float(clip, -1, single=True, doc='Clip the rescaled gradient to [-c, c]; '
                                               'c < 0: no clipping.')]


_LAZY = Bool('lazy_update', True, doc='With a row_sparse gradient, update only its rows.')
MOMENTUM = Float('momentum', 0, single=True, doc='The momentum coefficient.')


def _declare(forward, inputs, params, lazy=False, mutate=()):
    """Put an update operator in the table: its inputs of one float dtype (an ``mp_``
    operator's weight and gradient of one, its float32 arrays checked by the rule)."""
    mp = forward.__name__.startswith('mp_')
    add(Op(forward.__name__, forward, inputs, params, dtypes=FLOATS, quiet=True,
           same_dtype=('weight', 'grad') if mp else True,
           compute_ex=_lazy_rows(forward.__name__) if lazy else None, mutate_inputs=mutate))


_declare(sgd_update, ('weight', 'grad'), [_lr()] + tail() + [_LAZY], lazy=True)
_declare(sgd_mom_update, ('weight', 'grad', 'mom'), [_lr(), MOMENTUM] + tail() + [_LAZY],
         lazy=True, mutate=('mom',))
_declare(mp_sgd_update, ('weight', 'grad', 'weight32'), [_lr()] + tail() + [_LAZY],
         mutate=('weight32',))
_declare(mp_sgd_mom_update, ('weight', 'grad', 'mom', 'weight32'),
         [_lr(), MOMENTUM] + tail() + [_LAZY], mutate=('mom', 'weight32'))
_declare(nag_mom_update, ('weight', 'grad', 'mom'), [_lr(), MOMENTUM] + tail(),
         mutate=('mom',))
_declare(mp_nag_mom_update, ('weight', 'grad', 'mom', 'weight32'),
         [_lr(), MOMENTUM] + tail(), mutate=('mom', 'weight32'))
_declare(adam_update, ('weight', 'grad', 'mean', 'var'), [
    _lr(), Float('beta1', 0.9, single=True), Float('beta2', 0.999, single=True),
    Float('epsilon', 1e-8, single=True)] + tail() + [_LAZY], lazy=True,
    mutate=('mean', 'var'))
_CLIP_WEIGHTS = Float('clip_weights', -1, single=True,
                      doc='Clip the new weight to [-c, c]; c < 0: no clipping.')
_declare(rmsprop_update, ('weight', 'grad', 'n'), [
    _lr(), Float('gamma1', 0.95, single=True), Float('epsilon', 1e-8, single=True)]
    + tail() + [_CLIP_WEIGHTS], mutate=('n',))
_declare(rmspropalex_update, ('weight', 'grad', 'n', 'g', 'delta'), [
    _lr(), Float('gamma1', 0.95, single=True), Float('gamma2', 0.9, single=True),
    Float('epsilon', 1e-8, single=True)] + tail() + [_CLIP_WEIGHTS],
    mutate=('n', 'g', 'delta'))
_declare(ftrl_update, ('weight', 'grad', 'z', 'n'), [
    _lr(), Float('lamda1', 0.01, single=True), Float('beta', 1, single=True)] + tail(),
    mutate=('z', 'n'))
_declare(ftml_update, ('weight', 'grad', 'd', 'v', 'z'), [
    _lr(), Float('beta1', 0.6, single=True), Float('beta2', 0.999, single=True),
    Float('epsilon', float(np.float32(1e-8)), doc='A double, defaulting to float32 1e-8.'),
    Int('t')] + tail('clip_grad'), mutate=('d', 'v', 'z'))
_declare(signsgd_update, ('weight', 'grad'), [_lr()] + tail())
_declare(signum_update, ('weight', 'grad', 'mom'), [_lr(), MOMENTUM] + tail() + [
    Float('wd_lh', 0, single=True, doc='Decoupled weight decay.')], mutate=('mom',))
_LAMB1 = [Float('beta1', 0.9, single=True), Float('beta2', 0.999, single=True),
          Float('epsilon', 1e-6, single=True), Int('t'), Bool('bias_correction', True),
          Float('wd', single=True), Float('rescale_grad', 1, single=True),
          Float('clip_gradient', -1, single=True)]
_declare(lamb_update_phase1, ('weight', 'grad', 'mean', 'var'), _LAMB1, mutate=('mean', 'var'))
_declare(mp_lamb_update_phase1, ('weight', 'grad', 'mean', 'var', 'weight32'), _LAMB1,
         mutate=('mean', 'var'))
_LAMB2 = [_lr(), Float('lower_bound', -1, single=True), Float('upper_bound', -1, single=True)]
_declare(lamb_update_phase2, ('weight', 'g', 'r1', 'r2'), _LAMB2)
_declare(mp_lamb_update_phase2, ('weight', 'g', 'r1', 'r2', 'weight32'), _LAMB2)
