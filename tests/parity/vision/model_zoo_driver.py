"""Pretrained weights MXNet 1.9.1 saved, loaded by gluonedu's model zoo.

As a script, on the oracle's interpreter (``oracle_main.py model_zoo_driver.py``): MXNet
builds :data:`MODEL` with seeded He (MSRAPrelu) weights, saves them where its model store keeps
them (``<working directory>/models/<name>-<hash>.params``, MXNet's binary format) and writes
every parameter and the network's output on :func:`probe` to the results. The test loads
the file with ``get_model(MODEL, pretrained=True, root=...)`` and compares.
"""
import os

import numpy as np

MODEL = 'mobilenet0.25'
FILE = 'mobilenet0.25-9f83e440.params'   # the model store's name: <name>-<sha1[:8]>


def probe():
    """The input both networks are run on (a batch of two 64 x 64 images)."""
    return np.random.RandomState(0).uniform(-1, 1, (2, 3, 64, 64)).astype(np.float32)


def outputs(mx, net):
    """The network's output on :func:`probe`, in inference mode."""
    return net(mx.nd.array(probe())).asnumpy()


if __name__ == '__main__':  # the oracle's side, run by oracle_main.py
    import mxnet
    from mxnet.gluon.model_zoo import vision

    import oracle_io

    mxnet.random.seed(0)
    net = vision.get_model(MODEL, classes=10)
    net.initialize(mxnet.init.MSRAPrelu())
    results = {'out': outputs(mxnet, net)}
    models = os.path.abspath('models')   # in the working directory, beside the results
    os.makedirs(models, exist_ok=True)
    net.save_parameters(os.path.join(models, FILE))
    for name, param in net._collect_params_with_prefix().items():
        results['param/' + name] = param.data().asnumpy()
    oracle_io.save_results(results)
