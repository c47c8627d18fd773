"""Inputs and a driver shared by the per-optimizer tests."""
import numpy as np

from gluonedu import nd

#: Updates per test run.
STEPS = 6


def random_problem(seed=0, shape=(5, 3), steps=STEPS):
    """A float32 weight in [-1, 1) and ``steps`` standard-normal gradients, seeded."""
    rs = np.random.RandomState(seed)
    weight = rs.uniform(-1, 1, shape).astype(np.float32)
    grads = [rs.normal(0, 1, shape).astype(np.float32) for _ in range(steps)]
    return weight, grads


def run(opt, weight, grads, index=0, dtype='float32'):
    """Update ``weight`` with each gradient through ``*_multi_precision``; (weight, state)."""
    w = nd.array(weight, dtype=dtype)
    state = opt.create_state_multi_precision(index, w)
    for g in grads:
        opt.update_multi_precision(index, w, nd.array(g, dtype=dtype), state)
    return w, state
