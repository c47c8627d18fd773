"""Making hostile variants of gluonedu's archives, and running a loader on them safely.

An archive here is the bytes of a ZIP (``mx.nd.save`` files, optimizer-state files).
The variants keep the ZIP checksums valid where the point is to get past them (the JSON
edits, swapped members) and break them where the point is the damage (flips,
truncations). :func:`run_loader` runs one loader call under a wall-clock alarm and
``tracemalloc``, and reports what happened.
"""
import io
import json
import pickle
import signal
import struct
import time
import tracemalloc
import zipfile
import zlib
from contextlib import contextmanager

import numpy as np

import gluonedu as mx

#: The slowest a loader may take on one hostile file (a hang fails the case).
CASE_SECONDS = 10
#: Memory a loader may use beyond 2x the legitimate data (Python objects, buffers).
SLACK_BYTES = 2 << 20


# --------------------------------------------------------------------------- archives
def members(raw):
    """``[(name, bytes)]`` of an archive, in order."""
    with zipfile.ZipFile(io.BytesIO(raw)) as zf:
        return [(info.filename, zf.read(info)) for info in zf.infolist()]


def rezip(items, compression=zipfile.ZIP_STORED):
    """A ZIP (valid checksums) of ``[(name, bytes)]``; names may repeat."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, 'w', compression=compression) as zf:
        for name, data in items:
            with warnings_off():
                zf.writestr(zipfile.ZipInfo(name), data, compress_type=compression)
    return buf.getvalue()


@contextmanager
def warnings_off():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')   # zipfile warns about duplicate names
        yield


def replace(raw, name, data):
    """``raw`` with member ``name``'s bytes replaced (checksums valid)."""
    return rezip([(n, data if n == name else d) for n, d in members(raw)])


def edit_document(raw, name, edit):
    """``raw`` with its JSON document ``name`` replaced by ``edit(document)``."""
    document = json.loads(dict(members(raw))[name])
    return replace(raw, name, json.dumps(edit(document)).encode())


def npy(array, allow_pickle=False):
    buf = io.BytesIO()
    np.save(buf, array, allow_pickle=allow_pickle)
    return buf.getvalue()


def npy_with_header(header, data=b''):
    """A ``.npy`` version 1.0 file with a hand-written header text."""
    text = header.encode('latin-1')
    text += b' ' * (-(len(text) + 11) % 64) + b'\n'
    return b'\x93NUMPY\x01\x00' + struct.pack('<H', len(text)) + text + data


#: dtypes no loader may accept (object, strings, complex, dates, void, big-endian,
#: float128, structured): ``np.zeros(4, dtype)`` of each.
FOREIGN_DTYPES = ['object', '<U4', 'S3', 'c8', 'c16', 'M8[s]', 'm8[s]', 'V4', '>f4', '>i8',
                  'f16' if hasattr(np, 'float128') else 'f8', [('a', '<f4')]]


def hostile_npy_members(legit_member):
    """``[(case id, bytes)]``: ``.npy`` members with hostile headers (huge, negative, deep
    or evaluating shapes, foreign layouts, absurd header lengths and versions), plus
    ``legit_member`` cut short and padded."""
    four = np.zeros(4, np.float32).tobytes()
    headers = {
        'shape-2**40': "{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776,), }",
        'shape-2**31-squared': "{'descr': '<f4', 'fortran_order': False, "
                               "'shape': (2147483648, 2147483648), }",
        'zero-by-huge': "{'descr': '<f4', 'fortran_order': False, "
                        "'shape': (0, 9999999999999999999), }",
        'ndim-40': "{'descr': '<f4', 'fortran_order': False, 'shape': (%s), }"
                   % ', '.join(['1'] * 40),
        'nested': "{'descr': '<f4', 'fortran_order': False, 'shape': %s4%s, }"
                  % ('(' * 3000, ',)' * 3000),
        'negative': "{'descr': '<f4', 'fortran_order': False, 'shape': (-4,), }",
        'eval': "{'descr': __import__('os').system('true'), 'fortran_order': False, "
                "'shape': (4,), }",
        'fortran': "{'descr': '<f4', 'fortran_order': True, 'shape': (4,), }",
        'structured': "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (4,), }",
        'extra-key': "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), 'x': 1, }",
    }
    out = [(name, npy_with_header(text, four)) for name, text in headers.items()]
    return out + [('header-64KB', b'\x93NUMPY\x01\x00' + b'\xff\xff' + b' ' * 65535),
                  ('version-9', b'\x93NUMPY\x09\x00' + b'\0' * 20),
                  ('v2-4GB-header', b'\x93NUMPY\x02\x00\xff\xff\xff\xff'),
                  ('not-npy', b'hello'), ('empty-npy', b''),
                  ('short-data', legit_member[:-4]), ('long-data', legit_member + b'\0' * 4)]


