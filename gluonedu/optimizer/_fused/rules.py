"""The element-wise update rules, one small function per optimizer: the fused kernels' table.

Each rule is the reference optimizer's arithmetic for *one element*, written with the
same operations in the same order, so that a kernel built from it gives the reference's
numbers bit for bit. The same function runs in two ways:

* on whole NumPy arrays (the flat-buffer NumPy path: a handful of array calls per step);
* compiled by numba for one element at a time, inside a parallel loop over the flat
  buffers (:mod:`._numba`).

The contract of a rule::

    rule(w, g, *states, *inputs, *per_segment_scalars, *constants) -> (w, *states)

``w`` is the float32 weight (the master copy under multi_precision), ``g`` its float32
gradient. *inputs* are further arrays the rule reads but does not write (SGLD's noise,
LBSGD's accumulated gradient; most rules have none). *per-segment scalars* (``lr``,
``wd``, ...) may differ from parameter to parameter; *constants* (``rescale``, ``clip``,
``beta1``, ...) are the same for the whole step. All of them are float32 numbers — and rules contain no numeric literals:
in numba ``1 - x`` with a float32 ``x`` would be computed in float64, so ``1 - beta1``
and the like arrive precomputed, as the reference rounds them. A ``clip`` of -1 means
"no clipping" (a rule may branch on constants, never on per-segment values or arrays).

The CuPy kernels (:mod:`.cupy_kernels`) are C transcriptions of these functions.
"""
import numpy as np

__all__ = ['RULES']


def _clip(x, bound):
    """clip(x, -bound, bound), spelled so that it works on arrays and numba scalars alike."""
    return np.minimum(np.maximum(x, -bound), bound)


def _sgd_step(g, lr, rescale, clip):
    """SGD's step ``lr * clip(rescale*g)``; unclipped in MXNet's order, ``(lr*rescale)*g``."""
    if clip > 0:
        return lr * _clip(rescale * g, clip)
    return (lr * rescale) * g


# ---------------------------------------------------------------------------- SGD family
def sgd_momentum(w, g, mom, lr, wd, momentum, rescale, clip):
    """SGD (``multi_sgd_mom_update``): mom = momentum*mom - lr*wd*w - lr*clip(rescale*g); w += mom."""
    step = _sgd_step(g, lr, rescale, clip)
    mom = momentum * mom - (lr * wd) * w - step
    return w + mom, mom


def sgd_no_momentum(w, g, lr, wd, zero, rescale, clip):
    """SGD without a buffer (``multi_sgd_update``): the momentum form with mom = 0."""
    step = _sgd_step(g, lr, rescale, clip)
    return (w + (zero - (lr * wd) * w - step),)


def sgd_plain(w, g, lr, wd, one, rescale, clip):
    """``sgd_update`` (NAG without momentum): w = (1 - lr*wd)*w - lr*clip(rescale*g)."""
    step = _sgd_step(g, lr, rescale, clip)
    return ((one - lr * wd) * w - step,)


def nag_momentum(w, g, mom, lr, wd, momentum, momentum_plus_one, rescale, clip):
    """``nag_mom_update``; the momentum's decay term reads the updated weight (as MXNet)."""
    scaled = rescale * g
    if clip > 0:
        scaled = _clip(scaled, clip)
    decayed = momentum * mom
    w = w - decayed + momentum_plus_one * (decayed - lr * (scaled + wd * w))
    mom = decayed - lr * (scaled + wd * w)
    return w, mom


def signum(w, g, mom, lr, wd, one, momentum, one_minus_momentum, rescale, clip, wd_lh):
    """Signum: mom = momentum*mom - (1-momentum)*(wd*w + g'); w = (1-lr*wd_lh)*w + lr*sign(mom)."""
    if clip > 0:
        pull = one_minus_momentum * _clip(rescale * g, clip)
    else:
        pull = (one_minus_momentum * rescale) * g
    mom = momentum * mom - (one_minus_momentum * wd) * w - pull
    return (one - lr * wd_lh) * w + lr * np.sign(mom), mom


def signsgd(w, g, lr, wd_total, one, rescale, clip):
    """signSGD: w = (1 - lr*(wd + wd_lh))*w - lr*sign(clip(rescale*g))."""
    scaled = rescale * g
    if clip > 0:
        scaled = _clip(scaled, clip)
    return ((one - lr * wd_total) * w - lr * np.sign(scaled),)


def dcasgd_momentum(w, g, mom, prev, neg_lr, wd, momentum, rescale, clip, lamda):
    """DCASGD: step = -lr*(g + wd*w + lamda*g*g*(w - w_prev)); mom = momentum*mom + step."""
    g = g * rescale
    if clip >= 0:
        g = _clip(g, clip)
    step = neg_lr * (g + wd * w + lamda * g * g * (w - prev))
    mom = mom * momentum + step
    return w + mom, mom, w


