"""Scenarios of MXNet 1.9.1's own Block tests (tests/python/unittest/test_gluon.py), in our
words, for the names they import: storage-type ids, is_np_array, py_str."""
import numpy as np
import pytest

import gluonedu as mx
from gluonedu.base import py_str
from gluonedu.ndarray.ndarray import _STORAGE_TYPE_ID_TO_STR, _STORAGE_TYPE_STR_TO_ID
from gluonedu.util import is_np_array


def test_a_row_sparse_parameter_records_its_storage_type_id_on_its_symbol():
    param = mx.gluon.Parameter('weight', shape=(6, 3), stype='row_sparse',
                               grad_stype='row_sparse')
    param.initialize(ctx=[mx.cpu(0), mx.cpu(1)])
    assert param.var().attr('__storage_type__') == str(_STORAGE_TYPE_STR_TO_ID['row_sparse'])
    assert param.grad(mx.cpu(0)).stype == 'row_sparse'
    rows = mx.nd.arange(0, 6, ctx=mx.cpu(1))
    with pytest.raises(RuntimeError):  # row_sparse data needs a Trainer to pull it
        param.list_row_sparse_data(rows)
    mx.gluon.Trainer([param], 'sgd')
    assert param.row_sparse_data(rows).stype == 'row_sparse'


def test_storage_type_ids_go_both_ways_and_mark_unknown_with_minus_one():
    for stype, code in _STORAGE_TYPE_STR_TO_ID.items():
        assert _STORAGE_TYPE_ID_TO_STR[code] == stype
    assert _STORAGE_TYPE_ID_TO_STR[-1] == 'undefined'
    assert mx.nd.zeros((2, 2)).tostype('csr').stype == _STORAGE_TYPE_ID_TO_STR[2]


def test_split_data_takes_the_ndarray_path_and_splits_as_numpy():
    assert is_np_array() is False
    x = mx.nd.random.uniform(shape=(8, 7, 3))
    for num_slice, axis, even in ((4, 0, True), (3, 1, False), (7, 1, True)):
        parts = mx.gluon.utils.split_data(x, num_slice, axis, even_split=even)
        assert len(parts) == num_slice
        np.testing.assert_array_equal(mx.nd.concat(*parts, dim=axis).asnumpy(), x.asnumpy())
        for part, expected in zip(parts, np.array_split(x.asnumpy(), num_slice, axis=axis)):
            np.testing.assert_array_equal(part.asnumpy(), expected)
    with pytest.raises(ValueError):
        mx.gluon.utils.split_data(x, 3, 1)  # 7 is not a multiple of 3


def test_py_str_turns_a_hooks_utf8_name_into_text_and_takes_bytes_only():
    assert py_str('dense0_fwd_output'.encode('utf-8')) == 'dense0_fwd_output'
    assert py_str('poids_é'.encode('utf-8')) == 'poids_é'
    with pytest.raises(AttributeError):
        py_str('already text')
