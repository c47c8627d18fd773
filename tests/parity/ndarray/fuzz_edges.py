"""Differential fuzz cases for the edges of ``mx.nd`` outside the operator table (issue 31).

:func:`generate` draws, with Hypothesis (seeded: ``derandomize=True``, no example
database), calls in :mod:`ops_driver`'s case format and the named inputs they use, the
same number for each surface of :data:`SURFACES`:

* ``binary``: the Python-level helpers (``nd.greater`` ...) and the operators (``>``,
  ``-``, ...) with an array or a number on either side or on both, numbers of every kind
  (bool, int, float, NaN and infinities, NumPy scalars) and operands that are neither;
* ``creation``: ``nd.array`` of numbers, nested lists (ragged, holding None or text,
  empty), NumPy and NDArray sources; ``zeros``, ``ones``, ``empty``, ``full``, ``arange``
  and ``astype``; each with a dtype that is valid, one NDArrays cannot hold, or no dtype;
* ``file``: ``nd.load_frombuffer`` of MXNet-format bytes with drawn headers: versions,
  storage types, dimensions (empty arrays of huge sizes too), devices, type flags, names,
  and payloads of the right length or not;
* ``parameter_load``: ``ParameterDict.load`` of lists and dicts of arrays, names with
  and without prefixes, and its keywords;
* ``one_cycle`` and ``lr_find``: gluonedu additions (MXNet 1.9.1 has neither), with
  extreme and invalid hyper-parameters and batches of every form.

The cases are plain JSON: the MXNet 1.9.1 oracle runs them without importing gluonedu.
"""
import struct

import numpy as np
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

#: The surfaces that only gluonedu has: judged by what they promise, not against MXNet.
GLUONEDU_ONLY = ('one_cycle', 'lr_find')

HELPERS = ('add', 'subtract', 'multiply', 'divide', 'true_divide', 'modulo', 'power',
           'maximum', 'minimum', 'equal', 'not_equal', 'greater', 'greater_equal', 'lesser',
           'lesser_equal', 'logical_and', 'logical_or', 'logical_xor')
OPERATORS = ('add', 'sub', 'mul', 'truediv', 'mod', 'pow', 'eq', 'ne', 'lt', 'le', 'gt',
             'ge')
ARRAY_DTYPES = ('float32',) * 4 + ('float64', 'float16', 'int32', 'int64', 'uint8', 'int8')
NAN, INF = {'float': 'nan'}, {'float': 'inf'}
#: Numbers beside an array (MXNet converts them to the array's dtype first).
NUMBERS = (2, 0, -1, 3, 7, 2 ** 31, 2 ** 40, 0.5, -2.5, 1e308, -0.0, 1e-40, True, False,
           NAN, INF, {'float': '-inf'}, {'scalar': 2.5, 'dtype': 'float32'},
           {'scalar': -3, 'dtype': 'int8'}, {'scalar': 200, 'dtype': 'uint8'},
           {'scalar': True, 'dtype': 'bool'}, {'scalar': 2 ** 40, 'dtype': 'int64'},
           {'scalar': NAN, 'dtype': 'float64'})
#: Numbers for a call of two numbers, which MXNet computes in Python: no huge powers, and
#: no NumPy scalars (their arithmetic is NumPy's, whose rules NumPy 2 changed).
SMALL_NUMBERS = (2, 3, 0, -1, 0.5, -2.5, True, False, NAN, INF)
#: Operands that are neither an NDArray nor a number.
NOT_NUMBERS = (None, 'x', [1, 2], {'tuple': [1]})
DTYPES = (None, 'float32', 'float16', 'float64', 'int32', 'int64', 'uint8', 'int8', 'bool',
          'int16', 'object', 'complex64', 'foo', 'None', {'dtype': 'float64'})
SOURCES = (3, 2.5, True, None, [None], [1, None], [], [[]], [[1, 2], [3]], [1, 2],
           [[1, 2], [3, 4]], 'abc', ['1.5'], [1.5, 'x'], {'tuple': [1, 2]}, [True, False],
           [2 ** 40], [300], [-1], [1e40], [NAN], [INF], [[0.5], [-2]])
SHAPES = (3, {'tuple': [2, 3]}, {'tuple': [0]}, {'tuple': [2, 0]}, {'tuple': []}, 0, -1,
          {'tuple': [2, -1]}, 2.5, None, 'x', {'tuple': [1, 2.0]}, [2, 2])
