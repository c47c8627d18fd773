"""Runs one Trainer parity case against an MXNet-like module ``mx`` — MXNet 1.9.1 or gluonedu.

Both sides execute *this same code* (the oracle passes ``mxnet``, the tests pass
``gluonedu``), so a model is built, initialised, fed and stepped through identical calls
and only the numbers can differ. It imports neither package and runs on NumPy 1.23 and 2.

Case format (plain JSON, built by :func:`trainer_cases`)::

    {"id": "mlp-2ctx-device-uokT-2bit-sgd", "model": "mlp" | "emb", "nctx": 1 | 2,
     "kvstore": "device" | "local" | "instance:device",
     "update_on_kvstore": null | true | false,
     "compression": null | {"type": "2bit", "threshold": 0.05},
     "optimizer": "sgd", "optimizer_params": {...}, "steps": 20,
     "resume_after": null | 10, "expect_error": false}

``expect_error`` marks a configuration MXNet refuses (2-bit compression on a 'local'
store): both sides must raise.

A ``resume_after: n`` case trains n steps, saves the Trainer's states to a file, builds a
fresh network (with the weights reached) and a fresh Trainer (with a deliberately wrong
learning rate, which the loaded optimizer must replace), loads the states and trains the
remaining steps.

Inputs (host arrays, :func:`make_inputs`): ``<model>|w|<k>`` the initial value of the k-th
parameter in sorted-name order; ``<model>|x`` the data, ``(steps, batch, ...)``;
``<model>|y`` the targets. Result: ``w|<k>`` of shape ``(steps, nctx) + shape``, every
context's copy of parameter k after every step.
"""
import os

import numpy as np

STEPS = 20
BATCH = 8
MLP_IN, MLP_HIDDEN, MLP_OUT = 8, 16, 4
EMB_ROWS, EMB_DIM, EMB_OUT = 20, 6, 3
TWO_BIT = {'type': '2bit', 'threshold': 0.05}
OPTIMIZERS = {
    'sgd': {'learning_rate': 0.1, 'momentum': 0.9, 'wd': 1e-3},
    'adam': {'learning_rate': 0.01, 'wd': 1e-3},
}


def trainer_cases():
    """Every Trainer parity case (see the module docstring)."""
    cases = []

    def add(model, nctx, kvstore, uok, compression, optimizer, resume_after=None):
        parts = [model, '%dctx' % nctx, kvstore.replace(':', '-'),
                 {None: 'uokN', True: 'uokT', False: 'uokF'}[uok],
                 '2bit' if compression else 'dense', optimizer]
        if resume_after:
            parts.append('resume%d' % resume_after)
        cases.append({'id': '-'.join(parts), 'model': model, 'nctx': nctx,
                      'kvstore': kvstore, 'update_on_kvstore': uok,
                      'compression': compression, 'optimizer': optimizer,
                      'optimizer_params': OPTIMIZERS[optimizer], 'steps': STEPS,
                      'resume_after': resume_after,
                      'expect_error': bool(compression) and kvstore == 'local'})

    for optimizer in OPTIMIZERS:
        # One context: a named store is not used at all; a KVStore instance is.
        for kvstore in ('device', 'local', 'instance:device'):
            add('mlp', 1, kvstore, None, None, optimizer)
        for kvstore in ('device', 'local'):
            for uok in (True, False):
                for compression in (None, TWO_BIT):
                    add('mlp', 2, kvstore, uok, compression, optimizer)
        # (MXNet 1.9.1 compresses on 'device' and dist stores only; 'local' refuses it,
        # and those cases check that both sides refuse.)
        # Sparse gradients (Embedding(sparse_grad=True)).
        add('emb', 1, 'device', None, None, optimizer)
        for kvstore in ('device', 'local'):
            for uok in (None, True):
                add('emb', 2, kvstore, uok, None, optimizer)
        # Save after 10 steps, load into a fresh Trainer, continue.
        add('mlp', 1, 'device', None, None, optimizer, resume_after=10)
        for uok in (True, False):
            add('mlp', 2, 'device', uok, None, optimizer, resume_after=10)
        add('emb', 2, 'device', None, None, optimizer, resume_after=10)
    return cases


