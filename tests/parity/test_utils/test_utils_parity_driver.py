"""Runs the ``mx.test_utils`` parity cases against an MXNet-like module ``mx`` (MXNet 1.9.1
or gluonedu).

Both sides run this code: the oracle (this module's ``__main__``) with the real
``mxnet``, the tests with ``gluonedu``. The random helpers draw from NumPy's global
generator, seeded here before each case (the legacy stream is the same under NumPy 1.23
and 2). A case returns ``{name: array}``; where it checks an assertion helper, the array
is the name of the exception raised (``'none'`` if none).
"""
import os

import numpy as np


def _raised(f, *args, **kwargs):
    try:
        f(*args, **kwargs)
    except Exception as exc:  # the type is the result
        return np.array(type(exc).__name__)
    return np.array('none')


def _double(x):
    return 2 * x


def _random_helpers(mx):
    tu = mx.test_utils
    out = {'random_arrays': tu.random_arrays((2, 3)),
           'random_arrays_two': np.concatenate([a.ravel() for a in tu.random_arrays((2,),
                                                                                    (3, 1))]),
           'uniform': tu.random_uniform_arrays((2, 3), low=-1.0, high=2.0)[0],
           'uniform_f64': tu.random_uniform_arrays((4,), dtype='float64')[0],
           'sample': np.array(tu.random_sample(list(range(10)), 4)),
           'coord': np.array(tu.rand_coord_2d(0, 5, 10, 20)),
           'shape_2d': np.array(tu.rand_shape_2d()),
           'shape_2d_zero': np.array(tu.rand_shape_2d(3, 4, True)),
           'shape_3d': np.array(tu.rand_shape_3d(4, 5, 6)),
           'shape_nd': np.array(tu.rand_shape_nd(4, 3))}
    dense = tu.rand_ndarray((3, 4))
    out['rand_ndarray'] = dense.asnumpy()
    out['rand_ndarray_dtype'] = np.array(np.dtype(dense.dtype).name)
    out['rand_ndarray_f64'] = tu.rand_ndarray((2, 2), dtype='float64').asnumpy()
    sparse = tu.rand_ndarray((6, 3), 'row_sparse', density=0.5)
    out['row_sparse'] = sparse.tostype('default').asnumpy()
    out['row_sparse_stype'] = np.array(sparse.stype)
    out['row_sparse_modified'] = tu.rand_ndarray((5, 2), 'row_sparse', density=0.7,
                                                 modifier_func=_double).asnumpy()
    return out


def _reductions(mx):
    tu = mx.test_utils
    data = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    return {'np_reduce': tu.np_reduce(data, (0, 2), True, np.sum),
            'np_reduce_all': np.array(tu.np_reduce(data, None, False, np.max)),
            'np_reduce_int': tu.np_reduce(data, 1, False, np.sum),
            'collapse': tu.collapse_sum_like(np.ones((2, 3, 4)), (3, 1)),
            'collapse_empty': tu.collapse_sum_like(np.ones((2, 0)), (0,))}


def _tolerances(mx):
    tu = mx.test_utils
    f16, f32, f64 = (np.ones(2, t) for t in (np.float16, np.float32, np.float64))
    i32 = np.ones(2, np.int32)
    eps = tu.default_numeric_eps()
    return {'numeric_eps': np.array([eps[np.dtype(t)] for t in ('float16', 'float32',
                                                                 'float64')]),
            'tols': np.array([tu.get_tols(a, b, None, None) for a, b in
                              ((f16, f32), (f32, f64), (f64, f64), (i32, i32), (f32, i32))]),
            'tols_given': np.array([tu.get_tols(f32, f32, 0.5, 0.25),
                                    tu.get_tols(f32, f16, {np.dtype(np.float32): 0.3}, None)]),
            'rtol_atol': np.array([tu.get_rtol(), tu.get_atol(), tu.get_rtol(0.2),
                                   tu.get_atol(0.3), tu.get_rtol(None, np.dtype(np.float32)),
                                   tu.get_atol(None, np.dtype(np.float16))]),
            'etol': np.array([tu.get_etol(), tu.get_etol(0.1)]),
            'gpus': np.array(list(tu.list_gpus()), dtype=np.int64)}


