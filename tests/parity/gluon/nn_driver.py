"""Runs one layer-operator or Gluon-layer parity case against ``mx`` — MXNet 1.9.1 or gluonedu.

Both sides execute this same code (the oracle passes ``mxnet``, the tests ``gluonedu``),
so arrays are drawn, operators called, layers built, initialised and differentiated
through identical calls; only the numbers can differ. It imports neither package and
runs on NumPy 1.23 and 2 (inputs come from ``np.random.RandomState``, whose streams are
the same in both).

Operator case (:func:`op_cases`)::

    {"id": "Convolution-2d-07", "kind": "op", "op": "Convolution",
     "inputs": [["data", [2, 3, 7, 6], "dyadic"], ["weight", ...], ...],
     "params": {...}, "mode": "train" | "predict", "exact": true | false,
     "grads": true, "seed": 7, "error": null | ["(7, 7)", ...]}

``exact`` cases draw small dyadic numbers (multiples of 1/4 in [-1, 1]) whose products
and sums are exact in float32, so values and gradients must match bit for bit.
``error`` lists texts our message must contain; both sides must raise.

Layer case (:func:`layer_cases`): ``{"kind": "layer", "layer": "Conv2D",
"namespace": "nn" | "contrib.nn" | "vision", "args": [...], "kwargs": {...},
"input": [shape...] | null, "seed": ...}``; the layer is built inside a
``HybridSequential(prefix='net_')`` so its parameter names do not depend on what was
built before.

Results (:func:`run_case`): ``{name: array}`` — ``out<i>``, ``grad_<input>``,
``aux_<input>`` for BatchNorm's running statistics, ``param_<name>`` and ``pgrad_<name>``
for layers — and ``info``, a string array holding JSON (parameter names, shapes and
grad_req, reprs). A case that raises raises: the oracle records its error, the test
compares it with ours.
"""
import json

import numpy as np

import nn_cases_convspeed  # (this directory: cases for the fast convolution kernels)

# ---------------------------------------------------------------------- inputs
DISTRIBUTIONS = ('normal', 'dyadic', 'distinct', 'positive', 'uniform')


def draw(rng, shape, dist):
    """Seeded float64 values: see the module docstring for 'dyadic'."""
    if dist == 'normal':
        return rng.standard_normal(shape)
    if dist == 'dyadic':
        return rng.randint(-4, 5, size=shape) / 4.0
    if dist == 'distinct':  # no ties (max pooling picks a unique winner)
        size = int(np.prod(shape))
        return (rng.permutation(size).reshape(shape) - size / 2.0) / 8.0
    if dist == 'positive':
        return rng.uniform(0.5, 2.0, size=shape)
    return rng.uniform(-1.0, 1.0, size=shape)


