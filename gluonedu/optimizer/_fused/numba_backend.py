"""The numba path: each rule compiled into one parallel loop over the flat buffers.

numba is optional (``pip install gluonedu[fast]``). It is looked for when the package
is imported (cheaply: ``importlib.util.find_spec``) and imported the first time a fused
step runs on the CPU. ``GLUONEDU_NUMBA=0`` turns it off (the NumPy flat path remains).

For every rule of :mod:`.rules` we generate a loop of this shape (here for Adam)::

    @njit(parallel=True, cache=True, error_model='numpy')
    def adam_loop(w, g, s0, s1, lo, hi, seg, p0, p1, c0, c1, ..., c6):
        for c in prange(len(lo)):               # chunks, spread over the cores
            a, b, k = lo[c], hi[c], seg[c]      # k: the parameter (its lr, wd)
            adam_chunk(w[a:b], g[a:b], s0[a:b], s1[a:b], p0[k], p1[k], c0, ..., c6)

    def adam_chunk(w, g, s0, s1, q0, q1, c0, ..., c6):   # serial, vectorised
        for i in range(len(w)):
            w[i], s0[i], s1[i] = adam(w[i], g[i], s0[i], s1[i], q0, q1, c0, ..., c6)

so one step reads and writes every buffer once. A rule's read-only inputs (SGLD's noise,
LBSGD's sums: :data:`INPUTS`) are sliced like the states, ``r0..`` after ``s0..``, and
never written. The loops are written to a small module file in numba's cache directory
and compiled with ``cache=True``, so a new process loads them instead of compiling
(about a second per rule the first time). The cache lives in ``$NUMBA_CACHE_DIR`` if
set, else inside the virtual environment (``<sys.prefix>/var/numba-cache``) when
writable, else in the temp directory — never in ``$HOME``. Rules are compiled without
fastmath, so float32 operations are exact IEEE operations in the reference's order (no
fused multiply-add): the same bits as NumPy.
"""
import hashlib
import importlib.util
import inspect
import os
import sys
import tempfile

import numpy as np

from . import rules as _rules

__all__ = ['available', 'NumbaBackend', 'cache_dir']

#: rule name -> (number of state arrays, number of per-segment scalars); the rest of a
#: rule's arguments after (w, g) are constants.
SHAPES = {
    'sgd_momentum': (1, 3), 'sgd_no_momentum': (0, 2), 'sgd_plain': (0, 2),
    'nag_momentum': (1, 2), 'signum': (1, 2), 'signsgd': (0, 2),
    'dcasgd_momentum': (2, 2), 'dcasgd': (1, 2), 'adam': (2, 2), 'adamax': (2, 2),
    'nadam': (2, 7), 'lamb_direction': (3, 3), 'lamb_apply': (0, 1), 'rmsprop': (1, 2),
    'rmsprop_centered': (3, 2), 'adagrad': (1, 2), 'adadelta': (2, 1), 'ftml': (3, 3),
    'ftrl': (2, 2), 'lbsgd_momentum': (1, 2), 'lbsgd_plain': (0, 2), 'sgld': (0, 2),
}

#: rule name -> number of read-only input arrays after the states (SGLD's noise, LBSGD's
#: accumulated gradient); 0 for the rules not listed. They are read, never written.
INPUTS = {'lbsgd_momentum': 1, 'lbsgd_plain': 1, 'sgld': 1}

#: The rules the lazy row_sparse path (:mod:`.lazy`) runs row by row, shaped as SHAPES.
ROW_SHAPES = {'sgd_momentum': (1, 3), 'sgd_no_momentum': (0, 2), 'sgd_plain': (0, 2),
              'adam': (2, 2), 'adagrad': (1, 2), 'sparse_adagrad': (1, 1)}


_INSTALLED = importlib.util.find_spec('numba') is not None  # looked up once, at import


def available():
    """Whether numba is installed and not turned off with ``GLUONEDU_NUMBA=0``."""
    return _INSTALLED and os.environ.get('GLUONEDU_NUMBA', '1') != '0'


def cache_dir():
    """Where compiled kernels are cached (see the module docstring)."""
    if os.environ.get('NUMBA_CACHE_DIR'):
        return os.environ['NUMBA_CACHE_DIR']
    in_venv = os.path.join(sys.prefix, 'var', 'numba-cache')
    try:
        os.makedirs(in_venv, exist_ok=True)
        if os.access(in_venv, os.W_OK):
            return in_venv
    except OSError:
        pass
    return os.path.join(tempfile.gettempdir(), 'gluonedu-numba-cache-%s' % os.getuid())


