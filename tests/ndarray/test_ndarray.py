"""NDArray: creation, dtypes, indexing, arithmetic, shapes, reductions, copies and errors.

Expected values follow MXNet 1.9.1 (checked against it where noted).
"""
import numpy as np
import pytest

import gluonedu as mx
from gluonedu import nd
from gluonedu.test_utils import assert_almost_equal, same


def arange(*shape, dtype='float32'):
    return nd.array(np.arange(int(np.prod(shape))).reshape(shape), dtype=dtype)


# ---------------------------------------------------------------------- creation & dtypes
@pytest.mark.parametrize('source', [np.arange(4.0).reshape(2, 2),              # float64
                                    np.arange(4, dtype=np.int32).reshape(2, 2),
                                    np.arange(4, dtype=np.float16).reshape(2, 2),
                                    [[0, 1], [2, 3]], [[0.0, 1.0], [2.0, 3.0]]])
def test_array_defaults_to_float32_like_mxnet_1x(source):
    a = nd.array(source)
    assert a.dtype == np.float32
    assert a.shape == (2, 2)
    assert a.asnumpy().tolist() == [[0, 1], [2, 3]]


def test_array_keeps_the_dtype_of_an_ndarray_source_and_honours_dtype():
    assert nd.array(nd.ones(2, dtype='float16')).dtype == np.float16
    assert nd.array([1, 2], dtype='int64').dtype == np.int64
    assert nd.array(np.ones(3), dtype=np.float64).dtype == np.float64


def test_array_copies_its_source():
    src = np.zeros(3, dtype=np.float32)
    a = nd.array(src)
    src[0] = 5
    assert a.asnumpy()[0] == 0


@pytest.mark.parametrize('make, fill', [(nd.zeros, 0), (nd.ones, 1), (nd.empty, None)])
@pytest.mark.parametrize('dtype', [None, 'float16', 'float64', 'int32', np.int64])
def test_filled_creation_with_ctx_and_dtype(make, fill, dtype):
    a = make((2, 3), ctx=mx.cpu(1), dtype=dtype)
    assert a.shape == (2, 3) and a.context == mx.cpu(1)
    assert a.dtype == (np.float32 if dtype is None else np.dtype(dtype).type)
    if fill is not None:
        assert (a.asnumpy() == fill).all()


def test_creation_with_an_int_shape_and_default_context():
    a = nd.zeros(4)
    assert a.shape == (4,) and a.context == mx.cpu(0) and a.stype == 'default'


def test_zeros_with_row_sparse_stype():
    a = nd.zeros((4, 2), stype='row_sparse', dtype='float64')
    assert a.stype == 'row_sparse' and a.shape == (4, 2) and a.dtype == np.float64
    assert not a.asnumpy().any()


def test_full():
    a = nd.full((2, 2), 7, dtype='int64')
    assert a.dtype == np.int64 and a.asnumpy().tolist() == [[7, 7], [7, 7]]
    out = nd.zeros(3)
    assert nd.full((3,), 2.5, out=out) is out
    assert out.asnumpy().tolist() == [2.5, 2.5, 2.5]


def test_arange():
    assert nd.arange(3).asnumpy().tolist() == [0, 1, 2]
    assert nd.arange(3).dtype == np.float32
    assert nd.arange(2, 6, 2).asnumpy().tolist() == [2, 4]
    assert nd.arange(3, repeat=2).asnumpy().tolist() == [0, 0, 1, 1, 2, 2]
    assert nd.arange(5, dtype='int32').dtype == np.int32
    assert_almost_equal(nd.arange(0, 1, 0.3), [0, 0.3, 0.6, 0.9])


def test_shape_size_ndim_len_and_iteration():
    a = arange(2, 3)
    assert (a.shape, a.size, a.ndim, len(a)) == ((2, 3), 6, 2, 2)
    assert [row.asnumpy().tolist() for row in a] == [[0, 1, 2], [3, 4, 5]]


