"""Densities of the samplers' distributions: ``random_pdf_<name>(sample, *params, is_log)``.

The parameters (one value per distribution, all of one shape P) apply to the samples
whose leading axes are P: ``sample`` is ``(*P, ...)`` and so is the result. (The
Dirichlet's ``alpha`` is ``(*P, k)`` and its samples ``(*P, ..., k)`` vectors: one density
per vector.) The result is the density, or its log with ``is_log``. Parameters outside the
distribution are not checked (as in MXNet): the formulas give what they give.

Each distribution below gives its density and its score: the derivatives of the log
density by the sample and by each parameter. The gradient of an input is then the output
gradient times the score, times the density unless ``is_log`` — summed over the samples
for a parameter. Counts (Poisson, negative binomial) and the uniform density get no
gradient for the sample.
"""
import math

from ...base import MXNetError
from ..registry import FLOATS, Bool, Op, add
from .elemwise import special


def _normal(xp, x, mu, sigma, is_log):
    exponent = -0.5 * (x - mu) ** 2 / sigma ** 2
    normalizer = math.sqrt(2 * math.pi) * sigma
    density = exponent - xp.log(normalizer) if is_log else xp.exp(exponent) / normalizer
    return density, ((mu - x) / sigma ** 2, (x - mu) / sigma ** 2,
                     ((x - mu) ** 2 - sigma ** 2) / sigma ** 3)


def _uniform(xp, x, low, high, is_log):
    width = high - low
    density = -xp.log(width) if is_log else 1 / width
    return xp.broadcast_to(density, x.shape), (None, 1 / width, -1 / width)


def _exponential(xp, x, lam, is_log):
    density = xp.log(lam) - lam * x if is_log else lam * xp.exp(-lam * x)
    return density, (-lam, 1 / lam - x)


def _exp_or_log(xp, log_density, is_log):
    return log_density if is_log else xp.exp(log_density)


def _gamma(xp, x, alpha, beta, is_log):
    """beta is the rate: p(x) = beta^alpha x^(alpha-1) e^(-beta x) / Gamma(alpha)."""
    sp = special(xp)
    log_density = alpha * xp.log(beta) + (alpha - 1) * xp.log(x) - beta * x - sp.gammaln(alpha)
    return _exp_or_log(xp, log_density, is_log), (
        (alpha - 1) / x - beta, xp.log(beta) + xp.log(x) - sp.digamma(alpha), alpha / beta - x)


def _poisson(xp, x, lam, is_log):
    log_density = x * xp.log(lam) - special(xp).gammaln(x + 1) - lam
    return _exp_or_log(xp, log_density, is_log), (None, x / lam - 1)


def _negative_binomial_scores(xp, x, k, p):
    """log p(x) = log(Gamma(x + k) / (Gamma(x + 1) Gamma(k)) p^k (1 - p)^x), x failures
    before the k-th success of probability p, and its derivatives by k and p."""
    sp = special(xp)
    log_density = (sp.gammaln(x + k) - sp.gammaln(x + 1) - sp.gammaln(k) + k * xp.log(p)
                   + x * xp.log(1 - p))
    return log_density, sp.digamma(x + k) - sp.digamma(k) + xp.log(p), k / p - x / (1 - p)


def _negative_binomial(xp, x, k, p, is_log):
    log_density, d_k, d_p = _negative_binomial_scores(xp, x, k, p)
    return _exp_or_log(xp, log_density, is_log), (None, d_k, d_p)


def _generalized_negative_binomial(xp, x, mu, alpha, is_log):
    """The negative binomial of k = 1 / alpha, p = 1 / (1 + mu alpha): mean mu."""
    den = mu * alpha + 1
    log_density, d_k, d_p = _negative_binomial_scores(xp, x, 1 / alpha, 1 / den)
    return _exp_or_log(xp, log_density, is_log), (
        None, -d_p * alpha / den ** 2, -d_k / alpha ** 2 - d_p * mu / den ** 2)


def _dirichlet(xp, x, alpha, is_log):
    """x and alpha (..., k): Gamma(sum alpha) / prod Gamma(alpha_j) prod x_j^(alpha_j - 1)."""
    sp = special(xp)
    total = alpha.sum(axis=-1, keepdims=True)
    log_density = ((alpha - 1) * xp.log(x)).sum(axis=-1) + (
        sp.gammaln(total[..., 0]) - sp.gammaln(alpha).sum(axis=-1))
    return _exp_or_log(xp, log_density, is_log), (
        (alpha - 1) / x, xp.log(x) + sp.digamma(total) - sp.digamma(alpha))


#: name: (density and score function, parameter names, samples are vectors)
DISTRIBUTIONS = {
    'normal': (_normal, ('mu', 'sigma'), False),
    'uniform': (_uniform, ('low', 'high'), False),
    'exponential': (_exponential, ('lam',), False),
    'gamma': (_gamma, ('alpha', 'beta'), False),
    'poisson': (_poisson, ('lam',), False),
    'negative_binomial': (_negative_binomial, ('k', 'p'), False),
    'generalized_negative_binomial': (_generalized_negative_binomial, ('mu', 'alpha'), False),
    'dirichlet': (_dirichlet, ('alpha',), True),
}


def _check_shapes(name, sample, params, vector):
    """MXNetError unless the parameters share a shape P that leads the sample's."""
    first = params[0].shape
    for p in params[1:]:
        if p.shape != first:
            raise MXNetError('random_pdf_%s: the parameters have different shapes %s and %s'
                             % (name, first, p.shape))
    expected = sample.shape[:len(first)]
    if vector and sample.ndim:
        expected = expected[:-1] + sample.shape[-1:]
    if sample.ndim < len(first) or expected != first:
        raise MXNetError('random_pdf_%s: parameters of shape %s do not lead samples of shape '
                         '%s' % (name, first, sample.shape))


def _make_pdf(name, formula, vector):
    def pdf(env, sample, *params, is_log):
        xp = env.xp
        _check_shapes(name, sample, params, vector)
        # each parameter broadcast over its samples (a Dirichlet's over all but the last axis)
        extra = sample.ndim - params[0].ndim
        shape = (lambda p: p.shape[:-1] + (1,) * extra + p.shape[-1:]) if vector else \
            (lambda p: p.shape + (1,) * extra)
        spread = [p.reshape(shape(p)) for p in params]
        density, scores = formula(xp, sample, *spread, is_log)
        density = density.astype(sample.dtype)

        def backward(g):
            scaling = g.reshape(density.shape) * (1 if is_log else density)
            if vector:
                scaling = scaling[..., None]
            grads = [xp.zeros_like(sample) if s is None else (scaling * s).astype(sample.dtype)
                     for s in scores]
            sample_axes = tuple(range(params[0].ndim - vector, sample.ndim - vector))
            return [grads[0]] + [xp.broadcast_to(gp, sample.shape).sum(axis=sample_axes)
                                 .reshape(p.shape).astype(p.dtype)
                                 for gp, p in zip(grads[1:], params)]
        # one vector: MXNet's result is (1,)
        return (density.reshape(1) if vector and sample.ndim == 1 else density), backward
    pdf.__doc__ = 'The density of the %s distribution at each sample (``is_log``: its log).' \
        % name.replace('_', ' ')
    return pdf


for _name, (_formula, _params, _vector) in DISTRIBUTIONS.items():
    add(Op('_random_pdf_' + _name, _make_pdf(_name, _formula, _vector),
           ('sample',) + _params, aliases=('random_pdf_' + _name,), dtypes=FLOATS, quiet=True,
           params=[Bool('is_log', False, doc='Give the log of the density.')]))
