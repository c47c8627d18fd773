"""mx.mod.Module, MXNet 1.9.1 vs gluonedu (MXNet's test_lr_wd_mult and test_nadam).

Each case trains a symbol through a Module from fixed data and fixed initial parameters
(set through ``set_params``/``arg_params``, so neither side's random numbers matter) and
reports what it gives: the optimizer's lr_mult/wd_mult tables, the parameters after
training, ``score`` and ``predict``, and the exception types of misuse. Both sides run
:func:`run` (it imports neither package). As a script, on the oracle's interpreter:
``oracle_main.py module_driver.py`` writes MXNet's outcomes.
"""
import json
import os
import tempfile
import warnings

import numpy as np

CASES = ('lr_wd_mult', 'nadam_fit', 'fixed_params_pad', 'batchnorm_mults', 'checkpoint',
         'errors')


def _fixed(shape, seed):
    return np.random.RandomState(seed).uniform(-1, 1, shape).astype(np.float32)


def _initial_params(mx, symbol, input_shapes):
    """Fixed values for every parameter of ``symbol`` (its arguments not given shapes)."""
    arg_shapes, _, _ = symbol.infer_shape(**input_shapes)
    return {name: mx.nd.array(_fixed(shape, seed))
            for seed, (name, shape) in enumerate(zip(symbol.list_arguments(), arg_shapes))
            if name not in input_shapes}


def _numpy(params):
    return {name: value.asnumpy().tolist() for name, value in sorted(params.items())}


def _lr_wd_mult(mx):
    """MXNet's test_lr_wd_mult: multipliers from the symbol's attributes, three steps."""
    data = mx.sym.Variable('data')
    bias = mx.sym.Variable('fc1_bias', lr_mult=1.0)
    fc1 = mx.sym.FullyConnected(data=data, bias=bias, name='fc1', num_hidden=10, lr_mult=0)
    fc2 = mx.sym.FullyConnected(data=fc1, name='fc2', num_hidden=10, wd_mult=0.5)
    mod = mx.mod.Module(symbol=fc2, label_names=None, context=mx.cpu())
    mod.bind(data_shapes=[('data', (5, 10))])
    mod.init_params(initializer=mx.init.Uniform(1.0))
    mod.set_params(_initial_params(mx, fc2, {'data': (5, 10)}), {})
    mod.init_optimizer(optimizer_params={'learning_rate': 0.1, 'wd': 0.01})
    batch = mx.io.DataBatch(data=[mx.nd.array(_fixed((5, 10), 99))], label=None)
    for _ in range(3):
        mod.forward(batch, is_train=True)
        mod.backward(mod.get_outputs())
        mod.update()
    args, aux = mod.get_params()
    return {'lr_mult': mod._optimizer.lr_mult, 'wd_mult': mod._optimizer.wd_mult,
            'params': _numpy(args), 'aux': _numpy(aux),
            'outputs': mod.get_outputs()[0].asnumpy().tolist(),
            'output_names': mod.output_names, 'output_shapes': mod.output_shapes}


def _mlp(mx, num_hidden):
    data = mx.sym.Variable('data')
    fc1 = mx.sym.FullyConnected(data, name='fc1', num_hidden=16)
    act1 = mx.sym.Activation(fc1, name='relu1', act_type='relu')
    fc2 = mx.sym.FullyConnected(act1, name='fc2', num_hidden=8)
    act2 = mx.sym.Activation(fc2, name='relu2', act_type='relu')
    return mx.sym.FullyConnected(act2, name='fc3', num_hidden=num_hidden)


def _nadam_fit(mx):
    """MXNet's test_nadam at small scale: an L1 make_loss trained by fit with Nadam."""
    data = mx.nd.array(_fixed((20, 10), 100))
    label = mx.nd.array(_fixed((20, 1), 101))
    data_iter = mx.io.NDArrayIter(data, label, batch_size=5, label_name='label')
    loss = mx.sym.make_loss(mx.gluon.loss.L1Loss()(_mlp(mx, 1), mx.sym.Variable('label')))
    mod = mx.mod.Module(loss, data_names=('data',), label_names=('label',))
    batches = []
    mod.fit(data_iter, num_epoch=4, optimizer='nadam',
            optimizer_params={'learning_rate': 0.01, 'wd': 0.0005},
            arg_params=_initial_params(mx, loss, {'data': (5, 10), 'label': (5, 1)}),
            initializer=mx.init.Xavier(), eval_metric=mx.metric.Loss(),
            batch_end_callback=lambda p: batches.append((p.epoch, p.nbatch)))
    args, _ = mod.get_params()
    return {'params': _numpy(args), 'batches': batches,
            'score': mod.score(data_iter, eval_metric=mx.metric.Loss()),
            'predict': mod.predict(data_iter).asnumpy().tolist()}


