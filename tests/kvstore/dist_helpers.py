"""Worker functions and a reference trainer shared by the distributed-store tests.

The workers run in Ray worker processes; ``LocalCluster.run`` sends these functions
by value, so this module needs no installation.
"""
import numpy as np

BATCH = 16


def build_net(mx):
    """The digits MLP, seeded, with the same parameter names in every process."""
    from gluonedu.gluon import nn
    mx.random.seed(3)
    with mx.name.NameManager():
        net = nn.Sequential()
        with net.name_scope():
            net.add(nn.Dense(32, activation='relu', in_units=64), nn.Dense(10, in_units=32))
    net.initialize(mx.init.Xavier())
    return net


def weights_of(net):
    params = net.collect_params()
    return [params[k].data().asnumpy() for k in sorted(params.keys())]


def batch_rows(step, rank, num_workers, batch=BATCH):
    """Rows of worker ``rank``'s batch at ``step``: its slice of the global batch."""
    start = (step * num_workers + rank) * batch
    return slice(start, start + batch)


def train_digits(kv_type, steps, optimizer='sgd', optimizer_params=None, load_states=None,
                 save_states=None, start_step=0, start_weights=None, record_staleness=False,
                 data=None, pull_final=False):
    """One worker's training: each step takes its slice of the global batch.

    ``data``: (X, y), sent by the caller so that workers need not load it.
    ``pull_final``: after the last barrier, pull every key, so that each worker returns
    the servers' final model rather than the weights of its own last pull.
    Returns a dict: rank, num_workers, final weights, losses, staleness values.
    """
    import gluonedu as mx
    from gluonedu import autograd, gluon
    kv = mx.kv.create(kv_type)
    X, y = data if data is not None else mx.data.digits()
    net = build_net(mx)
    if start_weights is not None:
        params = net.collect_params()
        for k, w in zip(sorted(params.keys()), start_weights):
            params[k].set_data(mx.nd.array(w))
    trainer = gluon.Trainer(net.collect_params(), optimizer,
                            optimizer_params or {'learning_rate': 0.1}, kvstore=kv)
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    n = kv.num_workers
    if load_states:
        trainer.load_states(load_states)   # every worker: rank 0 sends, all meet at a barrier
    recorder = mx.instrument.Recorder(kinds=['staleness']) if record_staleness else None
    losses = []
    kv.barrier()  # start together, so that dist_async pushes interleave
    for step in range(start_step, start_step + steps):
        rows = batch_rows(step % 20, kv.rank, n)
        xb, yb = mx.nd.array(X[rows]), mx.nd.array(y[rows])
        with autograd.record():
            loss = loss_fn(net(xb), yb)
        loss.backward()
        trainer.step(BATCH * n)
        losses.append(float(loss.mean().asscalar()))
    if save_states and kv.rank == 0:
        trainer.save_states(save_states)
    kv.barrier()  # the file is complete, and every push applied, before any worker returns
    if pull_final:
        params = net.collect_params()
        for key, name in enumerate(sorted(params.keys())):  # the Trainer's key order
            kv.pull(key, out=params[name].data())
    full = float(loss_fn(net(mx.nd.array(X)), mx.nd.array(y)).mean().asscalar())
    staleness = [r.value for r in recorder.rows] if recorder else []
    contexts = sorted({r.context for r in recorder.rows}) if recorder else []
    if recorder:
        recorder.detach()
    return {'rank': kv.rank, 'num_workers': n, 'weights': weights_of(net), 'losses': losses,
            'full_loss': full, 'staleness': staleness, 'contexts': contexts}


def train_single(num_workers, steps, optimizer='sgd', optimizer_params=None):
    """Single-process training on the concatenated batches of ``num_workers`` workers."""
    import gluonedu as mx
    from gluonedu import autograd, gluon
    X, y = mx.data.digits()
    net = build_net(mx)
    trainer = gluon.Trainer(net.collect_params(), optimizer,
                            optimizer_params or {'learning_rate': 0.1}, kvstore='local')
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    for step in range(steps):
        first, last = batch_rows(step % 20, 0, num_workers), batch_rows(step % 20, num_workers - 1,
                                                                         num_workers)
        rows = slice(first.start, last.stop)
        with autograd.record():
            loss = loss_fn(net(mx.nd.array(X[rows])), mx.nd.array(y[rows]))
        loss.backward()
        trainer.step(BATCH * num_workers)
    return weights_of(net)


