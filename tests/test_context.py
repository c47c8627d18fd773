"""Contexts: cpu(i) are distinct devices; gpu(i) needs CuPy; ``with ctx:`` scoping."""
import pytest

import gluonedu as mx
from gluonedu import nd
from gluonedu import _backend


def test_cpu_ids_are_distinct_devices():
    a, b = nd.ones(2, ctx=mx.cpu(0)), nd.ones(2, ctx=mx.cpu(1))
    assert a.context != b.context
    with pytest.raises(mx.MXNetError, match='different contexts'):
        a + b
    assert (a + b.as_in_context(mx.cpu(0))).asnumpy().tolist() == [2, 2]
    assert b.copyto(mx.cpu(0)).context == mx.cpu(0)


def test_with_context_sets_current_context_and_restores_it():
    assert mx.current_context() == mx.cpu(0)
    with mx.cpu(1) as ctx:
        assert ctx == mx.cpu(1)
        assert mx.current_context() == mx.cpu(1)
        assert nd.ones(1).context == mx.cpu(1)
        with mx.cpu(2):
            assert nd.zeros(1).context == mx.cpu(2)
        assert mx.current_context() == mx.cpu(1)
    assert mx.current_context() == mx.cpu(0)


def test_set_default_context_changes_the_default_outside_with_blocks():
    try:
        mx.test_utils.set_default_context(mx.cpu(3))
        assert mx.test_utils.default_context() == mx.cpu(3)
        assert nd.ones(1).context == mx.cpu(3)
        with mx.cpu(1):
            assert mx.current_context() == mx.cpu(1)
    finally:
        mx.test_utils.set_default_context(mx.cpu(0))
    assert mx.current_context() == mx.cpu(0)


@pytest.mark.skipif(_backend.gpu_count() > 0, reason='this machine has a GPU')
def test_num_gpus_is_zero_without_cupy_or_gpu():
    assert mx.num_gpus() == 0


@pytest.mark.skipif(_backend.gpu_count() > 0, reason='this machine has a GPU')
def test_gpu_data_without_a_gpu_raises_naming_what_is_missing():
    ctx = mx.gpu(0)  # the context itself can be made
    assert str(ctx) == 'gpu(0)'
    with pytest.raises(mx.MXNetError, match='CuPy|GPU'):
        nd.ones(2, ctx=ctx)
    with pytest.raises(mx.MXNetError, match='CuPy|GPU'):
        nd.ones(2).as_in_context(ctx)


def test_gpu_error_names_cupy_when_it_cannot_be_imported(monkeypatch):
    monkeypatch.setattr(_backend, '_cupy', None)
    monkeypatch.setattr(_backend, '_cupy_error', ImportError("No module named 'cupy'"))
    with pytest.raises(mx.MXNetError, match='CuPy'):
        nd.zeros(3, ctx=mx.gpu(0))
    assert mx.num_gpus() == 0


def test_context_equality_hash_str():
    assert mx.cpu() == mx.cpu(0) == mx.Context('cpu', 0) == mx.Context(mx.cpu(0))
    assert mx.cpu(0) != mx.cpu(1) and mx.cpu(0) != mx.gpu(0)
    assert mx.cpu(0) != 'cpu(0)'
    assert len({mx.cpu(0), mx.cpu(), mx.cpu(1), mx.gpu(0)}) == 3
    assert str(mx.cpu(1)) == repr(mx.cpu(1)) == 'cpu(1)'
    assert str(mx.gpu(2)) == 'gpu(2)'
    assert mx.gpu(1).device_type == 'gpu' and mx.gpu(1).device_id == 1
    assert str(mx.cpu_pinned(0)) == 'cpu_pinned(0)'


@pytest.mark.parametrize('args', [('tpu', 0), ('cpu', -1)])
def test_bad_context_arguments_raise_value_error(args):
    with pytest.raises(ValueError):
        mx.Context(*args)
