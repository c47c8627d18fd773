"""Finite-difference checks of the gradients of issue 11's operators: nd.linalg, moments,
the Sequence operators, SoftmaxActivation, softmax_cross_entropy, im2col/col2im and the
random_pdf densities (the parity suite holds them equal to MXNet 1.9.1's where MXNet's
are right; here they are held to the derivative itself)."""
import numpy as np
import pytest

from gluonedu import nd

from test_ops_grad import check_grad, rand

L = nd.linalg


def _spd(n, batch=2, seed=0):
    x = np.random.RandomState(seed).randn(batch, n, n)
    return x @ x.transpose(0, 2, 1) + n * np.eye(n)


def _well_conditioned(n, batch=2, seed=0):
    return np.random.RandomState(seed).randn(batch, n, n) + 3 * np.eye(n)


def _symmetric(f):
    """f of the symmetric matrix of a's lower triangle: the operators that read only it
    (potrf, syevd) are checked on the lower triangle's entries."""
    def g(a, *rest):
        lower = nd.array(np.tril(np.ones(a.shape[-2:])), dtype='float64')
        strict = nd.array(np.tril(np.ones(a.shape[-2:]), -1), dtype='float64')
        low = a * lower
        return f(low + nd.swapaxes(low * strict, -1, -2), *rest)
    return g


LINALG = {
    'gemm2': (lambda a, b: L.gemm2(a, b, transpose_b=True, alpha=1.5),
              [rand(2, 3, 4), rand(2, 5, 4, seed=2)]),
    'gemm2-axis': (lambda a, b: L.gemm2(a, b, axis=0), [rand(3, 2, 4), rand(4, 2, 2, seed=2)]),
    'gemm': (lambda a, b, c: L.gemm(a, b, c, transpose_a=True, alpha=-0.5, beta=2.0),
             [rand(4, 3), rand(4, 2, seed=2), rand(3, 2, seed=3)]),
    'syrk': (lambda a: L.syrk(a, alpha=0.7), [rand(2, 3, 4)]),
    'syrk-transpose': (lambda a: L.syrk(a, transpose=True), [rand(3, 4)]),
    'trmm': (lambda a, b: L.trmm(a, b, alpha=2.0), [rand(2, 3, 3), rand(2, 3, 4, seed=2)]),
    'trmm-right-upper': (lambda a, b: L.trmm(a, b, rightside=True, lower=False, transpose=True),
                         [rand(3, 3), rand(4, 3, seed=2)]),
    'trsm': (lambda a, b: L.trsm(a, b, alpha=-1.5), [_well_conditioned(3),
                                                      rand(2, 3, 2, seed=2)]),
    'trsm-right-upper': (lambda a, b: L.trsm(a, b, rightside=True, lower=False,
                                             transpose=True),
                         [_well_conditioned(3)[0], rand(2, 3, seed=2)]),
    'potrf': (_symmetric(L.potrf), [_spd(3)]),
    'potri': (L.potri, [np.linalg.cholesky(_spd(3))]),
    'gelqf': (L.gelqf, [rand(2, 2, 4)]),
    'syevd': (_symmetric(L.syevd), [_spd(3)]),
    'inverse': (L.inverse, [_well_conditioned(3)]),
    'det': (L.det, [_well_conditioned(3)]),
    'slogdet': (lambda a: L.slogdet(a)[1], [_well_conditioned(3)]),
    'sumlogdiag': (L.sumlogdiag, [_spd(3)]),
    'extractdiag': (lambda a: L.extractdiag(a, offset=-1), [rand(2, 3, 3)]),
    'makediag': (lambda a: L.makediag(a, offset=2), [rand(2, 3)]),
    'extracttrian': (lambda a: L.extracttrian(a, lower=False), [rand(2, 3, 3)]),
    'maketrian': (lambda a: L.maketrian(a, offset=-1), [rand(2, 6)]),
}


@pytest.mark.parametrize('name', sorted(LINALG))
def test_linalg_grad(name):
    f, inputs = LINALG[name]
    check_grad(f, inputs, rtol=1e-4, atol=1e-6)


