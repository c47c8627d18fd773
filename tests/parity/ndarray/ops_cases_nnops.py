"""Operator parity cases of the layer operators of issue 11: RNN (the fused Elman RNN,
LSTM and GRU), LRN, ROIPooling and the spatial transformer family (GridGenerator,
BilinearSampler, SpatialTransformer) and Correlation.

:func:`extend` adds them to :mod:`ops_cases` (cases, inputs and divergences). Like it,
this module imports neither mxnet nor gluonedu.
"""
import numpy as np

from ops_cases import case, nd, tup

#: The RNN inputs' sizes: T steps, N sequences, I input features, H hidden, P projection.
T, N, I, H, P = 3, 2, 4, 3, 2
GATES = {'rnn_relu': 1, 'rnn_tanh': 1, 'lstm': 4, 'gru': 3}


def rnn_parameter_count(mode, layers, directions, projection=None):
    """The length of MXNet's flat RNN ``parameters`` vector for the sizes above."""
    gh, state, count = GATES[mode] * H, projection or H, 0
    for layer in range(layers):
        inputs = I if layer == 0 else directions * state
        count += directions * (gh * (inputs + state + 2) + (projection or 0) * H)
    return count


#: (name, mode, layers, bidirectional, projection) of the RNN configurations tested.
RNN_CONFIGS = [('tanh', 'rnn_tanh', 1, False, None), ('relu2', 'rnn_relu', 2, False, None),
               ('tanh-bi', 'rnn_tanh', 1, True, None), ('lstm', 'lstm', 1, False, None),
               ('lstm2-bi', 'lstm', 2, True, None), ('gru', 'gru', 1, False, None),
               ('gru2-bi', 'gru', 2, True, None), ('lstmp', 'lstm', 1, False, P)]


def _with_dtypes(arrays, *dtypes):
    """``arrays`` plus a copy of each in every dtype, named ``<name>_<dtype code>``."""
    codes = {np.float64: 'f64', np.float16: 'f16', np.int32: 'i32'}
    return dict(arrays, **{'%s_%s' % (name, codes[dtype]): a.astype(dtype)
                           for name, a in arrays.items() for dtype in dtypes})


def _rnn_inputs(rng):
    f32 = np.float32
    inputs = {'rnn_x2d': rng.uniform(-1, 1, (N, I)).astype(f32),
              'rnn_hp': rng.uniform(-0.5, 0.5, (1, N, P)).astype(f32),
              'rnn_h2': rng.uniform(-0.5, 0.5, (2, N, H)).astype(f32),
              'rnn_h4': rng.uniform(-0.5, 0.5, (4, N, H)).astype(f32),
              'rnn_len_full': np.array([T, T], dtype=f32),
              'rnn_len': np.array([1, T], dtype=f32),
              'rnn_len_bad': np.array([1, T + 1], dtype=f32),
              'rnn_len3': np.array([1, 2, 3], dtype=f32)}
    for name, mode, layers, bidirectional, projection in RNN_CONFIGS:
        count = rnn_parameter_count(mode, layers, 2 if bidirectional else 1, projection)
        inputs['rnn_p_' + name] = rng.uniform(-0.6, 0.6, count).astype(f32)
    other_dtypes = {'rnn_x': rng.uniform(-1, 1, (T, N, I)).astype(f32),
                    'rnn_h1': rng.uniform(-0.5, 0.5, (1, N, H)).astype(f32),
                    'rnn_p_lstm': inputs.pop('rnn_p_lstm'), 'rnn_p_gru': inputs.pop('rnn_p_gru')}
    # the int32 copies are scaled: integers, not all zeros
    other_dtypes = _with_dtypes(other_dtypes, np.float64, np.float16)
    other_dtypes.update({name + '_i32': (other_dtypes[name] * 4).astype(np.int32)
                         for name in ('rnn_x', 'rnn_h1', 'rnn_p_lstm', 'rnn_p_gru')})
    return dict(inputs, **other_dtypes)