def _central_entries(raw):
    """``{name: offset of its central directory entry}``."""
    entries = {}
    start = raw.rfind(b'PK\x05\x06')
    count, size, offset = struct.unpack('<HII', raw[start + 10:start + 20])
    pos = offset
    for _ in range(count):
        name_len, extra_len, comment_len = struct.unpack('<HHH', raw[pos + 28:pos + 34])
        entries[raw[pos + 46:pos + 46 + name_len].decode()] = pos
        pos += 46 + name_len + extra_len + comment_len
    return entries


def patch_central(raw, name, **fields):
    """``raw`` with fields of ``name``'s central directory entry overwritten.

    fields: ``flags``, ``method``, ``crc``, ``compressed``, ``size``, ``offset``.
    """
    layout = {'flags': (8, '<H'), 'method': (10, '<H'), 'crc': (16, '<I'),
              'compressed': (20, '<I'), 'size': (24, '<I'), 'offset': (42, '<I')}
    out = bytearray(raw)
    pos = _central_entries(raw)[name]
    for field, value in fields.items():
        at, fmt = layout[field]
        struct.pack_into(fmt, out, pos + at, value)
    return bytes(out)


def deflate_bomb(raw, name, size):
    """``raw`` with member ``name`` holding ``size`` zero bytes, deflated (~1000x)."""
    zeros = np.zeros(size, np.uint8).tobytes()
    return rezip([(n, zeros if n == name else d) for n, d in members(raw)],
                 compression=zipfile.ZIP_DEFLATED)


