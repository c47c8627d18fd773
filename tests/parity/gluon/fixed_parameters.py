"""Deterministic Parameter values for the drivers that compare a block's outcomes with
MXNet's (both sides run them; it imports neither package)."""
import numpy as np


def fill(mx, block, seed=0):
    """Set every Parameter of ``block``, by sorted name, from a seeded normal(0, 0.5);
    variances (names ending in 'var') made positive."""
    rng = np.random.RandomState(seed)
    params = block.collect_params()
    for name in sorted(params.keys()):
        value = rng.normal(0, 0.5, params[name].shape)
        if name.endswith('var'):
            value = np.abs(value) + 0.5
        params[name].set_data(mx.nd.array(value))