def _image_inputs(rng):
    """LRN's, and the spatial transformers' data, grids and affine matrices."""
    image = rng.uniform(-2, 2, (2, 5, 3, 3)).astype(np.float32)
    theta = np.array([[1.1, 0.2, 0.1, -0.15, 0.9, 0.05], [0.7, -0.3, -0.2, 0.25, 1.2, 0.1]])
    grid = rng.uniform(-1.2, 1.2, (2, 2, 3, 2))
    flow = rng.uniform(-1.5, 1.5, (2, 2, 3, 4))
    inputs = _with_dtypes({'st_theta': theta.astype(np.float32)}, np.float64, np.float16)
    inputs.update(_with_dtypes({'st_grid': grid.astype(np.float32),
                                'st_data': rng.randn(2, 3, 4, 5).astype(np.float32)},
                               np.float64, np.float16, np.int32))
    return dict(inputs, lrn_x=image, lrn_x3d=image[0], lrn_x_f64=image.astype(np.float64),
                st_theta5=inputs['st_theta'][:, :5], st_grid1=inputs['st_grid'][:1],
                st_flow=flow.astype(np.float32), st_flow3=flow[:, :1].astype(np.float32))


def _roi_inputs(rng):
    rois = np.array([[0, 0, 0, 4, 3], [1, 1.4, 0.6, 6.5, 5.5], [1, 2, 2, 2, 2],
                     [-1, 0, 0, 3, 3], [0, 5, 4, 20, 20], [1, 3, 1, 0, 0]], dtype=np.float32)
    inputs = _with_dtypes({'roi_x': rng.randn(2, 3, 6, 7).astype(np.float32), 'roi_rois': rois},
                          np.float64, np.float16, np.int32)
    return dict(inputs, roi_rois4=rois[:, :4], roi_ties=np.ones((1, 2, 4, 4), dtype=np.float32),
                roi_box=np.array([[0, 0, 0, 3, 3]], dtype=np.float32),
                roi_rois_oob=np.array([[5, 0, 0, 2, 2]], dtype=np.float32))


def _correlation_inputs(rng):
    maps = {'corr_a': rng.randn(2, 3, 7, 8).astype(np.float32),
            'corr_b': rng.randn(2, 3, 7, 8).astype(np.float32)}
    inputs = _with_dtypes(maps, np.float64, np.float16, np.int32)
    return dict(inputs, corr_b2=maps['corr_b'][:, :2])


def make_inputs():
    rng = np.random.RandomState(11)
    inputs = {}
    for family in (_rnn_inputs, _image_inputs, _roi_inputs, _correlation_inputs):
        inputs.update(family(rng))
    return inputs


def _rnn_call(case_id, name, *extra, dtype='', grad=True, tol=None, **kwargs):
    """An RNN call of the configuration ``name`` on the standard inputs (the data, the
    parameters, the initial state and, for an LSTM, the cell) plus ``extra`` inputs."""
    _, mode, layers, bidirectional, projection = next(c for c in RNN_CONFIGS if c[0] == name)
    stacked = layers * (2 if bidirectional else 1)
    state = nd('rnn_hp' if projection else 'rnn_h%d' % stacked)
    cell = [nd('rnn_h%d%s' % (stacked, dtype))] if mode == 'lstm' else []
    if dtype:
        state = nd('rnn_h1' + dtype)
    args = [nd('rnn_x' + dtype), nd('rnn_p_' + name + dtype), state] + cell + list(extra)
    options = dict(state_size=H, num_layers=layers, mode=mode)
    if bidirectional:
        options['bidirectional'] = True
    if projection:
        options['projection_size'] = projection
    options.update(kwargs)
    return case(case_id, 'RNN', *args, grad=tuple(range(len(args) - len(extra)))
                if grad else (), tol=tol, **options)


