"""Sparse storage parity cases, run against an MXNet-like module ``mx`` — MXNet 1.9.1 or gluonedu.

Both sides execute *this same code* (the oracle passes ``mxnet``, the tests pass
``gluonedu``); it imports neither package and runs on NumPy 1.23 and 2.

Two kinds of case:

* **operator cases** (:data:`OP_CASES`): ``name -> fn(mx, inputs, workdir)`` returning a
  dict of results. :func:`describe` turns each result into plain values: the storage
  type, dtype and dense values of an array (plus ``indices``/``indptr`` where the case
  asks for the stored structure), or the class name of the exception it raised;
* **training cases** (:func:`training_cases`): a linear model on CSR features (or a
  sparse embedding) trained step by step with the case's optimizer; the result holds
  the full weights, the weight gradient and the rows it stored after every step.

Inputs (:func:`make_inputs`, seeded): a (ROWS, FEATURES) CSR feature matrix as its three
arrays, targets, initial weights, dense operands and embedding ids.
"""
import os

import numpy as np

ROWS, FEATURES, UNITS = 24, 40, 3
BATCH, STEPS = 6, 8
EMB_ROWS, EMB_DIM = 30, 4


def make_inputs(seed=0):
    """Seeded host arrays for every case."""
    rng = np.random.RandomState(seed)
    f32 = np.float32
    dense = (rng.rand(ROWS, FEATURES) < 0.12) * rng.randn(ROWS, FEATURES)
    dense[3] = 0                                   # an empty row
    dense[:, 7] = 0                                # a column no row uses
    rows, cols = np.nonzero(dense)
    indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=ROWS))])
    small = np.array([[0, 1, 0], [2, 0, 3], [0, 0, 0], [4, 0, 0]], dtype=f32)
    return {
        'x_data': dense[rows, cols].astype(f32), 'x_indices': cols.astype(np.int64),
        'x_indptr': indptr.astype(np.int64), 'x_dense': dense.astype(f32),
        'y': rng.randn(ROWS, UNITS).astype(f32),
        'w': (rng.randn(FEATURES, UNITS) * 0.1).astype(f32),
        'b': (rng.randn(UNITS) * 0.1).astype(f32),
        'small': small, 'small_other': (np.arange(12).reshape(4, 3) / 4 + 0.5).astype(f32),
        'col': np.array([[1], [2], [3], [4]], dtype=f32),
        'row': np.array([[1, 2, 3]], dtype=f32),
        'emb_w': (rng.randn(EMB_ROWS, EMB_DIM) * 0.3).astype(f32),
        'emb_ids': rng.randint(0, EMB_ROWS, size=(STEPS, BATCH)).astype(f32),
        'emb_y': rng.randn(STEPS, BATCH, EMB_DIM).astype(f32),
    }


# ---------------------------------------------------------------------- results
def describe(x, structure=False):
    """Plain values for an array result: {'stype', 'dtype', 'dense'[, 'indices', 'indptr']}."""
    out = {'stype': x.stype, 'dtype': np.dtype(x.dtype).name, 'dense': x.asnumpy()}
    if structure and x.stype == 'csr':
        out['indices'] = x.indices.asnumpy()
        out['indptr'] = x.indptr.asnumpy()
    if structure and x.stype == 'row_sparse':
        out['indices'] = x.indices.asnumpy()
    return out


def run_op_case(mx, name, inputs, workdir):
    """``{result name: describe(...)}`` of one operator case, or ``{'error': class name}``."""
    try:
        results = OP_CASES[name](mx, inputs, workdir)
    except Exception as exc:  # the class name is what both sides must agree on
        return {'error': type(exc).__name__}
    return {key: (describe(*value) if isinstance(value, tuple) else describe(value))
            for key, value in results.items()}


def _csr(mx, inputs, key='x'):
    return mx.nd.sparse.csr_matrix((inputs[key + '_data'], inputs[key + '_indices'],
                                    inputs[key + '_indptr']), shape=(ROWS, FEATURES))