# ---------------------------------------------------------------------- indexing
def test_basic_indexing_values_and_shapes():
    a = arange(3, 4)
    assert a[1].asnumpy().tolist() == [4, 5, 6, 7]
    assert a[1, 2].shape == (1,)  # no zero-dimensional arrays
    assert a[1, 2].asscalar() == 6
    assert a[1:, ::2].asnumpy().tolist() == [[4, 6], [8, 10]]
    assert a[:, -1].asnumpy().tolist() == [3, 7, 11]


def test_contiguous_slices_are_views_other_results_are_copies():
    # As MXNet: x[i] and x[i:j] share memory with x; x[:, j] is a copy.
    a = arange(3, 4)
    row, rows, col = a[1], a[0:2], a[:, 1]
    a[:] = -1
    assert (row.asnumpy() == -1).all() and (rows.asnumpy() == -1).all()
    assert col.asnumpy().tolist() == [1, 5, 9]
    view = a[2]
    view[:] = 9
    assert a[2].asnumpy().tolist() == [9, 9, 9, 9]


def test_reshape_method_is_a_view_but_operators_copy():
    a = arange(2, 3)
    view, copies = a.reshape((3, 2)), [a.T, nd.reshape(a, shape=(3, 2)), a.flatten(),
                                       a.expand_dims(0), nd.flip(a, axis=0),
                                       a.swapaxes(0, 1), nd.slice_axis(a, 0, 0, 1)]
    before = [c.asnumpy() for c in copies]
    a[:] = -1
    assert (view.asnumpy() == -1).all()
    for c, b in zip(copies, before):
        assert same(c, b)


def test_advanced_indexing_with_ndarray_and_list_indices():
    a = arange(3, 4)
    assert a[nd.array([0, 2])].asnumpy().tolist() == [[0, 1, 2, 3], [8, 9, 10, 11]]
    assert a[nd.array([0, 2]), nd.array([1, 3])].asnumpy().tolist() == [1, 11]
    assert a[[2, 2]].shape == (2, 4)


def test_slice_assignment_broadcasts_and_casts():
    a = nd.zeros((2, 3))
    a[:] = nd.array([[1, 2, 3]])
    assert a.asnumpy().tolist() == [[1, 2, 3], [1, 2, 3]]
    a[0] = [7, 8, 9]
    a[1, 1:] = 5
    assert a.asnumpy().tolist() == [[7, 8, 9], [1, 5, 5]]
    a[:] = 0.5
    assert (a.asnumpy() == 0.5).all()
    ints = nd.zeros(3, dtype='int32')
    ints[:] = nd.array([1.7, 2.2, 3.9])
    assert ints.dtype == np.int32 and ints.asnumpy().tolist() == [1, 2, 3]
    a[:] = np.ones((2, 3))
    assert (a.asnumpy() == 1).all()


def test_assignment_with_ndarray_indices():
    a = nd.zeros((4, 2))
    a[nd.array([0, 3])] = 1
    assert a.asnumpy()[:, 0].tolist() == [1, 0, 0, 1]


def test_assignment_of_a_wrong_shape_raises():
    a = nd.zeros((2, 3))
    with pytest.raises(mx.MXNetError):
        a[:] = nd.ones((4,))


def test_assignment_from_another_context_copies_across():
    a = nd.zeros(3)
    a[:] = nd.ones(3, ctx=mx.cpu(1))
    assert a.context == mx.cpu(0) and (a.asnumpy() == 1).all()


