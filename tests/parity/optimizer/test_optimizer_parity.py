"""gluonedu's optimizers against MXNet 1.9.1, step by step.

Every case of :mod:`parity_cases` (optimizer x config x variant, plus the row_sparse
cases) runs the same :mod:`parity_driver` code on both sides from the same seeded
inputs; after every step each parameter's weight, then each of its state arrays, must
match MXNet's, with the tolerance of the array's dtype (as MXNet's
``assert_almost_equal``): float32 within rtol 1e-5 / atol 1e-6 (this includes the float32
master copies and states of multi-precision float16 cases), float16 weights within MXNet's
own float16 defaults (test_utils.default_rtols/atols: rtol 1e-2, atol 1e-1).

SGLD's parity runs with the Gaussian noise switched off on both sides (its deterministic
part), and :func:`test_sgld_noise_statistics` checks the noise itself.
"""
import sys
import warnings

import numpy as np
import pytest

import parity_cases
import parity_driver

OPTIMIZER_CASES = parity_cases.optimizer_cases()


def _gluonedu():
    import gluonedu
    return gluonedu


def _require_optimizer(mx, name):
    if name not in mx.optimizer.Optimizer.opt_registry:
        pytest.fail("gluonedu has no optimizer %r registered (mx.optimizer.create(%r) would "
                    "fail); registered: %s"
                    % (name, name, ', '.join(sorted(mx.optimizer.Optimizer.opt_registry))),
                    pytrace=False)


# ------------------------------------------------------------------ SGLD noise switch