def _small(mx, inputs):
    return mx.nd.array(inputs['small']).tostype('csr')


# ---------------------------------------------------------------------- operator cases
def _construction(mx, inputs, _):
    nd = mx.nd
    x = _csr(mx, inputs)
    return {
        'triple': (x, True),
        'triple_f64': (nd.sparse.csr_matrix((inputs['x_data'].astype('float64'),
                                             inputs['x_indices'], inputs['x_indptr']),
                                            shape=(ROWS, FEATURES)), True),
        'triple_lists_shape_inferred': (nd.sparse.csr_matrix(
            ([1.0, 2, 3], [1, 0, 2], [0, 1, 3, 3])), True),
        'triple_dtype': nd.sparse.csr_matrix(([1, 2, 3], [1, 0, 2], [0, 1, 3, 3]),
                                             shape=(3, 4), dtype='float16'),
        'dense_numpy_f64': (nd.sparse.csr_matrix(inputs['small'].astype('float64')), True),
        'dense_list': (nd.sparse.csr_matrix([[0, 1], [2, 0]]), True),
        'dense_ndarray': (nd.sparse.csr_matrix(nd.array(inputs['small'])), True),
        'shape_only': (nd.sparse.csr_matrix((3, 4)), True),
        'copy_of_csr_f64': nd.sparse.csr_matrix(x, dtype='float64'),
        'tostype': (nd.array(inputs['x_dense']).tostype('csr'), True),
        'back_to_dense': x.tostype('default'),
        'cast_storage': (nd.cast_storage(nd.array(inputs['small']), stype='csr'), True),
        'zeros': (nd.zeros((3, 5), stype='csr'), True),
        'sparse_zeros_f64': (nd.sparse.zeros('csr', (2, 3), dtype='float64'), True),
        'empty': nd.sparse.empty('csr', (2, 3)),
        'sparse_array': nd.sparse.array(x),
        'data': x.data, 'indices': x.indices, 'indptr': x.indptr,
    }


def _properties(mx, inputs, _):
    x = _csr(mx, inputs)
    moved = x.copyto(mx.cpu(1))
    return {'copy': x.copy(), 'copyto_cpu1': moved, 'as_in_context': x.as_in_context(mx.cpu(1)),
            'astype_f64': x.astype('float64'),
            'context_is_cpu1': mx.nd.array([float(moved.context == mx.cpu(1))]),
            'ndim_len': mx.nd.array([x.ndim, len(x)])}


def _slicing(mx, inputs, _):
    x = _csr(mx, inputs)
    nd = mx.nd
    return {'rows_2_9': (x[2:9], True), 'row_5': (x[5], True), 'row_minus1': (x[-1], True),
            'head': (x[:4], True), 'tail': (x[-3:], True), 'clipped_end': (x[20:100], True),
            'empty_row': (x[3], True), 'whole': x[:],
            'slice_op_rows': (nd.sparse.slice(x, begin=(2,), end=(6,)), True),
            'slice_op_block': (nd.sparse.slice(x, begin=(1, 5), end=(9, 30)), True)}


