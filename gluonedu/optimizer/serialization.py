"""Optimizer states and optimizers as bytes, without pickle.

``Updater.get_states`` returns, and ``Updater.set_states`` reads, a ZIP archive
(version 1) of

* ``states.json``: ``{"format": "gluonedu.optimizer-states", "version": 1,
  "states": <encoded>, "optimizer": <encoded optimizer or null>}``, plus an optional
  ``"extra"`` dict of plain JSON written by the caller (the Trainer's parameter list);
* ``<k>.npy``: the k-th array referenced by the encoded values (NumPy's format).

Values are encoded as JSON: numbers, strings, booleans and None as themselves;
``{"array": k, "ctx": "cpu(0)", "stype": "default"}`` for an NDArray (row-sparse ones
reference ``data`` and ``indices`` arrays); ``{"tuple": [...]}``, ``{"list": [...]}``
and ``{"dict": [[key, value], ...]}`` for containers (dict keys may be ints); a named
state adds its type and fields, ``{"tuple": [...], "type": "AdamState", "fields":
["mean", "var"]}`` (files written before states had names hold plain tuples: the
Updater names them again by the optimizer's state types on first use);
``{"optimizer": name, "attrs": {...}, "current_device": id}`` and
``{"scheduler": name, "attrs": {...}}`` for an optimizer and its learning-rate scheduler,
by class and attributes (``current_device``: whose update counts the optimizer was
using, since ``_index_update_count`` is an alias into ``_all_index_update_counts``).
Loading checks the format and that every referenced array is present.
"""
import collections
import io
import json
import zipfile

import numpy as np

from .. import lr_scheduler as _lr_scheduler
from ..base import MXNetError
from ..context import Context
from ..ndarray import NDArray, from_numpy
from ..ndarray.io import _npy_bytes, _read_npy
from ..ndarray.sparse import RowSparseNDArray, row_sparse_array
from .optimizer import Optimizer, STATE_TYPES

__all__ = ['dumps_states', 'loads_states', 'read_document', 'encode', 'decode']

FORMAT = 'gluonedu.optimizer-states'
VERSION = 1


def _parse_ctx(text):
    name, _, rest = text.partition('(')
    return Context(name, int(rest.rstrip(')')))


class _Encoder:
    def __init__(self):
        self.arrays = []

    def _array(self, host):
        self.arrays.append(np.ascontiguousarray(host))
        return len(self.arrays) - 1

    def __call__(self, value):
        if value is None or isinstance(value, (bool, str)):
            return value
        if isinstance(value, (int, float, np.integer, np.floating)):
            return value.item() if isinstance(value, np.generic) else value
        if isinstance(value, RowSparseNDArray):
            return {'array': self._array(value.data.asnumpy()), 'ctx': str(value.ctx),
                    'stype': 'row_sparse', 'indices': self._array(value.indices.asnumpy()),
                    'shape': list(value.shape)}
        if isinstance(value, NDArray):
            return {'array': self._array(value.asnumpy()), 'ctx': str(value.ctx),
                    'stype': 'default'}
        if isinstance(value, tuple):
            encoded = {'tuple': [self(v) for v in value]}
            if hasattr(value, '_fields'):   # a named state: AdamState(mean, var), ...
                encoded.update(type=type(value).__name__, fields=list(value._fields))
            return encoded
        if isinstance(value, list):
            return {'list': [self(v) for v in value]}
        if isinstance(value, dict):
            return {'dict': [[self(k), self(v)] for k, v in value.items()]}
        if isinstance(value, Optimizer):
            # _index_update_count aliases the current device's table; save which one.
            attrs = {k: self(v) for k, v in vars(value).items()
                     if k not in ('param_dict', '_index_update_count')}
            current = [dev for dev, counts in value._all_index_update_counts.items()
                       if counts is value._index_update_count]
            return {'optimizer': type(value).__name__.lower(), 'attrs': attrs,
                    'current_device': current[0] if current else 0}
        if isinstance(value, _lr_scheduler.LRScheduler):
            return {'scheduler': type(value).__name__, 'attrs': {k: self(v) for k, v in
                                                                 vars(value).items()}}
        raise TypeError("cannot save a value of type %s in optimizer states; states may hold "
                        "NDArrays, numbers, strings, None and tuples/lists/dicts of them"
                        % type(value).__name__)


