"""Saving and loading arrays without pickle.

File format (``mx.nd.save``), version 1: a ZIP archive holding

* ``manifest.json``: ``{"format": "gluonedu.ndarray", "version": 1, "kind": "list" | "dict",
  "arrays": [{"name": str | null, "stype": "default" | "row_sparse" | "csr", "shape": [...],
  "files": {...}}]}`` in the saved order;
* one ``.npy`` file (NumPy's documented format) per stored buffer: ``<i>.npy`` for a dense
  array; ``<i>.data.npy`` and ``<i>.indices.npy`` for a row-sparse one; ``<i>.data.npy``,
  ``<i>.indices.npy`` and ``<i>.indptr.npy`` for a csr one (stype ``"csr"``).

Loading never unpickles (``allow_pickle=False``) and checks the manifest against the
files. Files are written to a temporary file first and renamed into place, so an
interrupted save never leaves a half-written file under the target name.

``save(..., format='mxnet')`` writes MXNet's own binary format instead (what MXNet's
``nd.load`` reads, see :mod:`.mxnet_format`); ``load`` recognises either format by its
first bytes.
"""
import io as _io
import json
import os
import tempfile
import zipfile
import zlib

import numpy as np

from ..base import MXNetError
from ..context import cpu
from . import mxnet_format
from .ndarray import NDArray, from_numpy

__all__ = ['save', 'load', 'atomic_write']

FORMAT = 'gluonedu.ndarray'
VERSION = 1

#: The stored parts of each storage type, each one file.
_PARTS = {'default': ('data',), 'row_sparse': ('data', 'indices'),
          'csr': ('data', 'indices', 'indptr')}

# What zipfile and NumPy raise on a damaged archive (bad CRC, header, flags, compression).
_DAMAGE_ERRORS = (ValueError, EOFError, OSError, RuntimeError, zipfile.BadZipFile, zlib.error)


def atomic_write(fname, write):
    """Call ``write(fileobj)`` on a temp file beside ``fname``, fsync it, rename it over."""
    fname = os.fspath(fname)
    folder = os.path.dirname(os.path.abspath(fname))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix='.' + os.path.basename(fname), suffix='.tmp')
    try:
        with os.fdopen(fd, 'wb') as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, fname)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _npy_bytes(array):
    buf = _io.BytesIO()
    np.lib.format.write_array(buf, np.ascontiguousarray(array), allow_pickle=False)
    return buf.getvalue()


