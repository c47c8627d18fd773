"""``pretrained=True`` reads a weights file MXNet 1.9.1 saved in its model store layout
(model_zoo_driver): every parameter bit for bit, and the network's output."""
import numpy as np
import pytest

import model_zoo_driver as driver
from harness import run_oracle


@pytest.fixture(scope='module')
def mxnet_store(tmp_path_factory):
    workdir = tmp_path_factory.mktemp('mxnet_model_store')
    results, _ = run_oracle(driver.__file__, workdir)
    return workdir / 'models', results


def test_a_model_mxnet_saved_loads_with_pretrained_true(mxnet_store):
    import gluonedu
    from gluonedu.gluon.model_zoo import vision
    root, results = mxnet_store
    net = vision.get_model(driver.MODEL, classes=10, pretrained=True, root=str(root))
    params = {name: p.data().asnumpy()
              for name, p in net.collect_params().items()}
    theirs = {key[len('param/'):]: value for key, value in results.items()
              if key.startswith('param/')}
    assert len(theirs) == len(params)
    # MXNet names them structurally (features.0.weight), gluonedu's collect_params by
    # prefix: both orders are the network's, so they pair up in order.
    for (name, ours), (their_name, value) in zip(params.items(), theirs.items()):
        np.testing.assert_array_equal(ours, value, err_msg='%s / %s' % (name, their_name))
    out = driver.outputs(gluonedu, net)
    scale = np.abs(results['out']).max()
    np.testing.assert_allclose(out, results['out'], rtol=1e-4, atol=1e-5 * scale)