def rnn_cases():
    cases = []
    for name, *_, projection in RNN_CONFIGS:
        # MXNet 1.9.1 differentiates no projection on the CPU: that is a divergence
        cases.append(_rnn_call('RNN/%s' % name, name, grad=not projection))
        cases.append(_rnn_call('RNN/%s-states' % name, name, state_outputs=True))
    cases += [
        _rnn_call('RNN/lstm-float64', 'lstm', dtype='_f64', state_outputs=True),
        _rnn_call('RNN/gru-float64', 'gru', dtype='_f64', state_outputs=True),
        _rnn_call('RNN/lstm-float16', 'lstm', dtype='_f16', grad=False),
        _rnn_call('RNN/gru-int32', 'gru', dtype='_i32', grad=False),
        _rnn_call('RNN/lstm-dropout-inference', 'lstm2-bi', grad=False, p=0.5),
        _rnn_call('RNN/sequence-length-full', 'gru2-bi', nd('rnn_len_full'),
                  use_sequence_length=True, state_outputs=True),
        _rnn_call('RNN/sequence-length', 'lstm2-bi', nd('rnn_len'), use_sequence_length=True,
                  state_outputs=True),
        _rnn_call('RNN/sequence-length-too-long', 'gru', nd('rnn_len_bad'),
                  use_sequence_length=True, grad=False),
        _rnn_call('RNN/sequence-length-wrong-shape', 'gru', nd('rnn_len3'),
                  use_sequence_length=True, grad=False),
        _rnn_call('RNN/sequence-length-missing', 'gru', use_sequence_length=True, grad=False),
        _rnn_call('RNN/sequence-length-unused', 'gru', nd('rnn_len'), grad=False),
        _rnn_call('RNN/lstm-clip-wide', 'lstm', lstm_state_clip_min=-10.0,
                  lstm_state_clip_max=10.0, state_outputs=True),
        _rnn_call('RNN/lstm-clip', 'lstm', lstm_state_clip_min=-0.05,
                  lstm_state_clip_max=0.05, state_outputs=True, grad=False),
        _rnn_call('RNN/p-above-one', 'lstm', grad=False, p=1.5),
        _rnn_call('RNN/bad-mode', 'gru', grad=False, mode='elman'),
        _rnn_call('RNN/gru-projection', 'gru', grad=False, projection_size=P),
        _rnn_call('RNN/wrong-layers', 'gru', grad=False, num_layers=2),
        _rnn_call('RNN/wrong-state-size', 'lstm', grad=False, state_size=H + 1),
        _rnn_call('RNN/wrong-direction', 'lstm', grad=False, bidirectional=True),
        case('RNN/no-state-size', 'RNN', nd('rnn_x'), nd('rnn_p_gru'), nd('rnn_h1'),
             num_layers=1, mode='gru'),
        case('RNN/lstm-without-cell', 'RNN', nd('rnn_x'), nd('rnn_p_lstm'), nd('rnn_h1'),
             state_size=H, num_layers=1, mode='lstm'),
        case('RNN/gru-with-cell', 'RNN', nd('rnn_x'), nd('rnn_p_gru'), nd('rnn_h1'),
             nd('rnn_h1'), state_size=H, num_layers=1, mode='gru'),
        case('RNN/data-2d', 'RNN', nd('rnn_x2d'), nd('rnn_p_gru'), nd('rnn_h1'),
             state_size=H, num_layers=1, mode='gru'),
        case('RNN/mixed-dtypes', 'RNN', nd('rnn_x'), nd('rnn_p_gru_f64'), nd('rnn_h1'),
             state_size=H, num_layers=1, mode='gru'),
        case('RNN/keywords', 'RNN', data=nd('rnn_x'), parameters=nd('rnn_p_tanh'),
             state=nd('rnn_h1'), state_size=H, num_layers=1, mode='rnn_tanh',
             state_outputs=True),
    ]
    return cases


