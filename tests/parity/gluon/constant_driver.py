"""A Constant in a trained Block, MXNet 1.9.1 vs gluonedu (MXNet's own test_constant).

A Constant has grad_req 'null': ``Trainer.step`` neither updates it nor calls its
gradient stale, asking it for another grad_req warns and keeps 'null'. Both sides run
:func:`run` (it imports neither package). As a script, on the oracle's interpreter:
``oracle_main.py constant_driver.py`` writes MXNet's outcomes.
"""
import json
import warnings

import numpy as np

#: (hybridize, kvstore) of each case.
CASES = {'%s-%s' % ('hybrid' if hybridize else 'imperative', kvstore): (hybridize, kvstore)
         for hybridize in (False, True) for kvstore in ('device', 'None')}


def run(mx, case):
    """What a step over a Block with a Constant gives: the warnings raised (their
    categories), the constant and the input's gradient after the step, and the
    constant's grad_req after asking for 'write'."""
    hybridize, kvstore = CASES[case]

    class WithConstant(mx.gluon.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.const = self.params.get_constant('const', [[1, 2], [3, 4]])

        def hybrid_forward(self, F, x, const):
            return x + const

    block = WithConstant()
    block.initialize()
    if hybridize:
        block.hybridize()
    trainer = mx.gluon.Trainer(block.collect_params(), 'sgd',
                               {'learning_rate': 1.0, 'momentum': 0.5},
                               kvstore=None if kvstore == 'None' else kvstore)
    x = mx.nd.ones((2, 2))
    x.attach_grad()
    with mx.autograd.record():
        y = block(x)
    y.backward()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        try:
            trainer.step(1)
        except Exception as exc:  # an outcome compared like the others
            caught.append(warnings.WarningMessage(exc, type(exc), '', 0))
        block.const.grad_req = 'write'
    return {'warnings': sorted(w.category.__name__ for w in caught),
            'const': block.const.data().asnumpy().tolist(),
            'x_grad': x.grad.asnumpy().tolist(),
            'grad_req': block.const.grad_req}


if __name__ == '__main__':  # the oracle's side, run by oracle_main.py
    import mxnet

    import oracle_io

    results = {case: np.array(json.dumps(run(mxnet, case))) for case in CASES}
    oracle_io.save_results(results)
