"""Parity cases of the optimizer update operators and the mixed-precision helpers
(``sgd_update`` ... ``multi_lars``, ``all_finite``, ``amp_cast``, ...).

The update cases compare, bit for bit (``tol=(0, 0)``), the result and every array the
call updates in place (``mutates``: the states, ``weight32``, the weight given as
``out``). This module imports neither mxnet nor gluonedu (the oracle imports it too).
"""
import numpy as np

from ops_cases import case, nd, tup

EXACT = (0, 0)


def kernel_inputs():
    """The named host arrays of these cases (seeded)."""
    rng = np.random.RandomState(11)
    f32 = np.float32

    def normal(*shape):
        return rng.randn(*shape).astype(f32)

    def positive(*shape):
        return rng.uniform(0.1, 2.0, shape).astype(f32)

    weight16 = normal(4, 3).astype(np.float16)
    return {
        'k_w': normal(4, 3), 'k_g': normal(4, 3), 'k_m': normal(4, 3),
        'k_m2': normal(4, 3), 'k_pos': positive(4, 3), 'k_pos2': positive(4, 3),
        'k_w2': normal(5), 'k_g2': normal(5), 'k_m3': normal(5),
        'k_w16': weight16, 'k_g16': normal(4, 3).astype(np.float16),
        'k_w32': weight16.astype(f32), 'k_w64': normal(4, 3).astype(np.float64),
        'k_g64': normal(4, 3).astype(np.float64), 'k_bad_shape': normal(3, 3),
        'k_r1': np.array([2.5], dtype=f32), 'k_r2': np.array([0.5], dtype=f32),
        'k_zero1': np.zeros(1, dtype=f32),
        'k_lrs': np.array([0.1, 0.05], dtype=f32), 'k_wds': np.array([0.01, 0.0], dtype=f32),
        'k_sq': np.array([4.0, 0.0, 9.0], dtype=f32), 'k_gsq': np.array([1.0, 1.0, 0.0],
                                                                        dtype=f32),
        'k_lrs3': np.array([0.1, 0.2, 0.3], dtype=f32),
        'k_wds3': np.array([0.01, 0.01, 0.0], dtype=f32),
        'k_inf': np.array([1.0, np.inf, 2.0], dtype=f32),
        'k_nan': np.array([1.0, np.nan], dtype=f32),
        'k_i32': np.array([1, 2], dtype=np.int32),
        'k_sparse': np.array([[1, 0, 2], [0, 0, 0], [3, 4, 0]], dtype=f32),
        'k_label': np.array([[0.5, 0, 1], [0, 1, 0], [1, 1, 1]], dtype=f32),
        'k_label_flat': np.array([0.5, 0, 1, 0], dtype=f32),
        'k_ids': np.array([0, 2, 3], dtype=f32),
        'k_fc_w': normal(2, 3), 'k_col': normal(4, 1),
    }


def update(case_id, call, *args, **kwargs):
    """An update call whose result and updated arguments must equal MXNet's exactly."""
    out = case(case_id, call, *args, tol=EXACT, **kwargs)
    out['mutates'] = True
    return out


W, G, M, M2 = nd('k_w'), nd('k_g'), nd('k_m'), nd('k_m2')
POS, POS2 = nd('k_pos'), nd('k_pos2')
IN_PLACE = {'arg': 0}


def _rows(name, *rows):
    return {'row_sparse': name, 'rows': list(rows)}