def _argument_names(rule, n_states, n_per_segment, n_inputs=0):
    """Names for a generated loop's arguments after (w, g): states ``s0..`` and read-only
    inputs ``r0..`` (arrays), per-segment arrays ``p0..`` (``q0..`` once indexed),
    constants ``c0..``."""
    n_args = len(inspect.signature(rule).parameters)
    n_constants = n_args - 2 - n_states - n_inputs - n_per_segment
    return (['s%d' % i for i in range(n_states)], ['r%d' % i for i in range(n_inputs)],
            ['p%d' % i for i in range(n_per_segment)],
            ['q%d' % i for i in range(n_per_segment)],
            ['c%d' % i for i in range(n_constants)])


def _loop_source(name):
    """The source of the parallel loop around rule ``name``.

    The inner loop is its own (serial) function over slices of one chunk: LLVM then
    vectorises it; a loop written inline under ``prange`` runs at half the speed.
    """
    n_states, n_per_segment = SHAPES[name]
    s, r, p, q, c = _argument_names(_rules.RULES[name], n_states, n_per_segment,
                                    INPUTS.get(name, 0))
    return '''
@numba.njit(cache=True, error_model='numpy')
def {name}_chunk({chunk_head}):
    for i in range(w.shape[0]):
        {outputs}, = {name}({inputs})


@numba.njit(parallel=True, cache=True, error_model='numpy')
def {name}_loop({loop_head}):
    for c in numba.prange(lo.shape[0]):
        a = lo[c]
        b = hi[c]
        k = seg[c]
        {name}_chunk({chunk_args})
'''.format(
        name=name,
        chunk_head=', '.join(['w', 'g'] + s + r + q + c),
        loop_head=', '.join(['w', 'g'] + s + r + ['lo', 'hi', 'seg'] + p + c),
        outputs=', '.join(['w[i]'] + ['%s[i]' % x for x in s]),
        inputs=', '.join(['w[i]', 'g[i]'] + ['%s[i]' % x for x in s + r] + q + c),
        chunk_args=', '.join(['%s[a:b]' % x for x in ['w', 'g'] + s + r] +
                             ['%s[k]' % x for x in p] + c))


def _loop_with_sums_source(name):
    """The loop around rule ``name`` that also sums, per chunk, the squares a Recorder's
    norms need: of the new weight, the gradient, the update (new - old weight) and each
    new state, in float64.

    Each chunk keeps its old weights in ``before`` (a scratch buffer), runs the plain
    vectorised update, then sums while the chunk is still in cache: memory is streamed
    once, as without norms. ``out[c]`` receives chunk ``c``'s sums in that order.
    """
    n_states, n_per_segment = SHAPES[name]
    s, r, p, q, c = _argument_names(_rules.RULES[name], n_states, n_per_segment,
                                    INPUTS.get(name, 0))
    return '''
@numba.njit(cache=True, error_model='numpy')
def {name}_chunk_sums({chunk_head}, before, out):
    for i in range(w.shape[0]):
        before[i] = w[i]
    {name}_chunk({chunk_call})
    squares_{n_states}({squares_args}, out)


@numba.njit(parallel=True, cache=True, error_model='numpy')
def {name}_loop_sums({loop_head}, before, out):
    for c in numba.prange(lo.shape[0]):
        a = lo[c]
        b = hi[c]
        k = seg[c]
        {name}_chunk_sums({chunk_args}, before[a:b], out[c])
'''.format(
        name=name, n_states=n_states,
        chunk_head=', '.join(['w', 'g'] + s + r + q + c),
        chunk_call=', '.join(['w', 'g'] + s + r + q + c),
        squares_args=', '.join(['w', 'g', 'before'] + s),
        loop_head=', '.join(['w', 'g'] + s + r + ['lo', 'hi', 'seg'] + p + c),
        chunk_args=', '.join(['%s[a:b]' % x for x in ['w', 'g'] + s + r] +
                             ['%s[k]' % x for x in p] + c))


