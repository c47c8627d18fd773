"""Layer operators: FullyConnected, Embedding, Dropout, softmax, log_softmax, softmin,
SoftmaxActivation, softmax_cross_entropy.

The operators of convolutional networks (Convolution, Pooling, BatchNorm, LeakyReLU, ...)
are in :mod:`gluonedu.ndarray.nn_ops`."""
import numpy as np

from ...base import MXNetError
from .. import _graph
from ..infer import like_first, merge
from ..nn_ops.kernels.blas import threads_for
from ..registry import FLOATS, Axis, Bool, DType, Enum, Float, Int, Op, Shape, add, get


def fully_connected(env, data, weight, bias=None, *, num_hidden, no_bias, flatten):
    """y = x·Wᵀ + b, with W of shape (num_hidden, in_units).

    ``flatten=True`` first flattens ``data`` to (batch, in_units); otherwise the layer
    applies to the last axis.
    """
    x2 = data.reshape(data.shape[0], -1) if flatten else data.reshape(-1, data.shape[-1])
    if weight.shape != (num_hidden, x2.shape[1]):
        raise MXNetError('FullyConnected: the input has %d features per sample (shape %s), so '
                         'the weight must have shape (%d, %d), got %s'
                         % (x2.shape[1], data.shape, num_hidden, x2.shape[1], weight.shape))
    if bias is not None and bias.shape != (num_hidden,):
        raise MXNetError('FullyConnected: bias must have shape (%d,), got %s'
                         % (num_hidden, bias.shape))
    macs = x2.size * num_hidden
    with threads_for(env.xp, macs):
        y2 = x2 @ weight.T
    if bias is not None:
        y2 = y2 + bias
    out_shape = (data.shape[0], num_hidden) if flatten else data.shape[:-1] + (num_hidden,)

    def backward(g):
        g2 = g.reshape(-1, num_hidden)
        with threads_for(env.xp, 2 * macs):
            grads = ((g2 @ weight).reshape(data.shape), g2.T @ x2)
        return grads + ((g2.sum(axis=0),) if bias is not None else ())
    return y2.reshape(out_shape), backward


def _fully_connected_shapes(in_shapes, out_shapes, params):
    """The weight (num_hidden, in_units), the bias and the output from the data's shape."""
    data, units = in_shapes[0], params['num_hidden']
    if data is None:
        return in_shapes, out_shapes
    rest = data[1:] if params['flatten'] else data[-1:]
    ins = list(in_shapes)
    ins[1] = merge(ins[1], (units, int(np.prod(rest)) if all(rest) else 0))
    if not params['no_bias']:
        ins[2] = merge(ins[2], (units,))
    out = (data[0], units) if params['flatten'] else data[:-1] + (units,)
    return ins, [merge(out_shapes[0], out)]


add(Op('FullyConnected', fully_connected, ('data', 'weight', 'bias'), dtypes=FLOATS,
       infer_shape=_fully_connected_shapes,
       drop_inputs=lambda p: ('bias',) if p['no_bias'] else (), params=[
           Int('num_hidden', low=1, doc='The number of outputs (rows of the weight).'),
           Bool('no_bias', False, doc='Leave out the bias input.'),
           Bool('flatten', True, doc='Flatten the input to (batch, features) first.')]))

_EMBEDDING_DTYPES = ('bfloat16', 'float16', 'float32', 'float64', 'int32', 'int64', 'int8',
                     'uint8')


def embedding(env, data, weight, input_dim, output_dim, dtype, sparse_grad):
    """Rows of ``weight`` (input_dim, output_dim) picked by the integer ids in ``data``.

    Ids are clipped to [0, input_dim - 1] as in MXNet. With ``sparse_grad=True`` the
    gradient of ``weight`` is row-sparse: only the rows looked up carry values.
    """
    xp = env.xp
    if weight.shape != (input_dim, output_dim):
        raise MXNetError('Embedding: weight has shape %s, expected (input_dim, output_dim) = '
                         '(%d, %d)' % (weight.shape, input_dim, output_dim))
    ids = xp.clip(data.astype(np.int64), 0, input_dim - 1)
    y = weight[ids]

    def backward(g):
        rows = g.reshape(-1, output_dim)
        if sparse_grad:
            return None, _graph.RowGrad(ids.reshape(-1), rows, weight.shape)
        full = xp.zeros(weight.shape, dtype=g.dtype)
        xp.add.at(full, ids.reshape(-1), rows)
        return None, full
    return y, backward


