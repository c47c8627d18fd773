"""The operator parity cases: calls of ``mx.nd`` that gluonedu must answer as MXNet 1.9.1.

Each case (format in :mod:`ops_driver`) runs on both sides; the test requires the same
outcome: both succeed with equal outputs (shapes, dtypes, values; gradients where the
case differentiates), or both raise the same error class. ``DIVERGENCES`` lists the few
calls where gluonedu deliberately differs (docs/divergences.md explains each) and what
it does instead.

This module imports neither mxnet nor gluonedu (the oracle imports it too).
"""
import numpy as np


def nd(name, **kw):
    """An ``mx.nd.array`` of the input ``name``."""
    return dict(nd=name, **kw)


def tup(*items):
    return {'tuple': list(items)}


def case(case_id, call, *args, grad=(), compare='values', tol=None, **kwargs):
    """A call of ``mx.nd.<call>(*args, **kwargs)``; ``grad``: arg positions to differentiate;
    ``tol``: (rtol, atol) where the result's dtype is wider than the computation's."""
    out = {'id': case_id, 'call': call, 'args': list(args), 'kwargs': kwargs,
           'grad': list(grad), 'compare': compare}
    if tol is not None:
        out['tol'] = list(tol)
    return out


def method(case_id, name, self, *args, grad=(), **kwargs):
    """A call of the NDArray method ``self.<name>(*args, **kwargs)``."""
    return {'id': case_id, 'method': name, 'self': self, 'args': list(args),
            'kwargs': kwargs, 'grad': [i + 1 for i in grad] if grad else [],
            'compare': 'values'}


def op(case_id, name, *args, grad=()):
    """A Python operator (``add`` is ``lhs + rhs``, ``setitem`` is ``x[k] = v``)."""
    return {'id': case_id, 'operator': name, 'args': list(args), 'grad': list(grad),
            'compare': 'values'}


def make_inputs():
    """The named host arrays the cases refer to (seeded)."""
    rng = np.random.RandomState(0)
    f32 = np.float32
    return {**ops_cases_kernels.kernel_inputs(),
        'x23': np.array([[1, 2, 3], [4, 5, 6]], dtype=f32),
        'r34': rng.randn(3, 4).astype(f32),
        'r234': rng.randn(2, 3, 4).astype(f32),
        'r34d': rng.randn(3, 4),
        'pos34': rng.uniform(0.5, 2.0, (3, 4)).astype(f32),
        'unit34': rng.uniform(-0.9, 0.9, (3, 4)).astype(f32),
        'gt1': rng.uniform(1.2, 3.0, (3, 4)).astype(f32),
        'i23': np.array([[1, 2, 3], [4, 5, 6]], dtype=np.int32),
        'neg_i': np.array([-3, 3, -4], dtype=np.int32),
        'u8': np.array([1, 2], dtype=np.uint8),
        'f16': rng.randn(2, 3).astype(np.float16),
        'halves': np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5], dtype=f32),
        'idx3': np.array([0, 2, 1], dtype=f32),
        'idx_oob': np.array([5, -1, 1.7, -1.7], dtype=f32),
        'oob3': np.array([5, -1, 1], dtype=f32),
        'idx2': np.array([0, 1], dtype=f32),
        'idx_i32': np.array([1, 0], dtype=np.int32),
        'w43': rng.randn(4, 3).astype(f32),
        'b4': rng.randn(4).astype(f32),
        'w34d': rng.randn(3, 4),
        'mask23': np.array([[1, 0, 1], [0, 0, 1]], dtype=f32),
        'row2': np.array([1, 0], dtype=f32),
        'col21': np.array([[1], [2]], dtype=f32),
        'v3': np.array([1, 2, 3], dtype=f32),
        'ones2': np.ones(2, dtype=f32),
        'ones32': np.ones((3, 2), dtype=f32),
        'ids_emb': np.array([[0, 3], [2, 9]], dtype=f32),
        'emb43': rng.randn(4, 3).astype(f32),
        'b234': rng.randn(2, 3, 4).astype(f32),
        'b245': rng.randn(2, 4, 5).astype(f32),
        'nan34': np.where(rng.rand(3, 4) < 0.3, np.nan, rng.randn(3, 4)).astype(f32),
        'img': rng.randn(2, 3, 4, 5).astype(f32),
        'vol': rng.randn(1, 2, 3, 4, 3).astype(f32),
        'dep': rng.randn(1, 8, 2, 3).astype(f32),
        'ties': np.array([3, 1, 3, 2, 1], dtype=f32),
        'gidx': np.array([[1, 0, 1], [2, 0, 0]], dtype=f32),
        'gidx_neg': np.array([[-1, 0]], dtype=f32),
        'gidx_oob': np.array([[1, 5]], dtype=f32),
        'gidx_frac': np.array([[1.5, 0]], dtype=f32),
        'gidx_frac_neg': np.array([[-0.5, 1.0, -2.0]], dtype=f32),
        'sidx': np.array([[1, 0], [2, 0]], dtype=f32),
        'sidx_dup': np.array([[1, 1], [2, 2]], dtype=f32),
        'sidx_oob': np.array([[1, 5], [2, 0]], dtype=f32),
        'pair': np.array([1, 2], dtype=f32),
        'probs': np.array([[0.1, 0.2, 0.7], [0.5, 0.5, 0.0]], dtype=f32),
        'lows': np.array([0, 10], dtype=f32),
        'highs': np.array([1, 12], dtype=f32),
        'sq33': rng.randn(3, 3).astype(f32),
        'bools': np.array([1, 0, 1], dtype=np.bool_),
        's2d': rng.randn(1, 2, 4, 6).astype(f32),
    }


