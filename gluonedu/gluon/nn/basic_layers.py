"""Basic layers: containers (Sequential, HybridSequential), Dense, Dropout, Embedding,
Flatten, and Lambda wrappers around functions."""
import warnings

import numpy as np

from ... import ndarray as nd
from ..block import Block, HybridBlock
from ..utils import _indent
from .activations import Activation

__all__ = ['Sequential', 'HybridSequential', 'Dense', 'Dropout', 'Embedding', 'Flatten',
           'Lambda', 'HybridLambda']


# ---------------------------------------------------------------------- containers
class _SequentialMixin:
    """What Sequential and HybridSequential share: add, indexing, len, repr."""

    def add(self, *blocks):
        """Append ``blocks`` to the stack, in order (children '0', '1', ...)."""
        for block in blocks:
            self.register_child(block)

    def __getitem__(self, key):
        """The child at ``key``; a slice gives a new container sharing those children."""
        layers = list(self._children.values())[key]
        if not isinstance(layers, list):
            return layers
        net = type(self)(prefix=self._prefix)
        with net.name_scope():
            net.add(*layers)
        return net

    def __len__(self):
        return len(self._children)

    def __repr__(self):
        lines = ['  (%s): %s' % (key, _indent(repr(block), 2))
                 for key, block in self._children.items()]
        return '%s(\n%s\n)' % (self.__class__.__name__, '\n'.join(lines))


class Sequential(_SequentialMixin, Block):
    """Stacks Blocks: the output of each is the input of the next.

    Example::

        net = nn.Sequential()
        with net.name_scope():             # children named sequential0_dense0_, ...
            net.add(nn.Dense(10, activation='relu'))
            net.add(nn.Dense(20))
    """

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def forward(self, x):
        for block in self._children.values():
            x = block(x)
        return x

    def hybridize(self, active=True, **kwargs):
        """Hybridize the HybridBlock children (see HybridBlock.hybridize)."""
        if self._children and all(isinstance(c, HybridBlock) for c in self._children.values()):
            warnings.warn("All children of this Sequential layer '%s' are HybridBlocks. "
                          "Consider using HybridSequential for the best performance."
                          % self.prefix, stacklevel=2)
        super().hybridize(active, **kwargs)


class HybridSequential(_SequentialMixin, HybridBlock):
    """Stacks HybridBlocks: the output of each is the input of the next.

    Example::

        net = nn.HybridSequential()
        with net.name_scope():
            net.add(nn.Dense(10, activation='relu'))
            net.add(nn.Dense(20))
        net.hybridize()
    """

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def hybrid_forward(self, F, x):
        for block in self._children.values():
            x = block(x)
        return x


# ---------------------------------------------------------------------- layers
class Dense(HybridBlock):
    """A fully connected layer: y = activation(x·Wᵀ + b).

    Parameters
    ----------
    units : int
        Output size; ``weight`` has shape (units, in_units), ``bias`` (units,).
    activation : str, optional
        Name of an activation applied to the output (see :class:`Activation`);
        None means linear.
    use_bias : bool, default True
    flatten : bool, default True
        True: flatten inputs to (batch, in_units) first. False: apply to the last
        axis, keeping the others.
    dtype : str or numpy dtype, default 'float32'
    weight_initializer, bias_initializer : Initializer or str
        Default: the global initializer for the weight, 'zeros' for the bias.
    in_units : int, default 0
        Input size; 0 defers initialisation until the first forward pass, which
        infers it from the input's shape.
    prefix, params : see :class:`Block`.
    """

    def __init__(self, units, activation=None, use_bias=True, flatten=True, dtype='float32',
                 weight_initializer=None, bias_initializer='zeros', in_units=0, **kwargs):
        super().__init__(**kwargs)
        self._flatten = flatten
        with self.name_scope():
            self._units = units
            self._in_units = in_units
            self.weight = self.params.get('weight', shape=(units, in_units),
                                          init=weight_initializer, dtype=dtype,
                                          allow_deferred_init=True)
            if use_bias:
                self.bias = self.params.get('bias', shape=(units,), init=bias_initializer,
                                            dtype=dtype, allow_deferred_init=True)
            else:
                self.bias = None
            if activation is not None:
                self.act = Activation(activation, prefix=activation + '_')
            else:
                self.act = None

    def hybrid_forward(self, F, x, weight, bias=None):
        out = F.FullyConnected(x, weight, bias, no_bias=bias is None, num_hidden=self._units,
                               flatten=self._flatten, name='fwd')
        if self.act is not None:
            out = self.act(out)
        return out

    def __repr__(self):
        units, in_units = self.weight.shape
        return '%s(%s -> %s, %s)' % (self.__class__.__name__, in_units if in_units else None,
                                     units, self.act if self.act else 'linear')