def _embedding_shapes(in_shapes, out_shapes, params):
    """The weight is (input_dim, output_dim); each id becomes a row."""
    data = in_shapes[0]
    if data is None:  # as MXNet: nothing is inferred before the ids' shape
        return in_shapes, out_shapes
    weight = merge(in_shapes[1], (params['input_dim'], params['output_dim']))
    return [data, weight], [merge(out_shapes[0], data + (params['output_dim'],))]


def _embedding_types(in_types, out_types, params):
    """The weight and the output have the ``dtype`` parameter's dtype; ids any."""
    dtype = np.dtype(params['dtype'])
    return [in_types[0], dtype], [dtype]


def _embedding_storage(inputs, params):
    """Embedding with a sparse input: MXNet looks up dense ids only (sparse ``data`` is an
    MXNetError); a row_sparse or csr weight is used as its dense equivalent."""
    data, weight = inputs
    if data.stype != 'default':
        raise MXNetError('Embedding: the ids (data) must be a dense array, got %s storage; '
                         "convert them with .tostype('default')" % data.stype)
    return get('Embedding').run([data, weight.tostype('default')], params)


add(Op('Embedding', embedding, ('data', 'weight'), same_dtype=False,
       compute_ex=_embedding_storage,
       infer_shape=_embedding_shapes, infer_type=_embedding_types, params=[
    Int('input_dim', low=1, doc='The vocabulary size (rows of the weight).'),
    Int('output_dim', low=1, doc='The embedding size (columns of the weight).'),
    DType('dtype', _EMBEDDING_DTYPES, 'float32', doc='The dtype of the weight.'),
    Bool('sparse_grad', False, doc='Give the weight a row-sparse gradient.')]))


def dropout(env, data, p, mode, axes, cudnn_off):
    """Zero each element with probability ``p`` and scale the rest by 1/(1 - p).

    Active only in training mode (``autograd.record()`` or ``train_mode()``), or
    always with ``mode='always'``; otherwise the identity. ``axes`` shares the mask
    along those axes. The mask comes from gluonedu's seeded random generator.
    """
    if axes and any(not 0 <= a < data.ndim for a in axes):
        raise MXNetError('Dropout: axes %s must lie in [0, %d)' % (tuple(axes), data.ndim))
    if not (mode == 'always' or env.is_train) or p == 0:
        return data.copy(), lambda g: (g,)
    from ..random import random_state  # the generators sit above the operators
    axes = axes or ()
    mask_shape = tuple(1 if i in axes else n for i, n in enumerate(data.shape))
    uniform = random_state(env.ctx).uniform(0, 1, size=mask_shape).astype(data.dtype)
    scale = (uniform >= p).astype(data.dtype) / data.dtype.type(1 - p)
    return data * scale, lambda g: (g * scale,)


add(Op('Dropout', dropout, quiet=True, dtypes=FLOATS, infer_shape=like_first, hidden_outputs=1,
       params=[
    Float('p', 0.5, low=0, high=1, single=True, doc='The probability of dropping an element.'),
    Enum('mode', ('always', 'training'), 'training',
         doc='Drop only while training, or always.'),
    Shape('axes', (), accepts_none=True, doc='Axes along which one mask value is shared.'),
    Bool('cudnn_off', False, optional=True, doc='Accepted for compatibility (no cuDNN here).')]))

_SOFTMAX_DTYPES = (None, 'float16', 'float32', 'float64')


def _softmax_params():
    return [Axis('axis', -1, doc='The axis to normalize along.'),
            Float('temperature', None, optional=True, doc='Divide the input by this first.'),
            DType('dtype', _SOFTMAX_DTYPES, None, doc='The dtype of the result (None: the '
                                                       'input\'s).'),
            Bool('use_length', False, optional=True, doc='Not supported by gluonedu.')]


def _as_dtype(y, dtype):
    """As MXNet: computed in the input's dtype, then given the requested one."""
    return y if dtype is None else y.astype(dtype, copy=False)


def _check_softmax_options(name, use_length):
    if use_length is None:
        raise MXNetError('%s: use_length must be True or False, not None' % name)
    if use_length:
        raise MXNetError('%s: use_length=True is not supported by gluonedu' % name)


