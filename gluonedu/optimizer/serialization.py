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
Loading checks the format and that every referenced array is present, and rebuilds
optimizers and schedulers through their constructors (:mod:`.rebuild`): saved
hyper-parameters pass the same checks as new ones.
"""
import collections
import io
import os
import re

import numpy as np

from .. import lr_scheduler as _lr_scheduler
from ..base import MXNetError
from ..context import Context
from ..ndarray import NDArray, from_numpy
from ..ndarray.archive import ArchiveReader, write_archive
from ..ndarray.sparse import RowSparseNDArray, row_sparse_array
from .optimizer import Optimizer, STATE_TYPES
from .rebuild import NOT_SAVED, check_agreement, rebuild

__all__ = ['dumps_states', 'loads_states', 'read_document', 'encode', 'decode']

FORMAT = 'gluonedu.optimizer-states'
VERSION = 1
DOCUMENT = 'states.json'
#: The largest states document read: about 100 bytes describe a state array, the
#: optimizer's settings and tables (idx2name, lr_mult) take a few KB more per parameter;
#: the budget grows with the archive's members, so a large document cannot come alone.
MAX_DOCUMENT_BYTES = 64 << 20
DOCUMENT_BYTES_BASE = 256 << 10
DOCUMENT_BYTES_PER_ARRAY = 4 << 10


#: The keys each kind of encoded entry may have (the first one names the kind).
_ENTRY_KEYS = [('array', {'array', 'ctx', 'stype', 'indices', 'shape'}),
               ('tuple', {'tuple', 'type', 'fields'}), ('list', {'list'}), ('dict', {'dict'}),
               ('optimizer', {'optimizer', 'attrs', 'current_device'}),
               ('scheduler', {'scheduler', 'attrs'})]
_DOCUMENT_KEYS = {'format', 'version', 'states', 'optimizer', 'extra'}
_CONTEXT = re.compile(r'(cpu|gpu|cpu_pinned|cpu_shared)\((\d{1,4})\)')


def _damaged(what):
    return MXNetError("optimizer states are damaged: %s" % what)


def _parse_ctx(text):
    match = _CONTEXT.fullmatch(text) if isinstance(text, str) else None
    if match is None:
        raise _damaged("%r is not a device such as 'cpu(0)'" % (str(text)[:40],))
    return Context(match.group(1), int(match.group(2)))


def _kind(entry):
    """Which kind of encoded entry ``entry`` (a dict) is; MXNetError unless its keys
    are exactly those of one kind."""
    for kind, allowed in _ENTRY_KEYS:
        if kind in entry:
            if not set(entry) <= allowed:
                raise _damaged("a %s entry has the keys %s" % (kind, sorted(entry)[:8]))
            return kind
    raise _damaged("unknown entry %s" % sorted(entry)[:8])


def _list_of(entry, key, what=None):
    value = entry[key]
    if not isinstance(value, list):
        raise _damaged("%s is %s, not a list" % (what or key, type(value).__name__))
    return value


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
                     if k not in NOT_SAVED}
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
        self.used = set()

    def _host(self, k):
        """Array ``k``, once: two states sharing a buffer would update it twice (and the
        NDArrays made here take the freshly read arrays as their buffers)."""
        if not isinstance(k, int) or isinstance(k, bool) or k not in self.arrays:
            raise _damaged("array %r is missing" % (str(k)[:40],))
        if k in self.used:
            raise _damaged("array %d is referenced twice" % k)
        self.used.add(k)
        return self.arrays[k]

    def _attrs(self, entry):
        attrs = entry.get('attrs')
        if not isinstance(attrs, dict):
            raise MXNetError("optimizer states are damaged: %r has no attributes" % sorted(entry))
        return {k: self(v) for k, v in attrs.items()}

    def __call__(self, value):
        if value is None or isinstance(value, (bool, int, float, str)):
            return value
        if not isinstance(value, dict):   # the encoder writes lists as {"list": [...]}
            raise _damaged("a bare %s %s" % (type(value).__name__, str(value)[:40]))
        kind = _kind(value)
        if kind == 'array':
            return self._array(value)
        if kind == 'tuple':
            items = [self(v) for v in _list_of(value, 'tuple')]
            if 'fields' in value and 'type' not in value:
                raise _damaged("a state lists fields but no type")
            return _named(value, items) if 'type' in value else tuple(items)
        if kind == 'list':
            return [self(v) for v in _list_of(value, 'list')]
        if kind == 'dict':
            return self._dict(value)
        if kind == 'optimizer':
            if set(value) != {'optimizer', 'attrs', 'current_device'}:
                raise _damaged("the optimizer entry has the keys %s" % sorted(value)[:8])
            klass = Optimizer.opt_registry.get(value['optimizer']) \
                if isinstance(value['optimizer'], str) else None
            if klass is None:
                raise MXNetError("the saved optimizer %r is not registered here; import the "
                                 "module that registers it first" % (value['optimizer'],))
            return _rebuild_optimizer(klass, self._attrs(value), value.get('current_device', 0))
        klass = getattr(_lr_scheduler, value['scheduler'], None) \
            if isinstance(value['scheduler'], str) else None
        if not (isinstance(klass, type) and issubclass(klass, _lr_scheduler.LRScheduler)):
            raise MXNetError("unknown learning-rate scheduler %r in saved states"
                             % (value['scheduler'],))
        what = 'learning-rate scheduler %s' % klass.__name__
        scheduler = rebuild(klass, self._attrs(value), what)
        check_agreement(what, scheduler)
        return scheduler

    def _array(self, value):
        ctx = self.ctx or _parse_ctx(value.get('ctx'))
        stype = value.get('stype')
        if stype == 'row_sparse' and set(value) == {'array', 'ctx', 'stype', 'indices',
                                                    'shape'}:
            data, indices = self._host(value['array']), self._host(value['indices'])
            shape = value['shape']
            if not (isinstance(shape, list) and len(shape) == data.ndim and data.ndim >= 1 and
                    all(isinstance(d, int) and not isinstance(d, bool) and 0 <= d < 2 ** 40
                        for d in shape) and list(data.shape[1:]) == shape[1:] and
                    indices.ndim == 1 and indices.dtype.kind in 'iu' and
                    len(indices) == len(data) and
                    (len(indices) == 0 or (indices.min() >= 0 and indices.max() < shape[0]))):
                raise _damaged("a row_sparse state does not fit its shape %s"
                               % (str(shape)[:40],))
            return row_sparse_array((data, indices), shape=shape, ctx=ctx, dtype=data.dtype)
        if stype != 'default' or set(value) != {'array', 'ctx', 'stype'}:
            raise _damaged("an array entry of storage type %r with keys %s"
                           % (str(stype)[:20], sorted(value)))
        host = self._host(value['array'])
        if host.ndim == 0:
            raise _damaged("array %d has no dimensions" % value['array'])
        return from_numpy(host, ctx, copy=False)

    def _dict(self, value):
        out = {}
        for pair in _list_of(value, 'dict'):
            if not (isinstance(pair, list) and len(pair) == 2):
                raise _damaged("a dict entry holds %s, not a [key, value] pair"
                               % (str(pair)[:40],))
            key = self(pair[0])
            if not isinstance(key, (int, float, str)):
                raise _damaged("the dict key %s is not a number or a string" % str(key)[:40])
            if key in out:
                raise _damaged("the dict key %s is repeated" % str(key)[:40])
            out[key] = self(pair[1])
        return out


def _rebuild_optimizer(klass, attrs, current_device):
    """The saved optimizer, made by its constructor (see :mod:`.rebuild`)."""
    scheduler = attrs.get('lr_scheduler')
    base_lr = getattr(scheduler, 'base_lr', None)
    what = 'optimizer %s' % klass.__name__
    opt = rebuild(klass, attrs, what, lr_scheduler=scheduler)
    if scheduler is not None:
        scheduler.base_lr = base_lr  # the constructor set it to lr; it may have decayed since
    if not isinstance(current_device, int) or isinstance(current_device, bool):
        raise MXNetError("optimizer states are damaged: current_device is %r, not a device id"
                         % (current_device,))
    counts = opt._all_index_update_counts
    if not all(isinstance(device, int) and not isinstance(device, bool) and
               isinstance(table, dict) for device, table in counts.items()):
        raise _damaged("the update counts are not tables by device id")
    if current_device not in counts:
        raise _damaged("current_device %d has no update counts" % current_device)
    # The current device's counters are an alias into the per-device table.
    opt._index_update_count = counts[current_device]
    check_agreement(what, opt)
    return opt


def _named(entry, items):
    """The named state an entry describes: its registered type when the fields agree."""
    name, fields = entry['type'], entry.get('fields')
    if not isinstance(name, str):
        raise _damaged("a state's type is %s, not a name" % (str(name)[:40],))
    if not isinstance(fields, list) or len(fields) != len(items) or \
            not all(isinstance(f, str) for f in fields):
        raise _damaged("the state %r lists fields %s for %d values"
                       % (name, str(fields)[:60], len(items)))
    kind = STATE_TYPES.get(name)
    if kind is None or list(kind._fields) != fields:
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
    write_archive(buf, DOCUMENT, document, [('%d.npy' % k, host)
                                            for k, host in enumerate(encoder.arrays)])
    return buf.getvalue()


def read_document(data):
    """(JSON document, {k: host array}) of bytes written by :func:`dumps_states`, or of
    the file at ``data`` (an ``os.PathLike``: read member by member, never whole).

    Checks the archive (ZIP checksums included), the format, the version and the
    document's keys; decodes nothing, so a caller can validate the document before
    building any object from it.
    """
    if isinstance(data, os.PathLike):
        data = os.fspath(data)
    elif not isinstance(data, (bytes, bytearray)):
        raise TypeError("optimizer states must be bytes from get_states(), got %s"
                        % type(data).__name__)
    with ArchiveReader(data, 'these optimizer states') as reader:
        document = reader.document(DOCUMENT, min(MAX_DOCUMENT_BYTES, DOCUMENT_BYTES_BASE +
                                                 DOCUMENT_BYTES_PER_ARRAY * len(reader.members)))
        if not isinstance(document, dict) or document.get('format') != FORMAT or \
                document.get('version') != VERSION:
            found = (document.get('format'), document.get('version')) \
                if isinstance(document, dict) else type(document).__name__
            raise MXNetError("these are not optimizer states gluonedu wrote (format, version: "
                             "%s); this gluonedu reads %s version %d"
                             % (str(found)[:80], FORMAT, VERSION))
        if not set(document) <= _DOCUMENT_KEYS or not {'states', 'optimizer'} <= set(document):
            raise _damaged("the document has the keys %s, not %s"
                           % (sorted(document)[:8], sorted(_DOCUMENT_KEYS)))
        if not isinstance(document['states'], dict) or \
                not isinstance(document.get('extra', {}), dict):
            raise _damaged("'states' or 'extra' is not an entry")
        arrays = {}
        for member in reader.members:
            if member.endswith('.npy') and member[:-4].isdigit():
                arrays[int(member[:-4])] = reader.array(member)
    return document, arrays


def loads_states(data, ctx=None):
    """(states, optimizer or None) from bytes written by :func:`dumps_states` (or the
    file at an ``os.PathLike``).

    The states are a dict of parameter index (int or str) -> state; anything else, or
    any entry that does not decode, raises MXNetError.
    """
    document, arrays = read_document(data)
    decoder = _Decoder(arrays, ctx)
    optimizer = decoder(document['optimizer']) if document['optimizer'] is not None else None
    states = decoder(document['states'])
    if not isinstance(states, dict) or not all(
            isinstance(k, (int, str)) and not isinstance(k, bool) for k in states):
        raise _damaged("the states are not a table of parameter index -> state")
    if optimizer is not None and not isinstance(optimizer, Optimizer):
        raise _damaged("'optimizer' is not an optimizer entry")
    return states, optimizer