def store_basics():
    """dist_sync: rank 0's init wins, 2-bit pushes with the residual on the worker,
    row_sparse_pull, events naming the worker."""
    import gluonedu as mx
    kv = mx.kv.create('dist_sync')
    out = {'rank': kv.rank, 'type': kv.type, 'capable': kv.is_capable('optimizer')}
    kv.init(0, mx.nd.ones((3,)) * (kv.rank + 7))        # rank 0's 7 wins
    pulled = mx.nd.zeros((3,))
    kv.pull(0, out=pulled)
    out['init'] = pulled.asnumpy().tolist()
    kv.set_gradient_compression({'type': '2bit', 'threshold': 0.5})
    kv.init(1, mx.nd.zeros((5,)))
    with mx.instrument.Recorder(kinds=['kv_push', 'kv_pull']) as rec:
        kv.push(1, mx.nd.array([0.3, 0.6, -0.7, 0.1, 1.2]))
        kv.pull(1, out=mx.nd.zeros((5,)))
    summed = mx.nd.zeros((5,))
    kv.pull(1, out=summed)
    out['compressed_sum'] = summed.asnumpy().tolist()
    out['residual'] = kv.gradient_compression.residual(1, 0).asnumpy().tolist()
    out['push_rows'] = sorted({(r.event, r.name, r.context) for r in rec.rows})
    dense = mx.nd.array(np.arange(8, dtype=np.float32).reshape(4, 2))
    kv.init(2, dense.tostype('row_sparse'))
    rows = mx.nd.sparse.zeros('row_sparse', (4, 2))
    kv.row_sparse_pull(2, out=rows, row_ids=mx.nd.array([2, 0]))
    out['rsp_indices'] = rows.indices.asnumpy().tolist()
    out['rsp_data'] = rows.data.asnumpy().tolist()
    # allreduce_flat (what the Trainer calls on its flat layout): the base class's, one
    # pushpull of all keys; the same sums as a pushpull of each key (keys 10, 11 and
    # 20, 21 start alike, compressed alike)
    from gluonedu.optimizer.flat import FlatGroup
    shapes = [(2, 3), (4,)]
    for k, shape in enumerate(shapes):
        kv.init(10 + k, mx.nd.zeros(shape))
        kv.init(20 + k, mx.nd.zeros(shape))
    grads = [mx.nd.array(np.arange(np.prod(s)).reshape(s) * 0.2 * (kv.rank + 1))
             for s in shapes]
    by_key = [g.copy() for g in grads]
    for k, g in enumerate(by_key):
        kv.pushpull(20 + k, g)
    group = FlatGroup([10, 11], [mx.nd.zeros(s) for s in shapes], [g.copy() for g in grads])
    calls, pushpull = [], kv.pushpull
    kv.pushpull = lambda key, *args, **kwargs: calls.append(key) or pushpull(key, *args,
                                                                             **kwargs)
    kv.allreduce_flat([group])
    out['flat_calls'] = calls
    out['flat_sums'] = [g.asnumpy().tolist() for g in group.grads]
    out['by_key_sums'] = [g.asnumpy().tolist() for g in by_key]
    kv.barrier()
    return out


def trainer_rules():
    """The Trainer's rules for distributed stores, on dist_async."""
    import gluonedu as mx
    from gluonedu import autograd, gluon
    from gluonedu.gluon import nn
    found = {}
    net = nn.Dense(2, in_units=3)
    net.initialize()
    x = mx.nd.ones((4, 3))

    def backward():
        with autograd.record():
            loss = net(x).sum()
        loss.backward()
    refused = gluon.Trainer(net.collect_params(), 'sgd', kvstore='dist_async',
                            update_on_kvstore=False)
    backward()
    try:
        refused.step(4)
    except ValueError as err:
        found['async_without_store_updates'] = str(err)
    trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1},
                            kvstore='dist_async')
    backward()
    trainer.step(4)
    found['update_on_kvstore'] = trainer._update_on_kvstore
    found['distributed'] = trainer._distributed
    backward()
    try:
        trainer.step(8)
    except UserWarning as err:
        found['batch_size_change'] = str(err)
    try:
        trainer._reset_kvstore()
    except RuntimeError as err:
        found['reset'] = str(err)
    return found


def push_then_pull(kv_type, rounds, bound=50_000):
    """Each round: push key 0 (split across the servers) and key 1 (whole), overwrite the
    pushed arrays at once, then pull both keys; returns what each pull saw.

    dist_sync (no optimizer): the store holds the round's sum, worker r pushing
    ``(i + 1) * (r + 1)``. dist_async (SGD, lr 1): each push of worker r subtracts
    ``1000 ** r``, so the pulled value tells how many of each worker's pushes it holds.
    """
    import os
    os.environ['MXNET_KVSTORE_BIGARRAY_BOUND'] = str(bound)
    import gluonedu as mx
    try:
        kv = mx.kv.create(kv_type)
        sizes = (2 * bound, 1000)
        kv.init([0, 1], [mx.nd.zeros((s,)) for s in sizes])
        if kv_type == 'dist_async':
            kv.set_optimizer(mx.optimizer.SGD(learning_rate=1.0, rescale_grad=1.0))
        split = [len(kv._layouts[k].pieces) for k in (0, 1)]
        outs = [mx.nd.zeros((s,)) for s in sizes]
        seen = []
        kv.barrier()
        for i in range(rounds):
            fill = (i + 1) * (kv.rank + 1) if kv_type == 'dist_sync' else 1000.0 ** kv.rank
            values = [mx.nd.full((s,), fill) for s in sizes]
            kv.push([0, 1], values)
            for v in values:
                v[:] = -12345.0   # the push sent the value it had when called
            kv.pull([0, 1], out=outs)
            seen.append([(float(o.min().asscalar()), float(o.max().asscalar())) for o in outs])
        kv.barrier()
        return {'rank': kv.rank, 'split': split, 'seen': seen}
    finally:
        del os.environ['MXNET_KVSTORE_BIGARRAY_BOUND']


