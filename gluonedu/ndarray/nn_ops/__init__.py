"""The layer operators: convolution, pooling, normalization, recurrence, spatial sampling.

MXNet 1.9.1's names, inputs, parameters and defaults; every operator records its
gradient for ``autograd``. The map:

* :mod:`.declare` — each operator declared once (:class:`~.declare.OpDef`) in the operator
  table (:mod:`gluonedu.ndarray.registry`), which makes the ``nd`` function and its checks;
* :mod:`.convolution` — Convolution, Deconvolution (and their shape inference);
* :mod:`.pooling` — Pooling (max, avg, sum, lp; global; valid/full conventions);
* :mod:`.normalization` — BatchNorm, LayerNorm, InstanceNorm, GroupNorm, L2Normalization;
* :mod:`.activation` — LeakyReLU (leaky, prelu, elu, selu, gelu, rrelu);
* :mod:`.resize` — UpSampling (nearest), pad;
* :mod:`.lrn` — LRN (local response normalization);
* :mod:`.spatial` — GridGenerator, BilinearSampler, SpatialTransformer;
* :mod:`.correlation` — Correlation (FlowNet's patch comparison);
* :mod:`.roi_pooling` — ROIPooling;
* :mod:`.rnn` — RNN (the fused Elman RNN, LSTM and GRU of MXNet and cuDNN);
* :mod:`.kernels` — the array kernels: a readable reference beside a fast one.
"""
from .activation import LeakyReLU
from .convolution import Convolution, Deconvolution, convolution_shapes, deconvolution_shapes
from .correlation import Correlation
from .kernels import use_kernels
from .lrn import LRN
from .normalization import BatchNorm, GroupNorm, InstanceNorm, L2Normalization, LayerNorm
from .pooling import Pooling, pooling_shape
from .resize import Pad, UpSampling, pad
from .rnn import RNN
from .roi_pooling import ROIPooling
from .spatial import BilinearSampler, GridGenerator, SpatialTransformer

#: The operators, exported by ``gluonedu.ndarray``.
OPERATORS = ['Convolution', 'Deconvolution', 'Pooling', 'BatchNorm', 'LayerNorm',
             'InstanceNorm', 'GroupNorm', 'L2Normalization', 'LeakyReLU', 'UpSampling',
             'pad', 'Pad', 'RNN', 'LRN', 'GridGenerator', 'BilinearSampler',
             'SpatialTransformer', 'ROIPooling', 'Correlation']

__all__ = OPERATORS
