"""mx.io: the iterators' contracts and messages (tests/parity/io/test_io_iters_parity.py
holds their batches equal to MXNet 1.9.1's)."""
import gc
import threading

import numpy as np
import pytest

import gluonedu as mx
from gluonedu.base import MXNetError


def write(path, text):
    path.write_text(text)
    return str(path)


def rows_of(batches):
    return [b.data[0].asnumpy().tolist() for b in batches]


# ------------------------------------------------------------------ DataDesc, DataBatch
def test_a_data_desc_is_the_pair_name_shape_with_dtype_and_layout():
    desc = mx.io.DataDesc('data', (4, 3), np.int32, 'NTC')
    name, shape = desc
    assert (name, shape, desc.dtype, desc.layout) == ('data', (4, 3), np.int32, 'NTC')
    assert repr(desc) == "DataDesc[data,(4, 3),<class 'numpy.int32'>,NTC]"
    assert mx.io.DataDesc.get_batch_axis('TNC') == 1


def test_a_batch_lists_its_shapes_and_refuses_a_bare_array():
    batch = mx.io.DataBatch([mx.nd.ones((2, 3))], [mx.nd.ones((2,))], pad=1)
    assert str(batch) == 'DataBatch: data shapes: [(2, 3)] label shapes: [(2,)]'
    with pytest.raises(AssertionError, match=r'DataBatch\(\[x\]\)'):
        mx.io.DataBatch(mx.nd.ones((2, 3)))


# ------------------------------------------------------------------ NDArrayIter
def test_every_example_comes_once_per_epoch_in_order_then_padding():
    it = mx.io.NDArrayIter(np.arange(5), np.arange(5) * 10, batch_size=2)
    batches = list(it)
    assert rows_of(batches) == [[0, 1], [2, 3], [4, 0]]
    assert [b.pad for b in batches] == [0, 0, 1]
    assert batches[-1].label[0].asnumpy().tolist() == [40, 0]
    it.reset()
    assert rows_of(it) == [[0, 1], [2, 3], [4, 0]]


def test_roll_over_completes_the_kept_batch_after_reset():
    it = mx.io.NDArrayIter(np.arange(5), batch_size=2, last_batch_handle='roll_over')
    assert rows_of(it) == [[0, 1], [2, 3]]
    it.reset()
    first = it.next()
    assert first.data[0].asnumpy().tolist() == [4, 0] and first.pad == 1
    it.hard_reset()
    assert rows_of(it) == [[0, 1], [2, 3]]


def test_shuffle_draws_from_numpy_global_state():
    def epoch():
        np.random.seed(3)
        return rows_of(mx.io.NDArrayIter(np.arange(6), batch_size=3, shuffle=True))
    first = epoch()
    assert first == epoch()
    assert sorted(sum(first, [])) == list(range(6)) and sum(first, []) != list(range(6))


def test_inputs_are_named_as_mxnet_names_them():
    it = mx.io.NDArrayIter([np.ones((4, 2)), np.zeros((4, 1))], {'y': np.ones(4)}, 2)
    assert [d.name for d in it.provide_data] == ['_0_data', '_1_data']
    assert it.provide_label == [('y', (2,))]


def test_bad_arguments_say_what_to_give():
    with pytest.raises(ValueError, match="'pad', 'discard', 'roll_over'"):
        mx.io.NDArrayIter(np.ones(4), last_batch_handle='keep')
    with pytest.raises(MXNetError, match='positive integer'):
        mx.io.NDArrayIter(np.ones(4), batch_size=0)
    with pytest.raises(MXNetError, match="'softmax_label' has 3 rows"):
        mx.io.NDArrayIter(np.ones(4), np.ones(3))
    with pytest.raises(NotImplementedError, match="discard"):
        mx.io.NDArrayIter(mx.nd.ones((4, 2)).tostype('csr'))
    with pytest.raises(TypeError, match='str'):
        mx.io.NDArrayIter('data.csv')


# ------------------------------------------------------------------ CSVIter
def test_csv_round_batch_wraps_and_the_next_epoch_starts_after_the_wrap(tmp_path):
    data = write(tmp_path / 'd.csv', ''.join('%d,%d\n' % (i, -i) for i in range(5)))
    it = mx.io.CSVIter(data_csv=data, data_shape=(2,), batch_size=2)
    first = list(it)
    assert [b.index.tolist() for b in first] == [[0, 1], [2, 3], [4, 0]]
    assert first[-1].pad == 1 and first[-1].data[0].asnumpy().tolist() == [[4, -4], [0, 0]]
    it.reset()
    assert [b.index.tolist() for b in it] == [[1, 2], [3, 4]]


def test_csv_without_round_batch_leaves_the_previous_rows_as_filling(tmp_path):
    data = write(tmp_path / 'd.csv', '1\n2\n3\n')
    it = mx.io.CSVIter(data_csv=data, data_shape=(1,), batch_size=2, round_batch=False)
    batches = list(it)
    assert rows_of(batches) == [[[1], [2]], [[3], [2]]] and batches[-1].pad == 1


def test_csv_labels_and_dtype(tmp_path):
    data = write(tmp_path / 'd.csv', '1,2\n3,4\n')
    labels = write(tmp_path / 'l.csv', '7\n8\n')
    it = mx.io.CSVIter(data_csv=data, data_shape=(2,), label_csv=labels, batch_size=2,
                       dtype='int64')
    batch = it.next()
    assert batch.label[0].asnumpy().tolist() == [7, 8]
    assert batch.data[0].dtype == np.int64 and it.provide_label[0].shape == (2,)