# ---------------------------------------------------------------------- misuse (issue 15)
def misuse_cases():
    """Calls MXNet refuses (or accepts) that gluonedu used to answer wrongly."""
    x = nd('x23')
    return [
        case('sum/axis-too-large', 'sum', x, axis=2),
        case('sum/axis-too-small', 'sum', x, axis=-3),
        case('sum/axis-float', 'sum', x, axis=2.5),
        case('sum/axis-one-point-zero', 'sum', x, axis=1.0),
        case('sum/axis-bool', 'sum', x, axis=True),
        case('sum/axis-text', 'sum', x, axis='1'),
        case('sum/axis-twice', 'sum', x, axis=tup(0, 0)),
        case('sum/axes-negative', 'sum', x, axis=tup(-1, 0)),
        case('sum/keepdims-2', 'sum', x, keepdims=2),
        case('sum/keepdims-text', 'sum', x, keepdims='true'),
        case('sum/keepdims-none', 'sum', x, keepdims=None),
        case('sum/unknown-kwarg', 'sum', x, foo=1),
        case('sum/positional-params', 'sum', x, 1, True),
        case('sum/numpy-input', 'sum', {'np': 'x23'}),
        case('sum/no-input', 'sum'),
        case('sum/exclude', 'sum', x, axis=0, exclude=True),
        case('sum/out-wrong-dtype', 'sum', x, out={'zeros': [1], 'dtype': 'float64'}),
        case('concat/axis-kwarg', 'concat', x, x, axis=0),
        case('concat/dim0', 'concat', x, x, dim=0, grad=(0, 1)),
        case('concat/dim-too-large', 'concat', x, x, dim=2),
        case('concat/num-args-mismatch', 'concat', x, x, dim=0, num_args=3),
        case('concat/non-array', 'concat', x, 1, dim=0),
        case('concat/mixed-dtypes', 'concat', x, nd('i23'), dim=0),
        case('concat/shape-mismatch', 'concat', x, nd('ones32'), dim=1),
        case('ones/float-shape', 'ones', tup(2.5)),
        case('ones/negative', 'ones', -1),
        case('ones/zero-dim', 'zeros', tup(2, 0)),
        case('ones/text-shape', 'ones', '(2,3)'),
        case('ones/int16', 'zeros', tup(2), dtype='int16'),
        case('ones/bad-dtype-name', 'ones', tup(2), dtype='foo'),
        case('ones/unknown-kwarg', 'zeros', 5, foo=1),
        case('ones/bool-dtype', 'zeros', tup(2), dtype='bool'),
        case('take/raise', 'take', x, nd('idx_oob'), mode='raise'),
        case('take/clip', 'take', x, nd('idx_oob'), grad=(0,)),
        case('take/wrap', 'take', x, nd('idx_oob'), mode='wrap', grad=(0,)),
        case('take/bad-mode', 'take', x, nd('idx2'), mode='foo'),
        case('take/axis-out-of-range', 'take', x, nd('idx2'), axis=2),
        case('take/axis-negative', 'take', x, nd('idx2'), axis=-1),
        case('take/int-indices', 'take', x, nd('idx_i32')),
        case('softmax/uint8', 'softmax', nd('u8')),
        case('softmax/int32', 'softmax', nd('i23')),
        case('log_softmax/int32', 'log_softmax', nd('i23')),
        case('clip/reversed-bounds', 'clip', x, 3, 1),
        case('clip/missing-bound', 'clip', x, 1),
        case('clip/text-bound', 'clip', x, '1', 2),
        case('clip/none-bound', 'clip', x, None, 2),
        case('clip/bool-bound', 'clip', x, True, 2),
        case('clip/nan-bound', 'clip', x, {'float': 'nan'}, 2),
        case('clip/int32', 'clip', nd('i23'), 1.5, 4.5),
        case('one_hot/float-depth', 'one_hot', nd('idx3'), 3.5),
        case('one_hot/negative-depth', 'one_hot', nd('idx3'), -1),
        case('one_hot/text-depth', 'one_hot', nd('idx3'), '3'),
        case('one_hot/int16', 'one_hot', nd('idx3'), 3, dtype='int16'),
        case('one_hot/dtype-none', 'one_hot', nd('idx3'), 3, dtype=None),
        case('one_hot/dtype-type', 'one_hot', nd('idx3'), 3, dtype={'dtype': 'float64'}),
        case('Activation/bad-type', 'Activation', x, act_type='foo'),
        case('Dropout/p-too-large', 'Dropout', x, p=1.5),
        case('Dropout/p-negative', 'Dropout', x, p=-0.1),
        case('Dropout/inference', 'Dropout', x, p=0.5),
        case('FullyConnected/no-num-hidden', 'FullyConnected', x, nd('w43'), nd('b4')),
        case('FullyConnected/extra-bias', 'FullyConnected', x, nd('w43'), nd('b4'),
             num_hidden=4, no_bias=True),
        case('FullyConnected/missing-bias', 'FullyConnected', x, nd('w43'), num_hidden=4),
        case('FullyConnected/mixed-dtypes', 'FullyConnected', x, nd('w34d'), nd('b4'),
             num_hidden=4),
        case('expand_dims/axis-past-end', 'expand_dims', x, axis=3),
        case('expand_dims/axis-at-end', 'expand_dims', x, axis=2),
        case('expand_dims/axis-too-small', 'expand_dims', x, axis=-4),
        case('squeeze/non-unit-axis', 'squeeze', x, axis=0),
        case('flip/axis-too-large', 'flip', x, axis=2),
        case('flip/negative-axis', 'flip', x, axis=-1),
        case('flip/axis-twice', 'flip', x, axis=tup(0, 0)),
        case('broadcast_add/mixed-dtypes', 'broadcast_add', x, nd('i23')),
        case('broadcast_add/incompatible', 'broadcast_add', x, nd('ones32')),
        case('elemwise_add/shapes', 'elemwise_add', x, nd('col21')),
        case('sqrt/out-wrong-shape', 'sqrt', x, out={'zeros': [3, 2]}),
        case('sqrt/positional-out', 'sqrt', x, {'zeros': [2, 3]}),
        case('sqrt/name', 'sqrt', x, name='s'),
        case('sqrt/data-twice', 'sqrt', x, data=x),
        case('add/out-kwarg', 'add', x, x, out={'zeros': [2, 3]}),
        case('add/two-numbers', 'add', 2, 3),
        case('reshape/infer-twice', 'reshape', x, shape=tup(-1, -1)),
        case('reshape/bad-code', 'reshape', x, shape=tup(-5)),
        case('reshape/too-many-zeros', 'reshape', x, shape=tup(0, 0, 0)),
        case('repeat/negative', 'repeat', x, repeats=-1),
        case('repeat/axis-out-of-range', 'repeat', x, repeats=2, axis=2),
        case('swapaxes/out-of-range', 'swapaxes', x, 0, 2),
        case('split/uneven', 'split', x, num_outputs=2, axis=1),
        case('split/zero-outputs', 'split', x, num_outputs=0),
        case('tile/zero-reps', 'tile', x, reps=tup(0, 2)),
        case('tile/float-reps', 'tile', x, reps=tup(2.0)),
        case('broadcast_to/fewer-dims', 'broadcast_to', nd('col21'), shape=tup(3)),
        case('broadcast_axis/non-unit', 'broadcast_axis', nd('col21'), axis=0, size=3),
        case('pick/axis-none', 'pick', x, nd('idx2'), axis=None),
        case('pick/axis-out-of-range', 'pick', x, nd('idx2'), axis=2),
        case('where/shape-mismatch', 'where', nd('v3'), x, x),
        case('dot/mixed-dtypes', 'dot', x, nd('w34d')),
        case('dot/misaligned', 'dot', x, x),
        case('transpose/too-few-axes', 'transpose', x, axes=tup(1)),
        case('transpose/negative-axes', 'transpose', x, axes=tup(-1, 0)),
        case('transpose/axis-twice', 'transpose', x, axes=tup(0, 0)),
        case('reshape/wrong-size', 'reshape', x, shape=tup(7)),
        case('stack/shape-mismatch', 'stack', x, nd('ones32')),
        op('arith/int-div-zero', 'truediv', nd('i23'), 0),
        case('norm/int32', 'norm', nd('i23')),
        case('slice/begin-past-end', 'slice', x, begin=tup(5), end=tup(6)),
        case('slice/empty', 'slice', x, begin=tup(1), end=tup(0)),
        case('slice/end-clipped', 'slice', x, begin=tup(0), end=tup(5)),
        case('slice/begin-too-small', 'slice', x, begin=tup(-5), end=tup(1)),
        case('slice/too-many-axes', 'slice', x, begin=tup(0, 0, 0), end=tup(1, 1, 1)),
        case('slice/lengths', 'slice', x, begin=tup(0), end=tup(1, 1)),
        case('slice/zero-step', 'slice', x, begin=tup(1), end=tup(None), step=tup(0)),
        case('slice/reversed', 'slice', x, begin=tup(None), end=tup(None), step=tup(-1)),
        case('slice/empty-reversed', 'slice', nd('v3'), begin=tup(1), end=tup(3),
             step=tup(-1)),
        case('slice/empty-negative-begin', 'slice', nd('r234'), begin=tup(-1), end=tup(0)),
        case('reshape/target-shape', 'reshape', x, target_shape=tup(3, 0)),
        case('reshape/target-shape-negative', 'reshape', x, target_shape=tup(-2)),
        case('diag/empty-edge', 'diag', x, k=3),
        case('diag/beyond', 'diag', x, k=5),
        case('slice_like/axes-none', 'slice_like', nd('r234'), nd('col21'), axes=None),
        case('broadcast_like/one-axes', 'broadcast_like', nd('col21'), x, lhs_axes=tup(1)),
        case('broadcast_like/empty-axes', 'broadcast_like', nd('col21'), x, lhs_axes=tup(),
             rhs_axes=tup()),
        case('Dropout/negative-axis', 'Dropout', x, axes=tup(-1)),
        case('Dropout/int32', 'Dropout', nd('i23')),
        case('gather_nd/1d-indices', 'gather_nd', x, nd('v3')),
        case('gather_nd/fraction-wraps', 'gather_nd', x, nd('gidx_frac_neg')),
        case('scatter_nd/1d-indices', 'scatter_nd', nd('v3'), nd('idx2'), shape=tup(1, 2, 3)),
        case('softmax/use-length-none', 'softmax', x, use_length=None),
        case('norm/out-dtype-type', 'norm', x, out_dtype={'dtype': 'float32'}),
        case('cast/alias', 'cast', x, dtype='f4'),
        case('dot/int32', 'dot', nd('i23'), nd('i23'), transpose_b=True),
        case('FullyConnected/int32', 'FullyConnected', nd('i23'), nd('i23'), num_hidden=2,
             no_bias=True),
        case('sort/float16', 'sort', nd('f16')), case('argsort/float16', 'argsort', nd('f16')),
        case('topk/float16', 'topk', nd('f16')),
        case('hard_sigmoid/int32', 'hard_sigmoid', nd('i23')),
        case('L2Normalization/int32', 'L2Normalization', nd('i23')),
        case('slice_axis/end-too-large', 'slice_axis', x, axis=1, begin=0, end=5),
        case('slice_axis/begin-too-small', 'slice_axis', x, axis=1, begin=-5, end=2),
        case('slice_axis/reversed', 'slice_axis', x, axis=1, begin=2, end=1),
        case('slice_axis/negative', 'slice_axis', x, axis=1, begin=-2, end=-1),
        case('sum/exclude-empty-axes', 'sum', x, axis=tup(), exclude=True),
        case('one_hot/float-ids', 'one_hot', nd('idx_oob'), 3),
        case('pick/float-ids', 'pick', x, nd('idx2'), axis=1),
        case('Embedding/clipped-ids', 'Embedding', nd('idx_oob'), nd('emb43'), input_dim=4,
             output_dim=3),
        case('Dropout/always-p1', 'Dropout', x, p=1.0, mode='always'),
        case('Dropout/always-p0', 'Dropout', x, p=0.0, mode='always'),
        case('batch_dot/batch-mismatch', 'batch_dot', nd('b234'), nd('r234')),
        case('batch_dot/2d', 'batch_dot', x, nd('ones32')),
        case('dot/vectors', 'dot', nd('v3'), nd('v3')),
        case('dot/nd-by-vector', 'dot', nd('r234'), nd('b4')),
        op('arith/ndarray-plus-numpy', 'add', x, {'np': 'x23'}),
        op('arith/ndarray-plus-list', 'add', x, [1, 2, 3]),
        op('arith/ndarray-plus-text', 'add', x, 'a'),
        op('arith/ndarray-plus-bool', 'add', x, True),
        op('arith/mixed-dtypes', 'add', x, nd('i23')),
    ]


