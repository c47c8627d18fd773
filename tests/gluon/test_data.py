"""gluon.data: datasets, samplers and DataLoader. The expected batches, dtypes and errors
below were checked against MXNet 1.9.1 (rollover across epochs included)."""
import warnings

import numpy as np
import pytest

import gluonedu as mx
from gluonedu import nd
from gluonedu.gluon import data as gdata
from gluonedu.gluon.data import dataloader as dataloader_module


def batches(loader):
    """The batches of one epoch as nested Python lists."""
    out = []
    for batch in loader:
        if isinstance(batch, list):
            out.append([b.asnumpy().tolist() for b in batch])
        else:
            out.append(batch.asnumpy().tolist())
    return out


# ---------------------------------------------------------------------- samplers
def test_sequential_sampler_with_start():
    assert list(gdata.SequentialSampler(4)) == [0, 1, 2, 3]
    assert list(gdata.SequentialSampler(3, start=5)) == [5, 6, 7]
    assert len(gdata.SequentialSampler(3, start=5)) == 3


def test_random_sampler_is_a_permutation_reproducible_with_mx_random_seed():
    sampler = gdata.RandomSampler(20)
    mx.random.seed(3)
    first, second = list(sampler), list(sampler)
    assert sorted(first) == list(range(20)) and len(sampler) == 20
    assert first != second                      # a new order every epoch
    mx.random.seed(3)
    assert list(sampler) == first and list(sampler) == second


def test_filter_sampler():
    sampler = gdata.FilterSampler(lambda x: x % 2 == 0, list(range(7)))
    assert list(sampler) == [0, 2, 4, 6] and len(sampler) == 4


@pytest.mark.parametrize('mode,expected,length', [
    ('keep', [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]], 4),
    ('discard', [[0, 1, 2], [3, 4, 5], [6, 7, 8]], 3),
    ('rollover', [[0, 1, 2], [3, 4, 5], [6, 7, 8]], 3),
])
def test_batch_sampler_last_batch_modes(mode, expected, length):
    sampler = gdata.BatchSampler(gdata.SequentialSampler(10), 3, mode)
    assert len(sampler) == length
    assert list(sampler) == expected


def test_batch_sampler_rollover_carries_leftovers_into_the_next_epoch():
    sampler = gdata.BatchSampler(gdata.SequentialSampler(10), 3, 'rollover')
    assert list(sampler) == [[0, 1, 2], [3, 4, 5], [6, 7, 8]]
    assert len(sampler) == 3                    # (1 left over + 10) // 3
    assert list(sampler) == [[9, 0, 1], [2, 3, 4], [5, 6, 7]]
    assert len(sampler) == 4                    # (2 + 10) // 3
    assert list(sampler) == [[8, 9, 0], [1, 2, 3], [4, 5, 6], [7, 8, 9]]


def test_batch_sampler_rejects_unknown_last_batch():
    sampler = gdata.BatchSampler(gdata.SequentialSampler(5), 2, 'drop')
    with pytest.raises(ValueError, match='last_batch'):
        list(sampler)
    with pytest.raises(ValueError, match='last_batch'):
        len(sampler)


# ---------------------------------------------------------------------- datasets
def test_array_dataset_zips_arrays_of_all_kinds():
    X = np.arange(12, dtype=np.float32).reshape(6, 2)
    ds = gdata.ArrayDataset(X, nd.array(np.arange(6)), list('abcdef'))
    assert len(ds) == 6
    features, label, letter = ds[2]
    np.testing.assert_array_equal(features, [4., 5.])
    # a 1-D NDArray is kept as NumPy (MXNet does the same), so items are NumPy scalars
    assert isinstance(label, np.float32) and label == 2
    assert letter == 'c'


def test_array_dataset_single_array_items_are_not_tuples():
    ds = gdata.ArrayDataset(nd.ones((3, 2)))
    assert isinstance(ds[0], nd.NDArray) and ds[0].shape == (2,)


def test_array_dataset_lengths_must_match():
    with pytest.raises(AssertionError, match='same length'):
        gdata.ArrayDataset(np.arange(3), np.arange(4))
    with pytest.raises(AssertionError):
        gdata.ArrayDataset()