# ---------------------------------------------------------------------- arithmetic
def test_arithmetic_with_broadcasting():
    a, b = arange(2, 3), nd.array([[10], [20]])
    assert (a + b).asnumpy().tolist() == [[10, 11, 12], [23, 24, 25]]
    assert (b - a).asnumpy().tolist() == [[10, 9, 8], [17, 16, 15]]
    assert (a * nd.array([1, 0, 2])).asnumpy().tolist() == [[0, 0, 4], [3, 0, 10]]
    assert_almost_equal(a / b, a.asnumpy() / b.asnumpy())
    assert (a % 4).asnumpy().tolist() == [[0, 1, 2], [3, 0, 1]]
    assert (a ** 2).asnumpy().tolist() == [[0, 1, 4], [9, 16, 25]]


@pytest.mark.parametrize('expr, expected', [
    (lambda x: 2 - x, [1, 0, -1]), (lambda x: 2 / x, [2, 1, 2 / 3]),
    (lambda x: 2 ** x, [2, 4, 8]), (lambda x: 5 % x, [0, 1, 2]), (lambda x: 2 + x, [3, 4, 5]),
    (lambda x: 2 * x, [2, 4, 6]), (lambda x: -x, [-1, -2, -3]), (lambda x: +x, [1, 2, 3]),
    (lambda x: abs(-x), [1, 2, 3]), (lambda x: np.float32(2) * x, [2, 4, 6])])
def test_scalar_operands_on_either_side(expr, expected):
    out = expr(nd.array([1, 2, 3]))
    assert isinstance(out, nd.NDArray) and out.dtype == np.float32
    assert_almost_equal(out, expected)


def test_scalars_are_cast_to_the_array_dtype_first():
    # MXNet 1.9.1: int32 [5, 7] * 1.5 == [5, 7]; int32 [1, 2] == 1.5 is [1, 0].
    ints = nd.array([5, 7], dtype='int32')
    assert (ints * 1.5).asnumpy().tolist() == [5, 7]
    assert (ints / 2).asnumpy().tolist() == [2, 3]
    assert (nd.array([1, 2], dtype='int32') == 1.5).asnumpy().tolist() == [1, 0]
    assert (ints * 1.5).dtype == np.int32


@pytest.mark.parametrize('dtype', ['float32', 'float64', 'int32'])
def test_comparisons_return_zero_one_in_the_array_dtype(dtype):
    a, b = nd.array([1, 2, 3], dtype=dtype), nd.array([2, 2, 2], dtype=dtype)
    results = {'==': a == b, '!=': a != b, '<': a < b, '<=': a <= b, '>': a > b, '>=': a >= b,
               'scalar': a > 1, 'broadcast_equal': nd.broadcast_equal(a, b)}
    expected = {'==': [0, 1, 0], '!=': [1, 0, 1], '<': [1, 0, 0], '<=': [1, 1, 0],
                '>': [0, 0, 1], '>=': [0, 1, 1], 'scalar': [0, 1, 1],
                'broadcast_equal': [0, 1, 0]}
    for key, out in results.items():
        assert out.dtype == np.dtype(dtype).type, key
        assert out.asnumpy().tolist() == expected[key], key


def test_in_place_operators_write_into_the_same_array():
    a = nd.ones((2, 2))
    view = a[0]
    original = a
    a += 1
    a *= nd.array([[3], [1]])
    a -= 1
    a /= 2
    assert a is original
    assert a.asnumpy().tolist() == [[2.5, 2.5], [0.5, 0.5]]
    assert view.asnumpy().tolist() == [2.5, 2.5]  # the view saw the in-place writes


def test_binary_op_functions_and_out():
    a, b = nd.array([1, 5]), nd.array([3, 2])
    assert nd.maximum(a, b).asnumpy().tolist() == [3, 5]
    assert nd.minimum(a, 2).asnumpy().tolist() == [1, 2]
    out = nd.zeros(2)
    assert nd.broadcast_add(a, b, out=out) is out and out.asnumpy().tolist() == [4, 7]
    with pytest.raises(TypeError):  # as MXNet: the Python-level add has no out=
        nd.add(a, b, out=out)
    with pytest.raises(mx.MXNetError):
        nd.elemwise_add(a, nd.ones((2, 2)))


