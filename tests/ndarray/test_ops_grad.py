"""Every differentiable operator's gradient against central finite differences.

``check_grad(op, inputs)`` runs ``op`` on float64 NDArrays under ``autograd.record()``,
back-propagates a random head gradient ``h`` and compares each input's ``grad`` with the
numerical derivative of ``sum(h * op(inputs))``. Inputs are drawn away from the kinks of
piecewise operators and inside the domains of the others.
"""
import numpy as np
import pytest

import gluonedu as mx
from gluonedu import autograd, nd
from gluonedu.test_utils import assert_almost_equal

EPS = 1e-6


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def numeric_grad(f, arrays, heads, eps=EPS):
    """Central differences of ``sum_k sum(heads[k] * f(*arrays)[k])`` w.r.t. each array.

    ``f`` maps NumPy float64 arrays to an NDArray or a list of NDArrays.
    """
    def objective():
        outs = _as_list(f(*arrays))
        return sum(float((h * o.asnumpy()).sum()) for h, o in zip(heads, outs))

    grads = []
    for x in arrays:
        g = np.zeros_like(x)
        flat_x, flat_g = x.reshape(-1), g.reshape(-1)
        assert np.shares_memory(flat_x, x), "numeric_grad needs C-contiguous inputs"
        for i in range(flat_x.size):
            old = flat_x[i]
            flat_x[i] = old + eps
            up = objective()
            flat_x[i] = old - eps
            down = objective()
            flat_x[i] = old
            flat_g[i] = (up - down) / (2 * eps)
        grads.append(g)
    return grads


def check_grad(op, inputs, consts=(), rtol=1e-5, atol=1e-6, seed=0):
    """Check autograd's gradients of ``op(*inputs, *consts)`` against finite differences.

    ``inputs`` are NumPy arrays (made float64 and differentiated); ``consts`` are passed
    through unchanged (index arrays, conditions). Returns the analytic gradients.
    """
    rng = np.random.RandomState(seed)
    inputs = [np.array(x, dtype=np.float64, order='C') for x in inputs]

    def run(*arrays):
        return op(*[nd.array(a, dtype='float64') for a in arrays], *consts)

    variables = [nd.array(x, dtype='float64') for x in inputs]
    for v in variables:
        v.attach_grad()
    with autograd.record():
        outs = _as_list(op(*variables, *consts))
    heads = [rng.randn(*o.shape) for o in outs]
    for o in outs:
        assert o.dtype == np.float64, "the op should keep float64"
    autograd.backward(outs, [nd.array(h, dtype='float64') for h in heads])
    expected = numeric_grad(run, inputs, heads)
    for i, (v, want) in enumerate(zip(variables, expected)):
        assert_almost_equal(v.grad, want, rtol=rtol, atol=atol,
                            names=('autograd d%d' % i, 'numeric d%d' % i))
    return [v.grad.asnumpy() for v in variables]


def away_from(x, kinks, gap=1e-2):
    """``x`` with every entry at least ``gap`` away from each kink."""
    x = np.array(x, dtype=np.float64)
    for k in kinks:
        close = np.abs(x - k) < gap
        x[close] = k + np.where(x[close] >= k, gap, -gap) * 2
    return x


def rand(*shape, low=-2.0, high=2.0, seed=1):
    return np.random.RandomState(seed).uniform(low, high, size=shape)


