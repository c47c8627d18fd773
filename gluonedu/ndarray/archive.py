"""The container of gluonedu's files: a ZIP of one JSON document and ``.npy`` arrays.

``mx.nd.save`` files (document ``manifest.json``) and optimizer-state files
(``states.json``) are such archives. :func:`write_archive` writes one; an
:class:`ArchiveReader` reads one, checking before it reads, so that a hostile file is
refused with :class:`~gluonedu.base.MXNetError` before it costs memory or time:

* the ZIP directory: each member named once, stored (gluonedu never compresses, so
  nothing can expand: all members together are no larger than the file), not
  encrypted, not overlapping another;
* the document: no larger than the caller's bound, JSON nested at most
  :data:`MAX_DEPTH` levels;
* the members: exactly those the document references (:meth:`ArchiveReader.expect`):
  one it never references is refused unread, one it references must exist;
* each array: its ``.npy`` header read by a strict parser (NumPy's layout, versions
  1-3, at most :data:`MAX_NPY_HEADER` bytes, nothing evaluated), a dtype from
  :data:`DTYPES`, at most :data:`MAX_NDIM` dimensions, and data of exactly
  ``prod(shape) * itemsize`` bytes. The caller checks the header against its document
  (:meth:`ArchiveReader.header`) before any data is read; :meth:`ArchiveReader.array`
  then reads the data in chunks straight into the array and verifies the checksum.

Nothing is ever unpickled or evaluated.
"""
import io
import json
import os
import re
import struct
import zipfile
import zlib
from collections import namedtuple

import numpy as np

from ..base import MXNetError

__all__ = ['ArchiveReader', 'write_archive', 'NpyHeader', 'DTYPES', 'shape_is_sane']

#: The dtypes an archive may hold (NDArray's; no object, string, complex or date types),
#: by the ``descr`` NumPy writes for them on this (little-endian) machine.
DTYPES = {np.dtype(name).str: np.dtype(name) for name in (
    'bool', 'int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32', 'int64', 'uint64',
    'float16', 'float32', 'float64')}
#: The most dimensions an array may have (MXNet's limit).
MAX_NDIM = 32
#: The deepest JSON nesting read (gluonedu's documents nest less than 10 levels).
MAX_DEPTH = 64
#: The longest ``.npy`` header read (NumPy writes 128 bytes for up to ~10 dimensions).
MAX_NPY_HEADER = 4096

#: The ``.npy`` header: its dtype, its shape, and the offset where the data starts.
NpyHeader = namedtuple('NpyHeader', ['dtype', 'shape', 'offset'])

_CHUNK = 256 << 10   # bytes read at a time: the only memory a read needs beyond the array
_MAGIC = b'\x93NUMPY'
_HEADER = re.compile(r"\{'descr': '([^']{1,8})', 'fortran_order': (False|True), "
                     r"'shape': \(([0-9, ]{0,%d})\), \} *\n\Z" % (MAX_NDIM * 22))
# What zipfile, zlib and struct raise on a damaged archive (truncated, bad checksum,
# unknown flags or methods, impossible offsets, undecodable names).
_ZIP_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError, OSError,
               RuntimeError, zlib.error, struct.error, OverflowError, IndexError, KeyError)
# The fixed part of a ZIP local file header (before its name and extra field).
_LOCAL_HEADER = 30


def write_archive(fileobj, document_name, document, arrays):
    """Write a ZIP of ``document`` (JSON) and ``arrays`` (``[(member, host array)]``).

    Members are stored uncompressed and dated 1980-01-01 (equal content, equal bytes);
    each array is written as NumPy's ``.npy`` format without an intermediate copy.
    """
    with zipfile.ZipFile(fileobj, 'w', compression=zipfile.ZIP_STORED) as zf:
        zf.writestr(zipfile.ZipInfo(document_name), json.dumps(document, indent=1))
        for member, host in arrays:
            host = np.ascontiguousarray(host)
            header = io.BytesIO()
            np.lib.format.write_array_header_1_0(
                header, np.lib.format.header_data_from_array_1_0(host))
            info = zipfile.ZipInfo(member)
            info.file_size = header.tell() + host.nbytes  # lets zipfile choose ZIP64
            with zf.open(info, 'w') as f:
                f.write(header.getvalue())
                f.write(memoryview(host.reshape(-1).view(np.uint8)))


