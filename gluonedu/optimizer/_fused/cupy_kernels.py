"""The GPU path: each rule of :mod:`.rules` as a CuPy ElementwiseKernel over flat buffers.

The C bodies below transcribe the Python rules line for line (same operations, same
order). They are compiled with ``--fmad=false`` so that no multiply-add is contracted:
every float32 operation is rounded as NumPy rounds it. Per-parameter scalars (lr, wd,
...) are read from small per-segment arrays through a per-element segment id (built
once per group); constants are kernel arguments.

Everything here needs CuPy and a GPU; nothing is imported until a fused step runs on a
``gpu(i)`` context. (Multi-GPU gradient sums for the 'device' store run on the flat
buffers in :func:`gluonedu.gluon.trainer_fused.flat_allreduce`.)
"""
import inspect

import numpy as np

from .numba_backend import INPUTS, SHAPES
from .numpy_backend import segment_sums_exact
from .rules import RULES

__all__ = ['CupyBackend', 'BODIES', 'kernel_source']

_CLIP = 'fminf(fmaxf({x}, -{b}), {b})'


def _clip(x, b):
    return _CLIP.format(x=x, b=b)


#: rule name -> C body. Inputs: the rule's argument names; w and the states are written.
BODIES = {
    'sgd_momentum': '''
        float step = clip > 0 ? lr * %s : (lr * rescale) * g;
        mom = momentum * mom - (lr * wd) * w - step;
        w = w + mom;''' % _clip('rescale * g', 'clip'),
    'sgd_no_momentum': '''
        float step = clip > 0 ? lr * %s : (lr * rescale) * g;
        w = w + (zero - (lr * wd) * w - step);''' % _clip('rescale * g', 'clip'),
    'sgd_plain': '''
        float step = clip > 0 ? lr * %s : (lr * rescale) * g;
        w = (one - lr * wd) * w - step;''' % _clip('rescale * g', 'clip'),
    'nag_momentum': '''
        float scaled = rescale * g;
        if (clip > 0) scaled = %s;
        float decayed = momentum * mom;
        w = w - decayed + momentum_plus_one * (decayed - lr * (scaled + wd * w));
        mom = decayed - lr * (scaled + wd * w);''' % _clip('scaled', 'clip'),
    'signum': '''
        float pull = clip > 0 ? one_minus_momentum * %s : (one_minus_momentum * rescale) * g;
        mom = momentum * mom - (one_minus_momentum * wd) * w - pull;
        w = (one - lr * wd_lh) * w + lr * (float)((mom > 0) - (mom < 0));''' % _clip('rescale * g', 'clip'),
    'signsgd': '''
        float scaled = rescale * g;
        if (clip > 0) scaled = %s;
        w = (one - lr * wd_total) * w - lr * (float)((scaled > 0) - (scaled < 0));''' % _clip('scaled', 'clip'),
    'dcasgd_momentum': '''
        float gr = g * rescale;
        if (clip >= 0) gr = %s;
        float step = neg_lr * (gr + wd * w + lamda * gr * gr * (w - prev));
        mom = mom * momentum + step;
        prev = w;
        w = w + mom;''' % _clip('gr', 'clip'),
    'dcasgd': '''
        float gr = g * rescale;
        if (clip >= 0) gr = %s;
        float step = neg_lr * (gr + wd * w + lamda * gr * gr * (w - prev));
        prev = w;
        w = w + step;''' % _clip('gr', 'clip'),
    'lbsgd_momentum': '''
        float gr = accumulated > 0 ? cum + g : g;
        gr = gr / batch_scale;
        float step = clip > 0 ? lr * %s : (lr * rescale) * gr;
        mom = momentum * mom - (lr * wd) * w - step;
        w = w + mom;''' % _clip('rescale * gr', 'clip'),
    'lbsgd_plain': '''
        float gr = accumulated > 0 ? cum + g : g;
        gr = gr / batch_scale;
        float step = clip > 0 ? lr * %s : (lr * rescale) * gr;
        w = (one - lr * wd) * w - step;''' % _clip('rescale * gr', 'clip'),
    'sgld': '''
        float gr = g * rescale;
        if (clip >= 0) gr = %s;
        w = w + neg_half_lr * (gr + wd * w);
        w = w + noise;''' % _clip('gr', 'clip'),
    'adam': '''
        float gr = g * rescale + wd * w;
        if (clip > 0) gr = %s;
        mean = beta1 * mean + one_minus_beta1 * gr;
        var = beta2 * var + one_minus_beta2 * gr * gr;
        w = w - lr * mean / (sqrtf(var) + epsilon);''' % _clip('gr', 'clip'),
    'adamax': '''
        float gr = g * rescale + wd * w;
        if (clip >= 0) gr = %s;
        mean = beta1 * mean + one_minus_beta1 * gr;
        inf_norm = fmaxf(beta2 * inf_norm, fabsf(gr));
        w = w - lr * mean / inf_norm;''' % _clip('gr', 'clip'),
    'nadam': '''
        float gr = g * rescale + wd * w;
        if (clip >= 0) gr = %s;
        mean = beta1 * mean + one_minus_beta1 * gr;
        var = beta2 * var + one_minus_beta2 * gr * gr;
        float mean_bar = one_minus_mu_t * (gr / grad_scale) + mu_next * (mean / mean_scale);
        w = w - lr * mean_bar / (sqrtf(var / var_scale) + epsilon);''' % _clip('gr', 'clip'),
    'lamb_direction': '''
        float gr = g * rescale;
        if (clip > 0) gr = %s;
        mean = beta1 * mean + one_minus_beta1 * gr;
        var = beta2 * var + one_minus_beta2 * gr * gr;
        direction = (mean / mean_scale) / (sqrtf(var / var_scale) + epsilon) + wd * w;''' % _clip('gr', 'clip'),
    'lamb_apply': '''
        w = w - scaled_lr * direction;''',
    'rmsprop': '''
        float gr = g * rescale + wd * w;
        if (clip > 0) gr = %s;
        n = one_minus_gamma1 * (gr * gr) + gamma1 * n;
        w = w - lr * (gr / sqrtf(n + epsilon));
        if (clip_weights > 0) w = %s;''' % (_clip('gr', 'clip'), _clip('w', 'clip_weights')),
    'rmsprop_centered': '''
        float gr = g * rescale + wd * w;
        if (clip > 0) gr = %s;
        n = one_minus_gamma1 * gr * gr + gamma1 * n;
        g_avg = one_minus_gamma1 * gr + gamma1 * g_avg;
        delta = gamma2 * delta - lr * gr / sqrtf(n - g_avg * g_avg + epsilon);
        w = w + delta;
        if (clip_weights > 0) w = %s;''' % (_clip('gr', 'clip'), _clip('w', 'clip_weights')),
    'adagrad': '''
        float gr = g * rescale;
        if (clip >= 0) gr = %s;
        history = history + gr * gr;
        w = w + (gr / sqrtf(history + epsilon) + w * wd) * neg_lr;''' % _clip('gr', 'clip'),
    'adadelta': '''
        float gr = g * rescale;
        if (clip >= 0) gr = %s;
        acc_g = rho * acc_g + one_minus_rho * gr * gr;
        float delta = sqrtf(acc_delta + epsilon) / sqrtf(acc_g + epsilon) * gr;
        acc_delta = rho * acc_delta + one_minus_rho * delta * delta;
        w = w - (delta + wd * w);''' % _clip('gr', 'clip'),
    'ftml': '''
        float gr = g * rescale + wd * w;
        if (clip > 0) gr = %s;
        prev_v = beta2 * prev_v + one_minus_beta2 * (gr * gr);
        float d_t = d_scale * (sqrtf(prev_v / v_scale) + epsilon);
        prev_z = beta1 * prev_z + one_minus_beta1 * gr - (d_t - beta1 * prev_d) * w;
        prev_d = d_t;
        w = -prev_z / d_t;''' % _clip('gr', 'clip'),
    'ftrl': '''
        float gr = g * rescale;
        if (clip > 0) gr = %s;
        float g_squared = gr * gr;
        z = z + (gr - (sqrtf(n + g_squared) - sqrtf(n)) * w / lr);
        n = n + g_squared;
        float sign_z = (float)((z > 0) - (z < 0));
        w = (sign_z * lamda1 - z) / ((beta + sqrtf(n)) / lr + wd) * (fabsf(z) > lamda1 ? 1.0f : 0.0f);''' % _clip('gr', 'clip'),
}