# ---------------------------------------------------------------------- unary
UNARY = {
    # name: (function, (low, high) of the domain, kinks)
    'abs': (nd.abs, (-2, 2), [0]),
    'sqrt': (nd.sqrt, (0.2, 3), []),
    'rsqrt': (nd.rsqrt, (0.2, 3), []),
    'cbrt': (nd.cbrt, (0.2, 3), []),
    'square': (nd.square, (-2, 2), []),
    'exp': (nd.exp, (-2, 2), []),
    'expm1': (nd.expm1, (-2, 2), []),
    'log': (nd.log, (0.2, 3), []),
    'log1p': (nd.log1p, (-0.5, 3), []),
    'log2': (nd.log2, (0.2, 3), []),
    'log10': (nd.log10, (0.2, 3), []),
    'negative': (nd.negative, (-2, 2), []),
    'reciprocal': (nd.reciprocal, (0.3, 3), []),
    'sin': (nd.sin, (-3, 3), []),
    'cos': (nd.cos, (-3, 3), []),
    'relu': (nd.relu, (-2, 2), [0]),
    'sigmoid': (nd.sigmoid, (-4, 4), []),
    'tanh': (nd.tanh, (-2, 2), []),
    'softsign': (nd.softsign, (-2, 2), []),
    'neg_operator': (lambda x: -x, (-2, 2), []),
    'abs_operator': (lambda x: abs(x), (-2, 2), [0]),
    'method_exp': (lambda x: x.exp(), (-2, 2), []),
    'identity': (nd.identity, (-2, 2), []),
}


@pytest.mark.parametrize('name', sorted(UNARY))
def test_unary_grad(name):
    f, (low, high), kinks = UNARY[name]
    x = away_from(rand(3, 4, low=low, high=high), kinks)
    check_grad(f, [x])


def test_astype_passes_the_gradient_back_in_the_input_dtype():
    x = nd.array(rand(2, 3), dtype='float64')
    x.attach_grad()
    with autograd.record():
        y = (x.astype('float32') * 2).sum()
    y.backward()
    assert x.grad.dtype == np.float64
    assert (x.grad.asnumpy() == 2).all()


@pytest.mark.parametrize('name', ['sign', 'floor', 'ceil', 'round', 'trunc'])
def test_piecewise_constant_ops_have_zero_grad(name):
    x = away_from(rand(2, 3), [-2, -1.5, -1, -0.5, 0, 0.5, 1, 1.5, 2])
    grad = check_grad(getattr(nd, name), [x])
    assert not grad[0].any()


@pytest.mark.parametrize('act_type, kinks', [('relu', [0]), ('sigmoid', []), ('tanh', []),
                                             ('softrelu', []), ('softsign', [])])
def test_activation_grad(act_type, kinks):
    x = away_from(rand(4, 3, low=-3, high=3), kinks)
    check_grad(lambda a: nd.Activation(a, act_type=act_type), [x])


@pytest.mark.parametrize('act_type, slope', [('leaky', 0.25), ('leaky', 0.1), ('elu', 0.3)])
def test_leaky_relu_grad(act_type, slope):
    x = away_from(rand(3, 4), [0])
    check_grad(lambda a: nd.LeakyReLU(a, act_type=act_type, slope=slope), [x])


def test_clip_grad_is_one_inside_and_zero_outside():
    x = away_from(rand(4, 5), [-0.5, 0.7])
    grad = check_grad(lambda a: nd.clip(a, -0.5, 0.7), [x])
    inside = (x > -0.5) & (x < 0.7)
    assert (grad[0][~inside] == 0).all() and (grad[0][inside] != 0).all()


# ---------------------------------------------------------------------- binary
BINARY = {
    'add': (lambda a, b: a + b, 'any'),
    'subtract': (lambda a, b: a - b, 'any'),
    'multiply': (lambda a, b: a * b, 'any'),
    'divide': (lambda a, b: a / b, 'nonzero_b'),
    'power': (lambda a, b: a ** b, 'positive_a'),
    'mod': (lambda a, b: a % b, 'mod'),
    'maximum': (nd.maximum, 'distinct'),
    'minimum': (nd.minimum, 'distinct'),
    'broadcast_add': (nd.broadcast_add, 'any'),
    'broadcast_sub': (nd.broadcast_sub, 'any'),
    'broadcast_mul': (nd.broadcast_mul, 'any'),
    'broadcast_div': (nd.broadcast_div, 'nonzero_b'),
    'broadcast_power': (nd.broadcast_power, 'positive_a'),
    'broadcast_maximum': (nd.broadcast_maximum, 'distinct'),
    'broadcast_minimum': (nd.broadcast_minimum, 'distinct'),
}

