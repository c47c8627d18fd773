"""The cases of the symbol parity suite: symbols, graphs, hybridize, export and import.

Each case is Python code run on MXNet 1.9.1 and on gluonedu (``symbol_driver.run_case``)
with ``mx`` bound to either; what it puts in ``out`` must agree. The JSON of graphs is
compared as text: gluonedu writes MXNet's files byte for byte.

Cases of ``phase`` 1 write files that the other side reads: gluonedu runs them before the
oracle does anything, and the oracle runs every case in order, so each side finds the
other's files. The inputs (:func:`make_inputs`) are seeded arrays both sides share.
"""
import numpy as np

#: Helpers every case can use (defined identically on both sides).
PRELUDE = '''
def fill(block, seed=0):
    """Deterministic Parameter values, by sorted name (variances kept positive)."""
    rng = np.random.RandomState(seed)
    params = block.collect_params()
    for name in sorted(params.keys()):
        p = params[name]
        value = rng.normal(0, 0.3, p.shape)
        if name.endswith('var'):
            value = np.abs(value) + 0.5
        p.set_data(mx.nd.array(value, dtype=p.dtype))


def mlp(in_units=5, hybridize=True, dtype='float32'):
    net = mx.gluon.nn.HybridSequential()
    with net.name_scope():
        net.add(mx.gluon.nn.Dense(8, activation='relu', in_units=in_units, dtype=dtype))
        net.add(mx.gluon.nn.Dense(3, in_units=8, dtype=dtype))
    net.initialize()
    fill(net)
    if hybridize:
        net.hybridize()
    return net


def cnn(hybridize=True):
    net = mx.gluon.nn.HybridSequential()
    with net.name_scope():
        net.add(mx.gluon.nn.Conv2D(4, 3, padding=1, activation='relu'),
                mx.gluon.nn.BatchNorm(),
                mx.gluon.nn.MaxPool2D(2),
                mx.gluon.nn.Conv2D(3, 2, strides=1, use_bias=False),
                mx.gluon.nn.GlobalAvgPool2D(),
                mx.gluon.nn.Flatten(),
                mx.gluon.nn.Dense(3))
    net.initialize()
    net(mx.nd.array(inputs['images']))  # deferred shapes
    fill(net)
    if hybridize:
        net.hybridize()
    return net


def grads_of(block):
    return {name: p.grad().asnumpy() for name, p in block.collect_params().items()
            if p.grad_req != 'null'}


def output_and_grads(net, x):
    """``{'y', 'dx', 'd<param>'...}`` of ``sum(net(x)²)`` under autograd."""
    x.attach_grad()
    with mx.autograd.record():
        y = net(x)
        loss = (y * y).sum()
    loss.backward()
    result = {'y': y, 'dx': x.grad}
    result.update(('d' + name, g) for name, g in grads_of(net).items())
    return result


def files(prefix):
    return os.path.join(workdir, prefix)
'''


def _case(case_id, code, phase=2):
    return {'id': case_id, 'code': code, 'phase': phase}


