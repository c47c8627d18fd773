"""Operator parity cases of issue 11's last names: ``nd.linalg`` (and the flat
``nd.linalg_*``), the miscellaneous ``nd`` operators, ``NDArray.slice_assign*`` and the
densities ``nd.random_pdf_*``.

:func:`extended` adds them, and the inputs they use, to :mod:`ops_cases`. Like
:mod:`ops_cases`, this module imports neither mxnet nor gluonedu.
"""
import numpy as np


def _helpers():
    """ops_cases' case builders, imported when the cases are built: ops_cases imports this
    module at its end, so a module-level import would be circular."""
    from ops_cases import case, method, nd, tup
    return case, method, nd, tup


def _spd(rng, *shape):
    """Well-conditioned symmetric positive-definite matrices of ``shape`` (..., n, n)."""
    x = rng.randn(*shape)
    return x @ np.swapaxes(x, -1, -2) + shape[-1] * np.eye(shape[-1])


def linalg_inputs():
    rng = np.random.RandomState(11)
    f32 = np.float32
    spd = _spd(rng, 2, 3, 3)
    return {
        'la_sq': (rng.randn(3, 3) + 3 * np.eye(3)).astype(f32),
        'la_sq64': rng.randn(3, 3) + 3 * np.eye(3),
        'la_bsq': (rng.randn(2, 3, 3) + 3 * np.eye(3)).astype(f32),
        'la_spd': spd[0].astype(f32),
        'la_bspd': spd.astype(f32),
        'la_bspd64': spd,
        'la_chol': np.linalg.cholesky(spd).astype(f32),
        'la_tri': (rng.randn(2, 3, 3) + 4 * np.eye(3)).astype(f32),
        'la_a23': rng.randn(2, 3).astype(f32),
        'la_a32': rng.randn(3, 2).astype(f32),
        'la_b34': rng.randn(2, 3, 4).astype(f32),
        'la_b43': rng.randn(2, 4, 3).astype(f32),
        'la_b33': rng.randn(2, 3, 3).astype(f32),
        'la_b32': rng.randn(2, 3, 2).astype(f32),
        'la_c22': rng.randn(2, 2).astype(f32),
        'la_r4': rng.randn(2, 5, 4, 3).astype(f32),
        'la_r4b': rng.randn(3, 5, 4, 6).astype(f32),
        'la_vec6': rng.randn(2, 6).astype(f32),
        'la_vec3': rng.randn(2, 3).astype(f32),
        'la_vec4': rng.randn(4).astype(f32),
        'la_sing': np.array([[1, 2], [2, 4]], dtype=f32),
        'la_nonpd': np.array([[1, 2], [2, 1]], dtype=f32),
        'la_i33': np.arange(9, dtype=np.int32).reshape(3, 3),
        'la_h33': np.eye(3, dtype=np.float16),
        'la_v3': np.arange(3, dtype=f32),
    }


