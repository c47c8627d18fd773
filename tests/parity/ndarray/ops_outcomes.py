"""Whether gluonedu's outcome of an operator call is MXNet 1.9.1's (the operator parity
suites' one comparison, for hand-written and generated cases alike).

An outcome is :func:`ops_driver.run_case`'s; MXNet's is the oracle's meta (``status``
'ok', 'error' with its ``type``, or 'crash') and its arrays. Where MXNet returns, gluonedu
must return arrays of the same names, shapes and dtypes and equal values (floats within
:data:`TOLERANCES`, NaN where MXNet has NaN); where MXNet raises, gluonedu must raise the
same class — MXNet's ``AssertionError`` for a non-NDArray argument (an ``assert`` in its
generated functions) is gluonedu's ``TypeError``; in a scenario of several steps
(``ParameterDict.load``'s checks) an ``AssertionError`` is one on both sides.
"""
import numpy as np

#: MXNet's error class -> gluonedu's, where they differ by design.
SAME_ERROR = {'AssertionError': 'TypeError'}
TOLERANCES = {'float16': (1e-2, 1e-2), 'float32': (1e-5, 1e-6), 'float64': (1e-10, 1e-12)}


def describe(outcome):
    if outcome[0] == 'ok':
        return 'a result'
    return '%s: %s' % (outcome[1], outcome[2])


def expected_error(theirs, case):
    if 'scenario' in case:
        return theirs['type']
    return SAME_ERROR.get(theirs['type'], theirs['type'])


def mismatch(case, ours, theirs, expected, tol=None):
    """None if ``ours`` is MXNet's outcome (``theirs``, its arrays ``expected``), else
    what differs. A crash of MXNet's is the caller's to handle."""
    cid = case['id']
    if theirs['status'] == 'error':
        if ours[0] != 'error':
            return '%s: MXNet raises %s (%s), gluonedu returns a result' % (
                cid, theirs['type'], theirs['message'])
        if ours[1] != expected_error(theirs, case):
            return '%s: MXNet raises %s (%s), gluonedu %s' % (
                cid, theirs['type'], theirs['message'], describe(ours))
        return None
    if ours[0] != 'ok':
        return '%s: MXNet returns a result, gluonedu raises %s' % (cid, describe(ours))
    if sorted(ours[1]) != sorted(expected):
        return '%s: outputs %s, MXNet %s' % (cid, sorted(ours[1]), sorted(expected))
    if case.get('compare') == 'stats':
        return _stats_mismatch(case, ours[1], expected)
    for name, theirs_array in sorted(expected.items()):
        problem = _array_mismatch(name, np.asarray(ours[1][name]), theirs_array, cid,
                                  tol or case.get('tol'))
        if problem:
            return problem
    return None


def _array_mismatch(name, ours, theirs, cid, tol):
    if ours.shape != theirs.shape:
        return '%s %s: shape %s, MXNet %s' % (cid, name, ours.shape, theirs.shape)
    if ours.dtype != theirs.dtype:
        return '%s %s: dtype %s, MXNet %s' % (cid, name, ours.dtype, theirs.dtype)
    try:
        if ours.dtype.kind == 'f':
            rtol, atol = tol or TOLERANCES[ours.dtype.name]
            np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=atol, equal_nan=True)
        else:
            np.testing.assert_array_equal(ours, theirs)
    except AssertionError as exc:
        return '%s %s differs from MXNet 1.9.1:%s' % (cid, name, str(exc)[:600])
    return None


def _stats_mismatch(case, ours, theirs):
    """Samplers: shapes and dtypes exactly; mean and std within the case's tolerance."""
    rtol, atol = case['tol']
    for name, expected in theirs.items():
        got = np.asarray(ours[name])
        if name.endswith(('.shape', '.dtype')):
            if got.tolist() != expected.tolist():
                return '%s %s: %s, MXNet %s' % (case['id'], name, got.tolist(),
                                                expected.tolist())
        elif name.endswith(('.mean', '.std')):
            if abs(float(got) - float(expected)) > atol + rtol * abs(float(expected)):
                return '%s %s: %.4f, MXNet %.4f' % (case['id'], name, float(got),
                                                    float(expected))
    return None
