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


def assert_list_call_equals_single_calls(make_optimizer, weights, grads):
    """One list call ``update([0, 1, ...], ...)`` per step gives, bit for bit, what one call
    per index gives; ``make_optimizer()`` builds a fresh optimizer for each side."""
    single, multi = make_optimizer(), make_optimizer()
    indices = list(range(len(weights)))
    ws = [nd.array(w) for w in weights]
    wm = [nd.array(w) for w in weights]
    ss = [single.create_state(i, w) for i, w in zip(indices, ws)]
    sm = [multi.create_state(i, w) for i, w in zip(indices, wm)]
    for g in grads:
        for i in indices:
            single.update(i, ws[i], nd.array(g), ss[i])
        multi.update(indices, wm, [nd.array(g) for _ in indices], sm)
    for a, b in zip(ws, wm):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
