"""LARS through gluon.Trainer: which tensors keep the plain learning rate (MXNet 1.9.1 vs gluonedu).

LARS exempts parameters whose *name* ends in ``bias``, ``gamma`` or ``beta`` from its trust
ratio, and it reads names only from the ``param_idx2name`` it was created with. The Trainer
hands the optimizer its parameters by index (``optimizer.param_dict``, the Trainer's order:
sorted names) and no names. So, in MXNet 1.9.1 as in gluonedu:

* ``names=None`` (``Trainer(params, 'lars', {...})``): no exemption; biases get the trust ratio;
* ``names='trainer'`` (an optimizer created with ``param_idx2name`` in the Trainer's order):
  biases keep the plain rate;
* ``names='collect'`` (``param_idx2name`` in ``collect_params()`` order, not the Trainer's):
  the names land on the wrong tensors.

Both sides run :func:`run` (it imports neither package). As a script, on the oracle's
interpreter: ``oracle_main.py lars_names_driver.py`` writes every case's results with MXNet.
"""
import numpy as np

CASES = (None, 'trainer', 'collect')
STEPS, BATCH = 3, 8
SETTINGS = dict(learning_rate=0.1, eta=0.05, momentum=0.9)


def run(mx, names):
    """``{'<param>|w': weights after each step (STEPS, ...), '<param>|g': the gradient of the
    first step}`` for a 4-5-3 MLP trained through ``gluon.Trainer`` with LARS."""
    nn = mx.gluon.nn
    net = nn.Sequential(prefix='net_')
    with net.name_scope():
        net.add(nn.Dense(5, activation='relu', in_units=4), nn.Dense(3, in_units=5))
    net.initialize()
    params = net.collect_params()
    rng = np.random.RandomState(0)
    for key in sorted(params.keys()):
        params[key].set_data(mx.nd.array((rng.randn(*params[key].shape) * 0.5).astype('float32')))
    if names is None:
        trainer = mx.gluon.Trainer(params, 'lars', dict(SETTINGS))
    else:
        keys = sorted(params.keys()) if names == 'trainer' else list(params.keys())
        optimizer = mx.optimizer.create('lars', param_idx2name=dict(enumerate(keys)), **SETTINGS)
        trainer = mx.gluon.Trainer(params, optimizer)
    x = rng.randn(STEPS, BATCH, 4).astype('float32')
    t = rng.randn(STEPS, BATCH, 3).astype('float32')
    loss_fn = mx.gluon.loss.L2Loss()
    out = {}
    history = {key: [] for key in params.keys()}
    for step in range(STEPS):
        with mx.autograd.record():
            loss = loss_fn(net(mx.nd.array(x[step])), mx.nd.array(t[step]))
        loss.backward()
        if step == 0:
            for key in params.keys():
                out[key + '|g'] = params[key].grad().asnumpy() / BATCH
                out[key + '|w0'] = params[key].data().asnumpy()
        trainer.step(BATCH)
        for key in params.keys():
            history[key].append(params[key].data().asnumpy())
    for key, values in history.items():
        out[key + '|w'] = np.stack(values)
    return out


def case_id(names):
    return 'names=%s' % names


if __name__ == '__main__':  # the oracle's side, run by oracle_main.py
    import mxnet

    import oracle_io

    oracle_io.save_results(*oracle_io.run_each(
        [(case_id(names), lambda names=names: run(mxnet, names)) for names in CASES]))