# ---------------------------------------------------------------------- values & gradients
def arithmetic_cases():
    x, i = nd('x23'), nd('i23')
    return [
        op('arith/add-broadcast', 'add', x, nd('v3'), grad=(0, 1)),
        op('arith/mul-column', 'mul', x, nd('col21'), grad=(0, 1)),
        op('arith/div', 'truediv', x, nd('x23'), grad=(0, 1)),
        op('arith/rsub-scalar', 'sub', 2.5, x, grad=(1,)),
        op('arith/rdiv-scalar', 'truediv', 2.0, x, grad=(1,)),
        op('arith/pow-scalar', 'pow', x, 2, grad=(0,)),
        op('arith/rpow-scalar', 'pow', 2, x, grad=(1,)),
        op('arith/mod-float', 'mod', nd('r34'), 0.7),
        op('arith/rmod-float', 'mod', 2.0, nd('x23')),
        op('arith/int-mul-float-scalar', 'mul', i, 1.5),
        op('arith/int-div-scalar', 'truediv', nd('neg_i'), 2),
        op('arith/int-mod', 'mod', nd('neg_i'), 2),
        op('arith/int-mod-negative', 'mod', nd('neg_i'), -2),
        op('arith/int-mod-zero', 'mod', nd('neg_i'), 0),
        op('arith/int-pow-negative', 'pow', i, -1),
        op('arith/uint8-wraps', 'sub', nd('u8'), 3),
        op('arith/uint8-negative-scalar', 'add', nd('u8'), -1),
        op('arith/int-eq-float', 'eq', i, 1.5),
        op('arith/float-eq', 'eq', x, 2),
        op('arith/neg-uint8', 'neg', nd('u8')),
        op('arith/gt-arrays', 'gt', x, nd('v3')),
        case('maximum/scalar', 'maximum', x, 2.5),
        case('maximum/arrays', 'maximum', x, nd('mask23'), grad=(0, 1)),
        case('minimum/rscalar', 'minimum', 2.5, x),
        case('logical_and/arrays', 'logical_and', nd('mask23'), x),
        case('logical_or/scalar', 'logical_or', nd('mask23'), 0),
        case('logical_xor/arrays', 'logical_xor', nd('mask23'), nd('mask23')),
        case('broadcast_hypot', 'broadcast_hypot', x, nd('v3'), grad=(0, 1)),
        case('broadcast_power', 'broadcast_power', nd('pos34'), nd('r34'), grad=(0, 1)),
        case('broadcast_minus', 'broadcast_minus', x, nd('col21'), grad=(0, 1)),
        case('_plus_scalar/is-int-false', '_internal._plus_scalar', i, scalar=0.5,
             is_int=False),
        case('_mul_scalar/float', '_internal._mul_scalar', x, scalar=1.5),
        case('_rminus_scalar', '_internal._rminus_scalar', x, scalar=1.0, grad=(0,)),
        case('add_n', 'add_n', x, x, nd('mask23'), grad=(0, 2)),
        case('ElementWiseSum', 'ElementWiseSum', x, x),
    ]