def linalg_cases():
    """Each operator by both names, every parameter, gradients, and bad input."""
    case, _, nd, tup = _helpers()
    L = 'linalg.'
    sq, bsq, spd, bspd = nd('la_sq'), nd('la_bsq'), nd('la_spd'), nd('la_bspd')
    cases = [
        case('linalg.gemm2', L + 'gemm2', nd('la_b34'), nd('la_b43'), grad=(0, 1)),
        case('linalg_gemm2/transposes', 'linalg_gemm2', nd('la_b43'), nd('la_b34'),
             transpose_a=True, transpose_b=True, alpha=-1.5, grad=(0, 1)),
        case('linalg.gemm2/axis', L + 'gemm2', nd('la_r4'), nd('la_r4b'), axis=0,
             grad=(0, 1)),
        case('linalg.gemm2/axis-last', L + 'gemm2', nd('la_a23'), nd('la_a32'), axis=-1),
        case('linalg.gemm2/misaligned', L + 'gemm2', nd('la_a23'), nd('la_a23')),
        case('linalg.gemm2/batch-mismatch', L + 'gemm2', nd('la_b34'), nd('la_a32')),
        case('linalg.gemm2/vector', L + 'gemm2', nd('la_v3'), nd('la_v3')),
        case('linalg.gemm2/int32', L + 'gemm2', nd('la_i33'), nd('la_i33')),
        case('linalg.gemm2/float16', L + 'gemm2', nd('la_h33'), nd('la_h33')),
        case('linalg.gemm2/mixed-dtypes', L + 'gemm2', sq, nd('la_sq64')),
        case('linalg.gemm', L + 'gemm', nd('la_a23'), nd('la_a32'), nd('la_c22'), alpha=2.0,
             beta=0.5, grad=(0, 1, 2)),
        case('linalg_gemm/transpose-b', 'linalg_gemm', nd('la_a23'), nd('la_a23'),
             nd('la_c22'), transpose_b=True, grad=(0, 1, 2)),
        case('linalg.gemm/c-shape', L + 'gemm', nd('la_a23'), nd('la_a32'), sq),
        case('linalg.gemm/no-c', L + 'gemm', nd('la_a23'), nd('la_a32')),
        case('linalg.syrk', L + 'syrk', nd('la_b34'), alpha=1.5, grad=(0,)),
        case('linalg_syrk/transpose', 'linalg_syrk', nd('la_b34'), transpose=True,
             grad=(0,)),
        case('linalg.syrk/vector', L + 'syrk', nd('la_v3')),
        case('linalg.potrf', L + 'potrf', bspd, grad=(0,)),
        case('linalg_potrf/one', 'linalg_potrf', spd, grad=(0,)),
        case('linalg.potrf/float64', L + 'potrf', nd('la_bspd64'), grad=(0,)),
        case('linalg.potrf/not-pd', L + 'potrf', nd('la_nonpd')),
        case('linalg.potrf/not-square', L + 'potrf', nd('la_a23')),
        case('linalg.potri', L + 'potri', nd('la_chol'), grad=(0,)),
        case('linalg_potri/one', 'linalg_potri', nd('la_tri'), grad=(0,)),
        case('linalg.potri/vector', L + 'potri', nd('la_v3')),
        case('linalg.gelqf', L + 'gelqf', nd('la_b34'), grad=(0,)),
        case('linalg_gelqf/square', 'linalg_gelqf', bsq, grad=(0,)),
        case('linalg.gelqf/tall', L + 'gelqf', nd('la_a32')),
        case('linalg.syevd', L + 'syevd', bspd, grad=(0,)),
        case('linalg.syevd/one', L + 'syevd', spd, grad=(0,)),
        case('linalg.syevd/reads-lower', L + 'syevd', sq),
        case('linalg.syevd/not-square', L + 'syevd', nd('la_a23')),
        case('linalg.inverse', L + 'inverse', bsq, grad=(0,)),
        case('linalg_inverse/float64', 'linalg_inverse', nd('la_sq64'), grad=(0,)),
        case('linalg.inverse/singular', L + 'inverse', nd('la_sing')),
        case('linalg.det', L + 'det', bsq, grad=(0,)),
        case('linalg_det/one', 'linalg_det', sq, grad=(0,)),
        case('linalg.det/singular', L + 'det', nd('la_sing')),
        case('linalg.det/vector', L + 'det', nd('la_v3')),
        case('linalg.det/not-square', L + 'det', nd('la_a23')),
        case('linalg.det/int32', L + 'det', nd('la_i33')),
        case('linalg.det/float16', L + 'det', nd('la_h33')),
        case('linalg.slogdet', L + 'slogdet', bsq, grad=(0,)),
        case('linalg_slogdet/one', 'linalg_slogdet', sq, grad=(0,)),
        case('linalg.slogdet/singular', L + 'slogdet', nd('la_sing')),
        case('linalg.sumlogdiag', L + 'sumlogdiag', bspd, grad=(0,)),
        case('linalg_sumlogdiag/negative', 'linalg_sumlogdiag', nd('la_nonpd')),
        case('linalg.extractdiag', L + 'extractdiag', bsq, grad=(0,)),
        case('linalg_extractdiag/offset', 'linalg_extractdiag', bsq, offset=1, grad=(0,)),
        case('linalg.extractdiag/offset-negative', L + 'extractdiag', sq, offset=-2),
        case('linalg.extractdiag/offset-too-large', L + 'extractdiag', sq, offset=3),
        case('linalg.extractdiag/not-square', L + 'extractdiag', nd('la_a23')),
        case('linalg.makediag', L + 'makediag', nd('la_vec3'), grad=(0,)),
        case('linalg_makediag/offset', 'linalg_makediag', nd('la_vec3'), offset=-2,
             grad=(0,)),
        case('linalg.extracttrian', L + 'extracttrian', bsq, grad=(0,)),
        case('linalg.extracttrian/upper', L + 'extracttrian', bsq, lower=False, grad=(0,)),
        case('linalg_extracttrian/offset', 'linalg_extracttrian', bsq, offset=1,
             grad=(0,)),
        case('linalg.extracttrian/offset-negative', L + 'extracttrian', sq, offset=-1,
             lower=False),
        case('linalg.extracttrian/offset-too-large', L + 'extracttrian', sq, offset=-3),
        case('linalg.maketrian', L + 'maketrian', nd('la_vec6'), grad=(0,)),
        case('linalg.maketrian/upper', L + 'maketrian', nd('la_vec6'), lower=False,
             grad=(0,)),
        case('linalg_maketrian/offset', 'linalg_maketrian', nd('la_vec6'), offset=2,
             grad=(0,)),
        case('linalg.maketrian/offset-negative', L + 'maketrian', nd('la_vec3'), offset=-1),
        case('linalg.maketrian/not-a-triangle', L + 'maketrian', nd('la_vec4')),
        case('linalg.maketrian/unknown-kwarg', L + 'maketrian', nd('la_vec6'), upper=True),
    ]
    for name in ('trmm', 'trsm'):
        tri, b = nd('la_tri'), nd('la_b32')
        cases += [
            case('linalg.%s' % name, L + name, tri, b, alpha=2.0, grad=(0, 1)),
            case('linalg_%s/upper-transpose' % name, 'linalg_' + name, tri, b, lower=False,
                 transpose=True, grad=(0, 1)),
            case('linalg.%s/rightside' % name, L + name, tri, nd('la_b33'), rightside=True,
                 grad=(0, 1)),
            case('linalg.%s/rightside-upper' % name, L + name, tri, nd('la_b33'),
                 rightside=True, lower=False, transpose=True, alpha=-0.5, grad=(0, 1)),
            case('linalg.%s/misfit' % name, L + name, tri, b, rightside=True),
            case('linalg.%s/not-square' % name, L + name, nd('la_b32'), b),
        ]
    cases.append(case('linalg.trsm/zero-diagonal', L + 'trsm', nd('la_sing'), nd('la_c22'),
                      lower=False))
    return cases