SHAPES = [((3, 4), (3, 4)),  # same shape
          ((3, 4), (1, 4)),  # rhs broadcast
          ((3, 1), (3, 4)),  # lhs broadcast
          ((2, 1, 4), (3, 1)),  # both broadcast, ranks differ
          ((4,), (2, 3, 4))]  # lhs of lower rank


def _binary_inputs(kind, shape_a, shape_b):
    a, b = rand(*shape_a, seed=2), rand(*shape_b, seed=3)
    if kind == 'nonzero_b':
        b = away_from(b, [0], gap=0.3)
    elif kind == 'positive_a':
        a = np.abs(a) + 0.2
    elif kind == 'mod':
        a, b = np.abs(a) * 3 + 0.1, np.abs(b) + 0.5
        # keep a / b away from integers, where a % b jumps
        frac = a / b % 1 if a.shape == b.shape else None
        if frac is not None:
            a = np.where((frac < 0.05) | (frac > 0.95), a + 0.2 * b, a)
    elif kind == 'distinct':
        b = b + 0.05  # ties are measure-zero, but make them impossible on this grid
    return a, b


@pytest.mark.parametrize('shapes', SHAPES, ids=lambda s: '%s-%s' % s)
@pytest.mark.parametrize('name', sorted(BINARY))
def test_binary_grad_with_broadcasting(name, shapes):
    f, kind = BINARY[name]
    if kind == 'mod' and shapes[0] != shapes[1]:
        shapes = shapes[1], shapes[1]
    a, b = _binary_inputs(kind, *shapes)
    check_grad(f, [a, b])


def test_grads_of_an_input_used_twice_accumulate():
    x = nd.array(rand(3, 4))
    x.attach_grad()
    with autograd.record():
        y = x * x + x
    y.backward()
    assert_almost_equal(x.grad, 2 * x.asnumpy() + 1)
    check_grad(lambda a: a * a + a.sum(axis=0), [rand(3, 4)])


SCALAR_OPS = {
    'x+s': (lambda x: x + 1.5, 'any'), 's+x': (lambda x: 1.5 + x, 'any'),
    'x-s': (lambda x: x - 1.5, 'any'), 's-x': (lambda x: 1.5 - x, 'any'),
    'x*s': (lambda x: x * 1.5, 'any'), 's*x': (lambda x: 1.5 * x, 'any'),
    'x/s': (lambda x: x / 1.5, 'any'), 's/x': (lambda x: 1.5 / x, 'nonzero'),
    'x**s': (lambda x: x ** 2.5, 'positive'), 's**x': (lambda x: 1.5 ** x, 'any'),
    'x**2': (lambda x: x ** 2, 'any'),
    'x%s': (lambda x: x % 0.7, 'mod'), 's%x': (lambda x: 5.0 % x, 'rmod'),
    'maximum(x,s)': (lambda x: nd.maximum(x, 0.3), 'kink'),
    'minimum(s,x)': (lambda x: nd.minimum(0.3, x), 'kink'),
}


@pytest.mark.parametrize('name', sorted(SCALAR_OPS))
def test_scalar_operand_grad(name):
    f, kind = SCALAR_OPS[name]
    x = rand(3, 4, seed=4)
    if kind == 'nonzero':
        x = away_from(x, [0], gap=0.3)
    elif kind == 'positive':
        x = np.abs(x) + 0.2
    elif kind == 'mod':
        x = away_from(x, [k * 0.7 for k in range(-3, 4)], gap=0.05)
    elif kind == 'rmod':
        x = np.abs(x) + 0.5
        x = np.where(np.abs(5.0 / x - np.round(5.0 / x)) < 0.05, x + 0.1, x)
    elif kind == 'kink':
        x = away_from(x, [0.3])
    check_grad(f, [x])


@pytest.mark.parametrize('op', ['equal', 'not_equal', 'greater', 'greater_equal', 'lesser',
                                'lesser_equal'])
def test_comparisons_have_zero_grad(op):
    a, b = rand(3, 4, seed=5), rand(1, 4, seed=6)
    grads = check_grad(getattr(nd, op), [a, b])
    assert not grads[0].any() and not grads[1].any()