def dcasgd(w, g, prev, neg_lr, wd, rescale, clip, lamda):
    """DCASGD without momentum: w += -lr*(g + wd*w + lamda*g*g*(w - w_prev))."""
    g = g * rescale
    if clip >= 0:
        g = _clip(g, clip)
    step = neg_lr * (g + wd * w + lamda * g * g * (w - prev))
    return w + step, w


def lbsgd_momentum(w, g, mom, cum, lr, wd, momentum, batch_scale, accumulated, rescale,
                   clip):
    """LBSGD's step with momentum: the average of the accumulated gradients, then SGD's
    momentum step (as ``sgd_momentum``, ``lr`` already warmed up).

    ``accumulated > 0``: this call's ``g`` adds to the sum ``cum`` of earlier calls;
    else ``g`` is the whole sum. g = sum / batch_scale.
    """
    if accumulated > 0:
        g = cum + g
    g = g / batch_scale
    step = _sgd_step(g, lr, rescale, clip)
    mom = momentum * mom - (lr * wd) * w - step
    return w + mom, mom


def lbsgd_plain(w, g, cum, lr, wd, one, batch_scale, accumulated, rescale, clip):
    """LBSGD's step without momentum: the averaged gradient, then ``sgd_update``
    (as ``sgd_plain``): w = (1 - lr*wd)*w - lr*clip(rescale*g)."""
    if accumulated > 0:
        g = cum + g
    g = g / batch_scale
    step = _sgd_step(g, lr, rescale, clip)
    return ((one - lr * wd) * w - step,)


def sgld(w, g, noise, neg_half_lr, wd, rescale, clip):
    """SGLD: w += -lr/2 * (clip(rescale*g) + wd*w), rounded; then w += noise.

    ``neg_half_lr`` is ``-lr / 2`` (the reference's Python number, rounded to float32);
    ``noise`` holds the reference's own N(0, lr) draws (see ``SGLDSpec``).
    """
    g = g * rescale
    if clip >= 0:
        g = _clip(g, clip)
    w = w + neg_half_lr * (g + wd * w)
    return (w + noise,)


# ---------------------------------------------------------------------------- Adam family
def adam(w, g, mean, var, lr, wd, rescale, clip, beta1, beta2, one_minus_beta1,
         one_minus_beta2, epsilon):
    """Adam (``adam_update``), ``lr`` already bias-corrected per parameter."""
    g = g * rescale + wd * w
    if clip > 0:
        g = _clip(g, clip)
    mean = beta1 * mean + one_minus_beta1 * g
    var = beta2 * var + one_minus_beta2 * g * g
    return w - lr * mean / (np.sqrt(var) + epsilon), mean, var


def adamax(w, g, mean, inf_norm, lr, wd, rescale, clip, beta1, beta2, one_minus_beta1):
    """AdaMax: u = max(beta2*u, |g|); w -= lr/(1 - beta1**t) * m / u."""
    g = g * rescale + wd * w
    if clip >= 0:
        g = _clip(g, clip)
    mean = beta1 * mean + one_minus_beta1 * g
    inf_norm = np.maximum(beta2 * inf_norm, np.abs(g))
    return w - lr * mean / inf_norm, mean, inf_norm


def nadam(w, g, mean, var, lr, wd, grad_scale, mean_scale, var_scale, one_minus_mu_t,
          mu_next, rescale, clip, beta1, beta2, one_minus_beta1, one_minus_beta2, epsilon):
    """Nadam; the ``*_scale`` are the bias corrections 1 - m_schedule, 1 - beta2**t, ..."""
    g = g * rescale + wd * w
    if clip >= 0:
        g = _clip(g, clip)
    mean = beta1 * mean + one_minus_beta1 * g
    var = beta2 * var + one_minus_beta2 * g * g
    mean_bar = one_minus_mu_t * (g / grad_scale) + mu_next * (mean / mean_scale)
    return w - lr * mean_bar / (np.sqrt(var / var_scale) + epsilon), mean, var


def lamb_direction(w, g, mean, var, direction, wd, mean_scale, var_scale, rescale, clip,
                   beta1, beta2, one_minus_beta1, one_minus_beta2, epsilon):
    """LAMB phase 1: the moments and the direction d (scales are 1 - beta**t, or 1)."""
    g = g * rescale
    if clip > 0:
        g = _clip(g, clip)
    mean = beta1 * mean + one_minus_beta1 * g
    var = beta2 * var + one_minus_beta2 * g * g
    direction = (mean / mean_scale) / (np.sqrt(var / var_scale) + epsilon) + wd * w
    return w, mean, var, direction


def lamb_apply(w, direction, scaled_lr):
    """LAMB phase 2: w -= lr * trust_ratio * d (the trust ratio folded into scaled_lr)."""
    return (w - scaled_lr * direction,)