def misc_inputs():
    rng = np.random.RandomState(12)
    f32 = np.float32
    return {
        'mi_a22': np.array([[1, 2], [3, 4]], dtype=f32),
        'mi_b32': np.array([[1, 0], [0, 1], [2, 2]], dtype=f32),
        'mi_c12': np.array([[1, -2]], dtype=f32),
        'mi_b33': np.ones((3, 3), dtype=f32),
        'mi_a22d': np.array([[1, 2], [3, 4]], dtype=np.float64),
        'mi_i22': np.array([[1, 2], [3, 5]], dtype=np.int32),
        'mi_r34': rng.randn(3, 4).astype(f32),
        'mi_r234': rng.randn(2, 3, 4).astype(f32),
        'mi_h22': np.array([[1, 2], [3, 4]], dtype=np.float16),
        'mi_hist': np.array([1, 2, 2, 3, 5, 0, 2.5, 9, -1, np.nan], dtype=f32),
        'mi_hist_i': np.array([1, 2, 2, 3, 5], dtype=np.int32),
        'mi_edges': np.array([0, 2, 4, 6], dtype=f32),
        'mi_coords': np.array([[3, 6, 6, 9], [4, 5, 1, 5]], dtype=f32),
        'mi_coords_i': np.array([[3, 6, 6], [4, 5, 1]], dtype=np.int32),
        'mi_coords3': np.array([[3, 6], [4, 5], [1, 1]], dtype=f32),
        'mi_flat': np.array([22, 41, 37, 50, -1, 22.7], dtype=f32),
        'mi_flat_i': np.array([[22, 41], [1, 2]], dtype=np.int64),
        'mi_rows': np.array([[1, 2], [3, 4], [5, 6]], dtype=f32),
        'mi_take_ids': np.array([1, 0, 1], dtype=np.int32),
        'mi_take_oob': np.array([5, -1, -3], dtype=np.int32),
        'mi_take_f': np.array([1, 0, 1], dtype=f32),
        'mi_ids': np.array([1, 0, 3], dtype=f32),
        'mi_ids_frac': np.array([1.7, 0, 3.2], dtype=f32),
        'mi_ids_oob': np.array([1, 0, 4], dtype=f32),
        'mi_vals': np.array([7, 8, 9], dtype=f32),
        'mi_z34': np.zeros((3, 4), dtype=f32),
        'mi_seq': rng.randn(4, 3, 2).astype(f32),
        'mi_seq_bt': rng.randn(3, 4, 2).astype(f32),
        'mi_seq2': rng.randn(4, 3).astype(f32),
        'mi_lens': np.array([2, 4, 1], dtype=f32),
        'mi_lens_frac': np.array([2.7, 4, 1.2], dtype=f32),
        'mi_lens_i': np.array([2, 4, 1], dtype=np.int32),
        'mi_seq_i': np.arange(24, dtype=np.int32).reshape(4, 3, 2),
        'mi_logits': rng.randn(4, 5).astype(f32),
        'mi_labels': np.array([2, 0, 4, 1], dtype=f32),
        'mi_logits64': rng.randn(4, 5),
        'mi_labels64': np.array([2, 0, 4, 1], dtype=np.float64),
        'mi_img': rng.randn(2, 3, 4, 5).astype(f32),
        'mi_img3d': rng.randn(1, 2, 3, 3, 3).astype(f32),
        'mi_img1d': rng.randn(1, 2, 6).astype(f32),
        'mi_cols': rng.randn(2, 8, 12).astype(f32),
        'mi_cols_pad': rng.randn(1, 8, 16).astype(f32),
        'mi_chan': rng.randn(2, 3, 2, 2).astype(f32),
        'mi_big': np.ones((4, 4), dtype=f32),
        'mi_small': np.zeros((2, 2), dtype=f32),
        'mi_small_i': np.zeros((2, 2), dtype=np.int32),
        'mi_col31': np.array([[7], [8], [9]], dtype=f32),
    }