def _squares_source(n_states):
    """``squares_<n>``: float64 sums of squares over one chunk, for the norms.

    Compiled with fastmath's ``reassoc`` only, so that LLVM may vectorise the sums (they
    are then added in another order than NumPy's, a difference in the last digits of a
    reported norm); the update itself is compiled without any fastmath.
    """
    s = ['s%d' % i for i in range(n_states)]
    totals = ['t_w', 't_g', 't_u'] + ['t_%s' % x for x in s]
    state_sums = ''.join('\n        x = np.float64(%s[i])\n        t_%s += x * x' % (x, x)
                         for x in s)
    return '''
@numba.njit(cache=True, error_model='numpy', fastmath={{'reassoc'}})
def squares_{n}({head}, out):
    {zeros}
    for i in range(w.shape[0]):
        x = np.float64(w[i])
        t_w += x * x
        x = np.float64(g[i])
        t_g += x * x
        x = np.float64(w[i]) - np.float64(before[i])
        t_u += x * x{state_sums}
    {stores}
'''.format(n=n_states, head=', '.join(['w', 'g', 'before'] + s),
           zeros='\n    '.join('%s = 0.0' % t for t in totals), state_sums=state_sums,
           stores='\n    '.join('out[%d] = %s' % (j, t) for j, t in enumerate(totals)))


def _rows_source(name):
    """The parallel loop around rule ``name`` over the rows of a row_sparse gradient.

    ``w`` and the states are 2-D (all rows of the weight, each row flattened), ``g``
    holds the gradient's k stored rows and ``rows`` their row ids: row ``rows[r]`` of
    ``w`` and the states is updated from ``g[r]``; no other row is read or written. The
    scalars are those of one parameter. The rows are written in parallel, so the loop
    first checks (serially, cheaply) that the row ids are increasing and in range and
    the shapes agree; if not, it writes nothing and returns False.
    """
    n_states, n_per_segment = ROW_SHAPES[name]
    s, _, _, q, c = _argument_names(getattr(_rules, name), n_states, n_per_segment)
    return '''
@numba.njit(cache=True, error_model='numpy')
def {name}_row({row_head}):
    for i in range(w.shape[0]):
        {outputs}, = {name}({inputs})


@numba.njit(parallel=True, cache=True, error_model='numpy')
def {name}_rows({rows_head}):
    if g.shape[0] != rows.shape[0] or g.shape[1] != w.shape[1]{state_checks}:
        return False
    for r in range(rows.shape[0]):
        if rows[r] < 0 or rows[r] >= w.shape[0] or (r > 0 and rows[r] <= rows[r - 1]):
            return False
    for r in numba.prange(rows.shape[0]):
        k = rows[r]
        {name}_row({row_args})
    return True
'''.format(
        name=name,
        row_head=', '.join(['w', 'g'] + s + q + c),
        rows_head=', '.join(['w', 'g'] + s + ['rows'] + q + c),
        state_checks=''.join(' or %s.shape != w.shape' % x for x in s),
        outputs=', '.join(['w[i]'] + ['%s[i]' % x for x in s]),
        inputs=', '.join(['w[i]', 'g[i]'] + ['%s[i]' % x for x in s] + q + c),
        row_args=', '.join(['w[k]', 'g[r]'] + ['%s[k]' % x for x in s] + q + c))


_SUMS = '''
@numba.njit(parallel=True, cache=True, error_model='numpy')
def chunk_sums_of_squares(x, lo, hi, out):
    """out[c] = sum over chunk c of float64(x*x) (the square in x's dtype)."""
    for c in numba.prange(lo.shape[0]):
        total = 0.0
        for i in range(lo[c], hi[c]):
            total += np.float64(x[i] * x[i])
        out[c] = total
'''


