"""The numba path: each kernel compiled into one parallel loop over the flat buffers.

numba is optional (``pip install gluonedu[fast]``). It is looked for when the package
is imported (cheaply: ``importlib.util.find_spec``) and imported the first time a fused
step runs on the CPU. ``GLUONEDU_NUMBA=0`` turns it off (the NumPy flat path remains).

For every :class:`~gluonedu.optimizer.fastpath.Kernel` we generate, from the rule's own
signature, loops of this shape (here for Adam; every name is the rule's)::

    @njit(parallel=True, cache=True, error_model='numpy')
    def loop(weight, grad, mean, var, _lo, _hi, _seg, lr, wd, rescale, ..., epsilon):
        for _c in prange(len(_lo)):              # chunks, spread over the cores
            _a, _b, _k = _lo[_c], _hi[_c], _seg[_c]   # _k: the parameter (its lr, wd)
            chunk(weight[_a:_b], grad[_a:_b], mean[_a:_b], var[_a:_b], lr[_k], wd[_k],
                  rescale, ..., epsilon)

    def chunk(weight, grad, mean, var, lr, wd, rescale, ..., epsilon):   # serial
        for _i in range(len(weight)):
            weight[_i], mean[_i], var[_i] = rule(weight[_i], grad[_i], mean[_i], var[_i],
                                                 lr, wd, rescale, ..., epsilon)

so one step reads and writes every buffer once; ``loop_sums`` also sums, per chunk, the
squares a Recorder's norms need, and ``rows`` runs the rule over the rows of a row_sparse
gradient. Each kernel's loops are written to a small module file in numba's cache
directory (named by a digest of that source and of the rule's and its helpers' source)
and compiled with ``cache=True``, so a new process loads them instead of compiling
(about a second per kernel the first time). The cache lives in ``$NUMBA_CACHE_DIR`` if
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
import threading
import types

import numpy as np

__all__ = ['available', 'NumbaBackend', 'cache_dir', 'compiled', 'kernel_module',
           'reduced_module', 'sum_and_copy', 'PARALLEL_MIN']

_INSTALLED = importlib.util.find_spec('numba') is not None  # looked up once, at import

#: Groups smaller than this (elements) run on one thread: waking a second thread costs
#: more than it saves there (and, on a busy 2-core machine, milliseconds per step).
PARALLEL_MIN = 1 << 22


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


def _helpers(function):
    """The plain Python functions ``function`` calls by a global name (e.g. ``clip``)."""
    found = {}
    for name in function.__code__.co_names:
        value = function.__globals__.get(name)
        if isinstance(value, types.FunctionType):
            found[name] = value
    return found


def compiled(function, module_name):
    """``function`` compiled for inlining, with the Python functions it calls compiled too.

    ``module_name``: the generated module's; numba's cache finds the functions by it.
    """
    import numba
    namespace = dict(function.__globals__, __name__=module_name)
    namespace.update({name: compiled(helper, module_name)
                      for name, helper in _helpers(function).items()})
    rebuilt = types.FunctionType(function.__code__, namespace, function.__name__,
                                 function.__defaults__, function.__closure__)
    return numba.njit(inline='always', error_model='numpy')(rebuilt)


def _sources(function, seen=None):
    """The source of ``function`` and of every helper it calls (for the cache's digest)."""
    seen = {} if seen is None else seen
    if function not in seen:
        seen[function] = inspect.getsource(function)
        for helper in _helpers(function).values():
            _sources(helper, seen)
    return seen.values()


def _element_update(kernel):
    """The rule applied to element ``_i``: each argument by its name, arrays indexed."""
    call = ', '.join('%s[_i]' % n if n in kernel.arrays else n for n in kernel.parameters)
    return '%s, = rule(%s)' % (', '.join('%s[_i]' % n for n in kernel.writes), call)


def _head(kernel, note):
    """The generated module's docstring, imports and compiled rule."""
    return [
        '"""Generated by gluonedu.optimizer._fused.numba_backend for kernel %s%s; do not '
        'edit."""' % (kernel.name, note),
        'import numba',
        'import numpy as np',
        'from gluonedu.optimizer._fused.numba_backend import compiled',
        'from gluonedu.optimizer.fastpath import KERNELS',
        '',
        'rule = compiled(KERNELS[%r].rule, __name__)' % kernel.name,
        '',
        '',
    ]


def _parallel_loop(kernel, buffers):
    """``loop``: ``chunk`` on each chunk of the flat ``buffers``, chunks in parallel."""
    scalars = list(kernel.per_parameter) + list(kernel.constants)
    return [
        '',
        '',
        "@numba.njit(parallel=True, cache=True, error_model='numpy')",
        'def loop(%s):' % ', '.join(list(buffers) + ['_lo', '_hi', '_seg'] + scalars),
        '    for _c in numba.prange(_lo.shape[0]):',
        '        _a = _lo[_c]',
        '        _b = _hi[_c]',
        '        _k = _seg[_c]',
        '        chunk(%s)' % ', '.join(['%s[_a:_b]' % n for n in buffers] +
                                       ['%s[_k]' % n for n in kernel.per_parameter] +
                                       list(kernel.constants)),
    ]


def _module_source(kernel):
    """The generated module of ``kernel``: chunk, loop, loop_sums, rows (see above)."""
    arrays, per_parameter, constants = kernel.arrays, kernel.per_parameter, kernel.constants
    states = [n for n in kernel.writes if n != 'weight']
    scalars = list(per_parameter) + list(constants)
    lines = _head(kernel, '') + [
        "@numba.njit(cache=True, error_model='numpy')",
        'def chunk(%s):' % ', '.join(list(arrays) + scalars),
        '    for _i in range(%s.shape[0]):' % arrays[0],
        '        ' + _element_update(kernel),
    ] + _parallel_loop(kernel, arrays)
    if 'weight' in kernel.writes and 'grad' in arrays:
        totals = ['_t_weight', '_t_grad', '_t_update'] + ['_t_%s' % n for n in states]
        squares = [('_t_weight', 'weight[_i]'), ('_t_grad', 'grad[_i]'),
                   ('_t_update', None)] + [('_t_%s' % n, '%s[_i]' % n) for n in states]
        lines += [
            '',
            '',
            "@numba.njit(cache=True, error_model='numpy', fastmath={'reassoc'})",
            'def squares(%s, _before, _out):' % ', '.join(['weight', 'grad'] + states),
        ] + ['    %s = 0.0' % t for t in totals] + [
            '    for _i in range(weight.shape[0]):',
        ]
        for total, value in squares:
            lines.append('        _x = np.float64(weight[_i]) - np.float64(_before[_i])'
                         if value is None else '        _x = np.float64(%s)' % value)
            lines.append('        %s += _x * _x' % total)
        lines += ['    _out[%d] = %s' % (j, t) for j, t in enumerate(totals)]
        # The non-finite gradient entries: a finite Σg² proves there are none, so only
        # a chunk holding NaN/Inf is scanned again.
        lines += [
            '    _bad = 0.0',
            '    if not np.isfinite(_t_grad):',
            '        for _i in range(grad.shape[0]):',
            '            if not np.isfinite(grad[_i]):',
            '                _bad += 1.0',
            '    _out[%d] = _bad' % len(totals),
        ]
        lines += [
            '',
            '',
            "@numba.njit(cache=True, error_model='numpy')",
            'def chunk_sums(%s, _before, _out):' % ', '.join(list(arrays) + scalars),
            '    for _i in range(weight.shape[0]):',
            '        _before[_i] = weight[_i]',
            '    chunk(%s)' % ', '.join(list(arrays) + scalars),
            '    squares(%s, _before, _out)' % ', '.join(['weight', 'grad'] + states),
            '',
            '',
            "@numba.njit(parallel=True, cache=True, error_model='numpy')",
            'def loop_sums(%s, _before, _out):' % ', '.join(
                list(arrays) + ['_lo', '_hi', '_seg'] + scalars),
            '    for _c in numba.prange(_lo.shape[0]):',
            '        _a = _lo[_c]',
            '        _b = _hi[_c]',
            '        _k = _seg[_c]',
            '        chunk_sums(%s, _before[_a:_b], _out[_c])' % ', '.join(
                ['%s[_a:_b]' % n for n in arrays] + ['%s[_k]' % n for n in per_parameter] +
                list(constants)),
        ]
    if 'grad' in arrays and 'grad' not in kernel.writes:
        # Only the non-finite gradient entries are wanted: right after a chunk's update
        # (which has just read its gradient into cache) its entries times zero are
        # summed: 0 for a finite entry, NaN for NaN or ±Inf, so a zero sum proves every
        # entry finite and nothing can overflow; the order of the sum does not matter,
        # so it may be vectorised ('reassoc'). Counting inside the update's own loop
        # would keep that loop from being vectorised.
        lines += [
            '',
            '',
            "@numba.njit(cache=True, error_model='numpy', fastmath={'reassoc'})",
            'def count_nonfinite(grad):',
            '    _t = np.float32(0.0)',
            '    for _i in range(grad.shape[0]):',
            '        _t += grad[_i] * np.float32(0.0)',
            '    _bad = 0.0',
            '    if not np.isfinite(_t):',
            '        for _i in range(grad.shape[0]):',
            '            if not np.isfinite(grad[_i]):',
            '                _bad += 1.0',
            '    return _bad',
            '',
            '',
            "@numba.njit(parallel=True, cache=True, error_model='numpy')",
            'def loop_count(%s, _out):' % ', '.join(
                list(arrays) + ['_lo', '_hi', '_seg'] + scalars),
            '    _total = 0.0',
            '    for _c in numba.prange(_lo.shape[0]):',
            '        _a = _lo[_c]',
            '        _b = _hi[_c]',
            '        _k = _seg[_c]',
            '        chunk(%s)' % ', '.join(['%s[_a:_b]' % n for n in arrays] +
                                           ['%s[_k]' % n for n in per_parameter] +
                                           list(constants)),
            '        _bad = count_nonfinite(grad[_a:_b])',
            '        _out[_c, 0] = _bad',
            '        _total += _bad',
            '    return _total',
        ]
    if set(arrays) - set(kernel.writes) == {'grad'}:
        # Rows: every array but the gradient is 2-D (all rows of the weight); grad holds
        # the gradient's stored rows, _rows their row ids.
        written = list(kernel.writes)
        checks = ''.join(' or %s.shape != %s.shape' % (n, written[0]) for n in written[1:])
        lines += [
            '',
            '',
            "@numba.njit(parallel=True, cache=True, error_model='numpy')",
            'def rows(%s):' % ', '.join(list(arrays) + ['_rows'] + scalars),
            '    if grad.shape[0] != _rows.shape[0] or grad.shape[1] != %s.shape[1]%s:'
            % (written[0], checks),
            '        return False',
            '    for _r in range(_rows.shape[0]):',
            '        if _rows[_r] < 0 or _rows[_r] >= %s.shape[0] or (_r > 0 and _rows[_r] <= '
            '_rows[_r - 1]):' % written[0],
            '            return False',
            '    for _r in numba.prange(_rows.shape[0]):',
            '        _k = _rows[_r]',
            '        chunk(%s)' % ', '.join(['grad[_r]' if n == 'grad' else '%s[_k]' % n
                                             for n in arrays] + scalars),
            '    return True',
        ]
    return '\n'.join(lines) + '\n'


def _reduced_source(kernel, parts, copies):
    """The generated module of ``kernel`` fused with a store's reduction and broadcast
    (:class:`~gluonedu.optimizer.flat.FlatReduction`): ``loop`` reads the ``parts``
    gradients instead of ``grad``, sums them left to right, applies the rule and writes
    the new weight into the ``copies`` — one pass over memory."""
    arrays = [n for n in kernel.arrays if n != 'grad']
    part_names = ['_part%d' % j for j in range(parts)]
    copy_names = ['_copy%d' % j for j in range(copies)]
    buffers = arrays + part_names + copy_names
    scalars = list(kernel.per_parameter) + list(kernel.constants)
    call = ', '.join('%s[_i]' % n if n in arrays else n for n in kernel.parameters)
    total = ' + '.join('%s[_i]' % n for n in part_names)   # + groups left to right
    lines = _head(kernel, ', reducing %d parts into %d copies' % (parts, copies)) + [
        "@numba.njit(cache=True, error_model='numpy')",
        'def chunk(%s):' % ', '.join(buffers + scalars),
        '    for _i in range(%s.shape[0]):' % part_names[0],
        '        grad = %s' % total,
        '        %s, = rule(%s)' % (', '.join('%s[_i]' % n for n in kernel.writes), call),
    ] + ['        %s[_i] = weight[_i]' % n for n in copy_names] + _parallel_loop(kernel, buffers)
    return '\n'.join(lines) + '\n'


_COMMON = '''"""Generated by gluonedu.optimizer._fused.numba_backend; do not edit."""
import numba
import numpy as np


@numba.njit(parallel=True, cache=True, error_model='numpy')
def chunk_sums_of_squares(x, lo, hi, out):
    """out[c] = sum over chunk c of float64(x*x) (the square in x's dtype)."""
    for c in numba.prange(lo.shape[0]):
        total = 0.0
        for i in range(lo[c], hi[c]):
            total += np.float64(x[i] * x[i])
        out[c] = total


@numba.njit(parallel=True, cache=True, error_model='numpy')
def sum_and_copy(parts, outs, lo, hi):
    """outs[k][i] = (parts[0][i] + parts[1][i]) + ... in their dtype, for every k."""
    for c in numba.prange(lo.shape[0]):
        for i in range(lo[c], hi[c]):
            total = parts[0][i]
            for k in range(1, len(parts)):
                total += parts[k][i]
            for k in range(len(outs)):
                outs[k][i] = total
'''

_MODULES = {}


def _load(name, source, digest_extra=''):
    """Import the generated module ``source`` (written once per digest, then reused)."""
    directory = cache_dir()
    os.environ.setdefault('NUMBA_CACHE_DIR', directory)
    import numba
    if not numba.config.CACHE_DIR:
        numba.config.CACHE_DIR = directory
    digest = hashlib.sha1((source + digest_extra).encode()).hexdigest()[:12]
    module_name = 'gluonedu_fused_%s_%s' % (name, digest)
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, module_name + '.py')
    if not os.path.exists(path):
        tmp = '%s.%d.tmp' % (path, os.getpid())
        with open(tmp, 'w') as f:
            f.write(source)
        os.replace(tmp, path)  # atomic: concurrent processes never see half a file
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # numba's cache finds the module by name
    spec.loader.exec_module(module)
    return module