# ---------------------------------------------------------------------- shapes
def test_transpose():
    a = arange(2, 3, 4)
    assert a.T.shape == (4, 3, 2)
    assert nd.transpose(a, axes=(1, 0, 2)).shape == (3, 2, 4)
    assert same(a.T, a.asnumpy().T)


@pytest.mark.parametrize('shape, code, expected', [
    # the examples of MXNet's reshape documentation (checked against MXNet 1.9.1)
    ((2, 3, 4), (4, 0, 2), (4, 3, 2)), ((2, 3, 4), (2, 0, 0), (2, 3, 4)),
    ((2, 3, 4), (6, 1, -1), (6, 1, 4)), ((2, 3, 4), (3, -1, 8), (3, 1, 8)),
    ((2, 3, 4), (-1,), (24,)), ((2, 3, 4), (-2,), (2, 3, 4)), ((2, 3, 4), (2, -2), (2, 3, 4)),
    ((2, 3, 4), (-2, 1, 1), (2, 3, 4, 1, 1)), ((2, 3, 4), (-3, 4), (6, 4)),
    ((2, 3, 4, 5), (-3, -3), (6, 20)), ((2, 3, 4), (0, -3), (2, 12)),
    ((2, 3, 4, 5), (-3, -2), (6, 4, 5)), ((2, 3, 4), (-4, 1, 2, -2), (1, 2, 3, 4)),
    ((2, 3, 4), (2, -4, -1, 3, -2), (2, 1, 3, 4))])
def test_reshape_special_codes(shape, code, expected):
    a = nd.zeros(shape)
    assert a.reshape(code).shape == expected
    assert a.reshape(*code).shape == expected
    assert nd.reshape(a, shape=code).shape == expected


def test_reshape_reverse_and_values():
    a = nd.zeros((10, 5, 4))
    assert a.reshape((-1, 0)).shape == (40, 5)
    assert a.reshape((-1, 0), reverse=True).shape == (50, 4)
    assert same(arange(2, 3).reshape((3, 2)), np.arange(6).reshape(3, 2))
    with pytest.raises(mx.MXNetError):
        a.reshape((7, -1))


def test_shape_methods():
    a = arange(2, 1, 3)
    assert a.squeeze().shape == (2, 3)
    assert a.expand_dims(0).shape == (1, 2, 1, 3)
    assert a.flatten().shape == (2, 3)
    assert a.swapaxes(0, 2).shape == (3, 1, 2)
    assert a.broadcast_to((2, 4, 3)).shape == (2, 4, 3)
    assert a.tile((2, 1, 1)).shape == (4, 1, 3)
    assert a.repeat(2, axis=2).shape == (2, 1, 6)
    parts = arange(2, 4).split(2, axis=1)
    assert [p.shape for p in parts] == [(2, 2), (2, 2)]
    assert nd.concat(*parts, dim=1).asnumpy().tolist() == arange(2, 4).asnumpy().tolist()


# ---------------------------------------------------------------------- reductions
def test_full_reductions_have_shape_one():
    a = arange(2, 3)
    for name in ('sum', 'mean', 'max', 'min', 'prod', 'norm'):
        out = getattr(a, name)()
        assert out.shape == (1,), name
    assert a.sum().asscalar() == 15
    assert a.sum(axis=(0, 1)).shape == (1,)
    assert_almost_equal(a.norm(), np.sqrt((np.arange(6) ** 2).sum()))


@pytest.mark.parametrize('name', ['sum', 'mean', 'max', 'min', 'prod'])
@pytest.mark.parametrize('axis, keepdims, exclude, np_axis', [
    (1, False, False, 1), (-1, True, False, -1), ((0, 2), False, False, (0, 2)),
    (1, False, True, (0, 2)), ((0, 1), True, True, 2)])