def make_inputs(seed=0):
    """Seeded initial weights and data for both models (host float32 arrays)."""
    rng = np.random.RandomState(seed)
    f32 = np.float32
    inputs = {
        # sorted names: dense0_bias, dense0_weight, dense1_bias, dense1_weight
        'mlp|w|0': (rng.randn(MLP_HIDDEN) * 0.1).astype(f32),
        'mlp|w|1': (rng.randn(MLP_HIDDEN, MLP_IN) * 0.3).astype(f32),
        'mlp|w|2': (rng.randn(MLP_OUT) * 0.1).astype(f32),
        'mlp|w|3': (rng.randn(MLP_OUT, MLP_HIDDEN) * 0.3).astype(f32),
        'mlp|x': rng.randn(STEPS, BATCH, MLP_IN).astype(f32),
        'mlp|y': rng.randn(STEPS, BATCH, MLP_OUT).astype(f32),
        # sorted names: dense0_bias, dense0_weight, embedding0_weight
        'emb|w|0': (rng.randn(EMB_OUT) * 0.1).astype(f32),
        'emb|w|1': (rng.randn(EMB_OUT, EMB_DIM) * 0.3).astype(f32),
        'emb|w|2': (rng.randn(EMB_ROWS, EMB_DIM) * 0.3).astype(f32),
        # each step looks up rows from a random half of the table
        'emb|x': np.stack([rng.choice(rng.permutation(EMB_ROWS)[:EMB_ROWS // 2], BATCH)
                           for _ in range(STEPS)]).astype(f32),
        'emb|y': rng.randn(STEPS, BATCH, EMB_OUT).astype(f32),
    }
    return inputs


def build_net(mx, model, ctxs, values):
    """The case's network on ``ctxs``, its parameters (sorted by name) set to ``values``."""
    nn = mx.gluon.nn
    net = nn.Sequential(prefix=model + '_')
    with net.name_scope():
        if model == 'mlp':
            net.add(nn.Dense(MLP_HIDDEN, activation='relu', in_units=MLP_IN))
            net.add(nn.Dense(MLP_OUT, in_units=MLP_HIDDEN))
        else:
            net.add(nn.Embedding(EMB_ROWS, EMB_DIM, sparse_grad=True))
            net.add(nn.Dense(EMB_OUT, in_units=EMB_DIM))
    net.initialize(ctx=ctxs)
    params = net.collect_params()
    for key, value in zip(sorted(params.keys()), values):
        params[key].set_data(mx.nd.array(value))
    return net


def make_trainer(mx, case, net, optimizer_params):
    kvstore = case['kvstore']
    if kvstore.startswith('instance:'):
        kvstore = mx.kv.create(kvstore.split(':', 1)[1])
    return mx.gluon.Trainer(net.collect_params(), case['optimizer'], dict(optimizer_params),
                            kvstore=kvstore, compression_params=case['compression'],
                            update_on_kvstore=case['update_on_kvstore'])


def _snapshot(net, ctxs):
    params = net.collect_params()
    return [np.stack([params[key].data(ctx).asnumpy() for ctx in ctxs])
            for key in sorted(params.keys())]


def run_trainer_case(mx, case, inputs, workdir):
    """Train the case's model; ``{"w|<k>": (steps, nctx) + shape}``."""
    model, steps = case['model'], case['steps']
    ctxs = [mx.cpu(i) for i in range(case['nctx'])]
    nparams = 4 if model == 'mlp' else 3
    values = [inputs['%s|w|%d' % (model, k)] for k in range(nparams)]
    net = build_net(mx, model, ctxs, values)
    trainer = make_trainer(mx, case, net, case['optimizer_params'])
    loss_fn = mx.gluon.loss.L2Loss()
    history = []
    for step in range(steps):
        if step == case.get('resume_after'):
            fname = os.path.join(workdir, case['id'] + '.states')
            trainer.save_states(fname)
            reached = [w[0] for w in _snapshot(net, ctxs)]
            net = build_net(mx, model, ctxs, reached)
            wrong = dict(case['optimizer_params'], learning_rate=123.0)
            trainer = make_trainer(mx, case, net, wrong)
            trainer.load_states(fname)
        xs = mx.gluon.utils.split_and_load(mx.nd.array(inputs[model + '|x'][step]), ctxs)
        ys = mx.gluon.utils.split_and_load(mx.nd.array(inputs[model + '|y'][step]), ctxs)
        with mx.autograd.record():
            losses = [loss_fn(net(x), y) for x, y in zip(xs, ys)]
        for loss in losses:
            loss.backward()
        trainer.step(BATCH)
        history.append(_snapshot(net, ctxs))
    return {'w|%d' % k: np.stack([h[k] for h in history]) for k in range(nparams)}
