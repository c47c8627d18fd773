"""Runs the parity cases of the gluon losses, the initializers and autograd.Function against
an MXNet-like module ``mx`` (MXNet 1.9.1 or gluonedu).

Both sides run this code: the oracle (this module's ``__main__``) with the real
``mxnet``, the tests with ``gluonedu``. A case returns ``{name: array}``: the outputs, the
gradients of the inputs after ``backward()`` (a seeded, non-constant head gradient), or —
where a call must fail — the exception it raised (:func:`_raised`). Inputs are seeded
NumPy arrays.
"""
import os
import tempfile

import numpy as np


def _raised(f):
    """What ``f()`` raises: its class and the built-in classes it derives from, most
    specific first ('AssertionError', 'NotAnInitializerError|TypeError|AssertionError'),
    or 'none'."""
    try:
        f()
    except Exception as exc:  # the type is the result
        names = [c.__name__ for c in type(exc).__mro__ if c not in (Exception, BaseException)
                 and (c is type(exc) or c.__module__ == 'builtins')]
        return np.array('|'.join(names))
    return np.array('none')


def _arrays(seed, *shapes):
    rng = np.random.RandomState(seed)
    return [rng.randn(*shape).astype(np.float32) for shape in shapes]


def _value_and_grads(mx, fn, *arrays, differentiate=None):
    """``fn(*NDArrays)`` under autograd, its output and the inputs' gradients (those of
    the positions ``differentiate``, all by default: labels and lengths have none)."""
    xs = [mx.nd.array(a, dtype=a.dtype) for a in arrays]
    for x in xs:
        x.attach_grad()
    with mx.autograd.record():
        y = fn(*xs)
    head = np.linspace(-1.0, 1.5, y.size).reshape(y.shape).astype(np.float32)
    y.backward(mx.nd.array(head))
    out = {'out': y.asnumpy()}
    out.update(('grad%d' % i, x.grad.asnumpy()) for i, x in enumerate(xs)
               if differentiate is None or i in differentiate)
    return out


# ---------------------------------------------------------------------------- losses
_SIGNS = np.array([1, -1, 1, -1, 1], dtype=np.float32)
_CTC_LABELS = np.array([[1, 2, -1], [3, 3, 0], [2, -1, -1]], dtype=np.float32)


def _cosine(mx, **kwargs):
    a, b = _arrays(1, (5, 4), (5, 4))
    return _value_and_grads(mx, lambda x, y, s: mx.gluon.loss.CosineEmbeddingLoss(**kwargs)(
        x, y, s), a, b, _SIGNS)


def _poisson(mx, from_logits=True, **kwargs):
    pred, = _arrays(2, (4, 3))
    target = np.random.RandomState(3).poisson(2.0, (4, 3)).astype(np.float32)
    if not from_logits:
        pred = np.abs(pred) + 0.1
    return _value_and_grads(mx, lambda p, t: mx.gluon.loss.PoissonNLLLoss(
        from_logits=from_logits, **kwargs)(p, t), pred, target)


def _poisson_full(mx):
    """compute_full (MXNet 1.9.1 cannot differentiate it: it multiplies in place)."""
    pred = np.abs(_arrays(4, (4, 3))[0]) + 0.1
    target = np.random.RandomState(5).poisson(3.0, (4, 3)).astype(np.float32) + 1
    loss = mx.gluon.loss.PoissonNLLLoss(from_logits=False, compute_full=True)
    return {'out': loss(mx.nd.array(pred), mx.nd.array(target)).asnumpy()}


def _triplet(mx, shape=(5, 4), **kwargs):
    return _value_and_grads(mx, lambda p, q, n: mx.gluon.loss.TripletLoss(**kwargs)(p, q, n),
                            *_arrays(6, shape, shape, shape))


def _sdml(mx, **kwargs):
    return _value_and_grads(mx, lambda x, y: mx.gluon.loss.SDMLLoss(**kwargs)(x, y),
                            *_arrays(7, (4, 3), (4, 3)))