def test_reductions_with_axis_keepdims_exclude(name, axis, keepdims, exclude, np_axis):
    x = np.random.RandomState(0).rand(2, 3, 4) + 0.5
    out = getattr(nd.array(x), name)(axis=axis, keepdims=keepdims, exclude=exclude)
    assert_almost_equal(out, getattr(np, name)(x, axis=np_axis, keepdims=keepdims))


def test_exclude_without_axis_reduces_everything():
    assert nd.ones((2, 3)).sum(axis=None, exclude=True).shape == (1,)
    assert nd.ones((2, 3)).sum(axis=(), exclude=True).asscalar() == 6


def test_integer_reductions_keep_the_dtype():
    ints = nd.array([1, 2], dtype='int32')
    assert ints.sum().dtype == np.int32
    assert ints.mean().dtype == np.int32 and ints.mean().asscalar() == 1  # truncated


def test_norm_with_axis_and_ord():
    x = nd.array([[1, -2], [3, 4]])
    assert_almost_equal(x.norm(axis=1), [np.sqrt(5), 5])
    assert nd.norm(x, ord=1, axis=1).asnumpy().tolist() == [3, 7]
    assert nd.norm(x, axis=1, keepdims=True).shape == (2, 1)


def test_argmax_argmin():
    x = nd.array([[1, 3], [2, 0]])
    assert x.argmax(axis=1).asnumpy().tolist() == [1, 0]
    assert x.argmax(axis=1).dtype == np.float32
    assert x.argmin(axis=0).asnumpy().tolist() == [0, 1]
    assert x.argmax().shape == (1,) and x.argmax().asscalar() == 1
    assert x.argmax(axis=1, keepdims=True).shape == (2, 1)
    assert x.argmax(keepdims=True).shape == (1, 1)
    # As MXNet 1.9.1: the indices come in the input's dtype.
    assert x.astype('int32').argmax(axis=1).dtype == np.int32
    assert x.astype('float16').argmax(axis=1).dtype == np.float16


# ---------------------------------------------------------------------- copies & conversion
def test_asnumpy_is_a_copy_and_asscalar():
    a = nd.array([3])
    host = a.asnumpy()
    host[0] = 0
    assert a.asscalar() == 3 and isinstance(a.asscalar(), np.float32)
    assert float(a) == 3.0 and int(a) == 3


def test_copy_copyto_as_in_context_astype():
    a = nd.array([1, 2])
    b = a.copy()
    b[:] = 0
    assert a.asnumpy().tolist() == [1, 2]
    target = nd.zeros(2)
    assert a.copyto(target) is target and target.asnumpy().tolist() == [1, 2]
    moved = a.copyto(mx.cpu(1))
    assert moved.context == mx.cpu(1) and same(moved, a)
    assert a.as_in_context(mx.cpu(0)) is a
    assert a.as_in_context(mx.cpu(2)).context == mx.cpu(2)
    assert a.astype('float16').dtype == np.float16
    assert a.astype('float32', copy=False) is a
    assert a.astype('float32') is not a
    with pytest.raises(mx.MXNetError):
        a.copyto(nd.zeros(3))


def test_repr_matches_mxnet():
    assert repr(nd.array([[0, 1], [2, 3]])) == '\n[[0. 1.]\n [2. 3.]]\n<NDArray 2x2 @cpu(0)>'
    assert repr(nd.array([1, 2, 3])) == '\n[1. 2. 3.]\n<NDArray 3 @cpu(0)>'
    assert repr(nd.zeros((2, 3), dtype='int32', ctx=mx.cpu(1))) == \
        '\n[[0 0 0]\n [0 0 0]]\n<NDArray 2x3 @cpu(1)>'
    assert repr(nd.array([[1.5, 2.25], [3, 4]])) == \
        '\n[[1.5  2.25]\n [3.   4.  ]]\n<NDArray 2x2 @cpu(0)>'


def test_wait_to_read_and_waitall_return():
    a = nd.ones(2) * 2
    assert a.wait_to_read() is None
    assert nd.waitall() is None