def _module_source():
    parts = ['"""Generated by gluonedu.optimizer._fused.numba_backend; do not edit."""',
             'import types', 'import numba', 'import numpy as np',
             'from gluonedu.optimizer._fused import rules as _rules', '',
             '# The rules, compiled; their helpers _clip and _sgd_step must be compiled too.',
             "_helpers = dict(vars(_rules), _clip=numba.njit(inline='always')(_rules._clip),",
             "                __name__=__name__)  # numba's cache re-imports it by this name",
             '', 'def _compiled(rule):',
             '    rule = types.FunctionType(rule.__code__, _helpers, rule.__name__)',
             "    return numba.njit(inline='always', error_model='numpy')(rule)", '',
             "_helpers['_sgd_step'] = _compiled(_rules._sgd_step)", '']
    for name in SHAPES:
        parts.append("%s = _compiled(_rules.%s)" % (name, name))
    parts.extend(_loop_source(name) for name in SHAPES)
    parts.extend(_squares_source(n) for n in sorted({n for n, _ in SHAPES.values()}))
    parts.extend(_loop_with_sums_source(name) for name in SHAPES)
    parts.extend('%s = _compiled(_rules.%s)' % (name, name)
                 for name in ROW_SHAPES if name not in SHAPES)
    parts.extend(_rows_source(name) for name in ROW_SHAPES)
    parts.append(_SUMS)
    return '\n'.join(parts)


_MODULE = None


def _kernels():
    """The generated module (written once per version of the rules, then imported)."""
    global _MODULE
    if _MODULE is None:
        directory = cache_dir()
        os.environ.setdefault('NUMBA_CACHE_DIR', directory)
        import numba
        if not numba.config.CACHE_DIR:
            numba.config.CACHE_DIR = directory
        source = _module_source()
        digest = hashlib.sha1((source + inspect.getsource(_rules)).encode()).hexdigest()[:12]
        os.makedirs(directory, exist_ok=True)
        path = os.path.join(directory, 'gluonedu_fused_%s.py' % digest)
        if not os.path.exists(path):
            tmp = '%s.%d.tmp' % (path, os.getpid())
            with open(tmp, 'w') as f:
                f.write(source)
            os.replace(tmp, path)  # atomic: concurrent processes never see half a file
        name = 'gluonedu_fused_%s' % digest
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # numba's cache finds the module by name
        spec.loader.exec_module(module)
        _MODULE = module
    return _MODULE


#: Groups smaller than this (elements) run on one thread: waking a second thread costs
#: more than it saves there (and, on a busy 2-core machine, milliseconds per step).
PARALLEL_MIN = 1 << 22


class NumbaBackend:
    """Runs rules as compiled parallel loops over flat float32 buffers."""
    name = 'numba'

    def __init__(self):
        import numba
        self.numba = numba
        self.kernels = _kernels()

    def _threads(self, group):
        """The thread count for ``group``'s loops (see PARALLEL_MIN)."""
        return 1 if group.size < PARALLEL_MIN else self.numba.config.NUMBA_NUM_THREADS

    #: This backend can sum the squares a Recorder's norms need inside the update's pass.
    sums_in_kernel = True

    def run(self, rule_name, group, arrays, per_segment, constants, sums=None):
        """Apply rule ``rule_name`` in place over the flat buffers.

        ``arrays``: [w, g, *states, *inputs] (inputs: see :data:`INPUTS`).
        ``sums``: None, or a float64 array of shape (chunks, 3 + states) that receives,
        per chunk, Σw'², Σg², Σ(w' - w)² and Σs'² for each state (see
        :func:`_loop_with_sums_source`).
        """
        n_arrays = 2 + SHAPES[rule_name][0] + INPUTS.get(rule_name, 0)
        assert len(arrays) == n_arrays, (rule_name, len(arrays))
        per_segment = [np.ascontiguousarray(p, dtype=np.float32) for p in per_segment]
        constants = [np.float32(c) for c in constants]
        self.numba.set_num_threads(self._threads(group))
        lo, hi, seg = group.chunk_lo, group.chunk_hi, group.chunk_segment
        if sums is None:
            getattr(self.kernels, rule_name + '_loop')(*arrays, lo, hi, seg, *per_segment,
                                                       *constants)
        else:
            before = group.scratch('weight_before', arrays[0].dtype)
            getattr(self.kernels, rule_name + '_loop_sums')(*arrays, lo, hi, seg,
                                                            *per_segment, *constants,
                                                            before, sums)

    def segment_sums_of_squares(self, group, buffers):
        """Σx² per segment of each buffer (float32 squares summed in float64)."""
        out = []
        partial = np.empty(len(group.chunk_lo))
        self.numba.set_num_threads(self._threads(group))
        for buffer in buffers:
            self.kernels.chunk_sums_of_squares(buffer, group.chunk_lo, group.chunk_hi,
                                               partial)
            out.append(np.bincount(group.chunk_segment, weights=partial,
                                   minlength=len(group.sizes)))
        return out