# ---------------------------------------------------------------------- operator cases
def _conv_cases(rng, op, count):
    cases = []
    for i in range(count):
        nd = (1, 2, 3)[i % 3]
        groups = int(rng.choice([1, 1, 2, 3]))
        kernel = [int(k) for k in rng.randint(1, 4 if nd < 3 else 3, size=nd)]
        stride = [int(s) for s in rng.randint(1, 3 if nd == 3 else 4, size=nd)]
        dilate = [int(d) for d in rng.randint(1, 3, size=nd)]
        pad = [int(p) for p in rng.randint(0, 3, size=nd)]
        c_in, c_out = groups * int(rng.randint(1, 4)), groups * int(rng.randint(1, 4))
        batch = int(rng.randint(1, 3))
        no_bias = bool(i % 4 == 3)
        params = {'kernel': kernel, 'num_filter': c_out, 'num_group': groups,
                  'no_bias': no_bias}
        for name, value, default in (('stride', stride, 1), ('dilate', dilate, 1),
                                     ('pad', pad, 0)):
            if any(v != default for v in value):
                params[name] = value
        if op == 'Convolution':
            spatial = [int(d * (k - 1) + 1 - 2 * p + rng.randint(0, 5) if nd < 3 else
                           d * (k - 1) + 1 - 2 * p + rng.randint(0, 3))
                       for k, d, p in zip(kernel, dilate, pad)]
            spatial = [max(n, 1) for n in spatial]
            w_shape = [c_out, c_in // groups] + kernel
        else:
            spatial = [int(rng.randint(1, 5)) for _ in range(nd)]
            adj = [int(rng.randint(0, s)) for s in stride]
            pad = [min(p, ((n - 1) * s + d * (k - 1)) // 2) for p, n, s, d, k
                   in zip(pad, spatial, stride, dilate, kernel)]
            params['pad'] = pad
            if any(adj):
                params['adj'] = adj
            if nd == 3:  # MXNet's CPU deconvolution supports 1-D and 2-D only
                continue
            w_shape = [c_in, c_out // groups] + kernel
        exact = bool(i % 2 == 0)
        dist = 'dyadic' if exact else 'normal'
        inputs = [['data', [batch, c_in] + spatial, dist], ['weight', w_shape, dist]]
        if not no_bias:
            inputs.append(['bias', [c_out], dist])
        cases.append({'id': '%s-%dd-%02d' % (op, nd, i), 'op': op, 'inputs': inputs,
                      'params': params, 'exact': exact, 'seed': 1000 + i})
    return cases


def _deconv_target_cases():
    """target_shape (with an explicit pad: MXNet's CPU kernel needs one) sets pad and adj."""
    cases = []
    # (MXNet's oneDNN kernel fails on some others, e.g. size 5, stride 2, target 9.)
    for i, (size, stride, target) in enumerate([(5, 2, 10), (3, 2, 6), (4, 2, 8)]):
        cases.append({'id': 'Deconvolution-target-%d' % i, 'op': 'Deconvolution',
                      'inputs': [['data', [2, 2, size, size + 1], 'dyadic'],
                                 ['weight', [2, 3, 3, 3], 'dyadic']],
                      'params': {'kernel': [3, 3], 'stride': [stride, stride], 'pad': [1, 1],
                                 'num_filter': 3, 'target_shape': [target, target + 1]},
                      'exact': True, 'seed': 2000 + i})
    return cases


def _pool_cases(rng):
    cases = []
    layouts = {1: ['NCW', 'NWC'], 2: ['NCHW', 'NHWC'], 3: ['NCDHW', 'NDHWC']}
    i = 0
    for pool_type in ('max', 'avg', 'sum', 'lp'):
        for convention in ('valid', 'full'):
            for nd in (1, 2, 3):
                for _ in range(2):
                    kernel = [int(k) for k in rng.randint(1, 4, size=nd)]
                    stride = [int(s) for s in rng.randint(1, 4, size=nd)]
                    pad = [int(rng.randint(0, k // 2 + 1)) for k in kernel]
                    spatial = [int(k + rng.randint(0, 5)) for k in kernel]
                    layout = layouts[nd][i % 2]
                    channels, batch = int(rng.randint(1, 4)), int(rng.randint(1, 3))
                    shape = ([batch] + spatial + [channels] if layout.endswith('C')
                             else [batch, channels] + spatial)
                    params = {'kernel': kernel, 'stride': stride, 'pad': pad,
                              'pool_type': pool_type, 'pooling_convention': convention,
                              'layout': layout}
                    if pool_type == 'avg':
                        params['count_include_pad'] = bool(i % 3 != 1)
                    if pool_type == 'lp':
                        params['p_value'] = 1 + i % 3
                    exact = pool_type in ('max', 'sum')
                    cases.append({'id': 'Pooling-%s-%s-%dd-%02d' % (pool_type, convention, nd, i),
                                  'op': 'Pooling',
                                  'inputs': [['data', shape,
                                              'distinct' if pool_type == 'max' else
                                              'dyadic' if exact else 'normal']],
                                  'params': params, 'exact': exact, 'seed': 3000 + i})
                    i += 1
    for nd in (1, 2, 3):
        for pool_type in ('max', 'avg', 'sum'):
            shape = [2, 3] + [3 + j for j in range(nd)]
            cases.append({'id': 'Pooling-global-%s-%dd' % (pool_type, nd), 'op': 'Pooling',
                          'inputs': [['data', shape, 'distinct']],
                          'params': {'kernel': [1] * nd, 'global_pool': True,
                                     'pool_type': pool_type},
                          'exact': pool_type != 'avg', 'seed': 3500 + nd})
    cases.append({'id': 'Pooling-max-ties', 'op': 'Pooling',
                  'inputs': [['data', [2, 2, 6, 6], 'dyadic']],
                  'params': {'kernel': [3, 3], 'stride': [2, 2], 'pad': [1, 1]},
                  'exact': True, 'seed': 3600})
    return cases


def _norm_cases():
    cases = []
    bn = [((4, 3, 5, 2), {}, 'train'), ((4, 3, 5, 2), {'fix_gamma': False}, 'train'),
          ((6, 4), {'fix_gamma': False, 'momentum': 0.8}, 'train'),
          ((2, 3, 4), {'fix_gamma': False, 'axis': -1}, 'train'),
          ((2, 3, 2, 2, 3), {'fix_gamma': False, 'eps': 1e-5}, 'train'),
          ((3, 4, 3, 2), {'fix_gamma': False, 'axis': 2}, 'train'),
          ((4, 3, 5, 2), {'fix_gamma': False, 'use_global_stats': True}, 'train'),
          ((4, 3, 5, 2), {'fix_gamma': False}, 'predict'),
          ((4, 3, 5, 2), {'fix_gamma': False, 'output_mean_var': True}, 'train'),
          ((4, 3, 5, 2), {'fix_gamma': False, 'output_mean_var': True}, 'predict')]
    for i, (shape, params, mode) in enumerate(bn):
        axis = params.get('axis', 1) % len(shape)
        c = [shape[axis]]
        cases.append({'id': 'BatchNorm-%02d' % i, 'op': 'BatchNorm', 'mode': mode,
                      'inputs': [['data', list(shape), 'normal'], ['gamma', c, 'positive'],
                                 ['beta', c, 'normal'], ['moving_mean', c, 'normal'],
                                 ['moving_var', c, 'positive']],
                      'params': params, 'exact': False, 'seed': 4000 + i,
                      'no_grad': ['moving_mean', 'moving_var'],
                      # MXNet differentiates a predict-mode BatchNorm as if the moving
                      # statistics were the batch's (docs/divergences.md)
                      'divergent_grads': mode == 'predict'})
    for i, (shape, axis, omv) in enumerate([((3, 5), -1, False), ((2, 3, 4), 1, False),
                                            ((2, 3, 4), 0, False), ((2, 4, 3), -1, True)]):
        c = [shape[axis]]
        cases.append({'id': 'LayerNorm-%d' % i, 'op': 'LayerNorm',
                      'inputs': [['data', list(shape), 'normal'], ['gamma', c, 'normal'],
                                 ['beta', c, 'normal']],
                      'params': {'axis': axis, 'output_mean_var': omv}, 'exact': False,
                      'seed': 4100 + i})
    for i, shape in enumerate([(2, 3, 5), (2, 2, 3, 4), (1, 3, 2, 2, 3)]):
        cases.append({'id': 'InstanceNorm-%d' % i, 'op': 'InstanceNorm',
                      'inputs': [['data', list(shape), 'normal'], ['gamma', [shape[1]], 'normal'],
                                 ['beta', [shape[1]], 'normal']],
                      'params': {'eps': 1e-3 if i else 1e-5}, 'exact': False,
                      'seed': 4200 + i})
    for i, (shape, groups, omv) in enumerate([((2, 4, 3), 2, False), ((2, 6, 2, 2), 3, True),
                                              ((3, 4, 5), 1, False), ((2, 4, 2, 3), 4, False)]):
        cases.append({'id': 'GroupNorm-%d' % i, 'op': 'GroupNorm',
                      'inputs': [['data', list(shape), 'normal'], ['gamma', [groups], 'normal'],
                                 ['beta', [groups], 'normal']],
                      'params': {'num_groups': groups, 'output_mean_var': omv}, 'exact': False,
                      'seed': 4300 + i})
    for i, (shape, mode) in enumerate([((3, 5), 'instance'), ((2, 3, 4), 'instance'),
                                       ((2, 3, 4), 'channel'), ((2, 3, 2, 3), 'spatial'),
                                       ((2, 3, 2, 3), 'channel')]):
        cases.append({'id': 'L2Normalization-%d' % i, 'op': 'L2Normalization',
                      'inputs': [['data', list(shape), 'normal']],
                      'params': {'mode': mode}, 'exact': False, 'seed': 4400 + i})
    return cases


def _activation_cases():
    cases = []
    for i, (act, params) in enumerate([('leaky', {}), ('leaky', {'slope': 0.1}),
                                       ('elu', {}), ('elu', {'slope': 0.7}), ('selu', {}),
                                       ('gelu', {})]):
        cases.append({'id': 'LeakyReLU-%s-%d' % (act, i), 'op': 'LeakyReLU',
                      'inputs': [['data', [3, 4, 5], 'normal']],
                      'params': dict(params, act_type=act), 'exact': False, 'seed': 5000 + i,
                      # MXNet 1.9.1's selu gradient is λ(y + α), not λα·eˣ (divergences.md)
                      'divergent_grads': act == 'selu'})
    for i, (act, dtype) in enumerate([(act, dtype) for act in ('leaky', 'elu', 'selu', 'gelu')
                                      for dtype in ('float16', 'float64')]):
        # other dtypes (float64: MXNet computes 'leaky' and 'gelu' in single precision,
        # docs/divergences.md); 'gelu' float16 comes out bit for bit
        exact = (act, dtype) == ('gelu', 'float16')
        cases.append({'id': 'LeakyReLU-%s-%s' % (act, dtype), 'op': 'LeakyReLU',
                      'inputs': [['data', [3, 4, 5], 'normal']], 'dtype': dtype,
                      'params': {'act_type': act, 'slope': 0.3}, 'exact': exact,
                      'seed': 5010 + i, 'divergent_grads': act == 'selu'})
    for i, gamma in enumerate([[4], [1]]):
        cases.append({'id': 'LeakyReLU-prelu-%d' % i, 'op': 'LeakyReLU',
                      'inputs': [['data', [3, 4, 5], 'normal'], ['gamma', gamma, 'uniform']],
                      'params': {'act_type': 'prelu'}, 'exact': False, 'seed': 5100 + i})
    cases.append({'id': 'LeakyReLU-rrelu-predict', 'op': 'LeakyReLU', 'mode': 'predict',
                  'inputs': [['data', [3, 4, 5], 'normal']],
                  'params': {'act_type': 'rrelu', 'lower_bound': 0.1, 'upper_bound': 0.3},
                  'exact': False, 'seed': 5200, 'outputs': 1,
                  # MXNet's rrelu backward reads an uninitialised mask outside training
                  'divergent_grads': True})
    return cases


def _resize_cases():
    cases = []
    for i, (shapes, scale, mode) in enumerate([([[2, 3, 2, 3]], 2, 'concat'),
                                               ([[1, 2, 3, 3]], 3, 'concat'),
                                               ([[2, 2, 2, 2], [2, 3, 4, 4]], 2, 'concat'),
                                               ([[2, 2, 2, 3], [2, 2, 4, 6]], 2, 'sum')]):
        cases.append({'id': 'UpSampling-nearest-%d' % i, 'op': 'UpSampling',
                      'inputs': [['arg%d' % k, s, 'dyadic'] for k, s in enumerate(shapes)],
                      'params': {'scale': scale, 'sample_type': 'nearest',
                                 'multi_input_mode': mode, 'num_args': len(shapes)},
                      'exact': True, 'seed': 6000 + i, 'positional': True})
    for i, scale in enumerate([2, 3]):
        k = 2 * scale - scale % 2
        cases.append({'id': 'UpSampling-bilinear-%d' % i, 'op': 'UpSampling',
                      'inputs': [['data', [2, 3, 3, 4], 'dyadic'], ['weight', [3, 1, k, k],
                                                                    'dyadic']],
                      'params': {'scale': scale, 'sample_type': 'bilinear', 'num_filter': 3,
                                 'num_args': 2},
                      'exact': True, 'seed': 6100 + i, 'positional': True})
    for i, (shape, mode, widths) in enumerate([
            ([2, 3, 4, 5], 'constant', [0, 0, 0, 0, 1, 2, 3, 0]),
            ([2, 3, 4, 5], 'edge', [0, 0, 0, 0, 2, 5, 1, 3]),
            ([2, 3, 4, 5], 'reflect', [0, 0, 0, 0, 3, 2, 1, 4]),
            ([1, 2, 3, 4, 3], 'reflect', [0, 0, 0, 0, 1, 2, 2, 0, 1, 1]),
            ([1, 2, 3, 4, 3], 'edge', [0, 0, 0, 0, 1, 2, 2, 0, 1, 4]),
            ([1, 2, 3, 4, 3], 'constant', [0, 0, 0, 0, 1, 0, 2, 3, 0, 1])]):
        params = {'mode': mode, 'pad_width': widths}
        if mode == 'constant':
            params['constant_value'] = 1.5
        cases.append({'id': 'pad-%s-%d' % (mode, i), 'op': 'pad',
                      'inputs': [['data', shape, 'dyadic']], 'params': params, 'exact': True,
                      'seed': 6200 + i})
    return cases


def _error_cases():
    """Bad input: both sides must raise; our message must name the listed texts."""
    data = ['data', [2, 3, 5, 6], 'normal']
    weight = ['weight', [4, 3, 3, 3], 'normal']
    specs = [
        ('conv-kernel-too-big', 'Convolution', [data, ['weight', [4, 3, 7, 7], 'normal']],
         {'kernel': [7, 7], 'num_filter': 4, 'no_bias': True}, ['(7, 7)', '(2, 3, 5, 6)']),
        ('conv-dilated-kernel-too-big', 'Convolution', [data, weight],
         {'kernel': [3, 3], 'dilate': [3, 3], 'num_filter': 4, 'no_bias': True},
         ['(7, 7)', '(2, 3, 5, 6)']),
        ('conv-channel-mismatch', 'Convolution', [data, ['weight', [4, 2, 3, 3], 'normal']],
         {'kernel': [3, 3], 'num_filter': 4, 'no_bias': True}, ['(4, 2, 3, 3)', '(4, 3, 3, 3)']),
        ('conv-num-filter-mismatch', 'Convolution', [data, weight],
         {'kernel': [3, 3], 'num_filter': 5, 'no_bias': True}, ['(4, 3, 3, 3)', '(5, 3, 3, 3)']),
        ('conv-bias-shape', 'Convolution', [data, weight, ['bias', [5], 'normal']],
         {'kernel': [3, 3], 'num_filter': 4}, ['(5)', '(4)']),
        ('conv-unknown-layout', 'Convolution', [data, weight],
         {'kernel': [3, 3], 'num_filter': 4, 'no_bias': True, 'layout': 'NCWH'}, ['NCWH']),
        ('conv-wrong-ndim', 'Convolution', [['data', [2, 3, 30], 'normal'], weight],
         {'kernel': [3, 3], 'num_filter': 4, 'no_bias': True}, ['3-D', '4-D']),
        ('conv-groups', 'Convolution', [data, ['weight', [4, 1, 3, 3], 'normal']],
         {'kernel': [3, 3], 'num_filter': 4, 'num_group': 2, 'no_bias': True},
         ['(2, 3, 5, 6)', 'num_group=2']),
        ('conv-stride-length', 'Convolution', [data, weight],
         {'kernel': [3, 3], 'stride': [2], 'num_filter': 4, 'no_bias': True}, ['stride']),
        ('conv-missing-bias', 'Convolution', [data, weight],
         {'kernel': [3, 3], 'num_filter': 4}, ['bias']),
        ('conv-unknown-param', 'Convolution', [data, weight],
         {'kernel': [3, 3], 'num_filter': 4, 'no_bias': True, 'foo': 3}, ['foo']),
        ('conv-missing-num-filter', 'Convolution', [data, weight],
         {'kernel': [3, 3], 'no_bias': True}, ['num_filter']),
        ('deconv-adj-too-big', 'Deconvolution', [data, ['weight', [3, 2, 3, 3], 'normal']],
         {'kernel': [3, 3], 'stride': [2, 2], 'adj': [2, 2], 'num_filter': 2}, ['adj']),
        ('pool-kernel-too-big', 'Pooling', [data], {'kernel': [7, 7]}, ['(7, 7)',
                                                                      '(2, 3, 5, 6)']),
        ('pool-wrong-ndim', 'Pooling', [data], {'kernel': [2, 2, 2]}, ['(2, 3, 5, 6)']),
        ('pool-wrong-layout', 'Pooling', [data], {'kernel': [2, 2], 'layout': 'NCW'},
         ['NCW']),
        ('pool-unknown-type', 'Pooling', [data], {'kernel': [2, 2], 'pool_type': 'median'},
         ['median']),
        ('pool-lp-no-p', 'Pooling', [data], {'kernel': [2, 2], 'pool_type': 'lp'}, ['p_value']),
        ('batchnorm-axis', 'BatchNorm', [data] + [[n, [3], 'positive'] for n in
                                                  ('gamma', 'beta', 'moving_mean',
                                                   'moving_var')],
         {'axis': 4}, ['axis 4']),
        ('layernorm-gamma', 'LayerNorm', [data, ['gamma', [3], 'normal'],
                                          ['beta', [3], 'normal']], {}, ['(3)', '(6)']),
        ('instancenorm-gamma', 'InstanceNorm', [data, ['gamma', [4], 'normal'],
                                                ['beta', [4], 'normal']], {}, ['(4)', '(3)']),
        ('groupnorm-groups', 'GroupNorm', [data, ['gamma', [2], 'normal'],
                                           ['beta', [2], 'normal']], {'num_groups': 2},
         ['(2, 3, 5, 6)']),
        ('prelu-gamma', 'LeakyReLU', [data, ['gamma', [4], 'normal']], {'act_type': 'prelu'},
         ['(4)', '(2, 3, 5, 6)']),
        ('prelu-no-gamma', 'LeakyReLU', [data], {'act_type': 'prelu'}, ['gamma']),
        ('l2norm-channel-1d', 'L2Normalization', [['data', [3], 'normal']], {'mode': 'channel'},
         ['(3)']),
        ('pad-3d', 'pad', [['data', [2, 3, 4], 'normal']],
         {'mode': 'constant', 'pad_width': [0, 0, 0, 0, 1, 1]}, ['(2, 3, 4)']),
        ('pad-batch-axis', 'pad', [data], {'mode': 'edge', 'pad_width': [1, 0, 0, 0, 1, 1, 1, 1]},
         ['first four']),
        ('pad-reflect-too-wide', 'pad', [data],
         {'mode': 'reflect', 'pad_width': [0, 0, 0, 0, 5, 0, 1, 1]}, ['(2, 3, 5, 6)']),
        ('upsampling-bilinear-no-weight', 'UpSampling', [data],
         {'scale': 2, 'sample_type': 'bilinear', 'num_filter': 3, 'num_args': 1}, ['weight']),
    ]
    return [{'id': 'error-' + name, 'op': op, 'inputs': inputs, 'params': params,
             'exact': False, 'seed': 7000 + i, 'error': mentions,
             'positional': op == 'UpSampling'}
            for i, (name, op, inputs, params, mentions) in enumerate(specs)]


def op_cases():
    """Every operator parity case."""
    rng = np.random.RandomState(12)
    cases = (_conv_cases(rng, 'Convolution', 45) + _conv_cases(rng, 'Deconvolution', 36)
             + _deconv_target_cases() + _pool_cases(rng) + _norm_cases()
             + _activation_cases() + _resize_cases() + _error_cases()
             + nn_cases_convspeed.fast_path_cases())
    for case in cases:
        case['kind'] = 'op'
    return cases


# ---------------------------------------------------------------------- running a case
def run_op_case(mx, case):
    """``(arrays, info)`` of one operator case (see the module docstring)."""
    rng = np.random.RandomState(case['seed'])
    names, arrays = [], []
    for name, shape, dist in case['inputs']:
        names.append(name)
        arrays.append(mx.nd.array(draw(rng, shape, dist), dtype=case.get('dtype', 'float32')))
    differentiable = [a for n, a in zip(names, arrays) if n not in case.get('no_grad', ())]
    for a in differentiable:
        a.attach_grad()
    op = getattr(mx.nd, case['op'])
    train = case.get('mode', 'train') == 'train'
    with mx.autograd.record(train_mode=train):
        if case.get('positional'):
            out = op(*arrays, **case['params'])
        else:
            out = op(**dict(zip(names, arrays)), **case['params'])
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    outs = outs[:case.get('outputs', len(outs))]
    head = draw(np.random.RandomState(case['seed'] + 1), outs[0].shape,
                'dyadic' if case['exact'] else 'uniform')
    outs[0].backward(mx.nd.array(head, dtype=case.get('dtype', 'float32')))
    result = {'out%d' % i: o.asnumpy() for i, o in enumerate(outs)}
    for name, arr in zip(names, arrays):
        if name in case.get('no_grad', ()):
            result['aux_' + name] = arr.asnumpy()
        else:
            result['grad_' + name] = arr.grad.asnumpy()
    return result, {}


# ---------------------------------------------------------------------- layer cases
def layer_cases():
    """Every Gluon layer parity case: names, shapes, deferred init, values and grads."""
    specs = [
        ('Conv1D', [4, 3], {}, [2, 3, 9]),
        ('Conv1D', [4, 3], {'strides': 2, 'padding': 1, 'dilation': 2, 'groups': 2,
                            'use_bias': False, 'in_channels': 2}, [2, 2, 9]),
        ('Conv2D', [6, 3], {'padding': 1, 'activation': 'relu'}, [2, 3, 7, 6]),
        ('Conv2D', [4, (3, 2)], {'strides': (2, 1), 'groups': 2}, [2, 4, 7, 6]),
        ('Conv2D', [4, 3], {'layout': 'NHWC', 'in_channels': 3}, None),
        ('Conv3D', [3, 2], {'padding': 1}, [1, 2, 4, 3, 4]),
        ('Conv1DTranspose', [3, 3], {'strides': 2, 'output_padding': 1}, [2, 4, 5]),
        ('Conv2DTranspose', [3, 3], {'strides': 2, 'padding': 1}, [2, 4, 5, 4]),
        # (MXNet cannot defer in_channels of a grouped transposed convolution)
        ('Conv2DTranspose', [4, 3], {'groups': 2, 'use_bias': False, 'in_channels': 4},
         [2, 4, 3, 3]),
        ('Conv3DTranspose', [2, 2], {'strides': 2}, [1, 2, 2, 3, 2]),
        ('MaxPool1D', [], {}, [2, 3, 9]),
        ('MaxPool2D', [3, 2, 1], {'ceil_mode': True}, [2, 3, 7, 6]),
        ('MaxPool2D', [], {'layout': 'NHWC'}, [2, 6, 4, 3]),
        ('MaxPool3D', [], {}, [1, 2, 4, 4, 6]),
        ('AvgPool1D', [3], {'strides': 2, 'padding': 1}, [2, 3, 9]),
        ('AvgPool2D', [3, 2, 1], {'count_include_pad': False, 'ceil_mode': True},
         [2, 3, 7, 6]),
        ('AvgPool3D', [], {}, [1, 2, 4, 4, 6]),
        ('GlobalMaxPool1D', [], {}, [2, 3, 5]),
        ('GlobalMaxPool2D', [], {}, [2, 3, 5, 4]),
        ('GlobalMaxPool3D', [], {}, [2, 3, 2, 3, 4]),
        ('GlobalAvgPool1D', [], {}, [2, 3, 5]),
        ('GlobalAvgPool2D', [], {}, [2, 3, 5, 4]),
        ('GlobalAvgPool3D', [], {}, [2, 3, 2, 3, 4]),
        ('ReflectionPad2D', [2], {}, [2, 3, 4, 5]),
        ('BatchNorm', [], {}, [4, 3, 2, 5]),
        ('BatchNorm', [], {'axis': -1, 'momentum': 0.5, 'scale': False}, [4, 2, 3]),
        ('BatchNorm', [], {'center': False, 'in_channels': 3}, [4, 3, 2]),
        ('BatchNorm', [], {'use_global_stats': True}, [4, 3, 2]),
        ('BatchNormReLU', [], {}, [4, 3, 5, 2]),
        ('LayerNorm', [], {}, [3, 4, 5]),
        ('LayerNorm', [], {'axis': 1, 'center': False}, [3, 4, 5]),
        ('InstanceNorm', [], {}, [2, 3, 5]),
        ('InstanceNorm', [], {'scale': True, 'axis': 2}, [2, 3, 5, 4]),
        ('GroupNorm', [], {'num_groups': 2}, [2, 4, 3]),
        ('LeakyReLU', [0.2], {}, [2, 3, 4]),
        ('PReLU', [], {}, [2, 3, 4]),
        ('PReLU', [], {'in_channels': 3}, [2, 3, 4]),
        ('ELU', [], {'alpha': 0.5}, [2, 3, 4]),
        ('SELU', [], {}, [2, 3, 4]),
        ('GELU', [], {}, [2, 3, 4]),
        ('Swish', [], {'beta': 1.5}, [2, 3, 4]),
        ('HybridLambda', ['tanh'], {}, [2, 3]),
        ('Dense', [5], {}, [2, 3, 4]),
    ]
    cases = [{'id': 'layer-%s-%02d' % (name, i), 'kind': 'layer', 'layer': name,
              'namespace': 'nn', 'args': args, 'kwargs': kwargs, 'input': shape,
              'seed': 8000 + i, 'divergent_grads': name == 'SELU'}
             for i, (name, args, kwargs, shape) in enumerate(specs)]
    cases.append({'id': 'layer-HybridConcurrent', 'kind': 'layer', 'layer': 'HybridConcurrent',
                  'namespace': 'contrib.nn', 'args': [], 'kwargs': {'axis': 1},
                  'children': [['Conv2D', [2, 1], {}], ['Conv2D', [3, 3], {'padding': 1}],
                               ['Identity', [], {}]],
                  'input': [2, 3, 4, 4], 'seed': 8100})
    return cases


def _namespace(mx, name):
    module = mx.gluon
    for part in name.split('.'):
        module = getattr(module, part)
    return module


def _build(mx, case):
    make = getattr(_namespace(mx, case['namespace']), case['layer'])
    layer = make(*[tuple(a) if isinstance(a, list) else a for a in case['args']],
                 **case['kwargs'])
    for name, args, kwargs in case.get('children', ()):
        child_ns = 'contrib.nn' if name == 'Identity' else 'nn'
        with layer.name_scope():
            layer.add(getattr(_namespace(mx, child_ns), name)(*args, **kwargs))
    return layer


def _param_table(net):
    return [[name, list(p.shape) if p.shape is not None else None, p.grad_req,
             float(p.lr_mult), float(p.wd_mult)]
            for name, p in sorted(net.collect_params().items())]


def run_layer_case(mx, case):
    """``(arrays, info)`` of one layer case: build, deferred init, forward, backward."""
    net = mx.gluon.nn.HybridSequential(prefix='net_')
    with net.name_scope():
        layer = _build(mx, case)
        net.add(layer)
    info = {'params_before': _param_table(net), 'repr_before': repr(layer)}
    if case['input'] is None:
        return {}, info
    rng = np.random.RandomState(case['seed'])
    x = mx.nd.array(draw(rng, case['input'], 'normal'), dtype='float32')
    net.initialize(mx.init.Zero())
    net(x)  # deferred initialisation happens here
    info['params_after'] = _param_table(net)
    info['repr_after'] = repr(layer)
    result = {}
    for name, param in sorted(net.collect_params().items()):
        dist = 'positive' if name.endswith(('_var', 'gamma')) else 'uniform'
        param.set_data(mx.nd.array(draw(rng, param.shape, dist), dtype='float32'))
    x.attach_grad()
    with mx.autograd.record():
        y = net(x)
    head = np.random.RandomState(case['seed'] + 1).uniform(-1, 1, size=y.shape)
    y.backward(mx.nd.array(head, dtype='float32'))
    result['out0'] = y.asnumpy()
    result['grad_data'] = x.grad.asnumpy()
    for name, param in sorted(net.collect_params().items()):
        result['param_' + name] = param.data().asnumpy()
        if param.grad_req != 'null':
            result['pgrad_' + name] = param.grad().asnumpy()
    return result, info


# ---------------------------------------------------------------------- model zoo cases
#: Models whose parameters are compared after a forward pass (small inputs suffice).
ZOO_FORWARD = {'resnet18_v1': 32, 'resnet18_v2': 32, 'resnet50_v1': 32, 'resnet50_v2': 32,
               'mobilenet0.25': 32, 'mobilenetv2_0.25': 32, 'vgg11_bn': 32}


def zoo_cases(names):
    """One case per model name: parameter names/shapes (and a forward for small ones)."""
    return [{'id': 'zoo-' + name, 'kind': 'zoo', 'model': name,
             'input': ZOO_FORWARD.get(name), 'seed': 9000 + i}
            for i, name in enumerate(names)]


def run_zoo_case(mx, case):
    """``(arrays, info)``: parameter names and shapes; for small models the output too."""
    with mx.name.NameManager():  # names independent of what was built before
        net = mx.gluon.model_zoo.vision.get_model(case['model'], classes=10)
    info = {'params_before': _param_table(net)}
    if not case['input']:
        return {}, info
    rng = np.random.RandomState(case['seed'])
    net.initialize(mx.init.Zero())
    x = mx.nd.array(draw(rng, [2, 3, case['input'], case['input']], 'uniform'),
                    dtype='float32')
    net(x)
    info['params_after'] = _param_table(net)
    for name, param in sorted(net.collect_params().items()):
        dist = 'positive' if name.endswith(('_var', 'gamma')) else 'uniform'
        scale = 1.0 if dist == 'positive' else 0.3
        param.set_data(mx.nd.array(draw(rng, param.shape, dist) * scale, dtype='float32'))
    return {'out0': net(x).asnumpy()}, info


def run_case(mx, case):
    """The case's arrays, and its info as JSON under ``'info'``."""
    runner = {'op': run_op_case, 'layer': run_layer_case, 'zoo': run_zoo_case}[case['kind']]
    arrays, info = runner(mx, case)
    arrays['info'] = np.array(json.dumps(info))
    return arrays