def _fixed_params_pad(mx):
    """A regression output with a fixed layer, a padded last batch and validation data."""
    data = mx.nd.array(_fixed((7, 4), 200))
    label = mx.nd.array(_fixed((7, 1), 201))
    train = mx.io.NDArrayIter(data, label, batch_size=3, label_name='out_label',
                              last_batch_handle='pad')
    net = mx.sym.LinearRegressionOutput(_mlp(mx, 1), name='out')
    # The whole first layer fixed: MXNet 1.9.1 (MKLDNN) leaves a bias's gradient at zero
    # when only its layer's weight is fixed.
    mod = mx.mod.Module(net, label_names=('out_label',),
                        fixed_param_names=['fc1_weight', 'fc1_bias'])
    epochs = []
    mod.fit(train, eval_data=train, eval_metric='mse', num_epoch=3,
            optimizer='sgd', optimizer_params={'learning_rate': 0.05, 'momentum': 0.9},
            arg_params=_initial_params(mx, net, {'data': (3, 4), 'out_label': (3, 1)}),
            epoch_end_callback=lambda epoch, sym, args, aux: epochs.append(epoch))
    args, _ = mod.get_params()
    return {'params': _numpy(args), 'epochs': epochs,
            'score': mod.score(train, 'mse'),
            'score_one_batch': mod.score(train, 'mae', num_batch=1),
            'predict': mod.predict(train).asnumpy().tolist(),
            'predict_batches': [[o.shape for o in outs] for outs in
                                mod.predict(train, merge_batches=False)],
            'predict_array': mod.predict(mx.nd.array(_fixed((3, 4), 202))).asnumpy().tolist()}


def _batchnorm_mults(mx):
    """BatchNorm's running statistics (auxiliary states) under fit, with multipliers from
    a variable's attributes and an AttrScope; the optimizer's tables made from the symbol.
    (SGD: the bias before BatchNorm has a gradient of rounding noise, which Adam would
    magnify into steps of the learning rate.)"""
    data = mx.sym.Variable('data')
    weight = mx.sym.Variable('scale_weight', lr_mult=3.0, wd_mult=2.0)
    scaled = mx.sym.FullyConnected(data, weight=weight, name='scale', num_hidden=6)
    normed = mx.sym.BatchNorm(scaled, name='bn', fix_gamma=False)
    with mx.AttrScope(lr_mult='0.5'):
        head = mx.sym.FullyConnected(mx.sym.Activation(normed, act_type='tanh'),
                                     name='head', num_hidden=1)
    net = mx.sym.LinearRegressionOutput(head, name='out')
    params = [n for n in net.list_arguments() if n not in ('data', 'out_label')]
    named = mx.optimizer.create('sgd', sym=net, param_idx2name=dict(enumerate(params)))
    unnamed = mx.optimizer.create('adam', sym=net)
    unnamed.set_wd_mult({'head_bias': 3.0})
    train = mx.io.NDArrayIter(mx.nd.array(_fixed((8, 4), 300)),
                              mx.nd.array(_fixed((8, 1), 301)), batch_size=4,
                              label_name='out_label')
    mod = mx.mod.Module(net, label_names=('out_label',))
    mod.fit(train, num_epoch=3, optimizer='sgd', eval_metric='rmse',
            optimizer_params={'learning_rate': 0.05, 'momentum': 0.9, 'wd': 0.01},
            arg_params=_initial_params(mx, net, {'data': (4, 4), 'out_label': (4, 1)}),
            aux_params={'bn_moving_mean': mx.nd.zeros((6,)),
                        'bn_moving_var': mx.nd.ones((6,))})
    args, aux = mod.get_params()
    return {'tables': [named.lr_mult, named.wd_mult, unnamed.lr_mult, unnamed.wd_mult],
            'module_tables': [mod._optimizer.lr_mult, mod._optimizer.wd_mult],
            'params': _numpy(args), 'aux': _numpy(aux), 'score': mod.score(train, 'rmse'),
            'predict': mod.predict(train).asnumpy().tolist()}