def sgd_cases():
    return [
        update('sgd_update/plain', 'sgd_update', W, G, lr=0.1),
        update('sgd_update/all-options', 'sgd_update', W, G, lr=0.1, wd=0.01,
               rescale_grad=0.5, clip_gradient=0.3),
        update('sgd_update/out-weight', 'sgd_update', W, G, lr=0.1, wd=0.1, out=IN_PLACE),
        update('sgd_update/clip-zero-is-off', 'sgd_update', W, G, lr=0.1, clip_gradient=0),
        update('sgd_update/float16', 'sgd_update', nd('k_w16'), nd('k_g16'), lr=0.1, wd=0.01),
        update('sgd_update/float64', 'sgd_update', nd('k_w64'), nd('k_g64'), lr=0.1, wd=0.01),
        update('sgd_update/lazy-rows', 'sgd_update', W, _rows('k_g', 1, 3), lr=0.1, wd=0.1,
               out=IN_PLACE),
        update('sgd_update/not-lazy', 'sgd_update', W, _rows('k_g', 1, 3), lr=0.1, wd=0.1,
               lazy_update=False, out=IN_PLACE),
        update('sgd_update/no-lr', 'sgd_update', W, G),
        update('sgd_update/mixed-dtypes', 'sgd_update', W, nd('k_g16'), lr=0.1),
        update('sgd_update/shape-mismatch', 'sgd_update', W, nd('k_bad_shape'), lr=0.1),
        update('sgd_update/bad-lr', 'sgd_update', W, G, lr='fast'),
        update('sgd_update/int-weight', 'sgd_update', nd('k_i32'), nd('k_i32'), lr=0.1),
        update('sgd_mom_update/plain', 'sgd_mom_update', W, G, M, lr=0.1, momentum=0.9),
        update('sgd_mom_update/all-options', 'sgd_mom_update', W, G, M, lr=0.1, momentum=0.9,
               wd=0.01, rescale_grad=2.0, clip_gradient=0.5, out=IN_PLACE),
        update('sgd_mom_update/no-momentum', 'sgd_mom_update', W, G, M, lr=0.1),
        update('sgd_mom_update/lazy-rows', 'sgd_mom_update', W, _rows('k_g', 0, 2), M,
               lr=0.1, momentum=0.9, wd=0.1, out=IN_PLACE),
        update('sgd_mom_update/not-lazy', 'sgd_mom_update', W, _rows('k_g', 0, 2), M,
               lr=0.1, momentum=0.9, wd=0.1, lazy_update=False, out=IN_PLACE),
        update('sgd_mom_update/no-rows', 'sgd_mom_update', W, _rows('k_g'), M, lr=0.1,
               momentum=0.9, wd=0.1, out=IN_PLACE),
        update('mp_sgd_update/plain', 'mp_sgd_update', nd('k_w16'), nd('k_g16'),
               nd('k_w32'), lr=0.1, wd=0.01, out=IN_PLACE),
        update('mp_sgd_update/clip', 'mp_sgd_update', nd('k_w16'), nd('k_g16'),
               nd('k_w32'), lr=0.1, rescale_grad=0.5, clip_gradient=0.2),
        update('mp_sgd_mom_update/plain', 'mp_sgd_mom_update', nd('k_w16'), nd('k_g16'), M,
               nd('k_w32'), lr=0.1, momentum=0.9, wd=0.01, out=IN_PLACE),
        update('mp_sgd_mom_update/float16-master', 'mp_sgd_mom_update', nd('k_w16'),
               nd('k_g16'), M, nd('k_w16'), lr=0.1, momentum=0.9),
        update('nag_mom_update/in-place', 'nag_mom_update', W, G, M, lr=0.1, momentum=0.9,
               wd=0.01, out=IN_PLACE),
        update('nag_mom_update/clip', 'nag_mom_update', W, G, M, lr=0.1, momentum=0.9,
               rescale_grad=0.5, clip_gradient=0.2, out=IN_PLACE),
        update('nag_mom_update/new-array', 'nag_mom_update', W, G, M, lr=0.1, momentum=0.9,
               wd=0.5),
        update('mp_nag_mom_update/plain', 'mp_nag_mom_update', nd('k_w16'), nd('k_g16'), M,
               nd('k_w32'), lr=0.1, momentum=0.9, wd=0.01),
    ]