def _comparisons(mx):
    tu, nd = mx.test_utils, mx.nd
    a = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    b = a + np.array([0, 0, 0, 1e-2], np.float32)
    c = a + np.array([0, 1e-2, 0, 1e-2], np.float32)
    nan = np.array([1.0, np.nan, 3.0], np.float32)
    almost = [tu.almost_equal(a, a), tu.almost_equal(a, b), tu.almost_equal(a, b, rtol=1e-2),
              tu.almost_equal(np.ones((2, 2)), np.ones(2)), tu.same(a, a), tu.same(a, b),
              tu.almost_equal(nan, nan), tu.almost_equal(nan, nan, equal_nan=True)]
    x = nd.array([1, 2, 3])
    return {
        'almost_equal': np.array(almost),
        'no_broadcast': _raised(tu.almost_equal, np.ones((2, 2)), np.ones(2),
                                use_broadcast=False),
        'assert_equal_pass': _raised(tu.assert_almost_equal, nd.array(a), a),
        'assert_fail': _raised(tu.assert_almost_equal, a, b),
        'assert_no_broadcast': _raised(tu.assert_almost_equal, np.ones((2, 2)), np.ones(2),
                                       use_broadcast=False),
        'assert_mismatches': _raised(tu.assert_almost_equal, a, c, mismatches=(1, 1)),
        'allclose_fail': _raised(tu.assert_allclose, a, b),
        'allclose_pass_nan': _raised(tu.assert_allclose, nan, nan),
        'ignore_nan': _raised(tu.assert_almost_equal_ignore_nan, nan,
                              np.array([1.0, 7.0, np.nan], np.float32)),
        'with_err_pass': _raised(tu.assert_almost_equal_with_err, a, b, etol=0.3),
        'with_err_fail': _raised(tu.assert_almost_equal_with_err, a, c, etol=0.3),
        'with_err_zero': _raised(tu.assert_almost_equal_with_err, a, b),
        'tuple_pass': _raised(tu.compare_ndarray_tuple, (a, (a, None)), (a, (a, a))),
        'tuple_fail': _raised(tu.compare_ndarray_tuple, (a, (a, a)), (a, (a, b))),
        'exception_pass': _raised(tu.assert_exception, lambda: 1 / 0, ZeroDivisionError),
        'exception_missing': _raised(tu.assert_exception, lambda: None, ValueError),
        'same_array': np.array([tu.same_array(x, x), tu.same_array(x, x.copy())]),
        'x_after_same_array': x.asnumpy(),
    }


def _statistics(mx):
    tu = mx.test_utils
    return {'checks': np.array([
        tu.mean_check(lambda n: np.random.normal(0.5, 2.0, size=n), 0.5, 2.0, 20000),
        tu.mean_check(lambda n: np.random.normal(0.7, 2.0, size=n), 0.5, 2.0, 20000),
        tu.var_check(lambda n: np.random.normal(0.0, 1.5, size=n), 1.5, 20000),
        tu.var_check(lambda n: np.random.normal(0.0, 1.7, size=n), 1.5, 20000)])}


def _decorators(mx):
    tu = mx.test_utils
    calls = []

    @tu.retry(3)
    def flaky():
        calls.append(1)
        assert len(calls) >= 2

    flaky()
    name = 'GLUONEDU_PARITY_ENV_VAR'
    os.environ.pop(name, None)
    with tu.environment(name, 'on'):
        inside = os.environ.get(name)
    with tu.environment({name: None, name + '_2': 'x'}):
        inside_dict = (os.environ.get(name), os.environ.get(name + '_2'))
    return {'retry_calls': np.array(len(calls)),
            'retry_gives_up': _raised(tu.retry(2)(lambda: tu.assert_almost_equal(1.0, 2.0))),
            'environment': np.array([inside, str(os.environ.get(name)), str(inside_dict)])}


def _mnist(mx):
    data = mx.test_utils.get_mnist()
    return {key: data[key] for key in sorted(data)}


def _rounded(matrix):
    """A random matrix's entries to 5 decimals (LAPACK builds differ in the last bits)."""
    return np.round(matrix, 5)


def _matrices(mx):
    tu = mx.test_utils
    return {'tensor_2d': tu.create_2d_tensor(3, 4).asnumpy(),
            'vector': tu.create_vector(5, dtype=np.int32).asnumpy(),
            'identity': tu.get_identity_mat(3).asnumpy(),
            'identity_batch': tu.get_identity_mat_batch(2).asnumpy(),
            'real_eigvals_2d': _rounded(tu.new_matrix_with_real_eigvals_2d(3)),
            'real_eigvals_nd': _rounded(tu.new_matrix_with_real_eigvals_nd((2, 2, 2))),
            'orthonormal': _rounded(tu.new_orthonormal_matrix_2d(3)),
            'sym_2d': _rounded(tu.new_sym_matrix_with_real_eigvals_2d(3)),
            'sym_nd': _rounded(tu.new_sym_matrix_with_real_eigvals_nd((3, 2, 2)))}