def _ctc(mx, layout='NTC', label_layout='NT', lengths=False, **kwargs):
    data, = _arrays(8, (3, 6, 5))
    labels = _CTC_LABELS
    if layout == 'TNC':
        data = data.transpose(1, 0, 2).copy()
    if label_layout == 'TN':
        labels = labels.T.copy()
    loss = mx.gluon.loss.CTCLoss(layout=layout, label_layout=label_layout, **kwargs)
    if lengths:
        return _value_and_grads(mx, lambda d, l, pl, ll: loss(d, l, pl, ll), data, labels,
                                np.array([6, 4, 2], np.float32),
                                np.array([2, 3, 1], np.float32), differentiate=(0,))
    return _value_and_grads(mx, lambda d, l: loss(d, l), data, labels, differentiate=(0,))


def _ctc_op(mx, blank_label='first', **kwargs):
    data, = _arrays(9, (6, 3, 5))
    labels = _CTC_LABELS + 1 if blank_label == 'first' else _CTC_LABELS
    return _value_and_grads(mx, lambda d, l: mx.nd.ctc_loss(d, l, blank_label=blank_label,
                                                            **kwargs), data, labels,
                            differentiate=(0,))


def _ctc_op_lengths(mx):
    data, = _arrays(10, (6, 3, 5))
    return _value_and_grads(mx, lambda d, l, dl, ll: mx.nd.CTCLoss(
        d, l, dl, ll, use_data_lengths=True, use_label_lengths=True),
        data, np.array([[1, 2, 3], [4, 4, 1], [2, 1, 3]], np.float32),
        np.array([6, 5, 3], np.float32), np.array([3, 1, 2], np.float32), differentiate=(0,))


def _ctc_unreadable(mx):
    """A label no alignment fits in the time steps (a repeat needs a blank between): loss
    0. (MXNet 1.9.1 leaves that sample's gradient unwritten, whatever memory held: gluonedu
    gives zeros, and the gradients are not compared.)"""
    data, = _arrays(12, (2, 2, 4))
    return _value_and_grads(mx, lambda d, l: mx.nd.CTCLoss(d, l), data,
                            np.array([[1, 1], [2, 3]], np.float32), differentiate=())


def _loss_errors(mx):
    loss = mx.gluon.loss
    return {'ctc_layout': _raised(lambda: loss.CTCLoss(layout='NCT')),
            'ctc_label_layout': _raised(lambda: loss.CTCLoss(label_layout='NN')),
            'sdml_shapes': _raised(lambda: loss.SDMLLoss()(mx.nd.ones((3, 2)),
                                                           mx.nd.ones((2, 2)))),
            'ctc_data_ndim': _raised(lambda: mx.nd.CTCLoss(mx.nd.ones((3, 4)),
                                                           mx.nd.ones((4, 2))).asnumpy()),
            'ctc_label_too_long': _raised(lambda: mx.nd.CTCLoss(
                mx.nd.ones((2, 1, 4)), mx.nd.ones((1, 3))).asnumpy())}


# ---------------------------------------------------------------------------- initializers
def _initialized(mx, init, shape, name='p_weight'):
    param = mx.gluon.Parameter(name, shape=shape, init=init)
    param.initialize()
    return param.data().asnumpy()


def _bilinear(mx):
    return {'square': _initialized(mx, mx.init.Bilinear(), (2, 3, 4, 4)),
            'odd': _initialized(mx, mx.init.Bilinear(), (1, 2, 3, 5)),
            'by_name': _initialized(mx, 'bilinear', (1, 1, 2, 6))}


def _lstm_bias(mx):
    return {'default': _initialized(mx, mx.init.LSTMBias(), (8,), 'lstm_i2h_bias'),
            'forget': _initialized(mx, mx.init.LSTMBias(forget_bias=2.5), (12,), 'p_bias'),
            'repr': np.array(mx.init.LSTMBias(0.5).dumps())}


def _filled(mx, init):
    """A Load initializer's arrays for a weight and a bias (it is called, not passed to
    ``initialize``: MXNet's Load is no Initializer)."""
    weight, bias = mx.nd.zeros((2, 3)), mx.nd.zeros((2,))
    init('dense_weight', weight)
    init('dense_bias', bias)
    return {'weight': weight.asnumpy(), 'bias': bias.asnumpy()}