def adaptive_cases():
    return [
        update('adam_update/plain', 'adam_update', W, G, M, POS, lr=0.01),
        update('adam_update/all-options', 'adam_update', W, G, M, POS, lr=0.01, beta1=0.8,
               beta2=0.99, epsilon=1e-6, wd=0.01, rescale_grad=0.5, clip_gradient=0.3,
               out=IN_PLACE),
        update('adam_update/lazy-rows', 'adam_update', W, _rows('k_g', 1, 2), M, POS,
               lr=0.01, wd=0.1, out=IN_PLACE),
        update('adam_update/not-lazy', 'adam_update', W, _rows('k_g', 1, 2), M, POS, lr=0.01,
               wd=0.1, lazy_update=False, out=IN_PLACE),
        update('adam_update/float16', 'adam_update', nd('k_w16'), nd('k_g16'),
               nd('k_g16'), nd('k_g16'), lr=0.01),
        update('adam_update/missing-var', 'adam_update', W, G, M, lr=0.01),
        update('rmsprop_update/plain', 'rmsprop_update', W, G, POS, lr=0.01),
        update('rmsprop_update/all-options', 'rmsprop_update', W, G, POS, lr=0.01,
               gamma1=0.9, epsilon=1e-6, wd=0.01, rescale_grad=0.5, clip_gradient=0.3,
               clip_weights=0.5, out=IN_PLACE),
        update('rmspropalex_update/plain', 'rmspropalex_update', W, G, POS, M, M2, lr=0.01),
        update('rmspropalex_update/all-options', 'rmspropalex_update', W, G, POS, M, M2,
               lr=0.01, gamma1=0.9, gamma2=0.8, epsilon=1e-6, wd=0.01, rescale_grad=0.5,
               clip_gradient=0.3, clip_weights=0.5, out=IN_PLACE),
        update('ftrl_update/plain', 'ftrl_update', W, G, M, POS, lr=0.1),
        update('ftrl_update/all-options', 'ftrl_update', W, G, M, POS, lr=0.1, lamda1=0.5,
               beta=2.0, wd=0.01, rescale_grad=0.5, clip_gradient=0.3, out=IN_PLACE),
        update('ftml_update/t1', 'ftml_update', W, G, POS, POS2, M, lr=0.01, t=1),
        update('ftml_update/all-options', 'ftml_update', W, G, POS, POS2, M, lr=0.01, t=3,
               beta1=0.5, beta2=0.99, epsilon=1e-6, wd=0.01, rescale_grad=0.5,
               clip_grad=0.3, out=IN_PLACE),
        update('ftml_update/no-t', 'ftml_update', W, G, POS, POS2, M, lr=0.01),
        update('signsgd_update/plain', 'signsgd_update', W, G, lr=0.1, wd=0.01),
        update('signsgd_update/clip', 'signsgd_update', W, G, lr=0.1, rescale_grad=0.5,
               clip_gradient=0.1, out=IN_PLACE),
        update('signum_update/plain', 'signum_update', W, G, M, lr=0.1, momentum=0.9),
        update('signum_update/all-options', 'signum_update', W, G, M, lr=0.1, momentum=0.9,
               wd=0.01, rescale_grad=0.5, clip_gradient=0.1, wd_lh=0.05, out=IN_PLACE),
    ]


def lamb_cases():
    return [
        update('lamb_update_phase1/plain', 'lamb_update_phase1', W, G, M, POS, t=1, wd=0.01),
        update('lamb_update_phase1/all-options', 'lamb_update_phase1', W, G, M, POS, t=4,
               wd=0.01, beta1=0.8, beta2=0.99, epsilon=1e-4, rescale_grad=0.5,
               clip_gradient=0.3),
        update('lamb_update_phase1/no-bias-correction', 'lamb_update_phase1', W, G, M, POS,
               t=2, wd=0.0, bias_correction=False),
        update('lamb_update_phase1/no-wd', 'lamb_update_phase1', W, G, M, POS, t=1),
        update('lamb_update_phase2/plain', 'lamb_update_phase2', W, G, nd('k_r1'),
               nd('k_r2'), lr=0.01),
        update('lamb_update_phase2/bounds', 'lamb_update_phase2', W, G, nd('k_r1'),
               nd('k_r2'), lr=0.01, lower_bound=3.0, upper_bound=10.0, out=IN_PLACE),
        update('lamb_update_phase2/upper', 'lamb_update_phase2', W, G, nd('k_r1'),
               nd('k_r2'), lr=0.01, upper_bound=1.0),
        update('lamb_update_phase2/zero-norm', 'lamb_update_phase2', W, G, nd('k_r1'),
               nd('k_zero1'), lr=0.01),
        update('mp_lamb_update_phase1/plain', 'mp_lamb_update_phase1', nd('k_w16'),
               nd('k_g16'), M, POS, nd('k_w32'), t=2, wd=0.01),
        update('mp_lamb_update_phase2/plain', 'mp_lamb_update_phase2', nd('k_w16'), G,
               nd('k_r1'), nd('k_r2'), nd('k_w32'), lr=0.01, out=IN_PLACE),
        update('mp_lamb_update_phase2/float16-direction', 'mp_lamb_update_phase2',
               nd('k_w16'), nd('k_g16'), nd('k_r1'), nd('k_r2'), nd('k_w32'), lr=0.01),
    ]


