"""NumPy shape semantics (mx.np_shape and friends), MXNet 1.9.1 vs gluonedu.

MXNet's own test_np_shape_parameters (a Block with a Dense(16) initialized and run inside
``mx.np_shape(True)``), then the switch itself: Parameter shapes and shape_is_known
inside and outside the scope, as context manager and decorator, nested, per thread, and
the errors on bad input. Both sides run :func:`run` (it imports neither package). As a
script, on the oracle's interpreter: ``oracle_main.py np_shape_driver.py`` writes MXNet's
outcomes.
"""
import json
import threading

import numpy as np


def _shape(shape):
    return None if shape is None else list(shape)


def _outcome(call):
    """What ``call()`` gives: its value, or the name of the exception it raises."""
    try:
        return {'value': call()}
    except Exception as exc:  # an outcome compared like the others
        return {'raises': type(exc).__name__}


def mxnet_test_np_shape_parameters(mx):
    """MXNet's test: deferred initialization inside the scope."""
    class Foo(mx.gluon.Block):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.dense = mx.gluon.nn.Dense(16)

        def forward(self, x):
            return self.dense(x)

    with mx.np_shape(True):
        z = mx.nd.zeros((2, 2016))
        foo = Foo()
        before = _shape(foo.dense.weight.shape)
        foo.initialize()
        out = foo(z)
        inside = _shape(foo.dense.weight.shape)
    return {'z': _shape(z.shape), 'before': before, 'out': _shape(out.shape),
            'weight_inside': inside, 'weight_outside': _shape(foo.dense.weight.shape)}


def scopes(mx):
    """The switch and a deferred Parameter's shape through nested scopes."""
    dense = mx.gluon.nn.Dense(16)
    seen = []

    def look(where):
        seen.append([where, mx.is_np_shape(), _shape(dense.weight.shape)])

    look('outside')
    with mx.np_shape():
        look('inside')
        with mx.np_shape(False):
            look('nested off')
            with mx.np_shape(True):
                look('nested on again')
            look('back to off')
        with mx.np_shape(None):
            look('None scope')
        look('back inside')
    look('after')
    return seen


def conv_and_batchnorm(mx):
    """Deferred shapes of a small convolutional net, before and after its first batch in
    the scope. (Built outside it: MXNet's Conv2D cannot be made inside, its weight-shape
    inference reads the unknown 0 as a size; see docs/divergences.md.)"""
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Conv2D(4, 3), mx.gluon.nn.BatchNorm(), mx.gluon.nn.Dense(3))
    with mx.np_shape():
        net.initialize()
        before = [_shape(p.shape) for p in net.collect_params().values()]
        out = net(mx.nd.ones((2, 3, 6, 6)))
        after = [_shape(p.shape) for p in net.collect_params().values()]
    return {'before': before, 'after': after, 'out': _shape(out.shape)}


def decorators(mx):
    """use_np_shape on a function and on a class (method, property, static method)."""
    @mx.use_np_shape
    def weight_shape(units):
        return mx.is_np_shape(), _shape(mx.gluon.nn.Dense(units).weight.shape)

    @mx.use_np_shape
    class Probe:
        def method(self):
            return mx.is_np_shape()

        @property
        def prop(self):
            return mx.is_np_shape()

        @staticmethod
        def static():
            return mx.is_np_shape()

    probe = Probe()
    return {'function': weight_shape(8), 'name': weight_shape.__name__,
            'method': probe.method(), 'property': probe.prop, 'static': Probe.static(),
            'after': mx.is_np_shape()}


def set_values(mx):
    """set_np_shape's return value and the state after each value, from off."""
    rows = []
    for value in (True, False, 1, 2, 0, -1, 3):
        mx.set_np_shape(False)
        previous = mx.set_np_shape(value)
        rows.append([repr(value), previous, mx.is_np_shape()])
    mx.set_np_shape(False)
    return rows


def threads(mx):
    """1 turns the switch on for the calling thread only, 2 for every thread."""
    def elsewhere():
        seen = []
        thread = threading.Thread(target=lambda: seen.append(mx.is_np_shape()))
        thread.start()
        thread.join()
        return seen[0]

    rows = []
    for value in (1, 2):
        mx.set_np_shape(value)
        rows.append([value, mx.is_np_shape(), elsewhere()])
        mx.set_np_shape(False)
        rows.append([0, mx.is_np_shape(), elsewhere()])
    return rows


def shape_is_known(mx):
    """gluon.utils.shape_is_known in both semantics (-1 and 0 swap roles)."""
    known = mx.gluon.utils.shape_is_known
    shapes = [(3, 0), (3, -1), (), None, (2, 3), (3, -2)]
    rows = {}
    for active in (False, True):
        with mx.np_shape(active):
            rows[str(active)] = [_outcome(lambda s=s: known(s)) for s in shapes]
    return rows


def errors(mx):
    """What bad input raises."""
    def enter(scope):
        with scope:
            pass
    return {'set ' + repr(bad): _outcome(lambda bad=bad: mx.set_np_shape(bad))
            for bad in ('on', None, 1.5)} | {
        'use_np_shape(3)': _outcome(lambda: mx.use_np_shape(3)),
        "np_shape('on')": _outcome(lambda: enter(mx.np_shape('on'))),
        'state after': mx.is_np_shape()}


CASES = {case.__name__: case for case in (mxnet_test_np_shape_parameters, scopes,
                                          conv_and_batchnorm, decorators, set_values,
                                          threads, shape_is_known, errors)}


def run(mx, case):
    """The outcome of one case; the switch is off again afterwards."""
    try:
        return CASES[case](mx)
    finally:
        mx.set_np_shape(False)


if __name__ == '__main__':  # the oracle's side, run by oracle_main.py
    import mxnet

    import oracle_io

    results = {case: np.array(json.dumps(run(mxnet, case))) for case in CASES}
    oracle_io.save_results(results)