def _checkpoint(mx):
    """A checkpoint with the optimizer's states, training resumed from it, and the saved
    module trained on (MXNet saves the states, not the update counts: the two differ)."""
    train = mx.io.NDArrayIter(mx.nd.array(_fixed((8, 4), 400)),
                              mx.nd.array(_fixed((8, 1), 401)), batch_size=4,
                              label_name='out_label')
    net = mx.sym.LinearRegressionOutput(_mlp(mx, 1), name='out')
    fit_args = dict(optimizer='adam', optimizer_params={'learning_rate': 0.01})
    mod = mx.mod.Module(net, label_names=('out_label',))
    mod.fit(train, num_epoch=2, eval_metric='mse', **fit_args,
            arg_params=_initial_params(mx, net, {'data': (4, 4), 'out_label': (4, 1)}))
    with tempfile.TemporaryDirectory() as folder, \
            warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')  # fit on initialized parameters: MXNet warns
        prefix = os.path.join(folder, 'mlp')
        mod.save_checkpoint(prefix, 2, save_optimizer_states=True)
        files = sorted(os.listdir(folder))
        resumed = mx.mod.Module.load(prefix, 2, load_optimizer_states=True,
                                     label_names=('out_label',))
        resumed.fit(train, begin_epoch=2, num_epoch=3, eval_metric='mse', **fit_args)
        mod.fit(train, begin_epoch=2, num_epoch=3, eval_metric='mse', **fit_args)
    return {'files': files, 'resumed': _numpy(resumed.get_params()[0]),
            'continued': _numpy(mod.get_params()[0]),
            # (MXNet's load_optimizer_states also leaves its file open: a ResourceWarning)
            'warnings': sorted(w.category.__name__ for w in caught
                               if issubclass(w.category, UserWarning))}


def _errors(mx):
    """The exception type of each misuse, or 'ok'."""
    def outcome(action):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter('ignore')
                action()
        except Exception as exc:  # the type is the outcome compared
            return 'MXNetError' if type(exc).__name__ == 'MXNetError' else type(exc).__name__
        return 'ok'

    net = mx.sym.FullyConnected(mx.sym.Variable('data'), name='fc', num_hidden=2)
    batch = mx.io.DataBatch(data=[mx.nd.ones((3, 4))], label=None)

    def fresh(bind=False, init=False):
        mod = mx.mod.Module(net, label_names=None)
        if bind:
            mod.bind(data_shapes=[('data', (3, 4))])
        if init:
            mod.init_params()
        return mod

    def backward_without_head():
        mod = fresh(True, True)
        mod.forward(batch, is_train=True)
        mod.backward()

    return {
        'data_name_not_in_symbol': outcome(lambda: mx.mod.Module(net, data_names=('x',))),
        'forward_before_bind': outcome(lambda: fresh().forward(batch)),
        'init_params_before_bind': outcome(lambda: fresh().init_params()),
        'get_params_before_init': outcome(lambda: fresh(True).get_params()),
        'init_optimizer_before_init': outcome(lambda: fresh(True).init_optimizer()),
        'update_before_init_optimizer': outcome(lambda: fresh(True, True).update()),
        'input_grads_not_bound': outcome(lambda: fresh(True, True).get_input_grads()),
        'fit_without_num_epoch': outcome(lambda: fresh().fit(mx.io.NDArrayIter(
            mx.nd.ones((3, 4)), batch_size=3))),
        'predict_of_a_list': outcome(lambda: fresh(True, True).predict([1, 2])),
        'backward_without_head': outcome(backward_without_head),
    }


def run(mx, case):
    """The outcomes of ``case`` on package ``mx`` (mxnet or gluonedu), JSON-able."""
    outcome = {'lr_wd_mult': _lr_wd_mult, 'nadam_fit': _nadam_fit,
               'fixed_params_pad': _fixed_params_pad, 'batchnorm_mults': _batchnorm_mults,
               'checkpoint': _checkpoint, 'errors': _errors}[case](mx)
    return json.loads(json.dumps(outcome))


if __name__ == '__main__':  # the oracle's side, run by oracle_main.py
    import mxnet

    import oracle_io

    results = {case: np.array(json.dumps(run(mxnet, case))) for case in CASES}
    oracle_io.save_results(results)