def _arithmetic(mx, inputs, _):
    nd, sp = mx.nd, mx.nd.sparse
    c = _small(mx, inputs)
    d = nd.array(inputs['small_other'])
    col, row = nd.array(inputs['col']), nd.array(inputs['row'])
    r = nd.array(inputs['small_other']).tostype('row_sparse')
    r2 = nd.array(inputs['small']).tostype('row_sparse')
    return {
        'c*2': c * 2, '2*c': 2 * c, 'c/2': c / 2, 'neg': -c, 'c+1': c + 1, 'c-1': c - 1,
        'c+c': c + c, 'c-c': c - c, 'c*c': c * c, 'c/c': c / c, 'c+d': c + d, 'd+c': d + c,
        'c*d': c * d, 'd*c': d * c, 'c*col': c * col, 'c*row': c * row,
        'c/col': c / col, 'c-col': c - col, 'c**2': c ** 2, 'c%2': c % 2, '1-c': 1 - c,
        '2/c': 2 / c, 'c>0': c > 0, 'c>-1': c > -1, 'c<1': c < 1, 'c>=0': c >= 0,
        'c==0': c == 0, 'c==1': c == 1, 'c!=0': c != 0, 'c<0': c < 0, 'c<=0': c <= 0,
        'c>c': c > c, 'r>0': r > 0, 'r/r': r / r, 'abs': abs(c),
        'add': sp.add(c, c), 'add_dense': sp.add(c, d), 'subtract': sp.subtract(c, c),
        'multiply': sp.multiply(c, d), 'multiply_dense_first': sp.multiply(d, c),
        'multiply_scalar': sp.multiply(c, 3), 'divide_scalar': sp.divide(c, 4),
        'divide_dense': sp.divide(c, d), 'elemwise_add': sp.elemwise_add(c, c),
        'elemwise_sub': sp.elemwise_sub(c, c), 'elemwise_mul': sp.elemwise_mul(c, c),
        'elemwise_mul_cd': sp.elemwise_mul(c, d), 'elemwise_mul_dc': sp.elemwise_mul(d, c),
        'elemwise_add_cd': sp.elemwise_add(c, d), 'broadcast_mul': sp.broadcast_mul(c, row),
        'broadcast_div': sp.broadcast_div(c, col), 'broadcast_add': sp.broadcast_add(c, col),
        'r+r': r + r2, 'r-r': r - r2, 'r*r': r * r2, 'r*2': r * 2, 'r/2': r / 2, '-r': -r,
        'r+1': r + 1, 'r*d': r * d, 'r/d': r / d, 'r+c': r + c,
        'rsp_elemwise_mul_dr': sp.elemwise_mul(d, r),
    }


def _in_place(mx, inputs, _):
    nd = mx.nd
    a, b, c = _small(mx, inputs), _small(mx, inputs), _small(mx, inputs)
    a += a
    b *= 2
    c += 1
    d = nd.zeros((4, 3), stype='csr')
    d[:] = nd.array(inputs['small_other'])
    e = nd.zeros((4, 3), stype='csr')
    e[:] = _small(mx, inputs)
    r = nd.array(inputs['small']).tostype('row_sparse')
    r *= 3
    return {'iadd': a, 'imul': b, 'iadd_scalar': c, 'assign_dense': d, 'assign_csr': e,
            'rsp_imul': r}


def _elementwise(mx, inputs, _):
    sp = mx.nd.sparse
    x = _csr(mx, inputs)
    r = mx.nd.array(inputs['small']).tostype('row_sparse')
    out = {name: getattr(sp, name)(x) for name in
           ('abs', 'sign', 'square', 'negative', 'relu', 'floor', 'ceil', 'round', 'trunc',
            'sin', 'tanh', 'expm1', 'cbrt', 'exp', 'cos', 'sigmoid')}
    out['sqrt'] = sp.sqrt(sp.abs(x))
    out['log1p'] = sp.log1p(sp.abs(x))
    out['clip'] = sp.clip(x, -0.5, 0.7)
    out['rsp_square'] = sp.square(r)
    out['rsp_clip'] = sp.clip(r, -1, 2)
    out['zeros_like'] = sp.zeros_like(x)
    out['stop_gradient'] = sp.stop_gradient(x)
    out['method_abs'], out['method_square'] = x.abs(), x.square()
    out['method_clip'] = x.clip(0, 1)
    return out


def _elementwise_math(mx, inputs, _):
    """Trigonometric, hyperbolic, rounding and gamma functions on csr and row_sparse inputs
    (values in (-1, 1), each function's domain): f(0) = 0 keeps the storage, else dense."""
    sp = mx.nd.sparse
    small = inputs['small'] / 5
    arrays = {'csr': mx.nd.array(small).tostype('csr'),
              'rsp': mx.nd.array(small).tostype('row_sparse')}
    return {'%s_%s' % (kind, name): getattr(sp, name)(x) for kind, x in arrays.items()
            for name in ('arccos', 'arccosh', 'arcsin', 'arcsinh', 'arctan', 'arctanh', 'cosh',
                         'degrees', 'fix', 'gamma', 'gammaln', 'radians', 'rint', 'sinh',
                         'tan')}


