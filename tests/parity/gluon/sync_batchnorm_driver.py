"""gluon.contrib.nn.SyncBatchNorm over several CPU contexts, MXNet 1.9.1 vs gluonedu.

Each case splits a seeded batch over ``ndev`` contexts cpu(0), cpu(1), ... with
``split_and_load``, calls the layer on every slice under ``autograd.record()``, then
differentiates a seeded weighting of every slice's output in one ``autograd.backward``
call (or one ``backward()`` per slice): the outputs, the slices' gradients, gamma's and
beta's gradient on each context and the running statistics after the backward pass (then
an output in prediction mode) are compared. ``mxnet_test_sync_batchnorm`` is MXNet's own test (one device on the CPU,
SyncBatchNorm against BatchNorm on the whole batch and against the formula), reporting
whether each of its checks holds. Both sides run :func:`run` (it imports neither
package). As a script, on the oracle's interpreter (MXNet's threaded engine: its
operator waits for all slices): ``oracle_main.py sync_batchnorm_driver.py``.
"""
import json
import threading

import numpy as np

#: name -> (ndev, shape, layer keyword arguments (and hybridize, backward_per_device),
#: even_split, steps)
CASES = {
    '2dev-2d': (2, (12, 3), {}, True, 1),
    '2dev-3d': (2, (12, 3, 5), {}, True, 1),
    '2dev-4d': (2, (12, 2, 3, 3), {}, True, 1),
    '2dev-5d': (2, (8, 2, 3, 2, 2), {}, True, 1),
    '2dev-no-scale': (2, (12, 3, 4), {'scale': False}, True, 1),
    '2dev-no-center': (2, (12, 3, 4), {'center': False}, True, 1),
    '2dev-global-stats': (2, (12, 3, 4), {'use_global_stats': True}, True, 1),
    '2dev-momentum-eps': (2, (12, 3, 4), {'momentum': 0.5, 'epsilon': 1e-3}, True, 1),
    '2dev-uneven': (2, (7, 3, 4), {}, False, 1),
    '2dev-deferred-two-steps': (2, (12, 3, 4), {'in_channels': 0}, True, 2),
    '1dev': (1, (12, 3, 4), {}, True, 1),
    '1dev-hybridized': (1, (12, 3, 4), {'hybridize': True}, True, 2),
    '2dev-backward-per-device': (2, (12, 3, 4), {'backward_per_device': True}, True, 2),
}


def _tolist(arr):
    return np.asarray(arr, dtype=np.float64).tolist()


def run(mx, case):
    """The numbers of one case (lists of floats, by name)."""
    ndev, shape, kwargs, even_split, steps = CASES[case]
    rng = np.random.RandomState(sum(map(ord, case)))
    ctxs = [mx.cpu(i) for i in range(ndev)]
    channels = shape[1]
    kwargs = dict({'in_channels': channels}, **kwargs)
    hybridize = kwargs.pop('hybridize', False)
    backward_per_device = kwargs.pop('backward_per_device', False)
    layer = mx.gluon.contrib.nn.SyncBatchNorm(num_devices=ndev, **kwargs)
    layer.initialize(ctx=ctxs)
    if hybridize:
        layer.hybridize()
    out = {'repr': repr(layer).split('(', 1)[1].replace(layer.prefix, 'PREFIX')}
    if kwargs['in_channels']:
        for param, low, high in ((layer.gamma, 0.5, 1.5), (layer.beta, -1, 1),
                                 (layer.running_mean, -1, 1), (layer.running_var, 0.5, 2)):
            param.set_data(mx.nd.array(rng.uniform(low, high, size=channels)))
    for step in range(steps):
        batch = rng.normal(1.0, 2.0, size=shape).astype(np.float32)
        weights = rng.uniform(-1, 1, size=shape).astype(np.float32)
        slices = mx.gluon.utils.split_and_load(mx.nd.array(batch), ctxs,
                                               even_split=even_split)
        heads = mx.gluon.utils.split_and_load(mx.nd.array(weights), ctxs,
                                              even_split=even_split)
        for x in slices:
            x.attach_grad()
        with mx.autograd.record():
            outputs = [layer(x) for x in slices]
            losses = [(y * w).sum() for y, w in zip(outputs, heads)]
        mx.nd.waitall()
        if backward_per_device:
            for loss in losses:
                loss.backward()
        else:
            mx.autograd.backward(losses)
        mx.nd.waitall()
        tag = 'step%d|' % step
        out[tag + 'output'] = _tolist(np.concatenate([y.asnumpy() for y in outputs]))
        out[tag + 'data_grad'] = _tolist(np.concatenate([x.grad.asnumpy() for x in slices]))
        for name in ('gamma', 'beta'):
            param = getattr(layer, name)
            if param.grad_req != 'null':
                out[tag + name + '_grad'] = [_tolist(g.asnumpy()) for g in param.list_grad()]
        for name in ('gamma', 'running_mean', 'running_var'):
            out[tag + name] = [_tolist(d.asnumpy()) for d in getattr(layer, name).list_data()]
    predicted = [layer(x) for x in slices]
    out['predict'] = _tolist(np.concatenate([y.asnumpy() for y in predicted]))
    return out


def _check(name, a, b, checks, atol=1e-2, rtol=1e-2):
    checks[name] = bool(np.allclose(a, b, atol=atol, rtol=rtol))