def shape_is_sane(shape, dtype):
    """Whether ``shape`` (a tuple of ints) is one an array of ``dtype`` can have here:
    at most MAX_NDIM dimensions, none negative, fewer than 2**62 bytes if none were 0."""
    if len(shape) > MAX_NDIM or any(not isinstance(n, int) or isinstance(n, bool) or n < 0
                                    for n in shape):
        return False
    return int(np.prod([n for n in shape if n], dtype=object)) * dtype.itemsize < 2 ** 62


def _depth(value, limit):
    """Whether ``value`` (parsed JSON) nests at most ``limit`` levels (no recursion)."""
    level = [value]
    for _ in range(limit + 1):
        level = [item for v in level if isinstance(v, (list, dict))
                 for item in (v.values() if isinstance(v, dict) else v)]
        if not level:
            return True
    return False


class ArchiveReader:
    """A gluonedu archive opened for checked reading (a path, or bytes).

    ``what`` names the file in error messages. Use as a context manager, or
    :meth:`close` it.
    """

    def __init__(self, source, what):
        self.what = what
        if isinstance(source, (bytes, bytearray, memoryview)):
            self._file, self._size = io.BytesIO(source), len(source)
        else:
            self._file = open(source, 'rb')  # FileNotFoundError passes, as for open()
            self._size = os.fstat(self._file.fileno()).st_size
        try:
            self._zip = zipfile.ZipFile(self._file)
            self._members = self._check_directory()
        except MXNetError:
            self._file.close()
            raise
        except _ZIP_ERRORS as err:
            self._file.close()
            raise MXNetError("%s is not a file gluonedu wrote, or it is damaged: %s"
                             % (what, err)) from None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        self._file.close()

    def damaged(self, why):
        """The MXNetError for a file whose content is wrong in the way ``why`` says."""
        return MXNetError("%s is damaged or was not written by gluonedu: %s"
                          % (self.what, why))

    def _check_directory(self):
        infos = self._zip.infolist()
        members = {info.filename: info for info in infos}
        if len(members) != len(infos):
            raise self.damaged("it names a member twice")
        for info in infos:
            if info.flag_bits & 0x1:
                raise self.damaged("member %r is encrypted" % info.filename)
            if info.compress_type != zipfile.ZIP_STORED or info.compress_size != info.file_size:
                raise self.damaged("member %r is compressed (gluonedu stores members as "
                                   "they are)" % info.filename)
        if sum(info.file_size for info in infos) > self._size:
            raise self.damaged("its members claim more bytes than the file has")
        ordered = sorted(infos, key=lambda info: info.header_offset)
        ends = [info.header_offset + _LOCAL_HEADER + len(info.filename.encode('utf-8'))
                + info.file_size for info in ordered]
        starts = [info.header_offset for info in ordered[1:]] + [self._zip.start_dir]
        if any(end > start for end, start in zip(ends, starts)):
            raise self.damaged("its members overlap")
        return members

    @property
    def members(self):
        """The names of the archive's members."""
        return list(self._members)

    def size(self, member):
        """The size in bytes of ``member`` (MXNetError if there is none)."""
        if member not in self._members:
            raise self.damaged("it lacks %s" % member)
        return self._members[member].file_size

    def expect(self, members):
        """Refuse the archive unless its members are exactly ``members`` (names)."""
        expected = set(members)
        missing = sorted(expected - set(self._members))
        if missing:
            raise self.damaged("it lacks %s" % ', '.join(missing[:5]))
        extra = sorted(set(self._members) - expected)
        if extra:
            raise self.damaged("it holds members its document never names: %s"
                               % ', '.join(repr(m) for m in extra[:5]))

    def _read(self, member, offset, count):
        try:
            with self._zip.open(self._members[member]) as f:
                f.seek(offset)
                return f.read(count)
        except _ZIP_ERRORS as err:
            raise self.damaged("%s cannot be read (%s)" % (member, err)) from None

    def document(self, member, max_bytes):
        """The JSON document ``member`` (at most ``max_bytes``, nested at most MAX_DEPTH)."""
        size = self.size(member)
        if size > max_bytes:
            raise self.damaged("its %s has %d bytes, more than the %d a valid one can have"
                               % (member, size, max_bytes))
        try:
            value = json.loads(self._read(member, 0, size))
        except (ValueError, RecursionError) as err:  # UnicodeError is a ValueError
            raise self.damaged("its %s is not valid JSON (%s)"
                               % (member, str(err)[:80] or type(err).__name__)) from None
        if not _depth(value, MAX_DEPTH):
            raise self.damaged("its %s nests deeper than %d levels" % (member, MAX_DEPTH))
        return value

    def header(self, member):
        """The :class:`NpyHeader` of array ``member``, checked; reads no data."""
        size = self.size(member)
        start = self._read(member, 0, len(_MAGIC) + 6)
        if len(start) < len(_MAGIC) + 4 or not start.startswith(_MAGIC):
            raise self.damaged("%s is not a .npy array" % member)
        major = start[len(_MAGIC)]
        if major == 1:
            length, offset = struct.unpack('<H', start[8:10])[0], 10
        elif major in (2, 3) and len(start) == 12:
            length, offset = struct.unpack('<I', start[8:12])[0], 12
        else:
            raise self.damaged("%s is a .npy array of unknown version %d" % (member, major))
        if length > MAX_NPY_HEADER:
            raise self.damaged("%s has a .npy header of %d bytes" % (member, length))
        text = self._read(member, offset, length)
        found = _HEADER.match(text.decode('latin-1')) if len(text) == length else None
        if found is None:
            raise self.damaged("%s has no valid .npy header" % member)
        descr, fortran, dims = found.groups()
        dtype = DTYPES.get(descr)
        if dtype is None:
            raise self.damaged("%s holds dtype %r, which is not an array dtype gluonedu "
                               "saves (%s)" % (member, descr,
                                               ', '.join(d.name for d in DTYPES.values())))
        if fortran == 'True':
            raise self.damaged("%s is stored in Fortran order (gluonedu writes C order)"
                               % member)
        dims = [d.strip() for d in dims.split(',')]
        if dims[-1] == '':
            dims.pop()
        shape = tuple(int(d) for d in dims) if all(d.isdigit() for d in dims) else None
        if shape is None or not shape_is_sane(shape, dtype):
            raise self.damaged("%s has an invalid shape (%s)" % (member, found.group(3)))
        data = offset + length
        if size - data != dtype.itemsize * int(np.prod(shape, dtype=object)):
            raise self.damaged("%s holds %d bytes of data, but its header says %s %s"
                               % (member, size - data, shape, dtype.name))
        return NpyHeader(dtype, shape, data)

    def array(self, member, header=None):
        """The array ``member`` (a new host array), read in chunks, checksum verified."""
        header = header or self.header(member)
        out = np.empty(header.shape, header.dtype)
        view = memoryview(out.reshape(-1).view(np.uint8))
        try:
            with self._zip.open(self._members[member]) as f:
                f.seek(header.offset)
                done = 0
                while done < len(view):
                    chunk = f.read(min(_CHUNK, len(view) - done))
                    if not chunk:
                        raise EOFError("the data ends early")
                    view[done:done + len(chunk)] = chunk
                    done += len(chunk)
                f.read()  # reaching the end verifies the checksum
        except _ZIP_ERRORS as err:
            raise self.damaged("%s cannot be read (%s)" % (member, err)) from None
        return out