# ---------------------------------------------------------------------- linear algebra
@pytest.mark.parametrize('shape_a, shape_b, ta, tb', [
    ((3, 4), (4, 2), False, False),
    ((4, 3), (4, 2), True, False),
    ((3, 4), (2, 4), False, True),
    ((4, 3), (2, 4), True, True),
    ((5,), (5,), False, False),
    ((4,), (4, 3), False, False),
    ((2, 3, 4), (4, 2), False, False),
    ((2, 3, 4), (4, 2, 3), False, False),
    ((4, 3, 2), (4, 5), True, False),    # N-D lhs seen as (4, 6), transposed
    ((2, 3, 4), (5, 3, 4), False, True),  # N-D rhs seen as (15, 4), transposed
])
def test_dot_grad(shape_a, shape_b, ta, tb):
    a, b = rand(*shape_a, seed=7), rand(*shape_b, seed=8)
    check_grad(lambda x, y: nd.dot(x, y, transpose_a=ta, transpose_b=tb), [a, b])


def test_dot_of_nd_arrays_with_transpose_flags_follows_mxnet():
    a, b = np.arange(24.).reshape(4, 3, 2), np.arange(20.).reshape(4, 5)
    out = nd.dot(nd.array(a), nd.array(b), transpose_a=True)
    assert out.shape == (3, 2, 5)
    assert_almost_equal(out, (a.reshape(4, 6).T @ b).reshape(3, 2, 5))
    c = np.arange(40.).reshape(5, 2, 4)
    out = nd.dot(nd.array(a.reshape(2, 3, 4)), nd.array(c), transpose_b=True)
    assert out.shape == (2, 3, 5, 2)
    assert_almost_equal(out, (a.reshape(6, 4) @ c.reshape(10, 4).T).reshape(2, 3, 5, 2))


@pytest.mark.parametrize('ta, tb', [(False, False), (True, False), (False, True), (True, True)])
def test_batch_dot_grad(ta, tb):
    a = rand(*((2, 4, 3) if ta else (2, 3, 4)), seed=9)
    b = rand(*((2, 5, 4) if tb else (2, 4, 5)), seed=10)
    check_grad(lambda x, y: nd.batch_dot(x, y, transpose_a=ta, transpose_b=tb), [a, b])


@pytest.mark.parametrize('data_shape, flatten', [((4, 3), True), ((2, 3, 4), True),
                                                 ((2, 3, 4), False)])
@pytest.mark.parametrize('with_bias', [True, False])
def test_fully_connected_grad(data_shape, flatten, with_bias):
    in_units = int(np.prod(data_shape[1:])) if flatten else data_shape[-1]
    x, w, b = rand(*data_shape, seed=11), rand(5, in_units, seed=12), rand(5, seed=13)
    if with_bias:
        check_grad(lambda d, wt, bs: nd.FullyConnected(d, wt, bs, num_hidden=5, flatten=flatten),
                   [x, w, b])
    else:
        check_grad(lambda d, wt: nd.FullyConnected(d, wt, None, num_hidden=5, no_bias=True,
                                                   flatten=flatten), [x, w])


# ---------------------------------------------------------------------- softmax family
@pytest.mark.parametrize('axis', [-1, 0, 1])
@pytest.mark.parametrize('temperature', [None, 2.0])
@pytest.mark.parametrize('fn', ['softmax', 'log_softmax'])
def test_softmax_grad(fn, axis, temperature):
    x = rand(2, 3, 4, seed=14)
    check_grad(lambda a: getattr(nd, fn)(a, axis=axis, temperature=temperature), [x])


# ---------------------------------------------------------------------- selection & sums
def test_where_grad_routes_to_the_chosen_side():
    cond = nd.array([[1, 0, 1], [0, 0, 1]], dtype='float64')
    x, y = rand(2, 3, seed=15), rand(2, 3, seed=16)
    gx, gy = check_grad(lambda a, b, c: nd.where(c, a, b), [x, y], consts=[cond])
    chosen = cond.asnumpy() != 0
    assert not gx[~chosen].any() and not gy[chosen].any()