def _load(mx):
    weight = np.arange(6, dtype=np.float32).reshape(2, 3)
    out = _filled(mx, mx.init.Load({'arg:dense_weight': mx.nd.array(weight)},
                                   default_init=mx.init.Constant(0.5)))
    with tempfile.TemporaryDirectory() as folder:     # never a file in the checkout
        path = os.path.join(folder, 'loaded.params')
        mx.nd.save(path, {'dense_weight': mx.nd.array(weight * 2),
                          'aux:dense_bias': mx.nd.array([1.5, -1.5])})
        out.update(('file_' + k, v) for k, v in _filled(mx, mx.init.Load(path)).items())
        out['load_is_nd_load'] = np.array(str(sorted(mx.init.load(path))))
    out['missing'] = _raised(lambda: _filled(mx, mx.init.Load({})))
    out['wrong_shape'] = _raised(lambda: _filled(mx, mx.init.Load(
        {'dense_weight': mx.nd.ones((3, 2))}, default_init=mx.init.Zero())))
    out['not_a_dict'] = _raised(lambda: mx.init.Load([mx.nd.ones(2)]))
    out['not_an_initializer'] = _raised(lambda: mx.gluon.nn.Dense(2, in_units=3).initialize(
        init=mx.init.Load({})))
    return out


# ---------------------------------------------------------------------------- autograd.Function
def _function_classes(mx):
    class Sigmoid(mx.autograd.Function):
        def forward(self, x):
            y = 1 / (1 + mx.nd.exp(-x))
            self.save_for_backward(y)
            return y

        def backward(self, dy):
            y, = self.saved_tensors
            return dy * y * (1 - y)

    class ProductAndSum(mx.autograd.Function):
        def forward(self, a, b):
            self.save_for_backward(a, b)
            return a * b, a + b

        def backward(self, d_product, d_sum):
            a, b = self.saved_tensors
            return d_product * b + d_sum, d_product * a + d_sum

    class Identity(mx.autograd.Function):
        def forward(self, x):
            return x

        def backward(self, dy):
            return dy

    return Sigmoid, ProductAndSum, Identity


def _function(mx):
    sigmoid, product_and_sum, identity = _function_classes(mx)
    x, a, b = _arrays(11, (3, 4), (5,), (5,))
    out = {'sigmoid_' + k: v for k, v in _value_and_grads(
        mx, lambda t: sigmoid()(t * 2) * 3, x).items()}
    out.update(('two_' + k, v) for k, v in _value_and_grads(
        mx, lambda p, q: sum(y * y for y in product_and_sum()(p, q)), a, b).items())
    unrecorded = sigmoid()(mx.nd.array(x))
    out['unrecorded'] = unrecorded.asnumpy()
    once = sigmoid()
    once(mx.nd.array(x))
    out['called_twice'] = _raised(lambda: once(mx.nd.array(x)))
    out['returns_its_input'] = _raised(lambda: _value_and_grads(mx, lambda t: identity()(t), x))
    return out


CASES = {
    'CosineEmbeddingLoss': _cosine,
    'CosineEmbeddingLoss/margin': lambda mx: _cosine(mx, margin=0.3, weight=2.0),
    'PoissonNLLLoss': _poisson,
    'PoissonNLLLoss/rates': lambda mx: _poisson(mx, from_logits=False, weight=0.5),
    'PoissonNLLLoss/compute_full': _poisson_full,
    'TripletLoss': _triplet,
    'TripletLoss/margin-3d': lambda mx: _triplet(mx, (3, 2, 4), margin=3.0, weight=0.5),
    'SDMLLoss': _sdml,
    'SDMLLoss/smoothing': lambda mx: _sdml(mx, smoothing_parameter=0.1),
    'CTCLoss': _ctc,
    'CTCLoss/TNC-TN': lambda mx: _ctc(mx, 'TNC', 'TN', weight=2.0),
    'CTCLoss/lengths': lambda mx: _ctc(mx, lengths=True),
    'nd.ctc_loss/first': _ctc_op,
    'nd.ctc_loss/last': lambda mx: _ctc_op(mx, 'last'),
    'nd.CTCLoss/lengths': _ctc_op_lengths,
    'nd.CTCLoss/unreadable-label': _ctc_unreadable,
    'loss errors': _loss_errors,
    'Bilinear': _bilinear,
    'LSTMBias': _lstm_bias,
    'Load': _load,
    'autograd.Function': _function,
}


def run_case(mx, name):
    """The arrays of case ``name`` on ``mx``."""
    return CASES[name](mx)


if __name__ == '__main__':  # the oracle's side, run by oracle_main.py
    import mxnet

    import oracle_io
    oracle_io.save_results(*oracle_io.run_each(
        [(name, lambda name=name: run_case(mxnet, name)) for name in sorted(CASES)]))