def lrn_cases():
    x = nd('lrn_x')
    return [
        case('LRN', 'LRN', x, nsize=3, grad=(0,)),
        case('LRN/even-nsize', 'LRN', x, nsize=4, alpha=0.5, beta=0.5, knorm=1.0, grad=(0,)),
        case('LRN/nsize-1', 'LRN', x, nsize=1, alpha=0.3, grad=(0,)),
        case('LRN/nsize-beyond-channels', 'LRN', x, nsize=9, alpha=2.0, beta=1.5, grad=(0,)),
        case('LRN/text-params', 'LRN', x, nsize='5', alpha='0.1', knorm='1'),
        case('LRN/nsize-0', 'LRN', x, nsize=0),
        case('LRN/nsize-negative', 'LRN', x, nsize=-1),
        case('LRN/no-nsize', 'LRN', x),
        case('LRN/3d', 'LRN', nd('lrn_x3d'), nsize=3),
        case('LRN/2d', 'LRN', nd('r34'), nsize=3, alpha=2.0, grad=(0,)),
        case('LRN/float64', 'LRN', nd('lrn_x_f64'), nsize=3),
        case('LRN/unknown-kwarg', 'LRN', x, nsize=3, size=3),
    ]


def spatial_cases():
    theta, data = nd('st_theta'), nd('st_data')
    affine = dict(transform_type='affine', sampler_type='bilinear')
    return [
        case('GridGenerator/affine', 'GridGenerator', theta, transform_type='affine',
             target_shape=tup(3, 4), grad=(0,)),
        case('GridGenerator/affine-one-pixel', 'GridGenerator', theta, transform_type='affine',
             target_shape=tup(1, 1)),
        case('GridGenerator/warp', 'GridGenerator', nd('st_flow'), transform_type='warp',
             grad=(0,)),
        case('GridGenerator/warp-ignores-target', 'GridGenerator', nd('st_flow'),
             transform_type='warp', target_shape=tup(7, 7)),
        case('GridGenerator/no-target', 'GridGenerator', theta, transform_type='affine'),
        case('GridGenerator/five-numbers', 'GridGenerator', nd('st_theta5'),
             transform_type='affine', target_shape=tup(2, 2)),
        case('GridGenerator/warp-three-channels', 'GridGenerator', nd('st_flow3'),
             transform_type='warp'),
        case('GridGenerator/float64', 'GridGenerator', nd('st_theta_f64'),
             transform_type='affine', target_shape=tup(2, 2)),
        case('GridGenerator/no-type', 'GridGenerator', theta, target_shape=tup(2, 2)),
        case('BilinearSampler', 'BilinearSampler', data, nd('st_grid'), grad=(0, 1)),
        case('BilinearSampler/float64', 'BilinearSampler', nd('st_data_f64'),
             nd('st_grid_f64'), grad=(0, 1)),
        case('BilinearSampler/float16', 'BilinearSampler', nd('st_data_f16'),
             nd('st_grid_f16')),
        case('BilinearSampler/int32', 'BilinearSampler', nd('st_data_i32'), nd('st_grid_i32')),
        case('BilinearSampler/batch-mismatch', 'BilinearSampler', data, nd('st_grid1')),
        case('BilinearSampler/grid-channels', 'BilinearSampler', data, nd('st_flow3')),
        case('BilinearSampler/mixed-dtypes', 'BilinearSampler', data, nd('st_grid_f64')),
        case('BilinearSampler/3d', 'BilinearSampler', nd('lrn_x3d'), nd('st_grid')),
        # θ's gradient sums products over the grid with cancellation: float32 rounding
        case('SpatialTransformer', 'SpatialTransformer', data, theta, target_shape=tup(3, 4),
             grad=(0, 1), tol=(1e-5, 1e-5), **affine),
        case('SpatialTransformer/upsample', 'SpatialTransformer', data, theta,
             target_shape=tup(6, 7), grad=(0, 1), **affine),
        case('SpatialTransformer/float64', 'SpatialTransformer', nd('st_data_f64'),
             nd('st_theta_f64'), target_shape=tup(3, 4), grad=(0, 1), **affine),
        case('SpatialTransformer/float16', 'SpatialTransformer', nd('st_data_f16'),
             nd('st_theta_f16'), target_shape=tup(3, 4), **affine),
        case('SpatialTransformer/mixed-dtypes', 'SpatialTransformer', nd('st_data_f16'),
             nd('st_theta_f64'), target_shape=tup(3, 4), **affine),
        case('SpatialTransformer/no-target', 'SpatialTransformer', data, theta, **affine),
        case('SpatialTransformer/five-numbers', 'SpatialTransformer', data, nd('st_theta5'),
             target_shape=tup(3, 4), **affine),
        case('SpatialTransformer/bad-sampler', 'SpatialTransformer', data, theta,
             target_shape=tup(3, 4), transform_type='affine', sampler_type='nearest'),
    ]