def deferred_push_errors():
    """dist_async without an optimizer: the servers refuse pushes; where does it show?"""
    import gluonedu as mx
    from gluonedu.base import MXNetError
    kv = mx.kv.create('dist_async')
    kv.init([0, 1], [mx.nd.zeros((4,)), mx.nd.zeros((4,))])

    def error_of(operation):
        try:
            operation()
        except MXNetError as err:
            return type(err).__name__, str(err)
        return None

    out = mx.nd.zeros((4,))
    kv.push(0, mx.nd.ones((4,)))           # returns: the server's answer comes later
    found = {'push_returned': True, 'pull': error_of(lambda: kv.pull(0, out=out))}
    kv.push(1, mx.nd.ones((4,)))
    found['barrier'] = error_of(kv.barrier)
    kv.set_optimizer(mx.optimizer.SGD(learning_rate=1.0, rescale_grad=1.0))
    kv.push(0, mx.nd.ones((4,)))           # the failed pushes are forgotten: this one works
    kv.pull(0, out=out)
    found['after'] = out.asnumpy().tolist()
    return found


def deferred_staleness():
    """dist_async: three pushes of a key without a pull, collected later."""
    import gluonedu as mx
    from gluonedu.instrument.events import BUS
    kv = mx.kv.create('dist_async')
    kv.init(0, mx.nd.zeros((4,)))
    kv.set_optimizer(mx.optimizer.SGD(learning_rate=1.0, rescale_grad=1.0))
    saved = BUS.step
    try:
        with mx.instrument.Recorder(kinds=['kv_push', 'staleness']) as rec:
            for step in (1, 2, 3):
                BUS.step = step
                kv.push(0, mx.nd.ones((4,)))
            BUS.step = 4
            out = mx.nd.zeros((4,))
            kv.pull(0, out=out)
    finally:
        BUS.step = saved
    return {'rows': [(r.event, r.step, r.value) for r in rec.rows if r.name != 'devices'],
            'value': out.asnumpy().tolist()}


# ---------------------------------------------------------------------- sparse gradients
SPARSE_STEPS, SPARSE_ROWS, SPARSE_DIM, SPARSE_IDS = 6, 40, 4, 8


def sparse_batches(seed=5):
    """Per step, per (worker, device) slot: the ids one device looks up, and targets."""
    rng = np.random.RandomState(seed)
    ids = rng.randint(0, SPARSE_ROWS, size=(SPARSE_STEPS, 4, SPARSE_IDS))
    targets = rng.randn(SPARSE_STEPS, 4, SPARSE_IDS, SPARSE_DIM)
    return ids, targets


def train_sparse_embedding(kv_type, dtype='float32', num_devices=2, num_slots=None,
                           optimizer_params=None):
    """A sparse_grad Embedding trained on ``num_devices`` contexts with store ``kv_type``.

    Slot ``rank * num_devices + d`` feeds device d of worker ``rank``; a single process
    (``kv_type`` 'device') with ``num_slots`` devices sees every slot. Returns the final
    table (float64) and the kinds of gradient storage seen.
    """
    import gluonedu as mx
    from gluonedu import autograd, gluon
    kv = mx.kv.create(kv_type)
    contexts = [mx.cpu(d) for d in range(num_slots or num_devices)]
    mx.random.seed(7)
    with mx.name.NameManager():
        net = gluon.nn.Embedding(SPARSE_ROWS, SPARSE_DIM, dtype=dtype, sparse_grad=True)
    net.initialize(mx.init.Uniform(0.5), ctx=contexts)
    params = optimizer_params or {'learning_rate': 0.5, 'momentum': 0.5,
                                  'multi_precision': dtype == 'float16'}
    trainer = gluon.Trainer(net.collect_params(), 'sgd', params, kvstore=kv)
    loss_fn = gluon.loss.L2Loss()
    ids, targets = sparse_batches()
    first = kv.rank * num_devices if num_slots is None else 0
    stypes = set()
    for step in range(SPARSE_STEPS):
        losses = []
        with autograd.record():
            for d, ctx in enumerate(contexts):
                x = mx.nd.array(ids[step, first + d], ctx=ctx)
                y = mx.nd.array(targets[step, first + d], ctx=ctx, dtype=dtype)
                losses.append(loss_fn(net(x), y))
        autograd.backward(losses)
        stypes.add(net.weight.grad(contexts[0]).stype)
        trainer.step(SPARSE_IDS * len(contexts) * kv.num_workers)
    kv.barrier()
    return {'table': net.weight.data(contexts[0]).asnumpy().astype(np.float64),
            'stypes': sorted(stypes), 'update_on_kvstore': trainer._update_on_kvstore}