class _Decoder:
    def __init__(self, arrays, ctx=None):
        self.arrays = arrays
        self.ctx = ctx

    def _host(self, k):
        if not isinstance(k, int) or k not in self.arrays:
            raise MXNetError("optimizer states are damaged: array %r is missing" % (k,))
        return self.arrays[k]

    def __call__(self, value):
        if not isinstance(value, dict):
            return value
        if 'array' in value:
            ctx = self.ctx or _parse_ctx(value['ctx'])
            if value['stype'] == 'row_sparse':
                data = self._host(value['array'])
                return row_sparse_array((data, self._host(value['indices'])),
                                        shape=value['shape'], ctx=ctx, dtype=data.dtype)
            return from_numpy(self._host(value['array']), ctx)
        if 'tuple' in value:
            items = [self(v) for v in value['tuple']]
            return _named(value, items) if 'type' in value else tuple(items)
        if 'list' in value:
            return [self(v) for v in value['list']]
        if 'dict' in value:
            return {self(k): self(v) for k, v in value['dict']}
        if 'optimizer' in value:
            klass = Optimizer.opt_registry.get(value['optimizer'])
            if klass is None:
                raise MXNetError("the saved optimizer %r is not registered here; import the "
                                 "module that registers it first" % value['optimizer'])
            opt = klass.__new__(klass)
            opt.__dict__.update({k: self(v) for k, v in value['attrs'].items()})
            opt.param_dict = {}
            # The current device's counters are an alias into the per-device table.
            opt._index_update_count = opt._all_index_update_counts.setdefault(
                value.get('current_device', 0), {})
            return opt
        if 'scheduler' in value:
            klass = getattr(_lr_scheduler, value['scheduler'], None)
            if not (isinstance(klass, type) and issubclass(klass, _lr_scheduler.LRScheduler)):
                raise MXNetError("unknown learning-rate scheduler %r in saved states"
                                 % value['scheduler'])
            sched = klass.__new__(klass)
            sched.__dict__.update({k: self(v) for k, v in value['attrs'].items()})
            return sched
        raise MXNetError("optimizer states are damaged: unknown entry %s" % sorted(value))


def _named(entry, items):
    """The named state an entry describes: its registered type when the fields agree."""
    name, fields = entry['type'], entry.get('fields')
    kind = STATE_TYPES.get(name)
    if kind is None or list(kind._fields) != fields:
        if not isinstance(fields, list) or len(fields) != len(items):
            raise MXNetError("optimizer states are damaged: the state %r lists fields %r for "
                             "%d values" % (name, fields, len(items)))
        try:   # a state type this process has not registered: same names, new class
            kind = collections.namedtuple(str(name), [str(f) for f in fields])
        except (TypeError, ValueError):
            raise MXNetError("optimizer states are damaged: %r with fields %r is not a "
                             "state type" % (name, fields)) from None
    return kind(*items)


def encode(value):
    """(JSON-able structure, list of host arrays) for ``value``."""
    encoder = _Encoder()
    return encoder(value), encoder.arrays


def decode(structure, arrays, ctx=None):
    """The value :func:`encode` described; arrays go to their saved contexts (or ``ctx``)."""
    return _Decoder(dict(enumerate(arrays)) if isinstance(arrays, list) else arrays, ctx)(
        structure)


def dumps_states(states, optimizer=None, extra=None):
    """Bytes holding ``states`` (and ``optimizer``, if given).

    ``extra``: an optional JSON-able dict stored under the document's ``"extra"`` key
    (the Trainer records its parameters' shapes there); :func:`loads_states` ignores it,
    :func:`read_document` returns it.
    """
    encoder = _Encoder()
    document = {'format': FORMAT, 'version': VERSION, 'states': encoder(states),
                'optimizer': encoder(optimizer) if optimizer is not None else None}
    if extra is not None:
        document['extra'] = extra
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, 'w', compression=zipfile.ZIP_STORED) as zf:
        zf.writestr('states.json', json.dumps(document))
        for k, host in enumerate(encoder.arrays):
            zf.writestr('%d.npy' % k, _npy_bytes(host))
    return buf.getvalue()


def read_document(data):
    """(JSON document, {k: host array}) of bytes written by :func:`dumps_states`.

    Checks the archive (ZIP checksums included), the format and the version; decodes
    nothing, so a caller can validate the document before building any object from it.
    """
    if not isinstance(data, (bytes, bytearray)):
        raise TypeError("optimizer states must be bytes from get_states(), got %s"
                        % type(data).__name__)
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
        document = json.loads(zf.read('states.json'))
    except (zipfile.BadZipFile, KeyError, ValueError):
        raise MXNetError("these bytes are not optimizer states written by gluonedu "
                         "(get_states / save_optimizer_states); were they written by another "
                         "program, or truncated?") from None
    with zf:
        if not isinstance(document, dict):
            document = {}
        if document.get('format') != FORMAT or document.get('version') != VERSION:
            raise MXNetError("optimizer states of format %r version %r; this gluonedu reads %s "
                             "version %d" % (document.get('format'), document.get('version'),
                                             FORMAT, VERSION))
        arrays = {}
        for member in zf.namelist():
            if member.endswith('.npy') and member[:-4].isdigit():
                arrays[int(member[:-4])] = _read_npy(zf, member, 'optimizer states')
    return document, arrays


def loads_states(data, ctx=None):
    """(states, optimizer or None) from bytes written by :func:`dumps_states`."""
    document, arrays = read_document(data)
    decoder = _Decoder(arrays, ctx)
    optimizer = decoder(document['optimizer']) if document['optimizer'] is not None else None
    return decoder(document['states']), optimizer
