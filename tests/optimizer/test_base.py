"""The Optimizer base class, the registry and the Updater (MXNet 1.9.1 semantics)."""
import io
import pickle
import types
import warnings
import zipfile

import numpy as np
import pytest

import gluonedu as mx
from gluonedu import nd
from gluonedu.optimizer import Optimizer


# ---------------------------------------------------------------------- registry
def test_create_is_case_insensitive():
    for name in ('sgd', 'SGD', 'Sgd'):
        assert type(mx.optimizer.create(name)) is mx.optimizer.SGD
    assert type(Optimizer.create_optimizer('NaG', momentum=0.9)) is mx.optimizer.NAG
    assert mx.optimizer.create('sgd', momentum=0.5).momentum == 0.5


def test_unknown_name_raises_value_error_listing_the_registered_names():
    with pytest.raises(ValueError, match='nosuchopt') as info:
        mx.optimizer.create('nosuchopt')
    for name in ('sgd', 'nag', 'signum', 'sgld', 'dcasgd', 'ccsgd', 'test'):
        assert name in str(info.value)


def test_an_unknown_keyword_is_a_type_error_naming_the_keyword_meant():
    # Other frameworks' names, and a misspelling: the message names MXNet's keyword.
    for name, kwargs, meant in [('sgd', {'lr': 0.1}, "'lr' (did you mean 'learning_rate'?)"),
                                ('sgd', {'weight_decay': 1e-4}, "(did you mean 'wd'?)"),
                                ('adam', {'betas': (0.9, 0.99)},
                                 "(did you mean 'beta1' and 'beta2'?)"),
                                ('sgd', {'momentom': 0.9}, "(did you mean 'momentum'?)")]:
        with pytest.raises(TypeError) as info:
            mx.optimizer.create(name, **kwargs)
        assert meant in str(info.value)
    # The valid keywords are listed.
    with pytest.raises(TypeError) as info:
        mx.optimizer.create('sgd', nesterov=True)
    message = str(info.value)
    assert "'nesterov'" in message and 'did you mean' not in message
    listed = message.split('Its keywords are: ')[1].rstrip('.').split(', ')
    assert {'learning_rate', 'momentum', 'wd', 'clip_gradient', 'lr_scheduler'} <= set(listed)
    assert 'lr' not in listed


@pytest.fixture
def registry_snapshot():
    saved = dict(Optimizer.opt_registry)
    yield
    Optimizer.opt_registry.clear()
    Optimizer.opt_registry.update(saved)


def test_register_adds_under_the_lower_case_name_and_warns_on_override(registry_snapshot):
    @mx.optimizer.register
    class MyTeachingOpt(Optimizer):
        pass

    assert Optimizer.opt_registry['myteachingopt'] is MyTeachingOpt
    assert isinstance(mx.optimizer.create('MyTeachingOpt'), MyTeachingOpt)
    with pytest.warns(UserWarning, match='overriding'):
        @mx.optimizer.register
        class myteachingopt(Optimizer):  # noqa: N801
            pass
    assert Optimizer.opt_registry['myteachingopt'] is myteachingopt


def test_register_rejects_non_classes():
    with pytest.raises(TypeError):
        mx.optimizer.register(lambda: None)


def test_a_keyword_the_signature_does_not_show_is_left_to_the_optimizer(registry_snapshot):
    @mx.optimizer.register
    class PoppingOpt(Optimizer):
        def __init__(self, **kwargs):
            self.tag = kwargs.pop('tag', None)
            super().__init__(**kwargs)

    assert mx.optimizer.create('poppingopt', tag='t').tag == 't'
    with pytest.raises(TypeError) as info:
        mx.optimizer.create('poppingopt', tag='t', lr=0.1)
    assert "'lr' (did you mean 'learning_rate'?)" in str(info.value)
    assert "'tag'" not in str(info.value)