def roi_cases():
    x, rois = nd('roi_x'), nd('roi_rois')
    return [
        case('ROIPooling', 'ROIPooling', x, rois, pooled_size=tup(2, 3), spatial_scale=1.0,
             grad=(0, 1)),
        case('ROIPooling/scaled', 'ROIPooling', x, rois, pooled_size=tup(3, 2),
             spatial_scale=0.5, grad=(0,)),
        case('ROIPooling/fine-bins', 'ROIPooling', x, rois, pooled_size=tup(4, 5),
             spatial_scale=0.8, grad=(0,)),
        case('ROIPooling/ties', 'ROIPooling', nd('roi_ties'), nd('roi_box'),
             pooled_size=tup(2, 2), spatial_scale=1.0, grad=(0,)),
        case('ROIPooling/float64', 'ROIPooling', nd('roi_x_f64'), nd('roi_rois_f64'),
             pooled_size=tup(2, 2), spatial_scale=1.0, grad=(0,)),
        case('ROIPooling/float16', 'ROIPooling', nd('roi_x_f16'), nd('roi_rois_f16'),
             pooled_size=tup(2, 2), spatial_scale=1.0),
        case('ROIPooling/int32', 'ROIPooling', nd('roi_x_i32'), nd('roi_rois_i32'),
             pooled_size=tup(2, 2), spatial_scale=1.0),
        case('ROIPooling/mixed-dtypes', 'ROIPooling', x, nd('roi_rois_f64'),
             pooled_size=tup(2, 2), spatial_scale=1.0),
        case('ROIPooling/four-columns', 'ROIPooling', x, nd('roi_rois4'),
             pooled_size=tup(2, 2), spatial_scale=1.0),
        case('ROIPooling/3d', 'ROIPooling', nd('lrn_x3d'), rois, pooled_size=tup(2, 2),
             spatial_scale=1.0),
        case('ROIPooling/one-size', 'ROIPooling', x, rois, pooled_size=tup(2),
             spatial_scale=1.0),
        case('ROIPooling/zero-size', 'ROIPooling', x, rois, pooled_size=tup(0, 2),
             spatial_scale=1.0),
        case('ROIPooling/no-scale', 'ROIPooling', x, rois, pooled_size=tup(2, 2)),
        case('ROIPooling/scale-above-one', 'ROIPooling', x, rois, pooled_size=tup(2, 2),
             spatial_scale=2.0),
        case('ROIPooling/batch-index-out-of-range', 'ROIPooling', x, nd('roi_rois_oob'),
             pooled_size=tup(2, 2), spatial_scale=1.0),
    ]