def test_where_with_row_condition_grad():
    cond = nd.array([1, 0], dtype='float64')
    check_grad(lambda a, b, c: nd.where(c, a, b), [rand(2, 3, seed=17), rand(2, 3, seed=18)],
               consts=[cond])


def test_add_n_grad():
    check_grad(lambda a, b, c: nd.add_n(a, b, c), [rand(2, 3, seed=s) for s in (19, 20, 21)])


# ---------------------------------------------------------------------- broadcasting & shape
SHAPE_OPS = {
    'broadcast_to': ((3, 1, 2), lambda x: nd.broadcast_to(x, shape=(3, 4, 2))),
    'broadcast_to_keep0': ((1, 2), lambda x: nd.broadcast_to(x, shape=(3, 0))),
    'broadcast_axis': ((2, 1, 1), lambda x: nd.broadcast_axis(x, axis=(1, 2), size=(3, 4))),
    'broadcast_like': ((1, 3), lambda x: nd.broadcast_like(x, nd.zeros((4, 3)))),
    'reshape_codes': ((2, 3, 4), lambda x: x.reshape((0, -1))),
    'reshape_split': ((2, 6), lambda x: nd.reshape(x, shape=(0, -4, 2, -1))),
    'flatten': ((2, 3, 2), nd.flatten),
    'expand_dims': ((2, 3), lambda x: nd.expand_dims(x, axis=1)),
    'squeeze': ((2, 1, 3), nd.squeeze),
    'transpose': ((2, 3, 4), nd.transpose),
    'transpose_axes': ((2, 3, 4), lambda x: nd.transpose(x, axes=(1, 2, 0))),
    'T': ((2, 3), lambda x: x.T),
    'swapaxes': ((2, 3, 4), lambda x: nd.swapaxes(x, 0, 2)),
    'tile': ((2, 3), lambda x: nd.tile(x, reps=(2, 1, 2))),
    'repeat_axis': ((2, 3), lambda x: nd.repeat(x, repeats=3, axis=1)),
    'repeat_flat': ((2, 3), lambda x: nd.repeat(x, repeats=2)),
    'slice': ((4, 5), lambda x: nd.slice(x, begin=(1, None), end=(3, 4))),
    'slice_step': ((4, 5), lambda x: nd.slice(x, begin=(None, 4), end=(None, 0),
                                              step=(2, -2))),
    'slice_axis': ((3, 4), lambda x: nd.slice_axis(x, axis=1, begin=1, end=3)),
    'slice_axis_neg': ((3, 4), lambda x: nd.slice_axis(x, axis=-1, begin=-2, end=None)),
    'flip': ((3, 4), lambda x: nd.flip(x, axis=1)),
    'getitem_int': ((3, 4), lambda x: x[1]),
    'getitem_slices': ((3, 4, 2), lambda x: x[1:, ::2, -1]),
    'getitem_ellipsis': ((3, 4, 2), lambda x: x[..., 0]),
    'getitem_nd_index': ((4, 3), lambda x: x[nd.array([0, 2, 0, 3])]),
    'getitem_list_index': ((4, 3), lambda x: x[[1, 1, 3]]),
    'getitem_mixed_advanced': ((4, 3), lambda x: x[nd.array([0, 2, 2]), nd.array([1, 0, 1])]),
}


@pytest.mark.parametrize('name', sorted(SHAPE_OPS))
def test_shape_op_grad(name):
    shape, f = SHAPE_OPS[name]
    check_grad(f, [rand(*shape, seed=22)])


def test_concat_and_stack_grad():
    a, b = rand(2, 3, seed=23), rand(2, 1, seed=24)
    check_grad(lambda x, y: nd.concat(x, y, dim=1), [a, b])
    check_grad(lambda x, y: nd.concat(x, y, dim=0), [a.T, b.T])
    check_grad(lambda x, y: nd.stack(x, y, axis=1), [a, a + 1])