class Dropout(HybridBlock):
    """Zero a fraction ``rate`` of the inputs in training, scaling the rest by 1/(1-rate).

    Active only in training mode (inside ``autograd.record()``); the identity otherwise.

    Parameters
    ----------
    rate : float in [0, 1)
    axes : tuple of int, default ()
        Axes along which one mask value is shared (e.g. (1,) drops whole rows' items).
    """

    def __init__(self, rate, axes=(), **kwargs):
        super().__init__(**kwargs)
        self._rate = rate
        self._axes = axes

    def hybrid_forward(self, F, x):
        if self._rate > 0:
            return F.Dropout(x, p=self._rate, axes=self._axes, name='fwd', cudnn_off=False)
        return F.identity(x)

    def __repr__(self):
        return '%s(p = %s, axes=%s)' % (self.__class__.__name__, self._rate, self._axes)


class Embedding(HybridBlock):
    """Map integer ids to rows of a learned (input_dim, output_dim) table.

    Parameters
    ----------
    input_dim : int
        Vocabulary size (largest id + 1).
    output_dim : int
        Size of each vector.
    dtype : str or numpy dtype, default 'float32'
    weight_initializer : Initializer, optional
    sparse_grad : bool, default False
        Give the weight a 'row_sparse' gradient holding only the rows looked up.

    Notes
    -----
    Input: ids of any shape; output: that shape + (output_dim,).
    """

    def __init__(self, input_dim, output_dim, dtype='float32', weight_initializer=None,
                 sparse_grad=False, **kwargs):
        super().__init__(**kwargs)
        grad_stype = 'row_sparse' if sparse_grad else 'default'
        self._kwargs = {'input_dim': input_dim, 'output_dim': output_dim, 'dtype': dtype,
                        'sparse_grad': sparse_grad}
        self.weight = self.params.get('weight', shape=(input_dim, output_dim),
                                      init=weight_initializer, dtype=dtype,
                                      allow_deferred_init=True, grad_stype=grad_stype)

    def hybrid_forward(self, F, x, weight):
        return F.Embedding(x, weight, name='fwd', **self._kwargs)

    def __repr__(self):
        return '%s(%s -> %s, %s)' % (self.__class__.__name__, self._kwargs['input_dim'],
                                     self._kwargs['output_dim'], self._kwargs['dtype'])


class Flatten(HybridBlock):
    """Flatten to two axes: (N, x1, ..., xn) -> (N, x1·...·xn)."""

    def hybrid_forward(self, F, x):
        return F.flatten(x)

    def __repr__(self):
        return self.__class__.__name__


class Lambda(Block):
    """Wrap a function (or the name of an ``mx.nd`` operator) as a Block.

    Parameters
    ----------
    function : str or callable
        An operator name such as ``'tanh'``, or a function ``f(*inputs)``, e.g.
        ``Lambda(lambda x: nd.LeakyReLU(x, slope=0.1))``.
    """

    def __init__(self, function, prefix=None):
        super().__init__(prefix=prefix)
        if isinstance(function, str):
            assert hasattr(nd, function), \
                "Function name %s is not found in ndarray: use an mx.nd operator name or " \
                "pass a function." % function
            self._func_impl = getattr(nd, function)
        elif callable(function):
            self._func_impl = function
        else:
            raise ValueError("Unrecognized function in lambda: %s of type %s; pass an mx.nd "
                             "operator name or a callable." % (function, type(function)))

    def forward(self, *args):
        return self._func_impl(*args)

    def __repr__(self):
        return '%s(%s)' % (self.__class__.__name__, self._func_impl.__name__)


class HybridLambda(HybridBlock):
    """Wrap a function ``f(F, x, *args)`` (or an operator name) as a HybridBlock.

    Parameters
    ----------
    function : str or callable
        An operator name such as ``'tanh'``, or a function of ``(F, x, *args)``, e.g.
        ``HybridLambda(lambda F, x: F.LeakyReLU(x, slope=0.1))``.
    """

    def __init__(self, function, prefix=None):
        super().__init__(prefix=prefix)
        if isinstance(function, str):
            assert hasattr(nd, function), \
                "Function name %s is not found in ndarray: use an mx.nd operator name or " \
                "pass a function." % function
            self._func = lambda F, *args: getattr(F, function)(*args)
            self._func_name = function
        elif callable(function):
            self._func = function
            self._func_name = function.__name__
        else:
            raise ValueError("Unrecognized function in lambda: %s of type %s; pass an operator "
                             "name or a callable." % (function, type(function)))

    def hybrid_forward(self, F, x, *args):
        return self._func(F, x, *args)

    def __repr__(self):
        return '%s(%s)' % (self.__class__.__name__, self._func_name)
