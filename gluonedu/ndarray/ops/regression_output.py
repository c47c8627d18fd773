"""MXNet's output layers of symbolic training: ``LinearRegressionOutput``,
``LogisticRegressionOutput``, ``MAERegressionOutput`` and ``make_loss``.

Their gradient is the loss's own, whatever gradient arrives from above (MXNet's ``*Output``
operators end a network): with ``n`` the number of outputs per sample (``label.size /
batch``), the gradient of ``data`` is ``grad_scale / n`` times ``out − label`` (linear and
logistic, ``out`` the sigmoid for the latter) or ``sign(out − label)`` (MAE, −1 where
equal); ``make_loss`` passes ones back.
"""
from ...base import MXNetError
from ..registry import FLOATS, Float, Op, add


def _label_like(op, data, label):
    if label.size != data.size:
        raise MXNetError('%s: the label has shape %s, the data %s: give one label per output'
                         % (op, label.shape, data.shape))
    return label.reshape(data.shape)


def _regression_output(name, forward_fn, residual_fn, doc):
    def forward(env, data, label, grad_scale):
        label = _label_like(name, data, label)
        out = forward_fn(env.xp, data)
        per_sample = label.size // label.shape[0] if label.ndim and label.shape[0] else 1

        def backward(_):
            grad = residual_fn(env.xp, out - label) * (grad_scale / per_sample)
            return grad.astype(data.dtype), env.xp.zeros_like(label)
        return out, backward
    forward.__doc__ = doc
    add(Op(name, forward, ('data', 'label'), quiet=True, same_dtype=False, dtypes=FLOATS,
           params=[Float('grad_scale', 1, single=True, doc='Scales the gradient.')]))


_regression_output(
    'LinearRegressionOutput', lambda xp, x: x.copy(), lambda xp, r: r,
    'Identity forward; the gradient of the squared error ``(out - label) * grad_scale / n``.')
_regression_output(
    'LogisticRegressionOutput', lambda xp, x: 1 / (1 + xp.exp(-x)), lambda xp, r: r,
    'The sigmoid forward; the gradient of the cross entropy ``(sigmoid(data) - label) * '
    'grad_scale / n``.')
_regression_output(
    'MAERegressionOutput', lambda xp, x: x.copy(), lambda xp, r: xp.where(r > 0, 1.0, -1.0),
    'Identity forward; the gradient of the absolute error ``sign(out - label) * grad_scale '
    '/ n`` (-1 where they are equal).')


def make_loss(env, data):
    """Identity forward; marks ``data`` as a loss: its gradient is ones, whatever arrives."""
    return data.copy(), lambda _: (env.xp.ones_like(data),)


def _sparse_make_loss(inputs, params):
    """make_loss of a sparse array: a copy, of the same storage type (as MXNet's)."""
    return inputs[0].copy()


add(Op('make_loss', make_loss, compute_ex=_sparse_make_loss))