@pytest.mark.parametrize('squeeze_axis', [False, True])
def test_split_grad_all_outputs(squeeze_axis):
    x = rand(2, 3, 4, seed=25)
    check_grad(lambda a: nd.split(a, num_outputs=3, axis=1, squeeze_axis=squeeze_axis), [x])


def test_split_grad_when_only_some_outputs_are_used():
    x = rand(4, 2, seed=26)
    grad = check_grad(lambda a: nd.split(a, num_outputs=2, axis=0)[1] * 3, [x])
    assert not grad[0][:2].any()


@pytest.mark.parametrize('axis, mode, ids', [(0, 'clip', [0, 5, -1, 1]), (1, 'clip', [[0, 2]]),
                                             (0, 'wrap', [0, 5, -1, 1])])
def test_take_grad_accumulates_repeated_rows(axis, mode, ids):
    indices = nd.array(ids, dtype='float64')
    check_grad(lambda a, i: nd.take(a, i, axis=axis, mode=mode), [rand(3, 4, seed=27)],
               consts=[indices])


@pytest.mark.parametrize('axis, keepdims', [(1, False), (0, False), (-1, True)])
def test_pick_grad(axis, keepdims):
    x = rand(3, 4, seed=28)
    index = nd.array([0, 3, 1] if axis % 2 else [2, 0, 1, 1], dtype='float64')
    check_grad(lambda a, i: nd.pick(a, i, axis=axis, keepdims=keepdims), [x], consts=[index])


# ---------------------------------------------------------------------- reductions
@pytest.mark.parametrize('axis, keepdims, exclude', [
    (None, False, False), (0, False, False), (1, True, False), ((0, 2), False, False),
    (-1, False, False), (1, False, True), ((0, 1), True, True)])
@pytest.mark.parametrize('name', ['sum', 'mean', 'max', 'min', 'prod'])
def test_reduction_grad(name, axis, keepdims, exclude):
    x = rand(2, 3, 4, seed=29)
    if name == 'prod':
        x = np.abs(x) + 0.5
    check_grad(lambda a: getattr(nd, name)(a, axis=axis, keepdims=keepdims, exclude=exclude),
               [x])


@pytest.mark.parametrize('ord', [1, 2])
@pytest.mark.parametrize('axis, keepdims', [(None, False), (1, False), ((0, 2), True)])
def test_norm_grad(ord, axis, keepdims):
    x = away_from(rand(2, 3, 4, seed=30), [0])
    check_grad(lambda a: nd.norm(a, ord=ord, axis=axis, keepdims=keepdims), [x])


def test_reduction_methods_grad():
    x = rand(3, 4, seed=31)
    check_grad(lambda a: a.sum(axis=1) * a.mean() + a.max(axis=0).sum() + a.norm(), [x])


# ---------------------------------------------------------------------- Embedding & Dropout
def test_embedding_dense_grad():
    ids = nd.array([[0, 2], [2, 3], [9, 0]], dtype='float64')  # 9 is clipped to 3
    check_grad(lambda w, i: nd.Embedding(i, w, input_dim=4, output_dim=3), [rand(4, 3)],
               consts=[ids])


def test_embedding_sparse_grad_equals_dense_grad():
    ids = nd.array([[0, 2], [2, 3], [3, 0]])
    weight = rand(6, 3, seed=32)
    grads = {}
    for sparse_grad in (False, True):
        w = nd.array(weight)
        w.attach_grad(stype='row_sparse' if sparse_grad else 'default')
        with autograd.record():
            y = nd.Embedding(ids, w, input_dim=6, output_dim=3, sparse_grad=sparse_grad)
        head = nd.array(np.random.RandomState(33).randn(*y.shape))
        y.backward(head)
        grads[sparse_grad] = w.grad
    assert grads[True].stype == 'row_sparse'
    assert grads[True].indices.asnumpy().tolist() == [0, 2, 3]
    assert_almost_equal(grads[True].tostype('default'), grads[False])