def test_simple_dataset_take_shard_filter():
    ds = gdata.SimpleDataset(list(range(10)))
    assert list(ds.take(3)) == [0, 1, 2]
    assert len(ds.take(None)) == 10 and len(ds.take(50)) == 10
    assert [list(ds.shard(3, i)) for i in range(3)] == [[0, 1, 2, 3], [4, 5, 6], [7, 8, 9]]
    assert list(ds.filter(lambda x: x % 3 == 0)) == [0, 3, 6, 9]
    with pytest.raises(AssertionError):
        ds.shard(3, 3)


def test_sample_needs_a_sampler():
    ds = gdata.SimpleDataset(list(range(5)))
    assert list(ds.sample(gdata.SequentialSampler(2, start=3))) == [3, 4]
    with pytest.raises(TypeError):
        ds.sample([1, 2])


def test_transform_unpacks_tuples_and_transform_first_keeps_the_rest():
    ds = gdata.ArrayDataset(list(range(4)), list('abcd'))
    assert ds.transform(lambda x, y: (y, x))[1] == ('b', 1)
    assert [ds.transform_first(lambda x: x * 10)[i] for i in range(4)] == \
        [(0, 'a'), (10, 'b'), (20, 'c'), (30, 'd')]
    plain = gdata.SimpleDataset([1, 2, 3])
    assert list(plain.transform_first(lambda x: -x)) == [-1, -2, -3]


def test_lazy_transform_runs_every_read_eager_runs_once():
    calls = []

    def fn(x):
        calls.append(x)
        return x + 1
    ds = gdata.SimpleDataset([1, 2])
    lazy = ds.transform(fn)
    assert calls == []
    lazy[0], lazy[0]
    assert calls == [1, 1]
    calls.clear()
    eager = ds.transform(fn, lazy=False)
    assert calls == [1, 2]
    assert isinstance(eager, gdata.SimpleDataset) and list(eager) == [2, 3]


# ---------------------------------------------------------------------- DataLoader
def test_dataloader_batches_arrays_into_ndarrays_keeping_numpy_dtypes():
    X = np.arange(20, dtype=np.float64).reshape(10, 2)
    y = np.arange(10)
    loader = gdata.DataLoader(gdata.ArrayDataset(X, y), batch_size=4)
    first = next(iter(loader))
    assert isinstance(first, list) and len(first) == 2
    assert first[0].shape == (4, 2) and first[0].dtype == np.float64
    assert first[1].shape == (4,) and first[1].dtype == np.int64
    np.testing.assert_array_equal(first[0].asnumpy(), X[:4])
    assert len(loader) == 3


def test_dataloader_stacks_ndarray_samples():
    X = nd.arange(12).reshape((6, 2))
    loader = gdata.DataLoader(gdata.ArrayDataset(X, nd.arange(6)), batch_size=4)
    data, label = next(iter(loader))
    assert data.dtype == np.float32 and data.shape == (4, 2) and data.context == mx.cpu()
    assert label.dtype == np.float32 and label.asnumpy().tolist() == [0, 1, 2, 3]


def test_dataloader_over_a_plain_array_and_python_lists():
    assert [b.shape for b in gdata.DataLoader(nd.ones((3, 2)), batch_size=2)] == \
        [(2, 2), (1, 2)]
    ints, floats = next(iter(gdata.DataLoader(gdata.ArrayDataset([1, 2], [0.5, 1.5]),
                                              batch_size=2)))
    assert ints.dtype == np.int64 and floats.dtype == np.float64


@pytest.mark.parametrize('mode,expected', [
    ('keep', [[0, 1, 2], [3, 4, 5], [6]]),
    ('discard', [[0, 1, 2], [3, 4, 5]]),
    ('rollover', [[0, 1, 2], [3, 4, 5]]),
])
def test_dataloader_last_batch(mode, expected):
    loader = gdata.DataLoader(np.arange(7), batch_size=3, last_batch=mode)
    assert batches(loader) == expected