def test_truth_value():
    assert bool(nd.array([1])) and not bool(nd.array([0]))
    with pytest.raises(ValueError):
        bool(nd.ones(2))


# ---------------------------------------------------------------------- errors
def test_mismatched_dtypes_raise():
    with pytest.raises(mx.MXNetError, match='dtype'):
        nd.ones(2) + nd.ones(2, dtype='float64')


def test_mismatched_contexts_raise():
    with pytest.raises(mx.MXNetError, match='context'):
        nd.ones(2) + nd.ones(2, ctx=mx.cpu(1))
    with pytest.raises(mx.MXNetError):
        nd.dot(nd.ones((2, 2)), nd.ones((2, 2), ctx=mx.cpu(1)))


def test_non_broadcastable_shapes_raise():
    with pytest.raises(mx.MXNetError, match='broadcast'):
        nd.ones((2, 3)) + nd.ones((4,))
    with pytest.raises(mx.MXNetError):
        nd.broadcast_to(nd.ones((2, 3)), (4, 3))


def test_bad_dot_shapes_raise():
    with pytest.raises(mx.MXNetError):
        nd.dot(nd.ones((2, 3)), nd.ones((2, 3)))
    with pytest.raises(mx.MXNetError):
        nd.batch_dot(nd.ones((2, 2, 3)), nd.ones((2, 2, 3)))


def test_asscalar_of_many_elements_raises_value_error():
    with pytest.raises(ValueError):
        nd.ones((2, 3)).asscalar()


def test_numpy_operand_is_a_type_error():
    with pytest.raises(TypeError):
        nd.ones(2) + np.ones(2)


def test_broadcast_to_method_may_add_leading_axes_like_mxnet():
    a = nd.array([1, 2, 3])
    assert a.broadcast_to((2, 3)).asnumpy().tolist() == [[1, 2, 3], [1, 2, 3]]
    assert a.broadcast_like(nd.zeros((2, 3))).shape == (2, 3)
    with pytest.raises(ValueError):
        nd.ones((2, 3)).broadcast_to((3, 3))
    # the operator itself needs equal ranks (MXNetError), as in MXNet
    with pytest.raises(mx.MXNetError):
        nd.broadcast_to(a, shape=(2, 3))


def test_modulo_by_zero_is_zero_as_mxnet():
    assert (nd.array([1., 2.]) % 0).asnumpy().tolist() == [0, 0]
    assert (nd.array([5., 7.]) % nd.array([0., 4.])).asnumpy().tolist() == [0, 3]


# ---------------------------------------------------------------------- issue 31
#: MXNet's binary helpers and the NumPy function that gives the same 0/1 or value.
HELPERS = {'add': np.add, 'subtract': np.subtract, 'multiply': np.multiply,
           'divide': np.divide, 'true_divide': np.divide, 'power': np.power,
           'maximum': np.maximum, 'minimum': np.minimum, 'equal': np.equal,
           'not_equal': np.not_equal, 'greater': np.greater,
           'greater_equal': np.greater_equal, 'lesser': np.less, 'lesser_equal': np.less_equal,
           'logical_and': np.logical_and, 'logical_or': np.logical_or,
           'logical_xor': np.logical_xor}


def test_a_number_on_the_left_is_the_left_operand_of_every_helper():
    # MXNet 1.9.1 and gluonedu up to issue 31's regression: 2 > [-3, 1, 4] is [1, 1, 0]
    assert nd.greater(2, nd.array([-3, 1, 4])).asnumpy().tolist() == [1, 1, 0]
    values = np.array([-3, 1, 4, 2, 0.5], dtype=np.float32)
    for name, numpy_op in HELPERS.items():
        for number in (2, 1.5, True):
            got = getattr(nd, name)(number, nd.array(values))
            want = numpy_op(np.float32(number), values).astype(np.float32)
            np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6,
                                       err_msg='%s(%r, x)' % (name, number))