def kernel_module(kernel):
    """The compiled loops of ``kernel`` (a generated module, loaded once per process)."""
    module = _MODULES.get(kernel.name)
    if module is None:
        module = _load(kernel.name, _module_source(kernel),
                       ''.join(sorted(_sources(kernel.rule))))
        _MODULES[kernel.name] = module
    return module


def reduced_module(kernel, parts, copies):
    """The compiled reduce-update-broadcast loop of ``kernel`` (see :func:`_reduced_source`)."""
    key = (kernel.name, parts, copies)
    module = _MODULES.get(key)
    if module is None:
        module = _load('%s_r%dc%d' % key, _reduced_source(kernel, parts, copies),
                       ''.join(sorted(_sources(kernel.rule))))
        _MODULES[key] = module
    return module


def _common():
    module = _MODULES.get(None)
    if module is None:
        module = _MODULES[None] = _load('common', _COMMON)
    return module


def sum_and_copy(parts, outs, chunk_lo, chunk_hi):
    """Write the sum of ``parts`` (left to right) into every buffer of ``outs``, one
    parallel pass over the chunks ``chunk_lo``/``chunk_hi`` (same-dtype host buffers)."""
    import numba
    _use_threads(numba, outs[0].size)
    _common().sum_and_copy(tuple(parts), tuple(outs), chunk_lo, chunk_hi)