def test_dataloader_rollover_over_three_epochs():
    loader = gdata.DataLoader(np.arange(7), batch_size=3, last_batch='rollover')
    assert [batches(loader) for _ in range(3)] == [
        [[0, 1, 2], [3, 4, 5]],
        [[6, 0, 1], [2, 3, 4]],
        [[5, 6, 0], [1, 2, 3], [4, 5, 6]],
    ]


def test_dataloader_shuffle_is_reproducible_with_mx_random_seed():
    data = np.arange(30)

    def two_epochs():
        loader = gdata.DataLoader(data, batch_size=8, shuffle=True)
        return batches(loader), batches(loader)
    mx.random.seed(11)
    first = two_epochs()
    mx.random.seed(11)
    assert two_epochs() == first
    assert first[0] != first[1]
    assert sorted(sum(first[0], [])) == list(range(30))
    mx.random.seed(12)
    assert two_epochs() != first


class ReverseSampler(gdata.Sampler):
    def __init__(self, length):
        self._length = length

    def __iter__(self):
        return iter(range(self._length - 1, -1, -1))

    def __len__(self):
        return self._length


def test_dataloader_with_custom_sampler_batch_sampler_and_batchify_fn():
    loader = gdata.DataLoader(np.arange(4), batch_size=2, sampler=ReverseSampler(4))
    assert batches(loader) == [[3, 2], [1, 0]]
    batch_sampler = gdata.BatchSampler(gdata.SequentialSampler(5), 2, 'discard')
    loader = gdata.DataLoader(np.arange(5), batch_sampler=batch_sampler, batchify_fn=list)
    assert [list(map(int, b)) for b in loader] == [[0, 1], [2, 3]]
    assert len(loader) == 2


@pytest.mark.parametrize('kwargs,message', [
    (dict(), 'batch_size must be given'),
    (dict(batch_size=2, shuffle=True, sampler=gdata.SequentialSampler(3)),
     'shuffle must not be given'),
    (dict(batch_sampler=gdata.BatchSampler(gdata.SequentialSampler(3), 2), batch_size=2),
     'must not be given together with batch_sampler'),
    (dict(batch_sampler=gdata.BatchSampler(gdata.SequentialSampler(3), 2), shuffle=True),
     'must not be given together with batch_sampler'),
    (dict(batch_sampler=gdata.BatchSampler(gdata.SequentialSampler(3), 2), last_batch='keep'),
     'must not be given together with batch_sampler'),
])
def test_dataloader_argument_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        gdata.DataLoader(np.arange(3), **kwargs)


def test_dataloader_num_workers_warns_once_and_loads_in_process(monkeypatch):
    monkeypatch.setattr(dataloader_module, '_warned_about_workers', [False])
    with pytest.warns(UserWarning, match='num_workers'):
        loader = gdata.DataLoader(np.arange(4), batch_size=2, num_workers=2)
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        again = gdata.DataLoader(np.arange(4), batch_size=2, num_workers=4)
    assert batches(loader) == batches(again) == [[0, 1], [2, 3]]


def test_default_batchify_fn_handles_nested_tuples():
    samples = [(np.ones(2), (1, 2.5)), (np.zeros(2), (3, 4.5))]
    features, (ints, floats) = dataloader_module.default_batchify_fn(samples)
    assert features.shape == (2, 2)
    assert ints.asnumpy().tolist() == [1, 3] and floats.asnumpy().tolist() == [2.5, 4.5]


def test_training_loop_over_a_dataloader():
    X, y = mx.data.linear_regression(n=64, seed=1)
    loader = gdata.DataLoader(gdata.ArrayDataset(X, y), batch_size=16, shuffle=True)
    w = nd.zeros((2, 1))
    b = nd.zeros((1,))
    for param in (w, b):
        param.attach_grad()
    loss_fn = mx.gluon.loss.L2Loss()
    for _ in range(30):
        for features, label in loader:
            with mx.autograd.record():
                loss = loss_fn(nd.dot(features, w) + b, label)
            loss.backward()
            for param in (w, b):
                param[:] = param - 0.1 * param.grad / features.shape[0]
    np.testing.assert_allclose(w.asnumpy().ravel(), [2.0, -3.4], atol=0.05)
    np.testing.assert_allclose(b.asnumpy(), [4.2], atol=0.05)