LENGTHS = nd.array([2, 4, 1], dtype='float64')
OTHERS = {
    'moments': (lambda x: nd.moments(x, axes=(0, 2)), [rand(2, 3, 4)]),
    'SequenceLast': (lambda x: nd.SequenceLast(x, LENGTHS, use_sequence_length=True, axis=1),
                     [rand(3, 4, 2)]),
    # without lengths: MXNet 1.9.1's gradient lands on the first step (divergences.md)
    'SequenceLast/all-steps': (lambda x: nd.SequenceLast(x), [rand(3, 4, 2)]),
    'SequenceMask': (lambda x: nd.SequenceMask(x, LENGTHS, use_sequence_length=True),
                     [rand(4, 3, 2)]),
    'SequenceReverse': (lambda x: nd.SequenceReverse(x, LENGTHS, use_sequence_length=True),
                        [rand(4, 3, 2)]),
    'softmax_cross_entropy': (lambda x: nd.softmax_cross_entropy(
        x, nd.array([2, 0, 1], dtype='float64')), [rand(3, 4)]),
    'im2col': (lambda x: nd.im2col(x, kernel=(2, 3), stride=(2, 1), pad=(1, 0), dilate=(1, 2)),
               [rand(2, 2, 4, 5)]),
    'col2im': (lambda x: nd.col2im(x, output_size=(3, 3), kernel=(2, 2), pad=(1, 1)),
               [rand(1, 8, 16)]),
}


@pytest.mark.parametrize('name', sorted(OTHERS))
def test_operator_grad(name):
    f, inputs = OTHERS[name]
    check_grad(f, inputs)


@pytest.mark.parametrize('mode, axis, shape', [('instance', -1, (2, 3, 4)),
                                               ('channel', 1, (2, 3, 2, 2))])
def test_softmax_activation_grad_is_softmaxs(mode, axis, shape):
    # float32 only (as MXNet), so held to softmax's gradient, which test_ops_grad checks
    # against finite differences; 3-D 'instance' is where MXNet 1.9.1's gradient is not the
    # derivative (docs/divergences.md)
    from gluonedu import autograd
    grads = []
    for f in (lambda x: nd.SoftmaxActivation(x, mode=mode), lambda x: nd.softmax(x, axis=axis)):
        x = nd.array(rand(*shape), dtype='float32')
        x.attach_grad()
        with autograd.record():
            y = f(x)
        y.backward(nd.array(rand(*shape, seed=3), dtype='float32'))
        grads.append(x.grad.asnumpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-6, atol=1e-7)


COUNTS = nd.array([[0, 1, 2], [3, 4, 5]], dtype='float64')
PDFS = {
    'normal': (nd.random_pdf_normal, [rand(2, 3), rand(2), rand(2, low=0.5, high=2)]),
    'uniform': (lambda x, a, b: nd.random_pdf_uniform(x, a, b, is_log=True),
                [rand(2, 3), rand(2, low=-3, high=-2), rand(2, low=2, high=3)]),
    'exponential': (nd.random_pdf_exponential, [rand(2, 3, low=0.1), rand(2, low=0.5)]),
    'gamma': (nd.random_pdf_gamma, [rand(2, 3, low=0.2), rand(2, low=1), rand(2, low=0.5)]),
    'poisson': (lambda lam: nd.random_pdf_poisson(COUNTS, lam), [rand(2, low=0.5, high=3)]),
    'negative_binomial': (lambda k, p: nd.random_pdf_negative_binomial(COUNTS, k, p),
                          [rand(2, low=1, high=3), rand(2, low=0.2, high=0.8)]),
    'generalized_negative_binomial': (
        lambda mu, alpha: nd.random_pdf_generalized_negative_binomial(COUNTS, mu, alpha,
                                                                      is_log=True),
        [rand(2, low=1, high=3), rand(2, low=0.2, high=0.8)]),
    'dirichlet': (nd.random_pdf_dirichlet,
                  [np.random.RandomState(0).dirichlet([1, 2, 3], size=(2, 4)),
                   rand(2, 3, low=1, high=3)]),
}


@pytest.mark.parametrize('name', sorted(PDFS))
def test_pdf_grad(name):
    f, inputs = PDFS[name]
    check_grad(f, inputs, rtol=1e-4, atol=1e-6)
