"""Runs one parity case against an MXNet-like module ``mx`` — MXNet 1.9.1 or gluonedu.

Both sides of the parity suite execute *this same code*: the oracle script passes the
real ``mxnet`` module, the tests pass ``gluonedu``. The case is therefore driven through
identical calls (``mx.optimizer.create``, ``mx.optimizer.get_updater``, ``mx.nd.array``,
``mx.nd.sparse.row_sparse_array``, ``mx.lr_scheduler.*``) on both sides, and only the
numbers can differ.

This module must import neither mxnet nor gluonedu, and must run on the oracle's
Python/NumPy (NumPy 1.23) as well as on the project's (NumPy 2).

Case format (plain JSON, built by :mod:`parity_cases`)
------------------------------------------------------
Optimizer case::

    {"id": "adam-wd-fp32", "optimizer": "adam", "kwargs": {...},
     "scheduler": null | {"type": "FactorScheduler", "kwargs": {...}},
     "idx2name": null | [[0, "dense0_weight"], ...],
     "lr_mult": [[key, value], ...], "wd_mult": [[key, value], ...],
     "mode": "single" | "multi" | "direct",
     "dtype": "float32" | "float16", "shapes": [[4, 5], ...], "steps": 6,
     "grad_stype": "default" | "row_sparse", "weight_stype": "default" | "row_sparse",
     "zero_noise": false}

Inputs (host NumPy arrays, keyed by :func:`input_key`): ``w/<k>`` the initial weight of
parameter k; ``g/<k>`` its gradients, shape ``(steps,) + shape``; for row_sparse
gradients also ``rows/<k>/<step>``, the stored row ids (the gradient's other rows are 0).

Modes: ``single`` calls the Updater once per parameter (what the Trainer does);
``multi`` calls it once with lists of all parameters (MXNet's multi-tensor / aggregate
path); ``direct`` bypasses the Updater and calls ``create_state_multi_precision`` and
``update_multi_precision`` per parameter with single tensors (the non-aggregated path).

Result (:func:`run_optimizer_case`): ``{"w/<k>": (steps,) + shape weights after every
step, "s/<k>/<j>": (steps,) + shape state array j (states flattened depth-first, None
skipped)}`` plus ``"nstates/<k>"``, the number of state arrays.
"""
import numpy as np

OPTIMIZER_MODES = ('single', 'multi', 'direct')


def input_key(case_id, *parts):
    return '|'.join((case_id,) + tuple(str(p) for p in parts))


def _pairs_to_dict(pairs):
    return {key: value for key, value in (pairs or [])}


def make_scheduler(mx, spec):
    """An lr scheduler of ``mx`` from its JSON spec (or None)."""
    if spec is None:
        return None
    return getattr(mx.lr_scheduler, spec['type'])(**spec['kwargs'])


def make_optimizer(mx, case):
    kwargs = dict(case['kwargs'])
    scheduler = make_scheduler(mx, case.get('scheduler'))
    if scheduler is not None:
        kwargs['lr_scheduler'] = scheduler
    if case.get('idx2name'):
        kwargs['param_idx2name'] = _pairs_to_dict(case['idx2name'])
    opt = mx.optimizer.create(case['optimizer'], **kwargs)
    if case.get('lr_mult'):
        opt.set_lr_mult(_pairs_to_dict(case['lr_mult']))
    if case.get('wd_mult'):
        opt.set_wd_mult(_pairs_to_dict(case['wd_mult']))
    return opt


def flatten_state(mx, state):
    """The NDArrays of a state structure, depth-first, as host arrays (None skipped)."""
    if state is None:
        return []
    if isinstance(state, (tuple, list)):
        out = []
        for item in state:
            out.extend(flatten_state(mx, item))
        return out
    if isinstance(state, mx.nd.NDArray):
        return [state.asnumpy()]
    return []  # plain Python values (none of the built-in optimizers keep any)


def _gradient(mx, case, inputs, k, step):
    dtype = case['dtype']
    dense = inputs[input_key(case['id'], 'g', k)][step].astype(dtype)
    if case.get('grad_stype', 'default') == 'row_sparse':
        rows = inputs[input_key(case['id'], 'rows', k, step)].astype(np.int64)
        return mx.nd.sparse.row_sparse_array(
            (mx.nd.array(dense[rows], dtype=dtype), mx.nd.array(rows, dtype='int64')),
            shape=dense.shape, dtype=dtype)
    # A fresh array every step: some optimizers (AdaDelta) scale the gradient in place.
    return mx.nd.array(dense, dtype=dtype)


def _weight(mx, case, inputs, k):
    dtype = case['dtype']
    weight = mx.nd.array(inputs[input_key(case['id'], 'w', k)].astype(dtype), dtype=dtype)
    if case.get('weight_stype', 'default') == 'row_sparse':
        weight = weight.tostype('row_sparse')
    return weight


def run_optimizer_case(mx, case, inputs):
    """Run ``case`` on ``mx``; return the weights and states after every step."""
    nparams = len(case['shapes'])
    steps = case['steps']
    mode = case['mode']
    if mode not in OPTIMIZER_MODES:
        raise ValueError('unknown mode %r' % (mode,))
    opt = make_optimizer(mx, case)
    indices = list(range(nparams))
    weights = [_weight(mx, case, inputs, k) for k in indices]
    updater = mx.optimizer.get_updater(opt) if mode != 'direct' else None
    direct_states = {}
    history = {k: [] for k in indices}
    state_history = {k: [] for k in indices}
    for step in range(steps):
        grads = [_gradient(mx, case, inputs, k, step) for k in indices]
        if mode == 'single':
            for k in indices:
                updater(k, grads[k], weights[k])
        elif mode == 'multi':
            updater(list(indices), list(grads), list(weights))
        else:
            for k in indices:
                if k not in direct_states:
                    direct_states[k] = opt.create_state_multi_precision(k, weights[k])
                opt.update_multi_precision(k, weights[k], grads[k], direct_states[k])
        states = updater.states if updater is not None else direct_states
        for k in indices:
            history[k].append(weights[k].asnumpy().copy())
            state_history[k].append([s.copy() for s in flatten_state(mx, states.get(k))])
    result = {}
    for k in indices:
        result['w/%d' % k] = np.stack(history[k])
        nstates = len(state_history[k][0])
        result['nstates/%d' % k] = np.array(nstates)
        for j in range(nstates):
            result['s/%d/%d' % (k, j)] = np.stack([states[j] for states in state_history[k]])
    return result


def run_scheduler_case(mx, case):
    """The lr curve of a scheduler case, as float64.

    Case: ``{"id", "scheduler": spec, "start": 0 | 1, "n": 200, "via_optimizer": false,
    "learning_rate": null | float}``. Plain cases call the scheduler with
    ``start .. start + n - 1``. ``via_optimizer`` cases hand the scheduler to a base
    ``Optimizer(learning_rate=..., lr_scheduler=...)`` (which may override its base_lr) and
    read the lr the optimizer would use at each of ``n`` updates of one index.
    """
    scheduler = make_scheduler(mx, case['scheduler'])
    n, start = case['n'], case.get('start', 1)
    if not case.get('via_optimizer'):
        return np.array([scheduler(num_update) for num_update in range(start, start + n)],
                        dtype=np.float64)
    opt = mx.optimizer.Optimizer(learning_rate=case.get('learning_rate'),
                                 lr_scheduler=scheduler)
    lrs = []
    for _ in range(n):
        opt._update_count(0)
        lrs.append(opt._get_lr(0))
    return np.array(lrs, dtype=np.float64)