def _sparse_helpers(mx):
    tu = mx.test_utils
    rsp, (values, indices) = tu.rand_sparse_ndarray((6, 3), 'row_sparse', density=0.5)
    init, _ = tu.rand_sparse_ndarray((4, 2), 'row_sparse', data_init=2.5,
                                     rsp_indices=np.array([0, 3]))
    csr, (indptr, _, _) = tu.rand_sparse_ndarray((4, 5), 'csr', density=0.5)
    chosen = tu.create_sparse_array((5, 2), 'row_sparse', rsp_indices=[3, 1], data_init=4.0)
    only = tu.create_sparse_array_zd((5, 2), 'row_sparse', 0.9, rsp_indices=[4])
    return {'rsp': rsp.asnumpy(), 'rsp_values': values, 'rsp_indices': indices,
            'init': init.asnumpy(), 'csr_stype': np.array(csr.stype),
            'csr_nnz': np.array(int(indptr.asnumpy()[-1])),
            'chosen': chosen.asnumpy(), 'chosen_indices': chosen.indices.asnumpy(),
            'only': only.indices.asnumpy(),
            'unknown_stype': _raised(tu.create_sparse_array, (2, 2), 'dense'),
            'assign_each': tu.assign_each(np.arange(6).reshape(2, 3), lambda v: v * 1.5),
            'assign_each_none': tu.assign_each(np.arange(3, dtype=np.int32), None),
            'assign_each2': tu.assign_each2(np.arange(4.), np.ones(4), lambda a, b: a - b),
            'assign_each2_shapes': _raised(tu.assign_each2, np.ones(2), np.ones(3),
                                           lambda a, b: a),
            'check_shapes': _raised(tu.checkShapes, np.ones((2, 2)), np.ones(2)),
            'check_shapes_ok': _raised(tu.checkShapes, np.ones(2), np.zeros(2)),
            'location': np.array(tu.locationError(np.array([1.5, 2.0]), np.array([1.0, 2.0]),
                                                  (0,), ('x', 'y'), maxError=True)),
            'array': tu.array([[1, 2], [3, 4]]).asnumpy()}


def _buckets(mx):
    """(MXNet 1.9.1's venv has no SciPy, so its chi-square checks raise ImportError there;
    tests/test_test_utils.py checks ours against SciPy.)"""
    buckets, probs = mx.test_utils.gen_buckets_probs_with_ppf(lambda x: 2 * x - 1, 4)
    return {'buckets': np.array(buckets), 'probs': np.array(probs),
            'no_buckets': _raised(mx.test_utils.gen_buckets_probs_with_ppf, lambda x: x, 0)}


def _environment_helpers(mx):
    tu = mx.test_utils
    name = 'GLUONEDU_PARITY_SETENV'
    seen = [str(tu.getenv(name))]
    tu.setenv(name, 'yes')
    seen.append(tu.getenv(name))   # (MXNet sets the C runtime's copy, not os.environ)
    tu.setenv(name, '')
    seen.append(tu.getenv(name))
    with tu.discard_stderr():
        print('hidden', file=__import__('sys').stderr)
    return {'seen': np.array(seen)}


def _compare_optimizer(mx):
    tu, opt = mx.test_utils, mx.optimizer
    return {'same': _raised(tu.compare_optimizer, opt.SGD(learning_rate=0.1, momentum=0.9),
                            opt.SGD(learning_rate=0.1, momentum=0.9), (3, 4), np.float32),
            'several': _raised(tu.compare_optimizer, opt.SGD(momentum=0.9),
                               opt.SGD(momentum=0.9), [(2, 3), (4,)], np.float32, ntensors=2),
            'different': _raised(tu.compare_optimizer, opt.SGD(learning_rate=0.1),
                                 opt.SGD(learning_rate=0.3), (3, 4), np.float32),
            'row_sparse': _raised(tu.compare_optimizer, opt.SGD(learning_rate=0.1),
                                  opt.SGD(learning_rate=0.1), (4, 2), np.float32,
                                  w_stype='row_sparse', g_stype='row_sparse')}


CASES = {'random_helpers': _random_helpers, 'reductions': _reductions,
         'tolerances': _tolerances, 'comparisons': _comparisons, 'statistics': _statistics,
         'decorators': _decorators, 'get_mnist': _mnist, 'matrices': _matrices,
         'sparse_helpers': _sparse_helpers, 'buckets': _buckets,
         'environment_helpers': _environment_helpers, 'compare_optimizer': _compare_optimizer}


def run_case(mx, name):
    np.random.seed(sorted(CASES).index(name) + 11)
    out = CASES[name](mx)
    out.update({key + '|dtype': np.array(np.asarray(value).dtype.name)
                for key, value in list(out.items())})
    return out


if __name__ == '__main__':  # the oracle's side, run by oracle_main.py
    import mxnet

    import oracle_io
    oracle_io.save_results(*oracle_io.run_each(
        [(name, lambda name=name: run_case(mxnet, name)) for name in sorted(CASES)]))
