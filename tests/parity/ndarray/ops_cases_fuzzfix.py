"""Operator parity cases for mismatches a differential fuzz run found (issue 15): clip's
bounds on integer arrays, ``_arange`` with ``infer_range`` and integer dtypes, ``_eye``
with M ≤ 0, SELU's constants, the gradients of BatchNorm and LayerNorm started from their
``output_mean_var`` outputs, L2Normalization of 1-D data, ``dot`` of transposed vectors and
``multi_sum_sq`` of mixed dtypes, the gradient of the finiteness checks and samplers
asked for zero samples.

:func:`extended` adds them, and the inputs they use, to :mod:`ops_cases`. Like
:mod:`ops_cases`, this module imports neither mxnet nor gluonedu.
"""
import numpy as np


def fuzzfix_inputs():
    rng = np.random.RandomState(15)
    f32 = np.float32
    return {
        'ff_u8': np.array([0, 1, 2, 200, 255], dtype=np.uint8),
        'ff_i8': np.array([-128, -2, 1, 100, 127], dtype=np.int8),
        'ff_i32': np.array([-7, 1, 100, 2 ** 30], dtype=np.int32),
        'ff_selu': np.array([-3., -0.5, -1 / 3, 0., 0.7, 3.]),
        'ff_selu16': np.array([-2., -0.5, 0., 0.7, 3.], dtype=np.float16),
        'ff_bn_x': rng.randn(2, 3, 2).astype(f32),
        'ff_gamma3': rng.uniform(0.5, 1.5, 3).astype(f32),
        'ff_beta3': rng.randn(3).astype(f32),
        'ff_mean3': rng.randn(3).astype(f32),
        'ff_var3': rng.uniform(0.5, 1.5, 3).astype(f32),
        'ff_gamma2': rng.uniform(0.5, 1.5, 2).astype(f32),
        'ff_beta2': rng.randn(2).astype(f32),
        'ff_v3': rng.randn(3).astype(f32),
        'ff_w3': rng.randn(3).astype(f32),
        'ff_m32': rng.randn(3, 2).astype(f32),
        'ff_v3d': rng.randn(3),
    }


def fuzzfix_cases():
    from ops_cases import case, nd, tup  # ops_cases imports this module at its end
    u8, i8, i32 = nd('ff_u8'), nd('ff_i8'), nd('ff_i32')
    bn = (nd('ff_bn_x'), nd('ff_gamma3'), nd('ff_beta3'), nd('ff_mean3'), nd('ff_var3'))
    cases = [
        # a bound replacing an element is cast as C++ casts: -1 → 255 in uint8, 300 → 44
        case('clip/uint8-negative-max', 'clip', u8, a_min=0, a_max=-1),
        case('clip/uint8-out-of-range', 'clip', u8, a_min=300, a_max=400),
        case('clip/uint8-wide-range', 'clip', u8, a_min=-5, a_max=300),
        case('clip/int8-wraps', 'clip', i8, a_min=-1000, a_max=-300),
        case('clip/int8-fractional', 'clip', i8, a_min=-1.5, a_max=99.7),
        case('clip/int32-beyond-int32', 'clip', i32, a_min=3e9, a_max=1e10),
        case('_arange/infer-range-no-stop', '_internal._arange', start=2.5, infer_range=True),
        case('_arange/infer-range', '_internal._arange', start=1, stop=7, step=2,
             infer_range=True),
        case('_arange/int32-fractional-step', '_internal._arange', start=2.5, stop=5,
             step=0.5, dtype='int32'),
        case('_arange/int32-negative-step', '_internal._arange', start=2.5, stop=-1,
             step=-1, repeat=2, dtype='int32'),
        case('_arange/int64-fractional-step', '_internal._arange', start=0, stop=3, step=0.5,
             dtype='int64'),
        case('eye/negative-columns', 'eye', 3, M=-1),
        case('eye/negative-columns-offset', 'eye', 3, M=-2, k=1),
        case('LeakyReLU/selu-ignores-slope', 'LeakyReLU', nd('ff_selu'), act_type='selu',
             slope=0.5, lower_bound=0.1, upper_bound=0.9),
        case('LeakyReLU/selu-float16', 'LeakyReLU', nd('ff_selu16'), act_type='selu',
             upper_bound=0.2),
        case('BatchNorm/mean-var-grad', 'BatchNorm', *bn, output_mean_var=True,
             grad=(0, 1, 2)),
        case('BatchNorm/mean-var-global-stats-grad', 'BatchNorm', *bn, output_mean_var=True,
             use_global_stats=True, fix_gamma=False, grad=(0, 1, 2)),
        case('BatchNorm/mean-var-last-axis-grad', 'BatchNorm', nd('ff_bn_x'),
             nd('ff_gamma2'), nd('ff_beta2'), nd('ff_gamma2'), nd('ff_gamma2'), axis=-1,
             output_mean_var=True, fix_gamma=False, grad=(0, 1, 2)),
        case('LayerNorm/mean-std-grad', 'LayerNorm', nd('ff_bn_x'), nd('ff_gamma2'),
             nd('ff_beta2'), output_mean_var=True, grad=(0, 1, 2)),
        case('LayerNorm/mean-std-axis-grad', 'LayerNorm', nd('ff_bn_x'), nd('ff_gamma3'),
             nd('ff_beta3'), axis=1, output_mean_var=True, grad=(0, 1, 2)),
        case('L2Normalization/instance-1d', 'L2Normalization', nd('ff_v3'), mode='instance',
             grad=(0,)),
        case('L2Normalization/channel-1d', 'L2Normalization', nd('ff_v3'), mode='channel'),
        case('dot/vectors-transpose-a', 'dot', nd('ff_v3'), nd('ff_w3'), transpose_a=True),
        case('dot/vectors-transpose-b', 'dot', nd('ff_v3'), nd('ff_w3'), transpose_b=True),
        case('dot/vector-matrix-transpose-a', 'dot', nd('ff_v3'), nd('ff_m32'),
             transpose_a=True, grad=(0, 1)),
        case('multi_sum_sq/mixed-dtypes', 'multi_sum_sq', nd('ff_v3'), nd('ff_v3d'),
             num_arrays=2),
        case('multi_sum_sq/int32', 'multi_sum_sq', i32, i32, num_arrays=2),
        case('reset_arrays/uint8', 'reset_arrays', u8, num_arrays=1),
        dict(case('reset_arrays/mixed-floats', 'reset_arrays', nd('ff_v3'), nd('ff_v3d'),
                  num_arrays=2), mutates=True),
        case('all_finite/grad', 'all_finite', nd('ff_v3'), grad=(0,)),
        case('multi_all_finite/grad', 'multi_all_finite', nd('ff_v3'), nd('ff_w3'),
             num_arrays=2, grad=(0, 1)),
        case('argmax_channel/grad', 'argmax_channel', nd('ff_m32'), grad=(0,)),
        case('sample_poisson/zero-samples', 'sample_poisson', nd('ff_var3'), shape=0),
        case('sample_normal/zero-axis', 'sample_normal', nd('ff_mean3'), nd('ff_var3'),
             shape=tup(2, 0)),
    ]
    return cases


def extended(all_cases, make_inputs):
    """``ops_cases``' (all_cases, make_inputs) with this module's cases and inputs added
    (ops_cases_linalg's ``extended``, applied after this, checks that the ids are unique)."""
    return (lambda: all_cases() + fuzzfix_cases(),
            lambda: {**make_inputs(), **fuzzfix_inputs()})