@pytest.mark.parametrize('text, line, problem', [
    ('1,2\n3\n', 2, '1 values, but the shape'),
    ('1,2\n\n3,x\n', 3, "'x' is not a number"),
])
def test_a_malformed_csv_row_names_file_and_line(tmp_path, text, line, problem):
    data = write(tmp_path / 'bad.csv', text)
    with pytest.raises(MXNetError, match=r'bad\.csv, line %d: %s' % (line, problem)):
        mx.io.CSVIter(data_csv=data, data_shape=(2,), batch_size=1)


def test_csv_parameters_are_checked(tmp_path):
    data = write(tmp_path / 'd.csv', '1,2\n')
    with pytest.raises(MXNetError, match='batch_size is required'):
        mx.io.CSVIter(data_csv=data, data_shape=(2,))
    with pytest.raises(MXNetError, match="'float64' is not supported"):
        mx.io.CSVIter(data_csv=data, data_shape=(2,), batch_size=1, dtype=np.float64)
    with pytest.raises(MXNetError, match='cannot read'):
        mx.io.CSVIter(data_csv=str(tmp_path / 'missing.csv'), data_shape=(2,), batch_size=1)
    with pytest.raises(MXNetError, match='at most 1'):
        mx.io.CSVIter(data_csv=data, data_shape=(2,), batch_size=3)
    with pytest.raises(TypeError, match='keyword'):
        mx.io.CSVIter(data, data_csv=data, data_shape=(2,), batch_size=1)


# ------------------------------------------------------------------ LibSVMIter
def test_libsvm_batches_are_csr_with_dense_labels(tmp_path):
    data = write(tmp_path / 'd.t', '1 0:0.5 2:1.5\n-2\n3 1:2 # note\n')
    batch = mx.io.LibSVMIter(data_libsvm=data, data_shape=(3,), batch_size=3).next()
    features = batch.data[0]
    assert features.stype == 'csr'
    assert features.asnumpy().tolist() == [[0.5, 0, 1.5], [0, 0, 0], [0, 2, 0]]
    assert batch.label[0].asnumpy().tolist() == [1, -2, 3]


def test_libsvm_parts_split_the_lines_between_workers(tmp_path):
    data = write(tmp_path / 'd.t', ''.join('%d 0:1\n' % i for i in range(9)))
    seen = [[int(b.label[0].asnumpy()[0]) for b in mx.io.LibSVMIter(
        data_libsvm=data, data_shape=(1,), batch_size=1, num_parts=3, part_index=p)]
        for p in range(3)]
    assert sorted(sum(seen, [])) == list(range(9)) and all(seen)


@pytest.mark.parametrize('line, problem', [
    ('1 1:2 0:1', 'must increase'),
    ('1 3:1', 'out of range'),
    ('1 a:1', 'not a feature index:value pair'),
    ('1 0:x', 'is not a number'),
])
def test_a_malformed_libsvm_line_names_file_and_line(tmp_path, line, problem):
    data = write(tmp_path / 'bad.t', '1 0:1\n' + line + '\n')
    with pytest.raises(MXNetError, match=r'bad\.t, line 2: .*%s' % problem):
        mx.io.LibSVMIter(data_libsvm=data, data_shape=(3,), batch_size=1)


# ------------------------------------------------------------------ wrappers
def test_resize_iter_gives_a_fixed_number_of_batches():
    inner = mx.io.NDArrayIter(np.arange(4), batch_size=2)
    assert rows_of(mx.io.ResizeIter(inner, 3)) == [[0, 1], [2, 3], [0, 1]]


def test_prefetching_joins_iterators_and_raises_their_errors():
    class Failing(mx.io.NDArrayIter):
        def next(self):
            raise MXNetError('broken source')
    joined = mx.io.PrefetchingIter([mx.io.NDArrayIter(np.arange(4), batch_size=2),
                                    mx.io.NDArrayIter(np.arange(4) * 2, batch_size=2)],
                                   rename_data=[{'data': 'a'}, {'data': 'b'}])
    assert [d.name for d in joined.provide_data] == ['a', 'b']
    assert [[d.asnumpy().tolist() for d in b.data] for b in joined] == [
        [[0, 1], [0, 2]], [[2, 3], [4, 6]]]
    with pytest.raises(MXNetError, match='broken source'):
        mx.io.PrefetchingIter(Failing(np.arange(4), batch_size=2)).next()


def test_a_dropped_prefetching_iter_stops_its_threads():
    before = set(threading.enumerate())
    joined = mx.io.PrefetchingIter(mx.io.NDArrayIter(np.arange(4), batch_size=2))
    joined.next()
    started = set(threading.enumerate()) - before
    assert started
    del joined
    gc.collect()
    assert not any(thread.is_alive() for thread in started)


def test_shuffled_csr_batches_are_the_shuffled_dense_batches():
    def batches(data):
        np.random.seed(5)
        it = mx.io.NDArrayIter(data, batch_size=2, shuffle=True, last_batch_handle='discard')
        return rows_of(it)
    dense = np.arange(10, dtype=np.float32).reshape(5, 2)
    assert batches(mx.nd.array(dense).tostype('csr')) == batches(dense)
