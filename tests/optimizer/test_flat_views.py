"""A FlatGroup's arrays view its buffers until somebody gives them other storage.

``ndarray.ndarray.set_handle`` is the one way an NDArray's storage changes; the flat
layouts use it to make parameters views of one buffer, and notice (``is_current``) when
another layout has taken their arrays since.
"""
import numpy as np
import pytest

import gluonedu as mx
from gluonedu import nd
from gluonedu.ndarray.ndarray import rebind_count, set_handle
from gluonedu.optimizer.flat import FlatGroup


def _arrays(seed, shapes=((3, 4), (5,), (2, 2))):
    rng = np.random.RandomState(seed)
    return [nd.array(rng.randn(*s)) for s in shapes]


def test_a_group_lays_out_its_arrays_as_views_keeping_their_values():
    weights, grads = _arrays(0), _arrays(1)
    before = [w.asnumpy() for w in weights] + [g.asnumpy() for g in grads]
    group = FlatGroup([0, 1, 2], weights, grads)
    after = [w.asnumpy() for w in weights] + [g.asnumpy() for g in grads]
    assert all(np.array_equal(a, b) for a, b in zip(before, after))
    assert all(np.shares_memory(w.handle, group.weight) for w in weights)
    weights[1][:] = 7.0   # writes through the view
    assert np.all(group.weight[12:17] == 7.0)
    assert group.is_current(weights, grads)


def test_a_group_whose_arrays_another_layout_took_is_no_longer_current():
    weights, grads = _arrays(0), _arrays(1)
    first = FlatGroup([0, 1, 2], weights, grads)
    part = first.segments(1, 3)
    assert part.is_current(weights[1:], grads[1:])
    second = FlatGroup([0, 1, 2], weights, grads)   # lays the same arrays out again
    assert not first.is_current(weights, grads)
    assert not part.is_current(weights[1:], grads[1:])
    assert second.is_current(weights, grads)
    assert not first.is_current(_arrays(0), grads)   # other arrays


def test_set_handle_counts_every_change_of_storage():
    x = nd.zeros((2, 3))
    count = rebind_count()
    set_handle(x, np.ones((2, 3), dtype=np.float32))
    assert rebind_count() == count + 1
    np.testing.assert_array_equal(x.asnumpy(), np.ones((2, 3)))


@pytest.mark.parametrize('handle, what', [
    (np.zeros((3, 2), dtype=np.float32), 'shape'),
    (np.zeros((2, 3), dtype=np.float64), 'float64'),
    ([[0.0] * 3] * 2, 'list'),
])
def test_set_handle_refuses_storage_of_another_shape_dtype_or_kind(handle, what):
    x = nd.zeros((2, 3))
    count = rebind_count()
    with pytest.raises(ValueError, match='set_handle.*cannot hold'):
        set_handle(x, handle)
    assert rebind_count() == count
    assert x.shape == (2, 3) and x.dtype == np.float32


def test_the_trainer_lays_out_again_after_the_updater_took_its_arrays():
    net = mx.gluon.nn.Dense(3, in_units=4)
    net.initialize()
    trainer = mx.gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1})
    x = nd.array(np.random.RandomState(0).randn(2, 4))
    for _ in range(2):
        with mx.autograd.record():
            loss = net(x).sum()
        loss.backward()
        trainer.step(2)
    weights = [p.data() for p in trainer.params]
    grads = [p.grad() for p in trainer.params]
    FlatGroup([0, 1], weights, grads)   # someone else's layout of the same arrays
    with mx.autograd.record():
        loss = net(x).sum()
    loss.backward()
    expected = [w.asnumpy() - 0.1 * g.asnumpy() / 2 for w, g in zip(weights, grads)]
    trainer.step(2)
    for p, e in zip(trainer.params, expected):
        np.testing.assert_allclose(p.data().asnumpy(), e, rtol=1e-6, atol=1e-7)


def test_set_handle_is_the_only_place_an_ndarrays_storage_changes():
    """What makes rebind_count() sound: ``_data`` is assigned in NDArray.__init__ and in
    set_handle, nowhere else in the ndarray package (other packages cannot reach it:
    tests/test_private_access.py)."""
    import ast
    import pathlib
    import gluonedu.ndarray
    assigning = []
    for path in pathlib.Path(gluonedu.ndarray.__file__).parent.rglob('*.py'):
        tree = ast.parse(path.read_text())
        for function in ast.walk(tree):
            if not isinstance(function, ast.FunctionDef):
                continue
            for node in ast.walk(function):
                # (``x._data += y`` adds in place: the array stays the same object)
                targets = node.targets if isinstance(node, ast.Assign) else \
                    [node.target] if isinstance(node, ast.AnnAssign) else []
                if any(isinstance(t, ast.Attribute) and t.attr == '_data' for t in targets):
                    assigning.append((path.name, function.name))
    assert sorted(set(assigning)) == [('ndarray.py', '__init__'), ('ndarray.py', 'set_handle')]
