"""The rule-to-CUDA translator beyond what the optimizers' rules use today: every construct
it accepts computes, compiled as C on the CPU, what the Python rule computes; what it
does not accept is refused naming the line. (The optimizers' own kernels:
test_cuda_kernels_compile.py.)"""
import ctypes
import shutil
import subprocess
import types

import numpy as np
import pytest

from gluonedu.optimizer._fused.cuda_source import TranslationError, cuda_source
from gluonedu.optimizer.kernels import clipped


def _branchy(weight, grad, bound):
    """Branches, NaN-propagating NumPy functions, Python's min/max, bools as numbers."""
    if not grad > bound and grad > -bound:
        step = np.maximum(grad, weight)
    elif grad != grad or bound < 0:
        step = np.minimum(grad, weight) + abs(weight)
    else:
        step = clipped(grad, bound) if weight >= 0 else max(grad, weight) - min(grad, bound)
    step += np.sign(step) * (np.abs(weight) <= bound)
    return weight - step, grad


def _transcendental(weight, grad, bound):
    """CUDA's expf, logf and tanhf: within 2 ulp of NumPy's, not always equal."""
    return np.exp(grad), np.log(bound), np.tanh(weight)


def _kernel(rule, writes):
    """What cuda_source reads of a Kernel (a real Kernel would be registered for good)."""
    import inspect
    return types.SimpleNamespace(rule=rule, writes=writes,
                                 parameters=tuple(inspect.signature(rule).parameters))


def _run_on_the_cpu(kernel, inputs, tmp_path):
    """Every argument an array; the rule applied element by element, compiled by g++."""
    compiler = shutil.which('g++') or shutil.which('c++')
    if compiler is None:
        pytest.skip('no C++ compiler: the translated rules are not run on the CPU')
    preamble, _ = cuda_source(kernel)
    arguments = ', '.join(['const float* %s' % p for p in kernel.parameters] +
                          ['float* out_%s' % w for w in kernel.writes])
    call = ', '.join(['%s[i]' % p for p in kernel.parameters] +
                     ['out_%s[i]' % w for w in kernel.writes])
    source = tmp_path / 'rule.cpp'
    source.write_text('#include <cmath>\n#define __device__\n%s\nextern "C" void run(int n, %s) '
                      '{ for (int i = 0; i < n; ++i) %s(%s); }\n'
                      % (preamble, arguments, kernel.rule.__name__, call))
    built = subprocess.run([compiler, '-O1', '-ffp-contract=off', '-shared', '-fPIC', '-o',
                            str(tmp_path / 'rule.so'), str(source)], capture_output=True,
                           text=True)
    assert built.returncode == 0, built.stderr[-5000:]
    outputs = [np.empty_like(inputs[0]) for _ in kernel.writes]
    pointer = lambda a: a.ctypes.data_as(ctypes.c_void_p)   # noqa: E731
    ctypes.CDLL(str(tmp_path / 'rule.so')).run(
        ctypes.c_int(inputs[0].size), *[pointer(a) for a in list(inputs) + outputs])
    return outputs


def _by_the_rule(rule, inputs):
    with np.errstate(all='ignore'):
        rows = [rule(*values) for values in zip(*inputs)]
    return [np.array(column, dtype=np.float32) for column in zip(*rows)]


def _inputs(rng, n=200):
    weight, grad = rng.uniform(-2, 2, (2, n)).astype(np.float32)
    bound = rng.uniform(-0.5, 1.5, n).astype(np.float32)
    grad[:5] = [np.nan, np.inf, -np.inf, 0, -0.0]
    weight[5:8] = [np.nan, 0, -0.0]
    return weight, grad, bound


def test_branches_and_numpy_functions_equal_the_rule_bit_for_bit(tmp_path):
    kernel = _kernel(_branchy, ('weight', 'grad'))
    inputs = _inputs(np.random.default_rng(0))
    for got, want in zip(_run_on_the_cpu(kernel, inputs, tmp_path),
                         _by_the_rule(_branchy, inputs)):
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


def test_exp_log_tanh_are_within_two_ulp(tmp_path):
    kernel = _kernel(_transcendental, ('weight', 'grad', 'bound'))
    rng = np.random.default_rng(1)
    weight, grad = rng.uniform(-3, 3, (2, 500)).astype(np.float32)
    inputs = (weight, grad, rng.uniform(0.01, 10, 500).astype(np.float32))
    for got, want in zip(_run_on_the_cpu(kernel, inputs, tmp_path),
                         _by_the_rule(_transcendental, inputs)):
        np.testing.assert_array_max_ulp(got, want, maxulp=2)


def _with_literal(weight, grad):
    return weight - 1 * grad, grad


def _with_loop(weight, grad):
    for _ in range(2):
        weight = weight - grad
    return weight


def _too_few(weight, grad):
    return weight


def _unknown_function(weight, grad):
    return np.cbrt(grad), weight


@pytest.mark.parametrize('rule,message', [
    (_with_literal, 'numbers appear only in comparisons'),
    (_with_loop, 'For statements are not translated'),
    (_too_few, 'returns 1 values for the 2 written arrays'),
    (_unknown_function, 'np.cbrt is not translated'),
])
def test_python_outside_the_subset_is_refused_naming_the_line(rule, message):
    with pytest.raises(TranslationError, match=message) as error:
        cuda_source(_kernel(rule, ('weight', 'grad')))
    assert '%s, line %d' % (rule.__name__, rule.__code__.co_firstlineno + 1) in str(error.value)
