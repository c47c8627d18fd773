"""Activation layers: Activation, LeakyReLU, PReLU, ELU, SELU, GELU, Swish."""
from ... import initializer
from ..block import HybridBlock

__all__ = ['Activation', 'LeakyReLU', 'PReLU', 'ELU', 'SELU', 'GELU', 'Swish']


class Activation(HybridBlock):
    """Apply an activation function element-wise: y = act(x).

    Parameters
    ----------
    activation : str
        'relu', 'sigmoid', 'tanh', 'softrelu' or 'softsign'.

    Notes
    -----
    The automatic prefix is the activation's name: ``Activation('relu')`` is ``'relu0_'``.
    """

    def __init__(self, activation, **kwargs):
        self._act_type = activation          # needed by _alias() during __init__
        super().__init__(**kwargs)

    def _alias(self):
        return self._act_type

    def hybrid_forward(self, F, x):
        return F.Activation(x, act_type=self._act_type, name='fwd')

    def __repr__(self):
        return '%s(%s)' % (self.__class__.__name__, self._act_type)


class LeakyReLU(HybridBlock):
    """Leaky ReLU: y = x if x > 0 else alpha·x.

    Parameters
    ----------
    alpha : float, >= 0
        The slope for negative inputs.
    """

    def __init__(self, alpha, **kwargs):
        assert alpha >= 0, "Slope coefficient for LeakyReLU must be no less than 0, got %s." \
            % (alpha,)
        super().__init__(**kwargs)
        self._alpha = alpha

    def hybrid_forward(self, F, x):
        return F.LeakyReLU(x, act_type='leaky', slope=self._alpha, name='fwd')

    def __repr__(self):
        return '%s(%s)' % (self.__class__.__name__, self._alpha)


class PReLU(HybridBlock):
    """Parametric ReLU: y = x if x > 0 else alpha·x, with alpha learned per channel.

    Parameters
    ----------
    alpha_initializer : Initializer, default Constant(0.25)
    in_channels : int, default 1
        Number of alphas: 1 shares one slope over all elements; otherwise one slope per
        channel of axis 1.
    """

    def __init__(self, alpha_initializer=initializer.Constant(0.25), in_channels=1, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.alpha = self.params.get('alpha', shape=(in_channels,), init=alpha_initializer)

    def hybrid_forward(self, F, x, alpha):
        return F.LeakyReLU(x, gamma=alpha, act_type='prelu', name='fwd')


class ELU(HybridBlock):
    """Exponential linear unit: y = x if x > 0 else alpha·(exp(x) - 1).

    Parameters
    ----------
    alpha : float, default 1.0
    """

    def __init__(self, alpha=1.0, **kwargs):
        super().__init__(**kwargs)
        self._alpha = alpha

    def hybrid_forward(self, F, x):
        return F.LeakyReLU(x, act_type='elu', slope=self._alpha, name='fwd')


class SELU(HybridBlock):
    """Scaled ELU: y = λ·(x if x > 0 else α·(exp(x) - 1)), λ ≈ 1.0507, α ≈ 1.6733."""

    def hybrid_forward(self, F, x):
        return F.LeakyReLU(x, act_type='selu', name='fwd')


class GELU(HybridBlock):
    """Gaussian error linear unit (Hendrycks & Gimpel, 2016): y = x·Φ(x), Φ the standard
    normal CDF: ½·x·(1 + erf(x/√2))."""

    def hybrid_forward(self, F, x):
        return F.LeakyReLU(x, act_type='gelu', name='fwd')


class Swish(HybridBlock):
    """Swish: y = x · sigmoid(beta·x).

    Parameters
    ----------
    beta : float, default 1.0
    """

    def __init__(self, beta=1.0, **kwargs):
        super().__init__(**kwargs)
        self._beta = beta

    def hybrid_forward(self, F, x):
        return x * F.sigmoid(self._beta * x)
