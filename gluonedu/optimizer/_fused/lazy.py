"""Lazy row_sparse updates on the fast path: only the rows a gradient holds are touched.

An Embedding with ``sparse_grad=True`` gets a row_sparse gradient: ``data`` (the k rows
the batch touched) and ``indices`` (their row ids, sorted and unique). The optimizers
that MXNet updates *lazily* then change only those k rows of the weight and of its
states — the other rows keep their values, their moments do not decay, their weight
does not shrink. The reference optimizers do it by copying the rows out, updating the
copies and writing them back; this module does the same arithmetic (the rules of
:mod:`.rules`, element by element) in place:

* **numba**: one parallel loop over the k rows, each row updated by the rule's serial,
  vectorised inner loop (``<rule>_rows`` in :mod:`.numba_backend`, compiled once and
  cached); nothing is copied;
* **NumPy** (numba absent or turned off, ``backend='numpy'``) and **CuPy** (GPU arrays):
  the rule runs on the fancy-indexed rows, which are then written back.

Which runs take it (:func:`refusal` says why not): dense weights of dtype float32, or
float16 with ``multi_precision`` (the rule runs on the float32 master copy, which the
float16 weight then receives whole, as the reference's cast does), for

=================  ===========================================  =========================
optimizer          row_sparse gradient                          rule
=================  ===========================================  =========================
SGD, ccSGD         ``lazy_update=True``; not float16 (its       ``sgd_momentum`` or
                   multi-precision kernel densifies the         ``sgd_plain`` on the rows
                   gradient)
NAG                momentum 0 (MXNet's ``sgd_update``); not     ``sgd_plain`` on the rows
                   float16
Adam               ``lazy_update=True``                         ``adam`` on the rows
AdaGrad            always; ``wd × wd_mult`` must be 0 (else     ``sparse_adagrad``
                   the reference raises)
=================  ===========================================  =========================

With ``lazy_update=False`` a row_sparse gradient stands for the dense array it
represents (every row decays): the reference path computes that. Ftrl updates a dense
weight densely from a row_sparse gradient (its lazy branch needs row_sparse weights,
which the Trainer keeps on a KVStore), NAG with momentum densifies the gradient, and
LARS (lazy too) needs layer-wise trust ratios this module does not compute: reference
path for them all.

A run (the unit the reference processes, see :mod:`.updater`) may mix row_sparse and
dense gradients (an Embedding beside Dense layers). Its dense parameters are then
updated one by one with their dense rule, on their own arrays (no flat buffers): for
SGD the rule depends on the multi-tensor chunk each parameter falls in, as in the
reference (a chunk holding a row_sparse gradient runs MXNet's one-tensor kernels).
Counting and the lr/wd of every parameter are read exactly as the flat path reads them
(:meth:`Optimizer.begin_step`).
"""
import numpy as np

from ... import _backend
from ..adagrad import AdaGrad
from ..adam import Adam
from ..ftrl import Ftrl
from ..nag import NAG
from ..sgd import SGD, ccSGD
from ..updater import Updater
from . import rules
from .specs import OFF, Segments, spec_for

__all__ = ['has_row_sparse', 'refusal', 'apply', 'step']

f32 = np.float32
_LAZY = (SGD, ccSGD, NAG, Adam, AdaGrad)   # exact classes: subclasses may change the math


def has_row_sparse(weights, grads):
    """Whether any weight or gradient of the run is row_sparse (then :func:`apply` runs it)."""
    return any(w.stype != 'default' for w in weights) or \
        any(g.stype != 'default' for g in grads)