def misc_cases():
    """khatri_rao, moments, histogram, ravel/unravel, batch_take, onehot_encode,
    fill_element_0index, Sequence*, softmax_cross_entropy, SoftmaxActivation, im2col,
    col2im, slice_assign(_scalar)."""
    case, method, nd, tup = _helpers()
    seq, lens = nd('mi_seq'), nd('mi_lens')
    rows, z34 = nd('mi_rows'), nd('mi_z34')
    big = nd('mi_big')
    cases = [
        case('khatri_rao', 'khatri_rao', nd('mi_a22'), nd('mi_b32')),
        case('khatri_rao/three', 'khatri_rao', nd('mi_a22'), nd('mi_b32'), nd('mi_c12')),
        case('khatri_rao/one', 'khatri_rao', nd('mi_a22')),
        case('khatri_rao/float64', 'khatri_rao', nd('mi_a22d'), nd('mi_a22d')),
        case('khatri_rao/columns', 'khatri_rao', nd('mi_a22'), nd('mi_b33')),
        case('khatri_rao/int32', 'khatri_rao', nd('mi_i22'), nd('mi_i22')),
        case('khatri_rao/float16', 'khatri_rao', nd('mi_h22'), nd('mi_h22')),
        case('khatri_rao/3d', 'khatri_rao', nd('mi_r234'), nd('mi_a22')),
        case('khatri_rao/none', 'khatri_rao'),
        case('khatri_rao/grad', 'khatri_rao', nd('mi_a22'), nd('mi_b32'), grad=(0, 1)),
        case('moments', 'moments', nd('mi_r234'), axes=tup(0, 2), grad=(0,)),
        case('moments/keepdims', 'moments', nd('mi_r234'), axes=tup(1,), keepdims=True,
             grad=(0,)),
        case('moments/negative-axis', 'moments', nd('mi_r34'), axes=tup(-1,), grad=(0,)),
        case('moments/all', 'moments', nd('mi_r34'), axes=tup(0, 1)),
        case('moments/int32', 'moments', nd('mi_i22'), axes=tup(0,)),
        case('moments/float16', 'moments', nd('mi_h22'), axes=tup(0, 1)),
        case('moments/no-axes', 'moments', nd('mi_r34')),
        case('moments/empty-axes', 'moments', nd('mi_r34'), axes=tup()),
        case('moments/axis-twice', 'moments', nd('mi_r34'), axes=tup(0, 0)),
        case('moments/axis-out-of-range', 'moments', nd('mi_r34'), axes=tup(2,)),
        case('histogram', 'histogram', nd('mi_hist'), bins=4, range=tup(0, 5)),
        case('histogram/edges', 'histogram', nd('mi_hist'), bins=nd('mi_edges')),
        case('histogram/int32', 'histogram', nd('mi_hist_i'), bins=3, range=tup(0, 6)),
        case('histogram/2d', 'histogram', nd('mi_r34'), bins=3, range=tup(-1, 1)),
        case('histogram/numpy', 'histogram', nd('mi_hist_i'), bins=4),
        case('histogram/float-bins', 'histogram', nd('mi_hist'), bins=2.5),
        case('histogram/reversed-range', 'histogram', nd('mi_hist'), bins=2, range=tup(5, 0)),
        case('_histogram', '_internal._histogram', nd('mi_hist_i'), bin_cnt=2,
             range=tup(0, 4)),
        case('ravel_multi_index', 'ravel_multi_index', nd('mi_coords'), shape=tup(7, 6)),
        case('ravel_multi_index/int32', 'ravel_multi_index', nd('mi_coords_i'),
             shape=tup(7, 6)),
        case('ravel_multi_index/3d', '_internal._ravel_multi_index', nd('mi_coords3'),
             shape=tup(2, 7, 6)),
        case('ravel_multi_index/no-shape', 'ravel_multi_index', nd('mi_coords')),
        case('ravel_multi_index/rows', 'ravel_multi_index', nd('mi_coords'), shape=tup(7, 6, 2)),
        case('ravel_multi_index/1d', 'ravel_multi_index', nd('mi_flat'), shape=tup(7, 6)),
        case('ravel_multi_index/grad', 'ravel_multi_index', nd('mi_coords'), shape=tup(7, 6),
             grad=(0,)),
        case('unravel_index', 'unravel_index', nd('mi_flat'), shape=tup(7, 6)),
        case('unravel_index/3d', 'unravel_index', nd('mi_flat'), shape=tup(2, 3, 7)),
        case('unravel_index/int64-2d', '_internal._unravel_index', nd('mi_flat_i'),
             shape=tup(7, 6)),
        case('unravel_index/no-shape', 'unravel_index', nd('mi_flat')),
        case('batch_take', 'batch_take', rows, nd('mi_take_ids')),
        case('batch_take/clipped', 'batch_take', rows, nd('mi_take_oob')),
        case('batch_take/float-ids', 'batch_take', rows, nd('mi_take_f')),
        case('batch_take/1d', 'batch_take', nd('mi_vals'), nd('mi_take_ids')),
        case('batch_take/length', 'batch_take', nd('mi_r34'), nd('mi_take_ids')),
        case('batch_take/grad', 'batch_take', rows, nd('mi_take_ids'), grad=(0,)),
        case('onehot_encode', 'onehot_encode', nd('mi_ids'), z34),
        case('onehot_encode/fractions', 'onehot_encode', nd('mi_ids_frac'), z34),
        case('onehot_encode/rows', 'onehot_encode', nd('mi_ids'), nd('mi_small')),
        case('onehot_encode/int32', 'onehot_encode', nd('mi_ids'), nd('mi_small_i')),
        case('onehot_encode/no-out', 'onehot_encode', nd('mi_ids')),
        case('fill_element_0index', 'fill_element_0index', z34, nd('mi_vals'), nd('mi_ids')),
        case('fill_element_0index/fractions', 'fill_element_0index', nd('mi_r34'),
             nd('mi_vals'), nd('mi_ids_frac')),
        case('fill_element_0index/rows', 'fill_element_0index', z34, nd('mi_lens'),
             nd('mi_take_f')),
        case('fill_element_0index/3d', 'fill_element_0index', nd('mi_r234'), nd('mi_vals'),
             nd('mi_ids')),
        case('fill_element_0index/grad', 'fill_element_0index', nd('mi_r34'), nd('mi_vals'),
             nd('mi_ids'), grad=(0,)),
        case('SequenceLast', 'SequenceLast', seq),
        case('SequenceLast/lengths', 'SequenceLast', seq, lens, use_sequence_length=True,
             grad=(0,)),
        case('SequenceLast/axis1', 'SequenceLast', nd('mi_seq_bt'), lens,
             use_sequence_length=True, axis=1, grad=(0,)),
        case('SequenceLast/fractions', 'SequenceLast', seq, nd('mi_lens_frac'),
             use_sequence_length=True),
        case('SequenceLast/int-lengths', 'SequenceLast', seq, nd('mi_lens_i'),
             use_sequence_length=True),
        case('SequenceLast/int32', 'SequenceLast', nd('mi_seq_i')),
        case('SequenceLast/axis2', 'SequenceLast', seq, axis=2),
        case('SequenceLast/missing-lengths', 'SequenceLast', seq, use_sequence_length=True),
        case('SequenceLast/unused-lengths', 'SequenceLast', seq, lens),
        case('SequenceLast/1d', 'SequenceLast', nd('mi_vals')),
        case('SequenceMask', 'SequenceMask', seq, lens, use_sequence_length=True, value=-1,
             grad=(0,)),
        case('SequenceMask/axis1', 'SequenceMask', nd('mi_seq_bt'), lens,
             use_sequence_length=True, axis=1, grad=(0,)),
        case('SequenceMask/2d', 'SequenceMask', nd('mi_seq2'), lens, use_sequence_length=True),
        case('SequenceMask/no-lengths', 'SequenceMask', seq, grad=(0,)),
        case('SequenceMask/lengths-shape', 'SequenceMask', seq, nd('mi_a22'),
             use_sequence_length=True),
        case('SequenceMask/negative-axis', 'SequenceMask', seq, lens, use_sequence_length=True,
             axis=-1),
        case('SequenceReverse', 'SequenceReverse', seq, lens, use_sequence_length=True,
             grad=(0,)),
        case('SequenceReverse/all', 'SequenceReverse', seq, grad=(0,)),
        case('SequenceReverse/int32', 'SequenceReverse', nd('mi_seq_i'), nd('mi_lens_i'),
             use_sequence_length=True),
        case('SequenceReverse/axis1', 'SequenceReverse', nd('mi_seq_bt'), lens,
             use_sequence_length=True, axis=1),
        case('softmax_cross_entropy', 'softmax_cross_entropy', nd('mi_logits'),
             nd('mi_labels'), grad=(0,)),
        case('softmax_cross_entropy/float64', 'softmax_cross_entropy', nd('mi_logits64'),
             nd('mi_labels64'), grad=(0,)),
        case('softmax_cross_entropy/2d-label', 'softmax_cross_entropy', nd('mi_logits'),
             nd('mi_coords')),
        case('softmax_cross_entropy/3d', 'softmax_cross_entropy', nd('mi_r234'),
             nd('mi_labels')),
        case('softmax_cross_entropy/batch', 'softmax_cross_entropy', nd('mi_logits'),
             nd('mi_vals')),
        case('softmax_cross_entropy/mixed', 'softmax_cross_entropy', nd('mi_logits'),
             nd('mi_labels64')),
        case('softmax_cross_entropy/int32', 'softmax_cross_entropy', nd('mi_i22'),
             nd('mi_take_ids')),
        case('SoftmaxActivation', 'SoftmaxActivation', nd('mi_r234'), grad=(0,)),
        case('SoftmaxActivation/channel', 'SoftmaxActivation', nd('mi_chan'), mode='channel',
             grad=(0,)),
        case('SoftmaxActivation/1d', 'SoftmaxActivation', nd('mi_vals')),
        case('SoftmaxActivation/channel-2d', 'SoftmaxActivation', nd('mi_r34'),
             mode='channel'),
        case('SoftmaxActivation/bad-mode', 'SoftmaxActivation', nd('mi_r34'), mode='batch'),
        case('SoftmaxActivation/int32', 'SoftmaxActivation', nd('mi_i22')),
        case('im2col', 'im2col', nd('mi_img'), kernel=tup(2, 2), grad=(0,)),
        case('im2col/geometry', 'im2col', nd('mi_img'), kernel=tup(2, 3), stride=tup(2, 1),
             pad=tup(1, 0), dilate=tup(1, 2), grad=(0,)),
        case('im2col/3d', 'im2col', nd('mi_img3d'), kernel=tup(2, 2, 2)),
        case('im2col/1d', 'im2col', nd('mi_img1d'), kernel=tup(3,)),
        case('im2col/too-big', 'im2col', nd('mi_img'), kernel=tup(5, 5)),
        case('im2col/no-kernel', 'im2col', nd('mi_img')),
        case('im2col/int32', 'im2col', nd('mi_seq_i'), kernel=tup(2, 2)),
        case('col2im', 'col2im', nd('mi_cols'), output_size=tup(4, 5), kernel=tup(2, 2),
             grad=(0,)),
        case('col2im/geometry', 'col2im', nd('mi_cols_pad'), output_size=tup(3, 3),
             kernel=tup(2, 2), pad=tup(1, 1), grad=(0,)),
        case('col2im/mismatch', 'col2im', nd('mi_cols'), output_size=tup(5, 5),
             kernel=tup(2, 2)),
        method('slice_assign', 'slice_assign', big, nd('mi_small'), tup(0, 1), tup(2, 3),
               tup(None, None)),
        method('slice_assign/steps', 'slice_assign', big, nd('mi_small'), tup(0, 0),
               tup(4, 4), tup(2, 2)),
        method('slice_assign/negative', 'slice_assign', nd('mi_rows'), nd('mi_col31'),
               tup(None, -1), tup(None, None), tup(None, None)),
        method('slice_assign/shape', 'slice_assign', big, nd('mi_b32'), tup(0, 0), tup(2, 2),
               tup(1, 1)),
        method('slice_assign/dtype', 'slice_assign', big, nd('mi_small_i'), tup(0, 0),
               tup(2, 2), tup(1, 1)),
        method('slice_assign/no-step', 'slice_assign', big, nd('mi_small'), tup(0, 0),
               tup(2, 2), tup()),
        method('slice_assign_scalar', 'slice_assign_scalar', big, 5.5, tup(1, 1), tup(3, 4),
               tup(None, 2)),
        method('slice_assign_scalar/int32', 'slice_assign_scalar', nd('mi_i22'), 5.5,
               tup(0,), tup(1,), tup()),
        method('slice_assign_scalar/text', 'slice_assign_scalar', big, 'x', tup(1, 1),
               tup(3, 4), tup(None, 2)),
        case('_slice_assign', '_internal._slice_assign', big, nd('mi_small'), begin=tup(0, 0),
             end=tup(2, 2)),
        case('_slice_assign/begin-outside', '_internal._slice_assign', big, nd('mi_small'),
             begin=tup(5, 0), end=tup(7, 2)),
        case('_slice_assign/grad', '_internal._slice_assign', big, nd('mi_small'),
             begin=tup(0, 0), end=tup(2, 2), grad=(0, 1)),
        case('_slice_assign_scalar', '_internal._slice_assign_scalar', big, scalar=3,
             begin=tup(0, 0), end=tup(2, 2)),
        case('_crop_assign_scalar/grad', '_internal._crop_assign_scalar', big, scalar=3,
             begin=tup(0, 0), end=tup(2, 2), grad=(0,)),
    ]
    return cases