def unary_cases():
    names = ['abs', 'sign', 'sqrt', 'rsqrt', 'cbrt', 'square', 'exp', 'expm1', 'log', 'log1p',
             'log2', 'log10', 'negative', 'reciprocal', 'sin', 'cos', 'floor', 'ceil', 'round',
             'trunc', 'relu', 'sigmoid', 'tanh', 'softsign']
    domain = {'sqrt': 'pos34', 'rsqrt': 'pos34', 'log': 'pos34', 'log1p': 'pos34',
              'log2': 'pos34', 'log10': 'pos34', 'reciprocal': 'pos34', 'cbrt': 'pos34'}
    cases = []
    for name in names:
        cases.append(case('%s/float32' % name, name, nd(domain.get(name, 'r34')), grad=(0,)))
        cases.append(case('%s/int32' % name, name, nd('i23')))
    cases += [case('round/halves', 'round', nd('halves')),
              case('sqrt/float16', 'sqrt', nd('f16')),
              case('exp/float64', 'exp', nd('r34d'), grad=(0,))]
    for act in ('relu', 'sigmoid', 'tanh', 'softrelu', 'softsign'):
        cases.append(case('Activation/%s' % act, 'Activation', nd('r34'), act_type=act,
                          grad=(0,)))
    cases += [case('LeakyReLU/leaky', 'LeakyReLU', nd('r34'), slope=0.1, grad=(0,)),
              case('LeakyReLU/elu', 'LeakyReLU', nd('r34'), act_type='elu', slope=0.7,
                   grad=(0,)),
              case('clip/grad', 'clip', nd('r34'), -0.5, 0.5, grad=(0,)),
              case('cast/int32', 'cast', nd('r34'), dtype='int32'),
              case('Cast/float16', 'Cast', nd('r34'), dtype='float16'),
              case('cast/grad', 'cast', nd('r34'), dtype='float64', grad=(0,)),
              case('BlockGrad', 'BlockGrad', nd('r34')),
              case('identity/grad', 'identity', nd('r34'), grad=(0,)),
              case('zeros_like', 'zeros_like', nd('i23')),
              case('ones_like', 'ones_like', nd('r34'))]
    return cases


def reduction_cases():
    r = nd('r234')
    cases = []
    for name in ('sum', 'mean', 'max', 'min', 'prod'):
        cases += [case('%s/all' % name, name, r, grad=(0,)),
                  case('%s/axis1-keepdims' % name, name, r, axis=1, keepdims=True, grad=(0,)),
                  case('%s/axes-exclude' % name, name, r, axis=tup(0, 2), exclude=True,
                       grad=(0,)),
                  case('%s/int32' % name, name, nd('i23'), axis=0)]
    cases += [case('sum_axis', 'sum_axis', r, axis=2),
              case('mean/uint8', 'mean', nd('u8')),
              case('norm/l2', 'norm', r, grad=(0,)),
              case('norm/l1-axis', 'norm', r, ord=1, axis=1, grad=(0,)),
              case('norm/l2-keepdims', 'norm', r, axis=tup(1, 2), keepdims=True, grad=(0,)),
              case('norm/out-dtype', 'norm', r, out_dtype='float64'),
              case('norm/ord3', 'norm', r, ord=3),
              case('argmax/axis', 'argmax', nd('r34'), axis=1),
              case('argmax/all', 'argmax', nd('r34')),
              case('argmax/keepdims', 'argmax', nd('r34'), axis=0, keepdims=True),
              case('argmin/int32', 'argmin', nd('i23'), axis=1),
              method('method/sum', 'sum', r, axis=1),
              method('method/max-positional', 'max', r, 0, True)]
    return cases


def shape_cases():
    x, r = nd('x23'), nd('r234')
    return [
        case('reshape/codes', 'reshape', r, shape=tup(-1, 0), grad=(0,)),
        case('reshape/split-code', 'reshape', r, shape=tup(-4, 1, 2, -2)),
        case('reshape/merge-code', 'reshape', r, shape=tup(-3, -2)),
        case('reshape/reverse', 'reshape', r, shape=tup(0, -1), reverse=True),
        case('reshape_like', 'reshape_like', x, nd('ones32'), grad=(0,)),
        case('reshape_like/ranges', 'reshape_like', r, nd('b245'), lhs_begin=1, lhs_end=3,
             rhs_begin=0, rhs_end=1),
        case('flatten', 'flatten', r, grad=(0,)),
        case('Flatten/1d', 'Flatten', nd('v3')),
        case('expand_dims/negative', 'expand_dims', x, axis=-1, grad=(0,)),
        case('squeeze/all', 'squeeze', nd('col21')),
        case('squeeze/axes', 'squeeze', nd('col21'), axis=1, grad=(0,)),
        case('transpose/default', 'transpose', r, grad=(0,)),
        case('transpose/axes', 'transpose', r, axes=tup(2, 0, 1), grad=(0,)),
        case('swapaxes', 'swapaxes', r, 0, 2, grad=(0,)),
        case('SwapAxis/negative', 'SwapAxis', r, dim1=0, dim2=-1),
        case('tile/reps', 'tile', x, reps=tup(2, 1, 2), grad=(0,)),
        case('tile/empty-reps', 'tile', x, reps=tup()),
        case('repeat/axis', 'repeat', x, repeats=2, axis=-1, grad=(0,)),
        case('repeat/flat', 'repeat', x, repeats=2, grad=(0,)),
        case('repeat/zero', 'repeat', x, repeats=0),
        case('stack/axis', 'stack', x, x, axis=2, grad=(0, 1)),
        case('stack/negative-axis', 'stack', x, x, axis=-3),
        case('stack/axis-too-large', 'stack', x, x, axis=3),
        case('split/parts', 'split', r, num_outputs=3, axis=1, grad=(0,)),
        case('split/squeeze', 'split', x, num_outputs=2, axis=0, squeeze_axis=True,
             grad=(0,)),
        case('split/one', 'split', x, num_outputs=1),
        case('flip/axes', 'flip', r, axis=tup(0, 2), grad=(0,)),
        case('reverse', 'reverse', x, axis=1),
        case('broadcast_to', 'broadcast_to', nd('col21'), shape=tup(2, 3), grad=(0,)),
        case('broadcast_to/zero-keeps', 'broadcast_to', nd('col21'), shape=tup(0, 3)),
        case('broadcast_axis', 'broadcast_axis', nd('col21'), axis=1, size=3, grad=(0,)),
        case('broadcast_axes', 'broadcast_axes', nd('col21'), axis=1, size=3),
        case('broadcast_like', 'broadcast_like', nd('col21'), x, grad=(0,)),
        case('broadcast_like/axes', 'broadcast_like', nd('col21'), x, lhs_axes=tup(1),
             rhs_axes=tup(1)),
        method('method/reshape-view', 'reshape', r, 4, 6),
        method('method/flatten', 'flatten', r),
        method('method/expand_dims', 'expand_dims', x, 0),
        method('method/split', 'split', x, 3),
        method('method/broadcast_to', 'broadcast_to', nd('v3'), tup(2, 3)),
        method('method/transpose', 'transpose', r, tup(1, 0, 2)),
    ]