def refusal(optimizer, indices, weights, grads):
    """Why this run (holding row_sparse arrays) cannot take the lazy fast path, or None."""
    kind = type(optimizer)
    if any(w.stype != 'default' for w in weights):
        return 'row_sparse weights'
    if kind is Ftrl:
        return ('Ftrl updates a dense weight densely from a row_sparse gradient (its lazy '
                'update needs row_sparse weights)')
    if kind not in _LAZY:
        return 'row_sparse gradients: %s has no lazy kernel' % kind.__name__
    if kind in (SGD, ccSGD, Adam) and not optimizer.lazy_update:
        return 'lazy_update=False (a row_sparse gradient then counts as dense)'
    if kind is NAG and optimizer.momentum > 0:
        return 'NAG with momentum counts a row_sparse gradient as dense'
    _, why = spec_for(optimizer).rule(optimizer)  # the run's dense parameters' rule
    if why:
        return why
    dtype = np.dtype(weights[0].dtype)
    if dtype == np.float16 and not optimizer.multi_precision:
        return 'float16 without multi_precision'
    if dtype not in (np.float32, np.float16):
        return 'dtype %s' % dtype
    if any(np.dtype(g.dtype) != dtype for g in grads):
        return 'gradients of another dtype than the weights'
    if len({id(w) for w in weights}) != len(weights):
        return 'a parameter listed twice'
    if dtype == np.float16 and kind in (SGD, ccSGD, NAG):
        return ('float16 multi_precision %s densifies row_sparse gradients (MXNet has no '
                'lazy multi-precision kernel)' % kind.__name__)
    if kind is AdaGrad:
        sparse = [i for i, g in zip(indices, grads) if g.stype == 'row_sparse']
        if any(wd != 0 for wd in optimizer._get_wds(sparse)):  # reads nothing else
            return 'AdaGrad with weight decay on a row_sparse gradient (the reference raises)'
    return None


def apply(updater, indices, weights, grads, norms=None):
    """Update a run that holds row_sparse arrays: lazily if :func:`refusal` allows, else
    through the reference ``Updater._apply``.

    Returns ``(path, measured)``: the entry for ``last_paths`` ('fused-lazy:<backend>'
    or 'reference: <why>') and the norms measured for ``norms`` (a NormRequest or None),
    measured as the reference measures them, parameter by parameter after the update.
    """
    why = refusal(updater.optimizer, indices, weights, grads)
    if why is not None:
        return 'reference: ' + why, Updater._apply(updater, indices, weights, grads, norms)
    before = norms.before(weights) if norms else None
    backend = step(updater, indices, weights, grads)
    if norms is None:
        return 'fused-lazy:' + backend, {}
    return 'fused-lazy:' + backend, norms.measure(
        updater.optimizer, indices, weights, grads, [updater.states[i] for i in indices],
        before)


# ---------------------------------------------------------------------------- one step
def step(updater, indices, weights, grads):
    """One lazy step of the run (:func:`refusal` said yes); returns the backend's name."""
    # Imported here: updater.py imports this module.
    from .updater import backend_name
    opt = updater.optimizer
    spec = spec_for(opt)
    chunk = max(1, opt.aggregate_num) if (spec.counting == 'chunks' and
                                          updater.aggregate_updates) else 1
    step = opt.begin_step(list(indices), per_call=chunk)
    seg = Segments(indices, step.lr, step.wd, step.t)
    backend = backend_name(weights[0].context, updater.requested_backend)
    sparse = [g.stype == 'row_sparse' for g in grads]
    multi_precision = np.dtype(weights[0].dtype) == np.float16
    scalars = {}  # rule name -> (per-parameter arrays, constants)
    with _backend.device_scope(weights[0].context):
        for k, (index, weight, grad) in enumerate(zip(indices, weights, grads)):
            start = k - k % chunk
            name = _rule_name(opt, sparse[k], not any(sparse[start:start + chunk]))
            if name not in scalars:
                scalars[name] = _scalars(opt, seg, name)
            per_parameter, constants = scalars[name]
            master, states = spec.split_state(opt, updater.states[index], multi_precision)
            target = master if multi_precision else weight
            values = [f32(p[k]) for p in per_parameter] + [f32(c) for c in constants]
            if sparse[k]:
                g = grad._values.astype(np.float32) if multi_precision else grad._values
                _update_rows(backend, name, target._data, g, grad._indices,
                             [s._data for s in states], values)
            else:
                g = grad._data.astype(np.float32) if multi_precision else grad._data
                _update_all(backend, name, target._data, g, [s._data for s in states],
                            values)
            if multi_precision:  # the reference casts the whole master copy back
                weight._data[...] = master._data
    return backend