def pdf_inputs():
    rng = np.random.RandomState(13)
    f32 = np.float32
    return {
        'pdf_x': rng.uniform(0.2, 3.0, (2, 3)).astype(f32),
        'pdf_x3': rng.uniform(0.2, 3.0, (2, 2, 3)).astype(f32),
        'pdf_x64': rng.uniform(0.2, 3.0, (2, 3)),
        'pdf_counts': np.array([[0, 1, 2], [3, 4, 5]], dtype=f32),
        'pdf_a': np.array([0.5, 1.5], dtype=f32),
        'pdf_b': np.array([1.2, 2.5], dtype=f32),
        'pdf_a22': np.array([[0.5, 1.5], [1.0, 2.0]], dtype=f32),
        'pdf_b22': np.array([[1.2, 2.5], [0.7, 3.0]], dtype=f32),
        'pdf_a64': np.array([0.5, 1.5]),
        'pdf_b64': np.array([1.2, 2.5]),
        'pdf_low': np.array([0.0, -1.0], dtype=f32),
        'pdf_high': np.array([3.5, 4.0], dtype=f32),
        'pdf_p': np.array([0.4, 0.7], dtype=f32),
        'pdf_simplex': rng.dirichlet([1, 2, 3], size=(2, 4)).astype(f32),
        'pdf_alpha': np.array([[1.5, 2.0, 3.0], [0.7, 1.2, 2.5]], dtype=f32),
        'pdf_simplex1': np.array([0.2, 0.3, 0.5], dtype=f32),
        'pdf_alpha1': np.array([1.0, 2.0, 3.0], dtype=f32),
        'pdf_i': np.ones((2, 3), dtype=np.int32),
        'pdf_i2': np.ones(2, dtype=np.int32),
    }


