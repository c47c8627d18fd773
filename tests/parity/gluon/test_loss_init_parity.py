"""The gluon losses (CTCLoss, CosineEmbeddingLoss, PoissonNLLLoss, SDMLLoss, TripletLoss),
``nd.CTCLoss``, the initializers (Bilinear, LSTMBias, Load) and ``autograd.Function``
against MXNet 1.9.1.

Each case of :mod:`loss_init_parity_driver` runs once on MXNet 1.9.1 (one oracle process)
and on gluonedu: outputs and the inputs' gradients must agree (float32 summed in another
order: rtol 1e-5, atol 1e-5 × the array's largest magnitude), and where a call must fail,
both raise the same exception type.
"""
import numpy as np
import pytest

import loss_init_parity_driver as driver
from harness import oracle_case_arrays, run_oracle


@pytest.fixture(scope='module')
def loss_init_oracle(tmp_path_factory):
    """``(results, meta)`` of every case, run once on MXNet 1.9.1."""
    return run_oracle(driver.__file__, tmp_path_factory.mktemp('mxnet_loss_init_oracle'))


@pytest.mark.parametrize('name', sorted(driver.CASES))
def test_matches_mxnet(name, loss_init_oracle):
    import gluonedu
    expected = oracle_case_arrays(*loss_init_oracle, name)
    got = driver.run_case(gluonedu, name)
    assert sorted(got) == sorted(expected)
    for key in sorted(expected):
        if expected[key].dtype.kind in 'US':  # text, or the exception a call raised:
            # MXNet's class must be ours or one ours derives from
            theirs = str(expected[key]).split('|')[0]
            assert theirs in str(got[key]).split('|'), '%s: %s: %s, MXNet %s' % (
                name, key, got[key], expected[key])
        else:
            assert got[key].shape == expected[key].shape, '%s: %s' % (name, key)
            scale = max(1.0, float(np.abs(expected[key]).max(initial=0)))
            np.testing.assert_allclose(got[key], expected[key], rtol=1e-5, atol=1e-5 * scale,
                                       err_msg='%s: %s' % (name, key))