def test_embedding_sparse_grad_into_dense_buffer():
    ids = nd.array([1, 1, 4])
    w = nd.array(rand(5, 2, seed=34))
    w.attach_grad()
    with autograd.record():
        y = nd.Embedding(ids, w, input_dim=5, output_dim=2, sparse_grad=True)
    y.backward()
    assert w.grad.stype == 'default'
    assert w.grad.asnumpy().tolist() == [[0, 0], [2, 2], [0, 0], [0, 0], [1, 1]]


@pytest.mark.parametrize('p', [0.2, 0.5])
def test_dropout_always_grad_is_mask_over_keep_probability(p):
    x = nd.array(rand(20, 30, seed=35))
    x.attach_grad()
    mx.random.seed(7)
    with autograd.record():
        y = nd.Dropout(x, p=p, mode='always')
    y.backward()
    mask = y.asnumpy() != 0
    assert 0 < mask.mean() < 1 and abs(mask.mean() - (1 - p)) < 0.05
    assert_almost_equal(x.grad, mask / (1 - p), rtol=1e-5, atol=1e-6)
    assert_almost_equal(y, x.asnumpy() * mask / (1 - p), rtol=1e-5, atol=1e-6)
    # the same seed gives the same mask
    mx.random.seed(7)
    again = nd.Dropout(x, p=p, mode='always')
    assert (again.asnumpy() != 0).tolist() == mask.tolist()


def test_dropout_with_shared_axes_uses_one_mask_per_row():
    mx.random.seed(3)
    x = nd.ones((6, 50))
    x.attach_grad()
    with autograd.record():
        y = nd.Dropout(x, p=0.5, mode='always', axes=(1,))
    y.backward()
    rows = y.asnumpy()
    assert all(len(set(r)) == 1 for r in rows)
    assert_almost_equal(x.grad, rows)


def test_broadcast_to_method_adding_axes_grad():
    check_grad(lambda x: x.broadcast_to((2, 3, 4)), [rand(3, 1, seed=36)])


# ---------------------------------------------------------------------- the in-scope set (issue 11)
MORE_UNARY = {
    'tan': (nd.tan, (-1, 1)), 'arcsin': (nd.arcsin, (-0.8, 0.8)),
    'arccos': (nd.arccos, (-0.8, 0.8)), 'arctan': (nd.arctan, (-2, 2)),
    'sinh': (nd.sinh, (-2, 2)), 'cosh': (nd.cosh, (-2, 2)), 'arcsinh': (nd.arcsinh, (-2, 2)),
    'arccosh': (nd.arccosh, (1.2, 3)), 'arctanh': (nd.arctanh, (-0.8, 0.8)),
    'degrees': (nd.degrees, (-2, 2)), 'radians': (nd.radians, (-2, 2)),
    'rcbrt': (nd.rcbrt, (0.3, 3)), 'erf': (nd.erf, (-2, 2)), 'erfinv': (nd.erfinv, (-0.8, 0.8)),
    'gamma': (nd.gamma, (0.5, 3)), 'gammaln': (nd.gammaln, (0.5, 3)),
    'softmin': (nd.softmin, (-2, 2)), 'hard_sigmoid': (nd.hard_sigmoid, (-2, 2)),
    'smooth_l1': (lambda a: nd.smooth_l1(a, scalar=1.5), (-2, 2)),
    'method_arcsin': (lambda a: a.arcsin(), (-0.8, 0.8)),
}


@pytest.mark.parametrize('name', sorted(MORE_UNARY))
def test_more_unary_grad(name):
    f, (low, high) = MORE_UNARY[name]
    kinks = {'hard_sigmoid': [-2.5, 2.5], 'smooth_l1': [-1 / 2.25, 1 / 2.25]}.get(name, [])
    check_grad(f, [away_from(rand(3, 4, low=low, high=high), kinks)])


@pytest.mark.parametrize('name', ['rint', 'fix', 'logical_not'])
def test_more_piecewise_constant_ops_have_zero_grad(name):
    x = away_from(rand(2, 3), [-2, -1.5, -1, -0.5, 0, 0.5, 1, 1.5, 2])
    assert not check_grad(getattr(nd, name), [x])[0].any()