def multi_cases():
    w2, g2, m3 = nd('k_w2'), nd('k_g2'), nd('k_m3')
    two = {'list': [{'arg': 0}, {'arg': 2}]}
    return [
        update('multi_sgd_update/two', 'multi_sgd_update', W, G, w2, g2, lrs=tup(0.1, 0.05),
               wds=tup(0.01, 0.0), num_weights=2, out=two),
        update('multi_sgd_update/clip', 'multi_sgd_update', W, G, lrs=(0.1,), wds=(0.01,),
               rescale_grad=0.5, clip_gradient=0.2, out={'list': [{'arg': 0}]}),
        update('multi_sgd_update/wds-count', 'multi_sgd_update', W, G, lrs=(0.1,),
               wds=tup(0.0, 0.0), num_weights=1, out={'list': [{'arg': 0}]}),
        update('multi_sgd_update/inputs-count', 'multi_sgd_update', W, G, lrs=(0.1,),
               wds=(0.0,), num_weights=2, out={'list': [{'arg': 0}]}),
        update('multi_sgd_mom_update/two', 'multi_sgd_mom_update', W, G, M, w2, g2, m3,
               lrs=tup(0.1, 0.05), wds=tup(0.01, 0.0), momentum=0.9, num_weights=2,
               out={'list': [{'arg': 0}, {'arg': 3}]}),
        update('multi_mp_sgd_update/one', 'multi_mp_sgd_update', nd('k_w16'), nd('k_g16'),
               nd('k_w32'), lrs=(0.1,), wds=(0.01,), out={'list': [{'arg': 0}]}),
        update('multi_mp_sgd_mom_update/one', 'multi_mp_sgd_mom_update', nd('k_w16'),
               nd('k_g16'), M, nd('k_w32'), lrs=(0.1,), wds=(0.01,), momentum=0.9,
               out={'list': [{'arg': 0}]}),
        update('preloaded_multi_sgd_update/two', 'preloaded_multi_sgd_update', W, G, w2, g2,
               nd('k_lrs'), nd('k_wds'), num_weights=2, out=two),
        update('preloaded_multi_sgd_mom_update/two', 'preloaded_multi_sgd_mom_update', W, G,
               M, w2, g2, m3, nd('k_lrs'), nd('k_wds'), momentum=0.9, num_weights=2,
               out={'list': [{'arg': 0}, {'arg': 3}]}),
        update('preloaded_multi_mp_sgd_update/one', 'preloaded_multi_mp_sgd_update',
               nd('k_w16'), nd('k_g16'), nd('k_w32'), nd('k_lrs', ), nd('k_wds'),
               out={'list': [{'arg': 0}]}),
        update('preloaded_multi_mp_sgd_mom_update/one', 'preloaded_multi_mp_sgd_mom_update',
               nd('k_w16'), nd('k_g16'), M, nd('k_w32'), nd('k_lrs'), nd('k_wds'),
               momentum=0.9, out={'list': [{'arg': 0}]}),
    ]


