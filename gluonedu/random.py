"""``mx.random`` (also ``mx.rnd``): seeding and sampling, reproducible per context.

``mx.random.seed(42)`` re-seeds every context's generator; the samplers are those of
``mx.nd.random`` (the same functions, as in MXNet).
"""
from .context import Context
from .ndarray.random import (seed, uniform, normal, randn, randint, shuffle, exponential, gamma,
                             poisson, negative_binomial, generalized_negative_binomial,
                             multinomial)

__all__ = ['seed', 'uniform', 'normal', 'randn', 'randint', 'shuffle', 'exponential', 'gamma',
           'poisson', 'negative_binomial', 'generalized_negative_binomial', 'multinomial',
           'Context']
