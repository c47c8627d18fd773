"""The array kernels behind the layer operators: a readable reference beside a fast one.

Kernels are pure functions of arrays (NumPy or CuPy, passed as ``xp``) — no NDArrays,
no autograd. Each family has two modules with the same functions:

=============  ===========================================  ===========================
family         reference (reads like the formula)            fast (the default)
=============  ===========================================  ===========================
``conv``       :mod:`.conv_reference`: a loop over kernel    :mod:`.conv_fast`: im2col +
               offsets, one channel product each              one BLAS product per group;
                                                              shifted GEMMs (stride 1),
                                                              1×1 channel products,
                                                              Winograd for 3×3 stride 1
                                                              (:mod:`.conv_winograd`)
``pool``       :mod:`.pool_reference`: a loop over window    :mod:`.pool_fast`: all
               offsets                                        windows, one reduction;
                                                              2-D max pooling compiled
``batchnorm``  :mod:`.batchnorm_reference`: the formulas,    :mod:`.batchnorm_fast`: two
               one NumPy operation each                       passes, compiled (numba)
=============  ===========================================  ===========================

The recurrent operator ``RNN`` has one kernel, :mod:`.rnn_fast` (whole sequences, the
backward pass through time by hand); its reference is the operator's own composition of
recorded NDArray operations (:mod:`gluonedu.ndarray.nn_ops.rnn`), which
``use_kernels('reference')`` selects too.

Convolution serves ``Convolution`` and ``Deconvolution`` (whose forward pass is the
convolution's input gradient). Tests hold each fast kernel equal to its reference on
random shapes. :func:`use_kernels` switches the operators to the reference, e.g. to step
through them in a debugger::

    with nd.nn_ops.use_kernels('reference'):
        y = nd.Convolution(x, w, kernel=(3, 3), num_filter=8, no_bias=True)
"""
import contextlib
import threading

from . import (batchnorm_fast, batchnorm_reference, conv_fast, conv_reference, pool_fast,
               pool_reference)

__all__ = ['use_kernels', 'get', 'active']

_FAMILIES = {'conv': {'reference': conv_reference, 'fast': conv_fast},
             'pool': {'reference': pool_reference, 'fast': pool_fast},
             'batchnorm': {'reference': batchnorm_reference, 'fast': batchnorm_fast}}


class _Choice(threading.local):
    value = 'fast'


_CHOICE = _Choice()


def active():
    """'fast' or 'reference': the kernels the operators use now (in this thread)."""
    return _CHOICE.value


def get(family):
    """The kernel module of ``family`` ('conv', 'pool', 'batchnorm') the operators use now."""
    return _FAMILIES[family][_CHOICE.value]


@contextlib.contextmanager
def use_kernels(which):
    """Run the operators on the 'reference' or the 'fast' kernels inside this block."""
    if which not in ('reference', 'fast'):
        raise ValueError("use_kernels takes 'reference' or 'fast', got %r" % (which,))
    previous, _CHOICE.value = _CHOICE.value, which
    try:
        yield
    finally:
        _CHOICE.value = previous