def pdf_cases():
    """Each density and its log, their gradients for sample and parameters, and bad shapes
    and dtypes."""
    case, _, nd, _ = _helpers()
    x, a, b = nd('pdf_x'), nd('pdf_a'), nd('pdf_b')
    two = {'normal': (x, a, b), 'uniform': (x, nd('pdf_low'), nd('pdf_high')),
           'gamma': (x, a, b), 'negative_binomial': (nd('pdf_counts'), b, nd('pdf_p')),
           'generalized_negative_binomial': (nd('pdf_counts'), b, a)}
    one = {'exponential': (x, b), 'poisson': (nd('pdf_counts'), b),
           'dirichlet': (nd('pdf_simplex'), nd('pdf_alpha'))}
    cases = []
    for name, args in list(two.items()) + list(one.items()):
        call = 'random_pdf_' + name
        grads = tuple(range(len(args)))
        cases += [case(call, call, *args, grad=grads),
                  case(call + '/log', call, *args, is_log=True, grad=grads)]
    cases += [
        case('random_pdf_normal/3d', 'random_pdf_normal', nd('pdf_x3'), nd('pdf_a22'),
             nd('pdf_b22'), grad=(0, 1, 2)),
        case('random_pdf_normal/one-per-parameter', 'random_pdf_normal', a, a, b),
        # MXNet's float64 gradient agrees to ~1e-8 (docs/divergences.md: float64 gradients)
        case('random_pdf_normal/float64', 'random_pdf_normal', nd('pdf_x64'), nd('pdf_a64'),
             nd('pdf_b64'), grad=(0, 1, 2), tol=(1e-5, 1e-6)),
        case('random_pdf_normal/mixed-dtypes', 'random_pdf_normal', nd('pdf_x64'), a, b),
        case('random_pdf_normal/int32', 'random_pdf_normal', nd('pdf_i'), nd('pdf_i2'),
             nd('pdf_i2')),
        case('random_pdf_normal/shapes', 'random_pdf_normal', nd('pdf_x'), nd('pdf_simplex1'),
             nd('pdf_simplex1')),
        case('random_pdf_normal/parameter-shapes', 'random_pdf_normal', x, a,
             nd('pdf_simplex1')),
        case('random_pdf_normal/negative-sigma', 'random_pdf_normal', x, a, nd('pdf_low')),
        case('random_pdf_exponential/fewer-sample-dims', 'random_pdf_exponential', a,
             nd('pdf_a22')),
        case('random_pdf_dirichlet/one', 'random_pdf_dirichlet', nd('pdf_simplex1'),
             nd('pdf_alpha1'), grad=(0, 1)),
        case('random_pdf_dirichlet/size', 'random_pdf_dirichlet', nd('pdf_simplex'),
             nd('pdf_alpha1')),
        case('random_pdf_poisson/fractions', '_internal._random_pdf_poisson', x, b),
        case('random_pdf_gamma/no-beta', 'random_pdf_gamma', x, a),
    ]
    return cases