def indexing_cases():
    x, r = nd('x23'), nd('r234')
    return [
        case('slice/bounds', 'slice', r, begin=tup(0, 1), end=tup(2, 3), grad=(0,)),
        case('slice/none-and-step', 'slice', r, begin=tup(None, None, 3),
             end=tup(None, None, 0), step=tup(1, 1, -1), grad=(0,)),
        case('slice/negative', 'slice', x, begin=tup(-1, -2), end=tup(None, None)),
        case('slice_axis', 'slice_axis', r, axis=2, begin=1, end=3, grad=(0,)),
        case('slice_axis/end-none', 'slice_axis', r, axis=1, begin=-2, end=None),
        case('slice_axis/empty', 'slice_axis', r, axis=1, begin=1, end=1),
        case('take/axis1', 'take', r, nd('idx3'), axis=1, grad=(0,)),
        case('take/2d-indices', 'take', x, nd('mask23')),
        case('pick/axis1', 'pick', x, nd('idx2'), axis=1, grad=(0,)),
        case('pick/keepdims', 'pick', x, nd('idx2'), axis=1, keepdims=True),
        case('pick/wrap', 'pick', x, nd('row2'), axis=0, mode='wrap'),
        case('pick/clip-out-of-range', 'pick', x, nd('oob3'), axis=0),
        case('one_hot', 'one_hot', nd('idx3'), 4),
        case('one_hot/values', 'one_hot', nd('idx_oob'), 3, on_value=2.5, off_value=-1,
             dtype='int32'),
        case('where/full', 'where', nd('mask23'), x, nd('mask23'), grad=(1, 2)),
        case('where/rows', 'where', nd('row2'), x, nd('mask23'), grad=(1, 2)),
        case('where/int-condition', 'where', nd('i23'), x, x),
    ]


def layer_cases():
    x = nd('x23')
    return [
        case('FullyConnected', 'FullyConnected', x, nd('w43'), nd('b4'), num_hidden=4,
             grad=(0, 1, 2)),
        case('FullyConnected/no-bias', 'FullyConnected', x, nd('w43'), num_hidden=4,
             no_bias=True, grad=(0, 1)),
        case('FullyConnected/no-flatten', 'FullyConnected', nd('b234'), nd('r34'),
             num_hidden=3, no_bias=True, flatten=False, grad=(0, 1)),
        case('Embedding', 'Embedding', nd('ids_emb'), nd('emb43'), input_dim=4, output_dim=3,
             grad=(1,)),
        case('Embedding/wrong-dims', 'Embedding', nd('ids_emb'), nd('emb43'), input_dim=5,
             output_dim=3),
        case('softmax', 'softmax', nd('r34'), grad=(0,)),
        case('softmax/axis0-temperature', 'softmax', nd('r34'), axis=0, temperature=2.0,
             grad=(0,)),
        case('softmax/dtype', 'softmax', nd('r34'), dtype='float64', tol=(1e-6, 1e-7)),
        case('softmax/float16', 'softmax', nd('f16')),
        case('log_softmax', 'log_softmax', nd('r34'), axis=0, grad=(0,)),
        case('dot', 'dot', x, nd('ones32'), grad=(0, 1)),
        case('dot/transposes', 'dot', nd('r34'), nd('r34'), transpose_a=True, grad=(0, 1)),
        case('dot/nd', 'dot', nd('r234'), nd('w43'), transpose_b=True, grad=(0, 1)),
        case('batch_dot', 'batch_dot', nd('b234'), nd('b245'), grad=(0, 1)),
        case('batch_dot/transpose', 'batch_dot', nd('b234'), nd('b234'), transpose_b=True,
             grad=(0, 1)),
    ]


def creation_cases():
    return [
        case('zeros', 'zeros', tup(2, 3)),
        case('zeros/int-shape', 'zeros', 4, dtype='int32'),
        case('ones/dtype-type', 'ones', tup(2), dtype={'dtype': 'float64'}),
        case('ones/ctx', 'ones', tup(2), ctx={'ctx': 'cpu(1)'}),
        case('full', 'full', tup(2, 3), 7),
        case('full/int', 'full', tup(2, 3), 7.5, dtype='int32'),
        case('arange', 'arange', 5),
        case('arange/step', 'arange', 0, 5, 0.5),
        case('arange/repeat', 'arange', 0, 5, repeat=2),
        case('arange/negative-step', 'arange', 5, 0, -1),
        case('arange/int-dtype', 'arange', 2.5, dtype='int32'),
        case('arange/zero-step', 'arange', 0, 5, 0),
        case('arange/empty-range', 'arange', 5, 0),
        case('arange/zero-repeat', 'arange', 0, 5, repeat=0),
        case('arange/text', 'arange', 'a'),
        case('array/int64-becomes-float32', 'array', {'np': 'i23'}),
    ]


# ---------------------------------------------------------------------- the in-scope set (issue 11)
def math_cases():
    domain = {'arcsin': 'unit34', 'arccos': 'unit34', 'arctanh': 'unit34', 'erfinv': 'unit34',
              'arccosh': 'gt1', 'rcbrt': 'pos34', 'gamma': 'pos34', 'gammaln': 'pos34'}
    cases = []
    for name in ('tan', 'arcsin', 'arccos', 'arctan', 'sinh', 'cosh', 'arcsinh', 'arccosh',
                 'arctanh', 'degrees', 'radians', 'rcbrt', 'erf', 'erfinv', 'gamma', 'gammaln'):
        cases.append(case('%s/float32' % name, name, nd(domain.get(name, 'r34')), grad=(0,)))
        if name != 'erfinv':  # integers outside (-1, 1) give NaN/inf: C's casts of those
            cases.append(case('%s/int32' % name, name, nd('i23')))
        cases.append(method('method/%s' % name, name, nd(domain.get(name, 'r34'))))
    cases += [
        case('rint/halves', 'rint', nd('halves')), case('fix/halves', 'fix', nd('halves')),
        case('rint/grad', 'rint', nd('r34'), grad=(0,)),
        case('arcsin/out-of-domain', 'arcsin', nd('x23')),
        case('logical_not', 'logical_not', nd('mask23')),
        case('logical_not/int32', 'logical_not', nd('i23')),
        case('hard_sigmoid', 'hard_sigmoid', nd('r34'), grad=(0,)),
        case('hard_sigmoid/params', 'hard_sigmoid', nd('r234'), alpha=0.5, beta=0.2,
             grad=(0,)),
        case('smooth_l1', 'smooth_l1', nd('r34'), grad=(0,)),
        case('smooth_l1/scalar', 'smooth_l1', nd('r34'), scalar=2.0, grad=(0,)),
        case('softmin', 'softmin', nd('r34'), grad=(0,)),
        case('softmin/axis0', 'softmin', nd('r34'), axis=0, temperature=0.5, grad=(0,)),
        case('softmin/int32', 'softmin', nd('i23')),
        method('method/softmin', 'softmin', nd('r34')),
        method('method/fix', 'fix', nd('halves')),
        method('method/rint', 'rint', nd('halves')),
        case('L2Normalization', 'L2Normalization', nd('r234'), grad=(0,)),
        case('L2Normalization/channel', 'L2Normalization', nd('r234'), mode='channel',
             grad=(0,)),
        case('L2Normalization/spatial', 'L2Normalization', nd('img'), mode='spatial',
             grad=(0,)),
        case('L2Normalization/spatial-2d', 'L2Normalization', nd('x23'), mode='spatial'),
    ]
    return cases