CASES = [
    # ------------------------------------------------------------------ symbols
    _case('mlp_graph', '''
data = mx.sym.var('data')
fc1 = mx.sym.FullyConnected(data, num_hidden=16, name='fc1')
act = mx.sym.Activation(fc1, act_type='relu', name='relu1')
fc2 = mx.sym.FullyConnected(act, num_hidden=4, no_bias=True, name='fc2')
net = mx.sym.softmax(fc2, axis=-1)
out['json'] = net.tojson()
out['arguments'] = net.list_arguments()
out['outputs'] = net.list_outputs()
out['inputs'] = net.list_inputs()
out['aux'] = net.list_auxiliary_states()
out['internals'] = net.get_internals().list_outputs()
out['children'] = net.get_children().list_outputs()
out['attr_dict'] = net.attr_dict()
out['name'] = net.name
out['repr'] = repr(net)
out['reload'] = mx.sym.load_json(net.tojson()).tojson() == net.tojson()
'''),
    _case('arithmetic', '''
a, b = mx.sym.var('a'), mx.sym.var('b')
exprs = [a + b, a - 1, 1 - a, a * 2, 2 * a, a / 2, 2 / a, a ** 2, 2 ** a, a ** b, -a, abs(a),
         a == b, a == 1, 1 == a, a != b, a < b, a <= 1, a > 1, a >= b, a % 2, 3 % a, a % b,
         mx.sym.maximum(a, b), mx.sym.maximum(a, 1), mx.sym.minimum(2, a), mx.sym.pow(a, 2),
         mx.sym.pow(2, a), mx.sym.power(a, b), mx.sym.hypot(a, b)]
out['names'] = [e.name for e in exprs]
out['json'] = mx.sym.Group(exprs).tojson()
values = mx.sym.Group(exprs).eval(a=mx.nd.array(inputs['pos']), b=mx.nd.array(inputs['pos2']))
for i, v in enumerate(values):
    out['value%d' % i] = v
'''),
    _case('automatic_names', '''
s1 = mx.sym.FullyConnected(num_hidden=3)
s2 = mx.sym.FullyConnected(s1, num_hidden=2)
s3 = mx.sym.relu(s2)
s4 = mx.sym.Activation(s3, act_type='tanh', name='act')
s5 = mx.sym.Concat(s4, s4, dim=1)
out['arguments'] = s5.list_arguments()
out['json'] = s5.tojson()
with mx.name.Prefix('net_'):
    s6 = mx.sym.FullyConnected(mx.sym.var('x'), num_hidden=2)
out['prefixed'] = s6.list_arguments() + s6.list_outputs()
'''),
    _case('variables', '''
import json as _json
v = mx.sym.var('w', shape=(3, 0), dtype='float16', lr_mult=2, wd_mult=0.5,
               init=mx.init.Xavier(magnitude=2), stype='row_sparse', __foo__='bar')
out['attrs'] = v.list_attr()
out['attr'] = [v.attr('__shape__'), v.attr('__dtype__'), v.attr('missing')]
out['json'] = v.tojson()
with mx.AttrScope(__group__='g1', __lr_mult__='0.1'):
    w = mx.sym.var('w2')
    fc = mx.sym.FullyConnected(w, num_hidden=2, name='fc', attr={'__mood__': 'x'})
out['scoped'] = fc.attr_dict()
fc._set_attr(__note__='n')
out['set'] = fc.list_attr()
'''),
    _case('operator_hidden_keys', '''
data = mx.sym.Variable('data')
bias = mx.sym.Variable('fc1_bias', lr_mult=1.0)
fc1 = mx.sym.FullyConnected(data=data, bias=bias, name='fc1', num_hidden=10, lr_mult=0)
fc2 = mx.sym.FullyConnected(data=fc1, name='fc2', num_hidden=10, wd_mult=0.5,
                            ctx_group='dev1')
out['attr_dict'] = fc2.attr_dict()
out['list_attr'] = fc1.list_attr()
out['json'] = fc2.tojson()
'''),
    _case('variable_attribute_errors', '''
mx.sym.var('w', colour='red')
'''),
    _case('groups_and_outputs', '''
x = mx.sym.var('x')
parts = mx.sym.split(x, num_outputs=3, axis=1, name='sp')
g = mx.sym.Group([parts[2], mx.sym.relu(parts[0], name='r'), x])
out['parts'] = [len(parts), parts.list_outputs(), parts.name, repr(parts[1])]
out['group'] = [g.list_outputs(), g.name, repr(g), len(g)]
out['by_name'] = parts['sp_output1'].list_outputs()
out['sliced'] = parts[1:].list_outputs()
out['iter'] = [s.list_outputs() for s in parts]
out['children'] = repr(x.get_children())
out['json'] = g.tojson()
values = g.eval(x=mx.nd.array(inputs['x6']))
out['values'] = [v.asnumpy().tolist() for v in values]
'''),
    _case('compose', '''
data = mx.sym.var('data')
net1 = mx.sym.FullyConnected(data, name='fc1', num_hidden=10)
net2 = mx.sym.FullyConnected(name='fc3', num_hidden=10)
composed = net2(fc3_data=net1, name='composed')
out['arguments'] = composed.list_arguments()
out['json'] = composed.tojson()
'''),
    _case('compose_positional', '''
net1 = mx.sym.FullyConnected(mx.sym.var('data'), name='fc1', num_hidden=10)
mx.sym.relu(mx.sym.var('z'))(net1)
'''),
    _case('infer_shape', '''
data = mx.sym.var('data')
fc = mx.sym.FullyConnected(data, num_hidden=4, name='fc')
emb = mx.sym.Embedding(mx.sym.var('ids'), input_dim=7, output_dim=3, name='emb')
net = mx.sym.Group([mx.sym.softmax(fc), mx.sym.sum(emb, axis=1, keepdims=True),
                    mx.sym.Reshape(fc, shape=(-1, 2, 0), reverse=True),
                    mx.sym.transpose(mx.sym.expand_dims(fc, axis=1)),
                    mx.sym.Concat(fc, fc, dim=0), mx.sym.flatten(emb),
                    mx.sym.dot(fc, mx.sym.var('m'), transpose_b=True),
                    mx.sym.broadcast_add(fc, mx.sym.var('row', shape=(1, 4))),
                    mx.sym.argmax(emb, axis=-1), mx.sym.one_hot(mx.sym.var('ids'), depth=5),
                    mx.sym.tile(fc, reps=(2, 1, 3)), mx.sym.repeat(fc, repeats=2),
                    mx.sym.topk(fc, k=2, ret_typ='both', axis=0),
                    mx.sym.sort(fc, axis=None), mx.sym.stack(fc, fc, axis=1),
                    mx.sym.slice_axis(fc, axis=1, begin=1, end=3),
                    mx.sym.take(mx.sym.var('table', shape=(9, 2)), mx.sym.var('ids'))])
args, outs, aux = net.infer_shape(data=(6, 2, 5), ids=(6, 2), m=(3, 4))
out['arguments'] = net.list_arguments()
out['shapes'] = [args, outs, aux]
small = mx.sym.Group([mx.sym.relu(fc), emb, mx.sym.Concat(fc, fc, dim=0)])
out['partial'] = list(small.infer_shape_partial(data=(0, 10)))
out['partial_ids'] = list(small.infer_shape_partial(ids=(3, 0)))
with_warning = list(fc.infer_shape())
out['undecided'] = with_warning
out['types'] = [[None if t is None else np.dtype(t).name for t in group]
                for group in net.infer_type(data='float64', ids='int32', m='float64',
                                            table='float64', row='float64')]
'''),
    _case('infer_shape_contradiction', '''
a, b = mx.sym.var('a'), mx.sym.var('b')
(a + b).infer_shape(a=(2, 5), b=(2, 4))
'''),
    _case('infer_shape_unknown_name', '''
mx.sym.FullyConnected(mx.sym.var('a'), num_hidden=3).infer_shape(b=(2, 5))
'''),
    _case('infer_shape_weight_mismatch', '''
fc = mx.sym.FullyConnected(mx.sym.var('a'), num_hidden=3, name='fc')
fc.infer_shape(a=(2, 5), fc_weight=(3, 4))
'''),
    _case('bind_forward_backward', '''
data = mx.sym.var('data')
fc = mx.sym.FullyConnected(data, num_hidden=3, name='fc')
loss = mx.sym.sum(mx.sym.square(mx.sym.tanh(fc)))
ex = loss.simple_bind(mx.cpu(), data=(4, 5))
out['arg_names'] = sorted(ex.arg_dict)
ex.arg_dict['data'][:] = mx.nd.array(inputs['x'])
ex.arg_dict['fc_weight'][:] = mx.nd.array(inputs['w35'])
ex.arg_dict['fc_bias'][:] = mx.nd.array([0.1, -0.2, 0.3])
y = ex.forward(is_train=True)
ex.backward(mx.nd.ones((1,)))
out['loss'] = y[0]
for name, g in ex.grad_dict.items():
    out['grad_' + name] = g
args = {'data': mx.nd.array(inputs['x']), 'fc_weight': mx.nd.array(inputs['w35']),
        'fc_bias': mx.nd.zeros((3,))}
grads = {k: mx.nd.ones(v.shape) for k, v in args.items()}
ex2 = loss.bind(mx.cpu(), args, args_grad=grads, grad_req={'data': 'null', 'fc_weight': 'add',
                                                           'fc_bias': 'write'})
ex2.forward(is_train=True)
ex2.backward([mx.nd.array([0.5])])
out['added_weight_grad'] = grads['fc_weight']
out['kept_data_grad'] = grads['data']
out['eval'] = fc.eval(ctx=mx.cpu(), **args)[0]
'''),
    _case('get_symbol', '''
x = mx.nd.array(inputs['x'])
w = mx.nd.array(inputs['w35'])
x.attach_grad()
w.attach_grad()
with mx.autograd.record():
    y = mx.nd.relu(mx.nd.FullyConnected(x, w, no_bias=True, num_hidden=3)) * 2
s = mx.autograd.get_symbol(y)
# var<n>, node_<n>: numbered by process-wide counters, compared relative to the first
names = s.list_arguments()
out['arguments'] = [int(n[len('var'):]) - int(names[0][len('var'):]) for n in names]
out['outputs'] = [n.split('_')[2] for n in s.list_outputs()]
out['ops'] = [n['op'] for n in json.loads(s.tojson())['nodes']]
out['value'] = s.eval(**dict(zip(names, [x, w])))[0]
'''),
    _case('batchnorm_output_mean_var', '''
data = mx.sym.var('data')
for flag in (False, True):
    bn = mx.sym.BatchNorm(data, name='bn', output_mean_var=flag)
    out['outputs_%s' % flag] = bn.list_outputs()
    out['internals_%s' % flag] = bn.get_internals().list_outputs()
'''),
    _case('batchnorm_infer_type', '''
data = mx.sym.var('data')
for flag in (False, True):
    bn = mx.sym.BatchNorm(data, name='bn', output_mean_var=flag)
    for dtype in ('float16', 'float32', 'float64'):
        out['%s_%s' % (flag, dtype)] = [[np.dtype(t).name for t in group]
                                        for group in bn.infer_type(data=dtype)]
'''),
    # ------------------------------------------------------------------ Gluon on symbols
    _case('dense_on_symbols', '''
model = mx.gluon.nn.Dense(128, activation='tanh', in_units=10, flatten=False, prefix='test_')
outputs = model(mx.sym.var('data'))
out['params'] = sorted(model.collect_params().keys())
out['outputs'] = outputs.list_outputs()
out['shapes'] = list(outputs.infer_shape(data=(2, 3, 10)))
out['json'] = outputs.tojson()
seq = mx.gluon.nn.HybridSequential()
seq.add(mx.gluon.nn.Dense(8, activation='relu'), mx.gluon.nn.Dropout(0.5),
        mx.gluon.nn.Dense(4), mx.gluon.nn.Activation('sigmoid'))
s = seq(mx.sym.var('data'))
out['seq_arguments'] = s.list_arguments()
out['seq_internals'] = s.get_internals().list_outputs()
out['seq_json'] = s.tojson()
'''),
    _case('hybridized_export_files', '''
net = mx.gluon.nn.HybridSequential()
with net.name_scope():
    net.add(mx.gluon.nn.Dense(4, activation='relu'))
    net.add(mx.gluon.nn.Dense(2))
net.initialize()
net.hybridize()
y = net(mx.nd.array(inputs['x']))
net.export(files('layout_' + side), epoch=7)
with open(files('layout_' + side) + '-symbol.json') as f:
    out['symbol_file'] = f.read()
out['params_keys'] = sorted(mx.nd.load(files('layout_' + side) + '-0007.params'))
out['shapes'] = {k: list(p.shape) for k, p in net.collect_params().items()}
'''),
    _case('hybrid_matches_imperative', '''
net = mlp()
out.update(output_and_grads(net, mx.nd.array(inputs['x'])))
out['y_other_shape'] = net(mx.nd.array(inputs['x6'][:, :5])).shape
'''),
    _case('deferred_init_through_graph', '''
net = mx.gluon.nn.HybridSequential()
with net.name_scope():
    net.add(mx.gluon.nn.Dense(6, activation='tanh'))
    net.add(mx.gluon.nn.Dense(2, use_bias=False))
net.initialize(mx.init.Xavier())
net.hybridize()
y = net(mx.nd.array(inputs['x']))
out['shapes'] = {k: list(p.shape) for k, p in net.collect_params().items()}
out['y_shape'] = list(y.shape)
fill(net)
out['y'] = net(mx.nd.array(inputs['x']))
'''),
    _case('multi_io_block', '''
class Pair(mx.gluon.HybridBlock):
    def __init__(self, **kwargs):
        super(Pair, self).__init__(**kwargs)
        with self.name_scope():
            self.dense = mx.gluon.nn.Dense(3, in_units=5)

    def hybrid_forward(self, F, a, b):
        h = self.dense(a)
        return [h + b, F.split(h, num_outputs=3, axis=1)]

net = Pair()
net.initialize()
fill(net)
net.hybridize()
a, b = mx.nd.array(inputs['x']), mx.nd.array(inputs['x'][:, :3])
first, parts = net(a, b)
out['first'] = first
for i, p in enumerate(parts):
    out['part%d' % i] = p
net.export(files('pair_' + side))
with open(files('pair_' + side) + '-symbol.json') as f:
    out['symbol_file'] = f.read()
'''),
    _case('symbol_block_features', '''
net = mlp(hybridize=False)
data = mx.sym.var('data')
internals = net(data).get_internals()
out['internals'] = internals.list_outputs()
feat = mx.gluon.SymbolBlock([internals['hybridsequential0_dense0_relu_fwd_output'],
                             internals['hybridsequential0_dense1_fwd_output']], data,
                            params=net.collect_params())
hidden, final = feat(mx.nd.array(inputs['x']))
out['hidden'] = hidden
out['final'] = final
out['symbolic'] = [s.list_outputs() for s in feat(mx.sym.var('in'))]
'''),
    _case('train_hybridized', '''
# float32 for three steps (rounding differences of the matrix products grow with every
# step of a momentum method), float64 for ten; hybridized and imperative.
for dtype, steps, hybrid in (('float32', 3, True), ('float64', 10, True),
                             ('float64', 10, False)):
    net = mlp(dtype=dtype, hybridize=hybrid)
    trainer = mx.gluon.Trainer(net.collect_params(), 'sgd',
                               {'learning_rate': 0.1, 'momentum': 0.9, 'wd': 1e-3})
    loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()
    x = mx.nd.array(inputs['x'], dtype=dtype)
    label = mx.nd.array(inputs['label'], dtype=dtype)
    for step in range(steps):
        with mx.autograd.record():
            loss = loss_fn(net(x), label)
        loss.backward()
        trainer.step(x.shape[0])
        tag = '%s_%s' % (dtype, 'hybrid' if hybrid else 'imperative')
        out['%s_loss%d' % (tag, step)] = loss
        for name, p in net.collect_params().items():
            out['%s_%s_step%d' % (tag, name.split('_', 1)[1], step)] = p.data()
'''),
    _case('trace_once_and_hooks', '''
calls, hooks = [], []

class Net(mx.gluon.HybridBlock):
    def __init__(self, **kwargs):
        super(Net, self).__init__(**kwargs)
        with self.name_scope():
            self.dense = mx.gluon.nn.Dense(3)

    def hybrid_forward(self, F, x):
        calls.append(type(x).__name__)
        return self.dense(x)

net = Net()
net.initialize(mx.init.One())
net.dense.register_forward_hook(lambda b, i, o: hooks.append(
    ['child', type(i[0]).__name__, type(o).__name__]))
net.register_forward_hook(lambda b, i, o: hooks.append(
    ['top', type(i[0]).__name__, type(o).__name__]))
net.register_forward_pre_hook(lambda b, i: hooks.append(['pre', type(i[0]).__name__]))
net.hybridize()
net(mx.nd.ones((2, 4)))
net(mx.nd.ones((2, 4)))
out['first_calls'] = list(calls)
out['hooks'] = hooks
out['other_batch'] = net(mx.nd.ones((5, 4)))
out['calls_after_new_shape'] = list(calls)
out['float64'] = net(mx.nd.ones((2, 4), dtype='float64'))
out['calls_after_new_dtype'] = list(calls)
'''),
    _case('trace_after_input_width_changes', '''
net = mx.gluon.nn.Dense(3)
net.initialize()
net.hybridize()
net(mx.nd.ones((2, 4)))
net(mx.nd.ones((2, 6)))
'''),
    _case('stale_cache', '''
calls = []

class Net(mx.gluon.HybridBlock):
    def __init__(self, **kwargs):
        super(Net, self).__init__(**kwargs)
        with self.name_scope():
            self.dense = mx.gluon.nn.Dense(3, in_units=4)

    def hybrid_forward(self, F, x):
        calls.append(1)
        return self.dense(x)

net = Net()
net.initialize()
fill(net)
net.hybridize()
x = mx.nd.array(inputs['x'][:, :4])
out['before'] = net(x)
net.dense.weight.set_data(mx.nd.array(inputs['w35'][:, :4]))
net.dense.bias.set_data(mx.nd.array([1, 2, 3]))
out['after_set_data'] = net(x)
with mx.name.Prefix('r_'):
    net.dense = mx.gluon.nn.Dense(2, in_units=4)
net.dense.initialize(mx.init.One())
out['after_replace'] = net(x)
net.hybridize(active=False)
out['imperative'] = net(x)
net.hybridize()
out['again'] = net(x)
net.cast('float64')
out['cast'] = net(x.astype('float64'))
out['traces'] = len(calls)
'''),
    _case('several_contexts', '''
net = mlp(hybridize=False)
net.collect_params().reset_ctx([mx.cpu(0), mx.cpu(1)])
net.hybridize()
x = mx.nd.array(inputs['x'])
out['y0'] = net(x)
y1 = net(x.as_in_context(mx.cpu(1)))
out['y1'] = y1
out['y1_ctx'] = str(y1.context)
with mx.autograd.record():
    loss = (net(x.as_in_context(mx.cpu(1))) ** 2).sum()
loss.backward()
out['grad1'] = net.collect_params()['hybridsequential0_dense0_weight'].grad(mx.cpu(1))
out['grad0_zero'] = net.collect_params()['hybridsequential0_dense0_weight'].grad(mx.cpu(0))
'''),
    _case('several_contexts_in_one_call', '''
class Two(mx.gluon.HybridBlock):
    def hybrid_forward(self, F, a, b):
        return a + b

net = Two()
net.hybridize()
net(mx.nd.ones((2, 4), ctx=mx.cpu(0)), mx.nd.ones((2, 4), ctx=mx.cpu(1)))
'''),
    _case('export_before_forward', '''
net = mlp()
net.export(files('never_' + side))
'''),
    _case('print_summary', '''
import contextlib, io
net = mx.gluon.nn.HybridSequential()
with net.name_scope():
    net.add(mx.gluon.nn.Dense(8, activation='relu'), mx.gluon.nn.Dropout(0.5),
            mx.gluon.nn.Dense(4, use_bias=False), mx.gluon.nn.Embedding(5, 3))
s = net(mx.sym.var('data'))
s = mx.sym.Concat(s, mx.sym.split(s, num_outputs=2, axis=1)[1], dim=1)
for i, kwargs in enumerate([{'shape': {'data': (2, 6)}}, {},
                            {'shape': {'data': (2, 6)}, 'line_length': 80,
                             'positions': [30, 50, 60, 80]}]):
    text = io.StringIO()
    with contextlib.redirect_stdout(text):
        mx.viz.print_summary(s, **kwargs)
    out['table%d' % i] = text.getvalue()
'''),
    _case('print_summary_not_a_symbol', '''
mx.viz.print_summary(mx.nd.ones((2, 3)))
'''),
    _case('symbol_block_with_missing_params', '''
net = mlp()
net(mx.nd.array(inputs['x']))
net.export(files('missing_' + side))
mx.gluon.SymbolBlock.imports(files('missing_' + side) + '-symbol.json', ['data'])(
    mx.nd.array(inputs['x']))
'''),
    _case('symbol_block_wrong_input_name', '''
mx.gluon.SymbolBlock.imports(files('mlp_' + other) + '-symbol.json', ['x'],
                             files('mlp_' + other) + '-0003.params')
'''),
    _case('cnn_hybrid_matches_imperative', '''
x = mx.nd.array(inputs['images'])
for hybrid in (False, True):
    net = cnn(hybridize=hybrid)
    x.attach_grad()
    with mx.autograd.record():
        y = net(x)
        loss = (y * y).sum()
    loss.backward()
    tag = 'hybrid_' if hybrid else 'imperative_'
    out[tag + 'y'] = y
    out[tag + 'dx'] = x.grad
    for name, p in net.collect_params().items():
        if p.grad_req != 'null':
            out[tag + 'd' + name] = p.grad()
        else:  # running statistics, updated by the training forward
            out[tag + name] = p.data()
    out[tag + 'predict'] = net(x)
s = cnn(hybridize=False)(mx.sym.var('data'))
out['json'] = s.tojson()
out['aux'] = s.list_auxiliary_states()
out['shapes'] = list(s.infer_shape(data=(2, 1, 6, 6)))
'''),
    _case('cnn_deferred_through_graph', '''
net = mx.gluon.nn.HybridSequential()
with net.name_scope():
    net.add(mx.gluon.nn.Conv2D(5, (3, 2)), mx.gluon.nn.BatchNorm(),
            mx.gluon.nn.AvgPool2D(2, ceil_mode=True), mx.gluon.nn.Dense(2))
net.initialize()
net.hybridize()
y = net(mx.nd.array(inputs['images']))
out['shapes'] = {k: list(p.shape) for k, p in net.collect_params().items()}
out['y_shape'] = list(y.shape)
'''),
    _case('sparse_symbol_block', '''
data = mx.sym.var('data')
weight = mx.sym.var('weight', stype='row_sparse')
out_sym = mx.sym.broadcast_add(mx.sym.dot(data, weight), mx.sym.var('bias'))
mx.gluon.SymbolBlock(out_sym, data)
'''),
    _case('hybridize_flags', '''
net = mlp(hybridize=False)
x = mx.nd.array(inputs['x'])
out['imperative'] = net(x)
net.hybridize(static_alloc=True, static_shape=True)
out['static'] = net(x)
out['static_again'] = net(x)
'''),
    # ------------------------------------------------------------------ files, both ways
    _case('export_mlp', '''
net = mlp()
x = mx.nd.array(inputs['x'])
out['y'] = net(x)
net.export(files('mlp_' + side), epoch=3)
''', phase=1),
    _case('export_cnn', '''
net = cnn()
out['y'] = net(mx.nd.array(inputs['images']))
net.export(files('cnn_' + side), epoch=1)
''', phase=1),
    _case('import_other_cnn', '''
net = mx.gluon.SymbolBlock.imports(files('cnn_' + other) + '-symbol.json', ['data'],
                                   files('cnn_' + other) + '-0001.params')
x = mx.nd.array(inputs['images'])
out['predict'] = net(x)
out.update(output_and_grads(net, x))
out['params'] = sorted(net.collect_params().keys())
'''),
    _case('nd_save_files', '''
arrays = {'w': mx.nd.array(inputs['w35']), 'i': mx.nd.array([[1, 2], [3, 4]], dtype='int64'),
          'h': mx.nd.array(inputs['x'], dtype='float16'),
          'b': mx.nd.array([1, 0, 1], dtype='uint8'),
          'rsp': mx.nd.array(inputs['sparse']).tostype('row_sparse')}
mx.nd.save(files('dict_' + side + '.params'), arrays,
           **({'format': 'mxnet'} if side == 'gluonedu' else {}))
mx.nd.save(files('list_' + side + '.params'), [arrays['w'], arrays['i']],
           **({'format': 'mxnet'} if side == 'gluonedu' else {}))
''', phase=1),
    _case('load_other_nd_files', '''
loaded = mx.nd.load(files('dict_' + other + '.params'))
out['keys'] = sorted(loaded)
for k, v in loaded.items():
    out[k] = v.tostype('default') if v.stype != 'default' else v
    out[k + '_stype'] = v.stype
    out[k + '_dtype'] = np.dtype(v.dtype).name
out['list'] = [v.asnumpy().tolist() for v in mx.nd.load(files('list_' + other + '.params'))]
'''),
    _case('import_other_mlp', '''
net = mx.gluon.SymbolBlock.imports(files('mlp_' + other) + '-symbol.json', ['data'],
                                   files('mlp_' + other) + '-0003.params')
out.update(output_and_grads(net, mx.nd.array(inputs['x'])))
out['params'] = sorted(net.collect_params().keys())
'''),
    _case('import_other_on_two_contexts', '''
net = mx.gluon.SymbolBlock.imports(files('mlp_' + other) + '-symbol.json', ['data'],
                                   files('mlp_' + other) + '-0003.params',
                                   ctx=[mx.cpu(0), mx.cpu(1)])
x = mx.nd.array(inputs['x'])
out['y0'] = net(x)
y1 = net(x.as_in_context(mx.cpu(1)))
out['y1'] = y1
out['y1_ctx'] = str(y1.context)
out['contexts'] = [str(c) for c in list(net.collect_params().values())[0].list_ctx()]
'''),
    _case('import_other_and_train', '''
net = mx.gluon.SymbolBlock.imports(files('mlp_' + other) + '-symbol.json', ['data'],
                                   files('mlp_' + other) + '-0003.params')
trainer = mx.gluon.Trainer(net.collect_params(), 'adam', {'learning_rate': 0.01})
x, label = mx.nd.array(inputs['x']), mx.nd.array(inputs['label'])
loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()
for step in range(3):
    with mx.autograd.record():
        loss = loss_fn(net(x), label)
    loss.backward()
    trainer.step(x.shape[0])
for name, p in net.collect_params().items():
    out[name] = p.data()
'''),
    _case('load_parameters_from_export', '''
net = mlp(hybridize=False)
for p in net.collect_params().values():
    p.set_data(p.data() * 0)
net.collect_params().load(files('mlp_' + other) + '-0003.params')
out['y'] = net(mx.nd.array(inputs['x']))
'''),
    _case('save_parameters_file', '''
net = mlp(hybridize=False)
if side == 'mxnet':
    net.save_parameters(files('saved_mxnet.params'))
''', phase=1),
    _case('load_parameters_from_mxnet', '''
net = mlp(hybridize=False, in_units=5)
for p in net.collect_params().values():
    p.set_data(p.data() * 0)
net.load_parameters(files('saved_mxnet.params'))
out['y'] = net(mx.nd.array(inputs['x']))
'''),
    _case('legacy_json_without_parameters', '''
graph = {'nodes': [{'op': 'null', 'name': 'x', 'inputs': []},
                   {'op': 'FullyConnected', 'name': 'f', 'attrs': {'num_hidden': '3'},
                    'inputs': [[0, 0, 0]]}],
         'arg_nodes': [0], 'heads': [[1, 0, 0]]}
s = mx.sym.load_json(json.dumps(graph))
out['arguments'] = s.list_arguments()
out['json'] = s.tojson()
out['shapes'] = list(s.infer_shape(x=(2, 4)))
'''),
    _case('json_not_json', '''
mx.sym.load_json('not json')
'''),
    _case('json_top_level_list', '''
mx.sym.load_json('[1, 2]')
'''),
    _case('json_unknown_operator', '''
mx.sym.load_json(json.dumps({'nodes': [{'op': 'null', 'name': 'x', 'inputs': []},
                                       {'op': 'Frobnicate', 'name': 'f', 'inputs': [[0, 0, 0]]}],
                             'arg_nodes': [0], 'heads': [[1, 0, 0]]}))
'''),
    _case('json_bad_parameter', '''
mx.sym.load_json(json.dumps({'nodes': [{'op': 'null', 'name': 'x', 'inputs': []},
                                       {'op': 'FullyConnected', 'name': 'f',
                                        'attrs': {'num_hidden': 'abc'}, 'inputs': [[0, 0, 0]]}],
                             'arg_nodes': [0], 'heads': [[1, 0, 0]]}))
'''),
    _case('json_head_out_of_range', '''
mx.sym.load_json(json.dumps({'nodes': [{'op': 'null', 'name': 'x', 'inputs': []}],
                             'arg_nodes': [0], 'heads': [[5, 0, 0]]}))
'''),
    _case('params_truncated', '''
mx.nd.save(files('whole_' + side + '.params'), {'a': mx.nd.ones((3, 4))},
           **({'format': 'mxnet'} if side == 'gluonedu' else {}))
with open(files('whole_' + side + '.params'), 'rb') as f:
    data = f.read()
with open(files('cut_' + side + '.params'), 'wb') as f:
    f.write(data[:60])
mx.nd.load(files('cut_' + side + '.params'))
'''),
    _case('params_huge_count', '''
import struct
with open(files('huge_' + side + '.params'), 'wb') as f:
    f.write(struct.pack('<QQQ', 0x112, 0, 2 ** 64 - 1))
mx.nd.load(files('huge_' + side + '.params'))
'''),
    _case('params_huge_shape', '''
import struct
with open(files('bigshape_' + side + '.params'), 'wb') as f:
    f.write(struct.pack('<QQQ', 0x112, 0, 1) + struct.pack('<Iii', 0xF993FAC9, 0, 2)
            + struct.pack('<qq', 10 ** 9, 10 ** 9) + struct.pack('<iii', 1, 0, 0))
mx.nd.load(files('bigshape_' + side + '.params'))
'''),
    _case('params_garbage', '''
with open(files('garbage_' + side + '.params'), 'wb') as f:
    f.write(b'hello, these are not parameters')
mx.nd.load(files('garbage_' + side + '.params'))
'''),

]


def make_inputs():
    """Seeded arrays both sides read."""
    rng = np.random.RandomState(13)
    sparse = rng.normal(size=(6, 2)).astype(np.float32)
    sparse[[1, 3, 4]] = 0
    return {
        'x': rng.normal(size=(4, 5)).astype(np.float32),
        'x6': rng.normal(size=(4, 6)).astype(np.float32),
        'w35': rng.normal(size=(3, 5)).astype(np.float32),
        'pos': rng.uniform(0.5, 2.0, size=(3, 4)).astype(np.float32),
        'pos2': rng.uniform(0.5, 2.0, size=(3, 4)).astype(np.float32),
        'label': np.array([0, 2, 1, 2], dtype=np.float32),
        'sparse': sparse,
        'images': rng.normal(size=(2, 1, 6, 6)).astype(np.float32),
    }
