"""Operator parity cases sized for the fast convolution paths (imported by nn_driver).

The random cases of :mod:`nn_driver` have at most 9 channels, below where the Winograd
kernels start (16 input and output channels, 3×3, stride 1): these reach them, with
each pad they accept (0 to 2), odd and even sizes (partial tiles), exact (dyadic: the
transforms' ±½ keep them exact) and normal inputs; and 1×1 kernels with a stride,
which run as channel-first products. Imports neither mxnet nor gluonedu.
"""

__all__ = ['fast_path_cases']


def fast_path_cases():
    """Convolution cases for the Winograd and 1×1 kernels."""
    specs = [  # (data shape, num_filter, kernel, stride, pad)
        ([2, 16, 7, 6], 16, [3, 3], None, [1, 1]),
        ([1, 17, 5, 8], 18, [3, 3], None, [0, 2]),
        ([2, 16, 6, 5], 20, [3, 3], None, [2, 0]),
        ([2, 16, 4, 4], 16, [3, 3], None, None),
        ([2, 18, 7, 5], 16, [1, 1], [2, 2], None),
        ([1, 5, 6, 7], 4, [1, 1], [3, 1], None),
    ]
    cases = []
    for i, (shape, filters, kernel, stride, pad) in enumerate(specs):
        for exact in (True, False):
            dist = 'dyadic' if exact else 'normal'
            params = {'kernel': kernel, 'num_filter': filters}
            if stride:
                params['stride'] = stride
            if pad:
                params['pad'] = pad
            cases.append({'id': 'Convolution-fast-%d%s' % (i, '-exact' if exact else ''),
                          'op': 'Convolution', 'params': params, 'exact': exact,
                          'seed': 3000 + 2 * i + exact,
                          'inputs': [['data', shape, dist],
                                     ['weight', [filters, shape[1]] + kernel, dist],
                                     ['bias', [filters], dist]]})
    return cases