# ---------------------------------------------------------------------------- the rest
def rmsprop(w, g, n, lr, wd, rescale, clip, gamma1, one_minus_gamma1, epsilon, clip_weights):
    """RMSProp (``rmsprop_update``): n = (1-gamma1)*g*g + gamma1*n; w -= lr*g/sqrt(n + eps)."""
    g = g * rescale + wd * w
    if clip > 0:
        g = _clip(g, clip)
    n = one_minus_gamma1 * (g * g) + gamma1 * n
    w = w - lr * (g / np.sqrt(n + epsilon))
    if clip_weights > 0:
        w = _clip(w, clip_weights)
    return w, n


def rmsprop_centered(w, g, n, g_avg, delta, lr, wd, rescale, clip, gamma1, one_minus_gamma1,
                     gamma2, epsilon, clip_weights):
    """Centered RMSProp (``rmspropalex_update``, Graves 2013)."""
    g = g * rescale + wd * w
    if clip > 0:
        g = _clip(g, clip)
    n = one_minus_gamma1 * g * g + gamma1 * n
    g_avg = one_minus_gamma1 * g + gamma1 * g_avg
    delta = gamma2 * delta - lr * g / np.sqrt(n - g_avg * g_avg + epsilon)
    w = w + delta
    if clip_weights > 0:
        w = _clip(w, clip_weights)
    return w, n, g_avg, delta


def adagrad(w, g, history, neg_lr, wd, rescale, clip, epsilon):
    """AdaGrad: history += g*g; w += (g / sqrt(history + eps) + w*wd) * -lr."""
    g = g * rescale
    if clip >= 0:
        g = _clip(g, clip)
    history = history + g * g
    return w + (g / np.sqrt(history + epsilon) + w * wd) * neg_lr, history


def adadelta(w, g, acc_g, acc_delta, wd, rescale, clip, rho, one_minus_rho, epsilon):
    """AdaDelta: no learning rate; the step's units come from the past steps."""
    g = g * rescale
    if clip >= 0:
        g = _clip(g, clip)
    acc_g = rho * acc_g + one_minus_rho * g * g
    delta = np.sqrt(acc_delta + epsilon) / np.sqrt(acc_g + epsilon) * g
    acc_delta = rho * acc_delta + one_minus_rho * delta * delta
    return w - (delta + wd * w), acc_g, acc_delta


def ftml(w, g, prev_d, prev_v, prev_z, wd, d_scale, v_scale, rescale, clip, beta1, beta2,
         one_minus_beta1, one_minus_beta2, epsilon):
    """FTML; ``d_scale = (1 - beta1**t) / lr``, ``v_scale = 1 - beta2**t``."""
    g = g * rescale + wd * w
    if clip > 0:
        g = _clip(g, clip)
    prev_v = beta2 * prev_v + one_minus_beta2 * (g * g)
    d_t = d_scale * (np.sqrt(prev_v / v_scale) + epsilon)
    prev_z = beta1 * prev_z + one_minus_beta1 * g - (d_t - beta1 * prev_d) * w
    return -prev_z / d_t, d_t, prev_v, prev_z


def ftrl(w, g, z, n, lr, wd, rescale, clip, lamda1, beta):
    """FTRL-Proximal: soft-threshold z by lamda1; coordinates inside the ball become 0."""
    g = g * rescale
    if clip > 0:
        g = _clip(g, clip)
    g_squared = g * g
    z = z + (g - (np.sqrt(n + g_squared) - np.sqrt(n)) * w / lr)
    n = n + g_squared
    w = (np.sign(z) * lamda1 - z) / ((beta + np.sqrt(n)) / lr + wd) * (np.abs(z) > lamda1)
    return w, z, n


#: name -> rule. The names are also the kernels' names in the numba and CuPy modules.
RULES = {f.__name__: f for f in (
    sgd_momentum, sgd_no_momentum, sgd_plain, nag_momentum, signum, signsgd,
    dcasgd_momentum, dcasgd, lbsgd_momentum, lbsgd_plain, sgld, adam, adamax, nadam,
    lamb_direction, lamb_apply, rmsprop, rmsprop_centered, adagrad, adadelta, ftml, ftrl)}


# ---------------------------------------------------------------------------- lazy rows only
def sparse_adagrad(w, g, history, lr, rescale, clip, epsilon):
    """AdaGrad on the rows of a row_sparse gradient (``sparse.adagrad_update``): no weight
    decay, clipping only for a positive bound; history += g*g; w -= g / sqrt(history + eps) * lr.

    Its order of operations differs from the dense :func:`adagrad`'s, hence its own rule.
    """
    g = g * rescale
    if clip > 0:
        g = _clip(g, clip)
    history = history + g * g
    return w - g / np.sqrt(history + epsilon) * lr, history


#: Rules used only by the lazy row_sparse path (:mod:`.lazy`), beside those of RULES
#: (which every backend, the CuPy kernels included, implements for the flat buffers).
ROW_RULES = {f.__name__: f for f in (sparse_adagrad,)}
