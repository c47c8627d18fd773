"""MXNet's trivial ``'test'`` optimizer, used by MXNet's own tests of the update machinery."""
from typing import NamedTuple

from .. import ndarray as nd
from .optimizer import Optimizer, register, accepts_lists, state_type

__all__ = ['Test']


@state_type
class TestState(NamedTuple):
    """The Test optimizer's state: a copy of the updated weight (a bare array)."""
    state: object


@register
class Test(Optimizer):
    """Adds the rescaled gradient to the weight: ``w = w + rescale_grad * g``.

    Note the sign: the weight moves *up* the gradient. There is no learning rate, weight
    decay, clipping or update counting — which makes the optimizer handy for checking
    that the machinery around it (Trainer, KVStore, Updater) hands over the right
    gradients. Its state is a float32 array (whatever the weight's dtype) that receives
    a copy of the updated weight, as MXNet's does.
    """

    state_type = TestState

    def __init__(self, **kwargs):
        super().__init__(**kwargs)

    def create_state(self, index, weight):
        """A float32 array of zeros shaped like ``weight``."""
        return nd.zeros(weight.shape, weight.context)

    @accepts_lists
    def update(self, index, weight, grad, state):
        """``weight += rescale_grad * grad``; the state becomes a copy of the new weight."""
        weight[:] += grad * self.rescale_grad
        state[:] = weight
