"""Saving and loading arrays without pickle.

File format (``mx.nd.save``), version 1: an archive (:mod:`gluonedu.ndarray.archive`:
a ZIP, members stored) holding

* ``manifest.json``: ``{"format": "gluonedu.ndarray", "version": 1, "kind": "list" | "dict",
  "arrays": [{"name": str | null, "stype": "default" | "row_sparse" | "csr", "shape": [...],
  "dtype": "float32", "files": {...}}]}`` in the saved order;
* one ``.npy`` file (NumPy's documented format) per stored buffer: ``<i>.npy`` for a dense
  array; ``<i>.data.npy`` and ``<i>.indices.npy`` for a row-sparse one; ``<i>.data.npy``,
  ``<i>.indices.npy`` and ``<i>.indptr.npy`` for a csr one (stype ``"csr"``).

:func:`load` checks everything before it reads any array data: the archive (see
:class:`~gluonedu.ndarray.archive.ArchiveReader`), every manifest field, that the
members are exactly the ones the manifest names, and every array's header against its
manifest entry (dtype, shape; a sparse array's parts against each other). A file that
fails any check raises :class:`~gluonedu.base.MXNetError`; nothing is unpickled. Files
are written atomically (:func:`gluonedu.files.atomic_write`).

``save(..., format='mxnet')`` writes MXNet's own binary format instead (what MXNet's
``nd.load`` reads, see :mod:`.mxnet_format`); ``load`` recognises either format by its
first bytes.
"""
import io

import numpy as np

from ..base import MXNetError
from ..context import cpu
from ..files import atomic_write
from . import mxnet_format
from .archive import DTYPES, ArchiveReader, shape_is_sane, write_archive
from .ndarray import NDArray, from_numpy

__all__ = ['save', 'load', 'load_frombuffer']

FORMAT = 'gluonedu.ndarray'
VERSION = 1
MANIFEST = 'manifest.json'

#: The stored parts of each storage type, each one file.
_PARTS = {'default': ('data',), 'row_sparse': ('data', 'indices'),
          'csr': ('data', 'indices', 'indptr')}
#: The dtypes an array may be saved with, by name.
_DTYPE_NAMES = {dtype.name: dtype for dtype in DTYPES.values()}
_INDEX = np.dtype(np.int64)
# A manifest entry takes ~150 bytes plus its name: this bounds names to ~4000 characters.
_MANIFEST_BYTES = 64 << 10
_MANIFEST_BYTES_PER_MEMBER = 4 << 10


def _files(i, stype):
    """The members :func:`save` writes for entry ``i`` of storage type ``stype``."""
    if stype == 'default':
        return {'data': '%d.npy' % i}
    return {part: '%d.%s.npy' % (i, part) for part in _PARTS[stype]}