def nan_reduction_cases():
    n = nd('nan34')
    return [case('nansum/all', 'nansum', n, grad=(0,)),
            case('nansum/axis', 'nansum', n, axis=1, keepdims=True, grad=(0,)),
            case('nanprod/all', 'nanprod', n, grad=(0,)),
            case('nanprod/axis-exclude', 'nanprod', n, axis=0, exclude=True, grad=(0,)),
            case('nansum/axis-out-of-range', 'nansum', n, axis=2),
            method('method/nansum', 'nansum', n, axis=0),
            method('method/nanprod', 'nanprod', n),
            case('argmax_channel', 'argmax_channel', nd('r234')),
            method('method/argmax_channel', 'argmax_channel', nd('r34'))]


def gather_scatter_cases():
    x = nd('x23')
    return [
        case('gather_nd', 'gather_nd', x, nd('sidx'), grad=(0,)),
        case('gather_nd/rows', 'gather_nd', nd('r234'), nd('gidx'), grad=(0,)),
        case('gather_nd/negative', 'gather_nd', x, nd('gidx_neg')),
        case('gather_nd/negative-grad', 'gather_nd', x, nd('gidx_neg'), grad=(0,)),
        case('gather_nd/out-of-range', 'gather_nd', x, nd('gidx_oob')),
        case('gather_nd/fractional', 'gather_nd', x, nd('gidx_frac')),
        case('gather_nd/too-many-axes', 'gather_nd', x, nd('gidx')),
        case('scatter_nd', 'scatter_nd', nd('pair'), nd('sidx'), shape=tup(2, 3), grad=(0,)),
        case('scatter_nd/duplicates', 'scatter_nd', nd('pair'), nd('sidx_dup'),
             shape=tup(2, 3)),
        case('scatter_nd/out-of-range', 'scatter_nd', nd('pair'), nd('sidx_oob'),
             shape=tup(2, 3)),
        case('scatter_nd/bad-shape', 'scatter_nd', nd('v3'), nd('sidx'), shape=tup(2, 3)),
        case('slice_like', 'slice_like', nd('r34'), x, grad=(0,)),
        case('slice_like/axes', 'slice_like', nd('r34'), x, axes=tup(1), grad=(0,)),
        case('slice_like/negative-axis', 'slice_like', nd('r34'), x, axes=tup(-1)),
        case('slice_like/rank-mismatch', 'slice_like', nd('r34'), nd('r234')),
        case('slice_like/too-big', 'slice_like', x, nd('r34')),
        method('method/slice_like', 'slice_like', nd('r34'), x, axes=tup(0)),
        case('diag/vector', 'diag', nd('v3'), grad=(0,)),
        case('diag/vector-k', 'diag', nd('v3'), k=-1, grad=(0,)),
        case('diag/matrix', 'diag', nd('r34'), grad=(0,)),
        case('diag/matrix-k', 'diag', nd('r34'), k=2, grad=(0,)),
        case('diag/matrix-k-negative', 'diag', nd('r34'), k=-1),
        case('diag/missing', 'diag', nd('r34'), k=5),
        case('diag/3d', 'diag', nd('r234'), axis1=1, axis2=2, grad=(0,)),
        case('diag/3d-k', 'diag', nd('r234'), k=1, axis1=0, axis2=2, grad=(0,)),
        case('diag/same-axes', 'diag', nd('r234'), axis1=1, axis2=1),
        method('method/diag', 'diag', nd('sq33'), 1),
        case('take/method-like', 'take', nd('r34'), nd('idx2'), axis=-1, mode='wrap'),
        method('method/take', 'take', nd('r34'), nd('idx3')),
        method('method/take-axis', 'take', nd('r34'), nd('idx2'), axis=1),
        method('method/slice', 'slice', nd('r34'), begin=tup(1, 0), end=tup(3, 2)),
        method('method/slice_axis', 'slice_axis', nd('r34'), axis=1, begin=1, end=3),
        method('method/pick', 'pick', x, nd('idx2'), axis=1),
        method('method/one_hot', 'one_hot', nd('idx3'), 3),
    ]