# ---------------------------------------------------------------------- learning rate
def test_default_learning_rate_and_set_learning_rate():
    opt = mx.optimizer.SGD()
    assert opt.learning_rate == 0.01 and opt.lr == 0.01
    opt.set_learning_rate(0.3)
    assert opt.learning_rate == 0.3
    with pytest.raises(ValueError, match='learning_rate'):
        opt.set_learning_rate(-1)


def test_learning_rate_follows_the_scheduler_and_cannot_be_set():
    sched = mx.lr_scheduler.FactorScheduler(step=2, factor=0.5, base_lr=1.0)
    opt = mx.optimizer.SGD(lr_scheduler=sched)
    assert opt.lr is None and opt.learning_rate == 1.0
    opt.num_update = 3
    assert opt.learning_rate == 0.5
    with pytest.raises(UserWarning, match='LRScheduler'):
        opt.set_learning_rate(0.1)


def test_learning_rate_overrides_the_schedulers_base_lr_with_a_warning():
    sched = mx.lr_scheduler.FactorScheduler(step=2, base_lr=1.0)
    with pytest.warns(UserWarning, match='overwritten'):
        opt = mx.optimizer.SGD(learning_rate=0.2, lr_scheduler=sched)
    assert sched.base_lr == 0.2 and opt.learning_rate == 0.2


def test_lr_scheduler_of_the_wrong_type_is_a_type_error():
    with pytest.raises(TypeError, match='LRScheduler'):
        mx.optimizer.SGD(lr_scheduler=0.1)
    with pytest.raises(TypeError):
        mx.optimizer.SGD(lr_scheduler=lambda n: 0.1)


def test_set_lr_scale_is_deprecated():
    with pytest.raises(DeprecationWarning):
        mx.optimizer.SGD().set_lr_scale({0: 2.0})


# ---------------------------------------------------------------------- multipliers
def test_idx2name_gives_biases_no_weight_decay():
    names = {0: 'fc_weight', 1: 'fc_bias', 2: 'bn_gamma', 3: 'bn_beta', 4: 'bn_running_mean'}
    opt = mx.optimizer.SGD(wd=0.1, learning_rate=0.5, param_idx2name=names)
    assert opt.wd_mult == {'fc_bias': 0.0, 'bn_beta': 0.0, 'bn_running_mean': 0.0}
    assert [opt._get_wd(i) for i in range(5)] == [0.1, 0.0, 0.1, 0.0, 0.0]
    assert opt._get_wd(99) == 0.1          # an index without a name: wd_mult 1
    assert opt.idx2name == names and opt.idx2name is not names   # copied


def test_set_lr_mult_and_set_wd_mult_by_name_or_index():
    opt = mx.optimizer.SGD(wd=0.1, learning_rate=0.5,
                           param_idx2name={0: 'fc_weight', 1: 'fc_bias'})
    opt.set_lr_mult({'fc_weight': 2.0, 1: 0.1})
    opt.set_wd_mult({'fc_bias': 3.0})
    assert opt._get_lrs([0, 1, 2]) == [1.0, 0.05, 0.5]
    assert opt._get_wds([0, 1]) == [0.1, pytest.approx(0.3)]
    opt.set_wd_mult({})                       # resets to the idx2name default
    assert opt._get_wd(1) == 0.0
    opt.set_lr_mult({})
    assert opt._get_lr(0) == 0.5


def test_an_index_key_beats_the_name_key():
    opt = mx.optimizer.SGD(learning_rate=1.0, param_idx2name={0: 'fc_weight'})
    opt.set_lr_mult({0: 3.0, 'fc_weight': 2.0})
    assert opt._get_lr(0) == 3.0


def test_param_dict_multipliers_are_read_live():
    param = types.SimpleNamespace(lr_mult=2.0, wd_mult=0.5)
    opt = mx.optimizer.SGD(learning_rate=0.1, wd=0.2, param_dict={7: param})
    opt.set_lr_mult({7: 100.0})               # param_dict wins over lr_mult
    assert opt._get_lr(7) == pytest.approx(0.2) and opt._get_wd(7) == pytest.approx(0.1)
    param.lr_mult, param.wd_mult = 0.0, 3.0
    assert opt._get_lr(7) == 0.0 and opt._get_wd(7) == pytest.approx(0.6)


