"""Runs the parity cases of the gluon losses, the initializers and autograd.Function against
an MXNet-like module ``mx`` (MXNet 1.9.1 or gluonedu).

Both sides run this code: ``oracle_loss_init.py`` with the real ``mxnet``, the tests with
``gluonedu``. A case returns ``{name: array}``: the outputs, the gradients of the inputs
after ``backward()`` (a seeded, non-constant head gradient), or — where a call must fail —
the name of the exception it raised. Inputs are seeded NumPy arrays.
"""
import numpy as np


def _raised(f):
    try:
        f()
    except Exception as exc:  # the type is the result
        return np.array(type(exc).__name__)
    return np.array('none')


def _arrays(seed, *shapes):
    rng = np.random.RandomState(seed)
    return [rng.randn(*shape).astype(np.float32) for shape in shapes]


def _value_and_grads(mx, fn, *arrays):
    """``fn(*NDArrays)`` under autograd, its output and the inputs' gradients."""
    xs = [mx.nd.array(a, dtype=a.dtype) for a in arrays]
    for x in xs:
        x.attach_grad()
    with mx.autograd.record():
        y = fn(*xs)
    head = np.linspace(-1.0, 1.5, y.size).reshape(y.shape).astype(np.float32)
    y.backward(mx.nd.array(head))
    out = {'out': y.asnumpy()}
    out.update(('grad%d' % i, x.grad.asnumpy()) for i, x in enumerate(xs))
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
                                np.array([2, 3, 1], np.float32))
    return _value_and_grads(mx, lambda d, l: loss(d, l), data, labels)


def _ctc_op(mx, blank_label='first', **kwargs):
    data, = _arrays(9, (6, 3, 5))
    labels = _CTC_LABELS + 1 if blank_label == 'first' else _CTC_LABELS
    return _value_and_grads(mx, lambda d, l: mx.nd.ctc_loss(d, l, blank_label=blank_label,
                                                            **kwargs), data, labels)


def _ctc_op_lengths(mx):
    data, = _arrays(10, (6, 3, 5))
    return _value_and_grads(mx, lambda d, l, dl, ll: mx.nd.CTCLoss(
        d, l, dl, ll, use_data_lengths=True, use_label_lengths=True),
        data, np.array([[1, 2, 3], [4, 4, 1], [2, 1, 3]], np.float32),
        np.array([6, 5, 3], np.float32), np.array([3, 1, 2], np.float32))


def _loss_errors(mx):
    loss = mx.gluon.loss
    return {'ctc_layout': _raised(lambda: loss.CTCLoss(layout='NCT')),
            'ctc_label_layout': _raised(lambda: loss.CTCLoss(label_layout='NN')),
            'sdml_shapes': _raised(lambda: loss.SDMLLoss()(mx.nd.ones((3, 2)),
                                                           mx.nd.ones((2, 2)))),
            'ctc_data_ndim': _raised(lambda: mx.nd.CTCLoss(mx.nd.ones((3, 4)),
                                                           mx.nd.ones((4, 2))).asnumpy())}


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
    'loss errors': _loss_errors,
}


def run_case(mx, name):
    """The arrays of case ``name`` on ``mx``."""
    return CASES[name](mx)