def _reductions(mx, inputs, _):
    sp = mx.nd.sparse
    x = _csr(mx, inputs)
    return {'sum': sp.sum(x), 'sum0': sp.sum(x, axis=0), 'sum1': sp.sum(x, axis=1),
            'sum1_keep': sp.sum(x, axis=1, keepdims=True), 'mean1': sp.mean(x, axis=1),
            'mean': sp.mean(x), 'norm': sp.norm(x), 'method_sum1': x.sum(axis=1),
            'method_mean0': x.mean(axis=0), 'nd_sum_fallback': mx.nd.sum(x, axis=0),
            'rsp_sum0': sp.sum(mx.nd.array(inputs['small']).tostype('row_sparse'), axis=0)}


def _dots(mx, inputs, _):
    nd = mx.nd
    x = _csr(mx, inputs)
    w = nd.array(inputs['w'])
    rows = nd.array(inputs['y'])                        # (ROWS, UNITS)
    w_rsp = nd.sparse.retain(w.tostype('row_sparse'), nd.array([0, 2, 5, 9, 11, 30],
                                                               dtype='int64'))
    return {
        'dot': nd.sparse.dot(x, w), 'nd_dot': nd.dot(x, w),
        'dot_T': (nd.sparse.dot(x, rows, transpose_a=True), True),
        'nd_dot_T': (nd.dot(x, rows, transpose_a=True), True),
        'dot_rsp': nd.sparse.dot(x, w_rsp),
        'dot_T_rsp': nd.sparse.dot(x, rows.tostype('row_sparse'), transpose_a=True),
        'dot_f64': nd.sparse.dot(x.astype('float64'), w.astype('float64')),
        'dense_dot_csr': nd.dot(nd.array(inputs['y']).T, x),
        'dense_dot_csr_T': nd.dot(nd.array(inputs['y']), x, transpose_a=True),
        'csr_dot_dense_Tb': nd.dot(x, w.T, transpose_b=True),
        'csr_dot_csr_Tb': nd.dot(x, x, transpose_b=True),
        'forward_stype_default': nd.dot(x, rows, transpose_a=True, forward_stype='default'),
        'forward_stype_rsp': nd.dot(x, w, forward_stype='row_sparse'),
        'out': nd.sparse.dot(x, w, out=nd.zeros((ROWS, UNITS))),
    }


def _dot_gradients(mx, inputs, _):
    nd, autograd = mx.nd, mx.autograd
    x = _csr(mx, inputs)
    head = nd.array(inputs['y'])
    out = {}
    for stype in (None, 'row_sparse'):
        for transpose in (False, True):
            w = nd.array(inputs['w'] if not transpose else inputs['y'])
            w.attach_grad(stype=stype)
            with autograd.record():
                y = nd.sparse.dot(x, w, transpose_a=transpose)
                loss = (y * (nd.array(inputs['w']) if transpose else head)).sum()
            loss.backward()
            out['grad_%s_%s' % (stype or 'default', 'T' if transpose else 'N')] = (w.grad, True)
    w = nd.array(inputs['w'])
    w.attach_grad(stype='row_sparse')
    with autograd.record():
        loss = (nd.dot(x[4:12], w) + 1).square().sum()
    loss.backward()
    out['grad_chain_nd_dot'] = (w.grad, True)
    return out


def _save_load(mx, inputs, workdir):
    nd = mx.nd
    fname = os.path.join(workdir, 'sparse_arrays.nd')
    nd.save(fname, {'x': _csr(mx, inputs), 'r': nd.array(inputs['small']).tostype('row_sparse'),
                    'd': nd.array(inputs['b'])})
    loaded = nd.load(fname)
    return {key: (loaded[key], True) for key in ('x', 'r', 'd')}


