"""Differential fuzz cases: generated calls of every operator in gluonedu's table.

:func:`generate` draws, with Hypothesis (seeded: ``derandomize=True``, no example
database), a batch of calls in :mod:`ops_driver`'s case format and the named input arrays
they use: the same number of calls for every operator of the table (called by its public
name, or through ``_internal`` for the ones the Python operators use). Each call draws

* input arrays: 1-4 dimensions of 0-4 elements (empty arrays included), one dtype for all
  (float32 mostly; float64, float16 and integer types too) or, sometimes, mixed; the
  second and later inputs have the first one's shape, a broadcast of it, the size of one
  of its axes (a bias, a gamma) or a shape of their own; inputs named like indices hold
  small integers;
* parameters: each left out (its default) or a valid value of its declared type (an axis
  anywhere in [-ndim - 1, ndim], shapes with 0 and -1 entries, every enum choice); in a
  third of the calls one mistake: a bad value (text that is no number, a float where an
  int belongs, an unknown choice), a required parameter left out, or an unknown keyword;
* a gradient (``grad``) of the float inputs in some of the calls.

The cases are plain JSON: the MXNet 1.9.1 oracle runs them without importing gluonedu.
"""
import re

import numpy as np
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import ops_outcomes
from gluonedu.ndarray import registry

#: Operators whose outputs are random: only shapes and dtypes are compared.
RANDOM_OUTPUT = ('_random_', '_sample_', '_shuffle', 'Dropout')
#: Input names that hold indices, labels or counts: small non-negative integers.
INDEX_INPUTS = ('indices', 'index', 'label', 'sequence_length', 'length', 'condition',
                'shape_like')
DTYPES = ('float32',) * 6 + ('float64',) * 2 + ('float16', 'int32', 'int32', 'int64',
                                                'uint8', 'int8')
FLOATS = ('float16', 'float32', 'float64')
#: MXNet's gradients of these carry single-precision constants even in float64 (relative
#: error ~1e-7): they are compared as float32 results are (docs/divergences.md).
SINGLE_PRECISION_GRADIENTS = ('erf', 'erfinv', 'gamma', 'gammaln')
BAD_VALUES = ('x', 2.5, '(1, x)', -7)
#: The batched linear-algebra operators: their square inputs are made well-conditioned,
#: and their results compared within LAPACK_TOLERANCE (MXNet's LAPACK calls and NumPy's
#: round differently; docs/divergences.md).
LINALG = '_linalg_'
LAPACK_TOLERANCE = (1e-4, 1e-5)


def fuzzed_ops():
    """The table's operators the suite calls, and the ``mx.nd`` name each is called by
    (MXNet has the ``_random_<name>_like`` samplers as ``random.<name>_like`` only, and
    ``_linalg_syevd`` as ``linalg.syevd``)."""
    ops = []
    for op in registry.list_ops():
        public = [n for n in (op.name,) + op.aliases if not n.startswith('_')]
        like = re.fullmatch(r'_random_(\w+_like)', op.name)
        ops.append((op, public[0] if public else
                    'random.' + like.group(1) if like else
                    'linalg.' + op.name[len('_linalg_'):] if op.name.startswith('_linalg_')
                    else '_internal.' + op.name))
    return ops


#: The table's operator behind each ``call`` of a case.
OPS_BY_CALL = {name: op for op, name in fuzzed_ops()}


def _shape(draw, min_ndim=1, max_ndim=4):
    ndim = draw(st.integers(min_ndim, max_ndim))
    return [draw(st.sampled_from((0, 1, 1, 2, 2, 3, 3, 4))) for _ in range(ndim)]


def _related_shape(draw, first):
    kind = draw(st.sampled_from(('same', 'same', 'broadcast', 'axis', 'own')))
    if kind == 'same' or not first:
        return list(first)
    if kind == 'broadcast':
        shape = [1 if draw(st.booleans()) else d for d in first]
        return shape[draw(st.integers(0, len(shape) - 1)):]
    if kind == 'axis':
        return [first[draw(st.integers(0, len(first) - 1))]]
    return _shape(draw)


def _value(draw, param, ndim, bad):
    """A value for ``param``: valid for its type, or a bad one."""
    if bad:
        return draw(st.sampled_from(BAD_VALUES))
    kind = type(param).__name__
    if kind == 'Int':
        low = param.low if param.low is not None else -2
        return draw(st.integers(low, low + 5))
    if kind == 'Float':
        return draw(st.sampled_from((0.0, 0.5, 1.0, 2.0, -1.0, 0.1, 1e-3)))
    if kind == 'Bool':
        return draw(st.sampled_from((True, False, 1, 0)))
    if kind == 'Axis':
        return draw(st.integers(-ndim - 1, ndim))
    if kind == 'Axes':
        return draw(st.one_of(st.none(), st.integers(-ndim - 1, ndim),
                              st.lists(st.integers(-ndim, ndim - 1), min_size=0,
                                       max_size=3).map(lambda a: {'tuple': a})))
    if kind == 'Shape':
        dims = draw(st.lists(st.sampled_from((-1, 0, 1, 1, 2, 2, 3, 4)), min_size=0,
                             max_size=4))
        return draw(st.sampled_from(({'tuple': dims}, dims[0] if dims else 1)))
    if kind in ('Enum', 'DType'):
        return draw(st.sampled_from(tuple(c for c in param.choices) + ('bogus',)))
    return 'cpu(0)' if param.name == 'ctx' else draw(st.sampled_from(('', 'x')))


