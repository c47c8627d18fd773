"""Trainer state files: what ``Trainer.save_states`` writes and ``load_states`` accepts.

The file is the optimizer-states archive of :mod:`gluonedu.optimizer.serialization` —
never pickle. It is a ZIP (``np.savez``-like) holding

* ``states.json``: ``{"format": "gluonedu.optimizer-states", "version": 1,
  "optimizer": {"optimizer": "<registered name>", "attrs": {...}},
  "states": {"dict": [[index, <state>], ...]}, "extra": {...}}`` where ``attrs`` hold
  the hyperparameters, the update counters (``num_update``,
  ``_all_index_update_counts``) and the lr scheduler with its own attributes;
* ``<k>.npy``: the arrays the states reference (momentum, mean, var, ...).

``extra`` (written by the Trainer; absent from files a KVStore writes with
``save_optimizer_states``) describes the Trainer that saved it::

    {"writer": "gluonedu.gluon.Trainer", "version": 1, "steps": <trainer steps>,
     "params": [{"name": ..., "shape": [...], "dtype": "float32", "stype": "default"}, ...]}

Both kinds of file load into either kind of Trainer (updates on the store or not), as
in MXNet, where both paths write the Updater's states.

:func:`check_states` validates a file completely — archive checksums, format and
version, a registered optimizer rebuilt through its constructor, a decodable
structure, parameter count, shapes and dtypes, every state laid out as the optimizer
keeps it (arity, shapes, dtypes) — before the Trainer changes anything. Any problem raises
:class:`~gluonedu.base.MXNetError` naming it.
"""
import pathlib

import numpy as np

from .. import optimizer as opt
from ..base import MXNetError
from ..files import atomic_write
from ..optimizer.serialization import decode, dumps_states, read_document
from ..optimizer.updater import state_mismatch, state_template
from .utils import shape_is_known

__all__ = ['states_bytes', 'write_states', 'check_states']

WRITER = 'gluonedu.gluon.Trainer'
WRITER_VERSION = 1


def _describe(param):
    return {'name': param.name, 'shape': list(param.shape or ()),
            'dtype': np.dtype(param.dtype).name, 'stype': param._stype}


def states_bytes(updater, params, steps):
    """The bytes of a state file: ``updater``'s states and optimizer, and ``params``."""
    extra = {'writer': WRITER, 'version': WRITER_VERSION, 'steps': int(steps),
             'params': [_describe(p) for p in params]}
    return dumps_states(updater.states, updater.optimizer, extra=extra)


def write_states(fname, data):
    """Write ``data`` to ``fname`` atomically (temp file, fsync, rename)."""
    atomic_write(fname, lambda f: f.write(data))


def _param_shape(param):
    """The Parameter's shape, or, when it declares none (``None``: a SymbolBlock's
    Parameters, whose shapes come with the loaded data, as in MXNet), its data's shape;
    None when neither is known."""
    if param.shape is not None:
        return param.shape
    try:
        return tuple(param.list_data()[0].shape)
    except Exception:   # noqa: BLE001 - no data yet: the shape is not known
        return None


def _shapes_fit(saved, mine):
    """Whether a saved shape fits a Parameter's (0 marks a dimension not known yet, None
    the whole shape)."""
    if mine is None:
        return True
    if shape_is_known(mine):
        return tuple(saved) == tuple(mine)
    return len(saved) == len(mine) and all(m in (0, -1, s) for s, m in zip(saved, mine))


def check_states(params, fname, copies=1):
    """Validate the state file ``fname`` against ``params``; ``(states, optimizer,
    extra)``, where ``states`` is a list of ``copies`` decodings of the file's states,
    each with its own buffers (one per device's updater), all from one read of the file.

    Raises MXNetError, with ``fname`` in the message, on the first problem found.
    """
    def bad(why):
        return MXNetError("cannot load trainer states from %s: %s. Nothing was changed."
                          % (fname, why))
    try:
        document, arrays = read_document(pathlib.Path(fname))   # member by member
    except MXNetError as err:
        raise bad(str(err)) from None
    if document.get('optimizer') is None:
        raise bad("the file holds no optimizer (it was saved without dump_optimizer=True)")
    extra = document.get('extra')
    if extra is not None:
        if not isinstance(extra, dict) or extra.get('writer') != WRITER or \
                extra.get('version') != WRITER_VERSION or \
                not isinstance(extra.get('params'), list):
            raise bad("its trainer record %r is not one this gluonedu writes" % (extra,))
        steps = extra.get('steps')
        if isinstance(steps, bool) or not isinstance(steps, int) or steps < 0:
            raise bad("its trainer record holds steps=%r, not a count of steps" % (steps,))
        saved = extra['params']
        if len(saved) != len(params):
            raise bad("it was saved by a Trainer of %d parameters; this one has %d"
                      % (len(saved), len(params)))
        for i, (entry, param) in enumerate(zip(saved, params)):
            try:
                shape, dtype = tuple(entry['shape']), np.dtype(entry['dtype'])
            except (KeyError, TypeError):
                raise bad("its record of parameter %d is damaged" % i) from None
            if not _shapes_fit(shape, _param_shape(param)):
                raise bad("parameter %d (%s) was saved with shape %s; here %s has shape %s"
                          % (i, entry.get('name'), shape, param.name, _param_shape(param)))
            if entry.get('stype') != param._stype:
                raise bad("parameter %d (%s) was saved with storage type %s; here %s has %s"
                          % (i, entry.get('name'), str(entry.get('stype'))[:20], param.name,
                             param._stype))
            if dtype != np.dtype(param.dtype):
                raise bad("parameter %d (%s) was saved as %s; here %s is %s"
                          % (i, entry.get('name'), dtype, param.name,
                             np.dtype(param.dtype).name))
    try:
        optimizer = decode(document['optimizer'], arrays)
        states = decode(document['states'], arrays)
    except MXNetError as err:
        raise bad(str(err)) from None
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as err:
        raise bad("its structure is damaged (%s: %s)" % (type(err).__name__, err)) from None
    if not isinstance(optimizer, opt.Optimizer):
        raise bad("its optimizer entry does not describe an Optimizer")
    if not isinstance(states, dict):
        raise bad("its states are not a table of parameter index -> state")
    for index, state in states.items():
        if not isinstance(index, int) or not 0 <= index < len(params):
            raise bad("it holds a state for parameter index %r; this Trainer has indices "
                      "0..%d" % (index, len(params) - 1))
        param = params[index]
        shape = _param_shape(param)
        if shape_is_known(shape):
            template = state_template(optimizer, index, shape, param.dtype, param._stype)
            problem = state_mismatch(state, template)
            if problem:
                raise bad("its state of parameter %d (%s) does not fit %s: %s"
                          % (index, param.name, type(optimizer).__name__, problem))
    # The checked decoding holds the file's arrays as its buffers; the others copy them.
    others = [decode(document['states'], {k: a.copy() for k, a in arrays.items()})
              for _ in range(copies - 1)]
    return [states] + others, optimizer, extra