def _optimizer_updates(mx, inputs, _):
    """Optimizers given csr gradients and csr weights (MXNet's storage fallback)."""
    nd = mx.nd
    grad = _small(mx, inputs)
    out = {}
    configs = {'sgd': {'learning_rate': 0.1}, 'sgd_wd': {'learning_rate': 0.1, 'wd': 0.1},
               'sgd_mom': {'learning_rate': 0.1, 'momentum': 0.9, 'wd': 0.01},
               'adam': {'learning_rate': 0.1}, 'rmsprop': {'learning_rate': 0.01},
               'ftrl': {'learning_rate': 0.1}, 'nag': {'learning_rate': 0.1, 'momentum': 0.9}}
    for name, params in configs.items():
        for weight_stype in ('default', 'csr'):
            opt = mx.optimizer.create(name.split('_')[0], **params)
            weight = nd.array(inputs['small_other'])
            if weight_stype == 'csr':
                weight = weight.tostype('csr')
            state = opt.create_state(0, weight)
            for _ in range(3):
                opt.update(0, weight, grad, state)
            out['%s_%s' % (name, weight_stype)] = weight
    return out


def _random_csr(mx, inputs, _):
    """rand_ndarray's 'powerlaw' csr: its structure (the values come from Python's
    random module in MXNet, NumPy's here) and the range of its values."""
    out = {}
    for shape, density in (((5, 16), 0.3), ((6, 4), 0.9), ((4, 10), 0.2)):
        x = mx.test_utils.rand_ndarray(shape, 'csr', density=density, distribution='powerlaw')
        key = '%dx%d' % shape
        out[key + '_indptr'], out[key + '_indices'] = x.indptr, x.indices
        out[key + '_in_range'] = (x.data > 1) * (x.data < 3)
    return out


# errors: each case raises; both sides must raise the same class
def _error(fn):
    def case(mx, inputs, _):
        fn(mx, inputs)
        return {'did_not_raise': mx.nd.zeros(1)}
    return case


