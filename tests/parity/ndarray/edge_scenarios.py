"""Calls of several steps that a fuzz case names by ``"scenario"`` (:mod:`ops_driver`):
written once, run on MXNet 1.9.1 and on gluonedu alike, as ``scenario(mx, *args,
**kwargs)``. Each returns what the parity suites compare (NDArrays, or NumPy arrays).

The last two (:func:`one_cycle`, :func:`lr_find`) call gluonedu additions that MXNet 1.9.1
lacks: only gluonedu runs them, and the fuzz judges their results by what they promise.

Like :mod:`ops_driver`, this module imports neither mxnet nor gluonedu.
"""
import os
import tempfile

import numpy as np


def parameter_dict_load(mx, saved, saved_names, names, shapes, **load_kwargs):
    """``nd.save`` of ``saved`` (a list of arrays; a dict where ``saved_names`` is not
    None), then ``ParameterDict('net_')`` holding parameters ``names`` of ``shapes``
    (zeros) loads the file; the parameters' values after the load."""
    with tempfile.TemporaryDirectory(prefix='edge-scenario-') as tmp:
        path = os.path.join(tmp, 'saved.params')
        mx.nd.save(path, saved if saved_names is None else dict(zip(saved_names, saved)))
        params = mx.gluon.ParameterDict('net_')
        for name, shape in zip(names, shapes):
            params.get(name, shape=tuple(shape))
        params.initialize(mx.init.Zero(), ctx=mx.cpu())
        params.load(path, mx.cpu(), **load_kwargs)
        return [params[key].data() for key in sorted(params.keys())]


def load_frombuffer(mx, buffer):
    """``nd.load_frombuffer(buffer)``: the arrays, in name order for a dict, then the
    names (as a NumPy array of text)."""
    loaded = mx.nd.load_frombuffer(buffer)
    if isinstance(loaded, dict):
        names = sorted(loaded)
        return [loaded[name] for name in names] + [np.array(names)]
    return list(loaded)


def one_cycle(mx, *args, **kwargs):
    """``lr_scheduler.OneCycleScheduler(*args, **kwargs)``: its lr and momentum at every
    update from 0 to two past ``total_steps`` (NaN for a momentum it does not cycle)."""
    scheduler = mx.lr_scheduler.OneCycleScheduler(*args, **kwargs)
    updates = range(scheduler.total_steps + 3)
    momenta = [scheduler.momentum_at(n) for n in updates]
    return (np.array([scheduler(n) for n in updates], dtype=np.float64),
            np.array([np.nan if m is None else m for m in momenta], dtype=np.float64))


def lr_find(mx, batches, **kwargs):
    """``contrib.lr_find`` of a Dense(1) network (3 inputs, seeded) with SGD and L2 loss
    over ``batches``; the lrs and losses of the steps it took."""
    mx.random.seed(0)
    net = mx.gluon.nn.Dense(1, in_units=3)
    net.initialize(mx.init.Xavier())
    trainer = mx.gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1})
    result = mx.contrib.lr_find(net, trainer, batches, mx.gluon.loss.L2Loss(), **kwargs)
    return result.lrs, result.losses