FILL_VALUES = (2, -1.5, NAN, True, None, 'x', [1, 2], {'scalar': 300, 'dtype': 'int64'})
ARANGE_VALUES = (0, 1, 3, -2, 2.5, 0.5, -0.5, None)


def _array(draw, rng, key, inputs, shape=None, dtype=None):
    """``{"nd": key}``, an input of a drawn (or the given) shape and dtype."""
    shape = shape if shape is not None else draw(st.sampled_from(
        ((3,), (2, 3), (1, 3), (2, 1), (0,), (0, 3), (4,))))
    dtype = dtype or draw(st.sampled_from(ARRAY_DTYPES))
    values = rng.uniform(-4, 4, size=shape)
    if np.dtype(dtype).kind in 'iu':
        values = np.round(values) + (4 if dtype[0] == 'u' else 0)
    inputs[key] = values.astype(dtype)
    return {'nd': key}


# ---------------------------------------------------------------------- surfaces
#: Every binary operation of ``mx.nd``: a helper's name, or ``op:`` and an operator's.
BINARY = HELPERS + tuple('op:' + name for name in OPERATORS)
#: The operands' kinds, cycled through with the operations.
BINARY_KINDS = ('number-array', 'array-number', 'array-array', 'number-number', 'other')


def draw_binary(draw, rng, case_id, inputs, index):
    """Call ``index`` of the surface: operation and operands' kinds in turn (so that 150
    calls give every operation with each kind), the operands drawn."""
    name = BINARY[index % len(BINARY)]
    kind = BINARY_KINDS[index // len(BINARY) % len(BINARY_KINDS)]
    # (every call draws the same things, whatever its index: Hypothesis replays draws)
    side = draw(st.sampled_from(('array-other', 'other-array')))
    kind = side if kind == 'other' else kind
    first = _array(draw, rng, case_id + ':0', inputs)
    shape = inputs[case_id + ':0'].shape
    second = _array(draw, rng, case_id + ':1', inputs, shape=draw(st.sampled_from(
        (shape, shape, (1,) + shape[1:], shape[-1:], (5,)))))
    number = draw(st.sampled_from(NUMBERS))
    other = draw(st.sampled_from(NOT_NUMBERS))
    args = {'array-number': [first, number], 'number-array': [number, first],
            'array-array': [first, second], 'array-other': [first, other],
            'other-array': [other, first],
            'number-number': [draw(st.sampled_from(SMALL_NUMBERS)),
                              draw(st.sampled_from(SMALL_NUMBERS))]}[kind]
    if not name.startswith('op:'):
        return {'id': case_id, 'call': name, 'args': args, 'kwargs': {}}
    if kind == 'number-number':  # Python itself computes two numbers: no NDArray involved
        args[0] = first
    return {'id': case_id, 'operator': name[3:], 'args': args}


def draw_creation(draw, rng, case_id, inputs, index):
    kind = draw(st.sampled_from(('array', 'array', 'array-numpy', 'zeros', 'ones', 'empty',
                                 'full', 'arange', 'astype')))
    dtype = draw(st.sampled_from(DTYPES))
    kwargs = {} if dtype is None and draw(st.booleans()) else {'dtype': dtype}
    if kind == 'array':
        return {'id': case_id, 'call': 'array', 'args': [draw(st.sampled_from(SOURCES))],
                'kwargs': kwargs}
    if kind == 'array-numpy':
        source = _array(draw, rng, case_id, inputs, dtype=draw(st.sampled_from(
            ARRAY_DTYPES + ('bool', 'int16', 'complex64', 'float64'))))
        if draw(st.booleans()):
            source = {'np': case_id}
        return {'id': case_id, 'call': 'array', 'args': [source], 'kwargs': kwargs}
    if kind == 'astype':
        return {'id': case_id, 'method': 'astype', 'self': _array(draw, rng, case_id, inputs),
                'args': [dtype], 'kwargs': {}}
    if kind == 'arange':
        start, stop, step = (draw(st.sampled_from(ARANGE_VALUES)) for _ in range(3))
        return {'id': case_id, 'call': 'arange', 'args': [start, stop],
                'kwargs': dict(kwargs, **({} if step is None else {'step': step}))}
    args = [draw(st.sampled_from(SHAPES))]
    if kind == 'full':
        args.append(draw(st.sampled_from(FILL_VALUES)))
    # empty's values are whatever its memory held (gluonedu's are zeros)
    return {'id': case_id, 'call': kind, 'args': args, 'kwargs': kwargs,
            'compare': 'shape' if kind == 'empty' else 'values'}


_MAGICS = (0xF993FAC9, 0xF993FAC9, 0xF993FAC8, 0xF993FACA, None)  # v2, v1, v3, pre-v1
_SMALL_DIMS = (0, 1, 2, 3)
_HUGE_DIMS = (2 ** 31 - 1, 2 ** 31, 2 ** 40, 2 ** 62, 2 ** 63 - 1)


def _file_shape(draw):
    """Dimensions: small, or huge beside a 0 (an empty array: nothing to allocate, which
    keeps MXNet's reader from asking for terabytes); a few of a bad rank or size."""
    kind = draw(st.sampled_from(('small', 'small', 'empty-huge', 'bad')))
    if kind == 'bad':
        return draw(st.sampled_from(([-1, 2], [1] * 40, [1, 2 ** 62])))
    dims = [draw(st.sampled_from(_SMALL_DIMS)) for _ in range(draw(st.integers(1, 3)))]
    if kind == 'empty-huge':
        dims = [0] + [draw(st.sampled_from(_HUGE_DIMS)) for _ in dims]
        draw(st.randoms()).shuffle(dims)
    return dims


def draw_file(draw, rng, case_id, inputs, index):
    chunks = [struct.pack('<QQ', 0x112, 0)]
    count = draw(st.integers(0, 2))
    chunks.append(struct.pack('<Q', count))
    for _ in range(count):
        magic = draw(st.sampled_from(_MAGICS))
        dims = _file_shape(draw)
        if magic is None:
            chunks.append(struct.pack('<I%dI' % len(dims), len(dims),
                                      *[d & 0xFFFFFFFF for d in dims]))
        else:
            chunks.append(struct.pack('<I', magic))
            if magic != 0xF993FAC8:
                chunks.append(struct.pack('<i', draw(st.sampled_from((0, 0, 0, 1, 7)))))
            chunks.append(struct.pack('<i%dq' % len(dims), len(dims), *dims))
        flag = draw(st.sampled_from((0, 0, 1, 2, 3, 4, 6, 9, 12, 99)))
        chunks.append(struct.pack('<iii', draw(st.sampled_from((1, 1, 42))), 0, flag))
        size = int(np.prod(dims)) if all(0 <= d <= 3 for d in dims) else 0
        itemsize = {0: 4, 1: 8, 2: 2, 3: 1, 4: 4, 6: 8}.get(flag, 4)
        length = size * itemsize + draw(st.sampled_from((0, 0, 0, -1, 3)))
        chunks.append(rng.bytes(max(length, 0)))
    names = draw(st.sampled_from(([], [], [b'w'], [b'a', b'b'], [b'\xff'])))
    chunks.append(struct.pack('<Q', len(names)))
    for name in names:
        chunks.append(struct.pack('<Q', len(name)) + name)
    inputs[case_id] = np.frombuffer(b''.join(chunks), dtype=np.uint8)
    return {'id': case_id, 'scenario': 'load_frombuffer', 'args': [{'bytes': case_id}],
            'kwargs': {}}


def draw_parameter_load(draw, rng, case_id, inputs, index):
    names = draw(st.sampled_from((['w'], ['w', 'b'])))
    shapes = [[2, 3], [3]][:len(names)]
    saved_shapes = [draw(st.sampled_from(([2, 3], [3], [3, 2], [1]))) for _ in
                    range(draw(st.integers(0, 3)))]
    saved = [_array(draw, rng, '%s:%d' % (case_id, i), inputs, shape=tuple(shape),
                    dtype=draw(st.sampled_from(('float32', 'float32', 'float64'))))
             for i, shape in enumerate(saved_shapes)]
    saved_names = draw(st.sampled_from((None, ['w', 'b', 'c'], ['net_w', 'net_b', 'x'],
                                        ['arg:net_w', 'aux:net_b', 'c'])))
    kwargs = {key: draw(st.booleans()) for key in ('allow_missing', 'ignore_extra',
                                                   'cast_dtype') if draw(st.booleans())}
    prefix = draw(st.sampled_from((None, '', 'net_', 'x_')))
    if prefix is not None:
        kwargs['restore_prefix'] = prefix
    return {'id': case_id, 'scenario': 'parameter_dict_load',
            'args': [{'list': saved}, None if saved_names is None else
                     saved_names[:len(saved)], names, shapes], 'kwargs': kwargs}


#: OneCycleScheduler's parameters: (valid values, the extremes among them; bad values).
ONE_CYCLE = {
    'max_lr': ((0.1, 1.0, 1e308, 1.7976931348623157e308, 5e-324, 1e-300),
               (0, -1, INF, NAN, 'x', None, True)),
    'total_steps': ((2, 3, 10), (1, 0, 2.5, True)),
    'pct_start': ((0.25, 0.5, 0.99, 1e-9), (0, 1, NAN, -0.1)),
    'div_factor': ((25., 1., 1e4, 1e308), (0.5, INF, NAN, 0)),
    'final_div_factor': ((1e4, 1., 1e308), (0.5, INF, NAN)),
    'base_momentum': ((0.85, 0.5, 1e-9), (0, 1, NAN, -0.1)),
    'max_momentum': ((0.95, 0.99, 0.9), (0, 1, NAN)),
    'cycle_momentum': ((True, False), ()),
}
#: lr_find's keywords, likewise.
LR_FIND = {
    'start_lr': ((1e-7, 1e-3, 5e-324), (0, -1, INF, NAN)),
    'end_lr': ((10., 1e308, 1e-2), (1e-8, INF, NAN)),
    'num_steps': ((2, 3), (1, 2.5, 0)),
    'smoothing': ((0.98, 0.), (1, NAN, -0.5)),
    'diverge_factor': ((4., 1.5, INF), (1, NAN, 0)),
}


def _parameters(draw, table, required=()):
    """Keyword arguments from ``table``: the ``required`` ones and about half of the others,
    valid ones, but in half of the calls one bad value."""
    bad = draw(st.sampled_from((None,) * 6 + tuple(k for k, (_, b) in table.items() if b)))
    kwargs = {}
    for key, (valid, invalid) in table.items():
        if key in required or key == bad or draw(st.booleans()):
            kwargs[key] = draw(st.sampled_from(invalid if key == bad else valid))
    return kwargs


def draw_one_cycle(draw, rng, case_id, inputs, index):
    kwargs = _parameters(draw, ONE_CYCLE, required=('max_lr', 'total_steps'))
    return {'id': case_id, 'scenario': 'one_cycle', 'args': [], 'kwargs': kwargs}


def draw_lr_find(draw, rng, case_id, inputs, index):
    size = draw(st.sampled_from((4, 4, 1, 0)))
    data = _array(draw, rng, case_id + ':x', inputs, shape=(size, 3), dtype='float32')
    label = _array(draw, rng, case_id + ':y', inputs, shape=(size, 1), dtype='float32')
    short = _array(draw, rng, case_id + ':s', inputs, shape=(2, 1), dtype='float32')
    pairs = ({'tuple': [data, label]}, [data, label],
             {'tuple': [{'np': case_id + ':x'}, {'np': case_id + ':y'}]})
    others = (data, {'tuple': [data]}, {'tuple': [data, label, label]},
              {'tuple': [data, None]}, {'tuple': [data, short]}, {'tuple': ['a', 'b']}, None)
    batch = draw(st.sampled_from(pairs if draw(st.booleans()) else others))
    kwargs = _parameters(draw, LR_FIND, required=('num_steps',))
    batches = draw(st.sampled_from(([batch], [batch, batch], [])))
    return {'id': case_id, 'scenario': 'lr_find', 'args': [batches], 'kwargs': kwargs}


SURFACES = {'binary': draw_binary, 'creation': draw_creation, 'file': draw_file,
            'parameter_load': draw_parameter_load, 'one_cycle': draw_one_cycle,
            'lr_find': draw_lr_find}


def surface(case):
    """The surface a case of :func:`generate` belongs to (its id's middle part)."""
    return case['id'].split('-')[1]


def generate(calls_per_surface):
    """(cases, inputs): ``calls_per_surface`` calls of each surface of :data:`SURFACES`
    (each drawn by ``draw_<surface>(draw, rng, case id, inputs, index)``, ``index`` the
    call's position among its surface's)."""
    cases, inputs = [], {}
    for name, draw_case in SURFACES.items():
        drawn = []

        @settings(max_examples=calls_per_surface, derandomize=True, database=None,
                  deadline=None, phases=[Phase.generate], suppress_health_check=list(HealthCheck))
        @given(st.data())
        def collect(data):
            number = len(cases) + len(drawn)
            arrays = {}
            case = draw_case(data.draw, np.random.RandomState(number),
                             'edge%04d-%s' % (number, name), arrays, len(drawn))
            case.setdefault('grad', [])
            case.setdefault('compare', 'values')
            case['seed'] = None
            drawn.append((case, arrays))

        collect()
        for case, arrays in drawn[:calls_per_surface]:
            cases.append(case)
            inputs.update(arrays)
    return cases, inputs