def save(fname, data, format='gluonedu'):  # pylint: disable=redefined-builtin
    """Save an NDArray, a list of NDArrays or a dict of str -> NDArray to ``fname``.

    Parameters
    ----------
    fname : str
    data : NDArray, list of NDArray, or dict of str to NDArray
    format : {'gluonedu', 'mxnet'}
        gluonedu's ZIP of ``.npy`` files (the default), or MXNet's binary format, which
        MXNet 1.x's ``nd.load`` reads.
    """
    if format not in ('gluonedu', 'mxnet'):
        raise ValueError("save(): format must be 'gluonedu' or 'mxnet', got %r" % (format,))
    if isinstance(data, NDArray):
        data = [data]
    if isinstance(data, dict):
        kind, items = 'dict', list(data.items())
        if not all(isinstance(k, str) for k, _ in items):
            raise TypeError("save(): dict keys must be strings")
    elif isinstance(data, (list, tuple)):
        kind, items = 'list', [(None, v) for v in data]
    else:
        raise TypeError("save() takes an NDArray, a list of NDArrays or a dict of "
                        "str -> NDArray, not %s" % type(data).__name__)
    for i, (name, arr) in enumerate(items):
        if not isinstance(arr, NDArray):
            raise TypeError("save(): entry %r is a %s, not an NDArray"
                            % (name if name is not None else i, type(arr).__name__))
    if format == 'mxnet':
        names = [name for name, _ in items] if kind == 'dict' else []
        arrays = [arr for _, arr in items]
        atomic_write(fname, lambda f: mxnet_format.write(f, names, arrays))
        return
    entries, blobs = [], []
    for i, (name, arr) in enumerate(items):
        files = _files(i, arr.stype)
        entries.append({'name': name, 'stype': arr.stype, 'shape': list(arr.shape),
                        'dtype': np.dtype(arr.dtype).name, 'files': files})
        if arr.stype == 'default':
            blobs.append((files['data'], arr.asnumpy()))
        else:  # each part of a sparse array (data, indices, indptr for csr) in its own file
            blobs += [(files[part], getattr(arr, part).asnumpy()) for part in _PARTS[arr.stype]]
    manifest = {'format': FORMAT, 'version': VERSION, 'kind': kind, 'arrays': entries}
    atomic_write(fname, lambda f: write_archive(f, MANIFEST, manifest, blobs))


def _check_manifest(manifest, reader):
    """Raise MXNetError unless ``manifest`` has exactly the structure :func:`save` writes."""
    if not isinstance(manifest, dict) or manifest.get('format') != FORMAT \
            or manifest.get('version') != VERSION:
        found = manifest if not isinstance(manifest, dict) else \
            (manifest.get('format'), manifest.get('version'))
        raise MXNetError("%s is not a %s version %d file (found %r)"
                         % (reader.what, FORMAT, VERSION, str(found)[:100]))

    def damaged(why):
        return reader.damaged("its manifest %s" % why)
    kind = manifest.get('kind')
    if kind not in ('list', 'dict'):
        raise damaged("has kind %r, not 'list' or 'dict'" % (str(kind)[:40],))
    entries = manifest.get('arrays')
    if not isinstance(entries, list):
        raise damaged("lacks the list of arrays")
    names = set()
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise damaged("has an entry that is not an object (entry %d)" % i)
        name, stype, dtype = entry.get('name'), entry.get('stype'), entry.get('dtype')
        if kind == 'dict' and (not isinstance(name, str) or name in names):
            raise damaged("has a name that is not a string, or repeated, at entry %d" % i)
        if kind == 'list' and name is not None:
            raise damaged("names entry %d of a list" % i)
        names.add(name)
        if not isinstance(stype, str) or stype not in _PARTS:
            raise damaged("has entry %d of storage type %r" % (i, str(stype)[:40]))
        if not isinstance(dtype, str) or dtype not in _DTYPE_NAMES:
            raise damaged("has entry %d of dtype %r (allowed: %s)"
                          % (i, str(dtype)[:40], ', '.join(_DTYPE_NAMES)))
        shape = entry.get('shape')
        if not isinstance(shape, list) or not 1 <= len(shape) or \
                not shape_is_sane(tuple(shape), _DTYPE_NAMES[dtype]) or \
                (stype == 'csr' and len(shape) != 2):
            raise damaged("has no valid shape for entry %d" % i)
        if entry.get('files') != _files(i, stype):
            raise damaged("names files %r for entry %d; a valid file names %r"
                          % (str(entry.get('files'))[:80], i, _files(i, stype)))
    reader.expect([MANIFEST] + [member for i, entry in enumerate(entries)
                                for member in _files(i, entry['stype']).values()])