def _rule_name(opt, sparse, chunk_is_dense):
    """The rule the reference applies to one parameter of the run."""
    if isinstance(opt, SGD):
        if opt.momentum > 0:
            return 'sgd_momentum'
        # MXNet's multi-tensor kernel (momentum form, zero buffer) runs only on chunks of
        # dense arrays; any other chunk takes the one-tensor kernel, sgd_update.
        return 'sgd_no_momentum' if chunk_is_dense else 'sgd_plain'
    if isinstance(opt, NAG):
        return 'sgd_plain'   # momentum 0: MXNet's sgd_update, lazy on row_sparse rows
    if isinstance(opt, AdaGrad):
        return 'sparse_adagrad' if sparse else 'adagrad'
    return 'adam'


def _scalars(opt, seg, name):
    """(per-parameter arrays over the run, constants) for rule ``name``."""
    rescale = f32(opt.rescale_grad)
    clip = f32(opt.clip_gradient) if opt.clip_gradient is not None and \
        opt.clip_gradient > 0 else OFF   # the kernels' convention
    if name == 'sgd_plain':
        return [seg.lr, seg.wd], [f32(1), rescale, clip]
    if name == 'sparse_adagrad':
        return [seg.lr], [rescale, clip, f32(opt.float_stable_eps)]
    return spec_for(opt).scalars(opt, seg)   # the dense rules' own


# ---------------------------------------------------------------------------- backends
def _update_rows(backend, name, w, g, rows, states, values):
    """Rule ``name`` on rows ``rows`` of ``w`` and ``states`` from the gradient rows ``g``."""
    if rows.shape[0] == 0:
        return
    if backend == 'numba' and _numba_rows(name, w, g, rows, states, values):
        return
    rule = rules.ROW_RULES.get(name) or rules.RULES[name]
    with np.errstate(divide='ignore', invalid='ignore', over='ignore'):
        results = rule(w[rows], g, *[s[rows] for s in states], *values)
    for target, result in zip([w] + states, results):
        target[rows] = result


def _update_all(backend, name, w, g, states, values):
    """Rule ``name`` on the whole of a dense parameter (a dense gradient in the run)."""
    if backend == 'numba' and _numba_rows(name, w, g, None, states, values):
        return
    rule = rules.ROW_RULES.get(name) or rules.RULES[name]
    with np.errstate(divide='ignore', invalid='ignore', over='ignore'):
        results = rule(w, g, *states, *values)
    for target, result in zip([w] + states, results):
        if result is not target:
            target[...] = result


_ONE_ROW = np.zeros(1, dtype=np.int64)


def _numba_rows(name, w, g, rows, states, values):
    """Run the numba loop ``<name>_rows``; False if it could not (nothing written then).

    ``rows`` None: the whole (dense) parameter, as one row. The loop takes C-contiguous
    NumPy arrays, viewed as 2-D rows *in place* (a copy would lose the update); it
    declines by itself row ids that are not increasing and in range, and shapes that
    disagree (it writes rows in parallel, unchecked).
    """
    if g.shape != (w.shape if rows is None else rows.shape + w.shape[1:]):
        return False
    for x in [w, g] + states:
        if type(x) is not np.ndarray or not x.flags.c_contiguous:
            return False
    from .numba_backend import PARALLEL_MIN, _kernels
    import numba
    # Below PARALLEL_MIN elements a second thread costs more than it saves.
    numba.set_num_threads(1 if g.size < PARALLEL_MIN else numba.config.NUMBA_NUM_THREADS)
    n, k = (1, 1) if rows is None else (w.shape[0], rows.shape[0])
    return getattr(_kernels(), name + '_rows')(
        w.reshape(n, -1), g.reshape(k, -1), *[s.reshape(n, -1) for s in states],
        _ONE_ROW if rows is None else rows, *values)