def test_nan_reductions_grad_skips_the_nans():
    x = rand(3, 4)
    for f in (lambda a: nd.nansum(a, axis=1), lambda a: nd.nanprod(a, axis=0)):
        check_grad(f, [x])
    x[1, 2] = np.nan
    a = nd.array(x, dtype='float64')
    a.attach_grad()
    with autograd.record():
        nd.nansum(a).backward()
    assert a.grad.asnumpy()[1, 2] == 0 and a.grad.asnumpy().sum() == 11


@pytest.mark.parametrize('mode', ['instance', 'channel', 'spatial'])
def test_l2_normalization_grad(mode):
    check_grad(lambda a: nd.L2Normalization(a, mode=mode), [rand(2, 3, 4)])


@pytest.mark.parametrize('mode', ['constant', 'edge', 'reflect'])
@pytest.mark.parametrize('shape, pad_width', [((1, 2, 3, 4), (0, 0, 0, 0, 1, 2, 2, 1)),
                                              ((1, 1, 3, 3, 3), (0, 0, 0, 0, 1, 0, 2, 1, 1, 2))])
def test_pad_grad(mode, shape, pad_width):
    check_grad(lambda a: nd.pad(a, mode=mode, pad_width=pad_width, constant_value=0.5),
               [rand(*shape)])


INDEXING_OPS = {
    'gather_nd': (lambda a: nd.gather_nd(a, nd.array([[1, 0, 1], [2, 0, 2]])), (2, 3, 4)),
    'scatter_nd': (lambda a: nd.scatter_nd(a, nd.array([[1, 0], [2, 0]]), shape=(2, 3, 2)),
                   (2, 2)),
    'slice_like': (lambda a: nd.slice_like(a, nd.zeros((2, 2)), axes=(0, 1)), (3, 4)),
    'diag_vector': (lambda a: nd.diag(a, k=1), (3,)),
    'diag_matrix': (lambda a: nd.diag(a, k=-1), (4, 3)),
    'diag_3d': (lambda a: nd.diag(a, k=1, axis1=0, axis2=2), (3, 2, 4)),
    'depth_to_space': (lambda a: nd.depth_to_space(a, 2), (1, 8, 2, 3)),
    'space_to_depth': (lambda a: nd.space_to_depth(a, 2), (1, 2, 4, 6)),
    'split_v2': (lambda a: nd.split_v2(a, (1, 3), axis=1), (2, 5)),
    'moveaxis': (lambda a: nd.moveaxis(a, 0, 2), (2, 3, 4)),
    'cumsum_flat': (nd.cumsum, (2, 3)),
    'cumsum_axis': (lambda a: nd.cumsum(a, axis=1), (2, 3, 4)),
    'sort': (lambda a: nd.sort(a, axis=0, is_ascend=False), (4, 3)),
    'topk_value': (lambda a: nd.topk(a, k=2, ret_typ='value'), (3, 5)),
    'topk_both': (lambda a: nd.topk(a, k=2, ret_typ='both', axis=0)[0], (4, 3)),
    'take_method': (lambda a: a.take(nd.array([2, 0, 2])), (3, 4)),
    'slice_method': (lambda a: a.slice(begin=(1, None), end=(3, None)), (4, 3)),
}


@pytest.mark.parametrize('name', sorted(INDEXING_OPS))
def test_indexing_and_ordering_grad(name):
    f, shape = INDEXING_OPS[name]
    check_grad(f, [rand(*shape, seed=5)])


def test_multinomial_log_probability_grad_is_one_over_p_at_the_samples():
    probs = nd.array([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]], dtype='float64')
    probs.attach_grad()
    with autograd.record():
        ids, log_p = nd.random.multinomial(probs, shape=4, get_prob=True)
    log_p.backward()
    p, ids = probs.asnumpy(), ids.asnumpy()
    expected = np.zeros_like(p)
    for row in range(2):
        for i in ids[row]:
            expected[row, i] += 1 / p[row, i]
    np.testing.assert_allclose(probs.grad.asnumpy(), expected)
    np.testing.assert_allclose(log_p.asnumpy(), np.log(np.take_along_axis(p, ids, axis=1)))
