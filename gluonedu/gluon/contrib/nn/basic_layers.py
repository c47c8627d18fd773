"""Containers that run their children side by side, and the identity layer.

``HybridConcurrent`` is how Inception and DenseNet blocks are written: every child
receives the same input and their outputs are concatenated along ``axis``.
"""
from .... import ndarray as nd
from ...block import HybridBlock
from ...nn import HybridSequential, Sequential

__all__ = ['Concurrent', 'HybridConcurrent', 'Identity']


class _ConcurrentMixin:
    """Run every child on the same input; concatenate their outputs along ``axis``.

    Parameters
    ----------
    axis : int, default -1
        The axis of the concatenation (1 for the channels of NCHW data).
    """

    def __init__(self, axis=-1, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self.axis = axis


class Concurrent(_ConcurrentMixin, Sequential):
    __doc__ = _ConcurrentMixin.__doc__

    def forward(self, x):
        return nd.concat(*[block(x) for block in self._children.values()], dim=self.axis)


class HybridConcurrent(_ConcurrentMixin, HybridSequential):
    __doc__ = _ConcurrentMixin.__doc__

    def hybrid_forward(self, F, x):
        return F.concat(*[block(x) for block in self._children.values()], dim=self.axis)


class Identity(HybridBlock):
    """Return the input unchanged (a placeholder branch, e.g. in a residual block)."""

    def hybrid_forward(self, F, x):
        return x