def _use_threads(numba, size):
    """Have the next parallel loop, over ``size`` elements, run on one thread below
    PARALLEL_MIN, else on all of numba's threads.

    numba's thread count belongs to the calling thread, and setting it takes a lock
    (several µs, a few % of a small model's step): it is set only when this thread's
    last setting differs. A count set with ``numba.set_num_threads`` in between is
    kept until the next loop of the other size.
    """
    threads = 1 if size < PARALLEL_MIN else numba.config.NUMBA_NUM_THREADS
    if getattr(_THREADS_SET, 'count', None) != threads:
        numba.set_num_threads(threads)
        _THREADS_SET.count = threads


_THREADS_SET = threading.local()   # .count: the thread count this thread last set


class NumbaBackend:
    """Runs kernels as compiled parallel loops over flat float32 buffers."""
    name = 'numba'
    #: This backend can sum the squares a Recorder's norms need inside the update's pass.
    sums_in_kernel = True
    #: ... and sum a store's gradients, and write the weights' copies, in it too.
    reduces_in_kernel = True

    def __init__(self):
        import numba
        self.numba = numba

    def run(self, kernel, run, arrays, per_parameter, constants, sums=None, reduction=None):
        """Apply ``kernel`` in place over the flat buffers of ``run`` (a FlatRun; the
        arrays and scalars in the kernel's order).

        ``sums``: None, or a float64 array of shape (chunks, 4 + states) that receives,
        per chunk, Σw'², Σg², Σ(w' - w)², Σs'² for each written state and the count of
        non-finite gradient entries — or of shape (chunks, 1): the count only; then the
        total count is returned (else None).
        ``reduction``: None, or a FlatReduction whose parts the pass sums as its gradient
        (``grad`` is not read) and whose copies receive the new weight (without sums).
        """
        per_parameter = [np.ascontiguousarray(p, dtype=np.float32) for p in per_parameter]
        constants = [np.float32(c) for c in constants]
        _use_threads(self.numba, run.size)
        bounds = (run.chunk_lo, run.chunk_hi, run.chunk_segment)
        if reduction is not None:
            module = reduced_module(kernel, len(reduction.parts), len(reduction.copies))
            buffers = [a for n, a in zip(kernel.arrays, arrays) if n != 'grad']
            module.loop(*buffers, *reduction.parts, *reduction.copies, *bounds,
                        *per_parameter, *constants)
            return
        module = kernel_module(kernel)
        if sums is None:
            module.loop(*arrays, *bounds, *per_parameter, *constants)
        elif sums.shape[1] == 1:
            return module.loop_count(*arrays, *bounds, *per_parameter, *constants, sums)
        else:
            before = run.scratch('weight_before', arrays[kernel.arrays.index('weight')].dtype)
            module.loop_sums(*arrays, *bounds, *per_parameter, *constants, before, sums)

    def rows(self, kernel, arrays, rows, values):
        """``kernel`` on the rows ``rows`` of the 2-D written arrays (the gradient's rows
        in ``grad``); one parameter's scalar ``values``. False if the loop declined
        (row ids not increasing or out of range, shapes that disagree): nothing written."""
        size = arrays[kernel.arrays.index('grad')].size
        _use_threads(self.numba, size)
        return kernel_module(kernel).rows(*arrays, rows, *values)

    def segment_sums_of_squares(self, group, buffers):
        """Σx² per segment of each buffer (float32 squares summed in float64)."""
        out = []
        partial = np.empty(len(group.chunk_lo))
        _use_threads(self.numba, group.size)
        for buffer in buffers:
            _common().chunk_sums_of_squares(buffer, group.chunk_lo, group.chunk_hi, partial)
            out.append(np.bincount(group.chunk_segment, weights=partial,
                                   minlength=len(group.sizes)))
        return out