def correlation_cases():
    a, b = nd('corr_a'), nd('corr_b')
    settings = {'defaults': {}, 'k3-d2-pad1': dict(kernel_size=3, max_displacement=2, pad_size=1),
                'subtract-strided': dict(kernel_size=3, max_displacement=4, stride1=2,
                                         stride2=2, pad_size=2, is_multiply=False),
                'stride2': dict(max_displacement=3, stride2=2),
                'k5-pad3': dict(kernel_size=5, max_displacement=2, stride1=2, pad_size=3),
                'no-displacement': dict(max_displacement=0, kernel_size=3)}
    cases = [case('Correlation/' + name, 'Correlation', a, b, grad=(0, 1), **kwargs)
             for name, kwargs in settings.items()]
    return cases + [
        case('Correlation/float64', 'Correlation', nd('corr_a_f64'), nd('corr_b_f64'),
             kernel_size=3, grad=(0, 1)),
        case('Correlation/float16', 'Correlation', nd('corr_a_f16'), nd('corr_b_f16'),
             max_displacement=2),
        case('Correlation/even-kernel', 'Correlation', a, b, kernel_size=2),
        case('Correlation/does-not-fit', 'Correlation', a, b, max_displacement=5),
        case('Correlation/stride1-zero', 'Correlation', a, b, stride1=0),
        case('Correlation/3d', 'Correlation', nd('lrn_x3d'), nd('lrn_x3d')),
        case('Correlation/int32', 'Correlation', nd('corr_a_i32'), nd('corr_b_i32')),
        case('Correlation/mixed-dtypes', 'Correlation', a, nd('corr_b_f64')),
        case('Correlation/channel-mismatch', 'Correlation', a, nd('corr_b2')),
        case('Correlation/stride2-zero', 'Correlation', a, b, stride2=0),
    ]


def all_cases():
    return rnn_cases() + lrn_cases() + spatial_cases() + roi_cases() + correlation_cases()


#: Where gluonedu differs from MXNet 1.9.1 on purpose (docs/divergences.md): why, and
#: gluonedu's outcome.
DIVERGENCES = {
    'RNN/sequence-length': ("MXNet 1.9.1's CPU operator ignores sequence_length (only its "
                            "cuDNN one honours it); gluonedu computes what it documents",
                            'ok'),
    'RNN/sequence-length-too-long': ("MXNet 1.9.1's CPU operator ignores sequence_length; "
                                     "gluonedu refuses lengths beyond the data's",
                                     'MXNetError'),
    'LRN/nsize-0': ("MXNet 1.9.1 returns zeros (and NaN gradients) for a window of no "
                    "channels; gluonedu refuses nsize=0", 'MXNetError'),
    'LRN/nsize-negative': ("MXNet 1.9.1 takes a negative nsize (declared non-negative) and "
                           "returns numbers; gluonedu refuses it", 'MXNetError'),
    'ROIPooling/batch-index-out-of-range': ("MXNet 1.9.1 reads past its input for a batch "
                                            "index beyond the batch", 'MXNetError'),
    'Correlation/channel-mismatch': ("MXNet 1.9.1 compares inputs of different shapes, "
                                     "reading past the smaller one", 'MXNetError'),
    'Correlation/stride2-zero': ("MXNet 1.9.1 crashes (division by zero)", 'MXNetError'),
    'RNN/lstmp': ("MXNet 1.9.1's CPU operator crashes on an LSTM with a projection; "
                  "gluonedu computes it (MXNet's packing: i2h, h2h, h2r weights per layer "
                  "and direction)", 'ok'),
    'RNN/lstmp-states': ("MXNet 1.9.1 cannot differentiate an LSTM with a projection on "
                         "the CPU; gluonedu can", 'ok'),
    'RNN/lstm-clip': ("MXNet 1.9.1's CPU operator ignores lstm_state_clip_min/max (only its "
                      "cuDNN one clips); gluonedu clips as documented", 'ok'),
}


def extend(cases, inputs, divergences):
    """``ops_cases``' ``all_cases``, ``make_inputs`` and ``DIVERGENCES`` with these added."""
    return (lambda: cases() + all_cases(), lambda: dict(inputs(), **make_inputs()),
            dict(divergences, **DIVERGENCES))