def softmax(env, data, length=None, *, axis, temperature, dtype, use_length):
    """exp(x/t) / Σ exp(x/t) along ``axis``; gradient y·(g - Σ g·y) / t."""
    _check_softmax_options('softmax', use_length)
    xp, t = env.xp, 1.0 if temperature is None else temperature
    z = data / data.dtype.type(t) if t != 1.0 else data
    e = xp.exp(z - z.max(axis=axis, keepdims=True))
    y = e / e.sum(axis=axis, keepdims=True)

    def backward(g):
        g = g.astype(data.dtype, copy=False)
        return (y * (g - (g * y).sum(axis=axis, keepdims=True)) / data.dtype.type(t),)
    return _as_dtype(y, dtype), backward


add(Op('softmax', softmax, ('data', 'length'), dtypes=FLOATS, quiet=True, infer_shape=like_first,
       drop_inputs=lambda p: () if p['use_length'] else ('length',), params=_softmax_params()))


def log_softmax(env, data, axis, temperature, dtype, use_length):
    """log softmax(x/t) along ``axis``; gradient (g - softmax·Σ g) / t."""
    _check_softmax_options('log_softmax', use_length)
    xp, t = env.xp, 1.0 if temperature is None else temperature
    z = data / data.dtype.type(t) if t != 1.0 else data
    shifted = z - z.max(axis=axis, keepdims=True)
    y = shifted - xp.log(xp.exp(shifted).sum(axis=axis, keepdims=True))

    def backward(g):
        g = g.astype(data.dtype, copy=False)
        return ((g - xp.exp(y) * g.sum(axis=axis, keepdims=True)) / data.dtype.type(t),)
    return _as_dtype(y, dtype), backward


add(Op('log_softmax', log_softmax, dtypes=FLOATS, quiet=True, infer_shape=like_first,
       params=_softmax_params()))


def softmin(env, data, axis, temperature, dtype, use_length):
    """softmax(-x/t) along ``axis``: the smallest entries get the most weight."""
    y, backward = softmax(env, -data, axis=axis, temperature=temperature, dtype=dtype,
                          use_length=use_length)
    return y, lambda g: (-backward(g)[0],)


add(Op('softmin', softmin, dtypes=FLOATS, quiet=True, infer_shape=like_first,
       params=_softmax_params()))


def softmax_activation(env, data, mode):
    """softmax over the last axis of each instance ('instance'), or over the channels,
    axis 1, at every position ('channel': at least 3 dimensions)."""
    if mode == 'channel' and data.ndim < 3:
        raise MXNetError("SoftmaxActivation: mode='channel' needs an input of at least 3 "
                         'dimensions (N, C, ...), got shape %s' % (data.shape,))
    axis = 1 if mode == 'channel' else data.ndim - 1
    return softmax(env, data, axis=axis, temperature=None, dtype=None, use_length=False)


add(Op('SoftmaxActivation', softmax_activation, dtypes=('float32',), quiet=True,
       infer_shape=like_first, params=[
           Enum('mode', ('channel', 'instance'), 'instance',
                doc="'instance': over the last axis; 'channel': over axis 1.")]))


def softmax_cross_entropy(env, data, label):
    """Σ_i -log softmax(data_i)[label_i] over the batch: shape (1,). ``data`` is (N, K),
    ``label`` (N,) class ids of data's dtype."""
    xp = env.xp
    if data.ndim != 2 or label.ndim != 1:
        raise MXNetError('softmax_cross_entropy takes data (N, K) and label (N,), got shapes '
                         '%s and %s' % (data.shape, label.shape))
    if label.shape[0] != data.shape[0]:
        raise MXNetError('softmax_cross_entropy: %d labels for a batch of %d'
                         % (label.shape[0], data.shape[0]))
    log_p, _ = log_softmax(env, data, axis=1, temperature=None, dtype=None, use_length=False)
    ids = xp.clip(label.astype(np.int64), 0, data.shape[1] - 1)[:, None]
    y = -xp.take_along_axis(log_p, ids, axis=1).sum(keepdims=True).reshape(1)

    def backward(g):
        grad = xp.exp(log_p)
        xp.put_along_axis(grad, ids, xp.take_along_axis(grad, ids, axis=1) - 1, axis=1)
        return grad * g.reshape(()), None
    return y, backward


add(Op('softmax_cross_entropy', softmax_cross_entropy, ('data', 'label'), dtypes=FLOATS,
       quiet=True))