_E = {
    'err_tostype_rsp': lambda mx, i: _small(mx, i).tostype('row_sparse'),
    'err_rsp_tostype_csr': lambda mx, i: mx.nd.array(i['small']).tostype('row_sparse')
                                                   .tostype('csr'),
    'err_tostype_unknown': lambda mx, i: mx.nd.array(i['small']).tostype('dense'),
    'err_tostype_1d': lambda mx, i: mx.nd.array([1, 2, 3]).tostype('csr'),
    'err_step_slice': lambda mx, i: _small(mx, i)[0:4:2],
    'err_tuple_index': lambda mx, i: _small(mx, i)[1:2, 0:2],
    'err_ndarray_index': lambda mx, i: _small(mx, i)[mx.nd.array([0, 1])],
    'err_row_out_of_range': lambda mx, i: _small(mx, i)[4].asnumpy(),
    'err_empty_rows': lambda mx, i: _small(mx, i)[2:1].asnumpy(),
    'err_reshape': lambda mx, i: _small(mx, i).reshape((3, 4)),
    'err_assign_slice': lambda mx, i: _small(mx, i).__setitem__(slice(1, 2), _small(mx, i)),
    'err_assign_number': lambda mx, i: _small(mx, i).__setitem__(slice(None), 1),
    'err_assign_shape': lambda mx, i: _small(mx, i).__setitem__(slice(None), mx.nd.ones((2, 3))),
    'err_copyto_rsp': lambda mx, i: _small(mx, i).copyto(
        mx.nd.zeros((4, 3), stype='row_sparse')),
    'err_dot_csr_csr': lambda mx, i: mx.nd.dot(_small(mx, i), _small(mx, i)).asnumpy(),
    'err_dot_shape': lambda mx, i: mx.nd.sparse.dot(_small(mx, i), mx.nd.ones((4, 2))).asnumpy(),
    'err_dot_3d': lambda mx, i: mx.nd.sparse.dot(_small(mx, i),
                                                 mx.nd.ones((3, 2, 2))).asnumpy(),
    'err_dot_dtype': lambda mx, i: mx.nd.sparse.dot(_small(mx, i),
                                                    mx.nd.ones((3, 2), dtype='float64')).asnumpy(),
    'err_dot_float16': lambda mx, i: mx.nd.sparse.dot(
        _small(mx, i).astype('float16'), mx.nd.ones((3, 2), dtype='float16')).asnumpy(),
    'err_csr_matrix_lengths': lambda mx, i: mx.nd.sparse.csr_matrix(
        ([1.0, 2], [1, 0, 2], [0, 1, 3, 3]), shape=(3, 4)).asnumpy(),
    'err_csr_matrix_tuple4': lambda mx, i: mx.nd.sparse.csr_matrix((1, 2, 3, 4)),
    'err_csr_matrix_3d': lambda mx, i: mx.nd.sparse.csr_matrix(np.zeros((2, 2, 2))),
    'err_csr_matrix_shape': lambda mx, i: mx.nd.sparse.csr_matrix(np.ones((2, 2)),
                                                                  shape=(3, 3)),
    'err_csr_matrix_type': lambda mx, i: mx.nd.sparse.csr_matrix('abc'),
    'err_sparse_array_dense': lambda mx, i: mx.nd.sparse.array(np.ones((2, 2))),
    'err_clip_outside': lambda mx, i: mx.nd.sparse.clip(_small(mx, i), 1, 2).asnumpy(),
    'err_retain_csr': lambda mx, i: mx.nd.sparse.retain(_small(mx, i),
                                                        mx.nd.array([0])).asnumpy(),
    'err_elemwise_shapes': lambda mx, i: mx.nd.sparse.elemwise_add(
        _small(mx, i), mx.nd.zeros((3, 3), stype='csr')).asnumpy(),
    'err_div_same_shape': lambda mx, i: (_small(mx, i) / mx.nd.ones((4, 3))).asnumpy(),
    'err_add_dtypes': lambda mx, i: (_small(mx, i) + _small(mx, i).astype('float64')).asnumpy(),
    'err_kv_push_csr': lambda mx, i: _push_csr(mx, i),
    'err_powerlaw_too_sparse': lambda mx, i: mx.test_utils.rand_ndarray(
        (4, 10), 'csr', density=0.05, distribution='powerlaw'),
    'err_csr_density': lambda mx, i: mx.test_utils.rand_ndarray((4, 10), 'csr', density=1.5),
    'err_adagrad_csr_grad': lambda mx, i: _adagrad_csr_grad(mx, i),
    'err_embedding_csr_ids': lambda mx, i: _embedding_sparse_ids(mx, i, 'csr'),
    'err_embedding_row_sparse_ids': lambda mx, i: _embedding_sparse_ids(mx, i, 'row_sparse'),
}
# Invalid (data, indices, indptr): MXNet stores them and check_format() raises; gluonedu
# raises at construction. Either way the case raises MXNetError.
for _label, _parts in {'bad_indptr_order': ([1., 2, 3], [1, 0, 2], [0, 1, 4, 3]),
                       'index_out_of_range': ([1., 2, 3], [1, 0, 5], [0, 1, 3, 3]),
                       'unsorted_indices': ([1., 2, 3], [1, 2, 0], [0, 1, 3, 3]),
                       'repeated_indices': ([1., 2, 3], [1, 2, 2], [0, 1, 3, 3]),
                       'indptr_end': ([1., 2, 3], [1, 0, 2], [0, 1, 2, 2]),
                       'negative_index': ([1., 2, 3], [1, -1, 2], [0, 1, 3, 3]),
                       'indptr_start': ([1., 2, 3], [1, 0, 2], [1, 1, 3, 3])}.items():
    _E['err_check_format_' + _label] = (
        lambda parts: lambda mx, i: mx.nd.sparse.csr_matrix(parts, shape=(3, 4))
        .check_format(full_check=True))(_parts)


def _push_csr(mx, inputs):
    kv = mx.kv.create('local')
    kv.init(0, mx.nd.zeros((4, 3)))
    kv.push(0, [_small(mx, inputs), _small(mx, inputs)])
    out = mx.nd.zeros((4, 3))
    kv.pull(0, out=out)
    out.asnumpy()


