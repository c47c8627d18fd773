"""Three common mistakes and what each raises, and when (MXNet 1.9.1 vs gluonedu).

* ``Trainer(params, 'sgd', {'lr': 0.1})``: a keyword the optimizer does not take;
* ``trainer.step()`` with no ``backward()`` before it: stale gradients;
* a network on one context called on data on another.

gluonedu's messages say what to do (tests/gluon, tests/optimizer check them); the
exception types and the moment they are raised must stay MXNet's. Both sides run
:func:`run` (it imports neither package). As a script, on the oracle's interpreter:
``oracle_main.py advice_errors_driver.py`` writes MXNet's outcomes.
"""
import json

import numpy as np

CASES = ('optimizer keyword', 'stale gradient', 'context mismatch')


def run(mx, case):
    """``[stage, exception type name]`` of the mistake ``case``: the stage that raised
    (``'Trainer()'``, ``'step()'`` or ``'forward'``), or ``[None, None]`` if none did."""
    ctx = mx.cpu(1) if case == 'context mismatch' else mx.cpu(0)
    net = mx.gluon.nn.Dense(2, in_units=3)
    net.initialize(ctx=ctx)
    x = mx.nd.ones((4, 3), ctx=mx.cpu(0))
    params = {'lr': 0.1} if case == 'optimizer keyword' else {'learning_rate': 0.1}
    stage = 'Trainer()'
    try:
        trainer = mx.gluon.Trainer(net.collect_params(), 'sgd', params)
        stage = 'forward'
        with mx.autograd.record():
            loss = net(x).sum()
        if case != 'stale gradient':
            loss.backward()
        stage = 'step()'
        trainer.step(4)
    except Exception as exc:  # the outcome compared: which type, raised where
        return [stage, type(exc).__name__]
    return [None, None]


if __name__ == '__main__':  # the oracle's side, run by oracle_main.py
    import mxnet

    import oracle_io

    results = {case: np.array(json.dumps(run(mxnet, case))) for case in CASES}
    oracle_io.save_results(results)