def save(fname, data, format='gluonedu'):  # pylint: disable=redefined-builtin
    """Save an NDArray, a list of NDArrays or a dict of str -> NDArray to ``fname``.

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
        entry = {'name': name, 'stype': arr.stype, 'shape': list(arr.shape),
                 'dtype': np.dtype(arr.dtype).name}
        if arr.stype == 'default':
            entry['files'] = {'data': '%d.npy' % i}
            blobs.append((entry['files']['data'], arr.asnumpy()))
        else:  # each part of a sparse array (data, indices, indptr for csr) in its own file
            entry['files'] = {part: '%d.%s.npy' % (i, part) for part in _PARTS[arr.stype]}
            blobs += [(entry['files'][part], getattr(arr, part).asnumpy())
                      for part in _PARTS[arr.stype]]
        entries.append(entry)
    manifest = {'format': FORMAT, 'version': VERSION, 'kind': kind, 'arrays': entries}

    def write(f):
        with zipfile.ZipFile(f, 'w', compression=zipfile.ZIP_STORED) as zf:
            zf.writestr('manifest.json', json.dumps(manifest, indent=1))
            for member, array in blobs:
                zf.writestr(member, _npy_bytes(array))
    atomic_write(fname, write)


def _read_npy(zf, member, fname):
    try:
        with zf.open(member) as f:
            return np.lib.format.read_array(_io.BytesIO(f.read()), allow_pickle=False)
    except KeyError:
        raise MXNetError("%s is damaged: it lacks %s" % (fname, member)) from None
    except _DAMAGE_ERRORS as err:
        raise MXNetError("%s is damaged: %s holds no valid array (%s)"
                         % (fname, member, err)) from None


def _check_manifest(manifest, fname):
    """Raise MXNetError unless ``manifest`` has the structure :func:`save` writes."""
    if not isinstance(manifest, dict) or manifest.get('format') != FORMAT \
            or manifest.get('version') != VERSION:
        found = manifest if not isinstance(manifest, dict) else \
            (manifest.get('format'), manifest.get('version'))
        raise MXNetError("%s is not a %s version %d file (found %r)"
                         % (fname, FORMAT, VERSION, found))

    def damaged(why):
        return MXNetError("%s is damaged: its manifest %s" % (fname, why))
    if manifest.get('kind') not in ('list', 'dict'):
        raise damaged("has kind %r, not 'list' or 'dict'" % (manifest.get('kind'),))
    entries = manifest.get('arrays')
    if not isinstance(entries, list):
        raise damaged("lacks the list of arrays")
    for entry in entries:
        if not isinstance(entry, dict):
            raise damaged("has an entry that is not an object: %r" % (entry,))
        stype, files = entry.get('stype'), entry.get('files')
        needed = _PARTS.get(stype)
        if needed is None:
            raise damaged("has an entry of storage type %r" % (stype,))
        if not isinstance(files, dict) or not all(isinstance(files.get(k), str)
                                                  for k in needed):
            raise damaged("names no files %s for entry %r" % (list(needed), entry.get('name')))
        shape = entry.get('shape')
        if not isinstance(shape, list) or not all(isinstance(n, int) for n in shape):
            raise damaged("has no valid shape for entry %r" % (entry.get('name'),))
        if manifest['kind'] == 'dict' and not isinstance(entry.get('name'), str):
            raise damaged("has a non-string name %r in a dict" % (entry.get('name'),))


def load(fname, ctx=None):
    """Load what :func:`save` wrote — or MXNet's ``nd.save`` — a list or a dict of NDArrays
    (on ``ctx``, default cpu)."""
    from .sparse import csr_matrix, row_sparse_array
    ctx = ctx or cpu()
    with open(fname, 'rb') as f:
        if mxnet_format.is_mxnet_file(f.read(8)):
            f.seek(0)
            return mxnet_format.read(f, fname, ctx)
    try:
        zf = zipfile.ZipFile(fname)
    except _DAMAGE_ERRORS as err:
        if isinstance(err, FileNotFoundError):
            raise
        raise MXNetError("%s is not an array file written by mx.nd.save (%s)" % (fname, err)) \
            from None
    with zf:
        try:
            manifest = json.loads(zf.read('manifest.json'))
        except (KeyError,) + _DAMAGE_ERRORS:
            raise MXNetError("%s is not an array file written by mx.nd.save: no valid "
                             "manifest.json" % fname) from None
        _check_manifest(manifest, fname)
        arrays = []
        for entry in manifest['arrays']:
            files = entry['files']
            if entry['stype'] != 'default':
                parts = tuple(_read_npy(zf, files[part], fname)
                              for part in _PARTS[entry['stype']])
                make = csr_matrix if entry['stype'] == 'csr' else row_sparse_array
                try:  # both check the parts (indices in range, sorted, ...)
                    arr = make(parts, shape=entry['shape'], ctx=ctx, dtype=parts[0].dtype)
                except (MXNetError, ValueError) as err:
                    raise MXNetError("%s is damaged: entry %r is not a valid %s array (%s)"
                                     % (fname, entry['name'], entry['stype'], err)) from None
            else:
                arr = from_numpy(_read_npy(zf, files['data'], fname), ctx)
            if list(arr.shape) != list(entry['shape']):
                raise MXNetError("%s is damaged: entry %r has shape %s, manifest says %s"
                                 % (fname, entry['name'], arr.shape, entry['shape']))
            arrays.append((entry['name'], arr))
    if manifest['kind'] == 'dict':
        return dict(arrays)
    return [arr for _, arr in arrays]