def layout_cases():
    img, vol = nd('img'), nd('vol')
    pad4, pad5 = tup(0, 0, 0, 0, 1, 2, 2, 1), tup(0, 0, 0, 0, 1, 1, 2, 0, 1, 2)
    cases = []
    for mode in ('constant', 'edge', 'reflect'):
        cases += [case('pad/%s-4d' % mode, 'pad', img, mode=mode, pad_width=pad4,
                       grad=(0,)),
                  case('pad/%s-5d' % mode, 'Pad', vol, mode=mode, pad_width=pad5,
                       grad=(0,))]
    cases += [
        case('pad/constant-value', 'pad', img, mode='constant', pad_width=pad4,
             constant_value=2.5),
        case('pad/2d', 'pad', nd('x23'), mode='constant', pad_width=tup(1, 1, 1, 1)),
        case('pad/batch-axis', 'pad', img, mode='constant', pad_width=tup(1, 1, 0, 0, 1, 1,
                                                                          1, 1)),
        case('pad/short-width', 'pad', img, mode='constant', pad_width=tup(0, 0, 0, 0, 1, 1)),
        case('pad/reflect-too-wide', 'pad', img, mode='reflect',
             pad_width=tup(0, 0, 0, 0, 4, 0, 0, 0)),
        case('pad/no-mode', 'pad', img, pad_width=pad4),
        method('method/pad', 'pad', img, mode='edge', pad_width=pad4),
        case('depth_to_space', 'depth_to_space', nd('dep'), 2, grad=(0,)),
        case('depth_to_space/indivisible', 'depth_to_space', img, 2),
        case('space_to_depth', 'space_to_depth', nd('s2d'), 2, grad=(0,)),
        case('space_to_depth/block-1', 'space_to_depth', nd('img'), 1),
        case('space_to_depth/indivisible', 'space_to_depth', img, 2),
        method('method/depth_to_space', 'depth_to_space', nd('dep'), 2),
        method('method/space_to_depth', 'space_to_depth', nd('dep'), 1),
        case('shape_array', 'shape_array', nd('r234')),
        case('size_array', 'size_array', nd('r234')),
        method('method/shape_array', 'shape_array', nd('r34')),
        method('method/size_array', 'size_array', nd('r34')),
        case('split_v2/sections', 'split_v2', nd('r234'), 2, axis=2, grad=(0,)),
        case('split_v2/indices', 'split_v2', nd('r234'), tup(1, 3), axis=2, grad=(0,)),
        case('split_v2/squeeze', 'split_v2', nd('x23'), 2, axis=0, squeeze_axis=True),
        case('split_v2/uneven', 'split_v2', nd('x23'), 2, axis=1),
        case('split_v2/list', 'split_v2', nd('x23'), [1, 2], axis=1),
        case('concatenate', 'concatenate', [nd('x23'), nd('x23')], axis=1, grad=()),
        case('concatenate/default-axis', 'concatenate', [nd('x23'), nd('x23')]),
        case('moveaxis', 'moveaxis', nd('r234'), 0, 2, grad=(0,)),
        case('moveaxis/lists', 'moveaxis', nd('r234'), [0, 1], [2, 0]),
        case('moveaxis/out-of-range', 'moveaxis', nd('r234'), 3, 0),
        case('eye', 'eye', 3), case('eye/rect-k', 'eye', 3, 4, 1),
        case('eye/negative-k-int', 'eye', 3, k=-1, dtype='int32'),
        case('eye/empty', 'eye', 0), case('eye/negative', 'eye', -1),
        case('eye/float', 'eye', 2.5), case('eye/bool', 'eye', 2, dtype='bool'),
        case('linspace', 'linspace', 0, 1, 5),
        case('linspace/no-endpoint', 'linspace', 0, 1, 5, endpoint=False, dtype='float64'),
        case('linspace/descending', 'linspace', 1, 0, 3),
        case('linspace/int', 'linspace', 0, 1, 5, dtype='int32'),
        case('linspace/empty', 'linspace', 0, 1, 0),
        case('linspace/negative', 'linspace', 0, 1, -1),
    ]
    return cases


def ordering_cases():
    t, r = nd('ties'), nd('r234')
    cases = [
        case('sort', 'sort', r, grad=(0,)), case('sort/descending', 'sort', r, axis=1,
                                                 is_ascend=False, grad=(0,)),
        case('sort/flat', 'sort', r, axis=None, grad=(0,)),
        case('sort/int32', 'sort', nd('i23'), is_ascend=False),
        case('sort/axis-out-of-range', 'sort', r, axis=3),
        case('argsort/ties', 'argsort', t), case('argsort/ties-descending', 'argsort', t,
                                                 is_ascend=False),
        case('argsort/int64', 'argsort', r, axis=0, dtype='int64'),
        case('argsort/flat', 'argsort', r, axis=None),
        case('argsort/bad-dtype', 'argsort', r, dtype='int8'),
        case('topk/default', 'topk', r), case('topk/ties', 'topk', t, k=3),
        case('topk/ascending', 'topk', t, k=3, is_ascend=True),
        case('topk/value', 'topk', r, k=2, ret_typ='value', grad=(0,)),
        case('topk/value-axis0', 'topk', r, axis=0, k=1, ret_typ='value', grad=(0,)),
        case('topk/mask', 'topk', t, k=3, ret_typ='mask'),
        case('topk/mask-int', 'topk', nd('i23'), ret_typ='mask'),
        case('topk/both', 'topk', r, k=2, ret_typ='both', grad=(0,)),
        case('topk/all', 'topk', t, k=0), case('topk/negative-k', 'topk', t, k=-1),
        case('topk/k-too-large', 'topk', t, k=6), case('topk/flat', 'topk', nd('x23'),
                                                       axis=None, k=2),
        case('topk/axis-out-of-range', 'topk', nd('x23'), axis=2),
        case('topk/int64-indices', 'topk', r, k=2, dtype='int64'),
        case('cumsum/flat', 'cumsum', r, grad=(0,)),
        case('cumsum/axis', 'cumsum', r, axis=1, grad=(0,)),
        case('cumsum/negative-axis', 'cumsum', r, axis=-1),
        case('cumsum/axis-out-of-range', 'cumsum', r, axis=3),
        case('cumsum/dtype', 'cumsum', nd('x23'), axis=1, dtype='int32'),
        case('cumsum/int32', 'cumsum', nd('i23')),
        case('cumsum/uint8', 'cumsum', nd('u8')),
        case('cumsum/bool', 'cumsum', nd('bools')),
        case('cumsum/dtype-none', 'cumsum', nd('x23'), dtype=None),
    ]
    for name in ('sort', 'argsort', 'topk'):
        cases.append(method('method/%s' % name, name, r, axis=1))
    return cases


