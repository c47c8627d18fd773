"""NaN and ±Inf in gradients: what clip_global_norm and a Trainer step do with them
(MXNet 1.9.1 vs gluonedu).

Both sides run :func:`run` (it imports neither package). Each case returns
``{name: array}``: the arrays after the call, its return value, and the categories of
the warnings it gave (``'warnings'``, a JSON list). As a script, on the oracle's
interpreter: ``oracle_main.py nonfinite_driver.py`` writes MXNet's outcomes.
"""
import json
import warnings

import numpy as np

#: clip_global_norm cases: (first array, check_isfinite); the second array is [30, 40].
CLIPS = {'clip finite': ([3., 4.], True),
         'clip nan': ([np.nan, 1.], True),
         'clip inf': ([np.inf, 1.], True),
         'clip -inf unchecked': ([-np.inf, 1.], False),
         'clip nan unchecked': ([np.nan, 1.], False)}
CASES = tuple(CLIPS) + ('trainer step',)


def _clip(mx, first, check_isfinite):
    a, b = mx.nd.array(first), mx.nd.array([30., 40.])
    total = mx.gluon.utils.clip_global_norm([a, b], 1.0, check_isfinite=check_isfinite)
    total = total if check_isfinite else total.asnumpy()[0]
    return {'a': a.asnumpy(), 'b': b.asnumpy(), 'total': np.array(total, dtype=np.float64)}


def _trainer_step(mx):
    """Two SGD-momentum steps on a Dense layer, a NaN in one entry of the first step's
    weight gradient: the weights after each step."""
    net = mx.gluon.nn.Dense(2, in_units=3)
    net.initialize()
    net.weight.set_data(mx.nd.array([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]]))
    net.bias.set_data(mx.nd.array([0.01, -0.02]))
    trainer = mx.gluon.Trainer(net.collect_params(), 'sgd',
                               {'learning_rate': 0.1, 'momentum': 0.9})
    x = mx.nd.array([[1., 2., 3.], [-1., 0.5, 2.]])
    out = {}
    for step in (1, 2):
        with mx.autograd.record():
            loss = (net(x) ** 2).sum()
        loss.backward()
        if step == 1:
            net.weight.grad()[0, 1] = np.nan
        trainer.step(2)
        out['weight%d' % step] = net.weight.data().asnumpy()
        out['bias%d' % step] = net.bias.data().asnumpy()
    return out


def run(mx, case):
    """The outcome of ``case`` on the MXNet-like module ``mx``."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter('always')
        if case in CLIPS:
            out = _clip(mx, *CLIPS[case])
        else:
            out = _trainer_step(mx)
    # NumPy's own floating-point warnings (MXNet has none: its kernels are C++) are not
    # part of the outcome
    out['warnings'] = np.array(json.dumps(sorted(
        w.category.__name__ for w in seen if not str(w.message).startswith(
            ('invalid value encountered', 'overflow encountered')))))
    return out


if __name__ == '__main__':  # the oracle's side, run by oracle_main.py
    import mxnet

    import oracle_io

    results = {}
    for case in CASES:
        for name, value in run(mxnet, case).items():
            results['%s/%s' % (case, name)] = value
    oracle_io.save_results(results)