def kernel_source(name):
    """(in_params, out_params, body) of rule ``name``'s ElementwiseKernel."""
    params = list(inspect.signature(RULES[name]).parameters)
    n_states, n_per_segment = SHAPES[name]
    n_inputs = INPUTS.get(name, 0)
    states = params[2:2 + n_states]
    inputs = params[2 + n_states:2 + n_states + n_inputs]   # read, not written
    per_segment = params[2 + n_states + n_inputs:2 + n_states + n_inputs + n_per_segment]
    constants = params[2 + n_states + n_inputs + n_per_segment:]
    gradient = params[1]  # 'g', or 'direction' for lamb_apply
    in_params = ', '.join(['float32 %s' % x for x in [gradient] + inputs] + ['int32 seg_id'] +
                          ['raw float32 %s_seg' % p for p in per_segment] +
                          ['float32 %s' % c for c in constants])
    out_params = ', '.join(['float32 w'] + ['float32 %s' % s for s in states])
    loads = ''.join('\n        const float %s = %s_seg[seg_id];' % (p, p) for p in per_segment)
    return in_params, out_params, loads + BODIES[name]


class CupyBackend:
    """Runs rules as CuPy ElementwiseKernels over flat float32 buffers on a GPU."""
    name = 'cupy'

    def __init__(self):
        import cupy
        self.cupy = cupy
        self._kernels = {}

    def _kernel(self, name):
        if name not in self._kernels:
            in_params, out_params, body = kernel_source(name)
            self._kernels[name] = self.cupy.ElementwiseKernel(
                in_params, out_params, body, 'gluonedu_' + name,
                options=('--fmad=false',))
        return self._kernels[name]

    #: Norms are measured by segment reductions after the step, not inside it.
    sums_in_kernel = False

    def run(self, rule_name, group, arrays, per_segment, constants, sums=None):
        assert sums is None, 'the CuPy kernels sum no squares inside the step'
        cp = self.cupy
        n_states = SHAPES[rule_name][0]
        w, g, states = arrays[0], arrays[1], list(arrays[2:2 + n_states])
        inputs = list(arrays[2 + n_states:])
        per_segment = [cp.asarray(np.asarray(p, dtype=np.float32)) for p in per_segment]
        self._kernel(rule_name)(g, *inputs, group.segment_ids(), *per_segment,
                                *[np.float32(c) for c in constants], w, *states)

    def segment_sums_of_squares(self, group, buffers):
        """Σx² per segment (float32 squares summed in float64), on the GPU."""
        cp = self.cupy
        ids = group.segment_ids()
        out = []
        for buffer in buffers:
            squares = (buffer * buffer).astype(cp.float64)
            sums = cp.zeros(len(group.sizes), dtype=cp.float64)
            cp.add.at(sums, ids, squares)
            out.append(cp.asnumpy(sums))
        return out


# The host-side exact sums (used by specs for multi-precision groups) work on CuPy
# arrays too, through their NumPy-compatible operators.
segment_sums_exact = segment_sums_exact