#: Cases where gluonedu deliberately differs from MXNet 1.9.1 (as ``ops_cases.DIVERGENCES``).
DIVERGENCES = {
    'unravel_index/int64-2d': ('MXNet 1.9.1 reads a 2-D array of flat indices as its first '
                               'column (float32: returns it unchanged); gluonedu takes 1-D '
                               'indices only', 'MXNetError'),
    'SoftmaxActivation': ('MXNet 1.9.1 normalizes over the last axis but back-propagates '
                          'as if over axis 1 (on inputs of 3 or more dimensions); gluonedu '
                          'gives the gradient of what it computes', 'ok'),
}


def extended(all_cases, make_inputs, divergences):
    """``ops_cases``' (all_cases, make_inputs) with this module's cases and inputs added,
    and its divergences put in ``divergences``."""
    divergences.update(DIVERGENCES)
    def all_cases_here():
        cases = all_cases() + linalg_cases() + misc_cases() + pdf_cases()
        ids = [c['id'] for c in cases]
        if len(set(ids)) != len(ids):
            raise ValueError('duplicate case ids: %s'
                             % sorted({i for i in ids if ids.count(i) > 1}))
        return cases

    def make_inputs_here():
        return {**make_inputs(), **linalg_inputs(), **misc_inputs(), **pdf_inputs()}
    return all_cases_here, make_inputs_here