class Evil:
    """Unpickling this creates ``marker`` (proof that a loader ran code)."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, 'w'))


def pickle_payload(marker):
    return pickle.dumps(Evil(str(marker)))


# --------------------------------------------------------------------------- case families
def pickle_cases(raw, document, member, marker):
    """Pickles (one that creates ``marker`` if unpickled) and polyglots: the payload
    alone, before and after the archive, as an array ``member`` and as the ``document``."""
    payload = pickle_payload(marker)
    evil_objects = np.array([Evil(str(marker))], dtype=object)
    return [('pickle', payload),
            ('pickle+zip', payload + raw),               # a polyglot: harmless, loads
            ('png+zip', b'\x89PNG\r\n\x1a\n' + b'\0' * 100 + raw),
            ('zip+pickle', raw + payload),
            ('npy-of-objects', replace(raw, member, npy(evil_objects, True))),
            ('document-pickle', replace(raw, document, payload))]


def bomb_cases(raw, document, member, other_member):
    """Zip bombs and lying ZIP headers on array ``member``; a huge and a deeply nested
    ``document``."""
    return [('deflate-64MB', deflate_bomb(raw, member, 64 << 20)),
            ('declared-1TB', patch_central(raw, member, size=2 ** 32 - 1,
                                           compressed=2 ** 32 - 1)),
            ('size-mismatch', patch_central(raw, member, size=10)),
            ('overlap', patch_central(raw, other_member, offset=0)),
            ('encrypted', patch_central(raw, member, flags=1)),
            ('bzip2-method', patch_central(raw, member, method=12)),
            ('document-5MB', edit_document(raw, document,
                                           lambda m: dict(m, pad='x' * (5 << 20)))),
            ('document-deep', replace(raw, document, b'[' * 100000 + b']' * 100000)),
            ('document-deep-objects', replace(raw, document,
                                              b'{"a":' * 50000 + b'1' + b'}' * 50000))]


def member_cases(raw, member):
    """Members added (a path name, an unreferenced array), repeated, ``member`` missing
    or renamed to a path, and an empty archive."""
    items = members(raw)
    return [('extra-member', rezip(items + [('../../evil.sh', b'rm -rf ~')])),
            ('extra-npy', rezip(items + [('99.npy', npy(np.zeros(3)))])),
            ('duplicate', rezip(items + [items[1]])),
            ('missing', rezip([i for i in items if i[0] != member])),
            ('renamed-to-path', rezip([('../' + n if n == member else n, d)
                                       for n, d in items])),
            ('empty-zip', rezip([]))]


def field_edits(document, rng, per_field=8):
    """``[(case id, edited document)]``: every field (and the whole document) set to
    ``per_field`` values drawn from :data:`HOSTILE_VALUES`, and every field dropped."""
    out = []
    for path in json_paths(document):
        name = '/'.join(map(str, path))
        picks = rng.choice(len(HOSTILE_VALUES), size=per_field, replace=False)
        out += [('%s=%r' % (name, HOSTILE_VALUES[i]), set_path(document, path,
                                                             HOSTILE_VALUES[i]))
                for i in sorted(picks)]
        if path:
            out.append(('drop ' + name, drop_path(document, path)))
    return out


def json_paths(value, path=()):
    """Every path to a value inside parsed JSON (dict keys and list positions)."""
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from json_paths(item, path + (key,))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from json_paths(item, path + (i,))


def set_path(document, path, value):
    """A copy of ``document`` with the value at ``path`` replaced."""
    document = json.loads(json.dumps(document))
    if not path:
        return value
    target = document
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return document


def drop_path(document, path):
    document = json.loads(json.dumps(document))
    target = document
    for key in path[:-1]:
        target = target[key]
    del target[path[-1]]
    return document


#: What each JSON value is replaced with: wrong types, out-of-range numbers, huge ones.
HOSTILE_VALUES = [None, True, -1, 0, 2 ** 64, -2 ** 63, 1e308, float('nan'), 0.5, '', 'x',
                  '../../etc/passwd', [], [-1], [2 ** 40, 2 ** 40], {}, {'a': 1}]


def flips_and_cuts(raw, rng, stride=1, random_count=60):
    """Damaged copies: every ``stride``-th byte flipped in the first 200 and last 400
    bytes (headers, the manifest, the central directory) and at ``random_count`` random
    places; cut at a third of those places."""
    n = len(raw)
    places = sorted(set(list(range(0, min(200, n), stride))
                        + list(range(max(0, n - 400), n, stride))
                        + [int(p) for p in rng.integers(0, n, random_count)]))
    out = []
    for pos in places:
        flipped = bytearray(raw)
        flipped[pos] ^= 0xFF
        out.append(('flip@%d' % pos, bytes(flipped)))
    out += [('cut@%d' % pos, raw[:pos]) for pos in places[::3]]
    return out


# --------------------------------------------------------------------------- running
class Timeout(Exception):
    pass


@contextmanager
def alarm(seconds):
    def ring(signum, frame):
        raise Timeout('no answer within %d s' % seconds)
    previous = signal.signal(signal.SIGALRM, ring)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


class Outcome:
    """What one loader call did: ``error`` (the exception or None), ``result``, ``peak``
    (bytes traced by tracemalloc above the start), ``seconds``."""

    def __init__(self, error, result, peak, seconds):
        self.error, self.result, self.peak, self.seconds = error, result, peak, seconds

    def __repr__(self):
        return 'Outcome(%s, peak=%.1f MB, %.2f s)' % (
            type(self.error).__name__ if self.error else 'loaded', self.peak / 2 ** 20,
            self.seconds)


def run_loader(load):
    """Call ``load()`` under the alarm and tracemalloc; the :class:`Outcome`."""
    tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    start = time.monotonic()
    error = result = None
    try:
        with alarm(CASE_SECONDS):
            result = load()
    except Exception as err:  # the caller judges the type
        error = err
    seconds = time.monotonic() - start
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    return Outcome(error, result, peak, seconds)


def nbytes_of(arrays):
    """Bytes of the arrays in a list/dict of NDArrays (the legitimate data)."""
    values = arrays.values() if isinstance(arrays, dict) else arrays
    total = 0
    for arr in values:
        if arr.stype == 'default':
            total += arr.asnumpy().nbytes
        else:
            total += sum(getattr(arr, part).asnumpy().nbytes
                         for part in ('data', 'indices', 'indptr') if hasattr(arr, part))
    return total


def judge(outcome, allowed_errors, legit_bytes, same_as_legit):
    """A list of problems with ``outcome`` (empty: fine).

    A hostile file must raise one of ``allowed_errors`` (MXNetError, plus the documented
    errors of a loader whose file is valid but does not fit) or load what the legitimate
    file holds (``same_as_legit(result)``); never hang; stay within 2x the legitimate
    data's memory.
    """
    problems = []
    if isinstance(outcome.error, Timeout):
        problems.append('hung')
    elif outcome.error is not None and not isinstance(outcome.error, allowed_errors):
        problems.append('raised %s: %s' % (type(outcome.error).__name__,
                                           str(outcome.error)[:200]))
    elif outcome.error is None and not same_as_legit(outcome.result):
        problems.append('loaded something else without an error')
    if outcome.peak > 2 * legit_bytes + SLACK_BYTES:
        problems.append('used %.1f MB for %.1f MB of data'
                        % (outcome.peak / 2 ** 20, legit_bytes / 2 ** 20))
    return problems


def assert_all_fine(cases):
    """``cases``: ``[(case id, problems)]``; fail listing every case with a problem."""
    bad = [(case, problems) for case, problems in cases if problems]
    assert not bad, '%d of %d cases: %s' % (len(bad), len(cases), bad[:20])


MXNetError = mx.MXNetError