def _embedding_sparse_ids(mx, inputs, ids_stype):
    ids = mx.nd.array(inputs['emb_ids'][:2]).tostype(ids_stype)
    mx.nd.Embedding(ids, mx.nd.array(inputs['emb_w']), EMB_ROWS, EMB_DIM).asnumpy()


def _adagrad_csr_grad(mx, inputs):
    opt = mx.optimizer.AdaGrad()
    weight = mx.nd.array(inputs['small_other'])
    opt.update(0, weight, _small(mx, inputs), opt.create_state(0, weight))
    weight.asnumpy()


OP_CASES = {'construction': _construction, 'properties': _properties, 'slicing': _slicing,
            'arithmetic': _arithmetic, 'in_place': _in_place, 'elementwise': _elementwise,
            'elementwise_math': _elementwise_math,
            'reductions': _reductions, 'dots': _dots, 'dot_gradients': _dot_gradients,
            'save_load': _save_load, 'optimizer_updates': _optimizer_updates,
            'random_csr': _random_csr}
OP_CASES.update({name: _error(fn) for name, fn in _E.items()})


# ---------------------------------------------------------------------- training cases
OPTIMIZERS = {
    'sgd': {'learning_rate': 0.2},
    'sgd_mom_wd': {'learning_rate': 0.1, 'momentum': 0.9, 'wd': 0.01},
    'adam': {'learning_rate': 0.05, 'wd': 0.001},
    'ftrl': {'learning_rate': 0.3, 'lamda1': 0.01},
}


def training_cases():
    """Every training case: (model, weight storage, optimizer)."""
    cases = []
    for optimizer in OPTIMIZERS:
        for model, stype in (('linear', 'default'), ('linear', 'row_sparse'),
                             ('embedding', 'row_sparse')):
            cases.append({'id': '%s-%s-%s' % (model, stype, optimizer), 'model': model,
                          'weight_stype': stype, 'optimizer': optimizer.split('_')[0],
                          'optimizer_params': OPTIMIZERS[optimizer]})
    cases.append({'id': 'linear-csrgrad-sgd_wd', 'model': 'linear_csr_grad',
                  'weight_stype': 'default', 'optimizer': 'sgd',
                  'optimizer_params': {'learning_rate': 0.1, 'wd': 0.05}})
    return cases


def _sparse_linear(mx, weight_stype):
    """The linear layer of MXNet's sparse tutorials: y = sparse.dot(x, W) + b, W (in, out).

    Its weight gradient is row_sparse; a row_sparse weight is fetched row by row
    (``row_sparse_data`` inside ``record()``).
    """
    class SparseLinear(mx.gluon.Block):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.weight = self.params.get('weight', shape=(FEATURES, UNITS),
                                              stype=weight_stype, grad_stype='row_sparse')
                self.bias = self.params.get('bias', shape=(UNITS,))

        def forward(self, x):
            if weight_stype == 'row_sparse':
                w = self.weight.row_sparse_data(x.indices)
            else:
                w = self.weight.data()
            return mx.nd.sparse.dot(x, w) + self.bias.data()
    return SparseLinear(prefix='linear_')


def _csr_grad_linear(mx):
    """A dense linear layer whose weight gradient is stored as csr (SGD accepts it)."""
    class CSRGradLinear(mx.gluon.Block):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.weight = self.params.get('weight', shape=(FEATURES, UNITS),
                                              grad_stype='csr')
                self.bias = self.params.get('bias', shape=(UNITS,))

        def forward(self, x):
            return mx.nd.dot(x, self.weight.data()) + self.bias.data()
    return CSRGradLinear(prefix='linear_')


def _sparse_embedding(mx):
    """A row_sparse embedding table looked up with ``row_sparse_data`` inside ``record()``."""
    class SparseEmbedding(mx.gluon.Block):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.weight = self.params.get('weight', shape=(EMB_ROWS, EMB_DIM),
                                              stype='row_sparse', grad_stype='row_sparse')

        def forward(self, ids):
            return mx.nd.Embedding(ids, self.weight.row_sparse_data(ids), EMB_ROWS, EMB_DIM,
                                   sparse_grad=True)
    return SparseEmbedding(prefix='embedding_')


