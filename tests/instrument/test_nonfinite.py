"""NaN/Inf gradients are surfaced: the 'nonfinite' event on every update path, AMP's skip.

Each test poisons one gradient copy after backward (as a bad batch on one device
would) and checks who reports it, with what count, and what the weights became.
"""
import matplotlib
import numpy as np
import pytest

import gluonedu as mx
from gluonedu import autograd, gluon, nd
from gluonedu.contrib import amp
from gluonedu.instrument import Recorder
from gluonedu.instrument.events import BUS
from gluonedu.optimizer import reporting
from gluonedu.viz import plot_loss, plot_norms

matplotlib.use('Agg')
CPUS = [mx.cpu(0), mx.cpu(1)]


def _net_and_trainer(contexts, **trainer_args):
    with mx.name.NameManager():
        net = gluon.nn.Dense(2, in_units=3)
    net.initialize(mx.init.One(), ctx=contexts)
    trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1},
                            **trainer_args)
    return net, trainer


def _step(net, trainer, contexts, poison=None, scaled=False):
    """Backward on every context, put NaN/Inf into ``poison = (context, entries)``'s
    weight gradient, then step."""
    for ctx in contexts:
        with autograd.record():
            loss = net(nd.ones((4, 3), ctx=ctx)).sum()
            if scaled:
                with amp.scale_loss(loss, trainer) as loss:
                    pass
        loss.backward()
    if poison is not None:
        ctx, entries = poison
        grad = net.weight.grad(ctx)
        values = grad.asnumpy()
        values.flat[:len(entries)] = entries
        grad[:] = values
    trainer.step(4)


def _nonfinite(rec):
    return sorted((r.source, r.param, r.context, r.value) for r in rec.rows
                  if r.event == 'nonfinite')


@pytest.mark.parametrize('fused', [True, False])
def test_one_context_reports_the_count_of_nonfinite_entries(fused):
    net, trainer = _net_and_trainer([mx.cpu()], fused=fused)
    with Recorder(trainer) as rec:
        _step(net, trainer, [mx.cpu()])
        _step(net, trainer, [mx.cpu()], poison=(mx.cpu(), [np.nan, np.inf, -np.inf]))
    assert _nonfinite(rec) == [('optimizer', 'dense0_weight', 'cpu(0)', 3.0)]
    assert [r.step for r in rec.rows if r.event == 'nonfinite'] == [2]


@pytest.mark.parametrize('update_on_kvstore', [False, True])
def test_two_contexts_report_what_the_optimizer_received(update_on_kvstore):
    net, trainer = _net_and_trainer(CPUS, update_on_kvstore=update_on_kvstore)
    with Recorder(trainer) as rec:
        _step(net, trainer, CPUS, poison=(mx.cpu(1), [np.nan]))
    found = _nonfinite(rec)
    # The sum over the devices carries the NaN: each local update sees it; with updates
    # on the store, the store's one update does.
    assert found and all(r[:2] == ('optimizer', 'dense0_weight') and r[3] == 1.0
                         for r in found)
    assert len(found) == (1 if update_on_kvstore else 2)
    assert not np.isfinite(net.weight.data(mx.cpu(0)).asnumpy()).all()


@pytest.mark.parametrize('update_on_kvstore', [False, True])
def test_amp_names_the_device_and_applies_no_poisoned_update(update_on_kvstore):
    amp.init()
    net, trainer = _net_and_trainer(CPUS, update_on_kvstore=update_on_kvstore)
    amp.init_trainer(trainer)
    _step(net, trainer, CPUS, scaled=True)  # a clean step first: the store is set up
    before = [net.weight.data(ctx).asnumpy().copy() for ctx in CPUS]
    with Recorder(trainer) as rec:
        _step(net, trainer, CPUS, poison=(mx.cpu(1), [np.inf, np.inf]), scaled=True)
    # On the store, each device's own gradient is checked before the push; otherwise
    # the sum every context holds after the reduction (where MXNet checks).
    poisoned = ['cpu(1)'] if update_on_kvstore else ['cpu(0)', 'cpu(1)']
    assert _nonfinite(rec) == [('loss_scaler', 'dense0_weight', ctx, 2.0) for ctx in poisoned]
    assert [r.event for r in rec.rows if r.event == 'overflow'] == ['overflow']
    for ctx, old in zip(CPUS, before):  # skipped everywhere, the store's copy included
        np.testing.assert_array_equal(net.weight.data(ctx).asnumpy(), old)
    _step(net, trainer, CPUS, scaled=True)  # and the next clean step is a normal one
    for ctx in CPUS:
        assert np.isfinite(net.weight.data(ctx).asnumpy()).all()
        assert not np.array_equal(net.weight.data(ctx).asnumpy(), before[0])


def test_amp_checks_a_device_other_than_the_first_without_listeners():
    amp.init()
    net, trainer = _net_and_trainer(CPUS, update_on_kvstore=True)
    amp.init_trainer(trainer)
    _step(net, trainer, CPUS, scaled=True)
    before = net.weight.data(mx.cpu(0)).asnumpy().copy()
    _step(net, trainer, CPUS, poison=(mx.cpu(1), [np.nan]), scaled=True)
    np.testing.assert_array_equal(net.weight.data(mx.cpu(0)).asnumpy(), before)


def test_nothing_is_counted_when_nobody_listens_for_it(monkeypatch):
    def fail(_):
        raise AssertionError('counted without a listener')
    monkeypatch.setattr(reporting, 'nonfinite_count', fail)
    net, trainer = _net_and_trainer([mx.cpu()])
    with Recorder(trainer, kinds=['lr']) as rec:
        _step(net, trainer, [mx.cpu()], poison=(mx.cpu(), [np.nan]))
    assert rec.rows and not _nonfinite(rec)


def test_finite_gradients_give_no_event_even_when_their_sum_overflows():
    grad = nd.array(np.full(8, 6e4), dtype='float16')  # finite entries, sum inf in float16
    assert reporting.nonfinite_count(grad) == 0
    grad[2] = np.nan
    assert reporting.nonfinite_count(grad) == 1
    sparse = nd.sparse.row_sparse_array((np.array([[np.inf, 1.0]]), [1]), shape=(3, 2))
    assert reporting.nonfinite_count(sparse) == 1


def test_sampled_recorders_keep_the_event_and_plots_mark_its_step():
    net, trainer = _net_and_trainer([mx.cpu()])
    with Recorder(trainer, every=5, norms=['grad']) as rec:
        for step in range(1, 7):
            _step(net, trainer, [mx.cpu()],
                  poison=(mx.cpu(), [np.nan]) if step == 3 else None)
            rec.log('loss', float(step))
    assert [r.step for r in rec.rows if r.event == 'nonfinite'] == [3]
    for fig in (plot_norms(rec, which='grad'), plot_loss(rec)):
        marks = [line for line in fig.axes[0].lines if line.get_gid() == 'nonfinite']
        assert [line.get_xdata()[0] for line in marks] == [3]
        assert 'NaN/Inf gradient' in [t.get_text() for t in fig.axes[0].get_legend().texts]
        matplotlib.pyplot.close(fig)


def test_the_bus_documents_the_kind():
    assert 'nonfinite' in mx.instrument.events.KINDS
    assert 'nonfinite' not in mx.instrument.events.NORM_KINDS  # measured for any listener
    assert not BUS.active