def _check_headers(entry, headers, reader):
    """Raise MXNetError unless the parts' headers fit ``entry`` (and each other)."""
    shape, dtype = tuple(entry['shape']), _DTYPE_NAMES[entry['dtype']]
    data = headers['data']
    if data.dtype != dtype:
        raise reader.damaged("%s holds %s values; the manifest says %s"
                             % (entry['files']['data'], data.dtype.name, dtype.name))
    if entry['stype'] == 'default':
        expected = {'data': shape}
    elif entry['stype'] == 'row_sparse':
        rows = data.shape[0] if data.shape else -1
        expected = {'data': (rows,) + shape[1:], 'indices': (rows,)}
        if not 0 <= rows <= shape[0]:
            raise reader.damaged("entry %r stores %d rows of an array of %d"
                                 % (entry['name'], rows, shape[0]))
    else:
        nnz = data.shape[0] if len(data.shape) == 1 else -1
        expected = {'data': (nnz,), 'indices': (nnz,), 'indptr': (shape[0] + 1,)}
    for part, want in expected.items():
        header = headers[part]
        if header.shape != want or (part != 'data' and header.dtype != _INDEX):
            raise reader.damaged("%s holds %s %s; the manifest's entry %r needs %s %s"
                                 % (entry['files'][part], header.dtype.name, header.shape,
                                    entry['name'], _INDEX.name if part != 'data'
                                    else dtype.name, want))


def _adopt(host, ctx):
    """An NDArray on ``ctx`` holding ``host`` (a fresh array: no copy on a CPU)."""
    return NDArray(host, ctx) if ctx.device_type == 'cpu' else from_numpy(host, ctx)


def load(fname, ctx=None):
    """Load what :func:`save` wrote — or MXNet's ``nd.save`` — a list or a dict of NDArrays
    (on ``ctx``, default cpu).

    The whole file is checked before any array is read; a damaged or foreign file
    raises MXNetError.
    """
    ctx = ctx or cpu()
    with open(fname, 'rb') as f:
        if mxnet_format.is_mxnet_file(f.read(8)):
            f.seek(0)
            return mxnet_format.read(f, fname, ctx)
    return _load_archive(fname, str(fname), ctx)


def load_frombuffer(buf):
    """:func:`load` of a file's contents held in memory (bytes, or text), on cpu."""
    if not isinstance(buf, (str, bytes)):
        raise TypeError('load_frombuffer: buf must be bytes (or str), got %s'
                        % type(buf).__name__)
    data = buf.encode('utf-8') if isinstance(buf, str) else buf
    if mxnet_format.is_mxnet_file(data[:8]):
        return mxnet_format.read(io.BytesIO(data), 'the buffer', cpu())
    return _load_archive(data, 'the buffer', cpu())


def _load_archive(source, what, ctx):
    """The arrays of a gluonedu archive: a path or its bytes, ``what`` in messages."""
    from .sparse import csr_matrix, row_sparse_array
    with ArchiveReader(source, what) as reader:
        manifest = reader.document(MANIFEST, _MANIFEST_BYTES + _MANIFEST_BYTES_PER_MEMBER
                                   * len(reader.members))
        _check_manifest(manifest, reader)
        entries = manifest['arrays']
        headers = [{part: reader.header(member) for part, member in entry['files'].items()}
                   for entry in entries]
        for entry, parts in zip(entries, headers):
            _check_headers(entry, parts, reader)
        arrays = []
        for entry, parts in zip(entries, headers):
            hosts = {part: reader.array(entry['files'][part], header)
                     for part, header in parts.items()}
            if entry['stype'] == 'default':
                arrays.append(_adopt(hosts['data'], ctx))
                continue
            make = csr_matrix if entry['stype'] == 'csr' else row_sparse_array
            try:  # both check the parts (indices in range, sorted, ...)
                arrays.append(make(tuple(hosts[part] for part in _PARTS[entry['stype']]),
                                   shape=entry['shape'], ctx=ctx, dtype=hosts['data'].dtype))
            except (MXNetError, ValueError) as err:
                raise reader.damaged("entry %r is not a valid %s array (%s)"
                                     % (entry['name'], entry['stype'], err)) from None
    if manifest['kind'] == 'dict':
        return {entry['name']: arr for entry, arr in zip(entries, arrays)}
    return arrays