def amp_cases():
    return [
        case('multi_sum_sq/two', 'multi_sum_sq', W, nd('k_w2'), num_arrays=2),
        case('multi_sum_sq/float16', 'multi_sum_sq', nd('k_w16'), num_arrays=1),
        case('multi_sum_sq/no-count', 'multi_sum_sq', W),
        case('multi_lars/plain', 'multi_lars', nd('k_lrs3'), nd('k_sq'), nd('k_gsq'),
             nd('k_wds3'), eta=0.001, eps=1e-8, rescale_grad=0.5, tol=EXACT),
        case('multi_lars/no-eta', 'multi_lars', nd('k_lrs3'), nd('k_sq'), nd('k_gsq'),
             nd('k_wds3'), eps=1e-8),
        case('all_finite/finite', 'all_finite', W),
        case('all_finite/inf', 'all_finite', nd('k_inf')),
        case('all_finite/float16', 'all_finite', nd('k_w16')),
        case('all_finite/int', 'all_finite', nd('k_i32')),
        case('multi_all_finite/nan', 'multi_all_finite', W, nd('k_nan'), num_arrays=2),
        case('multi_all_finite/finite', 'multi_all_finite', W, nd('k_w2'), num_arrays=2),
        update('reset_arrays/two', 'reset_arrays', W, nd('k_w16'), num_arrays=2),
        case('amp_cast/float16', 'amp_cast', W, dtype='float16', grad=[0]),
        case('amp_cast/to-float32', 'amp_cast', nd('k_w16'), dtype='float32', grad=[0]),
        case('amp_cast/int-unchanged', 'amp_cast', nd('k_i32'), dtype='float16'),
        case('amp_cast/no-dtype', 'amp_cast', W),
        # MXNet 1.9.1's CPU build runs amp_multicast on float32 arrays only (MKLDNN refuses
        # float16 and float64 inputs), so its casts are compared through float32
        case('amp_multicast/float32', 'amp_multicast', W, M, num_outputs=2, grad=[0, 1]),
        case('amp_multicast/narrow', 'amp_multicast', W, M, num_outputs=2,
             cast_narrow=True, grad=[0, 1]),
        case('amp_multicast/count', 'amp_multicast', W, M, num_outputs=3),
    ]


def output_cases():
    """The regression outputs and make_loss: identity (sigmoid) forward, the loss's own
    gradient whatever the head gradient."""
    cases = []
    for name in ('LinearRegressionOutput', 'LogisticRegressionOutput', 'MAERegressionOutput'):
        cases += [case(name + '/grad', name, W, G, grad=[0]),
                  case(name + '/grad-scale', name, nd('k_sparse'), nd('k_label'),
                       grad_scale=2.0, grad=[0]),
                  case(name + '/flat-label', name, nd('k_col'), nd('k_label_flat'), grad=[0]),
                  case(name + '/label-size', name, W, nd('k_label'))]
    return cases + [case('make_loss/grad', 'make_loss', W, grad=[0])]


def sparse_cases():
    """``nd.sparse``'s names of these operators: storage types and values."""
    rsp, csr = {'row_sparse': 'k_sparse', 'rows': [0, 2]}, {'csr': 'k_sparse'}
    sparse = [
        case('sparse.ElementWiseSum/row_sparse', 'sparse.ElementWiseSum', rsp, rsp, rsp),
        case('sparse.ElementWiseSum/mixed', 'sparse.ElementWiseSum', rsp, nd('k_sparse')),
        case('sparse.Embedding/row_sparse-weight', 'sparse.Embedding', nd('k_ids'),
             {'row_sparse': 'k_w', 'rows': [0, 2, 3]}, input_dim=4, output_dim=3),
        case('sparse.FullyConnected/csr', 'sparse.FullyConnected', csr, nd('k_fc_w'),
             num_hidden=2, no_bias=True),
        case('sparse.LinearRegressionOutput/csr-label', 'sparse.LinearRegressionOutput',
             nd('k_sparse'), {'csr': 'k_label'}, grad_scale=2.0, grad=[0]),
        case('sparse.LogisticRegressionOutput/csr', 'sparse.LogisticRegressionOutput', csr,
             nd('k_label')),
        case('sparse.MAERegressionOutput/csr-label', 'sparse.MAERegressionOutput',
             nd('k_sparse'), {'csr': 'k_label'}, grad=[0]),
        case('sparse.make_loss/csr', 'sparse.make_loss', csr),
    ]
    for c in sparse:
        c['stype'] = True
    return sparse


#: As ``ops_cases.DIVERGENCES`` (docs/divergences.md explains them).
DIVERGENCES = {
    'nag_mom_update/new-array': ("MXNet 1.9.1's momentum reads the old weight unless out is "
                                 "the weight; gluonedu runs NAG's rule, which reads the new "
                                 "one (as MXNet with out=weight)", 'ok'),
}


def kernels_cases():
    return (sgd_cases() + adaptive_cases() + lamb_cases() + multi_cases() + amp_cases()
            + output_cases() + sparse_cases())