def sampler_cases():
    """Distributions: shapes, dtypes and errors exactly; mean and std within sampling error."""
    n = tup(40000)

    def stats(case_id, call, *args, tol=(0.03, 0.03), **kwargs):
        return case(case_id, call, *args, compare='stats', tol=tol, **kwargs)

    def shape(case_id, call, *args, **kwargs):
        return case(case_id, call, *args, compare='shape', **kwargs)
    return [
        stats('random.uniform', 'random.uniform', -1, 3, shape=n),
        stats('random.normal', 'random.normal', 2, 0.5, shape=n),
        stats('random.randn', 'random.randn', 200, 200, loc=1.0),
        stats('random.exponential', 'random.exponential', 2.0, shape=n),
        stats('random.gamma', 'random.gamma', 2.0, 1.5, shape=n),
        stats('random.poisson', 'random.poisson', 3.0, shape=n),
        stats('random.negative_binomial', 'random.negative_binomial', 3, 0.4, shape=n,
              tol=(0.05, 0.05)),
        stats('random.generalized_negative_binomial', 'random.generalized_negative_binomial',
              3.0, 0.4, shape=n, tol=(0.05, 0.05)),
        stats('random.randint', 'random.randint', -3, 7, shape=n),
        stats('random.multinomial', 'random.multinomial', nd('probs'), shape=tup(20000)),
        stats('random.uniform/ndarray', 'random.uniform', nd('lows'), nd('highs'), shape=n),
        stats('random.normal/ndarray', 'random.normal', nd('lows'), nd('highs'), shape=n),
        stats('sample_uniform', 'sample_uniform', nd('lows'), nd('highs'), shape=n),
        stats('sample_normal', 'sample_normal', nd('lows'), nd('highs'), shape=n),
        stats('sample_multinomial', 'sample_multinomial', nd('probs'), shape=tup(20000)),
        stats('uniform/flat', 'uniform', 0, 2, shape=n),
        stats('random_normal/flat', 'random_normal', shape=n),
        stats('random.uniform_like', 'random.uniform_like', {'zeros': [200, 200]}, low=1,
              high=2),
        stats('random.normal_like', 'random.normal_like', {'zeros': [200, 200]}, scale=2.0),
        shape('random.uniform/default-shape', 'random.uniform'),
        shape('random.uniform/float16', 'random.uniform', 0, 1, shape=tup(3),
              dtype='float16'),
        shape('random.uniform/dtype-none', 'random.uniform', 0, 1, shape=tup(3), dtype=None),
        shape('random.uniform/int-dtype', 'random.uniform', 0, 1, shape=tup(3), dtype='int32'),
        shape('random.uniform/low-above-high', 'random.uniform', 2, 1, shape=tup(3)),
        shape('random.uniform/mixed-params', 'random.uniform', nd('lows'), 2),
        shape('random.uniform/text-params', 'random.uniform', 'a', 2),
        shape('random.uniform/out', 'random.uniform', 0, 1, out={'zeros': [3]}),
        shape('random.uniform/out-float64', 'random.uniform', 5, 6,
              out={'zeros': [3, 4], 'dtype': 'float64'}),
        shape('random.uniform/out-dtype-mismatch', 'random.uniform', 5, 6, shape=tup(3, 4),
              dtype='float32', out={'zeros': [3, 4], 'dtype': 'float64'}),
        shape('random.randint/out-int64', 'random.randint', 5, 6,
              out={'zeros': [3, 4], 'dtype': 'int64'}),
        shape('random.normal/ndarray-out', 'random.normal', nd('pair'), nd('ones2'), shape=2,
              out={'zeros': [2, 2], 'dtype': 'float64'}),
        shape('random.uniform/out-mismatch', 'random.uniform', 0, 1, shape=tup(2),
              out={'zeros': [3]}),
        shape('random.uniform/float-shape', 'random.uniform', 0, 1, shape=tup(2.5)),
        shape('random.uniform/unknown-kwarg', 'random.uniform', 0, 1, shape=tup(2), foo=1),
        shape('random.normal/negative-scale', 'random.normal', 0, -1, shape=tup(3)),
        shape('random.normal/zero-scale', 'random.normal', 0, 0, shape=tup(3)),
        shape('random.exponential/negative', 'random.exponential', -2, shape=tup(3)),
        shape('random.gamma/negative', 'random.gamma', -2, 3, shape=tup(3)),
        shape('random.poisson/negative', 'random.poisson', -3, shape=tup(3)),
        shape('random.randint/int64', 'random.randint', 0, 5, shape=tup(4), dtype='int64'),
        shape('random.randint/float-dtype', 'random.randint', 0, 5, shape=tup(4),
              dtype='float32'),
        shape('random.randint/float-low', 'random.randint', 0.5, 5, shape=tup(4)),
        shape('random.randint/reversed', 'random.randint', 5, 0, shape=tup(4)),
        shape('random.randn/no-shape', 'random.randn'),
        shape('random.multinomial/rows', 'random.multinomial', nd('probs')),
        shape('random.multinomial/get-prob', 'random.multinomial', nd('probs'), shape=tup(2),
              get_prob=True),
        shape('random.multinomial/float-dtype', 'random.multinomial', nd('probs'),
              dtype='float32'),
        shape('random.shuffle', 'random.shuffle', nd('r34')),
        shape('shuffle/flat', 'shuffle', nd('r234')),
        shape('uniform/no-shape', 'uniform'),
        shape('sample_uniform/param-shapes', 'sample_uniform', nd('lows'), nd('v3')),
        shape('sample_exponential', 'sample_exponential', nd('highs'), shape=tup(2, 3)),
        shape('sample_poisson/float64', 'sample_poisson', nd('highs'), dtype='float64'),
        shape('sample_gamma/default-shape', 'sample_gamma', nd('highs'), nd('highs')),
        shape('random.poisson_like', 'random.poisson_like', nd('x23'), lam=2.0),
        shape('random_exponential', 'random_exponential', shape=tup(2, 2)),
    ]


def all_cases():
    cases = (misuse_cases() + arithmetic_cases() + unary_cases() + reduction_cases()
             + shape_cases() + indexing_cases() + layer_cases() + creation_cases()
             + math_cases() + nan_reduction_cases() + gather_scatter_cases() + layout_cases()
             + ordering_cases() + sampler_cases() + ops_cases_kernels.kernels_cases())
    ids = [c['id'] for c in cases]
    duplicates = {i for i in ids if ids.count(i) > 1}
    if duplicates:
        raise ValueError('duplicate case ids: %s' % sorted(duplicates))
    return cases


#: Cases where gluonedu deliberately differs from MXNet 1.9.1 (docs/divergences.md):
#: why, and the outcome gluonedu gives instead ('ok' or an error class name).
DIVERGENCES = {
    'transpose/axis-twice': ('MXNet 1.9.1 crashes (segmentation fault)', 'MXNetError'),
    'reshape/wrong-size': ('MXNet 1.9.1 returns an array of 7 elements, one of them read '
                           'past the input', 'MXNetError'),
    'stack/shape-mismatch': ('MXNet 1.9.1 stacks arrays of different shapes, reading past '
                             'the smaller one', 'MXNetError'),
    'arith/int-div-zero': ('MXNet 1.9.1 crashes (SIGFPE); gluonedu gives the cast of the '
                           'float quotient', 'ok'),
    'scatter_nd/out-of-range': ('MXNet 1.9.1 writes past its output for an index out of '
                                'range (some runs abort, signal 6); gluonedu skips such ids',
                                'ok'),
    'gather_nd/negative-grad': ('MXNet 1.9.1 corrupts its heap (double free) differentiating '
                                'gather_nd with a negative index', 'ok'),
    'sort': ('MXNet 1.9.1 cannot differentiate sort along axis -1 (its backward receives an '
             'empty axis)', 'ok'),
    'random.normal/zero-scale': ('MXNet 1.9.1 refuses scale=0; gluonedu returns loc, so that '
                                 'SGLD with a zero learning rate (lr_mult=0) runs', 'ok'),
    'slice/empty-negative-begin': ('MXNet 1.9.1 returns an empty array for this empty range '
                                   'but refuses x[1:0] and the like; gluonedu refuses every '
                                   'empty range of a positive step', 'MXNetError'),
    'norm/int32': ('MXNet 1.9.1 returns the largest |element| as the L2 norm of an integer '
                   'array; gluonedu computes the norm (truncated to the dtype)', 'ok'),
}

import ops_cases_nnops  # noqa: E402 (RNN, LRN, ROIPooling, spatial transformers: issue 11)
all_cases, make_inputs, DIVERGENCES = ops_cases_nnops.extend(all_cases, make_inputs, DIVERGENCES)

import ops_cases_kernels  # noqa: E402  (its cases use the helpers above)
DIVERGENCES.update(ops_cases_kernels.DIVERGENCES)

from ops_cases_fuzzfix import extended as _fuzzfix  # noqa: E402  (issue 15's fuzz finds)
all_cases, make_inputs = _fuzzfix(all_cases, make_inputs)

from ops_cases_scalars import extended as _scalars  # noqa: E402  (a number on either side)
all_cases, make_inputs = _scalars(all_cases, make_inputs)

from ops_cases_linalg import extended  # noqa: E402
all_cases, make_inputs = extended(all_cases, make_inputs, DIVERGENCES)
