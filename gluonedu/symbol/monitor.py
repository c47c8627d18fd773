"""The names MXNet 1.9.1's operator monitor gives the arrays of a graph's nodes.

``HybridBlock.register_op_hook`` calls its callback with ``<node name>_<array name>``:
for an input, the name the operator declares for it (MXNet's ``FListInputNames``) or,
where it declares none, ``input0``, ``input1``, ...; for an output, the declared output
name (``FListOutputNames``) or its index ``0``, ``1``, .... Which operators declare names
is a fact of MXNet's registry, not of their symbols (``relu``'s symbol input is ``data``,
its monitored input ``input0``): the tables below hold it, as MXNet 1.9.1 answers
(tests/parity/gluon/test_op_hook_parity.py asks it). An operator absent from the tables
is taken to name its inputs when it has several and its outputs by index, as most do.
"""
__all__ = ['input_names', 'output_names']

#: Operators of one (or an optional second) input that name it.
_NAMED_INPUTS = frozenset((
    'Dropout', 'GridGenerator', 'L2Normalization', 'LRN', 'LeakyReLU', 'Pad', 'Pooling',
    'SequenceLast', 'SequenceMask', 'SequenceReverse', 'SliceChannel', 'SwapAxis', 'col2im',
    'depth_to_space', 'diag', 'im2col', 'log_softmax', 'moments', 'one_hot', 'repeat',
    'reverse', 'softmax', 'space_to_depth', 'squeeze', 'tile', '_np_cumsum',
    '_ravel_multi_index', '_unravel_index',
    '_linalg_det', '_linalg_extractdiag', '_linalg_extracttrian', '_linalg_gelqf',
    '_linalg_inverse', '_linalg_makediag', '_linalg_maketrian', '_linalg_potrf',
    '_linalg_potri', '_linalg_slogdet', '_linalg_sumlogdiag', '_linalg_syevd',
    '_linalg_syrk'))

#: How operators of any number of inputs name them (others: ``arg0``, ``arg1``, ...).
_VARIADIC_INPUTS = {'amp_multicast': 'data_%d'}

#: Operators that name their outputs (as their symbols do), and the names where these
#: differ from the symbol's.
_NAMED_OUTPUTS = frozenset((
    'Activation', 'BatchNorm', 'BilinearSampler', 'Concat', 'Convolution', 'Correlation',
    'Deconvolution', 'Dropout', 'FullyConnected', 'GridGenerator', 'GroupNorm',
    'InstanceNorm', 'L2Normalization', 'LRN', 'LayerNorm', 'LeakyReLU', 'Pad', 'Pooling',
    'RNN', 'ROIPooling', 'SequenceLast', 'SequenceMask', 'SequenceReverse', 'SliceChannel',
    'SoftmaxActivation', 'SpatialTransformer', 'SwapAxis', 'UpSampling', 'col2im',
    'elemwise_add', 'im2col', 'make_loss', 'softmax', 'softmin'))
_OUTPUT_NAMES = {'make_loss': ('loss',)}


def input_names(op, params):
    """The names MXNet's monitor gives the inputs of ``op`` called with ``params``."""
    if op.variadic:
        pattern = _VARIADIC_INPUTS.get(op.name, 'arg%d')
        return tuple(pattern % i for i in range(op.count_inputs(params)))
    names = op.list_inputs(params)
    named = op.name in _NAMED_INPUTS or len(op.input_names) > 1
    return names if named else tuple('input%d' % i for i in range(len(names)))


def output_names(op, params):
    """The names MXNet's monitor gives the (visible) outputs of ``op`` with ``params``."""
    if op.name in _OUTPUT_NAMES:
        return _OUTPUT_NAMES[op.name]
    if op.name in _NAMED_OUTPUTS:
        return op.output_names(params)
    return tuple(str(i) for i in range(op.num_outputs(params)))