def test_param_dict_with_gluon_parameters():
    p = mx.gluon.Parameter('w', shape=(2,), lr_mult=4.0, wd_mult=0.0)
    opt = mx.optimizer.SGD(learning_rate=0.1, wd=0.2, param_dict={0: p})
    assert opt._get_lr(0) == pytest.approx(0.4) and opt._get_wd(0) == 0.0
    p.lr_mult = 1.0
    assert opt._get_lr(0) == pytest.approx(0.1)


# ---------------------------------------------------------------------- counters
def test_update_counts_per_index_and_num_update_is_the_maximum():
    opt = mx.optimizer.SGD()
    w, g = nd.zeros((2,)), nd.zeros((2,))
    for _ in range(3):
        opt.update(0, w, g, None)
    opt.update(1, w, g, None)
    assert opt._index_update_count == {0: 3, 1: 1} and opt.num_update == 3


def test_begin_num_update_starts_every_count():
    opt = mx.optimizer.SGD(begin_num_update=10)
    assert opt.num_update == 10
    opt.update(0, nd.zeros((1,)), nd.zeros((1,)), None)
    assert opt._index_update_count == {0: 11} and opt.num_update == 11


def test_counts_are_kept_per_device():
    opt = mx.optimizer.SGD()
    w, g = nd.zeros((1,)), nd.zeros((1,))
    opt.update(0, w, g, None)
    opt._set_current_context(1)
    opt.update(0, w, g, None)
    opt.update(0, w, g, None)
    assert opt._all_index_update_counts == {0: {0: 1}, 1: {0: 2}}
    assert opt.num_update == 2
    opt._set_current_context(0)
    assert opt._index_update_count == {0: 1}


def test_updater_counts_on_the_weights_device():
    opt = mx.optimizer.SGD()
    updater = mx.optimizer.get_updater(opt)
    updater(0, nd.zeros((2,), ctx=mx.cpu(0)), nd.zeros((2,), ctx=mx.cpu(0)))
    updater(0, nd.zeros((2,), ctx=mx.cpu(1)), nd.zeros((2,), ctx=mx.cpu(1)))
    assert opt._all_index_update_counts == {0: {0: 1}, 1: {0: 1}}


# ---------------------------------------------------------------------- Updater
class RecordingOptimizer(Optimizer):
    """Records every update_multi_precision call (not registered)."""

    def __init__(self, aggregate_num=0, **kwargs):
        super().__init__(**kwargs)
        self.aggregate_num = aggregate_num
        self.calls = []

    def create_state(self, index, weight):
        return ('state', index)

    def update_multi_precision(self, index, weight, grad, state):
        self.calls.append((index, state))


def test_updater_creates_each_state_once_and_passes_it_back():
    opt = RecordingOptimizer()
    updater = mx.optimizer.Updater(opt)
    w = nd.zeros((2,))
    updater(3, w, w)
    updater(3, w, w)
    assert opt.calls == [(3, ('state', 3))] * 2 and list(updater.states) == [3]


def test_updater_without_aggregation_updates_one_by_one():
    opt = RecordingOptimizer()
    updater = mx.optimizer.get_updater(opt)
    ws = [nd.zeros((1,)) for _ in range(3)]
    updater([0, 1, 2], ws, ws)
    assert [c[0] for c in opt.calls] == [0, 1, 2]


