"""Operator parity cases of issue 11's last names: ``nd.linalg`` (and the flat
``nd.linalg_*``), the miscellaneous ``nd`` operators, ``NDArray.slice_assign*``.

:func:`extended` adds them, and the inputs they use, to :mod:`ops_cases`. Like
:mod:`ops_cases`, this module imports neither mxnet nor gluonedu.
"""
import numpy as np

from ops_cases import case, method, nd, tup


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


def extended(all_cases, make_inputs):
    """``ops_cases``' (all_cases, make_inputs) with this module's cases and inputs added."""
    def all_cases_here():
        cases = all_cases() + linalg_cases()
        ids = [c['id'] for c in cases]
        if len(set(ids)) != len(ids):
            raise ValueError('duplicate case ids: %s'
                             % sorted({i for i in ids if ids.count(i) > 1}))
        return cases

    def make_inputs_here():
        return {**make_inputs(), **linalg_inputs()}
    return all_cases_here, make_inputs_here