def _input_array(draw, rng, name, shape, dtype, well_conditioned=False):
    if name in INDEX_INPUTS or (name == 'data' and dtype[0] in 'iu' and rng.rand() < 0.5):
        data = rng.randint(0, 4, size=shape)
    else:
        data = rng.uniform(-3, 3, size=shape)
        if dtype[0] in 'iu':
            data = np.round(data) + (3 if dtype[0] == 'u' else 0)
        elif well_conditioned and len(shape) >= 2 and shape[-1] == shape[-2]:
            data = data + _separated_diagonal(shape[-1])
    return data.astype(dtype)


def _separated_diagonal(n):
    """diag(8n, 16n, ..., 8n·n): added to a square matrix of entries in [-3, 3], it makes
    the matrix (and the symmetric one of its lower triangle) well-conditioned, positive
    definite, with eigenvalues far apart (Gershgorin's discs do not meet). Linear algebra on
    ill-conditioned matrices compares rounding noise, not the operators."""
    return np.diag(8.0 * n * np.arange(1, n + 1))


def draw_case(draw, op, call_name, case_id, rng):
    """One call of ``op``: (case, {input name: array})."""
    first = _shape(draw)
    # At most one mistake per call (which of two MXNet reports first is not the point).
    names = [p.name for p in op.params.values()]
    mistake = draw(st.sampled_from(('none',) * 6 + ('bad value', 'missing', 'unknown')))
    wrong = draw(st.sampled_from(names)) if names and mistake != 'unknown' else None
    params = {}
    for param in op.params.values():
        if op.variadic and param.name == 'num_args' and draw(st.integers(0, 4)):
            continue
        bad = mistake == 'bad value' and param.name == wrong
        if param.required and not (mistake == 'missing' and param.name == wrong):
            params[param.name] = _value(draw, param, len(first), bad)
        elif bad or (not param.required and draw(st.integers(0, 2)) == 0):
            params[param.name] = _value(draw, param, len(first), bad)
    if mistake == 'unknown':
        params['bogus_keyword'] = 1
    if op.variadic:
        names = ['data'] * draw(st.integers(1, 3))
    else:
        try:
            parsed = op.parse_params({k: _python(v) for k, v in params.items()})
            names = list(op.list_inputs(parsed))
        except Exception:           # a bad parameter: MXNet's binding decides the inputs
            names = list(op.input_names)
    dtype = draw(st.sampled_from(DTYPES))
    inputs, args = {}, []
    for i, name in enumerate(names):
        shape = first if i == 0 else _related_shape(draw, first)
        kind = dtype if draw(st.integers(0, 7)) else draw(st.sampled_from(DTYPES))
        key = '%s:%d' % (case_id, i)
        inputs[key] = _input_array(draw, rng, name, shape, kind,
                                   well_conditioned=op.name.startswith(LINALG))
        args.append({'nd': key})
    random_output = op.name.startswith(RANDOM_OUTPUT) or (
        op.name == 'LeakyReLU' and params.get('act_type') == 'rrelu')
    grad = [i for i, a in enumerate(args) if inputs[a['nd']].dtype.name in FLOATS[1:]]
    if random_output or draw(st.integers(0, 2)):
        grad = []
    # (seeding costs more than most calls: only the samplers get a seed)
    case = {'id': case_id, 'call': call_name, 'args': args, 'kwargs': params, 'grad': grad,
            'compare': 'shape' if random_output else 'values',
            'seed': 0 if random_output else None}
    if grad and op.name in SINGLE_PRECISION_GRADIENTS:
        case['tol'] = list(ops_outcomes.TOLERANCES['float32'])
    if op.name.startswith(LINALG):
        case['tol'] = list(LAPACK_TOLERANCE)
    return case, inputs


def _python(value):
    return tuple(value['tuple']) if isinstance(value, dict) and 'tuple' in value else value


def generate(total, min_per_op):
    """(cases, inputs): ``total`` calls (or a few more) spread evenly over the operators
    of the table, at least ``min_per_op`` of each: the suite's cost is bounded however
    many operators the table grows to, until ``min_per_op`` of each outgrows ``total``.
    """
    ops = fuzzed_ops()
    per_op = max(min_per_op, -(-total // len(ops)))
    cases, inputs = [], {}
    for op, call_name in ops:
        drawn = []

        @settings(max_examples=per_op, derandomize=True, database=None, deadline=None,
                  phases=[Phase.generate], suppress_health_check=list(HealthCheck))
        @given(st.data())
        def collect(data):
            number = len(cases) + len(drawn)
            case_id = '%04d-%s' % (number, op.name)
            drawn.append(draw_case(data.draw, op, call_name, case_id,
                                   np.random.RandomState(number)))

        collect()
        for case, arrays in drawn[:per_op]:
            cases.append(case)
            inputs.update(arrays)
    return cases, inputs