def test_updater_aggregates_chunks_of_one_dtype():
    opt = RecordingOptimizer(aggregate_num=2)
    updater = mx.optimizer.get_updater(opt)
    ws = [nd.zeros((1,)), nd.zeros((1,), dtype='float16'), nd.zeros((1,)), nd.zeros((1,)),
          nd.zeros((1,), dtype='float16')]
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')          # float16 without multi_precision
        updater(list(range(5)), ws, ws)
    assert [c[0] for c in opt.calls] == [[0, 2], [3], [1, 4]]
    assert opt.calls[0][1] == [('state', 0), ('state', 2)]


def test_sgd_through_the_updater_chunks_by_aggregate_num(monkeypatch):
    monkeypatch.setenv('MXNET_OPTIMIZER_AGGREGATION_SIZE', '2')
    opt = mx.optimizer.SGD(momentum=0.9)
    seen = []
    original = opt.update_multi_precision
    monkeypatch.setattr(opt, 'update_multi_precision',
                        lambda i, w, g, s: (seen.append(list(i)), original(i, w, g, s)))
    updater = mx.optimizer.get_updater(opt)
    ws = [nd.ones((2,)) for _ in range(5)]
    updater(list(range(5)), [nd.ones((2,))] * 5, ws)
    assert seen == [[0, 1], [2, 3], [4]]
    np.testing.assert_allclose(ws[4].asnumpy(), [0.99, 0.99], rtol=1e-6)


# ---------------------------------------------------------------------- states as bytes
def _trained_updater(opt, steps=3, ctx=None):
    updater = mx.optimizer.get_updater(opt)
    ctx = ctx or mx.cpu()
    rs = np.random.RandomState(0)
    ws = [nd.array(rs.normal(size=(3, 2)), ctx=ctx), nd.array(rs.normal(size=(4,)), ctx=ctx)]
    for _ in range(steps):
        updater([0, 1], [nd.array(rs.normal(size=w.shape), ctx=ctx) for w in ws], ws)
    return updater, ws


@pytest.fixture
def no_pickle(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError('optimizer states must not use pickle')
    for name in ('dumps', 'loads', 'dump', 'load'):
        monkeypatch.setattr(pickle, name, refuse)


def test_get_states_is_a_zip_archive_and_set_states_restores_them(no_pickle):
    updater, _ = _trained_updater(mx.optimizer.SGD(learning_rate=0.1, momentum=0.9))
    data = updater.get_states()
    assert isinstance(data, bytes) and data[:2] == b'PK'
    assert zipfile.is_zipfile(io.BytesIO(data))
    fresh = mx.optimizer.get_updater(mx.optimizer.SGD(learning_rate=0.1, momentum=0.9))
    fresh.set_states(data)
    assert sorted(fresh.states) == [0, 1]
    for i in (0, 1):
        np.testing.assert_array_equal(fresh.states[i].asnumpy(), updater.states[i].asnumpy())
    assert fresh.optimizer.num_update == 0      # optimizer not saved: untouched


def test_dump_optimizer_restores_counters_and_scheduler_state(no_pickle):
    sched = mx.lr_scheduler.FactorScheduler(step=2, factor=0.5, base_lr=0.1)
    opt = mx.optimizer.SGD(momentum=0.9, wd=0.01, lr_scheduler=sched,
                           param_idx2name={0: 'a_weight', 1: 'a_bias'})
    opt.set_lr_mult({0: 2.0})
    updater, ws = _trained_updater(opt, steps=5)
    data = updater.get_states(dump_optimizer=True)
    assert zipfile.is_zipfile(io.BytesIO(data))

    restored = mx.optimizer.get_updater(mx.optimizer.SGD())
    restored.set_states(data)
    new = restored.optimizer
    assert type(new) is mx.optimizer.SGD and new is not opt
    assert new.num_update == opt.num_update == 5
    assert new._index_update_count == {0: 5, 1: 5}
    assert (new.momentum, new.wd, new.lr_mult, new.wd_mult) == \
        (0.9, 0.01, {0: 2.0}, {'a_bias': 0.0})
    assert new.idx2name == {0: 'a_weight', 1: 'a_bias'}
    assert type(new.lr_scheduler) is mx.lr_scheduler.FactorScheduler
    assert vars(new.lr_scheduler) == vars(sched)            # stateful base_lr / count kept
    assert new.param_dict == {}

    # Both go on identically from here.
    twin_ws = [w.copy() for w in ws]
    grads = [nd.ones(w.shape) for w in ws]
    for _ in range(3):
        updater([0, 1], grads, ws)
        restored([0, 1], grads, twin_ws)
    for a, b in zip(ws, twin_ws):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())