def mxnet_test_sync_batchnorm(mx):
    """MXNet 1.9.1's test_sync_batchnorm on the CPU (one device), its checks by name, for
    each of its shapes; ten random inputs each, as MXNet's."""
    rng = np.random.RandomState(7)
    results = {}
    for shape in [(24, 2), (24, 3, 4), (24, 4, 4, 4), (24, 5, 6, 4, 4)]:
        checks = {}
        for trial in range(10):
            data = mx.nd.array(rng.uniform(size=shape))
            _check_batchnorm_result(mx, data, checks, '%s-%d' % (shape, trial))
        results[str(shape)] = all(checks.values())
    return results


def _check_batchnorm_result(mx, data, checks, tag, num_devices=1):
    input1, input2 = data.copy(), data.copy()
    ctx_list = [mx.cpu(0) for _ in range(num_devices)]
    nch = data.shape[1]
    bn1 = mx.gluon.nn.BatchNorm(in_channels=nch)
    bn2 = mx.gluon.contrib.nn.SyncBatchNorm(in_channels=nch, num_devices=num_devices)
    bn1.initialize(ctx=ctx_list[0])
    bn2.initialize(ctx=ctx_list)
    input1.attach_grad()
    inputs2 = mx.gluon.utils.split_and_load(input2, ctx_list, batch_axis=0)
    for xi in inputs2:
        xi.attach_grad()
    with mx.autograd.record():
        output1 = bn1(input1)
        output2 = [bn2(xi) for xi in inputs2]
        loss1 = (output1 ** 2).sum()
        loss2 = [(output ** 2).sum() for output in output2]
        mx.autograd.backward(loss1)
        mx.autograd.backward(loss2)
    output2 = mx.nd.concat(*[o.as_in_context(data.context) for o in output2], dim=0)
    x = input1.asnumpy()
    axes = tuple(i for i in range(x.ndim) if i != 1)
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    target = (x - mean) / np.sqrt(var + 1e-5)
    running_mean = 0.1 * mean.reshape(-1)
    running_var = 0.9 + 0.1 * var.reshape(-1)
    _check(tag + ' bn1 output', output1.asnumpy(), target, checks)
    _check(tag + ' bn1 running_mean', bn1.running_mean.data().asnumpy(), running_mean, checks)
    _check(tag + ' bn1 running_var', bn1.running_var.data().asnumpy(), running_var, checks)
    _check(tag + ' outputs', output1.asnumpy(), output2.asnumpy(), checks)
    _check(tag + ' running_mean', bn1.running_mean.data().asnumpy(),
           bn2.running_mean.data(ctx_list[0]).asnumpy(), checks)
    _check(tag + ' running_var', bn1.running_var.data().asnumpy(),
           bn2.running_var.data(ctx_list[0]).asnumpy(), checks)
    grad2 = mx.nd.concat(*[xi.grad.as_in_context(data.context) for xi in inputs2], dim=0)
    _check(tag + ' data grad', input1.grad.asnumpy(), grad2.asnumpy(), checks)


def threads_residual(mx):
    """One thread per device, each running a residual block's forward and backward (the
    layer's output meets a raw addition): the losses, the conv weight's gradient and the
    running statistics on each context."""
    from concurrent.futures import ThreadPoolExecutor

    class Residual(mx.gluon.nn.Block):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.conv = mx.gluon.nn.Conv2D(2, 3, padding=1, in_channels=2)
            self.norm = mx.gluon.contrib.nn.SyncBatchNorm(in_channels=2, num_devices=2)

        def forward(self, x):
            return mx.nd.relu(x + self.norm(self.conv(x)))

    rng = np.random.RandomState(11)
    ctxs = [mx.cpu(0), mx.cpu(1)]
    net = Residual()
    net.initialize(ctx=ctxs)
    net.conv.weight.set_data(mx.nd.array(rng.normal(0, 0.3, size=(2, 2, 3, 3))))
    batch = mx.nd.array(rng.normal(0, 1, size=(6, 2, 4, 4)))

    # MXNet's CPU barrier hangs at random when one batch's forward and backward overlap:
    # the threads start their backward passes together.
    forwards_done = threading.Barrier(len(ctxs))

    def device_step(x):
        with mx.autograd.record():
            loss = (net(x) ** 2).sum()
        mx.nd.waitall()
        forwards_done.wait()
        loss.backward()
        return loss

    with ThreadPoolExecutor(len(ctxs)) as pool:
        losses = list(pool.map(device_step, mx.gluon.utils.split_and_load(batch, ctxs)))
    mx.nd.waitall()
    return {'losses': [float(loss.asscalar()) for loss in losses],
            'conv_grad': [_tolist(g.asnumpy()) for g in net.conv.weight.list_grad()],
            'running_var': [_tolist(d.asnumpy()) for d in net.norm.running_var.list_data()]}


def run_all(mx):
    results = {case: run(mx, case) for case in CASES}
    results['mxnet_test_sync_batchnorm'] = mxnet_test_sync_batchnorm(mx)
    results['threads_residual'] = threads_residual(mx)
    return results


if __name__ == '__main__':  # the oracle's side, run by oracle_main.py
    import mxnet

    import oracle_io

    results = {case: np.array(json.dumps(value)) for case, value in run_all(mxnet).items()}
    oracle_io.save_results(results)
