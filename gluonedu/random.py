"""``mx.random``: seeding and sampling, reproducible per context.

``mx.random.seed(42)`` re-seeds every context's generator; the samplers are those of
``mx.nd.random``.
"""
from .ndarray.random import seed, uniform, normal, randn, randint, shuffle

__all__ = ['seed', 'uniform', 'normal', 'randn', 'randint', 'shuffle']