def test_dump_optimizer_keeps_the_current_device_of_the_counters(no_pickle):
    opt = mx.optimizer.SGD()
    updater, _ = _trained_updater(opt, steps=2, ctx=mx.cpu(1))
    restored = mx.optimizer.get_updater(mx.optimizer.SGD())
    restored.set_states(updater.get_states(dump_optimizer=True))
    new = restored.optimizer
    assert new._all_index_update_counts == {0: {}, 1: {0: 2, 1: 2}}
    assert new._index_update_count is new._all_index_update_counts[1]


@pytest.mark.parametrize('name, kwargs', [
    ('sgd', {'multi_precision': True, 'momentum': 0.9}),
    ('nag', {'momentum': 0.9}),
    ('signum', {}),
    ('dcasgd', {'momentum': 0.5}),
    ('sgld', {}),
    ('test', {}),
])
def test_every_state_layout_survives_a_roundtrip(name, kwargs, no_pickle):
    opt = mx.optimizer.create(name, **kwargs)
    updater = mx.optimizer.get_updater(opt)
    dtype = 'float16' if kwargs.get('multi_precision') else 'float32'
    w = nd.ones((2, 2), dtype=dtype)
    updater(0, nd.ones((2, 2), dtype=dtype), w)
    restored = mx.optimizer.get_updater(mx.optimizer.create(name, **kwargs))
    restored.set_states(updater.get_states(dump_optimizer=True))

    def flat(s):
        if isinstance(s, (tuple, list)):
            return [type(s)] + [x for item in s for x in flat(item)]
        return [None if s is None else (s.dtype, s.asnumpy().tolist())]
    assert flat(restored.states[0]) == flat(updater.states[0])


def test_set_states_rejects_foreign_bytes():
    updater = mx.optimizer.get_updater(mx.optimizer.SGD())
    with pytest.raises(mx.base.MXNetError):
        updater.set_states(pickle.dumps({0: None}))
    with pytest.raises(TypeError):
        updater.set_states('not bytes')


def test_loaded_states_move_to_the_weights_context_on_next_use():
    opt = mx.optimizer.SGD(momentum=0.9, multi_precision=True)
    updater = mx.optimizer.get_updater(opt)
    updater(0, nd.ones((2,), dtype='float16'), nd.ones((2,), dtype='float16'))
    restored = mx.optimizer.get_updater(mx.optimizer.SGD(momentum=0.9, multi_precision=True))
    restored.set_states(updater.get_states())
    assert restored.states_synced == {0: False}
    w1 = nd.ones((2,), ctx=mx.cpu(1), dtype='float16')
    restored(0, nd.ones((2,), ctx=mx.cpu(1), dtype='float16'), w1)
    mom, master = restored.states[0]
    assert mom.context == mx.cpu(1) and master.context == mx.cpu(1)
    assert restored.states_synced == {0: True}


def test_sync_state_context_keeps_structure():
    updater = mx.optimizer.get_updater(mx.optimizer.SGD())
    state = (nd.zeros((1,)), [nd.ones((2,)), None], 3)
    moved = updater.sync_state_context(state, mx.cpu(2))
    assert isinstance(moved, tuple) and isinstance(moved[1], list)
    assert moved[0].context == mx.cpu(2) and moved[1][0].context == mx.cpu(2)
    assert moved[1][1] is None and moved[2] == 3
    assert updater.sync_state_context(None, mx.cpu(2)) is None