def test_two_numbers_follow_mxnets_python_formulas():
    nan = float('nan')
    # MXNet: maximum is `x if x > y else y`, comparisons and logic give the ints 0 and 1
    assert np.isnan(nd.maximum(2, nan)) and nd.maximum(nan, 2) == 2
    assert np.isnan(nd.minimum(2, nan)) and nd.minimum(nan, 2) == 2
    for result in (nd.greater(2, 3), nd.lesser(2, 3), nd.logical_and(2, 3),
                   nd.logical_xor(2, 3), nd.equal(2, nan)):
        assert type(result) is int and result in (0, 1)
    assert (nd.greater(2, 3), nd.lesser(2, 3), nd.logical_and(2, 3)) == (0, 1, 1)
    with pytest.raises(ZeroDivisionError, match='two numbers'):  # Python's, as MXNet
        nd.divide(1, 0)


@pytest.mark.parametrize('source', [None, [1, None], [[1.5], [None]]])
def test_none_is_no_number(source):
    with pytest.raises(TypeError, match="float\\('nan'\\) marks a missing value"):
        nd.array(source)


def test_assigning_none_or_text_raises_type_error():
    x = nd.zeros(2)
    for value in (None, [None, 1], 'x', 1j):
        with pytest.raises(TypeError):
            x[:] = value
    assert x.asnumpy().tolist() == [0, 0]


def test_a_number_is_assigned_as_mxnets_cpp_cast_converts_it():
    # float(value) cast to the dtype as x86-64 casts: truncated, wrapped around to the
    # dtype's width, and NaN or infinity as the lowest int32 (whose low byte is 0)
    x = nd.zeros(3, dtype='uint8')
    for value, want in ((300, 300 % 256), (-2, 256 - 2), (2.7, 2), (float('nan'), 0),
                        (float('inf'), 0)):
        x[:] = value
        assert x.asnumpy().tolist() == [want] * 3, value


def test_numbers_out_of_the_dtypes_range_are_refused_in_lists():
    with pytest.raises(TypeError, match='out of bounds for uint8'):
        nd.array([300], dtype='uint8')
    with pytest.raises(TypeError, match='uint8'):
        nd.zeros(2, dtype='uint8')[:] = [-2, 1]


@pytest.mark.parametrize('make', [
    lambda: nd.array([1, 2], dtype='foo'), lambda: nd.zeros(2, dtype='foo'),
    lambda: nd.ones(2, dtype='foo'), lambda: nd.empty(2, dtype='foo'),
    lambda: nd.full(2, 1, dtype='foo'), lambda: nd.arange(3, dtype='foo'),
    lambda: nd.eye(2, dtype='foo'), lambda: nd.ones(2).astype('foo'),
    lambda: nd.cast(nd.ones(2), dtype='foo'), lambda: nd.random.uniform(shape=2, dtype='foo'),
    lambda: mx.gluon.nn.Dense(2, in_units=2, dtype='foo').initialize()])
def test_an_unknown_dtype_names_the_usual_ones(make):
    with pytest.raises(TypeError, match="'foo' is not a data type NumPy understands; use"):
        make()


@pytest.mark.parametrize('make', [lambda: nd.full(2, 1, dtype=object),
                                  lambda: nd.empty(2, dtype='int16'),
                                  lambda: nd.ones(2).astype('int16')])
def test_a_dtype_ndarrays_cannot_hold_raises_type_error(make):
    with pytest.raises(TypeError, match='NDArrays cannot hold'):
        make()


@pytest.mark.parametrize('shape', [2.5, None, 'x', (2, 1.5)])
def test_a_shape_that_is_no_int_tuple_raises_type_error_saying_so(shape):
    with pytest.raises(TypeError, match='shape must be an int or a tuple of ints'):
        nd.empty(shape)