def _full_weight(mx, param, stype, rows):
    if stype == 'row_sparse':
        return param.row_sparse_data(mx.nd.arange(rows, dtype='int64')).asnumpy()
    return param.data().asnumpy()


def run_training_case(mx, case, inputs):
    """Train the case's model for STEPS steps; per step: weights, gradient, stored rows."""
    nd, autograd = mx.nd, mx.autograd
    model = case['model']
    if model == 'embedding':
        net = _sparse_embedding(mx)
        net.initialize(mx.init.Zero())
        net.weight.set_data(nd.array(inputs['emb_w']))
        loss_fn = mx.gluon.loss.L2Loss()
        rows = EMB_ROWS
    else:
        net = _csr_grad_linear(mx) if model == 'linear_csr_grad' else \
            _sparse_linear(mx, case['weight_stype'])
        net.initialize(mx.init.Zero())
        net.weight.set_data(nd.array(inputs['w']))
        net.bias.set_data(nd.array(inputs['b']))
        loss_fn = mx.gluon.loss.L2Loss()
        features = nd.sparse.csr_matrix((inputs['x_data'], inputs['x_indices'],
                                         inputs['x_indptr']), shape=(ROWS, FEATURES))
        if model == 'linear_csr_grad':
            features = features.tostype('default')
        rows = FEATURES
    trainer = mx.gluon.Trainer(net.collect_params(), case['optimizer'],
                               dict(case['optimizer_params']))
    weights, grads, stored = [], [], []
    for step in range(STEPS):
        if model == 'embedding':
            batch, target = nd.array(inputs['emb_ids'][step]), nd.array(inputs['emb_y'][step])
        else:
            lo = (step * BATCH) % ROWS
            batch, target = features[lo:lo + BATCH], nd.array(inputs['y'][lo:lo + BATCH])
        with autograd.record():
            loss = loss_fn(net(batch), target)
        loss.backward()
        grad = net.weight.grad()
        grads.append(grad.asnumpy())
        mask = np.zeros(rows, dtype=np.float32)
        if grad.stype == 'row_sparse':
            mask[grad.indices.asnumpy().astype(np.int64)] = 1
        stored.append(mask)
        trainer.step(BATCH)
        weights.append(_full_weight(mx, net.weight, case['weight_stype'], rows))
    out = {'weight': np.stack(weights), 'grad': np.stack(grads), 'stored_rows': np.stack(stored),
           'grad_stype': np.array([{'default': 0, 'row_sparse': 1, 'csr': 2}[grad.stype]])}
    if model != 'embedding':
        out['bias'] = np.stack([net.bias.data().asnumpy()])
    return out


# ---------------------------------------------------------------------- both sides
def run_all(mx, inputs, workdir, format_exc):
    """Every case: ``(arrays by "<kind>|<case>|<result>|<field>", meta)``.

    ``meta['info']`` maps "op|<case>|<result>" to its stype and dtype, ``meta['errors']``
    "op|<case>" to the class of the exception it raised, ``meta['failed']`` a training
    case's id to its traceback.
    """
    arrays, info, errors, failed = {}, {}, {}, {}
    for name in OP_CASES:
        results = run_op_case(mx, name, inputs, workdir)
        if 'error' in results:
            errors['op|' + name] = results['error']
            continue
        for key, value in results.items():
            prefix = 'op|%s|%s' % (name, key)
            info[prefix] = {'stype': value.pop('stype'), 'dtype': value.pop('dtype')}
            for field, array in value.items():
                arrays['%s|%s' % (prefix, field)] = array
    for case in training_cases():
        try:
            out = run_training_case(mx, case, inputs)
        except Exception:  # recorded; the test side reports it
            failed[case['id']] = format_exc()
            continue
        for key, array in out.items():
            arrays['train|%s|%s' % (case['id'], key)] = array
    return arrays, {'info': info, 'errors': errors, 'failed': failed}