def switch_off_sgld_noise(mx, monkeypatch):
    """Make gluonedu's SGLD draw zero noise, wherever its module looks the sampler up.

    Replaces ``gluonedu.ndarray.random.normal`` and every alias of it (``mx.random.normal``,
    names imported into gluonedu.optimizer.sgld) by a sampler returning ``loc``; then checks
    that an SGLD step from zero weight and gradient really stays at zero.
    """
    import gluonedu.ndarray.random as nd_random
    original = nd_random.normal

    def zero_normal(loc=0, scale=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
        if out is not None:
            out[:] = loc
            return out
        return mx.nd.zeros(shape, ctx=ctx, dtype=dtype if dtype is not None else 'float32') + loc

    modules = [nd_random, sys.modules.get('gluonedu.random'),
               sys.modules.get('gluonedu.optimizer.sgld')]
    for module in modules:
        if module is None:
            continue
        for attr, value in list(vars(module).items()):
            if value is original:
                monkeypatch.setattr(module, attr, zero_normal)
    probe = mx.nd.zeros((64,))
    mx.optimizer.create('sgld', learning_rate=1.0).update(0, probe, mx.nd.zeros((64,)), None)
    if np.any(probe.asnumpy() != 0):
        pytest.fail('could not switch off the SGLD noise in gluonedu: gluonedu/optimizer/sgld.py '
                    'does not sample through gluonedu.ndarray.random.normal; adapt '
                    'switch_off_sgld_noise in %s' % __file__, pytrace=False)


# ------------------------------------------------------------------ comparison

def _max_rel_err(ours, theirs):
    ours, theirs = ours.astype(np.float64), theirs.astype(np.float64)
    diff = np.abs(ours - theirs)
    with np.errstate(divide='ignore', invalid='ignore'):
        rel = np.where(diff == 0, 0.0, diff / np.abs(theirs))
    return float(np.nanmax(rel)) if rel.size else 0.0, float(np.nanmax(diff)) if diff.size else 0.0


def _describe(what, case, step, ours, theirs, rtol, atol):
    rel, absolute = _max_rel_err(ours, theirs)
    bad = ~np.isclose(ours.astype(np.float64), theirs.astype(np.float64), rtol=rtol, atol=atol)
    first = tuple(int(i) for i in np.argwhere(bad)[0]) if bad.any() else ()
    return ('%s: %s differs from MXNet 1.9.1 at step %d of %d: max rel err %.3g, max abs err '
            '%.3g (rtol %g, atol %g); %d of %d elements off, first at %s: gluonedu %r, MXNet %r'
            % (case['id'], what, step + 1, case['steps'], rel, absolute, rtol, atol,
               int(bad.sum()), bad.size, first, ours[first].item() if bad.any() else None,
               theirs[first].item() if bad.any() else None))


def assert_parity(oracle, case, ours, theirs):
    nparams = len(case['shapes'])
    for k in range(nparams):
        n_ours, n_theirs = int(ours['nstates/%d' % k]), int(theirs['nstates/%d' % k])
        if n_ours != n_theirs:
            describe = lambda res: [(res['s/%d/%d' % (k, j)].shape[1:], res['s/%d/%d' % (k, j)]
                                     .dtype.name) for j in range(int(res['nstates/%d' % k]))]
            pytest.fail('%s: state layout of param %d differs: MXNet keeps %d arrays %s, '
                        'gluonedu %d %s' % (case['id'], k, n_theirs, describe(theirs), n_ours,
                                            describe(ours)), pytrace=False)
    for step in range(case['steps']):
        for k in range(nparams):
            names = [('w/%d' % k, 'weight of param %d %s' % (k, tuple(case['shapes'][k])))]
            names += [('s/%d/%d' % (k, j), 'state array %d of param %d' % (j, k))
                      for j in range(int(theirs['nstates/%d' % k]))]
            for key, what in names:
                mine, ref = ours[key][step], theirs[key][step]
                if mine.dtype != ref.dtype or mine.shape != ref.shape:
                    pytest.fail('%s: %s is %s %s in gluonedu but %s %s in MXNet'
                                % (case['id'], what, mine.dtype.name, mine.shape,
                                   ref.dtype.name, ref.shape), pytrace=False)
                # As MXNet's assert_almost_equal: the tolerance follows the array's dtype, so
                # float32 master copies and states of float16 cases are held to float32's.
                rtol, atol = oracle.tolerance(ref.dtype)
                if not np.allclose(mine.astype(np.float64), ref.astype(np.float64),
                                   rtol=rtol, atol=atol):
                    pytest.fail(_describe(what, case, step, mine, ref, rtol, atol),
                                pytrace=False)


def run_gluonedu(case, inputs, monkeypatch):
    mx = _gluonedu()
    _require_optimizer(mx, case['optimizer'])
    with warnings.catch_warnings():
        # float16 accumulation / lr-override warnings are part of the contract elsewhere.
        warnings.simplefilter('ignore')
        if case.get('zero_noise'):
            switch_off_sgld_noise(mx, monkeypatch)
        return parity_driver.run_optimizer_case(mx, case, inputs)


@pytest.mark.parametrize('case', OPTIMIZER_CASES, ids=[c['id'] for c in OPTIMIZER_CASES])
def test_optimizer_parity(case, oracle, monkeypatch):
    theirs = oracle.case_arrays(case['id'])
    ours = run_gluonedu(case, oracle.inputs, monkeypatch)
    assert_parity(oracle, case, ours, theirs)


# ------------------------------------------------------------------ documented divergences

def test_dcasgd_momentum_divergence(oracle, monkeypatch):
    """DCASGD with momentum > 0: MXNet 1.9.1 crashes, gluonedu follows the documented formula.

    MXNet's ``DCASGD.update`` tests ``if mom:`` on the momentum NDArray, which raises
    "The truth value of an NDArray with multiple elements is ambiguous" (for one-element
    weights it silently takes the momentum-free branch). gluonedu implements the paper's /
    docstring's rule::

        mom = momentum * mom - lr * (grad + wd * weight + lamda * grad**2 * (weight - prev))
        prev = weight;  weight += mom

    checked here against a float64 NumPy reference.
    """
    case = parity_cases.DCASGD_MOMENTUM_CASE
    err = oracle.errors.get(case['id'])
    assert err is not None, ('MXNet ran DCASGD with momentum > 0 without error: the documented '
                             'divergence is gone; move this case into the parity table')
    assert err['type'] == 'ValueError' and 'truth value' in err['message'], err

    ours = run_gluonedu(case, oracle.inputs, monkeypatch)
    kw = case['kwargs']
    lr, momentum, lamda, wd = kw['learning_rate'], kw['momentum'], kw['lamda'], kw['wd']
    for k in range(len(case['shapes'])):
        weight = oracle.inputs['%s|w|%d' % (case['id'], k)].astype(np.float64)
        grads = oracle.inputs['%s|g|%d' % (case['id'], k)].astype(np.float64)
        mom, previous = np.zeros_like(weight), weight.copy()
        for step in range(case['steps']):
            g = grads[step]
            mom = momentum * mom - lr * (g + wd * weight + lamda * g * g * (weight - previous))
            previous = weight.copy()
            weight = weight + mom
            np.testing.assert_allclose(
                ours['w/%d' % k][step], weight, rtol=1e-5, atol=1e-6,
                err_msg='DCASGD momentum=%g, param %d, step %d vs the documented formula'
                        % (momentum, k, step + 1))
            assert int(ours['nstates/%d' % k]) == 2, 'state must be (momentum, previous_weight)'
            np.testing.assert_allclose(ours['s/%d/0' % k][step], mom, rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose(ours['s/%d/1' % k][step], previous, rtol=1e-5, atol=1e-6)


# ------------------------------------------------------------------ SGLD noise

def test_sgld_noise_statistics():
    """SGLD adds N(0, lr) noise to the deterministic step ``-lr/2 (grad + wd weight)``.

    Over 200k independent coordinates: the noise has mean 0 (the weights average to the
    deterministic update), variance lr, a normal's 1-sigma mass, and is reproducible
    under mx.random.seed (and changes with the seed).
    """
    mx = _gluonedu()
    _require_optimizer(mx, 'sgld')
    n, lr, wd = 200_000, 0.01, 0.1
    rng = np.random.default_rng(7)
    weight0 = rng.standard_normal(n).astype(np.float32)
    grad = rng.standard_normal(n).astype(np.float32)

    def one_step(seed):
        mx.random.seed(seed)
        opt = mx.optimizer.create('sgld', learning_rate=lr, wd=wd)
        weight = mx.nd.array(weight0)
        opt.update(0, weight, mx.nd.array(grad), opt.create_state(0, weight))
        return weight.asnumpy().astype(np.float64)

    deterministic = weight0.astype(np.float64) - lr / 2 * (grad + wd * weight0.astype(np.float64))
    noise = one_step(42) - deterministic
    sigma = np.sqrt(lr)
    assert abs(noise.mean()) < 5 * sigma / np.sqrt(n), noise.mean()
    assert abs(noise.var() / lr - 1) < 5 * np.sqrt(2 / n), noise.var()
    within = np.mean(np.abs(noise) < sigma)
    assert abs(within - 0.682689) < 5 * np.sqrt(0.6827 * 0.3173 / n), within
    np.testing.assert_array_equal(one_step(42), one_step(42))
    assert not np.array_equal(one_step(42), one_step(43))


def test_signum_wd_lh_divergence(oracle, monkeypatch):
    """signSGD (Signum, momentum=0) with wd_lh != 0: MXNet 1.9.1 crashes, gluonedu decays.

    MXNet passes ``wd_lh`` to ``signsgd_update``, which has no such argument
    (``MXNetError: Cannot find argument 'wd_lh'``). gluonedu applies both decoupled decays
    outside the sign (docs/divergences.md)::

        weight = (1 - lr * (wd + wd_lh)) * weight - lr * sign(clip(rescale_grad * grad))
    """
    case = parity_cases.SIGNUM_WD_LH_CASE
    err = oracle.errors.get(case['id'])
    assert err is not None, ('MXNet ran signSGD with wd_lh without error: the documented '
                             'divergence is gone; move this case into the parity table')
    assert "wd_lh" in err['message'], err

    ours = run_gluonedu(case, oracle.inputs, monkeypatch)
    kw = case['kwargs']
    lr, wd, wd_lh = kw['learning_rate'], kw['wd'], kw['wd_lh']
    for k in range(len(case['shapes'])):
        weight = oracle.inputs['%s|w|%d' % (case['id'], k)].astype(np.float64)
        grads = oracle.inputs['%s|g|%d' % (case['id'], k)].astype(np.float64)
        for step in range(case['steps']):
            scaled = np.clip(kw['rescale_grad'] * grads[step], -kw['clip_gradient'],
                             kw['clip_gradient'])
            weight = (1 - lr * (wd + wd_lh)) * weight - lr * np.sign(scaled)
            np.testing.assert_allclose(
                ours['w/%d' % k][step], weight, rtol=1e-5, atol=1e-6,
                err_msg='signSGD wd_lh, param %d, step %d vs the documented formula'
                        % (k, step + 1))
        assert int(ours['nstates/%d' % k]) == 0, 'signSGD keeps no state'
